#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 77-stop-during-sync: `mdadm --stop` while raid5x runs an initial resync or
# a recovery and writes are going on must stop the array (mdadm's 00raid5
# hung here: raid5xd stopped handling every stripe while md had a
# superblock update pending, and md cannot update it while --stop holds
# the array's lock).  The arrays are created on raid5x directly
# (claim_raid5=1), so the syncs are raid5x's from the first sector; where
# the kernel refuses claim_raid5 (6.14+), the sync md starts under raid456
# is frozen at once, the array taken over and the sync resumed by raid5x
# from md's checkpoint.  Each is reassembled afterwards and its data checked.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 12
load_md
claim=0
claim_raid5_load || claim=$?
tap_check "md-raid5x claim_raid5=1 loaded with raid456 unloaded (or refused, 6.14+)" \
	test "$claim" != 1
# on_raid5x: the new md0 runs its sync on raid5x
on_raid5x() {
	[ "$claim" = 2 ] || return 0
	md_freeze md0 && to_raid5x md0 &&
		echo idle >"$sys/sync_action"
}
read -r -a devs <<<"$(make_members 4 48)"
sys=/sys/block/md0/md
# slow_sync on|off: md's sync speed cap (KiB/s per member): low while a
# stop must catch a sync at work, unlimited while the test waits for one
slow_sync() {
	local v=200000
	[ "$1" = off ] || v=2000
	echo "$v" >/proc/sys/dev/raid/speed_limit_max
}

# stop_under_load KIND: writes running, sync at work, then mdadm --stop
stop_under_load() {
	local kind=$1 pid rc=0
	fio --name=w --filename=/dev/md0 --rw=randwrite --bsrange=4k-128k \
		--direct=1 --ioengine=libaio --iodepth=16 --size=32M \
		--time_based --runtime=30 --eta=never --output=/dev/null &
	pid=$!
	# writes under way, and the sync running (md's thread starts it: up
	# to 30 s; slow_sync keeps it running far longer)
	local i a
	sleep 3
	for ((i = 0; i < 300; i++)); do
		read -r a <"$sys/sync_action"
		[ "$a" != "$kind" ] || break
		gl_nap 0.1
	done
	note "$kind: $a at $(cat "$sys/sync_completed")"
	[ "$a" = "$kind" ] || { note "no $kind running"; rc=1; }
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# the stop itself: bounded, the guest's hung-task check backs it up
	timeout 60 mdadm --stop /dev/md0 || { note "mdadm --stop failed or hung"; rc=1; }
	[ ! -e "$sys/level" ] || { note "md0 still running"; rc=1; }
	return "$rc"
}

# 1. initial resync (0.90, 3 members, as in 00raid5)
slow_sync on
mdadm --create /dev/md0 --run --quiet --force --metadata=0.90 --level=5 \
	--chunk=64 --raid-devices=3 "${devs[@]:0:3}"
on_raid5x
tap_check "new 0.90 array runs on raid5x" test -e "$sys/raid5x_stats"
tap_check "mdadm --stop during the initial resync with writes" stop_under_load resync
slow_sync off
mdadm --assemble --run --quiet /dev/md0 "${devs[@]:0:3}"
on_raid5x
tap_check "reassembled, resync resumes and completes" wait_idle md0 300
echo check >"$sys/sync_action"
wait_idle md0 300
tap_check "raid5x check after the interrupted resync: 0 mismatches" \
	test "$(cat "$sys/mismatch_cnt")" = 0
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

# 2. initial recovery (1.2, 4 members: mdadm builds the last one as a spare)
slow_sync on
mdadm --create /dev/md0 --run --quiet --metadata=1.2 --level=5 --chunk=64 \
	--raid-devices=4 "${devs[@]}"
on_raid5x
tap_check "new 1.2 array runs on raid5x" test -e "$sys/raid5x_stats"
tap_check "mdadm --stop during the initial recovery with writes" stop_under_load recover
slow_sync off
mdadm --assemble --run --quiet /dev/md0 "${devs[@]}"
on_raid5x
tap_check "reassembled, recovery completes" wait_idle md0 300
tap_check "all members in sync" grep -q '\[4/4\] \[UUUU\]' /proc/mdstat
echo check >"$sys/sync_action"
wait_idle md0 300
tap_check "raid5x check after the interrupted recovery: 0 mismatches" \
	test "$(cat "$sys/mismatch_cnt")" = 0

# 3. a member failed while writes run, then --stop (failure to record)
fio --name=w --filename=/dev/md0 --rw=randwrite --bs=16k --direct=1 \
	--ioengine=libaio --iodepth=16 --size=32M --time_based --runtime=20 \
	--eta=never --output=/dev/null &
pid=$!
sleep 2
mdadm /dev/md0 --fail "${devs[1]}" >/dev/null
sleep 2
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null || true
tap_check "degraded writes went on after the failure was recorded" \
	grep -q '\[4/3\]' /proc/mdstat
tap_check "mdadm --stop of the degraded array" timeout 60 mdadm --stop /dev/md0
tap_done
