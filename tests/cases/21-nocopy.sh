#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 21-nocopy: skip_copy (default 0; set to 1 here) writes a drained page from the write
# bio's own page, uncopied, when that page cannot change until the member
# writes end: a page-cache page of a file system on the array, under
# writeback, with stable writes (nocopy.c).
#   - the array asks for stable writes (queue/stable_writes 1) while
#     skip_copy is 1, not by default (0) nor after 0 again; skip_copy
#     takes 0 or 1 only;
#   - buffered file writes on ext4 go uncopied (nocopy_blocks at least
#     half the file's blocks); O_DIRECT writes to the raw array never do
#     (nocopy_blocks 0: a user buffer can change in flight);
#   - the data is right: the file reads back after drop_caches; small
#     O_DIRECT writes into the file just written (read-modify-write on
#     stripes whose pages went uncopied: the cache must not take its page
#     for the data) and a buffered writer racing an mmap writer on one
#     file leave raid5x's check at 0;
#   - a member failed while a file is written: the file reads back from
#     the degraded array (the rebuilt blocks come from parity computed
#     over the bios' pages), and after the rebuild;
#   - raid456 assembles the members: e2fsck clean, every file's checksum,
#     raid456's check 0.
# Fails on the module before skip_copy (no skip_copy, no nocopy_blocks);
# with the cache page left uptodate after an uncopied write, the RMW step
# computes parity from stale data and the check after it fails.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 15
load_md
modprobe ext4 2>/dev/null || true
sys=/sys/block/md0/md
q=/sys/block/md0/queue/stable_writes
reset_stats() { echo 1 >"$sys/raid5x_stats/reset"; }

msz=$(gl_scaled 48 32) # MiB per member; 32 on the debug kernel
fmb=$((msz * 3 / 4))   # MiB per file: two fit with ext4's overhead
read -r -a devs <<<"$(make_members 5 "$msz")"
spare=${devs[4]}
create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}"
head -c $((fmb << 20)) /dev/urandom >/tmp/a
head -c $((fmb << 20)) /dev/urandom >/tmp/b
mkdir -p /mnt/r
gl_on_exit "umount /mnt/r 2>/dev/null"

step() {
	to_raid5x md0 || return 1
	note "default: skip_copy $(cat "$sys/skip_copy"), stable_writes $(cat "$q")"
	[ "$(cat "$sys/skip_copy")" = 0 ] && [ "$(cat "$q")" = 0 ] &&
		sysfs_write "$sys/skip_copy" 1 && [ "$(cat "$q")" = 1 ]
}
tap_check "raid5x: skip_copy 0 by default; at 1 the queue asks for stable writes" step

bad_input() {
	local v
	for v in 2 -1 abc ""; do
		if sysfs_write "$sys/skip_copy" "$v"; then
			note "skip_copy took '$v'"
			return 1
		fi
	done
	[ "$(cat "$sys/skip_copy")" = 1 ] && [ "$(cat "$q")" = 1 ]
}
tap_check "skip_copy refuses 2, -1, abc and empty, and stays 1" bad_input

mkfs.ext4 -q -F -b 4096 -E stride=16,stripe_width=48 /dev/md0
# buffered FILE from SRC, then its blocks written uncopied (of all written)
write_file() {
	reset_stats
	mount -t ext4 /dev/md0 /mnt/r &&
		dd if="$2" of="/mnt/r/$1" bs=1M conv=fsync status=none &&
		sync && umount /mnt/r || return 1
	note "$1: nocopy_blocks $(r5x_stat "$sys" nocopy_blocks), write_blocks $(r5x_stat "$sys" write_blocks), full_stripes $(r5x_stat "$sys" full_stripes)"
}
file_ok() {
	echo 3 >/proc/sys/vm/drop_caches
	mount -t ext4 -o ro /dev/md0 /mnt/r || return 1
	local rc=0
	cmp -s "/mnt/r/$1" "$2" || { note "$1 differs from $2"; rc=1; }
	umount /mnt/r || rc=1
	return "$rc"
}

step() {
	write_file a /tmp/a || return 1
	local n want=$(((fmb << 8) / 2))
	n=$(r5x_stat "$sys" nocopy_blocks)
	[ "$n" -ge "$want" ] || { note "nocopy_blocks $n < $want"; return 1; }
}
tap_check "ext4 buffered file write: at least half its blocks uncopied" step
tap_check "the file reads back after drop_caches" file_ok a /tmp/a

