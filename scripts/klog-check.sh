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
st=0
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
