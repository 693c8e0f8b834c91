#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 56-degraded-migrate: degraded arrays move between raid5x and raid456 in
# both directions. One personality ("writer") runs the array with one member
# missing and fio writes it (partial and full stripes, crc32c verify); the
# array is stopped and assembled degraded under the other ("reader"), which
# must verify every block read-only, rebuild the missing member onto a
# zeroed device, verify again and find parity right (check mismatch_cnt 0).
# The missing member is, in turn: a data-only member (parity-last, member
# 0), the parity-only member (parity-last, member 3: degraded writes then
# update no parity at all, the rebuild recomputes it), and a member that
# carries data and parity (left-symmetric, member 1).
# timeout: 900
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

configs=("parity-last 0 data-only" "parity-last 3 parity-only"
	"left-symmetric 1 data+parity")
# debug-kernel pass: the parity-only member (raid5x's own degraded-write
# path) and a member with data and parity (55 covers data-only members)
gl_sample configs 1 2
tap_plan $((${#configs[@]} * 2 * 9))
load_md

sys=/sys/block/md0/md

# run_as PERS DEVS...: assemble md0 from DEVS under PERS (raid5 or raid5x:
# assembled by raid456, then taken over).
run_as() {
	local pers=$1
	shift
	assemble_raid456 md0 "$@" || return 1
	if [ "$pers" = raid5x ]; then
		to_raid5x md0 || return 1
	fi
}

# degraded_as PERS: md0 runs PERS with exactly one member missing.
degraded_as() {
	[ "$(md_level md0)" = "$1" ] || { note "level $(md_level md0), want $1"; return 1; }
	[ "$(cat "$sys/degraded")" = 1 ] || { note "degraded=$(cat "$sys/degraded")"; return 1; }
	grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/3\]' ||
		{ note "mdstat: $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"; return 1; }
}

# check_as PERS: parity check by PERS's own sync_request, mismatch_cnt 0.
check_as() {
	local mm
	[ "$(md_level md0)" = "$1" ] || { note "level $(md_level md0), want $1"; return 1; }
	wait_idle md0 || return 1
	echo check >"$sys/sync_action" || return 1
	sleep 0.2
	wait_idle md0 || return 1
	mm=$(cat "$sys/mismatch_cnt")
	note "check under $1: mismatch_cnt=$mm"
	[ "$mm" = 0 ]
}

# rebuild_as PERS DEV: zero DEV, add it, PERS rebuilds it: [4/4] [UUUU].
rebuild_as() {
	dd if=/dev/zero of="$2" bs=1M oflag=direct status=none 2>/dev/null || true
	mdadm --manage /dev/md0 --add "$2" >/dev/null || return 1
	sleep 0.5
	wait_rebuilt md0 || return 1
	[ "$(md_level md0)" = "$1" ] || { note "level $(md_level md0), want $1"; return 1; }
	grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/4\] \[UUUU\]' ||
		{ note "mdstat: $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"; return 1; }
}

# whole array, random partial and full-row writes (row = 3 x 64 KiB)
cat >/tmp/mig.fio <<'JOB'
[global]
filename=/dev/md0
direct=1
ioengine=libaio
iodepth=8
verify=crc32c
verify_fatal=1
randrepeat=1

[mix]
rw=randwrite
bsrange=4k-192k
size=100%
JOB

name() { case $1 in raid5) echo raid456 ;; *) echo "$1" ;; esac; }

for c in "${configs[@]}"; do
	read -r layout miss what <<<"$c"
	for dir in "raid5x raid5" "raid5 raid5x"; do
		read -r writer reader <<<"$dir"
		t0=$EPOCHREALTIME
		tag="$layout, member $miss missing ($what), $(name "$writer") -> $(name "$reader")"
		read -r -a devs <<<"$(make_members 4 6)"
		gone=${devs[$miss]}
		rest=()
		for d in "${devs[@]}"; do
			[ "$d" = "$gone" ] || rest+=("$d")
		done
		create_raid5 md0 4 64 "$layout" "${devs[@]}"
		step() {
			if [ "$writer" = raid5x ]; then
				to_raid5x md0 || return 1
			fi
			mdadm --manage /dev/md0 --fail "$gone" >/dev/null 2>&1 &&
				mdadm --manage /dev/md0 --remove "$gone" >/dev/null 2>&1 &&
				degraded_as "$writer"
		}
		tap_check "$tag: runs degraded under $(name "$writer")" step
		tap_check "$tag: fio write+verify degraded under $(name "$writer")" \
			fio_verify /tmp/mig.fio
		stop_array md0
		tap_check "$tag: assembled degraded under $(name "$reader")" \
			run_as "$reader" "${rest[@]}"
		tap_check "$tag: $(name "$reader") verifies it degraded (fio verify_only)" \
			fio_verify --verify_only /tmp/mig.fio
		sum=$(md_md5 md0)
		tap_check "$tag: $(name "$reader") rebuilds member $miss" rebuild_as "$reader" "$gone"
		tap_check "$tag: fio verify_only after the rebuild" \
			fio_verify --verify_only /tmp/mig.fio
		tap_check "$tag: same md5 after the rebuild" test "$(md_md5 md0)" = "$sum"
		tap_check "$tag: check by $(name "$reader"): mismatch_cnt 0" check_as "$reader"
		stop_array md0
		# back to the writer, whole: it must read what the reader rebuilt
		step() {
			run_as "$writer" "${devs[@]}" || return 1
			[ "$(cat "$sys/degraded")" = 0 ] || { note "degraded=$(cat "$sys/degraded")"; return 1; }
			fio_verify --verify_only /tmp/mig.fio || return 1
			if [ "$writer" = raid5 ]; then
				check_parity md0 || return 1
			fi
		}
		extra=""
		[ "$writer" = raid5x ] || extra=", raid456 check mismatch_cnt 0"
		tap_check "$tag: back under $(name "$writer"), whole: verify_only passes$extra" step
		stop_array md0
		for d in "${devs[@]}"; do
			losetup -d "$d"
		done
		rm -f "$GL_MEMBER_DIR"/m*
		note "$tag: $(gl_since "$t0") s"
	done
done
tap_done
