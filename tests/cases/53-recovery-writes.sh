#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 53-recovery-writes: writes during a spare rebuild keep parity right on
# the member being rebuilt.  Recovery runs slowly while random writes land
# behind and ahead of it; afterwards raid5x's check must find 0 mismatches
# (a rebuilt parity member that missed later writes showed 704) and the
# data must verify, also under raid456.
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 6
load_md
read -r -a devs <<<"$(make_members 5 16)"
sys=/sys/block/md0/md
create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}"
tap_check "takeover to raid5x" to_raid5x md0
dd if=/dev/urandom of=/dev/md0 bs=1M count=40 oflag=direct status=none
mdadm /dev/md0 --fail "${devs[1]}" --remove "${devs[1]}" >/dev/null
echo 1500 >/proc/sys/dev/raid/speed_limit_max
mdadm /dev/md0 --add "${devs[4]}" >/dev/null
tap_check "fio verify: random writes while the spare is rebuilt" fio_verify \
	--name=w --filename=/dev/md0 --rw=randwrite --bsrange=4k-64k \
	--direct=1 --ioengine=libaio --iodepth=8 --size=40M --io_size=24M \
	--rate=2m --randrepeat=0
echo 200000 >/proc/sys/dev/raid/speed_limit_max
tap_check "the rebuild completes" wait_idle md0 300
echo check >"$sys/sync_action"
wait_idle md0 300
note "mismatch_cnt $(cat "$sys/mismatch_cnt")"
tap_check "raid5x check: 0 mismatches" test "$(cat "$sys/mismatch_cnt")" = 0
sum=$(md_md5 md0)
stop_array md0
assemble_raid456 md0 "${devs[0]}" "${devs[2]}" "${devs[3]}" "${devs[4]}"
tap_check "raid456 reads the same bytes" test "$(md_md5 md0)" = "$sum"
tap_check "raid456 check: 0 mismatches" check_parity md0
stop_array md0
tap_done
