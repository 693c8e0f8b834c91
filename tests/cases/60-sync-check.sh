#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 60-sync-check: raid5x's own sync_request. `check` under raid5x reads the
# members (not the cache): 0 on a consistent array, non-zero after a parity
# block is corrupted behind md's back; `repair` fixes it; raid456 agrees.
# Then a failed member is replaced by a spare rebuilt by raid5x's recovery,
# and raid456 finds the same bytes with mismatch_cnt 0.
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 12
load_md

read -r -a devs <<<"$(make_members 5 "$(gl_scaled 48 12)")"
sys=/sys/block/md0/md
create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}"
tap_check "takeover to raid5x" to_raid5x md0
fio --eta=never --name=fill --filename=/dev/md0 --rw=write --bs=1M --direct=1 \
	--ioengine=libaio --iodepth=4 --size=100% >/dev/null
sum0=$(md5sum </dev/md0)

sync_run() { # action -> prints mismatch_cnt
	wait_idle md0 >/dev/null && echo "$1" >"$sys/sync_action" && sleep 0.5 &&
		wait_idle md0 >/dev/null && cat "$sys/mismatch_cnt"
}
mm=$(sync_run check)
tap_check "check under raid5x: consistent array has mismatch_cnt 0 (got $mm)" test "$mm" = 0

# Row 0 of left-symmetric on 4 members keeps parity on member 3: overwrite
# its first 4 KiB behind md's back.
off=$(cat "$sys/dev-${devs[3]##*/}/offset")
dd if=/dev/urandom of="${devs[3]}" bs=512 seek="$off" count=8 oflag=direct conv=notrunc 2>/dev/null
mm=$(sync_run check)
tap_check "check under raid5x detects a corrupted parity block (mismatch_cnt $mm > 0)" test "$mm" -gt 0
mm=$(sync_run repair)
tap_check "repair under raid5x counts it too (mismatch_cnt $mm > 0)" test "$mm" -gt 0
mm=$(sync_run check)
tap_check "check after repair: mismatch_cnt 0 (got $mm)" test "$mm" = 0
tap_check "data unchanged by check/repair" test "$(md5sum </dev/md0)" = "$sum0"

# member failure, degraded writes, spare rebuilt by raid5x
mdadm /dev/md0 --fail "${devs[1]}" >/dev/null 2>&1
tap_check "degraded: mdstat shows [4/3]" grep -q '\[4/3\]' /proc/mdstat
tap_check "degraded read returns the same bytes" test "$(md5sum </dev/md0)" = "$sum0"
tap_check "fio verify while degraded" fio --eta=never --name=deg \
	--filename=/dev/md0 --rw=randwrite --bs=8k --direct=1 --ioengine=libaio \
	--iodepth=8 --size=100% --io_size="$(gl_scaled 24)M" --randrepeat=1 --verify=crc32c \
	--verify_fatal=1 --output=/dev/null
sum1=$(md5sum </dev/md0)
mdadm /dev/md0 --remove "${devs[1]}" >/dev/null 2>&1
wipefs -a "${devs[4]}" >/dev/null 2>&1 || true
mdadm /dev/md0 --add "${devs[4]}" >/dev/null
wait_rebuilt md0 600
tap_check "raid5x rebuilt the spare: [4/4] [UUUU]" grep -q '\[4/4\] \[UUUU\]' /proc/mdstat
stop_array md0
assemble_raid456 md0 "${devs[0]}" "${devs[2]}" "${devs[3]}" "${devs[4]}"
tap_check "raid456 reads the rebuilt array: same bytes" test "$(md5sum </dev/md0)" = "$sum1"
tap_check "raid456 check after raid5x rebuild: mismatch_cnt 0" check_parity md0
tap_done
