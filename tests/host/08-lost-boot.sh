#!/usr/bin/env bash
# 08-lost-boot (host side): scripts/guest.sh and a boot lost before /init.
#   * a guest whose /init never starts (rdinit=/bin/sleep: no "GUEST-INIT:
#     kernel" line, as in the boot QEMU TCG lost on 2026-12-07) is given up
#     after --boot-timeout, not --timeout: exit status 4;
#   * with --boot-retries 1 it is booted a second time: the first console
#     is kept as LOG.lost, and both boots are given up (status 4);
#   * a guest that boots normally with --boot-retries 1 runs its script
#     once, exits 0 and leaves no LOG.lost;
#   * --boot-retries without --boot-timeout, or not a count: status 64.
# Fails on the code before --boot-retries (an unknown option: status 64).
# Prints KTAP lines.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
guest=$top/scripts/guest.sh
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ $# -lt 2 ] || while IFS= read -r l; do echo "# $l"; done <<<"$2"; }
# verdict NAME RC [DETAIL]: ok when RC (the status of the test just run) is 0
verdict() { if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "KTAP version 1"
echo "1..8"

cat >"$scratch/hello.sh" <<'EOF'
#!/bin/bash
echo "lost-boot-test: the guest script ran"
EOF

# both boots lost: 15 s each, far below the 300 s --timeout
t0=$SECONDS st=0
GUEST_QUIET=1 "$guest" --timeout 300 --boot-timeout 15 --boot-retries 1 \
	--append "rdinit=/bin/sleep 1000" --log "$scratch/lost.log" \
	"$scratch/hello.sh" >"$scratch/lost.out" 2>&1 || st=$?
secs=$((SECONDS - t0))
[ "$st" = 4 ]
verdict "two lost boots: exit status 4 (got $st)" $? "$(tail -n 5 "$scratch/lost.out")"
[ "$secs" -lt 250 ]
verdict "two lost boots: given up after $secs s, before --timeout (300 s)" $?
[ -s "$scratch/lost.log.lost" ] && grep -q "booting once more" "$scratch/lost.out"
verdict "the first boot's console is kept as LOG.lost" $?
[ -s "$scratch/lost.log" ] && [ -s "$scratch/lost.log.lost" ] &&
	! grep -aq "lost-boot-test: the guest script ran" "$scratch/lost.log" "$scratch/lost.log.lost"
verdict "both consoles are there, and neither shows the guest script" $?

# a normal boot with a retry allowed
st=0
GUEST_QUIET=1 "$guest" --timeout 300 --boot-timeout 200 --boot-retries 1 \
	--log "$scratch/ok.log" "$scratch/hello.sh" >"$scratch/ok.out" 2>&1 || st=$?
[ "$st" = 0 ]
verdict "a normal boot with --boot-retries 1: exit status 0 (got $st)" $? "$(tail -n 5 "$scratch/ok.out")"
[ "$(grep -ac "lost-boot-test: the guest script ran" "$scratch/ok.log")" = 1 ] && [ ! -e "$scratch/ok.log.lost" ]
verdict "it ran its script once and kept no LOG.lost" $?

st=0
"$guest" --boot-retries 1 "$scratch/hello.sh" >/dev/null 2>&1 || st=$?
[ "$st" = 64 ]
verdict "--boot-retries without --boot-timeout: status 64 (got $st)" $?
st=0
"$guest" --boot-timeout 10 --boot-retries x "$scratch/hello.sh" >/dev/null 2>&1 || st=$?
[ "$st" = 64 ]
verdict "--boot-retries x: status 64 (got $st)" $?

[ "$failed" = 0 ]
