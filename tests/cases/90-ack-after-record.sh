#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 90-ack-after-record: an array write whose member write failed is not
# acknowledged (completed to the submitter) before md has recorded that
# failure in the metadata. Acknowledged earlier, a crash between the
# acknowledgement and the metadata update would assemble the stale member
# as in sync, and the acknowledged write would be lost (its block on that
# member is old; a resync would even recompute parity from it). raid456
# holds such writes (handle_stripe: MD_SB_CHANGE_PENDING; a member with
# an unacknowledged bad block in the stripe is its blocked_rdev).
#
# How, deterministically: the arrays have EXTERNAL metadata, built through
# md's sysfs as mdadm does for mdmon-managed arrays (new_array,
# metadata_version external:..., level, chunk_size, layout, raid_disks,
# new_dev/slot/offset/size per member, resync_start none, array_state
# active), so md writes no metadata itself: what it must record stays
# pending until userspace, playing mdmon here, acknowledges it. Members
# are dm-linear over loop devices; member 1's table is swapped to `error`.
# Chunks are 4 KiB, so one 12 KiB O_DIRECT write at offset 0 is one full
# stripe (raid456 and raid5x keep 4 KiB stripes): no pre-reads, and all
# its member writes are in flight before member 1's fails. (With 64 KiB
# chunks a 192 KiB write is 16 stripes; those planned after the failure
# wait as degraded writes, so even the old raid5x held that bio back.)
# Two ways md records a failed member write, each on a fresh array:
#   fail: no bad-block log (external metadata has none by default): md
#     fails member 1 (faulty, blocked; array write-pending). The write must
#     still be pending 3 s later, and complete once mdmon acknowledges
#     (writes `active` to md/array_state, `-blocked` to the member).
#   bbl: member 1 has an external bad-block log (state external_bbl, as
#     mdmon sets for metadata that keeps one): md logs the block as an
#     unacknowledged bad block, member 1 stays in sync but `blocked`. The
#     write must be pending while the array is write-pending, still after
#     `active` alone (the bad block is not in the metadata yet: raid456
#     waits for the acknowledgement, md.rst: writes to a blocked member
#     are blocked), and complete once the block is acknowledged (written
#     to md/dev-*/bad_blocks, what mdmon's process_ubb does).
# Each then reads back (member 1's block rebuilt from parity; on raid5x
# since 2ff5cd3 every direct read member 1 fails is read from it again
# even where the cache holds the block, so the raid5x bbl array's
# member 1, all of whose I/O fails, is failed after max_read_errors:
# the teardown then acknowledges no bad block of a failed member, which
# 6.12 and 7.x refuse with EINVAL). The first
# write to an array needs the same handshake (clean -> dirty). Run on
# raid456 first (the reference twin), then on raid5x (takeover).
#
# Seen on Debian's kernel: with the module before the fix (8b919e2)
# "raid5x fail: the array write is not acknowledged before the failure is
# recorded" failed: the dd returned (status 0) 0.1 s after it started,
# member 1 `faulty,blocked`, the array `write-pending`; that module failed
# the member on any write error (no bad-block logging), so the raid5x bbl
# assertions failed too (5 not ok). A first fix that waited only for
# Blocked and MD_SB_CHANGE_PENDING failed "raid5x bbl: nor after `active`
# alone" (acknowledged 0.2 s after `active`, the bad block still
# unacknowledged); raid5x now also waits for unacknowledged bad blocks in
# the stripe, as raid456 does: 22 passed.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: use /dev/dm-N (devtmpfs)
tap_plan 22
load_md
modprobe dm-mod 2>/dev/null || true

msz=8                                  # MiB per member
sz=$((msz * 2048))                     # member size, sectors
doff=2048                              # member data offset, sectors
compk=$(((sz - doff) / 2 / 64 * 64))   # component size, KiB
chunk=4096
wlen=$((3 * chunk))                    # one full stripe (row 0)
fill=$((1 << 20))                      # written (and checked) before the fault
RC=/tmp/90-write.rc                    # the held write's "status seconds", once done

