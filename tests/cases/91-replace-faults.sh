#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 91-replace-faults: faults during mdadm --replace. raid456 first (the
# reference), then raid5x, a fresh array for each scenario:
#   new-fails: the replacement fails while being copied: it is dropped, the
#     old member keeps its slot, the array is never degraded, data intact;
#   old-fails: the member being replaced fails during the copy: the
#     replacement takes its slot at once and the copy goes on as a rebuild
#     from parity (degraded 1 meanwhile), ends in sync, data intact, raid456
#     assembles the new set with parity checked.
# Before raid5x had replacements neither could start (--replace refused).
#
# raid456's own race: once in CI (6.12, 2026-12-06) raid456's part hit the
# WARN_ON in handle_stripe that a replacement block about to be written is
# uptodate (raid5.c: "Write out to replacement devices"; the same line in
# 6.1, 6.12 and 7.2). md's "fix data corruption of replacements after
# originals dropped" was written against this WARN (stripes rebuild once
# the original is gone); this report says a window is left. 172 rounds
# of each of raid456's two scenarios (92 on 6.12, 80 on 7.2, a host
# thread per vCPU and one for both) did not bring it back. The line below
# lets the harness leave out that report, in raid456 only (tests/README.md);
# raid5x's copy never writes a block it has not read or rebuilt
# (stripe_handle.c plan_sync/run_sync) and any splat of its fails the case.
# raid456-warn: handle_stripe
# timeout: 900
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

pers_list=(raid456 raid5x)
tap_plan $((${#pers_list[@]} * 9))
load_md

sys=/sys/block/md0/md
msz=$(gl_scaled 24 8)


# start PERS: fresh array of 4 (devs[0..3]) filled with random data,
# devs[4] added and copying onto as devs[1]'s replacement at 500 KiB/s.
start() {
	local i
	read -r -a devs <<<"$(make_members 5 "$msz")"
	create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}" || return 1
	[ "$1" = raid456 ] || to_raid5x md0 || return 1
	head -c "$(blockdev --getsize64 /dev/md0)" /dev/urandom >/tmp/data
	dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none || return 1
	want=$(md5sum </tmp/data | cut -d' ' -f1)
	echo 500 >"$sys/sync_speed_min"
	echo 500 >"$sys/sync_speed_max"
	mdadm /dev/md0 --add "${devs[4]}" >/dev/null &&
		mdadm /dev/md0 --replace "${devs[1]}" --with "${devs[4]}" >/dev/null || return 1
	# md's thread makes it the replacement: polled, up to 60 s
	for ((i = 0; i < 600; i++)); do
		[[ $(md_member md0 "${devs[4]}" state) != *replacement* ]] || return 0
		gl_nap 0.1
	done
	note "state of ${devs[4]}: '$(md_member md0 "${devs[4]}" state)'"
	return 1
}

# same_data: the array reads back what start() wrote.
same_data() {
	local got
	got=$(md_md5 md0)
	[ "$got" = "$want" ] || { note "md5 $got, written $want"; return 1; }
}

# unlimited: lift the speed limit and wait for the array to be idle.
unlimited() {
	echo 200000 >"$sys/sync_speed_max"
	echo 1000 >"$sys/sync_speed_min"
	wait_idle md0 300
}

for pers in "${pers_list[@]}"; do
	# --- the replacement fails mid-copy ---------------------------------
	tap_check "$pers new-fails: copy onto a replacement started" start "$pers"
	step() {
		mdadm /dev/md0 --fail "${devs[4]}" >/dev/null || return 1
		gl_nap 1
		[[ $(md_member md0 "${devs[4]}" state) == *faulty* ]] || { note "new: '$(md_member md0 "${devs[4]}" state)'"; return 1; }
		if [[ $(md_member md0 "${devs[1]}" state) != *in_sync* ]] || [ "$(md_member md0 "${devs[1]}" slot)" != 1 ]; then
			note "old: '$(md_member md0 "${devs[1]}" state)' slot $(md_member md0 "${devs[1]}" slot)"
			return 1
		fi
		[ "$(cat "$sys/degraded")" = 0 ] || { note "degraded $(cat "$sys/degraded")"; return 1; }
	}
	tap_check "$pers new-fails: the replacement failed, the old member keeps slot 1, not degraded" step
	tap_check "$pers new-fails: array idle again" unlimited
	tap_check "$pers new-fails: data intact" same_data
	gl_fresh

	# --- the member being replaced fails mid-copy -----------------------
	tap_check "$pers old-fails: copy onto a replacement started" start "$pers"
	step() {
		mdadm /dev/md0 --fail "${devs[1]}" >/dev/null || return 1
		gl_nap 1
		if [ "$(md_member md0 "${devs[4]}" slot)" != 1 ] || [[ $(md_member md0 "${devs[4]}" state) == *faulty* ]]; then
			note "new: '$(md_member md0 "${devs[4]}" state)' slot $(md_member md0 "${devs[4]}" slot)"
			return 1
		fi
	}
	tap_check "$pers old-fails: the replacement holds slot 1 after the old member failed" step
	tap_check "$pers old-fails: data intact while the copy goes on degraded" same_data
	step() {
		unlimited || return 1
		if [ "$(cat "$sys/degraded")" != 0 ] || [[ $(md_member md0 "${devs[4]}" state) != *in_sync* ]]; then
			note "degraded $(cat "$sys/degraded"), new '$(md_member md0 "${devs[4]}" state)'"
			return 1
		fi
		same_data
	}
	tap_check "$pers old-fails: the new member ends in sync, not degraded, data intact" step
	step() {
		mdadm /dev/md0 --remove "${devs[1]}" >/dev/null 2>&1 || true
		stop_array md0 &&
			assemble_raid456 md0 "${devs[0]}" "${devs[4]}" "${devs[2]}" "${devs[3]}" &&
			check_parity md0
	}
	tap_check "$pers old-fails: raid456 assembles the new set, check mismatch_cnt 0" step
	gl_fresh
done
tap_done
