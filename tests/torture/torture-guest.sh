#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# torture-guest.sh: the guest's /run.sh for `make torture` (scripts/torture.sh
# boots it with tortio at /usr/bin/tortio and torture-lib.sh at
# /usr/lib/torture-lib.sh).
#
# usage (in the guest): /run.sh [--seed S] [--seqs N] [--skip-step KIND]...
#                       [--replay LIST] [--shrink-secs S] [--no-raid5x]
# Runs sequences S, S+1, ... S+N-1 (tests/torture/torture-lib.sh: tort_seq)
# or replays one step list; prints TORTURE-* lines per sequence and ends
# with "TORTURE-SUMMARY N passed, N failed".
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh
# shellcheck source=torture-lib.sh
. /usr/lib/torture-lib.sh
set +eu
trap - ERR

seed=1 seqs=1 replay="" TORT_SHRINK_SECS=150
while [ $# -gt 0 ]; do
	case $1 in
	--seed) seed=$2; shift 2 ;;
	--seqs) seqs=$2; shift 2 ;;
	--skip-step) TORT_SKIP="$TORT_SKIP $2"; shift 2 ;;
	--replay) replay=$2; shift 2 ;;
	--shrink-secs) TORT_SHRINK_SECS=$2; shift 2 ;;
	--no-raid5x) export TORT_NO_R5X=1; shift ;;
	*) echo "torture-guest: unknown argument $1"; exit 64 ;;
	esac
done
export TORT_SHRINK_SECS
load_md || exit 1
for m in dm-mod dm-flakey; do
	modprobe "$m" 2>/dev/null
done
echo "TORTURE-KERNEL $(uname -r) raid5x=$(raid5x_available && echo yes || echo no)"
passed=0 failed=0
if [ -n "$replay" ]; then
	# the list SEQS times over, each on fresh twins (a rare divergence's rate)
	TSEED=$seed
	for ((s = 0; s < seqs; s++)); do
		echo "TORTURE-BEGIN seed=replay geom=\"${replay%%;*}\""
		t0=$SECONDS
		if tort_run_list "$replay"; then
			passed=$((passed + 1))
			echo "TORTURE-END seed=replay result=pass steps=$TORT_NSTEPS secs=$((SECONDS - t0))"
		else
			failed=$((failed + 1))
			echo "TORTURE-DIVERGE seed=replay step=$TORT_FAILSTEP: $TORT_WHY"
			echo "TORTURE-END seed=replay result=fail steps=$TORT_NSTEPS secs=$((SECONDS - t0))"
		fi
	done
else
	for ((s = seed; s < seed + seqs; s++)); do
		if tort_seq "$s"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
fi
tort_release
echo "TORTURE-SUMMARY $passed passed, $failed failed"
exit 0