# 4 KiB O_DIRECT writes into the file, every 97th block: read-modify-write
# of stripes whose data pages went uncopied
rmw_into() {
	local i
	mount -t ext4 /dev/md0 /mnt/r || return 1
	for ((i = 1; i < (fmb << 8); i += 97)); do
		if ! { dd if=/dev/urandom of=/tmp/blk bs=4k count=1 status=none &&
			dd if=/tmp/blk of=/mnt/r/a bs=4k seek="$i" count=1 conv=notrunc \
				oflag=direct status=none &&
			dd if=/tmp/blk of=/tmp/a bs=4k seek="$i" count=1 conv=notrunc \
				status=none; }; then
			umount /mnt/r
			return 1
		fi
	done
	umount /mnt/r
	note "rmw_stripes $(r5x_stat "$sys" rmw_stripes) rcw_stripes $(r5x_stat "$sys" rcw_stripes)"
}
step() { reset_stats && rmw_into && file_ok a /tmp/a && md_check_zero md0; }
tap_check "4K O_DIRECT writes into it: file right, raid5x check 0" step

# a buffered writer (fsync every 8 writes) and an mmap writer (msync) on one
# file, 6 s: pages redirtied while under writeback wait for it to end
race() {
	mount -t ext4 /dev/md0 /mnt/r || return 1
	reset_stats
	fio --output=/tmp/race.out --filename=/mnt/r/race --size=8M --bs=4k \
		--rw=randwrite --fsync=8 --time_based --runtime=6 --eta=never \
		--name=write --ioengine=psync --name=mmap --ioengine=mmap
	local rc=$?
	sync
	umount /mnt/r || rc=1
	note "race: fio status $rc, nocopy_blocks $(r5x_stat "$sys" nocopy_blocks)"
	[ "$rc" = 0 ] && [ "$(r5x_stat "$sys" nocopy_blocks)" -gt 0 ]
}
tap_check "buffered and mmap writers racing on a file: uncopied writes, check 0" \
	eval 'race && md_check_zero md0'

step() {
	reset_stats
	dd if=/tmp/b of=/dev/md0 bs=192k oflag=direct status=none seek=$((fmb * 16 / 3)) count=16 &&
		dd if=/tmp/b of=/dev/md0 bs=1M oflag=direct status=none seek=$((fmb + 4)) count=4 || return 1
	note "O_DIRECT: nocopy_blocks $(r5x_stat "$sys" nocopy_blocks), full_stripes $(r5x_stat "$sys" full_stripes)"
	[ "$(r5x_stat "$sys" nocopy_blocks)" = 0 ] && [ "$(r5x_stat "$sys" full_stripes)" -gt 0 ]
}
tap_check "O_DIRECT writes to the raw array: every block copied" step
# the raw writes went over file system blocks: a new one
mkfs.ext4 -q -F -b 4096 -E stride=16,stripe_width=48 /dev/md0

step() {
	sysfs_write "$sys/skip_copy" 0 && [ "$(cat "$q")" = 0 ] &&
		mkfs.ext4 -q -F -b 4096 -E stride=16,stripe_width=48 /dev/md0 &&
		write_file a /tmp/a && [ "$(r5x_stat "$sys" nocopy_blocks)" = 0 ] &&
		file_ok a /tmp/a
}
tap_check "skip_copy 0: no stable writes, every block copied, file right" step
step() {
	sysfs_write "$sys/skip_copy" 1 && [ "$(cat "$q")" = 1 ] &&
		mkfs.ext4 -q -F -b 4096 -E stride=16,stripe_width=48 /dev/md0 &&
		write_file a /tmp/a && [ "$(r5x_stat "$sys" nocopy_blocks)" -gt 0 ]
}
tap_check "skip_copy 1 again: a new mount writes uncopied" step

# member 2 fails while file b is written (each 1 MiB written back at once)
fail_mid_write() {
	mount -t ext4 /dev/md0 /mnt/r || return 1
	reset_stats
	dd if=/tmp/b of=/mnt/r/b bs=1M oflag=dsync status=none &
	local pid=$! rc=0
	gl_nap 0.5
	mdadm /dev/md0 --fail "${devs[2]}" >/dev/null 2>&1 || rc=1
	wait "$pid" || rc=1
	sync
	umount /mnt/r || rc=1
	note "degraded $(cat "$sys/degraded"), nocopy_blocks $(r5x_stat "$sys" nocopy_blocks)"
	[ "$rc" = 0 ] && [ "$(cat "$sys/degraded")" = 1 ]
}
tap_check "member failed while a file is written: the write completes" fail_mid_write
tap_check "both files read back from the degraded array" \
	eval 'file_ok b /tmp/b && file_ok a /tmp/a'
step() {
	mdadm /dev/md0 --remove "${devs[2]}" >/dev/null &&
		mdadm /dev/md0 --add "$spare" >/dev/null && wait_rebuilt md0 &&
		file_ok b /tmp/b && md_check_zero md0
}
tap_check "spare rebuilt: file right, raid5x check 0" step

stop_array md0
tap_check "assemble under raid456" \
	assemble_raid456 md0 "${devs[0]}" "${devs[1]}" "$spare" "${devs[3]}"
step() {
	e2fsck -fn /dev/md0 >/dev/null && file_ok a /tmp/a && file_ok b /tmp/b
}
tap_check "raid456: e2fsck clean, both files right" step
tap_check "raid456 parity check" check_parity md0
tap_done
