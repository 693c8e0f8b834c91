#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 25-stream-confirm: a random writer whose bio now and then starts where a
# recent write ended is not a sequential stream (md/stream_confirm,
# delay_policy.c r5x_stream_seq). Only a stream's partial stripes may wait
# (up to seq_delay_ms) for the rest of their stripe; a bio counted as one
# when it continued a single earlier write, and a random writer's partial
# stripes then waited 100 ms for a rest that never came (the hunt's random
# 64 KiB writes at depth 8 on 6 members, 64 KiB chunks: 4428 stripes
# delayed a GiB, p99 2.9x raid456's on 6.1, 3.9x on 7.2).
# On a fresh 4-member array (64 KiB chunk: a row is 192 KiB), raid5x:
#   - stream_confirm 2 by default;
#   - control, stream_confirm 1 (the rule before): a writer of random
#     64 KiB pairs (fio rw=randwrite:2: each random write is followed by
#     the one after it; libaio depth 8, 512 KiB in flight, more than a
#     row) parks stripes on the delayed list (delayed > 0): the workload
#     provokes the wait this case is about (norandommap: a continuation
#     may land on a block already written, whose newest copy fio then
#     verifies; with fio's random map it verified the first copy);
#   - the same writer at the default: every second bio continues one
#     write (stream_unconfirmed at least 40% of its bios), and at most a
#     tenth as many stripes are delayed as under the control (a random
#     write can still land right after a pair: that one is the second
#     continuation in a row);
#   - a sequential 64 KiB writer (depth 32), at stream_confirm 1 for
#     comparison, then at the default: only its second bio is
#     unconfirmed (stream_unconfirmed 1 or 2; the price: that bio's
#     partial stripes pre-read, 16 stripes on 7.2) and its member
#     reads stay under 20% of its member writes (raid456 reads 35-38% of
#     what this writer writes: tests/cases/16-write-reads.sh): a real
#     stream still waits;
#   - every writer verifies (crc32c), and raid456 finds mismatch_cnt 0.
# Measured (6.1, full volume): the pairs delayed 2044 stripes under the
# control (197 until their deadline), 0 at the default, with 13% fewer
# member pre-reads (48000 against 55200 sectors); 252 of their 512 bios
# unconfirmed. Member reads above are pre-reads: fio's verify pass's
# array reads are subtracted.
# Fails on the module before stream_confirm (0d1e33f's, whose rule is
# stream_confirm 1 without the attribute or the counter): not ok 2-7.
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 8
load_md
sys=/sys/block/md0/md
msz=$(gl_scaled 64 24)  # MiB per member
wsz=$(gl_scaled 32 12)  # MiB each writer writes

read -r -a devs <<<"$(make_members 4 "$msz")"
step() { create_raid5 md0 4 64 left-symmetric "${devs[@]}" && to_raid5x md0; }
r5x_check "raid5x over 4 members, 64 KiB chunk" step
[ "$GL_TAP_FAILED" = 0 ] || { tap_skip_rest "no raid5x array"; tap_done; }
default_two() { [ "$(cat "$sys/stream_confirm")" = 2 ]; }
tap_check "md/stream_confirm is 2 by default" default_two

# counted NAME CMD...: run CMD with raid5x_stats reset; D_NAME, U_NAME: the
# stripes delayed and the bios left unconfirmed meanwhile; RD_NAME, WR_NAME
# member sectors read and written
declare -A D U RD WR
counted() {
	local n=$1 r0 w0 r1 w1 a0 a1
	shift
	echo 1 >"$sys/raid5x_stats/reset" || return 1
	read -r r0 w0 <<<"$(member_stats "${devs[@]}")"
	a0=$(awk '{ print $3 }' /sys/block/md0/stat)
	"$@" || return 1
	read -r r1 w1 <<<"$(member_stats "${devs[@]}")"
	a1=$(awk '{ print $3 }' /sys/block/md0/stat)
	D[$n]=$(r5x_stat "$sys" delayed) && U[$n]=$(r5x_stat "$sys" stream_unconfirmed) ||
		return 1
	# the member reads of fio's verify pass are not pre-reads
	RD[$n]=$((r1 - r0 - (a1 - a0))) WR[$n]=$((w1 - w0))
	note "$n: delayed ${D[$n]}, stream_unconfirmed ${U[$n]}, member sectors pre-read ${RD[$n]}, written ${WR[$n]}, $(r5x_stats "$sys" | awk '$2 != 0 { printf "%s=%s ", $1, $2 }')"
}
pairs() { # OFFSET_MB
	fio_verify --name=pairs --filename=/dev/md0 --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite:2 --rw_sequencer=sequential --bs=64k \
		--norandommap=1 --offset="$1M" --size="${wsz}M"
}
seq64k() { # OFFSET_MB
	fio_verify --name=seq64k --filename=/dev/md0 --direct=1 --ioengine=libaio \
		--iodepth=32 --rw=write --bs=64k --offset="$1M" --size="${wsz}M"
}
# confirm1 CMD...: run CMD under stream_confirm 1 (the rule before), then
# back to 2; CMD's status
confirm1() {
	sysfs_write "$sys/stream_confirm" 1 || return 1
	"$@"
	local rc=$?
	sysfs_write "$sys/stream_confirm" 2 || return 1
	return "$rc"
}
control() { confirm1 counted control pairs 0 && [ "${D[control]}" -gt 0 ]; }
tap_check "control, stream_confirm 1: random 64 KiB pairs park stripes (delayed > 0), data verifies" control
bios=$((wsz * 16))  # 64 KiB bios a writer sends
default_pairs() {
	counted pairs pairs "$wsz" && [ $((U[pairs] * 100)) -ge $((bios * 40)) ] &&
		[ $((D[pairs] * 10)) -le "${D[control]:-0}" ]
}
tap_check "default: the same pairs leave their second bios unconfirmed (>= 40% of $bios) and delay at most a tenth of the control's stripes; data verifies" default_pairs
seq_one() { confirm1 counted seq1 seq64k "$((3 * wsz))"; }
tap_check "stream_confirm 1: a sequential 64 KiB writer verifies (its figures beside the default's)" seq_one
seq_waits() {
	counted seq seq64k "$((2 * wsz))" && [ "${U[seq]}" -ge 1 ] && [ "${U[seq]}" -le 2 ] &&
		[ $((RD[seq] * 100)) -le $((WR[seq] * 20)) ]
}
tap_check "default: a sequential 64 KiB writer is confirmed from its third bio (unconfirmed 1-2) and reads < 20% of its member writes; data verifies" seq_waits
bad() { ! sysfs_write "$sys/stream_confirm" 0 && [ "$(cat "$sys/stream_confirm")" = 2 ]; }
tap_check "stream_confirm 0 is refused and changes nothing" bad
to456() { stop_array md0 && mdadm --assemble /dev/md0 "${devs[@]}" >/dev/null 2>&1 && check_parity md0; }
tap_check "raid456 assembles the members: mismatch_cnt 0" to456
tap_done
