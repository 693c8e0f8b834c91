#!/usr/bin/env bash
# rebuild-bench.sh: check, repair and rebuild of a 4-member array, raid5x vs
# raid456 side by side, in one QEMU guest (issues 5 and 16): idle, with md's
# speed_limit_max lowered, under foreground writes, and under a mixed
# foreground load at md's default limits.
#
# usage: scripts/rebuild-bench.sh [options]
#   --reps N        repetitions, personalities interleaved (3)
#   --size MB       member size (256); members are files on the guest's tmpfs
#   --chunk KB      chunk size (512)
#   --speed-min KB  /proc/sys/dev/raid/speed_limit_min (1000, md's default)
#   --speed-max KB  /proc/sys/dev/raid/speed_limit_max (2000000: high enough
#                   that the personality, not md's throttle, is the limit;
#                   md's default is 200000)
#   --scenarios L   comma-separated, run in this order on one array per run
#                   (idle):
#                     idle      check, repair, then a spare recovery, timed
#                     throttle  a spare recovery under speed_limit_max
#                               --throttle KB/s: its measured rate
#                     write     a spare recovery while fio writes the array:
#                               recovery time and foreground MiB/s
#                     load      a spare recovery at md's default limits
#                               (1000/200000 KB/s, whatever --speed-min/
#                               --speed-max) while fio runs random 4K
#                               writes (depth 32) and sequential 1M reads
#                               (depth 4) at once: recovery time, write
#                               IOPS and p99, read MiB/s and p99 during it
#                   all = idle,throttle,write,load
#   --throttle KB   speed_limit_max of the throttle scenario (5000)
#   --cache N       stripe_cache_size of both arrays (0: each one's
#                   default), e.g. small, so the recovery and the writer
#                   compete for stripes
#   --throttle-secs S  how long its rate is measured (10; from 2 s after
#                   the add; then the limit goes back and the recovery ends)
#   --ko FILE       module (default ./md-raid5x.ko after `make`)
#   --mem MB        guest memory (3072)
#   --log FILE      console log (build/logs/rebuild-bench.log)
# Each run: clean array, written full (fio O_DIRECT, random bytes); every
# recovery fails and removes slot 1's member and adds a free member as a
# spare, timed from the add to sync_action idle; then `check` under the
# same personality must give mismatch_cnt 0 and the data must verify (the
# regions not written since the fill hash as before; what the foreground
# writer wrote is replayed and verified by fio). The scenarios in detail:
# scripts/rebuild-bench-guest.sh. Prints one line per run and scenario and
# Markdown tables: medians, raid5x/raid456 ratios; the throttle's measured
# rate against the limit; under writes, the foreground MiB/s over the
# recovery and md's sync_speed against speed_limit_min (md holds a sync
# back for other I/O only while it runs above that minimum; it does not
# promise to reach it); under load, the foreground figures from the add to
# the recovery's end (fio's per-I/O logs cut to that window). Exit 1 if
# any run failed its checks, 2 if the guest failed.
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
scen=idle thr=5000 thr_s=10 cache=0
logf=${BUILD:-$top/build}/logs/rebuild-bench.log
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	--chunk) chunk=${2:?}; shift 2 ;;
	--speed-min) smin=${2:?}; shift 2 ;;
	--speed-max) smax=${2:?}; shift 2 ;;
	--scenarios) scen=${2:?}; shift 2 ;;
	--throttle) thr=${2:?}; shift 2 ;;
	--throttle-secs) thr_s=${2:?}; shift 2 ;;
	--cache) cache=${2:?}; shift 2 ;;
	--ko) ko=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--log) logf=${2:?}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "rebuild-bench.sh: unknown argument $1" >&2; usage ;;
	esac
