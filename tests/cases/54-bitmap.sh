#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 54-bitmap: arrays with an internal write-intent bitmap run on raid5x.
#  - created with --bitmap=internal under raid456, taken over by raid5x;
#    fio verify passes; writes set bits (mdadm -X shows dirty chunks while
#    writing) and md clears them once the writes are done;
#  - a member failed and re-added (--re-add) after more writes is rebuilt
#    from the bitmap: only the written regions are read and written, the
#    data verifies, the bits are cleared after it and raid5x's check finds
#    0 mismatches;
#  - the bitmap is flushed before data writes (bm_flushes > 0) and the
#    stripes a handler drains together share a flush: sequential writes
#    of whole rows take at most one flush per 8 drained stripes;
#  - `mdadm --grow --bitmap=none/internal` on a running raid5x array;
#  - raid456 assembles the result: same bytes, check 0.
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 17
load_md
read -r -a devs <<<"$(make_members 4 40)"
sys=/sys/block/md0/md
mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 --assume-clean \
	--bitmap=internal --bitmap-chunk=1M --delay=1 --chunk=64 --raid-devices=4 \
	"${devs[@]}"
tap_check "raid5x takes over an array with an internal bitmap" to_raid5x md0
tap_check "md reports the bitmap" grep -q 'bitmap:' /proc/mdstat
note "$(grep -A3 '^md0' /proc/mdstat | tr '\n' ' ')"

# dirty MEMBER: bitmap chunks marked dirty in MEMBER's on-disk bitmap
dirty() { mdadm -X "$1" 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) dirty.*/\1/p'; }
# wait_clean MEMBER: md clears bits a few daemon periods (--delay=1: 1 s)
# after the writes; polled for up to 60 s
wait_clean() {
	local i
	for i in $(seq 1 120); do
		[ "$(dirty "$1")" = 0 ] && return 0
		gl_nap 0.5
	done
	note "still $(dirty "$1") dirty chunks"
	return 1
}
fio_verify --name=w --filename=/dev/md0 --rw=randwrite --bsrange=4k-256k \
	--direct=1 --ioengine=libaio --iodepth=16 --size=48M --randrepeat=1
tap_check "bitmap chunks dirtied by the writes were cleared afterwards" \
	wait_clean "${devs[0]}"

tap_check "the random writes waited for bitmap flushes (bm_flushes > 0)" \
	test "$(r5x_stat "$sys" bm_flushes)" -gt 0
echo 1 >"$sys/raid5x_stats/reset"
fio_verify --name=s --filename=/dev/md0 --rw=write --bs=1M --direct=1 \
	--ioengine=libaio --iodepth=8 --size=24M
st=$(r5x_stat "$sys" bm_stripes) fl=$(r5x_stat "$sys" bm_flushes)
note "sequential 1M writes: $st stripes drained, $fl bitmap flushes"
tap_check "sequential rows share bitmap flushes (>= 8 stripes per flush)" \
	test "$fl" -gt 0 -a "$((fl * 8))" -le "$st"

# fail one member, write a small region, re-add: bitmap-driven recovery
mdadm /dev/md0 --fail "${devs[2]}" --remove "${devs[2]}" >/dev/null
fio_verify --name=d --filename=/dev/md0 --rw=write --bs=64k --direct=1 \
	--ioengine=libaio --iodepth=8 --offset=16M --size=6M
d=$(dirty "${devs[0]}")
note "dirty bitmap chunks after a degraded write: $d"
tap_check "degraded writes leave their chunks dirty (6 MiB of 1 MiB chunks)" \
	test "${d:-0}" -ge 2 -a "${d:-0}" -le 12
read -r r0 w0 <<<"$(member_stats "${devs[@]}")"
mdadm /dev/md0 --re-add "${devs[2]}" >/dev/null
tap_check "the member is re-added" test "$(md_mdstat_line md0 | grep -c "${devs[2]##*/}")" = 1
wait_idle md0
read -r r1 w1 <<<"$(member_stats "${devs[@]}")"
note "re-add recovery: member reads $(((r1 - r0) / 2048)) MiB, writes $(((w1 - w0) / 2048)) MiB"
tap_check "recovery rebuilt only the dirty regions (< 16 MiB written, not 40)" \
	test $(((w1 - w0) / 2048)) -lt 16
tap_check "re-added member is in sync" grep -q in_sync "$sys/dev-${devs[2]##*/}/state"
tap_check "after the recovery md clears the bits (no member missing now)" \
	wait_clean "${devs[0]}"
tap_check "data verifies after the bitmap recovery" fio_verify --name=d \
	--filename=/dev/md0 --rw=write --bs=64k --direct=1 --ioengine=libaio \
	--iodepth=8 --offset=16M --size=6M --verify_only=1
echo check >"$sys/sync_action"
wait_idle md0
tap_check "raid5x check after the recovery: 0 mismatches" \
	test "$(cat "$sys/mismatch_cnt")" = 0

# bitmap removed and added while raid5x runs the array
tap_check "mdadm --grow --bitmap=none on raid5x" mdadm --grow /dev/md0 --bitmap=none
tap_check "mdadm --grow --bitmap=internal on raid5x" \
	mdadm --grow /dev/md0 --bitmap=internal --bitmap-chunk=1M --delay=1
fio_verify --name=w2 --filename=/dev/md0 --rw=randwrite --bs=16k \
	--direct=1 --ioengine=libaio --iodepth=16 --size=40M --randrepeat=0
tap_check "still raid5x, bitmap present" \
	test "$(md_level md0)" = raid5x -a -n "$(grep bitmap: /proc/mdstat)"
sum=$(md_md5 md0)
stop_array md0
assemble_raid456 md0 "${devs[@]}"
tap_check "raid456 reads the same bytes" test "$(md_md5 md0)" = "$sum"
tap_check "raid456 check: 0 mismatches" check_parity md0
stop_array md0
tap_done
