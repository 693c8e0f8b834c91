#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 93-review-faults: fault paths found by reading raid5x against md's
# raid5.c (issue 25), each run on raid456 first (the reference twin), then
# on raid5x, in the same boot:
#  burst:   a degraded array (member 3 failed) rebuilds onto a spare while
#           member 1 has 6 unreadable blocks, max_read_errors 2: the
#           rebuild completes and member 1 stays (its blocks recorded as
#           bad, as raid5 does); the module before 11848e4 (378a846)
#           failed member 1 at its 3rd error: "degraded 1, member 1
#           faulty, bad: 2 on member 1, 29 on the spare", and the reads
#           after it failed.
#  resume:  a spare rebuilding into an array with an internal bitmap; the
#           array stopped at 25% and assembled again (raid5x by takeover,
#           sync frozen around it, as the patched mdadm does): the
#           recovery must resume and rebuild everything, not skip what the
#           bitmap calls clean (raid5: conf->fullsync for a member whose
#           saved_raid_disk is not its slot). Check 0, and with another
#           member failed the array reads back what was written.
#  madegood: a block listed in a member's bad-block log and then written
#           successfully is taken off the log (raid5: R5_MadeGood), so it
#           is readable again: with another member failed, it still reads.
#  quiesce: a member write fails while the array is being suspended
#           (`echo 0 > md/suspend_hi`: md's mddev_suspend on 6.1, which
#           lets md's thread write the superblock meanwhile); the array
#           write must not be acknowledged while md/array_state still says
#           write-pending (the bad block not yet on disk; the superblock
#           writes are slowed by dm-delay to make that window seconds
#           long). From 6.7 md no longer quiesces there: skipped.
#  rebuilt: a spare rebuilt to 25%, the recovery frozen; a read error on
#           another member below the spare's recovery_offset is served
#           from the rebuilt block (raid5 counts the spare in sync below
#           its recovery_offset), not failed with EIO.
#  wantrepl: a member write error with a spare present: md is asked for a
#           replacement (raid5 sets WantReplacement), the spare copies the
#           member and takes its slot.
# Fails on the module before the fixes (9e722ed): 7 of raid5x's 13
# assertions, on Debian's 6.1 (raid456's 12 pass in the same boot):
#   resume: check finds mismatch_cnt 18928 (raid5x showed [UUUU] right
#     after the assembly), the degraded md5 differs; madegood: the entry
#     stays listed ("2064 8"), the degraded read fails; quiesce: the write
#     returned at 2.1 s with the array write-pending; rebuilt: the read
#     fails (EIO); wantrepl: the spare stays a spare.
# raid456 (6.1) keeps the rewritten block listed too: raid5x's madegood
# assertions have no raid456 twin (docs/design.md).
# timeout: 900
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: /dev/dm-N (devtmpfs)
tap_plan 29
load_md
modprobe dm-mod 2>/dev/null || true
modprobe dm-delay 2>/dev/null || true
modprobe dm-flakey 2>/dev/null || true

sys=/sys/block/md0/md
msz=$(gl_scaled 8 4)                   # MiB per member
speed=$((500 / GL_SCALE))              # KiB/s while a recovery is held slow
[ "$speed" -ge 125 ] || speed=125
lim_min=$(cat /proc/sys/dev/raid/speed_limit_min)
lim_max=$(cat /proc/sys/dev/raid/speed_limit_max)
restore_limits() {
	echo "$lim_min" >/proc/sys/dev/raid/speed_limit_min
	echo "$lim_max" >/proc/sys/dev/raid/speed_limit_max
}
gl_on_exit restore_limits

# fill: random data over the whole of md0 (fio's generator)
fill() {
	fio --name=fill --filename=/dev/md0 --rw=write --bs=1M --direct=1 \
		--ioengine=libaio --iodepth=4 --refill_buffers=1 \
		--output=/tmp/fill.log || { sed 's/^/#   /' /tmp/fill.log; return 1; }
}

