#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 55-degraded-integ: the idea of mdadm's 01r5integ, under raid5x. For every
# level-5 layout a 4-member array is filled with known random data; then
# each member in turn goes missing (members 0-2: mdadm --fail + --remove on
# the running raid5x array; member 3: the array is stopped and assembled
# without it, then taken over by raid5x degraded). The degraded array must
# read back exactly the data written (md5), and raid5x must rebuild the
# zeroed member onto itself: [4/4], raid5x's `check` mismatch_cnt 0, same
# bytes. At the end raid456 assembles the array: same bytes, check 0.
# timeout: 900
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

layouts=(left-asymmetric right-asymmetric left-symmetric right-symmetric
	parity-first parity-last)
# debug-kernel pass: mdadm's default layout and a parity-first one
gl_sample layouts 2 4
tap_plan $((${#layouts[@]} * 11))
load_md

sys=/sys/block/md0/md

# check_raid5x: parity check run by raid5x's own sync_request; mismatch_cnt 0.
check_raid5x() {
	local mm
	[ "$(md_level md0)" = raid5x ] || { note "level is $(md_level md0)"; return 1; }
	wait_idle md0 || return 1
	echo check >"$sys/sync_action" || return 1
	sleep 0.2
	wait_idle md0 || return 1
	mm=$(cat "$sys/mismatch_cnt")
	[ "$mm" = 0 ] || { note "raid5x check: mismatch_cnt=$mm"; return 1; }
}

# same_hash WANT: the whole array (O_DIRECT) hashes to WANT.
same_hash() {
	local got
	got=$(md_md5 md0)
	[ "$got" = "$1" ] || { note "md5 $got, want $1"; return 1; }
}

# rebuild_onto DEV WANT: zero DEV entirely (superblock too), add it as a new
# spare, wait for raid5x's recovery, then require [UUUU], raid5x still in
# charge, check mismatch_cnt 0 and the array hashing to WANT.
rebuild_onto() {
	local dev=$1 want=$2
	dd if=/dev/zero of="$dev" bs=1M oflag=direct status=none 2>/dev/null || true
	mdadm --manage /dev/md0 --add "$dev" >/dev/null || { note "--add $dev failed"; return 1; }
	sleep 0.5
	wait_rebuilt md0 || return 1
	grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/4\] \[UUUU\]' ||
		{ note "mdstat: $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"; return 1; }
	check_raid5x || return 1
	same_hash "$want"
}

# fail_remove DEV: mdadm --fail then --remove on the running array.
fail_remove() {
	mdadm --manage /dev/md0 --fail "$1" >/dev/null 2>&1 || return 1
	mdadm --manage /dev/md0 --remove "$1" >/dev/null 2>&1 || return 1
	[ "$(cat "$sys/degraded")" = 1 ] || { note "degraded=$(cat "$sys/degraded")"; return 1; }
}

# drop_by_assembly DEV DEVS...: stop md0, assemble it without DEV (raid456
# picks it up), hand it to raid5x degraded.
drop_by_assembly() {
	local dev=$1 d rest=()
	shift
	for d in "$@"; do
		[ "$d" = "$dev" ] || rest+=("$d")
	done
	stop_array md0 || return 1
	mdadm --assemble --run --quiet /dev/md0 "${rest[@]}" || return 1
	[ "$(cat "$sys/degraded")" = 1 ] || { note "degraded=$(cat "$sys/degraded")"; return 1; }
	to_raid5x md0
}

t_all=$EPOCHREALTIME
for layout in "${layouts[@]}"; do
	t0=$EPOCHREALTIME
	read -r -a devs <<<"$(make_members 4 5)"
	create_raid5 md0 4 32 "$layout" "${devs[@]}"
	tap_check "$layout: takeover to raid5x" to_raid5x md0
	size=$(blockdev --getsize64 /dev/md0)
	head -c "$size" /dev/urandom >/tmp/data
	want=$(md5sum </tmp/data | cut -d' ' -f1)
	dd if=/tmp/data of=/dev/md0 bs=256k oflag=direct status=none
	tap_check "$layout: raid5x array reads back the $((size >> 20)) MiB written" same_hash "$want"
	for i in 0 1 2 3; do
		d=${devs[$i]}
		if [ "$i" = 3 ]; then
			how="assembled without member $i, raid5x degraded"
			step() { drop_by_assembly "$d" "${devs[@]}" && same_hash "$want"; }
		else
			how="member $i failed+removed"
			step() { fail_remove "$d" && same_hash "$want"; }
		fi
		tap_check "$layout: $how: same md5" step
		tap_check "$layout: member $i rebuilt by raid5x, check 0, same md5" \
			rebuild_onto "$d" "$want"
	done
	stop_array md0
	step() { assemble_raid456 md0 "${devs[@]}" && same_hash "$want" && check_parity md0; }
	tap_check "$layout: raid456 assembles it: same md5, check mismatch_cnt 0" step
	stop_array md0
	for d in "${devs[@]}"; do
		losetup -d "$d"
	done
	rm -f "$GL_MEMBER_DIR"/m*
	note "$layout: $(gl_since "$t0") s"
done
note "all layouts: $(gl_since "$t_all") s"
tap_done
