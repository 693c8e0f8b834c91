#!/usr/bin/env bash
# torture.sh: the seeded differential torture run (`make torture`): twin
# arrays, raid456 (the oracle) and raid5x, of one random geometry go through
# the same random steps in one QEMU guest; any difference in what they read
# back, their state, mismatch_cnt, or a kernel-log splat fails the sequence
# and prints its seed, its step list and a shrunk one that replays it.
# Guest side: tests/torture/torture-lib.sh (steps), tortio.c (data, model).
#
# usage: scripts/torture.sh [options]
#   --seqs N          sequences (seeds S .. S+N-1; default 20; also SEQS)
#   --seed S          first seed (default: random, printed; also SEED)
#   --kernel K        6.1 (default: the installed Debian kernel), 6.12, 7
#                     (scripts/kroot.sh prepare), or debug (scripts/debug-kernel.sh)
#   --skip-step KIND  do not generate steps of KIND (repeatable), e.g. for a
#                     known divergence (KINDs: tests/torture/torture-lib.sh)
#   --replay LIST     replay one step list (a TORTURE-SHRUNK or -REPLAY line's
#                     text: "geom N CHUNK LAYOUT BITMAP MSZ;step;step...");
#                     with --seqs N, N times (fresh twins each time)
#   --batch N         sequences per guest boot (default 40): a guest that
#                     dies costs its current sequence, the next boot goes on
#   --shrink-secs S   time the guest spends shrinking a divergence (150)
#   --no-results      do not append a row to tests/torture/RESULTS.md
#   --no-raid5x       both twins stay raid456 (the harness's own check: any
#                     divergence is then a false positive or raid456's)
#   --worktree        build md-raid5x.ko from the work tree's sources (default:
#                     the committed HEAD, whose short hash the results carry)
#   -v                stream the guest console
# Logs: build/logs/torture/RUN-*.log (consoles), RUN.seeds (one line per
# sequence: seed kernel result steps secs), seeds.log (all runs, appended;
# seed kernel module result steps secs).
# The last line is "N passed, N failed" (sequences); exit 1 on any failure.
set -euo pipefail
{
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
build=${BUILD:-$top/build}
logdir=$build/logs/torture
seqs=${SEQS:-20} seed=${SEED:-} kernel=6.1 skips=() replay="" batch=40 shrink=150
results=1 verbose=0 src=head
while [ $# -gt 0 ]; do
	case $1 in
	--seqs) seqs=${2:?} SEQS_SET=$2; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--skip-step) skips+=(--skip-step "${2:?}"); shift 2 ;;
	--replay) replay=${2:?}; shift 2 ;;
	--batch) batch=${2:?}; shift 2 ;;
	--shrink-secs) shrink=${2:?}; shift 2 ;;
	--no-results) results=0; shift ;;
	--worktree) src=worktree; shift ;;
	--no-raid5x) skips+=(--no-raid5x); shift ;;
	-v) verbose=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "torture.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ -n "$seed" ] || seed=$(( (RANDOM << 15 | RANDOM) % 1000000 ))
mkdir -p "$logdir" "$build/torture"

# ---- tortio (static, for the guest) -------------------------------------
tortio=$build/torture/tortio
if [ ! -x "$tortio" ] || [ tests/torture/tortio.c -nt "$tortio" ]; then
	gcc -O2 -Wall -Wextra -static -o "$tortio" tests/torture/tortio.c
fi

# ---- the kernel and md-raid5x.ko for it (a private build: the tree's own
# md-raid5x.ko may be rebuilt meanwhile) ----------------------------------
gargs=()
dko=$build/torture/module-$kernel
rm -rf "$dko" && mkdir -p "$dko/mdinc"
if [ "$src" = head ]; then
	# the committed module (a work tree being edited is not what ran)
	git archive HEAD -- ':(glob)*.c' ':(glob)*.h' Kbuild | tar -x -C "$dko"
	rev=$(git rev-parse --short HEAD)
