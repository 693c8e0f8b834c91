#!/usr/bin/env bash
# 30-crash (host side): members that outlive a crash. For each variant
# (raid5x without a bitmap, raid5x with an internal bitmap; optionally
# raid456 without a bitmap as the reference) two guests boot on the same four 64 MiB raw
# images (scripts/guest.sh --disk, build/crash/VARIANT/):
#   boot 1 (--expect-crash): create the array, switch to raid5x, 4 writers of
#     O_DIRECT|O_SYNC writes with verifiable contents, every acknowledged
#     write printed to the console ("ACK W I"), sysrq reset after CRASH_AFTER
#     of them (tests/crash/crash-guest.sh write);
#   boot 2: assemble (dirty), resync under the personality, check gives
#     mismatch_cnt 0, every acknowledged write reads back, raid456 sees the
#     same bytes with mismatch_cnt 0 (crash-guest.sh verify).
# Then: the resync with a bitmap read less than a quarter of what the resync
# without one read (member read sectors during the resync).
# The guest's assertions are relayed here, numbered, prefixed by the variant.
# Environment: CRASH_VARIANTS (default "raid5x:none raid5x:internal"; add
# raid456:none for the reference run), CRASH_AFTER (default 80), CRASH_KO
# (default ./md-raid5x.ko).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 1
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ $# -lt 2 ] || echo "# $2"; }

variants=${CRASH_VARIANTS:-raid5x:none raid5x:internal}
crash_after=${CRASH_AFTER:-80}
ko=${CRASH_KO:-$top/md-raid5x.ko}
guest=tests/crash/crash-guest.sh
plan_write=4 plan_verify=9   # the guest script's plans
read -r -a vlist <<<"$variants"
nbitmap=0
for v in "${vlist[@]}"; do [ "${v#*:}" = internal ] && nbitmap=1; done
# per variant: boot 1 crashed, its assertions, ACK sequence, boot 2 clean,
# its assertions; then the bitmap comparison
plan=$(( ${#vlist[@]} * (3 + plan_write + plan_verify) + nbitmap ))
echo "KTAP version 1"
echo "1..$plan"

# relay LOG PREFIX PLAN: re-emit the guest's KTAP lines (between the boot
# banner and the verdict or crash); missing ones count as failed
relay() {
	local log=$1 prefix=$2 want=$3 got=0 line gplan
	gplan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" 2>/dev/null | head -n 1)
	[ "$gplan" = "$want" ] || echo "# $prefix: guest plan '$gplan', expected $want"
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*) [ "$got" -lt "$want" ] && ok "$prefix: ${line#ok * - }"; got=$((got + 1)) ;;
		"not ok "[0-9]*) [ "$got" -lt "$want" ] && not_ok "$prefix: ${line#not ok * - }"; got=$((got + 1)) ;;
		"# "*) echo "$line" ;;
		esac
	done < <(sed -n '/^GUEST-INIT: kernel/,/^GUEST-VERDICT: /p' "$log" 2>/dev/null |
		grep -E '^(ok [0-9]+ |not ok [0-9]+ |# )' | grep -v '^# took ')
	while [ "$got" -lt "$want" ]; do
		got=$((got + 1))
		not_ok "$prefix: guest assertion $got did not run"
	done
}

# acks LOG: "a0,a1,a2,a3", the last acknowledged write of each writer; fails
# unless each writer's ACK lines are 1, 2, ... without a gap
acks() {
	local log=$1 w seq last out=()
	for w in 0 1 2 3; do
		seq=$(grep -oE "ACK $w [0-9]+\$" "$log" | awk '{print $3}')
		last=$(tail -n 1 <<<"$seq")
		last=${last:-0}
		if [ "$seq" != "$( [ "$last" = 0 ] || seq 1 "$last")" ]; then
			echo "# writer $w: ACK lines are not 1..$last in order" >&2
			return 1
		fi
		out+=("$last")
	done
	local IFS=,
	echo "${out[*]}"
}

declare -A resync_read
if [ ! -f "$ko" ]; then
	echo "# no module $ko (run make): the raid5x variants fail"
fi
t00=$SECONDS
for v in "${vlist[@]}"; do
	pers=${v%%:*} bitmap=${v#*:}
	name=$pers-$bitmap
	dir=${BUILD:-$top/build}/crash/$name
	rm -rf "$dir" && mkdir -p "$dir" || exit 1
	disks=()
	for i in 0 1 2 3; do
		truncate -s 64M "$dir/m$i.img"
		disks+=(--disk "$dir/m$i.img")
	done
	kargs=()
	if [ -f "$ko" ]; then
		cp "$ko" "$dir/md-raid5x.ko"
		kargs=(--ko "$dir/md-raid5x.ko")
	fi
	t0=$SECONDS
	st=0
	scripts/guest.sh --quiet --expect-crash "${kargs[@]}" "${disks[@]}" \
		--timeout 400 --log "$dir/boot1.log" \
		"$guest" write "$pers" "$bitmap" "$crash_after" >"$dir/boot1.harness" 2>&1 || st=$?
	if [ "$st" = 0 ]; then
		ok "$name boot 1: killed mid-write as announced ($((SECONDS - t0)) s)"
		grep -o 'GUEST-CRASH:.*' "$dir/boot1.log" | head -n 1 | sed 's/^/# /'
	else
		not_ok "$name boot 1: killed mid-write as announced" "guest.sh status $st: $(grep '^guest.sh' "$dir/boot1.harness" | head -n 3 | tr '\n' ' ')"
	fi
	relay "$dir/boot1.log" "$name boot 1" "$plan_write"
	if a=$(acks "$dir/boot1.log"); then
		ok "$name boot 1: every writer's ACK lines are complete ($a)"
	else
		not_ok "$name boot 1: every writer's ACK lines are complete"
		a=${a:-0,0,0,0}
	fi
	t0=$SECONDS
	st=0
	scripts/guest.sh --quiet "${kargs[@]}" "${disks[@]}" --timeout 400 \
		--log "$dir/boot2.log" "$guest" verify "$pers" "$bitmap" \
		"$crash_after" "$a" >"$dir/boot2.harness" 2>&1 || st=$?
	if [ "$st" = 0 ]; then
		ok "$name boot 2: clean guest run ($((SECONDS - t0)) s)"
	else
		not_ok "$name boot 2: clean guest run" "guest.sh status $st: $(grep '^guest.sh' "$dir/boot2.harness" | head -n 3 | tr '\n' ' ')"
	fi
	relay "$dir/boot2.log" "$name boot 2" "$plan_verify"
	fig=$(grep -o 'crash-figure .*' "$dir/boot2.log" | head -n 1)
	rs=$(sed -n 's/.*resync_read_sectors=\([0-9]*\).*/\1/p' <<<"$fig")
	[ -z "$rs" ] || resync_read[$name]=$rs
done
if [ "$nbitmap" = 1 ]; then
	full=${resync_read[raid5x-none]:-}
	bm=${resync_read[raid5x-internal]:-}
	if [ -n "$full" ] && [ -n "$bm" ] && [ "$full" -gt 0 ] && [ $((bm * 4)) -lt "$full" ]; then
		ok "bitmap resync reads < 1/4 of a full resync: $((bm / 2048)) MiB vs $((full / 2048)) MiB of members"
	else
		not_ok "bitmap resync reads < 1/4 of a full resync" "member reads during resync: bitmap '${bm:-?}' sectors, no bitmap '${full:-?}' sectors"
	fi
fi
echo "# crash test: $((SECONDS - t00)) s"
echo "# $n assertions, $failed failed"
[ "$failed" = 0 ]
