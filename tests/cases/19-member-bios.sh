#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 19-member-bios: stripe handling joins adjacent 4 KiB member blocks into
# multi-page bios (iobatch.c, module parameter merge_member_io), and a bad
# sector under such a bio still costs one 4 KiB block, as under raid456.
#   - merged: a check of the clean array and full-stripe O_DIRECT writes
#     send at most one member bio per 8 blocks (raid5x_stats member_bios
#     against read_blocks / write_blocks); with merge_member_io=0, one bio
#     per block, the same data.
#   - one bad 4 KiB block on member 1 (member 1 is dm-linear; its table
#     swapped for linear + 8 sectors of the dm error target + linear, so
#     that block fails reads and writes) found by `check`: the member
#     stays, its bad-block log holds that block and nothing else (read
#     error, rebuilt from parity, the write-back fails, md logs the
#     block), mismatch_cnt 0; the same fault under raid456 in this boot
#     gives the same log; the array's data is what was written, under
#     both; with the block readable again and the array reassembled, the
#     next check takes it off the log, under both. dm splits a multi-page bio at the error target's edges and
#     fails the whole bio: raid5x must find the one block among its 32.
# Fails without the resend (a failed multi-page bio reported as failed for
# every block it carried): member 1 is failed (more read errors at once
# than max_read_errors, 20), or with a larger limit, every block of the
# bio is logged or rewritten. (First written with dm-integrity below member
# 1; the debug kernel has no dm-integrity, the error target is everywhere.)
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: use /dev/dm-N (devtmpfs)
tap_plan 12
load_md
modprobe dm-mod 2>/dev/null || true
param=/sys/module/md_raid5x/parameters/merge_member_io
sys=/sys/block/md0/md

msz=24 # MiB per member
read -r -a loops <<<"$(make_members 4 "$msz")"
sz=$((msz * 2048))
dmsetup create r5xb1 --table "0 $sz linear ${loops[1]} 0"
m1=$(dm_node r5xb1)
mem=("${loops[0]}" "$m1" "${loops[2]}" "${loops[3]}")

