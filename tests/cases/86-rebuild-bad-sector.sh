#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 86-rebuild-bad-sector: an unreadable sector on a surviving member during a
# rebuild. The members are device-mapper devices (linear over loop
# devices) with mdadm's default 1.2 metadata and its bad-block log. The
# array is filled with random data (a copy stays in /tmp); member 0 is
# failed and removed; member 1's table is swapped so one 4 KiB block of its
# data area (8 sectors, in a row where members 0, 1 and 2 hold data) maps
# to the dm `error` target; a spare is added. The rebuild cannot compute
# member 0's block of that row (it needs member 1's), nor read member 1's:
# raid456 (the reference) records the range in the bad-block logs (of
# member 1 and of the spare: "2576 8" in both md/dev-*/bad_blocks), keeps
# member 1 and finishes the recovery: 4 of 4 members in sync, degraded 0.
# Everything outside the two 4 KiB blocks of that row on members 0 and 1
# reads back unchanged; those two return either an I/O error or the right
# data, never wrong data.
# Twin: the same on raid456 first, then on raid5x; the assertions name the
# personality.
# Fails on the module before the fix: raid5x retries the unreadable block
# until member 1 has more than max_read_errors read errors, fails it
# ("md/raid5x:md0: dm-1: 21 read errors, more than max_read_errors (20):
# failing it"), and the array is left broken (2 of 4 members; md then
# restarts the recovery again and again until it is frozen):
#   not ok 9 - raid5x: member 0 failed, ...: the recovery ends
#   # array failed (degraded 2) during the recovery
# and assertions 10 to 13 (not in sync, no bad block logged, the array
# cannot be read).
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: use /dev/dm-N (devtmpfs)
tap_plan 14
load_md
modprobe dm-mod 2>/dev/null || true


sys=/sys/block/md0/md
msz=$(gl_scaled 16 8) # MiB per member
# Geometry: left-symmetric, 4 members, 64 KiB chunks (128 sectors). Row r
# keeps parity on member 3 - r % 4 and data chunk j on member
# (parity + 1 + j) % 4 (array chunk 3r + j). Row 4: parity on member 3,
# members 0, 1, 2 hold array chunks 12, 13, 14.
row=4
boff=16                       # sectors into the chunk: 8 KiB
msec=$((row * 128 + boff))    # member sector (from the data offset)
lost0=$(((3 * row + 0) * 65536 + boff * 512)) # array byte of member 0's block
lost1=$(((3 * row + 1) * 65536 + boff * 512)) # ... of member 1's block

# seg_md5 FILE OFF LEN: md5 of LEN bytes of FILE at OFF (O_DIRECT for a
# block device).
seg_md5() {
	local fl=skip_bytes,count_bytes
	[ -b "$1" ] && fl=$fl,direct
	dd if="$1" bs=1M iflag="$fl" skip="$2" count="$3" status=none | md5sum | cut -d' ' -f1
}

