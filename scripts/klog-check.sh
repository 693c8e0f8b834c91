#!/usr/bin/env bash
# klog-check.sh: does a guest's kernel log show a failure?
#
# usage: scripts/klog-check.sh NAME KLOG
# KLOG holds kernel log lines (dmesg output, console printk lines). Prints
# one "guest.sh: NAME: ..." line on stderr per kind of failure found and
# exits 2 if there is any, else 0: a splat (WARNING:, BUG:, lockdep,
# KASAN, ...) or a failed KUnit case ("not ok N" in a timestamped line).
# Used by scripts/guest.sh (the whole boot) and tests/run.sh (one case of
# a batch).
#
# KLOG_RAID456_WARN="FUNC...": raid456 functions whose own WARN_ON the
# case's reference run may reach (a case's "# raid456-warn: FUNC" line,
# set by tests/run.sh; see tests/README.md). A whole WARN report, from its
# "WARNING:" line to its "---[ end trace" line, raised at
# drivers/md/raid5.c in one of FUNC in module raid456 (both the 6.x and
# the 7.x format of the line), with no md_raid5x frame and no other splat
# inside it, is then left out of the check and counted on stderr.
# Everything else in the log is checked as always; a report cut short
# (no end line) is checked whole.
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
esac
[ $# = 2 ] || { echo "usage: klog-check.sh NAME KLOG (try --help)" >&2; exit 64; }
name=$1 klog=$2

# Kernel log lines that fail a run (fixed strings, case-sensitive).
# lockdep reports start with "WARNING: possible ..." / "INFO: possible ...";
# a bare 'lockdep' would match the debug kernel's boot banner.
splat_patterns=(
	'WARNING:' 'BUG:' 'Oops' 'Call Trace' 'possible circular locking'
	'INFO: possible' 'inconsistent lock state' 'suspicious RCU usage'
	'turning off the locking correctness validator' 'KASAN' 'UBSAN'
	'sleeping function called from invalid context'
	'general protection fault' 'kernel BUG'
	'blocked for more than' 'soft lockup' 'hard LOCKUP'
)
# raid456_filter: the log without the WARN reports KLOG_RAID456_WARN
# allows (on stdout); their count on fd 3.
raid456_filter() {
	awk -v funcs="$KLOG_RAID456_WARN" -v pats="$(printf '%s\n' "${splat_patterns[@]}")" '
	BEGIN {
		nf = split(funcs, f, " ")
		alt = f[1]
		for (i = 2; i <= nf; i++) alt = alt "|" f[i]
		# 6.x: "WARNING: CPU: 1 PID: 9 at FILE:LINE FUNC+0x1/0x2 [mod]"
		# 7.x: "WARNING: FILE:LINE at FUNC+0x1/0x2 [mod], CPU#1: comm/9"
		site = "WARNING: (CPU: [0-9]+ PID: [0-9]+ at )?drivers/md/raid5\\.c:[0-9]+ (at )?(" alt ")\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[raid456\\]"
		np = split(pats, pat, "\n")
	}
	function dump(i) { for (i = 0; i < nb; i++) print b[i]; nb = 0; inb = 0 }
	!inb {
		if (nf && $0 ~ site) { inb = 1; nb = 0; bad = 0; traces = 0; b[nb++] = first = $0; next }
		print
		next
	}
	{
		b[nb++] = $0
		if (index($0, "md_raid5x")) bad = 1
		for (i = 1; i <= np; i++) {
			if (pat[i] == "" || !index($0, pat[i])) continue
			if (pat[i] == "Call Trace" && !traces++) continue
			bad = 1
		}
		if (index($0, "---[ end trace")) {
			if (bad) dump()
			else { seen[first] = 1; nb = 0; inb = 0 }
		}
	}
	# a boot'"'"'s log may hold a report twice (console and dmesg dump)
	END { dump(); for (w in seen) n++; print n + 0 >"/dev/fd/3" }'
}

st=0
if [ -n "${KLOG_RAID456_WARN:-}" ]; then
	filtered=$(mktemp)
	trap 'rm -f "$filtered" "$filtered.n"' EXIT
	raid456_filter <"$klog" >"$filtered" 3>"$filtered.n"
	n=$(cat "$filtered.n")
	if [ "$n" != 0 ]; then
		echo "guest.sh: $name: left out $n WARN report(s) of raid456's own (raid5.c: $KLOG_RAID456_WARN; the case's raid456-warn line)" >&2
	fi
	klog=$filtered
fi
for p in "${splat_patterns[@]}"; do
	if line=$(grep -F -m 1 -- "$p" "$klog"); then
		echo "guest.sh: $name: kernel log matches '$p': $line" >&2
		st=2
	fi
done
# KUnit (KTAP in the kernel log): any failed test case fails the run
if line=$(grep -E -m 1 '^\[ *[0-9]+\.[0-9]+\] +(# )?not ok [0-9]+ ' "$klog"); then
	echo "guest.sh: $name: KUnit failure in the kernel log: $line" >&2
	st=2
fi
exit "$st"
