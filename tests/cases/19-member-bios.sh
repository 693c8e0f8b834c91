#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 19-member-bios: stripe handling joins adjacent 4 KiB member blocks into
# multi-page bios (iobatch.c, module parameter merge_member_io), and a bad
# sector under such a bio still costs one 4 KiB block, as under raid456.
#   - merged: a check of the clean array and full-stripe O_DIRECT writes
#     send at most one member bio per 8 blocks (raid5x_stats member_bios
#     against read_blocks / write_blocks); with merge_member_io=0, one bio
#     per block, the same data.
#   - one bad 4 KiB block on member 1 (dm-integrity below it: the block's
#     checksum fails until it is written again) found by `check`: the
#     member stays, md/dev-*/errors grows by exactly 8 sectors (one
#     block rebuilt and written back), the block reads again below md; the
#     same fault under raid456 in this boot counts the same; the array's
#     data is what was written, under both.
# Fails without the resend (a failed multi-page bio reported as failed for
# every block it carried): with 64-block bios, 64 read errors, errors +136,
# and member 1 failed for exceeding max_read_errors (20).
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: use /dev/dm-N (devtmpfs)
tap_plan 10
load_md
modprobe dm-mod 2>/dev/null || true
modprobe dm-integrity 2>/dev/null || true
param=/sys/module/md_raid5x/parameters/merge_member_io
sys=/sys/block/md0/md

msz=24 # MiB per member
read -r -a loops <<<"$(make_members 5 "$msz")"
sz=$((msz * 2048))
if ! dmsetup targets 2>/dev/null | grep -q '^integrity'; then
	tap_skip_rest "no dm-integrity target in this kernel"
	tap_done
	exit 0
fi
# data sectors map 1:1 to loops[1]; tags and journal on loops[4]
dmsetup create r5xb1 --table "0 $sz integrity ${loops[1]} 0 4 D 2 meta_device:${loops[4]} internal_hash:crc32c"
integ=$(dm_node r5xb1)
dd if=/dev/zero of="$integ" bs=1M oflag=direct status=none 2>/dev/null || true
mem=("${loops[0]}" "$integ" "${loops[2]}" "${loops[3]}")

step() {
	create_raid5 md0 4 512 left-symmetric "${mem[@]}" &&
		to_raid5x md0 && [ -w "$param" ] && [ "$(cat "$param")" = Y ]
}
tap_check "raid5x over 4 members (member 1 on dm-integrity), merge_member_io=Y" step
size=$(blockdev --getsize64 /dev/md0)
head -c "$size" /dev/urandom >/tmp/data
want=$(md5sum </tmp/data | cut -d" " -f1)
doff=$(cat "$sys/dev-${integ##*/}/offset")
stat_of() { cat "$sys/raid5x_stats/$1"; }

# counts CMD...: run CMD; BIOS and BLOCKS: member bios and blocks it took
counts() {
	local b0 r0 w0
	b0=$(stat_of member_bios) r0=$(stat_of read_blocks) w0=$(stat_of write_blocks)
	"$@" || return 1
	BIOS=$(($(stat_of member_bios) - b0))
	BLOCKS=$(($(stat_of read_blocks) + $(stat_of write_blocks) - r0 - w0))
	note "$*: $BLOCKS member blocks in $BIOS bios"
}
fill() { # full stripes (1.5 MiB), O_DIRECT
	dd if=/tmp/data of=/dev/md0 bs=1536k oflag=direct status=none
}
merged() { [ "$BLOCKS" -gt 0 ] && [ $((BIOS * 8)) -le "$BLOCKS" ]; }
single() { [ "$BLOCKS" -gt 0 ] && [ "$BIOS" = "$BLOCKS" ]; }

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

# bad_block MSECTOR: member 1's block at data sector MSECTOR fails reads
bad_block() {
	dd if=/dev/urandom of="${loops[1]}" bs=512 seek=$((doff + $1)) count=8 \
		oflag=direct conv=notrunc status=none
	sync
	if dd if="$integ" of=/dev/null bs=4k skip=$(((doff + $1) / 8)) count=1 \
		iflag=direct status=none 2>/dev/null; then
		note "the corrupted block still reads"
		return 1
	fi
}
block_reads() {
	dd if="$integ" of=/dev/null bs=4k skip=$(((doff + $1) / 8)) count=1 \
		iflag=direct status=none
}
m1_ok() {
	local st
	st=$(cat "$sys/dev-${integ##*/}/state")
	if [[ $st == *faulty* ]] || [ "$(cat "$sys/degraded")" != 0 ]; then
		note "member 1: state '$st', degraded $(cat "$sys/degraded")"
		return 1
	fi
}
# check_bad MSECTOR: a check over a bad block there; DELTA: errors counted
check_bad() {
	local e0
	e0=$(cat "$sys/dev-${integ##*/}/errors")
	bad_block "$1" || return 1
	md_check_zero md0 || return 1
	DELTA=$(($(cat "$sys/dev-${integ##*/}/errors") - e0))
	note "$(md_level md0): check over a bad block at member sector $1: errors +$DELTA, read_errors $(stat_of read_errors 2>/dev/null || echo -)"
	m1_ok && block_reads "$1"
}
bad=$((2048 + 128)) # 1 MiB + 64 KiB into member 1's data: mid-chunk
tap_check "raid5x: check over one bad block: member stays, block written back, mismatch_cnt 0" check_bad "$bad"
x_delta=$DELTA
tap_check "raid5x: md/dev-*/errors grew by one block (8 sectors): +$x_delta" test "$x_delta" = 8
tap_check "raid5x: the data is what was written" test "$(md_md5 md0)" = "$want"

step() { stop_array md0 && assemble_raid456 md0 "${mem[@]}"; }
tap_check "raid456 assembles the array" step
bad=$((4096 + 256))
if check_bad "$bad"; then
	note "raid456 counted +$DELTA for the same fault, raid5x +$x_delta"
	tap_check "raid456: the same fault counts the same (+$DELTA), data as written" \
		test "$DELTA" = "$x_delta" -a "$(md_md5 md0)" = "$want"
else
	tap_not_ok "raid456: check over one bad block"
fi
stop_array md0
dmsetup remove r5xb1
tap_done
