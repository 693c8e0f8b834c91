#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 87-stale-ioerr: a member that was replaced and rebuilt must not still
# count as failed in stripes cached from before. 4 dm members (linear over
# loop devices), arrays of 4 MiB per member (1024 stripes: all of it fits
# in raid5x's default stripe cache of 1024, so what is cached at the
# failure stays cached through the rebuild), md/max_read_errors 0. Member
# 1's table is swapped to dm-delay whose reads go to an `error` device,
# 50 ms late (its writes go on to member 1's loop device), the stripe
# cache is emptied, then fio writes 4 KiB blocks at random (O_DIRECT, two
# jobs at iodepth 16): the pre-reads of member 1 for those writes are in
# flight together and all fail; the first failure fails member 1 (read
# error beyond max_read_errors). Member 1 is removed, a spare added and
# rebuilt; then member 2 is failed and the whole array is read with
# O_DIRECT: it must read what it held after the writes (md5), and so must
# raid456 assembling the members left.
# Twin: the same on raid456 first (the reference), then on raid5x.
# Fails on the module before the fix: raid5x keeps R5X_DEV_IOERR (member
# unusable for this page) on the stripes whose member-1 read failed (about
# 30 of them); with member 2 failed those stripes count two failed members
# and reads through them return an I/O error:
#   not ok 11 - raid5x: member 2 failed: O_DIRECT read of the whole array: same md5
#   # read error: 10 of 192 64 KiB chunks cannot be read
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: use /dev/dm-N (devtmpfs)
tap_plan 12
load_md
for m in dm-mod dm-delay; do
	modprobe "$m" 2>/dev/null || true
done


sys=/sys/block/md0/md
msz=8     # MiB per member device; the array uses 4 MiB of each (--size)

# scenario PERS: 6 assertions on a fresh array run by PERS.
scenario() {
	local pers=$1 tag chk loops mdev sz sum errdev scs
	read -r tag chk <<<"$(gl_pers "$pers")"
	if [ "$pers" = raid5 ] && gl_kernel_from 7; then
		tap_skip 6 "raid456 twin: on 7.x raid456 records member 1's failed reads as bad blocks and keeps it in sync, with a WARNING in badblocks_check (block/badblocks.c:1246, md0_raid5; seen on 7.2.12): no reference for a member failed by read errors"
		return 0
	fi
	read -r -a loops <<<"$(make_members 5 "$msz")"
	sz=$((msz * 2048))
	read -r -a mdev <<<"$(dm_members 4 "$sz" "${loops[@]}")"
	dmsetup create r5xerr --table "0 $sz error"
	errdev=$(dm_node r5xerr)
	step() {
		mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 \
			--assume-clean --bitmap=none --chunk=64 --layout=left-symmetric \
			--size=4096 --raid-devices=4 "${mdev[@]}" || return 1
		if [ "$pers" = raid5x ]; then
			to_raid5x md0 || return 1
		fi
		[ "$(md_level md0)" = "$pers" ] || return 1
		dd if=/dev/urandom of=/dev/md0 bs=1M oflag=direct status=none 2>/dev/null
		echo 0 >"$sys/max_read_errors"
		# drop what the fill left in the stripe cache: the writes below
		# must read the members
		scs=$(cat "$sys/stripe_cache_size")
		echo 17 >"$sys/stripe_cache_size" && echo "$scs" >"$sys/stripe_cache_size" || return 1
		note "$tag: array $(($(blockdev --getsize64 /dev/md0) >> 20)) MiB, stripe_cache_size $(cat "$sys/stripe_cache_size")"
	}
	"$chk" "$tag: 4 dm members, 4 MiB each, data written, max_read_errors 0" step
	step() {
		local out=/tmp/fio-w.log rc=0 st
		# reads: the error device, 50 ms late; writes: member 1's loop
		dm_swap r5x1 "0 $sz delay $errdev 0 50 ${loops[1]} 0 0" || return 1
		fio --name=w --filename=/dev/md0 --rw=randwrite --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=16 --numjobs=2 --size=4M --io_size=2M \
			--randseed=87 --eta=never --output="$out" || rc=$?
		note "fio: rc $rc, $(grep -E '^ *WRITE:' "$out" | tr -s ' ')"
		if [ -e "$sys/raid5x_stats" ]; then
			note "raid5x counters: $(r5x_stats "$sys" | grep -E '^(io_errors|read_errors|preread_blocks|rcw_stripes|rmw_stripes) ' | tr '\n' ' ')"
		fi
		st=$(cat "$sys/dev-${mdev[1]##*/}/state")
		note "member 1: state '$st'; $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"
		[ "$rc" = 0 ] && [[ $st == *faulty* ]] && [ "$(cat "$sys/degraded")" = 1 ]
	}
	"$chk" "$tag: random 4 KiB writes while member 1 fails every read: writes ok, member 1 failed" step
	sum=$(md_md5 md0 2>/dev/null) || sum=EIO
	note "$tag: md5 after the writes (degraded): $sum"
	step() {
		mdadm --manage /dev/md0 --remove "${mdev[1]}" >/dev/null 2>&1 || return 1
		mdadm --manage /dev/md0 --add "${loops[4]}" >/dev/null || return 1
		sleep 0.5
		wait_rebuilt md0 || return 1
		grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/4\] \[UUUU\]' ||
			{ note "mdstat: $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"; return 1; }
		[ "$(md_level md0)" = "$pers" ] || return 1
		local s
		s=$(md_md5 md0) || return 1
		[ "$s" = "$sum" ] || { note "md5 $s after the rebuild"; return 1; }
	}
	"$chk" "$tag: member 1 removed, a spare rebuilt: [4/4] [UUUU], same md5" step
	step() {
		mdadm --manage /dev/md0 --fail "${mdev[2]}" >/dev/null 2>&1 || return 1
		[ "$(cat "$sys/degraded")" = 1 ] && [ "$(md_level md0)" = "$pers" ]
	}
	"$chk" "$tag: member 2 failed: degraded 1" step
	step() {
		local s
		if ! s=$(md_md5 md0); then
			local k n=0 nk
			nk=$(($(blockdev --getsize64 /dev/md0) / 65536))
			for ((k = 0; k < nk; k++)); do
				dd if=/dev/md0 of=/dev/null bs=64k skip="$k" count=1 iflag=direct \
					status=none 2>/dev/null || n=$((n + 1))
			done
			note "read error: $n of $nk 64 KiB chunks cannot be read"
			return 1
		fi
		[ "$s" = "$sum" ] || { note "md5 $s"; return 1; }
	}
	"$chk" "$tag: member 2 failed: O_DIRECT read of the whole array: same md5" step
	stop_array md0 || true
	step() {
		local s
		assemble_raid456 md0 "${mdev[0]}" "${loops[4]}" "${mdev[3]}" || return 1
		s=$(md_md5 md0) || return 1
		[ "$s" = "$sum" ] || { note "md5 $s"; return 1; }
	}
	"$chk" "$tag: raid456 assembles the members left: same md5" step
	gl_fresh
}

scenario raid5
scenario raid5x
tap_done
