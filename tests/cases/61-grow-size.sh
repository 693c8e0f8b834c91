#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 61-grow-size: `mdadm --grow --size=max` after every member grew, on raid456
# and on raid5x in the same boot, with and without an internal bitmap. The
# members are dm-linear devices over larger loop devices, grown by a table
# reload. Each array: filled, grown, the new rows resynced, the old data
# still there, the whole new size written and verified, parity consistent
# (md's check under the personality itself, and raid456's on raid5x's
# array); then `--grow --raid-devices` on raid5x is refused with the
# kernel message that names the way round, and nothing changes.
# Fails on a module without .resize (mdadm: "Cannot set device size ...
# Invalid argument") and on one whose resize skips the new rows' resync.
# The passes that sample (GL_SAMPLE) leave out raid5x without a bitmap.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1
runs=("raid5 internal" "raid5x internal" "raid5x none")
# sampled passes (debug kernel, 6.12, 7.x): the bitmap twins; the bitmap's
# resize is the part that differs between kernels (compat.h)
gl_sample runs 0 1
n5x=0
for r in "${runs[@]}"; do [[ $r == raid5x* ]] && n5x=$((n5x + 1)); done
tap_plan $((5 * ${#runs[@]} + 3 * n5x))	# 5 per array, 3 more per raid5x array
load_md
modprobe dm-mod 2>/dev/null || true

small=$(gl_scaled 16 8)	# MiB per member before the grow
big=$((small * 3))
read -r -a loops <<<"$(make_members 5 "$big")"
sys=/sys/block/md0/md
refusal='raid5x:md0: cannot reshape.*assemble it on raid456'
secs() { echo $(($1 * 2048)); }
dm_grow() { # N MiB: every member's dm table N MiB long
	local i
	for ((i = 0; i < 4; i++)); do
		dm_swap "g$i" "0 $(secs "$1") linear ${loops[i]} 0" || return 1
	done
}
cleanup() {
	[ -e /dev/md0 ] && mdadm --stop /dev/md0 >/dev/null 2>&1
	dmsetup remove_all >/dev/null 2>&1
	return 0
}
gl_on_exit cleanup

for r in "${runs[@]}"; do
	read -r pers bm <<<"$r"
	read -r tag chk <<<"$(gl_pers "$pers")"
	tag+=" (bitmap $bm)"
	devs=()
	for ((i = 0; i < 4; i++)); do
		dd if=/dev/zero of="${loops[i]}" bs=1M count=1 status=none
		dmsetup create "g$i" --table "0 $(secs "$small") linear ${loops[i]} 0" || break
		devs+=("$(dm_node "g$i")")
	done
	mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 \
		--chunk=64 --raid-devices=4 --bitmap="$bm" "${devs[@]}" &&
		wait_idle md0 300 >/dev/null
	[ "$pers" = raid5 ] || to_raid5x md0
	old=$(blockdev --getsz /dev/md0)
	fio_verify --name=old --filename=/dev/md0 --rw=write --bs=64k --direct=1 \
		--ioengine=libaio --iodepth=8 --size=100% --randseed=61 >/dev/null
	sum=$(head -c $((old * 512)) /dev/md0 | md5sum)
	# a check now, so that last_sync_action says resync below only if
	# the grow started one
	md_check_zero md0 || note "the check before the grow failed"

	step() {
		dm_grow "$big" || return 1
		mdadm --grow /dev/md0 --size=max || return 1
		local n
		n=$(blockdev --getsz /dev/md0)
		note "array $old -> $n sectors"
		[ "$n" -gt $((old * 2)) ]
	}
	$chk "$tag: mdadm --grow --size=max after the members grew" step
	step() {
		local a
		gl_nap 0.5
		wait_idle md0 300 || return 1
		a=$(cat "$sys/last_sync_action" 2>/dev/null)
		note "last sync action: $a, resync_start $(cat "$sys/resync_start")"
		[ "$a" = resync ] && [ "$(cat "$sys/resync_start")" = none ]
	}
	$chk "$tag: the new rows resynced" step
	$chk "$tag: the old data unchanged" test "$(head -c $((old * 512)) /dev/md0 | md5sum)" = "$sum"
	$chk "$tag: the whole grown array written and verified" fio_verify --name=all \
		--filename=/dev/md0 --rw=write --bs=256k --direct=1 --ioengine=libaio \
		--iodepth=16 --size=100% --randseed=62
	$chk "$tag: md's check under $pers: mismatch_cnt 0" md_check_zero md0
	if [ "$pers" = raid5x ]; then
		step() {
			local n0
			n0=$(dmesg | grep -c "$refusal")
			# a spare for the fifth member (mdadm asks for one first)
			dd if=/dev/zero of="${loops[4]}" bs=1M count=1 status=none
			dmsetup create g4 --table "0 $(secs "$big") linear ${loops[4]} 0" &&
				mdadm /dev/md0 --add "$(dm_node g4)" >/dev/null || return 1
			if mdadm --grow /dev/md0 --raid-devices=5 2>/tmp/grow.err; then
				note "mdadm --grow --raid-devices=5 succeeded"
				return 1
			fi
			note "mdadm: $(head -n 2 /tmp/grow.err | tr '\n' ' ')"
			[ "$(cat "$sys/raid_disks")" = 4 ] && [ "$(md_level md0)" = raid5x ] &&
				[ "$(dmesg | grep -c "$refusal")" -gt "$n0" ] &&
				[ "$(cat "$sys/dev-$(basename "$(dm_node g4)")/state")" = spare ] &&
				mdadm /dev/md0 --remove "$(dm_node g4)" >/dev/null
		}
		$chk "$tag: --grow --raid-devices refused with the way round, the array as it was" step
		sum2=$(md5sum </dev/md0)
		stop_array md0
		assemble_raid456 md0 "${devs[@]}"
		$chk "$tag: raid456 reads raid5x's grown array alike" test "$(md5sum </dev/md0)" = "$sum2"
		$chk "$tag: raid456's check of raid5x's grown array: mismatch_cnt 0" check_parity md0
	fi
	stop_array md0
	dmsetup remove_all
done
tap_done
