#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 20-compat: raid5x keeps the on-disk format of the in-kernel raid456.
#
# Per geometry (4 disks 64K left-symmetric, 5 disks 512K right-asymmetric,
# 3 disks 128K parity-last):
#   1 create a level-5 array with stock mdadm, take it over to raid5x
#   2 write a pattern under raid5x (full stripes, 12K partial writes at odd
#     offsets, random buffered writes of odd sizes), md5 the whole device
#     (O_DIRECT); stop; assemble with stock mdadm under raid456:
#     identical md5, parity check finds no mismatch
#   3 write another pattern under raid456, take over to raid5x: identical
#     md5 read through raid5x
#   4 overwrite parts under raid5x; stop; assemble under raid456: identical
#     md5, parity check clean
# On the debug kernel (GL_SCALE > 1) members, patterns and regions shrink
# by GL_SCALE (all offsets are multiples of a scaled MiB, gl_unit).
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

geometries=(
	"4 64 left-symmetric"
	"5 512 right-asymmetric"
	"3 128 parity-last"
)
# debug-kernel pass: one symmetric, one parity-last array
gl_sample geometries 0 2
u=$(gl_unit)   # 1 MiB on Debian's kernel
member_mb=$(gl_scaled 20 6)
note "volume scale $GL_SCALE: members $member_mb MiB, unit $u bytes"
tap_plan $((${#geometries[@]} * 10))
load_md

head -c $((12 * u)) /dev/urandom >/tmp/pat-a
head -c $((12 * u)) /dev/urandom >/tmp/pat-b

# write_pattern MD PATTERN SEED: deterministic-size writes of PATTERN data
# and fio random data (seeded) to fixed regions of the first 30 MiB (30 u).
write_pattern() {
	local md pat=$2 seed=$3
	md=$(md_dev "$1")
	dd if="$pat" of="$md" bs="$u" count=12 oflag=direct conv=notrunc status=none &&
		dd if="$pat" of="$md" bs=12k count="$(gl_scaled 340)" \
			seek=$((1100 * u / 1048576)) oflag=direct conv=notrunc status=none &&
		fio --eta=never --output=/dev/null --name=odd --filename="$md" \
			--rw=randwrite --bsrange=512-64k --bs_unaligned=1 \
			--offset=$((18 * u)) --size=$((6 * u)) --randseed="$seed" --end_fsync=1 &&
		fio --eta=never --output=/dev/null --name=small --filename="$md" \
			--rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
			--iodepth=16 --offset=$((26 * u)) --size=$((4 * u)) --randseed="$seed" &&
		sync
}

# same_md5 MD WANT: the array's md5 equals WANT.
same_md5() {
	local got
	got=$(md_md5 "$1") || return 1
	[ "$got" = "$2" ] && return 0
	note "md5 differs: want $2, got $got"
	return 1
}

# assemble_same_md5 MD WANT DEVS...: assemble under raid456, compare md5.
assemble_same_md5() {
	local md=$1 want=$2
	shift 2
	assemble_raid456 "$md" "$@" && same_md5 "$md" "$want"
}

# overwrite MD SEED: 20K writes at an odd offset, then a new pattern.
overwrite() {
	dd if=/tmp/pat-a of="$(md_dev "$1")" bs=20k count="$(gl_scaled 200)" \
		seek=$((333 * u / 1048576)) oflag=direct conv=notrunc status=none &&
		write_pattern "$1" /tmp/pat-b "$2"
}

i=0
for g in "${geometries[@]}"; do
	read -r n chunk layout <<<"$g"
	i=$((i + 1))
	tag="${n} disks ${chunk}K $layout"
	read -r -a devs <<<"$(make_members "$n" "$member_mb")"
	create_raid5 md0 "$n" "$chunk" "$layout" "${devs[@]}"

	tap_check "$tag: takeover of a new array to raid5x" to_raid5x md0
	l1=$(md_level md0)
	tap_check "$tag: write pattern under $l1" write_pattern md0 /tmp/pat-a "$i"
	h1=$(md_md5 md0)
	stop_array md0
	tap_check "$tag: written under $l1, read under raid456: same md5" \
		assemble_same_md5 md0 "$h1" "${devs[@]}"
	tap_check "$tag: raid456 parity check after $l1 writes" check_parity md0

	tap_check "$tag: write pattern under $(md_level md0)" \
		write_pattern md0 /tmp/pat-b "$((i + 10))"
	h2=$(md_md5 md0)
	tap_check "$tag: takeover raid456 -> raid5x with data" to_raid5x md0
	tap_check "$tag: written under raid456, read under $(md_level md0): same md5" \
		same_md5 md0 "$h2"

	# partial overwrite after the takeover (read-modify-write paths)
	l3=$(md_level md0)
	tap_check "$tag: partial overwrite under $l3" overwrite md0 "$((i + 20))"
	h3=$(md_md5 md0)
	stop_array md0
	tap_check "$tag: overwritten under $l3, read under raid456: same md5" \
		assemble_same_md5 md0 "$h3" "${devs[@]}"
	tap_check "$tag: raid456 parity check after $l3 overwrites" check_parity md0
	stop_array md0
	losetup -D
	rm -rf "$GL_MEMBER_DIR"
done
tap_done
