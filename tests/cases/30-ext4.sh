#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 30-ext4: a file system on raid5x: mkfs.ext4, copy a tree of a few hundred
# files of varying sizes, e2fsck clean, checksums match after remount; then
# under raid456 (stop + assemble with stock mdadm): e2fsck clean, checksums
# match, parity check clean.
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 11
load_md
modprobe ext4 2>/dev/null || true

# a tree of 300 files: sizes from 1 byte to 64 KiB, every 25th 1-2 MiB
# (12 x 5 directories, every one used: 12 and 5 are coprime)
src=/tmp/src
mkdir -p "$src"/d{0..11}/e{0..4}
for ((i = 0; i < 300; i++)); do
	d=$src/d$((i % 12))/e$((i % 5))
	size=$(((i * 7919) % 65536 + 1))
	if ((i % 25 == 0)); then
		size=$((size + 1048576 + i * 3331))
	fi
	head -c "$size" /dev/urandom >"$d/f$i"
done
(cd "$src" && find . -type f -exec md5sum {} + | sort -k2) >/tmp/sums
note "tree: $(wc -l </tmp/sums) files, $(du -sk "$src" | cut -f1) KiB"

read -r -a devs <<<"$(make_members 4 64)"
create_raid5 md0 4 64 left-symmetric "${devs[@]}"
tap_check "takeover to raid5x" to_raid5x md0
lvl=$(md_level md0)
mkdir -p /mnt/r
gl_on_exit "umount /mnt/r 2>/dev/null"

tap_check "mkfs.ext4 under $lvl" \
	mkfs.ext4 -q -F -E stride=16,stripe_width=48 /dev/md0

copy_tree() {
	mount -t ext4 /dev/md0 /mnt/r &&
		cp -a "$src/." /mnt/r/ &&
		# churn: delete and rewrite the files of one directory
		for f in /mnt/r/d3/e*/f*; do rm -f "$f"; done &&
		cp -a "$src/d3/." /mnt/r/d3/ &&
		sync && umount /mnt/r
}
tap_check "copy tree under $lvl and unmount" copy_tree
tap_check "e2fsck -fn clean under $lvl" e2fsck -fn /dev/md0

verify_tree() {
	mount -t ext4 -o ro /dev/md0 /mnt/r || return 1
	local rc=0
	(cd /mnt/r && md5sum -c --quiet /tmp/sums) || rc=1
	umount /mnt/r || rc=1
	return "$rc"
}
echo 3 >/proc/sys/vm/drop_caches
tap_check "checksums after remount under $lvl" verify_tree

stop_array md0
tap_check "assemble under raid456" assemble_raid456 md0 "${devs[@]}"
tap_check "e2fsck -fn clean under raid456" e2fsck -fn /dev/md0
tap_check "checksums under raid456" verify_tree
tap_check "raid456 parity check after $lvl file system writes" check_parity md0

# and back: write under raid5x after a takeover of the live array
tap_check "takeover raid456 -> raid5x with a file system" to_raid5x md0
append_and_check() {
	mount -t ext4 /dev/md0 /mnt/r &&
		cp -a "$src/d5" /mnt/r/again &&
		umount /mnt/r &&
		e2fsck -fn /dev/md0 >/dev/null &&
		mount -t ext4 -o ro /dev/md0 /mnt/r &&
		(cd /mnt/r/again && sed -n 's| \./d5/| ./|p' /tmp/sums | md5sum -c --quiet)
	local rc=$?
	umount /mnt/r 2>/dev/null
	return "$rc"
}
tap_check "write + e2fsck + checksums under $(md_level md0) after takeover" \
	append_and_check
tap_done