else
	cp ./*.c ./*.h Kbuild "$dko/"
	rev="$(git rev-parse --short HEAD)+worktree"
fi
case $kernel in
6.1)
	kver=$(scripts/kver.sh)
	kdir=/lib/modules/$kver/build
	scripts/mdheaders.sh "$kver" "$build/mdinc/$kver" >/dev/null
	cp "$build/mdinc/$kver"/*.h "$dko/mdinc/"
	{ scripts/kfeatures.sh "$kdir" "$dko/mdinc" &&
		make -C "$kdir" M="$dko" MDINC="$dko/mdinc" modules; } >"$logdir/make-$kernel.log" 2>&1 ||
		{ tail -n 20 "$logdir/make-$kernel.log"; exit 1; }
	;;
debug)
	# sets KERNEL MODDIR KVER KDIR MDINC
	eval "$(scripts/debug-kernel.sh --print-paths 2>"$logdir/debug-kernel.log")"
	cp "$MDINC"/*.h "$dko/mdinc/"
	# shellcheck disable=SC2153 # KDIR: from debug-kernel.sh
	{ scripts/kfeatures.sh "$KDIR" "$dko/mdinc" &&
		make -C "$KDIR" M="$dko" MDINC="$dko/mdinc" modules; } >"$logdir/make-$kernel.log" 2>&1 ||
		{ tail -n 20 "$logdir/make-$kernel.log"; exit 1; }
	gargs+=(--kernel "$KERNEL" --moddir "$MODDIR" --kver "$KVER")
	kver=$KVER
	;;
6.12|7)
	env=$(scripts/kroot.sh prepare "$kernel" 2>"$logdir/kroot-$kernel.log") ||
		{ tail -n 20 "$logdir/kroot-$kernel.log"; exit 1; }
	eval "$(grep -E '^(KVER|KERNEL|MODDIR)=' <<<"$env")"
	scripts/kroot.sh make "$KVER" "$dko" >"$logdir/make-$kernel.log" 2>&1 ||
		{ tail -n 20 "$logdir/make-$kernel.log"; exit 1; }
	gargs+=(--kernel "$KERNEL" --moddir "$MODDIR" --kver "$KVER")
	kver=$KVER
	;;
*) echo "torture.sh: --kernel: 6.1, 6.12, 7 or debug" >&2; exit 64 ;;
esac
gargs+=(--ko "$dko/md-raid5x.ko" --file "$tortio:/usr/bin/tortio"
	--file "$top/tests/torture/torture-lib.sh:/usr/lib/torture-lib.sh")
[ -z "${GUEST_FIO:-}" ] || true
[ "$verbose" = 1 ] || gargs+=(--quiet)

run=$(date -u +%Y%m%d-%H%M%S)-$kernel
seedf=$logdir/$run.seeds
: >"$seedf"
echo "== torture: kernel $kver, module $rev, seeds $seed..$((seed + seqs - 1)) ($seqs sequences), module $dko/md-raid5x.ko, logs $logdir/$run-*"
passed=0 failed=0 steps=0 divs=() t0=$SECONDS
# one boot: sequences FIRST..FIRST+N-1 (or the replay); parse its log
boot() {
	local first=$1 n=$2 log=$3 tmo st=0 args
	tmo=$((n * 150 + 300))
	[ "$kernel" != debug ] || tmo=$((tmo * 2))
	if [ -n "$replay" ]; then
		args=(--replay "$replay" --seed "$first" --seqs "$n")
	else
		args=(--seed "$first" --seqs "$n" --shrink-secs "$shrink" ${skips[@]+"${skips[@]}"})
	fi
	# a boot QEMU TCG lost before /init is booted once more (guest.sh),
	# not reported as a sequence that killed the guest
	nice -n 5 scripts/guest.sh "${gargs[@]}" --timeout "$tmo" \
		--boot-timeout 300 --boot-retries 1 --log "$log" \
		tests/torture/torture-guest.sh "${args[@]}" >"$log.harness" 2>&1 || st=$?
	[ "$verbose" = 0 ] || true
	return "$st"
}
s=$seed
end=$((seed + seqs))
[ -z "$replay" ] || seqs=${SEQS_SET:-1} end=$((seed + seqs))
b=0
while [ "$s" -lt "$end" ]; do
	n=$((end - s < batch ? end - s : batch))
	b=$((b + 1))
	log=$logdir/$run-$b.log
	st=0
	boot "$s" "$n" "$log" || st=$?
	# sequences that ended in this boot
	while read -r line; do
		sd=$(sed -n 's/.*seed=\([^ ]*\) .*/\1/p' <<<"$line")
		res=$(sed -n 's/.*result=\([a-z]*\).*/\1/p' <<<"$line")
		ns=$(sed -n 's/.*steps=\([0-9]*\).*/\1/p' <<<"$line")
		secs=$(sed -n 's/.*secs=\([0-9]*\).*/\1/p' <<<"$line")
		steps=$((steps + ns))
		echo "$sd $kver $rev $res $ns $secs" >>"$seedf"
		if [ "$res" = pass ]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			divs+=("$sd")
			echo "   seed $sd: FAIL ($ns steps, $secs s)"
			grep -E "^TORTURE-(DIVERGE|REPLAY|SHRUNK|SHRUNK-WHY) seed=${sd}[: ]" "$log" | sed 's/^/   /'
		fi
	done < <(grep -aE '^TORTURE-END ' "$log" || true)
	done_n=$(grep -acE '^TORTURE-END ' "$log" || true)
	if [ "$done_n" -lt "$n" ]; then
		# the guest died (panic, hang, timeout) in sequence s+done_n
		sd=$((s + done_n))
		[ -z "$replay" ] || sd=replay
		failed=$((failed + 1))
		divs+=("$sd")
		echo "$sd $kver $rev crash 0 0" >>"$seedf"
		echo "   seed $sd: the guest died in it (status $st): $(grep -E '^guest\.sh: ' "$log.harness" | head -n 3 | tr '\n' ' ')"
		grep -aE 'Kernel panic|BUG:|WARNING:|blocked for more' "$log" | head -n 5 | sed 's/^/   | /'
		s=$((sd + 1))
		[ -z "$replay" ] || break
	else
		s=$((s + n))
	fi
	echo "   boot $b: $done_n of $n sequences ended; so far $passed passed, $failed failed, $((SECONDS - t0)) s"
done
cat "$seedf" >>"$logdir/seeds.log"
secs=$((SECONDS - t0))
total=$((passed + failed))
echo "== $total sequences, $steps steps in $secs s ($(awk -v t="$secs" -v n="$total" 'BEGIN { printf "%.1f", n ? t / n : 0 }') s a sequence); seeds in $seedf"
if [ "$results" = 1 ] && [ -z "$replay" ]; then
	printf '| %s | %s | %s..%s | %d | %d | %d%s |\n' "$(date -u +%F)" "$kver @ $rev" "$seed" \
		$((seed + seqs - 1)) "$total" "$steps" "$failed" \
		"$([ ${#divs[@]} = 0 ] || echo " (seeds ${divs[*]})")" >>tests/torture/RESULTS.md
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
}
