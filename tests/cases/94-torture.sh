#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 94-torture: a fixed slice of the differential torture run (`make torture`,
# scripts/torture.sh, tests/torture/): twin arrays of one seeded geometry,
# raid456 (the oracle) and raid5x (created as level 5 by stock mdadm, taken
# over), through the same seeded steps (writes, reads, fail/remove/add and
# rebuild, interrupted recovery, stop/assemble, check/repair, cache and
# worker changes, bitmap add/remove, power cuts, dm faults), each read
# checked against a model, state and mismatch_cnt compared after every
# step. One assertion per seed; a divergence prints the step that diverged,
# why, and the seed's step list (replay: scripts/torture.sh --replay).
# First, the oracle must be able to fail: a block corrupted on a raid5x
# member below md (arrays stopped meanwhile) must be reported as a
# divergence of that block, and tafter's restart-and-probe must report
# blocks raid456 still reads after a restart.
# timeout: 300
# debug-kernel: yes
# guest-args: --file build/torture/tortio:/usr/bin/tortio --file tests/torture/torture-lib.sh:/usr/lib/torture-lib.sh
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

# SEED:MAXSTEPS (the seed's first MAXSTEPS steps, then verify and check),
# chosen for coverage and time (about 60 s of guest time on 6.1), each
# after half the array written (the generator's first step): 4's first
# steps are a read error whose rewrite fails (found raid5x without
# want_replacement on a write error, module 1d8ea45); 24's first 8 steps
# hold two dm write errors, a bitmap add, a dm read error and two member
# failures
seeds=(4:4 24:8)
# step lists replayed as they are (RESULTS.md): 1010's, a block listed bad
# on member 3 (its sectors garbled on disk), then member 0 failed: no twin
# may read the listed block (garbage) where two members are missing;
# 3300's (divergence 8): member 0 failed, a spare rebuilt into its slot
# across a stop and assembly, then member 1 failed and member 0 re-added
# into slot 1 with a bitmap, its rebuild stopped and resumed: a full
# rebuild (module e7c492f and raid456 on 6.1 skipped what the bitmap
# calls clean and read other slots' blocks there);
# discards (both twins with devices_handle_discard_safely=Y; rows of 12
# blocks, granularity 16): rows cached by a buffered read, then discarded
# under a bitmap, then a discard with member 1 failed, verified (the fence
# and the degraded path under lockdep and KASAN on the debug kernel);
# 4513's, shrunk (7.2; on 6.1 too): member 0's block listed bad after a
# failed write-back, then member 2 (that row's parity) failed, then a
# buffered write of the listed block: both twins fail it (two blocks of
# the stripe missing) and the next read must fail too (module 71c052c
# kept the page of the failed write in its cache and read it back);
# 9217's, shrunk (divergence 15): member 1's block listed bad after a
# failed read and write-back, member 2 failed, then a buffered write of
# the whole row: raid5x fails the stripe with two blocks missing, raid456
# acknowledges it and returns EIO after a restart (the harness's tafter acked;
# before it, a divergence at the write); raid5x must report the failure
# (an oracle note: a raid5x acknowledging it too would agree with raid456);
# 5005's, shrunk (divergence 16, 7.2 and 6.1): member 1's blocks listed
# bad after a failed read and write-back, member 0 failed: raid456 answers
# reads of two-block-missing stripes it still caches, raid5x fails them,
# and raid456 fails them too after a restart (the harness's tafter cached;
# before it, a divergence at the verify)
lists=("geom 4 16 parity-first none 10;badread 3 1011 16;fail 0;verify"
	"geom 3 8 right-symmetric internal 8;write 748 1536 256 d;fail 0;recint 3 1 stop;recint 0 1 stop"
	"geom 4 16 left-symmetric internal 8;write 0 1536 64 d;read 0 768 48 b;discard 20 400;read 0 768 48 b;fail 1;discard 700 300;write 650 100 10 d;verify;check"
	"geom 3 512 right-asymmetric none 8;badread 0 712 8;fail 2;write 950 512 16 bs;verify"
	"geom 7 128 right-symmetric none 4;badread 1 127 8;fail 2;write 585 192 192 bs;verify;check"
	"geom 7 8 left-symmetric internal 4;badread 1 3 32;write 1535 36 2 d;fail 0;write 1254 9 9 d;verify;check")
