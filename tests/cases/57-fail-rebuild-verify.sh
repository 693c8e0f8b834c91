#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 57-fail-rebuild-verify: fio with verification runs without a break while a
# member of a raid5x array is failed (mdadm --fail), removed, and a spare is
# added and rebuilt by raid5x. 50-member-fault stops at the failure and
# 60-sync-check rebuilds an idle array; here I/O and recovery overlap.
# Back-to-back fio rounds each write a fresh random pattern (new seed,
# partial and full stripes, verify_backlog: blocks are re-read and checked
# while writing, and all of them again at the end of the round) over the
# upper half, and re-verify the lower half written before the failure.
# The rebuild speed is capped (sync_speed_min/max 2 MB/s) so it lasts
# several seconds and rounds run inside it. Then raid456 assembles the
# result: same bytes, fio verifies, check mismatch_cnt 0.
# timeout: 900
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 12
load_md

sys=/sys/block/md0/md
read -r -a devs <<<"$(make_members 5 "$(gl_scaled 16 8)")"   # 8 MiB on the debug kernel
spare=${devs[4]}
victim=${devs[1]}
create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}"
tap_check "takeover to raid5x" to_raid5x md0
size=$(blockdev --getsize64 /dev/md0)
half=$(((size / 2) >> 20 << 20))
rest=$(((size - half) >> 20 << 20))

common=(--filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8
	--verify=crc32c --verify_fatal=1)
lower=(--name=lower --rw=randwrite --bsrange=4k-192k --offset=0
	--size="$half" --randrepeat=1 "${common[@]}")
tap_check "fill lower half ($((half >> 20)) MiB) with verified data" fio_verify "${lower[@]}"

# round N: fresh pattern over the upper half, then re-verify the lower half
round() {
	fio_verify --name="upper$1" --rw=randwrite --bsrange=4k-192k \
		--offset="$half" --size="$rest" --randseed="$1" \
		--verify_backlog=32 "${common[@]}" &&
		fio_verify --verify_only "${lower[@]}"
}

# rounds: run until /tmp/stop exists; log "N ACTION_AT_START ACTION_AT_END
# DEGRADED_AT_START DEGRADED_AT_END" per passed round to /tmp/rounds;
# status 1 at the first failed round.
rounds() {
	local n=0 a0 d0
	while [ ! -e /tmp/stop ]; do
		n=$((n + 1))
		a0=$(cat "$sys/sync_action")
		d0=$(cat "$sys/degraded")
		if ! round "$n"; then
			echo "FAILED $n $a0" >>/tmp/rounds
			return 1
		fi
		echo "$n $a0 $(cat "$sys/sync_action") $d0 $(cat "$sys/degraded")" >>/tmp/rounds
	done
}

rm -f /tmp/stop
: >/tmp/rounds
rounds &
rpid=$!
gl_on_exit "touch /tmp/stop; wait $rpid 2>/dev/null"

# wait_rounds N: wait until N more rounds have passed (or one failed).
# (builtins only: a poll with forks costs the guest CPU the rounds need)
wait_rounds() {
	local want i r
	mapfile -t r </tmp/rounds
	want=$((${#r[@]} + $1))
	for ((i = 0; i < 1200; i++)); do
		mapfile -t r </tmp/rounds
		[[ "${r[*]}" != *FAILED* ]] || return 1
		[ "${#r[@]}" -lt "$want" ] || return 0
		kill -0 "$rpid" 2>/dev/null || return 1
		gl_nap 0.25
	done
	return 1
}

wait_rounds 1 || true
step() {
	mdadm --manage /dev/md0 --fail "$victim" >/dev/null 2>&1 &&
		[ "$(cat "$sys/degraded")" = 1 ] && [ "$(md_level md0)" = raid5x ]
}
tap_check "mdadm --fail $victim during fio: raid5x runs degraded" step
wait_rounds 1 || true
tap_check "mdadm --remove $victim during fio" \
	mdadm --manage /dev/md0 --remove "$victim"
wait_rounds 1 || true
echo 2000 >"$sys/sync_speed_min"
echo 2000 >"$sys/sync_speed_max"
t_add=$EPOCHREALTIME
tap_check "mdadm --add spare $spare during fio" mdadm --manage /dev/md0 --add "$spare"
rebuilt() {
	local t_s=$SECONDS
	sleep 1
	while :; do
		md_rebuilt "$sys" && break
		kill -0 "$rpid" 2>/dev/null || { note "fio rounds stopped early"; return 1; }
		if [ $((SECONDS - t_s)) -ge 60 ]; then # the hung-task panic comes at 120 s
			note "recovery stuck after 60 s: action $(cat "$sys/sync_action"), sync_completed $(cat "$sys/sync_completed"), stripe_cache_active $(cat "$sys/stripe_cache_active")"
			r5x_stats "$sys" | grep -v ' 0$' | tr '\n' ' ' | sed 's/^/# counters: /'
			echo
			return 1
		fi
		gl_nap 0.5
	done
	note "rebuild under fio: $(gl_since "$t_add") s for $((size / 3 >> 20)) MiB per member"
	[ "$(md_level md0)" = raid5x ] || { note "level $(md_level md0)"; return 1; }
	grep -A1 '^md0 :' /proc/mdstat | grep -q '\[4/4\] \[UUUU\]' ||
		{ note "mdstat: $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"; return 1; }
}
tap_check "raid5x rebuilt the spare while fio ran: [4/4] [UUUU]" rebuilt
wait_rounds 1 || true
touch /tmp/stop
st=0
wait "$rpid" || st=$?
sed 's/^/# round: /' /tmp/rounds
n=$(grep -cv FAILED /tmp/rounds || true)
tap_check "every fio round verified ($n rounds, status $st)" \
	test "$st" = 0 -a "$n" -ge 4
# a round overlapped the recovery if it saw it running, or began degraded
# and ended whole
during=$(awk '$2 == "recover" || $3 == "recover" || ($4 == 1 && $5 == 0)' /tmp/rounds | wc -l)
tap_check "fio rounds overlapped the recovery ($during of them)" test "$during" -ge 1
last=$(tail -n 1 /tmp/rounds | cut -d' ' -f1)
upper_last=(--name="upper$last" --rw=randwrite --bsrange=4k-192k
	--offset="$half" --size="$rest" --randseed="$last" "${common[@]}")
verify_both() {
	fio_verify --verify_only "${lower[@]}" && fio_verify --verify_only "${upper_last[@]}"
}
tap_check "after the rebuild raid5x verifies both halves" verify_both
sum=$(md_md5 md0)
stop_array md0
step() {
	assemble_raid456 md0 "${devs[0]}" "${devs[2]}" "${devs[3]}" "$spare" &&
		test "$(md_md5 md0)" = "$sum"
}
tap_check "raid456 assembles the rebuilt array: same md5" step
tap_check "raid456 fio verify_only of both halves" verify_both
tap_check "raid456 check: mismatch_cnt 0" check_parity md0
tap_done