# past_quarter: wait (up to 120 s) until md0's recovery is past 25%
past_quarter() {
	local i a b
	for ((i = 0; i < 1200; i++)); do
		read -r a _ b <"$sys/sync_completed" || return 1
		# "none", or "delayed" while md's thread waits to start (6.12
		# under load: a bare $((a)) of it is fatal under set -u)
		if [[ $a =~ ^[0-9]+$ && $b =~ ^[1-9][0-9]*$ ]] && [ $((a * 4)) -ge "$b" ]; then
			note "recovery at $a of $b sectors ($((a * 100 / b))%)"
			return 0
		fi
		gl_nap 0.1
	done
	note "sync_completed $(cat "$sys/sync_completed") after 120 s"
	return 1
}

# bitmap_clean DEV: wait (up to 90 s) until the bitmap on DEV has no dirty bit
bitmap_clean() {
	local l t=$SECONDS
	while [ $((SECONDS - t)) -lt 90 ]; do
		l=$(mdadm -X "$1" 2>/dev/null | grep -E 'Bitmap : .* dirty')
		[[ $l == *" 0 dirty"* ]] && { note "bitmap: ${l## }"; return 0; }
		sleep 1
	done
	note "bitmap still dirty after 90 s: $l"
	return 1
}

# switch PERS: hand the running md0 to PERS as the patched mdadm does
# (sync frozen around the level change)
switch() {
	[ "$1" = raid5x ] || return 0
	md_freeze md0 && to_raid5x md0 &&
		echo idle >"$sys/sync_action"
}

# dm_setup N: N loop members of msz MiB, each under a dm-linear device
# (r5x0..): sets the caller's loops, nodes and sz (sectors)
dm_setup() {
	read -r -a loops <<<"$(make_members "$1" "$msz")"
	sz=$((msz * 2048))
	read -r -a nodes <<<"$(dm_members "$1" "$sz" "${loops[@]}")"
}

# fail_remove DEV: fail member DEV of md0 and remove it
fail_remove() {
	mdadm --manage /dev/md0 --fail "$1" >/dev/null 2>&1 &&
		mdadm --manage /dev/md0 --remove "$1" >/dev/null 2>&1
}

# mdstat_full: md0 has all 4 members in sync
mdstat_full() {
	grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/4\] \[UUUU\]' ||
		{ note "mdstat: $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"; return 1; }
}

# ---- resume: a resumed recovery with a bitmap rebuilds everything ---------
scen_resume() {
	local pers=$1 tag chk devs sum
	read -r tag chk <<<"$(gl_pers "$pers")"
	read -r -a devs <<<"$(make_members 5 "$msz")"
	step() {
		mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 \
			--assume-clean --bitmap=internal --chunk=64 \
			--layout=left-symmetric --raid-devices=4 "${devs[@]:0:4}" &&
			echo 1 >"$sys/bitmap/time_base" &&
			switch "$pers" && fill || return 1
		sum=$(md_md5 md0) || return 1
		bitmap_clean "${devs[0]}" || return 1
		fail_remove "${devs[1]}" || return 1
		echo "$speed" >/proc/sys/dev/raid/speed_limit_min &&
			echo "$speed" >/proc/sys/dev/raid/speed_limit_max || return 1
		mdadm --manage /dev/md0 --add "${devs[4]}" >/dev/null && past_quarter
	}
	"$chk" "$tag: bitmap array, clean bitmap, member 1 replaced by a fresh spare: rebuild past 25%" step
	step() {
		stop_array md0 || return 1
		mdadm --assemble --run --quiet /dev/md0 "${devs[0]}" "${devs[4]}" \
			"${devs[2]}" "${devs[3]}" && switch "$pers" || return 1
		note "assembled: degraded $(cat "$sys/degraded"), action $(cat "$sys/sync_action"), spare $(md_member md0 "${devs[4]}" state) recovery_start $(md_member md0 "${devs[4]}" recovery_start)"
		restore_limits
		wait_rebuilt md0 && mdstat_full &&
			[ "$(md_level md0)" = "$pers" ]
	}
	"$chk" "$tag: stopped at 25%, assembled again: the recovery resumes and completes" step
	step() { md_check_zero md0; }
	"$chk" "$tag: check after the resumed recovery finds 0 mismatches" step
	step() {
		local s
		mdadm --manage /dev/md0 --fail "${devs[0]}" >/dev/null 2>&1 || return 1
		s=$(md_md5 md0) || return 1
		[ "$s" = "$sum" ] || { note "md5 $s, $sum written"; return 1; }
	}
	"$chk" "$tag: member 0 failed: the array reads back what was written (the spare has no holes)" step
	restore_limits
	gl_fresh
}

