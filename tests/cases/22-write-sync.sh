#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 22-write-sync: member writes of a synchronous array write carry REQ_SYNC,
# data and parity alike, as raid5's do (stripe_handle.c member_write_flags).
# Without it the members' writeback throttling (wbt, on by default) takes
# them for background writeback: with pre-reads completing, it allows a
# quarter of its depth of them in flight and the handler sleeps in wbt for
# the rest (docs/reports/write-sync-2026-12-06.md).
# Seen with the block layer's block_bio_queue trace event: its rwbs field
# is "WS" for a synchronous write, "W" for another. On a fresh 4-member
# array (512 KiB chunk), per personality, raid456 first as the control:
#   - random 4K O_DIRECT writes (libaio, depth 16; read-modify-write or
#     reconstruct-write: pre-reads, then data and parity writes), and
#   - full-stripe O_DIRECT writes (1.5 MiB; no pre-read):
# every write bio queued to a member during the run is synchronous
# (at least one, and none without "S"); the data verifies (fio crc32c),
# and md's check finds mismatch_cnt 0. raid456 (control) shows the same,
# which shows the probe sees its flags at all.
# Fails on the module before member_write_flags (member writes carried
# REQ_FUA at most): not ok 7 and 8, every raid5x member write "W".
# timeout: 300
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 9
load_md
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs tracefs "$T" 2>/dev/null ||
	T=/sys/kernel/debug/tracing

# traced CMD...: run CMD with block_bio_queue traced; prints "SYNC OTHER",
# the write bios queued to a loop device (major 7) with and without S
traced() {
	echo 0 >"$T/tracing_on" && echo >"$T/trace" &&
		echo 8192 >"$T/buffer_size_kb" &&
		echo 1 >"$T/events/block/block_bio_queue/enable" &&
		echo 1 >"$T/tracing_on" || return 1
	"$@" >&2 || { echo 0 >"$T/tracing_on"; return 1; }
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/block/block_bio_queue/enable"
	# "... block_bio_queue: 7,1 WS 2048 + 8 [md0_raid5x]"
	awk '{ for (i = 1; i < NF; i++) if ($i == "block_bio_queue:") break
		if (i >= NF - 1 || $(i + 1) !~ /^7,/) next
		r = $(i + 2)
		if (r !~ /W/) next
		if (r ~ /S/) s++; else o++ }
		END { print s + 0, o + 0 }' "$T/trace"
}

# all_sync "SYNC OTHER": at least one write, every one synchronous
all_sync() { local s o; read -r s o <<<"$1"; [ "$s" -gt 0 ] && [ "$o" = 0 ]; }

for pers in raid5 raid5x; do
	read -r tag chk <<<"$(gl_pers "$pers")"
	read -r -a devs <<<"$(make_members 4 40)"
	create_raid5 md0 4 512 left-symmetric "${devs[@]}"
	if [ "$pers" = raid5x ]; then
		$chk "$tag: takeover" to_raid5x md0 || { tap_skip_rest "no raid5x"; break; }
	fi
	ok=1
	rand=$(traced fio_verify --name=rand --filename=/dev/md0 --direct=1 \
		--ioengine=libaio --iodepth=16 --rw=randwrite --bs=4k --size=24M) || ok=0
	full=$(traced fio_verify --name=full --filename=/dev/md0 --direct=1 \
		--ioengine=libaio --iodepth=4 --rw=write --bs=1536k --offset=48M --size=48M) || ok=0
	note "$tag member writes queued, synchronous / not: random 4K $rand, full stripes $full"
	$chk "$tag: both writers' data verifies" test "$ok" = 1
	$chk "$tag: random 4K O_DIRECT: every member write is synchronous ($rand)" all_sync "$rand"
	$chk "$tag: full-stripe O_DIRECT: every member write is synchronous ($full)" all_sync "$full"
	$chk "$tag: md's check finds mismatch_cnt 0" md_check_zero md0
	gl_fresh md0
done
