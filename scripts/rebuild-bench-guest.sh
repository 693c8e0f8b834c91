#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# rebuild-bench-guest.sh: the guest half of scripts/rebuild-bench.sh.
#
# usage: rebuild-bench-guest.sh REPS SIZE_MB CHUNK_KB SPEED_MIN SPEED_MAX PERS...
# For each repetition, each personality in turn (the order rotates per
# repetition): 5 fresh members of SIZE_MB on tmpfs, a clean 4-member array
# (stock mdadm, --assume-clean; raid5x by takeover), written full with
# O_DIRECT (fio, random buffers), md5 of the array; member 1 failed and
# removed, member 4 added as a spare; the recovery is timed from the add to
# sync_action idle (polled every 0.1 s), under speed_limit_min/max SPEED_MIN
# /SPEED_MAX KB/s (/proc/sys/dev/raid). Then [4/4], `check` under the same
# personality gives mismatch_cnt 0 and the array hashes the same.
# Before the failure, a `check` and a `repair` of the clean array are timed
# the same way (each must find mismatch_cnt 0).
# One line per run: "@@RB pers=P rep=R secs=S check_secs=C repair_secs=R
# member_mib=M check=C data=D" (secs: the recovery).
# shellcheck source=../tests/lib/guest-lib.sh
. /lib/guest-lib.sh
reps=${1:?reps} size=${2:?size} chunk=${3:?chunk} smin=${4:?} smax=${5:?}
shift 5
[ $# -ge 1 ] || { echo "no personality" >&2; exit 64; }
load_md
echo "$smin" >/proc/sys/dev/raid/speed_limit_min
echo "$smax" >/proc/sys/dev/raid/speed_limit_max
note "speed_limit_min $(cat /proc/sys/dev/raid/speed_limit_min) speed_limit_max $(cat /proc/sys/dev/raid/speed_limit_max) KB/s"
sys=/sys/block/md0/md
failed=0

# timed_action ACTION: run check or repair on md0, print its seconds from the
# request to sync_action idle; fails unless it found mismatch_cnt 0.
timed_action() {
	local t0 i=0
	t0=$EPOCHREALTIME
	echo "$1" >"$sys/sync_action" || return 1
	while [ "$(cat "$sys/sync_action")" = idle ] && [ "$i" -lt 20 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	while [ "$(cat "$sys/sync_action")" != idle ]; do sleep 0.1; done
	gl_since "$t0"
	[ "$(cat "$sys/mismatch_cnt")" = 0 ] ||
		{ note "$1: mismatch_cnt $(cat "$sys/mismatch_cnt")"; return 1; }
}

one_run() { # PERS REP
	local pers=$1 rep=$2 devs sha0 sha1 t0 secs csecs rsecs mm="?" data=bad i=0 dev_off mib
	read -r -a devs <<<"$(make_members 5 "$size")" || return 1
	create_raid5 md0 4 "$chunk" left-symmetric "${devs[@]:0:4}" || return 1
	if [ "$pers" = raid5x ]; then
		to_raid5x md0 || return 1
	fi
	fio --eta=never --name=fill --filename=/dev/md0 --rw=write --bs=1M \
		--direct=1 --ioengine=libaio --iodepth=4 --size=100% \
		--output=/dev/null || return 1
	sha0=$(md_md5 md0)
	csecs=$(timed_action check) || return 1
	rsecs=$(timed_action repair) || return 1
	mdadm /dev/md0 --fail "${devs[1]}" >/dev/null 2>&1 || return 1
	mdadm /dev/md0 --remove "${devs[1]}" >/dev/null 2>&1 || return 1
	sync
	t0=$EPOCHREALTIME
	mdadm /dev/md0 --add "${devs[4]}" >/dev/null 2>&1 || return 1
	# wait for the recovery to start, then for its end
	while [ "$(cat "$sys/sync_action")" = idle ] && ! grep -q '\[4/4\]' /proc/mdstat; do
		sleep 0.1
		i=$((i + 1))
		[ "$i" -lt 100 ] || { note "$pers: no recovery started"; return 1; }
	done
	while [ "$(cat "$sys/sync_action")" != idle ]; do sleep 0.1; done
	secs=$(gl_since "$t0")
	grep -q '\[4/4\] \[UUUU\]' /proc/mdstat || { note "$pers: not [4/4] after the recovery: $(md_mdstat_line md0)"; return 1; }
	[ "$(md_level md0)" = "$([ "$pers" = raid5x ] && echo raid5x || echo raid5)" ] ||
		{ note "$pers: level is $(md_level md0)"; return 1; }
	dev_off=$(cat "$sys/dev-${devs[4]##*/}/offset")
	mib=$(awk -v s="$size" -v o="$dev_off" 'BEGIN { printf "%.1f", s - o / 2048 }')
	echo check >"$sys/sync_action" && sleep 0.5 && wait_idle md0 600 &&
		mm=$(cat "$sys/mismatch_cnt")
	sha1=$(md_md5 md0)
	[ -n "$sha0" ] && [ "$sha1" = "$sha0" ] && data=ok
	echo "@@RB pers=$pers rep=$rep secs=$secs check_secs=$csecs repair_secs=$rsecs member_mib=$mib check=$mm data=$data"
	stop_array md0
	for i in "${devs[@]}"; do losetup -d "$i"; done
	rm -rf "$GL_MEMBER_DIR"
	[ "$mm" = 0 ] && [ "$data" = ok ]
}

pers=("$@")
for ((r = 1; r <= reps; r++)); do
	n=${#pers[@]}
	for ((k = 0; k < n; k++)); do
		p=${pers[$(((k + r - 1) % n))]}
		if [ "$p" = raid5x ] && ! raid5x_available; then
			echo "@@RB pers=raid5x rep=$r secs=- member_mib=- check=- data=no-module"
			failed=1
			continue
		fi
		one_run "$p" "$r" || { note "run $p rep $r failed"; failed=1; stop_array md0 2>/dev/null; losetup -D; rm -rf "$GL_MEMBER_DIR"; }
	done
done
exit "$failed"
