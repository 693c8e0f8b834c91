#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 89-replace: mdadm --replace, the safe way to swap a disk that is failing
# but still readable: the old member stays in service while its blocks are
# copied to the new one, every write goes to both, and the new one takes
# the slot when the copy is done. raid456 first (the reference), then
# raid5x, same steps: the copy runs at a capped speed while fio writes
# verifiable data; during it the array is never degraded and the new disk
# is the slot's replacement; after it the new disk is in sync in the old
# one's slot, the old one faulty; the data (written before and during the
# copy) reads back; raid456 assembles the result with parity checked.
# Before raid5x had replacements, hot_add refused the disk and dropped
# WantReplacement: "did not become the replacement" failed here.
# timeout: 900
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

pers_list=(raid456 raid5x)
tap_plan $((${#pers_list[@]} * 8))
load_md

sys=/sys/block/md0/md
msz=$(gl_scaled 24 8)


# replacing DEV: DEV is a replacement and the array is not degraded.
replacing() {
	local st
	st=$(md_member md0 "$1" state)
	if [[ $st != *replacement* ]] || [ "$(cat "$sys/degraded")" != 0 ]; then
		note "state of $1: '$st', degraded $(cat "$sys/degraded"), action $(cat "$sys/sync_action")"
		return 1
	fi
}

# wait_replaced OLD NEW: the copy is over: NEW in sync in OLD's old slot,
# OLD faulty (or gone from the array), the array idle and not degraded.
wait_replaced() {
	local i st
	for ((i = 0; i < 3000; i++)); do
		st=$(md_member md0 "$2" state)
		if md_rebuilt "$sys" && [[ $st == *in_sync* ]] &&
			[[ $st != *replacement* ]] && [ "$(md_member md0 "$2" slot)" = "$3" ] &&
			{ [ ! -e "$sys/dev-${1##*/}" ] || [[ $(md_member md0 "$1" state) == *faulty* ]]; }; then
			return 0
		fi
		gl_nap 0.1
	done
	note "new: '$(md_member md0 "$2" state)' slot $(md_member md0 "$2" slot); old: '$(md_member md0 "$1" state)'; degraded $(cat "$sys/degraded"), action $(cat "$sys/sync_action")"
	return 1
}

for pers in "${pers_list[@]}"; do
	read -r -a devs <<<"$(make_members 5 "$msz")"
	old=${devs[1]} new=${devs[4]}
	step() {
		create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}" || return 1
		[ "$pers" = raid456 ] || to_raid5x md0
	}
	tap_check "$pers: array of 4 members" step
	size=$(blockdev --getsize64 /dev/md0)
	half=$(((size / 2) >> 20 << 20))
	head -c "$half" /dev/urandom >/tmp/lower
	dd if=/tmp/lower of=/dev/md0 bs=1M oflag=direct status=none
	lower_md5=$(md5sum </tmp/lower | cut -d' ' -f1)

	# the copy (msz MiB at 500 KiB/s: 16 s or more) outlasts the writes
	echo 500 >"$sys/sync_speed_min"
	echo 500 >"$sys/sync_speed_max"
	step() {
		mdadm /dev/md0 --add "$new" >/dev/null &&
			mdadm /dev/md0 --replace "$old" --with "$new" >/dev/null || return 1
		local i
		for ((i = 0; i < 100; i++)); do
			[[ $(md_member md0 "$new" state) != *replacement* ]] || break
			gl_nap 0.1
		done
		replacing "$new"
	}
	tap_check "$pers: $new became the replacement of $old, array not degraded" step
	upper=(--name=upper --filename=/dev/md0 --direct=1 --ioengine=libaio
		--iodepth=8 --rw=randwrite --bsrange=4k-192k --offset="$half"
		--size=$((size - half)) --randrepeat=0 --randseed=89)
	tap_check "$pers: fio writes and verifies during the copy" fio_verify "${upper[@]}"
	tap_check "$pers: still copying after the writes (not degraded)" replacing "$new"
	echo 200000 >"$sys/sync_speed_max"
	echo 1000 >"$sys/sync_speed_min"
	tap_check "$pers: $new in sync in slot 1, $old faulty" wait_replaced "$old" "$new" 1
	step() {
		local got
		got=$(dd if=/dev/md0 bs=1M count=$((half >> 20)) iflag=direct status=none | md5sum | cut -d' ' -f1)
		[ "$got" = "$lower_md5" ] || { note "lower half md5 $got, written $lower_md5"; return 1; }
		fio_verify --verify_only "${upper[@]}"
	}
	tap_check "$pers: data written before and during the copy reads back" step
	step() {
		mdadm /dev/md0 --remove "$old" >/dev/null 2>&1 || true
		stop_array md0 &&
			assemble_raid456 md0 "${devs[0]}" "$new" "${devs[2]}" "${devs[3]}" &&
			[ "$(cat "$sys/degraded")" = 0 ]
	}
	tap_check "$pers: raid456 assembles the new set, not degraded" step
	tap_check "$pers: parity check after the replacement" check_parity md0
	gl_fresh
done
tap_done
