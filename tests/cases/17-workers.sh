#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 17-workers: stripes handled by worker threads beside raid5xd
# (md/worker_threads, workers.c). With 2 workers on a 2-vCPU guest:
#  - mixed O_DIRECT writes (full stripes, random 4K, odd sizes and
#    offsets) verify, and the workers handled stripes (raid5x_stats/
#    worker_stripes > 0);
#  - check under raid5x (each handler has its own scratch page) finds 0;
#  - worker_threads changed while verified writes run (0, 8, 1, 2);
#  - with worker_threads 0, a lone writer (O_DIRECT 4K at depth 1) gets
#    one worker beside raid5xd (solo_worker 1, the default: worker_stripes
#    grows; for writes of 4K and of one row) and none with solo_worker 0
#    (worker_stripes stays 0), nor for writes of more than a row; a deep
#    queue (random 4K at depth 32) gets no worker either, although it
#    drains to one write at moments (before the quiet time of lone_writer,
#    stripe_cache.c, the worker took most of its stripes here, and in a
#    benchmark it raised that load's p99 latency by a third); with
#    solo_worker 2 the two take the loop in turn, and a lone writer's rows
#    go out as whole member bios;
#  - a member failed: degraded writes verify, a spare is rebuilt, check 0;
#  - raid456 assembles the result: same bytes, check 0;
#  - an internal write-intent bitmap (each handler flushes the bitmap
#    before a data write): writes verify, md clears the bits afterwards.
# On the debug kernel, lockdep and KASAN watch all of it.
# timeout: 900
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 17
load_md
sys=/sys/block/md0/md

# to_raid5x_workers N: take md0 over and give it N workers
to_raid5x_workers() {
	to_raid5x md0 && echo "$1" >"$sys/worker_threads" &&
		[ "$(cat "$sys/worker_threads")" = "$1" ]
}
# handled_by_workers: some stripes were handled outside raid5xd
handled_by_workers() {
	local n
	read -r n <"$sys/raid5x_stats/worker_stripes" || return 1
	note "stripes handled by workers: $n"
	[ "$n" -gt 0 ]
}
# change_under_writes: worker_threads 0, 8, 1, 2 while fio writes and
# verifies
change_under_writes() {
	local bg n rc=0
	fio --eta=never --output=/dev/null --filename=/dev/md0 --direct=1 \
		--ioengine=libaio --iodepth=8 --name=bg --rw=randwrite --bs=16k \
		--size=48M --io_size=16M --verify=crc32c --do_verify=1 \
		--verify_fatal=1 &
	bg=$!
	for n in 0 8 1 2; do
		gl_nap 0.5
		echo "$n" >"$sys/worker_threads" || { note "worker_threads $n refused"; rc=1; }
	done
	wait "$bg" || { note "fio failed"; rc=1; }
	return "$rc"
}
# solo_run N FIO-ARGS...: worker_threads 0, solo_worker N, a verified
# O_DIRECT write with FIO-ARGS; prints the stripes workers handled meanwhile
solo_run() {
	echo 0 >"$sys/worker_threads" && echo "$1" >"$sys/solo_worker" &&
		echo 1 >"$sys/raid5x_stats/reset" || return 1
	shift
	fio_verify --filename=/dev/md0 --direct=1 "$@" >&2 || return 1
	cat "$sys/raid5x_stats/worker_stripes"
}
# lone_writer N: solo_run with a 4K random writer at depth 1
lone_writer() {
	solo_run "$1" --ioengine=psync --iodepth=1 --name=lone --rw=randwrite \
		--bs=4k --size=16M --io_size=2M
}
solo_on() {
	local n
	n=$(lone_writer 1) || return 1
	note "solo_worker 1: stripes handled by the worker: $n"
	[ "$n" -gt 0 ]
}
# seq_writer N BS SIZE: solo_run N with a sequential writer of BS at depth 1
seq_writer() {
	solo_run "$1" --ioengine=psync --iodepth=1 --name=seq --rw=write \
		--bs="$2" --size="$3"
}
# row_writer: a lone writer of one row (192K on this 4 x 64K array): the
# worker helps (solo_write, stripe_cache.c: a write of at most a row)
row_writer() {
	local n
	n=$(seq_writer 1 192k 36M) || return 1
	note "solo_worker 1, one row a write: stripes handled by the worker: $n"
	[ "$n" -gt 0 ]
}
# long_writer: a lone writer of 1 MiB (5.3 rows): raid5xd alone (two
# handlers taking its stripes in turn split the member writes into 1-2
# page bios; bcd0fde's module gave the worker 1537 handlings here, not
# ok 8 on 6.1)
long_writer() {
	local n
	n=$(seq_writer 1 1m 12M) || return 1
	note "solo_worker 1, 1 MiB writes: stripes handled by the worker: $n"
	[ "$n" = 0 ]
}
# deep_queue: solo_worker 1, a verified O_DIRECT random 4K write at depth
# 32 (8192 writes): fewer than 10% of its stripes may go to the worker
# (the first write, before a second is in flight, and a queue that sat at
# one write for longer than the quiet time: 0-23 seen on 6.1, 6.12 and
# 7.2 on an idle host, 181 in CI with the debug lane's guest beside it,
# whose stalls can stretch a moment at one write past 100 ms of guest
# time; the module before bfc0eff took 2295-6887)
deep_queue() {
	local n
	n=$(solo_run 1 --ioengine=libaio --iodepth=32 --name=deep --rw=randwrite \
		--bs=4k --size=32M) || return 1
	note "solo_worker 1, depth 32: stripes handled by the worker: $n"
	[ "$n" -lt 820 ]
}
# row_exclusive: solo_worker 2, a lone writer of one row: raid5xd and the
# worker take the loop in turn, so each row's member writes go out whole
# (16 blocks a member bio on 64K chunks; with solo_worker 1 the two
# handlers split them, 1.5-1.9 blocks a bio: solo-rows-7.2-2026-12-06.md).
# At least 8 blocks a bio; the worker's share is noted, not asserted
row_exclusive() {
	local n bios blocks
	# solo_run resets the counters before its write
	n=$(seq_writer 2 192k 36M) || return 1
	bios=$(r5x_stat "$sys" member_bios) blocks=$(r5x_stat "$sys" write_blocks)
	note "solo_worker 2, one row a write: $blocks member blocks written in $bios bios, worker $n stripes"
	[ "$bios" -gt 0 ] && [ "$blocks" -ge $((bios * 8)) ]
}
solo_off() {
	local n
	n=$(lone_writer 0) || return 1
	note "solo_worker 0: stripes handled by a worker: $n"
	[ "$n" = 0 ] && echo 1 >"$sys/solo_worker" && echo 2 >"$sys/worker_threads"
}
# rebuilt: the spare is in, [4/4] (degraded 0 and idle: the recovery
# starts asynchronously after --add)
rebuilt() {
	wait_rebuilt md0 600 && grep -q '\[4/4\] \[UUUU\]' /proc/mdstat
}
# bitmap_clean: md cleared every bit of the bitmap after the writes (a
# few daemon periods of 1 s; polled for up to 60 s)
bitmap_clean() {
	local i d
	for i in $(seq 1 120); do
		d=$(mdadm -X "${devs[0]}" 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) dirty.*/\1/p')
		[ "$d" = 0 ] && return 0
		gl_nap 0.5
	done
	note "still $d dirty chunks"
	return 1
}

