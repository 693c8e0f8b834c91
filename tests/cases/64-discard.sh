#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 64-discard: discard (TRIM) under raid456's rule, raid456 as the twin in
# the same boot. Four loop members on tmpfs (a discard punches holes: the
# members' allocated blocks are counted), left-symmetric, 64 KiB chunks: a
# row is 192 KiB, the advertised granularity 256 KiB.
#  - devices_handle_discard_safely=N (both modules' default): a blkdiscard
#    of 4 rows just written frees nothing on the members; raid5x advertises
#    no discard (discard_max_bytes 0, blkdiscard refused). 7.x's raid456
#    advertises it anyway (for its lockless bitmap) and drops the discard
#    (EOPNOTSUPP, which the kernel's blkdiscard path turns into success);
#    noted;
#  - =Y: discard advertised; a blkdiscard starting and ending inside rows
#    zeroes exactly the whole rows between (the partial ends keep their
#    data) and frees those rows on all four members, parity included;
#  - a row still in the stripe cache (just written and read back through
#    it) reads zeroes after its discard, not the cached copy;
#  - `check` finds 0 mismatches;
#  - ext4 over the array: a 12 MiB file deleted, `fstrim` frees at least
#    that much on the members, e2fsck clean, check 0;
#  - degraded (member 2 failed): a discard, then member 2 added back and
#    rebuilt: the array reads the expected bytes, check 0;
#  - fio verify on the first quarter while blkdiscard loops over 64 rows
#    of the second half: no verify error, those rows read zeroes, check 0;
#  - raid5x only: raid456 assembles what raid5x left and reads the same
#    bytes; raid5x_stats counts the discards and rows.
# Fails on the module before discard (126b24f): raid5x advertises no
# discard, so the =Y assertions and fstrim fail there.
# timeout: 900
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 20
load_md
modprobe ext4 2>/dev/null || true
gl_on_exit "umount /mnt/d 2>/dev/null"

sys=/sys/block/md0/md
q=/sys/block/md0/queue
msz=16                  # MiB per member
row=$((3 * 65536))      # array bytes of one row

param() {
	if [ "$1" = raid5 ]; then
		echo /sys/module/raid456/parameters/devices_handle_discard_safely
	else
		echo /sys/module/md_raid5x/parameters/devices_handle_discard_safely
	fi
}

# allocated KiB of the members' backing files
member_kib() {
	local d f n=0
	for d in "${loops[@]}"; do
		f=$(cat "/sys/block/${d##*/}/loop/backing_file") || return 1
		n=$((n + $(stat -c %b "$f") / 2))
	done
	echo "$n"
}

# zero_rows FIRST LAST: the expected data (/tmp/exp) has rows FIRST..LAST-1 zeroed
zero_rows() {
	[ "$2" -gt "$1" ] || return 0
	dd if=/dev/zero of=/tmp/exp bs="$row" seek="$1" count=$(($2 - $1)) \
		conv=notrunc status=none
}

# discard OFF LEN: blkdiscard bytes OFF..+LEN; /tmp/exp gets the rows the
# array discards zeroed. The block layer sends an unaligned discard as two
# bios, cut at the first multiple of the granularity (256 KiB), and each
# bio discards the whole rows inside it: a row across the cut is kept
# (raid456 alike).
discard() {
	local o=$1 e=$(($1 + $2)) g=262144 a
	blkdiscard -o "$o" -l "$2" /dev/md0 || return 1
	a=$(((o + g - 1) / g * g))
	[ "$a" -lt "$e" ] || a=$e
	zero_rows $(((o + row - 1) / row)) $((a / row))
	zero_rows $(((a + row - 1) / row)) $((e / row))
}

# same_all: the whole array reads /tmp/exp; else the first difference is noted
same_all() {
	md_same md0 /tmp/exp 0 "$size" && return 0
	note "first difference: $(dd if=/dev/md0 bs=1M iflag=direct status=none |
		cmp - /tmp/exp 2>&1 | head -n 1)"
	return 1
}

new_array() {
	read -r -a loops <<<"$(make_members 4 "$msz")"
	create_raid5 md0 4 64 left-symmetric "${loops[@]}" || return 1
	if [ "$pers" = raid5x ]; then
		to_raid5x md0 || return 1
	fi
	size=$(blockdev --getsize64 /dev/md0)
}