# scenario PERS: 7 assertions on a fresh array run by PERS.
scenario() {
	local pers=$1 tag chk loops mdev sz doff size spare rd1 rds
	read -r tag chk <<<"$(gl_pers "$pers")"
	if [ "$pers" = raid5 ] && gl_kernel_from 7; then
		# the reference cannot run there: the guest would hang in it
		tap_skip 7 "raid456 twin: on 7.x raid456's recovery across the unreadable block never ends (md0_resync waits in md_do_sync, freezing it hangs in stop_sync_thread; seen on 7.2.12)"
		return 0
	fi
	read -r -a loops <<<"$(make_members 5 "$msz")"
	sz=$((msz * 2048))
	read -r -a mdev <<<"$(dm_members 4 "$sz" "${loops[@]}")"
	spare=${loops[4]}
	step() {
		create_raid5 md0 4 64 left-symmetric "${mdev[@]}" || return 1
		if [ "$pers" = raid5x ]; then
			to_raid5x md0 || return 1
		fi
		mdadm --examine "${mdev[1]}" | grep -q 'Bad Block Log' ||
			{ note "no bad-block log: $(mdadm --examine "${mdev[1]}" | tr '\n' ' ')"; return 1; }
		note "$(mdadm --examine "${mdev[1]}" | grep 'Bad Block Log' | tr -s ' ')"
		size=$(blockdev --getsize64 /dev/md0) || return 1
		head -c "$size" /dev/urandom >/tmp/data
		dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
	}
	size=0
	"$chk" "$tag: array over 4 dm members, 1.2 metadata with a bad-block log, filled" step
	rd1=$sys/dev-${mdev[1]##*/}
	rds=$sys/dev-${spare##*/}
	doff=$(cat "$rd1/offset" 2>/dev/null) || doff=0
	note "$tag: array $((size >> 20)) MiB, data offset $doff sectors; member 1 sector $((doff + msec)) (+8) will fail; array bytes $lost0 and $lost1 (+4 KiB) may be lost"
	step() {
		mdadm --manage /dev/md0 --fail "${mdev[0]}" >/dev/null 2>&1 &&
			mdadm --manage /dev/md0 --remove "${mdev[0]}" >/dev/null 2>&1 || return 1
		dm_swap r5x1 "0 $((doff + msec)) linear ${loops[1]} 0
$((doff + msec)) 8 error
$((doff + msec + 8)) $((sz - doff - msec - 8)) linear ${loops[1]} $((doff + msec + 8))" || return 1
		mdadm --manage /dev/md0 --add "$spare" >/dev/null || return 1
		sleep 0.5
		# idle counts as the end once the recovery was seen running or
		# the array is whole (md's thread starts it after --add: idle
		# until then)
		local ended=0 k a d seen=0
		for ((k = 0; k < 600; k++)); do
			read -r a <"$sys/sync_action"
			read -r d <"$sys/degraded"
			[ "$a" = idle ] || seen=1
			if [ "$a" = idle ] && { [ "$seen" = 1 ] || [ "$d" = 0 ]; }; then
				ended=1
				break
			fi
			[ "$d" -lt 2 ] || { note "array failed (degraded $d) during the recovery"; break; }
			gl_nap 0.1
		done
		# a recovery that cannot end restarts again and again: stop it
		[ "$ended" = 1 ] || echo frozen >"$sys/sync_action"
		note "$(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' '); degraded $(cat "$sys/degraded")"
		note "member 1: state '$(cat "$rd1/state" 2>/dev/null)', bad_blocks '$(tr '\n' ' ' <"$rd1/bad_blocks" 2>/dev/null)', unacknowledged '$(tr '\n' ' ' <"$rd1/unacknowledged_bad_blocks" 2>/dev/null)'"
		note "spare: state '$(cat "$rds/state" 2>/dev/null)', bad_blocks '$(tr '\n' ' ' <"$rds/bad_blocks" 2>/dev/null)', unacknowledged '$(tr '\n' ' ' <"$rds/unacknowledged_bad_blocks" 2>/dev/null)'"
		[ "$(md_level md0)" = "$pers" ] || { note "level $(md_level md0)"; return 1; }
		[ "$ended" = 1 ]
	}
	"$chk" "$tag: member 0 failed, 8 sectors of member 1 unreadable, spare added: the recovery ends" step
	step() {
		[ "$(cat "$sys/degraded")" = 0 ] &&
			grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/4\] \[UUUU\]'
	}
	"$chk" "$tag: recovery finished: degraded 0, [4/4] [UUUU]" step
	step() {
		local st
		st=$(cat "$rd1/state")
		[[ $st != *faulty* ]] && [[ $st == *in_sync* ]]
	}
	"$chk" "$tag: member 1 is in sync, not faulty" step
	# covers FILE SECTOR: a "start length" line of bad_blocks FILE covers SECTOR
	covers() {
		local f=$1 sec=$2 s l
		while read -r s l; do
			[ "$sec" -ge "$s" ] && [ "$sec" -lt $((s + l)) ] && return 0
		done <"$f" 2>/dev/null
		return 1
	}
	step() {
		local a=$((doff + msec)) n=0
		covers "$rd1/bad_blocks" "$a" && n=$((n + 1)) && note "member 1's bad-block log has sector $a"
		covers "$rds/bad_blocks" "$a" && n=$((n + 1)) && note "the spare's bad-block log has sector $a"
		[ "$n" -gt 0 ]
	}
	"$chk" "$tag: the unreadable range is in the bad-block log (member 1 and/or the spare)" step
	# everything but the two blocks of row 4 on members 0 and 1
	step() {
		local segs=("0 $lost0" "$((lost0 + 4096)) $((lost1 - lost0 - 4096))"
			"$((lost1 + 4096)) $((size - lost1 - 4096))") sg o l bad=0
		for sg in "${segs[@]}"; do
			read -r o l <<<"$sg"
			if [ "$(seg_md5 /dev/md0 "$o" "$l" 2>/dev/null)" != "$(seg_md5 /tmp/data "$o" "$l")" ]; then
				note "array bytes $o +$l differ from what was written (or unreadable)"
				bad=1
			fi
		done
		[ "$bad" = 0 ]
	}
	"$chk" "$tag: every byte outside the lost row's blocks on members 0, 1 reads back unchanged" step
	step() {
		local o got bad=0
		for o in "$lost0" "$lost1"; do
			if got=$(dd if=/dev/md0 bs=4k skip=$((o / 4096)) count=1 iflag=direct status=none 2>/dev/null | md5sum | cut -d' ' -f1); then
				if [ "$got" = "$(seg_md5 /tmp/data "$o" 4096)" ]; then
					note "array bytes $o +4096: right data"
				else
					note "array bytes $o +4096: WRONG data"
					bad=1
				fi
			else
				note "array bytes $o +4096: I/O error"
			fi
		done
		[ "$bad" = 0 ]
	}
	"$chk" "$tag: the lost blocks read as an I/O error or right data, never wrong data" step
	gl_fresh
}

scenario raid5
scenario raid5x
tap_done
