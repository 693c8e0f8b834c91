#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 15-smoke: a short tour of every raid5x path, sized for the debug kernel
# (lockdep, KASAN, DEBUG_ATOMIC_SLEEP make it slow under TCG): full-stripe,
# partial (rmw and rcw) and unaligned writes with verification, direct and
# cached reads, stripe cache resize under I/O, check, a member failure,
# degraded reads and writes, a spare rebuilt, stop.
# timeout: 900
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 9
load_md
read -r -a devs <<<"$(make_members 5 16)"
sys=/sys/block/md0/md
create_raid5 md0 4 16 left-symmetric "${devs[@]:0:4}"
tap_check "takeover to raid5x" to_raid5x md0
tap_check "mixed writes verify (seq 48k full stripes, rand 4k, odd sizes)" \
	fio --eta=never --output=/tmp/fio-mixed.out --filename=/dev/md0 --direct=1 \
	--ioengine=libaio --iodepth=8 --verify=crc32c --verify_fatal=1 \
	--name=full --rw=write --bs=48k --size=12M \
	--name=rand --rw=randwrite --bs=4k --offset=12M --size=8M --io_size=4M \
	--name=odd --rw=write --bsrange=512-20k --blockalign=512 --offset=20M --size=4M
grep -E 'err=|verify|bad' /tmp/fio-mixed.out | sed 's/^/# /' || true
tap_check "resize the stripe cache under buffered I/O" sh -c \
	"dd if=/dev/urandom of=/dev/md0 bs=64k count=64 seek=8 2>/dev/null & echo 64 > $sys/stripe_cache_size; wait; echo 1024 > $sys/stripe_cache_size; sync"
sum=$(md5sum </dev/md0)
tap_check "check under raid5x: mismatch_cnt 0" md_check_zero md0
mdadm /dev/md0 --fail "${devs[2]}" >/dev/null 2>&1
tap_check "degraded read: same bytes" test "$(md5sum </dev/md0)" = "$sum"
tap_check "degraded writes verify" fio --eta=never --output=/dev/null \
	--filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=4 \
	--verify=crc32c --verify_fatal=1 --name=deg --rw=randwrite --bs=8k \
	--size=8M --io_size=2M
sum=$(md5sum </dev/md0)
mdadm /dev/md0 --remove "${devs[2]}" >/dev/null 2>&1
wipefs -a "${devs[4]}" >/dev/null 2>&1 || true
mdadm /dev/md0 --add "${devs[4]}" >/dev/null
wait_rebuilt md0 600 || true
tap_check "spare rebuilt by raid5x" grep -q '\[4/4\] \[UUUU\]' /proc/mdstat
tap_check "rebuilt array: same bytes" test "$(md5sum </dev/md0)" = "$sum"
tap_check "check after rebuild: mismatch_cnt 0" md_check_zero md0
tap_done