# ---- madegood: a successful write clears a bad-block entry ------------------
scen_madegood() {
	local pers=$1 tag chk devs off bb
	read -r tag chk <<<"$(gl_pers "$pers")"
	read -r -a devs <<<"$(make_members 4 "$msz")"
	step() {
		create_raid5 md0 4 64 left-symmetric "${devs[@]}" &&
			switch "$pers" || return 1
		off=$(md_member md0 "${devs[1]}" offset) || return 1
		bb=$sys/dev-${devs[1]##*/}/bad_blocks
		# member 1's block at member sector 16 (array sector 144, row 0)
		echo "$((off + 16)) 8" >"$bb" || return 1
		[ "$(cat "$bb")" = "$((off + 16)) 8" ] ||
			{ note "bad_blocks: $(cat "$bb")"; return 1; }
		head -c 1048576 /dev/urandom >/tmp/93.dat
		dd if=/tmp/93.dat of=/dev/md0 bs=192k oflag=direct status=none
		# up to 5 s for the stripe's handler
		local i
		for ((i = 0; i < 50; i++)); do
			[ -z "$(cat "$bb")" ] && return 0
			gl_nap 0.1
		done
		note "member 1's bad_blocks after the write: $(tr '\n' ' ' <"$bb")"
		return 1
	}
	if [ "$pers" = raid5 ]; then
		# raid456 (6.1) keeps the entry after this write: its
		# analyse_stripe counts the listed block's member as failed for
		# the stripe; then its degraded read of it fails (docs/design.md)
		step || note "raid456 keeps member 1's entry (raid456's own behaviour, not asserted)"
		step() {
			stop_array md0 && mdadm --assemble --run --quiet /dev/md0 "${devs[@]}" ||
				return 1
			dd if=/dev/md0 bs=1M count=1 iflag=direct status=none | cmp - /tmp/93.dat
		}
		"$chk" "$tag: a block listed bad on member 1, then written whole; stopped and assembled again: the data reads back" step
		gl_fresh
		return
	fi
	"$chk" "$tag: a block listed bad on member 1, then written whole: the entry is cleared" step
	step() {
		# nothing read before the degraded read: no cached stripe, no
		# read-error write-back clears it on the way
		stop_array md0 && mdadm --assemble --run --quiet /dev/md0 "${devs[@]}" &&
			switch "$pers" &&
			mdadm --manage /dev/md0 --fail "${devs[0]}" >/dev/null 2>&1 || return 1
		dd if=/dev/md0 bs=1M count=1 iflag=direct status=none 2>/tmp/93.err |
			cmp - /tmp/93.dat || { sed 's/^/#   /' /tmp/93.err; return 1; }
	}
	"$chk" "$tag: stopped, assembled, member 0 failed: the once-bad block reads (rebuilt from member 1's copy)" step
	gl_fresh
}

# ---- quiesce: no acknowledgement before the record, while suspending ---------
scen_quiesce() {
	local pers=$1 tag chk loops nodes sz off e rc=/tmp/93-quiesce.rc
	read -r tag chk <<<"$(gl_pers "$pers")"
	dm_setup 4
	step() {
		mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 \
			--assume-clean --bitmap=none --chunk=4 \
			--layout=left-symmetric --raid-devices=4 "${nodes[@]}" &&
			switch "$pers" || return 1
		# stay dirty: no clean->dirty superblock write before our write
		echo 3600 >"$sys/safe_mode_delay" || return 1
		head -c 12288 /dev/urandom >/tmp/93.row
		dd if=/tmp/93.row of=/dev/md0 bs=12k oflag=direct status=none || return 1
		off=$(md_member md0 "${nodes[0]}" offset) || return 1
		dmsetup create r5xerr --table "0 $sz error" || return 1
		e=$(dm_node r5xerr)
		# member 0: superblock writes take 3 s; member 1: data writes
		# fail after 1 s
		dm_swap r5x0 "0 $off delay ${loops[0]} 0 0 ${loops[0]} 0 3000
$off $((sz - off)) linear ${loops[0]} $off" &&
			dm_swap r5x1 "0 $off linear ${loops[1]} 0
$off $((sz - off)) delay $e $off 0 $e $off 1000" || return 1
		rm -f "$rc"
		(
			t0=$EPOCHREALTIME r=0
			dd if=/tmp/93.row of=/dev/md0 bs=12k oflag=direct status=none || r=$?
			echo "$r $(gl_since "$t0")" >"$rc"
		) &
		gl_nap 0.3
		echo 0 >"$sys/suspend_hi" &
		local i st early="" seen=0 sus=$!
		for ((i = 0; i < 300; i++)); do
			if [ -e "$rc" ]; then
				read -r st <"$sys/array_state"
				[ "$st" != write-pending ] || early="the write returned ($(cat "$rc")) with the array write-pending"
				break
			fi
			read -r st <"$sys/array_state"
			[ "$st" != write-pending ] || seen=1
			gl_nap 0.1
		done
		gl_wait_pid "$sus" 30 || note "the suspend_hi store did not return"
		wait
		note "the write returned (status, s): $(cat "$rc" 2>/dev/null); write-pending seen before: $seen; array $(cat "$sys/array_state"), member 1 $(md_member md0 "${nodes[1]}" state)"
		[ -z "$early" ] || { note "$early"; return 1; }
		[ -e "$rc" ] && [ "$(cut -d' ' -f1 "$rc")" = 0 ]
	}
	"$chk" "$tag: a member write fails during a suspend: not acknowledged before the bad block is on disk" step
	step() {
		dm_swap r5x0 "0 $sz linear ${loops[0]} 0" || return 1
		dd if=/dev/md0 bs=12k count=1 iflag=direct status=none | cmp - /tmp/93.row
	}
	"$chk" "$tag: the row reads back (member 1's block from parity)" step
	gl_fresh
}

# ---- rebuilt: below recovery_offset the spare serves a rebuild --------------
scen_rebuilt() {
	local pers=$1 tag chk loops nodes sz off rs csz
	no_raid456_twin "$pers" 3 && return
	read -r tag chk <<<"$(gl_pers "$pers")"
	dm_setup 5
	step() {
		create_raid5 md0 4 64 left-symmetric "${nodes[@]:0:4}" &&
			switch "$pers" && fill || return 1
		dd if=/dev/md0 of=/tmp/93.row bs=192k count=1 iflag=direct status=none &&
			fail_remove "${nodes[1]}" &&
			echo "$speed" >"$sys/sync_speed_min" &&
			echo "$speed" >"$sys/sync_speed_max" &&
			mdadm --manage /dev/md0 --add "${nodes[4]}" >/dev/null &&
			past_quarter || return 1
		echo frozen >"$sys/sync_action" || return 1
		local i
		for ((i = 0; i < 300; i++)); do
			rs=$(md_member md0 "${nodes[4]}" recovery_start)
			[ "$(cat "$sys/sync_action")" = frozen ] && [[ $rs =~ ^[0-9]+$ ]] &&
				[ "$rs" -gt 0 ] && break
			gl_nap 0.1
		done
		note "frozen: spare recovery_start $rs, degraded $(cat "$sys/degraded")"
		# the recovery cached row 0's stripe: shrinking the cache drops it
		csz=$(cat "$sys/stripe_cache_size") &&
			echo 17 >"$sys/stripe_cache_size" && sleep 1 &&
			echo "$csz" >"$sys/stripe_cache_size" || return 1
		[[ $rs =~ ^[0-9]+$ ]] && [ "$rs" -gt 0 ]
	}
	"$chk" "$tag: spare rebuilt past 25%, the recovery frozen (recovery_start kept)" step
	step() {
		off=$(md_member md0 "${nodes[2]}" offset) || return 1
		# member 2's first block (row 0, array sectors 256..263) fails
		dm_swap r5x2 "0 $off linear ${loops[2]} 0
$off 8 error
$((off + 8)) $((sz - off - 8)) linear ${loops[2]} $((off + 8))" || return 1
		dd if=/dev/md0 bs=192k count=1 iflag=direct status=none 2>/tmp/93.err |
			cmp - /tmp/93.row || { sed 's/^/#   /' /tmp/93.err; return 1; }
	}
	"$chk" "$tag: a read error on member 2 below the spare's recovery_start: the row reads back" step
	step() {
		dm_swap r5x2 "0 $sz linear ${loops[2]} 0" &&
			echo system >"$sys/sync_speed_max" &&
			echo system >"$sys/sync_speed_min" || return 1
		# raid456 on 6.12 fails member 2 once its write-back fails
		# (degraded 2: the array is lost; raid5x keeps member 2 with a
		# bad block): noted for the reference twin, not asserted
		if [ "$pers" = raid5 ] && [ "$(cat "$sys/degraded")" -ge 2 ]; then
			note "raid456 failed member 2 after the failed write-back ($(uname -r)): degraded $(cat "$sys/degraded"), member 2 $(md_member md0 "${nodes[2]}" state)"
			return 0
		else
			echo idle >"$sys/sync_action" || return 1
			wait_rebuilt md0 && md_check_zero md0 || return 1
		fi
		dd if=/dev/md0 bs=192k count=1 iflag=direct status=none | cmp - /tmp/93.row
	}
	"$chk" "$tag: the recovery completes: check 0, the row reads back" step
	gl_fresh
}

# ---- wantrepl: a member write error asks md for a replacement ---------------
scen_wantrepl() {
	local pers=$1 tag chk loops nodes sz off sum
	read -r tag chk <<<"$(gl_pers "$pers")"
	dm_setup 5
	step() {
		create_raid5 md0 4 64 left-symmetric "${nodes[@]:0:4}" &&
			switch "$pers" && fill || return 1
		sum=$(md_md5 md0) || return 1
		mdadm --manage /dev/md0 --add "${nodes[4]}" >/dev/null || return 1
		off=$(md_member md0 "${nodes[1]}" offset) || return 1
		dd if=/dev/md0 of=/tmp/93.row bs=192k count=1 iflag=direct status=none &&
			dm_swap r5x1 "0 $off linear ${loops[1]} 0
$off 128 flakey ${loops[1]} $off 0 3600 1 error_writes
$((off + 128)) $((sz - off - 128)) linear ${loops[1]} $((off + 128))" &&
			dd if=/tmp/93.row of=/dev/md0 bs=192k oflag=direct status=none ||
			return 1
		local sl st t=$SECONDS d=$sys/dev-${nodes[4]##*/}
		while [ $((SECONDS - t)) -lt 120 ]; do
			read -r sl <"$d/slot" && read -r st <"$d/state" || return 1
			[ "$sl" = 1 ] && [ "$st" = in_sync ] && md_rebuilt "$sys" && break
			gl_nap 0.2
		done
		note "spare: slot $sl, state $st; member 1: $(md_member md0 "${nodes[1]}" state); degraded $(cat "$sys/degraded")"
		[ "$sl" = 1 ] && [ "$st" = in_sync ]
	}
	"$chk" "$tag: a write error on member 1 with a spare present: the spare replaces it" step
	step() {
		local s
		dm_swap r5x1 "0 $sz linear ${loops[1]} 0" || return 1
		[ "$(cat "$sys/degraded")" = 0 ] && md_check_zero md0 || return 1
		s=$(md_md5 md0) || return 1
		[ "$s" = "$sum" ] || { note "md5 $s, $sum written"; return 1; }
	}
	"$chk" "$tag: not degraded, check 0, the data reads back" step
	gl_fresh
}

# ---- burst: read errors past max_read_errors on a degraded array -----------
# no_raid456_twin PERS N: on 7.x raid456's recovery across an unreadable
# block never ends (md0_resync blocked, as in 86): its N assertions skipped
no_raid456_twin() {
	[ "$1" = raid5 ] && gl_kernel_from 7 || return 1
	tap_skip "$2" "raid456 twin: on 7.x raid456's recovery across an unreadable block never ends (md0_resync blocked for 120 s, seen on 7.2.12; as in 86)"
}

scen_burst() {
	local pers=$1 tag chk loops nodes sz off tbl k st
	no_raid456_twin "$pers" 2 && return
	read -r tag chk <<<"$(gl_pers "$pers")"
	dm_setup 5
	step() {
		create_raid5 md0 4 64 left-symmetric "${nodes[@]:0:4}" &&
			switch "$pers" && fill || return 1
		echo 2 >"$sys/max_read_errors" || return 1
		fail_remove "${nodes[3]}" || return 1
		off=$(md_member md0 "${nodes[1]}" offset) || return 1
		# 6 unreadable 4 KiB blocks on member 1, an eighth of its data
		# apart (the first in row 0, the others from row 6 on at the
		# smallest members: none in the rows read below)
		st=$(((sz - off) / 8 / 8 * 8))
		tbl="0 $off linear ${loops[1]} 0"
		for ((k = 0; k < 6; k++)); do
			tbl+=$'\n'"$((off + k * st)) 8 error"
			tbl+=$'\n'"$((off + k * st + 8)) $((st - 8)) linear ${loops[1]} $((off + k * st + 8))"
		done
		tbl+=$'\n'"$((off + 6 * st)) $((sz - off - 6 * st)) linear ${loops[1]} $((off + 6 * st))"
		dm_swap r5x1 "$tbl" || return 1
		mdadm --manage /dev/md0 --add "${nodes[4]}" >/dev/null &&
			wait_rebuilt md0 300
		note "after the rebuild: degraded $(cat "$sys/degraded"), member 1 $(md_member md0 "${nodes[1]}" state), bad: $(md_member md0 "${nodes[1]}" bad_blocks | wc -l) on member 1, $(md_member md0 "${nodes[4]}" bad_blocks | wc -l) on the spare"
		[ "$(cat "$sys/degraded")" = 0 ] &&
			[ "$(md_member md0 "${nodes[1]}" state)" = in_sync ]
	}
	"$chk" "$tag: degraded, 6 unreadable blocks on member 1 (max_read_errors 2): the rebuild completes, member 1 kept" step
	step() {
		# the unreadable blocks are lost, the rest reads back
		dd if=/dev/md0 of=/dev/null bs=64k skip=2 count=4 iflag=direct status=none
	}
	"$chk" "$tag: blocks away from the bad ones read back" step
	gl_fresh
}

# md_suspend_quiesces: the kernel's mddev_suspend quiesces the personality
# (before 6.7); later ones quiesce only to stop, where nothing waits
md_suspend_quiesces() {
	local v maj min
	v=$(uname -r)
	maj=${v%%.*} min=${v#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 7 ]; }
}

for pers in raid5 raid5x; do
	scen_burst "$pers"
	scen_resume "$pers"
	scen_madegood "$pers"
	if md_suspend_quiesces; then
		scen_quiesce "$pers"
	else
		tap_skip 2 "md's suspend does not quiesce the personality on $(uname -r)"
	fi
	scen_rebuilt "$pers"
	scen_wantrepl "$pers"
done
tap_done