step() {
	create_raid5 md0 4 512 left-symmetric "${mem[@]}" &&
		to_raid5x md0 && [ -w "$param" ] && [ "$(cat "$param")" = Y ]
}
tap_check "raid5x over 4 members (member 1 on dm-linear), merge_member_io=Y" step
size=$(blockdev --getsize64 /dev/md0)
head -c "$size" /dev/urandom >/tmp/data
want=$(md5sum </tmp/data | cut -d" " -f1)
doff=$(cat "$sys/dev-${m1##*/}/offset")
rd1=$sys/dev-${m1##*/}

# counts CMD...: run CMD; BIOS and BLOCKS: member bios and blocks it took
counts() {
	local b0 r0 w0
	b0=$(r5x_stat "$sys" member_bios) r0=$(r5x_stat "$sys" read_blocks) w0=$(r5x_stat "$sys" write_blocks)
	"$@" || return 1
	BIOS=$(($(r5x_stat "$sys" member_bios) - b0))
	BLOCKS=$(($(r5x_stat "$sys" read_blocks) + $(r5x_stat "$sys" write_blocks) - r0 - w0))
	note "$*: $BLOCKS member blocks in $BIOS bios"
}
fill() { # full stripes (1.5 MiB), O_DIRECT
	dd if=/tmp/data of=/dev/md0 bs=1536k oflag=direct status=none
}
merged() { [ "$BLOCKS" -gt 0 ] && [ $((BIOS * 8)) -le "$BLOCKS" ]; }
single() { [ "$BLOCKS" -gt 0 ] && [ "$BIOS" = "$BLOCKS" ]; }

# one handler: joining is per handler, and dd is a lone writer of one row,
# which solo_worker gives a worker that takes every other stripe (a 6.12
# run of early_write_end's module: 2 blocks a bio)
echo 0 >"$sys/solo_worker"
counts fill
tap_check "full-stripe writes: at least 8 blocks per member bio ($BLOCKS in $BIOS)" merged
counts md_check_zero md0
tap_check "check of the clean array: at least 8 blocks per member bio ($BLOCKS in $BIOS), mismatch_cnt 0" merged
echo 0 >"$param"
counts fill
tap_check "merge_member_io=0: one bio per block written ($BLOCKS in $BIOS)" single
counts md_check_zero md0
tap_check "merge_member_io=0: one bio per block read by check ($BLOCKS in $BIOS)" single
echo 1 >"$param"

# bad_block MSECTOR: member 1's block at data sector MSECTOR fails I/O
bad_block() {
	local a=$((doff + $1))
	dm_swap r5xb1 "0 $a linear ${loops[1]} 0
$a 8 error
$((a + 8)) $((sz - a - 8)) linear ${loops[1]} $((a + 8))"
}
good_again() { dm_swap r5xb1 "0 $sz linear ${loops[1]} 0"; }
m1_ok() { md_member_in md0 "$m1"; }
# check_bad MSECTOR: a check over a bad block there; LOG: member 1's
# bad-block log after it, one line
check_bad() {
	local ok=0 i
	bad_block "$1" || return 1
	md_check_zero md0 || ok=1
	good_again || ok=1
	# md acknowledges a logged block with its next superblock write
	for ((i = 0; i < 50; i++)); do
		[ -n "$(cat "$rd1/unacknowledged_bad_blocks")" ] || break
		gl_nap 0.1
	done
	LOG=$(tr '\n' ' ' <"$rd1/bad_blocks")
	note "$(md_level md0): check over a bad block at member sector $1 ($((doff + $1)) on the device): bad_blocks '$LOG', errors $(cat "$rd1/errors"), unacknowledged '$(tr '\n' ' ' <"$rd1/unacknowledged_bad_blocks")', read_errors $(r5x_stat "$sys" read_errors 2>/dev/null || echo -)"
	m1_ok && [ "$ok" = 0 ]
}
bad=$((2048 + 128)) # 1 MiB + 64 KiB into member 1's data: mid-chunk
tap_check "raid5x: check over one bad block: member stays, mismatch_cnt 0" check_bad "$bad"
tap_check "raid5x: the bad-block log holds that block alone: '$LOG'" \
	test "$LOG" = "$((doff + bad)) 8 "
tap_check "raid5x: the data is what was written" test "$(md_md5 md0)" = "$want"
# healed: the block is good again and the member assembled afresh (md
# does not retry a logged block on a member that failed a write since it
# joined: WriteErrorSeen, raid5's rule); a check rebuilds the block, writes
# it back, and the write takes it off the log
healed() {
	md_check_zero md0 || return 1
	for ((i = 0; i < 50; i++)); do
		[ -z "$(cat "$rd1/bad_blocks")" ] && return 0
		gl_nap 0.1
	done
	note "bad_blocks still '$(tr '\n' ' ' <"$rd1/bad_blocks")'"
	return 1
}
step() { stop_array md0 && assemble_raid456 md0 "${mem[@]}" && to_raid5x md0 && healed; }
tap_check "raid5x: block readable again, array reassembled: a check empties the log" step

step() { stop_array md0 && assemble_raid456 md0 "${mem[@]}"; }
tap_check "raid456 assembles the array" step
bad2=$((4096 + 256))
if check_bad "$bad2"; then
	tap_check "raid456: the same fault logs the same block alone ('$LOG'), data as written" \
		test "$LOG" = "$((doff + bad2)) 8 " -a "$(md_md5 md0)" = "$want"
else
	tap_not_ok "raid456: check over one bad block"
fi
step() { stop_array md0 && assemble_raid456 md0 "${mem[@]}" && healed; }
tap_check "raid456: block readable again, array reassembled: a check empties the log" step
stop_array md0
dmsetup remove r5xb1
tap_done
