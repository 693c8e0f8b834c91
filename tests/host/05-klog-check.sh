#!/usr/bin/env bash
# 05-klog-check (host side): scripts/klog-check.sh on made-up kernel logs.
#   * a clean log passes; a WARN of raid456's handle_stripe fails it;
#   * with KLOG_RAID456_WARN=handle_stripe (a case's "# raid456-warn:"
#     line) that whole report is left out and counted, in the 6.1/6.12
#     format and in 7.x's, and a splat after it still fails;
#   * it is not left out when it was raised elsewhere (md-raid5x, another
#     module, another raid456 function, another file), when a raid5x
#     frame or a second splat is inside it, or when it has no end line.
# Prints KTAP lines.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kc=$top/scripts/klog-check.sh
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ $# -lt 2 ] || echo "# $2"; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "KTAP version 1"
echo "1..13"

quiet='[   10.000000] md/raid:md0: device loop1 operational as raid disk 1
[   10.100000] md: recovery of RAID array md0'
# warn SITE [FRAME] [END]: a WARN report as 6.1/6.12 print it
warn() {
	cat <<EOF
[  717.160000] ------------[ cut here ]------------
[  717.162772] WARNING: CPU: 1 PID: 13918 at $1
[  717.162900] Modules linked in: raid456 async_raid6_recov async_memcpy
[  717.163000] CPU: 1 PID: 13918 Comm: md0_raid5 Not tainted 6.12.118+deb13-amd64 #1
[  717.164000] RIP: 0010:handle_stripe+0x1a00/0x1c80 [raid456]
[  717.170787] Call Trace:
[  717.170800]  <TASK>
[  717.170900]  ${2:-handle_active_stripes.isra.0+0x3a5/0x5a0 [raid456]}
[  717.171000]  raid5d+0x479/0x6f0 [raid456]
[  717.171100]  </TASK>
${3-[  717.171200] ---[ end trace 0000000000000000 ]---}
EOF
}
r456='drivers/md/raid5.c:5160 handle_stripe+0x1a00/0x1c80 [raid456]'
# the same WARN as 7.x prints its first line
warn7() {
	sed 's|WARNING: CPU: 1 PID: 13918 at \(.*\)$|WARNING: \1|; s|\(raid5\.c:[0-9]*\) handle_stripe|\1 at handle_stripe|; s|\[raid456\]$|[raid456], CPU#1: md0_raid5/13918|' <<<"$(warn "$r456")"
}

# expect NAME STATUS ALLOW LOG: klog-check exits STATUS on LOG with
# KLOG_RAID456_WARN=ALLOW
expect() {
	local name=$1 want=$2 allow=$3 st=0
	printf '%s\n' "$4" >"$scratch/klog"
	KLOG_RAID456_WARN=$allow "$kc" test "$scratch/klog" 2>"$scratch/err" || st=$?
	if [ "$st" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $st, wanted $want: $(head -n 2 "$scratch/err" | tr '\n' ' ')"
	fi
}

expect "a quiet log passes" 0 "" "$quiet"
expect "raid456's WARN fails the check without a raid456-warn line" 2 "" "$quiet
$(warn "$r456")"
expect "with raid456-warn: handle_stripe it is left out (6.x line)" 0 handle_stripe "$quiet
$(warn "$r456")
$quiet"
if grep -q "left out 1 WARN report" "$scratch/err"; then
	ok "the left-out report is counted on stderr"
else
	not_ok "the left-out report is counted on stderr" "$(cat "$scratch/err")"
fi
w7=$(warn7)
if grep -q '^\[  717.162772\] WARNING: drivers/md/raid5.c:5160 at handle_stripe+0x1a00/0x1c80 \[raid456\], CPU#1: md0_raid5/13918$' <<<"$w7"; then
	expect "7.x's WARNING line is left out too" 0 handle_stripe "$quiet
$w7"
else
	not_ok "7.x's WARNING line is left out too" "the made-up 7.x line is wrong: $(sed -n 2p <<<"$w7")"
fi
expect "a splat after the left-out report still fails" 2 handle_stripe "$(warn "$r456")
[  720.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000"
expect "a WARN in md-raid5x is never left out" 2 handle_stripe \
	"$(warn '/tmp/ci/stripe_handle.c:412 handle_stripe+0x10/0x90 [md_raid5x]')"
expect "the same file and function in another module is not left out" 2 handle_stripe \
	"$(warn 'drivers/md/raid5.c:5160 handle_stripe+0x1a00/0x1c80 [md_raid5x]')"
expect "a WARN in another raid456 function is not left out" 2 handle_stripe \
	"$(warn 'drivers/md/raid5.c:4001 ops_run_io+0x10/0x90 [raid456]')"
expect "a WARN of handle_stripe outside raid5.c is not left out" 2 handle_stripe \
	"$(warn 'drivers/md/raid10.c:100 handle_stripe+0x10/0x90 [raid456]')"
expect "a report with a raid5x frame is not left out" 2 handle_stripe \
	"$(warn "$r456" 'r5x_make_request+0x55/0x300 [md_raid5x]')"
expect "a report with a second splat inside is not left out" 2 handle_stripe \
	"$(warn "$r456" 'BUG: sleeping function called from invalid context')"
expect "a report without its end line is not left out" 2 handle_stripe \
	"$(warn "$r456" '' '')"
echo "# $n assertions, $failed failed"
[ "$failed" = 0 ]