# scenario PERS: 9 assertions (raid5x: 11)
scenario() {
	local pers=$1 tag chk p k0 k1 r a b pid i
	read -r tag chk <<<"$(gl_pers "$pers")"
	p=$(param "$pers")

	sysfs_write "$p" N
	step() {
		new_array || return 1
		head -c $((4 * row)) /dev/urandom |
			dd of=/dev/md0 bs="$row" oflag=direct status=none || return 1
		k0=$(member_kib)
		if blkdiscard -o 0 -l $((4 * row)) /dev/md0 2>/dev/null; then
			r=ok
		else
			r=refused
		fi
		k1=$(member_kib)
		note "$tag: =N: discard_max_bytes $(cat "$q"/discard_max_bytes), blkdiscard $r, members' KiB $k0 -> $k1"
		[ "$k0" = "$k1" ] || return 1
		[ "$pers" = raid5 ] ||
			{ [ "$(cat "$q"/discard_max_bytes)" = 0 ] && [ "$r" = refused ]; }
	}
	"$chk" "$tag: devices_handle_discard_safely=N: nothing discarded on the members$([ "$pers" = raid5 ] || echo "; no discard advertised, blkdiscard refused")" step
	stop_array md0 || true
	gl_fresh

	sysfs_write "$p" Y || note "$p: cannot set Y"
	step() {
		new_array || return 1
		note "$tag: discard_max_bytes $(cat "$q"/discard_max_bytes) granularity $(cat "$q"/discard_granularity)"
		[ "$(cat "$q"/discard_max_bytes)" -gt 0 ] &&
			[ "$(cat "$q"/discard_granularity)" = 262144 ]
	}
	"$chk" "$tag: =Y: discard advertised with a 256 KiB granularity" step

	head -c "$size" /dev/urandom >/tmp/exp
	dd if=/tmp/exp of=/dev/md0 bs=1M oflag=direct status=none
	k0=$(member_kib)
	# from inside row 5 to inside row 36: rows 6..35 zeroed
	step() { discard $((5 * row + 4096)) $((31 * row + 8192)) && same_all; }
	"$chk" "$tag: blkdiscard from inside row 5 to inside row 36 zeroes rows 6..35 and nothing else" step
	k1=$(member_kib)
	note "$tag: members' allocated KiB $k0 -> $k1"
	step() { [ $((k0 - k1)) -ge $((30 * 64 * 4)) ]; }
	"$chk" "$tag: the 30 rows are freed on all 4 members ($((30 * 64 * 4)) KiB)" step

	r=60
	step() {
		dd if=/tmp/exp of=/dev/md0 bs="$row" count=1 skip="$r" seek="$r" \
			oflag=direct status=none &&
			dd if=/dev/md0 of=/dev/null bs="$row" count=1 skip="$r" \
				iflag=direct status=none &&
			discard $((r * row)) "$row" && same_all
	}
	"$chk" "$tag: a row cached by a write and a read reads zeroes after its discard" step
	step() { md_check_zero md0; }
	"$chk" "$tag: check finds 0 mismatches after the discards" step

	step() {
		mkfs.ext4 -q -F -E nodiscard /dev/md0 && mkdir -p /mnt/d &&
			mount -t ext4 /dev/md0 /mnt/d || return 1
		head -c $((12 << 20)) /dev/urandom >/mnt/d/f && sync || return 1
		a=$(member_kib)
		rm /mnt/d/f && sync && fstrim /mnt/d || return 1
		b=$(member_kib)
		umount /mnt/d || return 1
		note "$tag: fstrim: members' allocated KiB $a -> $b"
		[ $((a - b)) -ge $((12 << 10)) ] && e2fsck -fn /dev/md0 >/dev/null &&
			md_check_zero md0
	}
	"$chk" "$tag: ext4: fstrim frees the deleted 12 MiB on the members, e2fsck clean, check 0" step

	# from here the array holds random data again
	head -c "$size" /dev/urandom >/tmp/exp
	dd if=/tmp/exp of=/dev/md0 bs=1M oflag=direct status=none
	step() {
		mdadm /dev/md0 --fail "${loops[2]}" --remove "${loops[2]}" \
			>/dev/null 2>&1 || return 1
		same_all || { note "$tag: differs once member 2 failed"; return 1; }
		discard $((70 * row)) $((10 * row)) || return 1
		same_all || { note "$tag: differs after the degraded discard"; return 1; }
		mdadm --zero-superblock "${loops[2]}" &&
			mdadm /dev/md0 --add "${loops[2]}" >/dev/null || return 1
		wait_rebuilt md0 || return 1
		same_all || { note "$tag: differs after the rebuild"; return 1; }
		md_check_zero md0
	}
	"$chk" "$tag: degraded: a discard, member 2 rebuilt: expected bytes, check 0" step

	step() {
		local half=$((size / 2 / row * row)) rc=0
		rm -f /tmp/fio.done
		(
			# every one of the 16 ranges at least once, then on until fio ends
			i=0
			while { [ ! -e /tmp/fio.done ] || [ "$i" -lt 16 ]; } && [ "$i" -lt 400 ]; do
				discard $((half + (i % 16) * 4 * row)) $((4 * row)) || exit 1
				i=$((i + 1))
			done
		) &
		pid=$!
		fio_verify --name=half --filename=/dev/md0 --direct=1 --rw=randwrite \
			--bs=16k --size=$((half / 2)) --iodepth=8 --ioengine=libaio || rc=1
		touch /tmp/fio.done
		wait "$pid" || { note "$tag: a blkdiscard failed"; rc=1; }
		md_same md0 /tmp/exp "$half" $((64 * row)) || rc=1
		md_check_zero md0 || rc=1
		return "$rc"
	}
	"$chk" "$tag: fio verify on the first quarter while discards loop on the second half: no error, zeroes, check 0" step

	if [ "$pers" = raid5x ]; then
		note "$tag: raid5x_stats: discards $(cat "$sys"/raid5x_stats/discards) rows $(cat "$sys"/raid5x_stats/discard_rows) zeroed $(cat "$sys"/raid5x_stats/discard_zeroed)"
		step() {
			[ "$(cat "$sys"/raid5x_stats/discards)" -gt 0 ] &&
				[ "$(cat "$sys"/raid5x_stats/discard_rows)" -ge 30 ]
		}
		"$chk" "$tag: raid5x_stats counts the discards and their rows" step
		# the fio data of the first half is not in /tmp/exp: compare the
		# second half, and all of it by md5 across the personalities
		a=$(md_md5 md0)
		stop_array md0 || true
		step() {
			assemble_raid456 md0 "${loops[@]}" && [ "$(md_md5 md0)" = "$a" ] &&
				check_parity md0
		}
		tap_check "$tag: raid456 assembles what raid5x left: same bytes, check 0" step
	fi
	stop_array md0 || true
	sysfs_write "$p" N
	gl_fresh
}

scenario raid5
scenario raid5x
tap_done