tap_plan $((${#seeds[@]} + ${#lists[@]} + 3))
load_md
modprobe dm-mod 2>/dev/null || true
modprobe dm-flakey 2>/dev/null || true
step() {
	if [ ! -x /usr/bin/tortio ] || [ ! -r /usr/lib/torture-lib.sh ]; then
		note "tortio or torture-lib.sh not in the guest (make torture-helper)"
		return 1
	fi
	raid5x_available
}
if ! tap_check "tortio and torture-lib.sh in the guest, md-raid5x available" step; then
	tap_skip_rest "no torture helper"
	tap_done
fi
# shellcheck source=../torture/torture-lib.sh
. /usr/lib/torture-lib.sh
set +eu
trap - ERR

# the oracle detects a corrupted block: write 48 blocks to both, stop both,
# overwrite array block 0 (left-symmetric, 4 members, 64K chunks: member
# 0's first data chunk) on raid5x's member 0, assemble, verify
step() {
	local off TSEED=94 TORT_QUIET=1
	tort_setup 4 64 left-symmetric none 4 || return 1
	tio write 0 48 48 d || return 1
	off=$(cat "${TSYS[B]}/dev-${TB[0]##*/}/offset")
	tboth stop s_stop || return 1
	dd if=/dev/urandom of="${TB[0]}" bs=512 seek="$off" count=8 oflag=direct status=none || return 1
	tboth assemble s_assemble || return 1
	if tverify; then
		note "the corrupted block read back as right"
		tort_teardown
		return 1
	fi
	note "detected: $TORT_WHY"
	tort_teardown
	[[ $TORT_WHY == *"read block 0 "*"raid456 ok, raid5x wrong: garbage"* ]]
}
tap_check "the oracle reports a block corrupted below raid5x as a divergence" step

# tafter's probe must be able to fail too: blocks both twins read back
# (a healthy array), planted as writes raid456 acknowledged and raid5x
# failed (acked) and as reads raid456 answered and raid5x failed (cached),
# must each be reported as a divergence after the restart (a probe whose
# reads always fail, e.g. a wrong offset, would call them raid456's)
step() {
	local TSEED=94 TORT_QUIET=1 kind want
	tort_setup 4 64 left-symmetric none 4 || return 1
	tio write 0 48 48 d || return 1
	for kind in acked cached; do
		TORT_ACKED="" TORT_CACHED=""
		if [ "$kind" = acked ]; then
			TORT_ACKED="3 9 40"
			want="raid5x failed writes raid456 stored: blocks 3..40 (3) all read back on raid456 after a restart"
		else
			TORT_CACHED="3 9 40"
			want="raid5x failed reads raid456 serves from its members after a restart: 3 of 3 blocks (3 9 40)"
		fi
		TORT_WHY=""
		if tafter "$kind"; then
			note "tafter $kind: no divergence for blocks raid456 reads after a restart"
			tort_teardown
			return 1
		fi
		note "tafter $kind: $TORT_WHY"
		[ "$TORT_WHY" = "$want" ] || { tort_teardown; return 1; }
	done
	tort_teardown
}
tap_check "tafter reports planted blocks raid456 still reads after a restart as divergences" step

for sm in "${seeds[@]}"; do
	sd=${sm%%:*}
	t0=$SECONDS
	out=$(TORT_MAXSTEPS=${sm#*:} TORT_SHRINK_SECS=0 tort_seq "$sd" 2>&1)
	rc=$?
	grep -E '^TORTURE-(DIVERGE|REPLAY)' <<<"$out" | sed 's/^/# /'
	[ "$rc" = 0 ] || grep -E '^#  step' <<<"$out" | tail -n 4
	if [ "$rc" = 0 ]; then
		tap_ok "torture seed $sd: $(sed -n 's/^TORTURE-BEGIN .*geom="\(.*\)"/\1/p' <<<"$out"), $(grep -c '^#  step' <<<"$out") steps agree ($((SECONDS - t0)) s)"
	else
		tap_not_ok "torture seed $sd: raid5x diverged from raid456" "replay: the TORTURE-REPLAY list above (scripts/torture.sh --replay LIST)"
	fi
done

for l in "${lists[@]}"; do
	t0=$SECONDS
	if ! TSEED=94 TORT_QUIET=1 tort_run_list "$l"; then
		tap_not_ok "torture list '$l': diverged at step $TORT_FAILSTEP: $TORT_WHY"
	elif [[ $l == *"fail 2;write 585 192 192 bs"* ]] && [ "$TORT_ORACLE" = 0 ]; then
		tap_not_ok "torture list '$l': raid5x did not fail the write raid456 acknowledged and lost"
	else
		tap_ok "torture list '$l': agree, $TORT_ORACLE oracle notes ($((SECONDS - t0)) s)"
	fi
done
tap_done
