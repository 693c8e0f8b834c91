#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 10-fio-verify: data written through raid5x reads back intact, under raid5x
# and, after stop + reassembly, under the in-kernel raid456 (whose parity
# check must find no mismatch).
#
# Geometries (each member count, chunk and layout at least once):
#   3 disks 64K left-asymmetric     4 disks 512K left-symmetric
#   5 disks 64K right-asymmetric    8 disks 512K right-symmetric
#   4 disks 128K parity-first       5 disks 512K parity-last
# fio job (concurrent sections on disjoint regions, crc32c verify):
#   seq-direct   0-8M: sequential O_DIRECT libaio, bs 4k..4M (per geometry)
#   rand-direct  8-16M: random O_DIRECT libaio, bsrange 4k-1M
#   seq-buffered 16-22M: sequential buffered, bs 256k, fsync at end
#   odd-direct   22M+512: random O_DIRECT psync, bsrange 512-300k, 5M
#   odd-buffered 28M+512: random buffered, bsrange 512-300k unaligned, 3M
#   multi        4 jobs, random 64k O_DIRECT at 32M + 2M*i, 2M each
# Per geometry: to_raid5x, fio write+verify, stop, assemble raid456,
# check_parity, fio --verify_only. 6 assertions x 6 geometries.
# On the debug kernel (GL_SCALE > 1) every section and the members shrink
# by GL_SCALE (a scaled MiB, gl_unit); seq-direct keeps at least two of its
# blocks (8M for bs 4M, so the largest bs still writes whole rows).
# timeout: 900
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

geometries=(
	"3 64 left-asymmetric 4k"
	"4 512 left-symmetric 1M"
	"5 64 right-asymmetric 128k"
	"8 512 right-symmetric 4M"
	"4 128 parity-first 64k"
	"5 512 parity-last 2M"
)
# debug-kernel pass: the narrowest and the widest array
gl_sample geometries 0 3
u=$(gl_unit)   # 1 MiB on Debian's kernel
# 3 disks of 32 MiB: ~62 MiB usable, the job needs at most 8 MiB + 32 u
# (= 40 MiB)
member_mb=$((8 + 24 * u / 1048576))
note "volume scale $GL_SCALE: members $member_mb MiB, unit $u bytes"
tap_plan $((${#geometries[@]} * 6))
load_md

# bytes SIZE: print 4k, 1M, ... in bytes.
bytes() {
	case $1 in
	*k) echo $((${1%k} * 1024)) ;;
	*M) echo $((${1%M} * 1048576)) ;;
	*) echo "$1" ;;
	esac
}

# write_job FILE SEQ_BS: the fio job file used for writing and re-verifying.
# seq-direct covers [0, seqsz), the other sections follow it.
write_job() {
	local seqsz=$((8 * u)) b
	b=$(bytes "$2")
	[ "$seqsz" -ge $((2 * b)) ] || seqsz=$((2 * b))
	cat >"$1" <<EOF
[global]
filename=/dev/md0
verify=crc32c
verify_fatal=1
randrepeat=1
randseed=4242
group_reporting=0

[seq-direct]
rw=write
direct=1
ioengine=libaio
iodepth=4
bs=$2
offset=0
size=$seqsz

[rand-direct]
rw=randwrite
direct=1
ioengine=libaio
iodepth=8
bsrange=4k-1M
offset=$seqsz
size=$((8 * u))

[seq-buffered]
rw=write
bs=256k
offset=$((seqsz + 8 * u))
size=$((6 * u))
end_fsync=1

[odd-direct]
rw=randwrite
direct=1
ioengine=psync
bsrange=512-300k
offset=$((seqsz + 14 * u + 512))
size=$((5 * u))

[odd-buffered]
rw=randwrite
bsrange=512-300k
bs_unaligned=1
offset=$((seqsz + 20 * u + 512))
size=$((3 * u))
end_fsync=1

[multi]
rw=randwrite
direct=1
ioengine=libaio
iodepth=4
bs=64k
numjobs=4
offset=$((seqsz + 24 * u))
offset_increment=$((2 * u))
size=$((2 * u))
EOF
}

# takeover_and_verify JOB: switch the running raid456 array to raid5x and
# re-verify the job's data through raid5x.
takeover_and_verify() {
	to_raid5x md0 && fio_verify --verify_only "$1"
}

for g in "${geometries[@]}"; do
	read -r n chunk layout seqbs <<<"$g"
	tag="${n} disks ${chunk}K $layout"
	# shellcheck disable=SC2207 # device names have no blanks
	devs=($(make_members "$n" "$member_mb"))
	create_raid5 md0 "$n" "$chunk" "$layout" "${devs[@]}"
	tap_check "$tag: takeover to raid5x" to_raid5x md0
	lvl=$(md_level md0)
	job=/tmp/job-$n-$chunk.fio
	write_job "$job" "$seqbs"
	tap_check "$tag: fio write+verify under $lvl (seq bs $seqbs)" fio_verify "$job"
	stop_array md0
	tap_check "$tag: assemble under raid456" assemble_raid456 md0 "${devs[@]}"
	tap_check "$tag: raid456 parity check after $lvl writes" check_parity md0
	tap_check "$tag: fio verify_only under $(md_level md0)" \
		fio_verify --verify_only "$job"
	# the data must also survive a second personality switch
	r5x_check "$tag: verify_only after takeover raid456->raid5x" \
		takeover_and_verify "$job"
	stop_array md0
	losetup -D
	rm -rf "$GL_MEMBER_DIR"
done
tap_done