read -r -a devs <<<"$(make_members 5 24)"
create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}"
r5x_check "takeover to raid5x, worker_threads 2" to_raid5x_workers 2
r5x_check "mixed writes verify with 2 workers" \
	fio_verify --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=16 \
	--name=full --rw=write --bs=192k --size=24M \
	--name=rand --rw=randwrite --bs=4k --offset=24M --size=16M --io_size=6M \
	--name=odd --rw=randwrite --bsrange=512-36k --blockalign=512 \
	--offset=40M --size=8M --io_size=4M
r5x_check "workers handled stripes" handled_by_workers
r5x_check "check under raid5x with workers: mismatch_cnt 0" md_check_zero md0
r5x_check "worker_threads 0, 8, 1, 2 under verified writes" change_under_writes
r5x_check "a lone writer gets a worker (worker_threads 0, solo_worker 1)" solo_on
r5x_check "a lone writer of one row gets a worker" row_writer
r5x_check "a lone writer of 1 MiB (more than a row) gets none" long_writer
r5x_check "a deep queue gets no worker (solo_worker 1, random 4K at depth 32)" deep_queue
r5x_check "solo_worker 2: a lone writer's rows go out whole (>= 8 blocks a member bio)" row_exclusive
r5x_check "solo_worker 0: a lone writer's stripes stay with raid5xd" solo_off
mdadm /dev/md0 --fail "${devs[2]}" >/dev/null 2>&1
r5x_check "degraded writes verify with workers" \
	fio_verify --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--name=deg --rw=randwrite --bs=8k --size=16M --io_size=4M
mdadm /dev/md0 --remove "${devs[2]}" >/dev/null 2>&1
wipefs -a "${devs[4]}" >/dev/null 2>&1 || true
mdadm /dev/md0 --add "${devs[4]}" >/dev/null
r5x_check "spare rebuilt with workers" rebuilt
r5x_check "check after the rebuild: mismatch_cnt 0" md_check_zero md0
sum=$(md_md5 md0)
stop_array md0
mdadm --assemble /dev/md0 --run "${devs[0]}" "${devs[1]}" "${devs[3]}" "${devs[4]}" >/dev/null 2>&1
tap_check "raid456 reads the same bytes" test "$(md_md5 md0)" = "$sum"
tap_check "raid456's check: mismatch_cnt 0" check_parity md0
gl_fresh md0

read -r -a devs <<<"$(make_members 4 24)"
mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 --assume-clean \
	--bitmap=internal --bitmap-chunk=1M --delay=1 --chunk=64 --raid-devices=4 \
	"${devs[@]}"
if to_raid5x_workers 2 &&
	fio_verify --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=16 \
		--name=bm --rw=randwrite --bsrange=4k-64k --size=40M --io_size=8M; then
	r5x_check "bitmap array with workers: writes verify, bits cleared" bitmap_clean
else
	r5x_check "bitmap array with workers: writes verify, bits cleared" false
fi
gl_fresh md0
tap_done