read -r -a loops <<<"$(make_members 16 "$msz")"
for i in "${!loops[@]}"; do
	dmsetup create "r5xa$i" --table "0 $sz linear ${loops[$i]} 0"
done

# dm_majmin NAME: MAJOR:MINOR of dm device NAME.
dm_majmin() { dmsetup info -c --noheadings -o major,minor --separator : "$1" | tr -d ' '; }

# show MD: one diagnostic line with the array's and its members' states.
show() {
	local sd=/sys/block/$1/md d line
	line="array_state $(cat "$sd/array_state"), degraded $(cat "$sd/degraded"), level $(cat "$sd/level");"
	for d in "$sd"/dev-*; do
		[ -e "$d/state" ] || continue
		line+=" ${d##*/} $(cat "$d/state") (slot $(cat "$d/slot")"
		[ -z "$(cat "$d/unacknowledged_bad_blocks")" ] ||
			line+=", unacknowledged bad: $(tr '\n' ' ' <"$d/unacknowledged_bad_blocks")"
		[ -z "$(cat "$d/bad_blocks")" ] || line+=", bad: $(tr '\n' ' ' <"$d/bad_blocks")"
		line+=")"
	done
	note "$line"
}

# has WORD STATE: the comma-separated STATE has WORD.
has() { [[ ,$2, == *,$1,* ]]; }

# ack_bb MD: mdmon's process_ubb: record every unacknowledged bad block of
# an external_bbl member (nothing to record here) and acknowledge it by
# writing it to bad_blocks.
ack_bb() {
	local sd=/sys/block/$1/md d st a b
	for d in "$sd"/dev-*; do
		[ -e "$d/state" ] || continue
		read -r st <"$d/state"
		has external_bbl "$st" || continue
		# a failed member's blocks are not md's to record any more
		# (6.12 and 7.x refuse them: EINVAL)
		has faulty "$st" && continue
		while read -r a b; do
			note "mdmon: '$a $b' > ${d##*/}/bad_blocks"
			echo "$a $b" 2>/dev/null >"$d/bad_blocks" ||
				note "mdmon: ${d##*/} refused '$a $b'"
		done <"$d/unacknowledged_bad_blocks"
	done
	return 0
}

# mdmon_ack MD: what mdmon does (monitor.c read_and_act): acknowledge bad
# blocks; once its metadata is written, `active` for a write-pending
# array and `-blocked` for every faulty blocked member.
mdmon_ack() {
	local sd=/sys/block/$1/md d st
	[ -e "$sd/array_state" ] || return 0
	ack_bb "$1"
	read -r st <"$sd/array_state"
	if [ "$st" = write-pending ]; then
		note "mdmon: active > array_state"
		echo active >"$sd/array_state"
	fi
	for d in "$sd"/dev-*; do
		[ -e "$d/state" ] || continue
		read -r st <"$d/state"
		if has faulty "$st" && has blocked "$st"; then
			note "mdmon: -blocked > ${d##*/}/state (was $st)"
			echo -blocked >"$d/state"
		fi
	done
	return 0
}

# pending MD: the array is write-pending or a member blocked.
pending() {
	local sd=/sys/block/$1/md d st
	read -r st <"$sd/array_state"
	[ "$st" != write-pending ] || return 0
	for d in "$sd"/dev-*; do
		[ -e "$d/state" ] || continue
		read -r st <"$d/state"
		! has blocked "$st" || return 0
	done
	return 1
}

