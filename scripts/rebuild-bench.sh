#!/usr/bin/env bash
# rebuild-bench.sh: check, repair and rebuild time of a 4-member array,
# raid5x vs raid456 side by side, in one QEMU guest (issues 5 and 16).
#
# usage: scripts/rebuild-bench.sh [options]
#   --reps N        repetitions, personalities interleaved (3)
#   --size MB       member size (256); members are files on the guest's tmpfs
#   --chunk KB      chunk size (512)
#   --speed-min KB  /proc/sys/dev/raid/speed_limit_min (1000, md's default)
#   --speed-max KB  /proc/sys/dev/raid/speed_limit_max (2000000: high enough
#                   that the personality, not md's throttle, is the limit)
#   --ko FILE       module (default ./md-raid5x.ko after `make`)
#   --mem MB        guest memory (3072)
#   --log FILE      console log (build/logs/rebuild-bench.log)
# Each run: clean array, written full (fio O_DIRECT), member 1 failed and
# removed, a spare added; the recovery is timed from the add to
# sync_action idle; then `check` under the same personality must give
# mismatch_cnt 0 and the array must hash as before. Prints one line per run
# and a Markdown table: median seconds and MiB/s (member data rebuilt per
# second). Exit 1 if any run failed its checks, 2 if the guest failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# usage [0]: the header comment; with 0 (--help) on stdout and status 0,
# else on stderr and status 64 (a usage error)
usage() {
	if [ "${1:-64}" = 0 ]; then
		sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
		exit 0
	fi
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 64
}
reps=3 size=256 chunk=512 smin=1000 smax=2000000 ko="" mem=3072
logf=${BUILD:-$top/build}/logs/rebuild-bench.log
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	--chunk) chunk=${2:?}; shift 2 ;;
	--speed-min) smin=${2:?}; shift 2 ;;
	--speed-max) smax=${2:?}; shift 2 ;;
	--ko) ko=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--log) logf=${2:?}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "rebuild-bench.sh: unknown argument $1" >&2; usage ;;
	esac
done
for v in "$reps" "$size" "$chunk" "$smin" "$smax" "$mem"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "rebuild-bench.sh: '$v' is not a positive number" >&2; exit 64; }
done
# the members live on the guest's /tmp, a tmpfs of half its memory
[ $((size * 5 + 64)) -lt $((mem / 2)) ] ||
	{ echo "rebuild-bench.sh: 5 members of $size MiB do not fit in the guest's tmpfs (half of --mem $mem)" >&2; exit 64; }
cd "$top"
if [ -z "$ko" ]; then
	make >/dev/null || { echo "rebuild-bench.sh: make failed" >&2; exit 64; }
	ko=$top/md-raid5x.ko
fi
[ -f "$ko" ] || { echo "rebuild-bench.sh: no module $ko" >&2; exit 64; }
mkdir -p "$(dirname "$logf")"
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
cp "$ko" "$snap/md-raid5x.ko"   # a rebuild of the tree cannot change it mid-run
st=0
GUEST_QUIET=1 scripts/guest.sh --ko "$snap/md-raid5x.ko" --mem "$mem" \
	--timeout $((reps * 2 * 360 + 120)) --log "$logf" \
	scripts/rebuild-bench-guest.sh "$reps" "$size" "$chunk" "$smin" "$smax" \
	raid456 raid5x || st=$?
grep '^@@RB ' "$logf" | awk '!seen[$0]++' | sed 's/^@@RB /  /'
echo
echo "Check, repair and rebuild of a 4-member array ($size MiB members, chunk ${chunk}K,"
echo "speed_limit_min/max $smin/$smax KB/s, $reps runs each, interleaved; module $(modinfo -F srcversion "$ko" 2>/dev/null || echo '?'))"
echo
grep '^@@RB ' "$logf" | awk '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	  p = f["pers"]
	  if (seen[p, f["rep"]]++) next   # a console line seen twice
	  if (f["secs"] != "-") {
		n[p]++; mib[p] = f["member_mib"]
		t["recovery", p, n[p]] = f["secs"]
		t["check", p, n[p]] = f["check_secs"]
		t["repair", p, n[p]] = f["repair_secs"]
	  }
	  if (f["check"] != "0" || f["data"] != "ok") bad[p]++ }
	function median(o, p,   i, j, k, a, m) {
		m = n[p]
		for (i = 1; i <= m; i++) a[i] = t[o, p, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { k = a[i]; a[i] = a[j]; a[j] = k }
		return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		print "| action | personality | runs | median s | min s | max s | MiB/s per member (median) | checks |"
		print "|---|---|---|---|---|---|---|---|"
		split("check repair recovery", ops, " ")
		for (x = 1; x <= 3; x++) {
			o = ops[x]
			for (q = 1; q <= 2; q++) {
				p = (q == 1) ? "raid456" : "raid5x"
				if (!n[p]) { printf "| %s | %s | 0 | - | - | - | - | no run |\n", o, p; continue }
				md = median(o, p); lo = hi = t[o, p, 1]
				for (i = 2; i <= n[p]; i++) { if (t[o, p, i] < lo) lo = t[o, p, i]; if (t[o, p, i] > hi) hi = t[o, p, i] }
				printf "| %s | %s | %d | %.1f | %.1f | %.1f | %.0f | %s |\n", o, p, n[p], md, lo, hi, mib[p] / md, bad[p] ? bad[p] " failed" : "all ok"
				med[o, p] = md
			}
		}
		print ""
		for (x = 1; x <= 3; x++)
			if (med[ops[x], "raid456"] && med[ops[x], "raid5x"])
				printf "raid5x speed / raid456 speed, %s: %.2f\n", ops[x], med[ops[x], "raid456"] / med[ops[x], "raid5x"]
	}'
if [ "$st" = 1 ]; then
	echo "rebuild-bench.sh: a run failed its checks (log $logf)" >&2
	exit 1
elif [ "$st" != 0 ]; then
	echo "rebuild-bench.sh: the guest failed (guest.sh status $st, log $logf)" >&2
	exit 2
fi