done
for v in "$reps" "$size" "$chunk" "$smin" "$smax" "$thr" "$thr_s" "$mem"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "rebuild-bench.sh: '$v' is not a positive number" >&2; exit 64; }
done
[[ $cache =~ ^(0|[1-9][0-9]*)$ ]] || { echo "rebuild-bench.sh: --cache '$cache' is not a number" >&2; exit 64; }
[ "$scen" != all ] || scen=idle,throttle,write,load
for v in ${scen//,/ }; do
	case $v in
	idle|throttle|write|load) ;;
	*) echo "rebuild-bench.sh: unknown scenario '$v' (idle, throttle, write, load, all)" >&2; exit 64 ;;
	esac
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
# the guest's time: per run 360 s for idle, 300 for write, 600 for load
# (its recovery runs at md's default limits under foreground I/O), and the
# throttled window plus 300 for throttle
per=0
[[ ,$scen, != *,idle,* ]] || per=$((per + 360))
[[ ,$scen, != *,throttle,* ]] || per=$((per + thr_s + 300))
[[ ,$scen, != *,write,* ]] || per=$((per + 300))
[[ ,$scen, != *,load,* ]] || per=$((per + 600))
st=0
GUEST_QUIET=1 scripts/guest.sh --ko "$snap/md-raid5x.ko" --mem "$mem" \
	--timeout $((reps * 2 * per + 120)) --boot-timeout 300 --boot-retries 1 \
	--log "$logf" \
	scripts/rebuild-bench-guest.sh "$reps" "$size" "$chunk" "$smin" "$smax" \
	"$scen" "$thr" "$thr_s" "$cache" raid456 raid5x || st=$?