# running PID: the background job PID has not ended (a zombie has).
running() {
	local stat
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# acked MD CMD...: run CMD in the background, playing mdmon until it ends
# (30 s at most); its status.
acked() {
	local md=$1 pid rc=0 i
	shift
	"$@" &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		running "$pid" || break
		mdmon_ack "$md"
		gl_nap 0.1
	done
	wait "$pid" || rc=$?
	[ "$i" -lt 300 ] || note "acked: '$*' still running after 30 s"
	return "$rc"
}

# build MD FIRST MODE: a 4-member raid5 (4 KiB chunks, left-symmetric)
# with external metadata over r5xaFIRST..r5xaFIRST+3, started through
# sysfs; MODE bbl: member 1 keeps an external bad-block log.
build() {
	local md=$1 first=$2 mode=$3 sd i d
	sd=/sys/block/$md/md
	echo "$md" >/sys/module/md_mod/parameters/new_array || return 1
	echo external:r5xtest >"$sd/metadata_version" &&
		echo raid5 >"$sd/level" &&
		echo "$chunk" >"$sd/chunk_size" &&
		echo 2 >"$sd/layout" &&
		echo 4 >"$sd/raid_disks" &&
		echo "$compk" >"$sd/component_size" || return 1
	for i in 0 1 2 3; do
		dm_majmin "r5xa$((first + i))" >"$sd/new_dev" || return 1
		d=$(dm_node "r5xa$((first + i))")
		d=$sd/dev-${d##*/}
		echo "$i" >"$d/slot" && echo "$doff" >"$d/offset" &&
			echo "$compk" >"$d/size" || return 1
		if [ "$mode" = bbl ] && [ "$i" = 1 ]; then
			echo external_bbl >"$d/state" || return 1
		fi
	done
	echo none >"$sd/resync_start" &&
		echo 3600 >"$sd/safe_mode_delay" &&
		echo active >"$sd/array_state" || return 1
	show "$md"
	[ "$(cat "$sd/degraded")" = 0 ] &&
		[ "$(cat "$sd/metadata_version")" = external:r5xtest ]
}

# m1_state MD: member 1's md/dev-*/state.
m1_state() { cat "/sys/block/$1/md/dev-${m1##*/}/state"; }

# fault_seen MD MODE: md has seen member 1's write error and waits for
# userspace: the array write-pending and member 1 blocked; fail: member 1
# faulty, degraded 1; bbl: member 1 in sync with an unacknowledged bad
# block, degraded 0.
fault_seen() {
	local sd=/sys/block/$1/md st
	st=$(m1_state "$1")
	[ "$(cat "$sd/array_state")" = write-pending ] && has blocked "$st" || return 1
	if [ "$2" = fail ]; then
		has faulty "$st" && [ "$(cat "$sd/degraded")" = 1 ]
	else
		has in_sync "$st" && [ "$(cat "$sd/degraded")" = 0 ] &&
			[ -n "$(cat "$sd/dev-${m1##*/}/unacknowledged_bad_blocks")" ]
	fi
}

# still_pending WHAT: the held write has not returned (WHAT: diagnostics).
still_pending() {
	show "$md"
	if [ -e "$RC" ]; then
		note "the write returned (status, seconds after it started): $(cat "$RC") - $1"
		return 1
	fi
	note "the write is still pending $(gl_since "$wt0") s after it started"
}

# run PERS MD FIRST MODE: the assertions for one array (fail 5, bbl 6).
run() {
	local pers=$1 md=$2 first=$3 mode=$4 chk=tap_check i wt0 tag
	tag="$pers $mode"
	[ "$pers" = raid456 ] || chk=r5x_check
	m1=$(dm_node "r5xa$((first + 1))")
	sd=/sys/block/$md/md

	step() {
		build "$md" "$first" "$mode" || return 1
		[ "$pers" = raid456 ] || to_raid5x "$md" || return 1
		head -c "$fill" /dev/urandom >/tmp/want
		acked "$md" dd if=/tmp/want of="/dev/$md" bs=64k oflag=direct status=none &&
			dd if="/dev/$md" bs=64k count=$((fill >> 16)) iflag=direct status=none |
			cmp - /tmp/want
	}
	$chk "$tag: external-metadata array over 4 dm members runs; writes (after the clean->dirty handshake) and reads work" step

	# member 1 fails everything; one full-stripe write in the background
	step() {
		head -c "$wlen" /dev/urandom >/tmp/pat
		dd if=/tmp/pat of=/tmp/want conv=notrunc status=none
		dm_swap "r5xa$((first + 1))" "0 $sz error" || return 1
		rm -f "$RC"
		wt0=$EPOCHREALTIME
		(
			rc=0
			dd if=/tmp/pat of="/dev/$md" bs="$wlen" count=1 oflag=direct status=none || rc=$?
			echo "$rc $(gl_since "$wt0")" >"$RC"
		) &
		for ((i = 0; i < 100; i++)); do
			fault_seen "$md" "$mode" && break
			gl_nap 0.1
		done
		show "$md"
		fault_seen "$md" "$mode"
	}
	if [ "$mode" = fail ]; then
		$chk "$tag: member 1's write fails: it is faulty and blocked, degraded 1, array write-pending" step
	else
		$chk "$tag: member 1's write fails: unacknowledged bad block, member in sync but blocked, array write-pending" step
	fi

	step() {
		gl_nap 3
		still_pending "member 1 $(m1_state "$md"), array $(cat "$sd/array_state")"
	}
	if [ "$mode" = fail ]; then
		$chk "$tag: the array write is not acknowledged before the failure is recorded" step
	else
		$chk "$tag: the array write is not acknowledged while the array is write-pending" step
		step() {
			echo active >"$sd/array_state" || return 1
			note "active > array_state (the bad block left unacknowledged)"
			gl_nap 2
			still_pending "member 1 $(m1_state "$md"), bad block unacknowledged: $(cat "$sd/dev-${m1##*/}/unacknowledged_bad_blocks")"
		}
		$chk "$tag: nor after \`active\` alone, the bad block still unacknowledged" step
	fi

	step() {
		local rc tf st
		for ((i = 0; i < 100; i++)); do
			mdmon_ack "$md"
			[ -e "$RC" ] && ! pending "$md" && break
			gl_nap 0.1
		done
		wait # the dd subshell
		show "$md"
		[ -e "$RC" ] || { note "the write still pending 10 s after the acknowledgement"; return 1; }
		read -r rc tf <"$RC"
		note "the write returned $rc, $tf s after it started"
		st=$(m1_state "$md")
		[ "$rc" = 0 ] && ! has blocked "$st" || return 1
		if [ "$mode" = fail ]; then
			[ "$(cat "$sd/degraded")" = 1 ]
		else
			has in_sync "$st" && [ "$(cat "$sd/degraded")" = 0 ] &&
				[ -n "$(cat "$sd/dev-${m1##*/}/bad_blocks")" ]
		fi
	}
	if [ "$mode" = fail ]; then
		$chk "$tag: acknowledged like mdmon (active, -blocked): the write completes, successfully" step
	else
		$chk "$tag: bad block acknowledged like mdmon (bad_blocks): the write completes, successfully; member 1 stays" step
	fi

	step() {
		dd if="/dev/$md" bs=64k count=$((fill >> 16)) iflag=direct status=none |
			cmp - /tmp/want
	}
	$chk "$tag: read-back (member 1's block from parity): the written stripe and the rest are intact" step

	# stop the array (nothing may be pending: acknowledge what is left)
	mdmon_ack "$md" >/dev/null
	wait
	echo clear >"$sd/array_state" 2>/dev/null || stop_array "$md" || true
}

# if a step failed while a write was held, let it go before the teardown
release_all() {
	local md
	for md in md0 md1 md2 md3; do
		mdmon_ack "$md" >/dev/null
	done
	wait
}
gl_on_exit release_all

run raid456 md0 0 fail
run raid456 md1 4 bbl
run raid5x md2 8 fail
run raid5x md3 12 bbl
tap_done