# a console line seen twice counts once
grep -E '^@@RB[TWL]? ' "$logf" | awk '!seen[$0]++' >"$snap/lines" || true
sed 's/^@@RB[TWL]* /  /' "$snap/lines"
echo
echo "Rebuild benchmark of a 4-member array ($size MiB members, chunk ${chunk}K,"
# the load scenario runs at md's default limits (rebuild-bench-guest.sh
# load_min/load_max), whatever --speed-min/max say
md_lims=1000/200000
lims="speed_limit_min/max $smin/$smax KB/s"
[ "$scen" != load ] || lims="speed_limit_min/max md's defaults ($md_lims KB/s)"
echo "$lims, scenarios $scen, $reps runs each, interleaved;$([ "$cache" = 0 ] || echo " stripe_cache_size $cache;")"
echo "module $(modinfo -F srcversion "$ko" 2>/dev/null || echo '?'))"
awk -v mdlim="$md_lims" '
	{ tag = $1
	  delete f
	  for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	  p = f["pers"]
	  if (tag == "@@RB") {
		if (f["secs"] != "-") {
			k = ++n["idle", p]; mib[p] = f["member_mib"]
			t["recovery", p, k] = f["secs"]
			t["check", p, k] = f["check_secs"]
			t["repair", p, k] = f["repair_secs"]
		}
		if (f["check"] != "0" || f["data"] != "ok") bad["idle", p]++
	  } else if (tag == "@@RBT") {
		k = ++n["thr", p]; limit = f["limit"]
		t["thr_kbs", p, k] = f["kbs"]; t["thr_md", p, k] = f["md_med"]
		t["thr_mdmax", p, k] = f["md_max"]; t["thr_win", p, k] = f["win_s"]
		if (f["check"] != "0" || f["data"] != "ok") bad["thr", p]++
	  } else if (tag == "@@RBW") {
		k = ++n["w", p]; wmib[p] = f["member_mib"]; smin = f["speed_min"]
		t["w_secs", p, k] = f["secs"]; t["w_fg", p, k] = f["fg_mibs"]
		t["w_mdmin", p, k] = f["md_min"]; t["w_mdmed", p, k] = f["md_med"]
		if (f["md_min3"] ~ /^[0-9]+$/) t["w_mdmin3", p, ++n3[p]] = f["md_min3"]
		if (f["member_rd_mib"] != "") { t["w_mrd", p, ++nm[p]] = f["member_rd_mib"]; t["w_mwr", p, nm[p]] = f["member_wr_mib"] }
		t["w_rate", p, k] = f["member_mib"] / f["secs"]
		if (f["after_mibs"] ~ /^[0-9.]+$/ && f["after_mibs"] > 0) {
			t["w_after", p, ++na[p]] = f["after_mibs"]
			t["w_kept", p, na[p]] = f["fg_mibs"] / f["after_mibs"]
		}
		if (f["fg"] != "stopped") pass[p]++
		if (f["check"] != "0" || f["verify"] != "ok" || f["witness"] != "ok") bad["w", p]++
	  } else if (tag == "@@RBL") {
		if (f["secs"] ~ /^[0-9.]+$/ && f["fg"] == "running") {
			k = ++n["l", p]
			t["l_secs", p, k] = f["secs"]; t["l_wiops", p, k] = f["w_iops"]
			t["l_wp99", p, k] = f["w_p99_ms"]; t["l_rmibs", p, k] = f["r_mibs"]
			t["l_rp99", p, k] = f["r_p99_ms"]; t["l_mrd", p, k] = f["member_rd_mib"]
			t["l_mwr", p, k] = f["member_wr_mib"]
		} else nl_skip[p]++
		if (f["check"] != "0" || f["verify"] != "ok" || f["witness"] != "ok" || f["fg"] != "running") bad["l", p]++
	  } }
	function sorted(o, p, m,   i, j, x) {   # t[o, p, 1..m] into a[1..m]
		for (i = 1; i <= m; i++) a[i] = t[o, p, i] + 0
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
	}
	function median(o, p, m) {
		sorted(o, p, m)
		return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	function lo(o, p, m) { sorted(o, p, m); return a[1] }
	function hi(o, p, m) { sorted(o, p, m); return a[m] }
	function checks(s, p) { return bad[s, p] ? bad[s, p] " failed" : "all ok" }
	function fmt(o, v) { return o == "l_wiops" ? sprintf("%.0f", v) : o == "l_secs" || o == "l_rmibs" ? sprintf("%.1f", v) : sprintf("%.2f", v) }
	function ratio(a, b) { return b > 0 ? a / b : 0 }
	END {
		split("raid456 raid5x", ps, " ")
		if (n["idle", "raid456"] + n["idle", "raid5x"]) {
			print ""
			print "Idle array (check and repair of the clean array, then a spare recovery):"
			print ""
			print "| action | personality | runs | median s | min s | max s | MiB/s per member (median) | checks |"
			print "|---|---|---|---|---|---|---|---|"
			split("check repair recovery", ops, " ")
			for (x = 1; x <= 3; x++) {
				o = ops[x]
				for (q = 1; q <= 2; q++) {
					p = ps[q]; m = n["idle", p]
					if (!m) { printf "| %s | %s | 0 | - | - | - | - | no run |\n", o, p; continue }
					md = median(o, p, m)
					printf "| %s | %s | %d | %.1f | %.1f | %.1f | %.0f | %s |\n", o, p, m, md, lo(o, p, m), hi(o, p, m), mib[p] / md, checks("idle", p)
					med[o, p] = md
				}
			}
			print ""
			for (x = 1; x <= 3; x++)
				if (med[ops[x], "raid456"] && med[ops[x], "raid5x"])
					printf "raid5x speed / raid456 speed, %s: %.2f\n", ops[x], med[ops[x], "raid456"] / med[ops[x], "raid5x"]
		}
		if (n["thr", "raid456"] + n["thr", "raid5x"]) {
			print ""
			printf "Recovery under speed_limit_max %d KB/s (idle array): rate measured from /proc/mdstat over the window, md sync_speed samples in it:\n", limit
			print ""
			print "| personality | runs | window s (median) | measured KB/s median (min-max) | measured / limit | md sync_speed KB/s, median of run medians (highest sample) | checks |"
			print "|---|---|---|---|---|---|---|"
			for (q = 1; q <= 2; q++) {
				p = ps[q]; m = n["thr", p]
				if (!m) { printf "| %s | 0 | - | - | - | - | no run |\n", p; continue }
				md = median("thr_kbs", p, m)
				printf "| %s | %d | %.1f | %.0f (%.0f-%.0f) | %.2f | %.0f (%.0f) | %s |\n", p, m, median("thr_win", p, m), md, lo("thr_kbs", p, m), hi("thr_kbs", p, m), md / limit, median("thr_md", p, m), hi("thr_mdmax", p, m), checks("thr", p)
			}
		}
		if (n["w", "raid456"] + n["w", "raid5x"]) {
			print ""
			printf "Spare recovery under foreground random 64 KiB O_DIRECT writes (fio, depth 4, from the add to the end of the recovery, then 5 s on the rebuilt array); speed_limit_min %d KB/s:\n", smin
			print ""
			print "| personality | runs | recovery s median (min-max) | member MiB/s (median) | foreground MiB/s median (min-max) | foreground MiB/s after it, no sync (median) | kept: during / after, per run (median) | md sync_speed KB/s: lowest sample from 1 s / from 3 s, median of run medians | member MiB read / written during the recovery (median) | checks |"
			print "|---|---|---|---|---|---|---|---|---|---|"
			for (q = 1; q <= 2; q++) {
				p = ps[q]; m = n["w", p]
				if (!m) { printf "| %s | 0 | - | - | - | - | - | - | - | no run |\n", p; continue }
				ws[p] = median("w_secs", p, m); wf[p] = median("w_fg", p, m)
				wa[p] = na[p] ? median("w_after", p, na[p]) : 0
				printf "| %s | %d | %.1f (%.1f-%.1f) | %.1f | %.1f (%.1f-%.1f) | %s | %s | %.0f / %s, %.0f | %s | %s%s |\n", p, m, ws[p], lo("w_secs", p, m), hi("w_secs", p, m), median("w_rate", p, m), wf[p], lo("w_fg", p, m), hi("w_fg", p, m), na[p] ? sprintf("%.1f", wa[p]) : "-", na[p] ? sprintf("%.2f", median("w_kept", p, na[p])) : "-", lo("w_mdmin", p, m), n3[p] ? sprintf("%.0f", lo("w_mdmin3", p, n3[p])) : "-", median("w_mdmed", p, m), nm[p] ? sprintf("%.0f / %.0f", median("w_mrd", p, nm[p]), median("w_mwr", p, nm[p])) : "-", checks("w", p), pass[p] ? ", writer ended first in " pass[p] : ""
			}
			print ""
			if (ws["raid456"] && ws["raid5x"])
				printf "raid5x / raid456 under writes: recovery speed %.2f, foreground MiB/s %.2f%s\n", ws["raid456"] / ws["raid5x"], wf["raid5x"] / wf["raid456"], (wa["raid456"] && wa["raid5x"]) ? sprintf("; foreground MiB/s after it, no sync: %.2f", wa["raid5x"] / wa["raid456"]) : ""
		}
		if (n["l", "raid456"] + n["l", "raid5x"] + nl_skip["raid456"] + nl_skip["raid5x"]) {
			print ""
			print "Spare recovery under load at md default limits (speed_limit_min/max " mdlim " KB/s): fio random 4 KiB O_DIRECT writes (depth 32) over the first three quarters and sequential 1 MiB O_DIRECT reads (depth 4) over the last quarter, at once; foreground figures from the add to the end of the recovery (fio per-I/O logs); medians (min-max):"
			print ""
			print "| personality | runs | recovery s | write IOPS | write p99 ms | read MiB/s | read p99 ms | member MiB read / written during the recovery (median) | checks |"
			print "|---|---|---|---|---|---|---|---|---|"
			split("l_secs l_wiops l_wp99 l_rmibs l_rp99", lc, " ")
			for (q = 1; q <= 2; q++) {
				p = ps[q]; m = n["l", p]
				if (!m) { printf "| %s | 0 | - | - | - | - | - | - | %s |\n", p, bad["l", p] ? bad["l", p] " failed" : "no run"; continue }
				line = sprintf("| %s | %d", p, m)
				for (x = 1; x <= 5; x++) {
					o = lc[x]; lm[o, p] = median(o, p, m)
					line = line sprintf(" | %s (%s-%s)", fmt(o, lm[o, p]), fmt(o, lo(o, p, m)), fmt(o, hi(o, p, m)))
				}
				printf "%s | %.0f / %.0f | %s%s |\n", line, median("l_mrd", p, m), median("l_mwr", p, m), checks("l", p), nl_skip[p] ? ", " nl_skip[p] " without figures" : ""
			}
			if (n["l", "raid456"] && n["l", "raid5x"]) {
				print ""
				printf "raid5x / raid456 under load (medians): recovery time %.2f (lower is better), write IOPS %.2f (higher is better), write p99 latency %.2f (lower is better), read MiB/s %.2f (higher is better), read p99 latency %.2f (lower is better)\n", lm["l_secs", "raid5x"] / lm["l_secs", "raid456"], ratio(lm["l_wiops", "raid5x"], lm["l_wiops", "raid456"]), ratio(lm["l_wp99", "raid5x"], lm["l_wp99", "raid456"]), ratio(lm["l_rmibs", "raid5x"], lm["l_rmibs", "raid456"]), ratio(lm["l_rp99", "raid5x"], lm["l_rp99", "raid456"])
			}
		}
	}' "$snap/lines"
if [ "$st" = 1 ]; then
	echo "rebuild-bench.sh: a run failed its checks (log $logf)" >&2
	exit 1
elif [ "$st" != 0 ]; then
	echo "rebuild-bench.sh: the guest failed (guest.sh status $st, log $logf)" >&2
	exit 2
fi
