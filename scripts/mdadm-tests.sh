#!/usr/bin/env bash
# mdadm-tests.sh: run mdadm's own level-5 tests (Debian mdadm source package,
# tests/ driven by its `test` script) in QEMU guests, first against the
# kernel's raid456 (the reference), then against raid5x (md-raid5x loaded
# with claim_raid5=1, raid456 unloaded and kept out), and report PASS/FAIL/
# SKIP per test side by side. One guest per pass; a test that hangs or
# crashes the guest gets verdict CRASH and a new guest runs the rest.
#
# usage: scripts/mdadm-tests.sh [options]
#   --tests LIST     comma-separated tests (default: every `run`/`variant`
#                    line of tests/mdadm/tests.list)
#   --pass LIST      raid456,raid5x (default both, in that order)
#   --parallel       run the passes' guests at the same time
#   --ko FILE        md-raid5x.ko to use (default: `make`, then ./md-raid5x.ko)
#   --no-build       do not run `make`; use ./md-raid5x.ko as it is
#   --kernel F, --moddir D, --kver V   passed to scripts/guest.sh
#   --test-timeout S per mdadm test (default 1200)
#   --timeout S      one guest (default: 600 + 300 per test)
#   --out DIR        results (default build/mdadm-tests): report.md, logs/
#   --ktap           print one KTAP line per test and pass on stdout
#   -v               stream the guest console
#   --report-only    rewrite report.md from the logs in --out (also while a
#                    run is in progress: what has finished so far)
#
# The mdadm tree (binary, test script, tests/) comes from
# scripts/build-mdadm.sh (build/mdadm/src/mdadm-*; swap_super and
# test_stripe are built here); tools the tests call that the guest lacks
# (lsblk, fsck, mkfs, udevadm) are copied in with their libraries. The
# guest's /var/tmp (the tests' member and bitmap files) is ext4 on a
# per-guest virtio disk image, $out/vartmp-PASS-N.img (3 GB sparse, removed
# after the guest), since md cannot use a bitmap file on tmpfs.
# Exit status: 0 when every selected test passed under every pass; 1 if one
# failed; 64 usage or setup error.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
self=$top/scripts/mdadm-tests.sh
list=$top/tests/mdadm/tests.list

# usage [0]: the header comment; with 0 (--help) on stdout and status 0,
# else on stderr and status 64 (a usage error)
usage() {
	if [ "${1:-64}" = 0 ]; then
		sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$self"
		exit 0
	fi
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$self" >&2
	exit 64
}
die() { echo "mdadm-tests: $*" >&2; exit 64; }
log() { echo "mdadm-tests: $*" >&2; }

tests="" passes=raid456,raid5x parallel=0 ronly=0 ko="" build=1 ttmo=1200 gtmo="" out="" ktap=0 verbose=0
gargs=()
while [ $# -gt 0 ]; do
	case $1 in
	--tests) tests=${2:?--tests needs a list}; shift 2 ;;
	--pass) passes=${2:?--pass needs raid456,raid5x}; shift 2 ;;
	--parallel) parallel=1; shift ;;
	--report-only) ronly=1; shift ;;
	--ko) ko=${2:?--ko needs a file}; build=0; shift 2 ;;
	--no-build) build=0; shift ;;
	--kernel|--moddir|--kver) gargs+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
	--test-timeout) ttmo=${2:?}; shift 2 ;;
	--timeout) gtmo=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--ktap) ktap=1; shift ;;
	-v|--verbose) verbose=1; shift ;;
	-h|--help) usage 0 ;;
	*) echo "mdadm-tests: unknown argument $1" >&2; usage ;;
	esac
done
[[ $ttmo =~ ^[0-9]+$ ]] || die "--test-timeout wants seconds"
[ -z "$gtmo" ] || [[ $gtmo =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
IFS=, read -r -a plist <<<"$passes"
for p in "${plist[@]}"; do
	case $p in raid456|raid5x) ;; *) die "--pass: unknown pass '$p' (raid456, raid5x)" ;; esac
done
out=${out:-${BUILD:-$top/build}/mdadm-tests}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---- the test list ---------------------------------------------------------
declare -A kind src sedx reason
order=()
while read -r name k rest; do
	[[ -z $name || $name == \#* ]] && continue
	order+=("$name")
	kind[$name]=$k
	case $k in
	run) ;;
	variant) src[$name]=${rest%% *}; sedx[$name]=${rest#* } ;;
	skip) reason[$name]=$rest ;;
	*) die "$list: unknown action '$k' for $name" ;;
	esac
done <"$list"
sel=()
if [ -n "$tests" ]; then
	IFS=, read -r -a sel <<<"$tests"
	for t in "${sel[@]}"; do
		[ -n "${kind[$t]:-}" ] || die "--tests: '$t' is not in $list"
		[ "${kind[$t]}" != skip ] || die "--tests: '$t' is skipped: ${reason[$t]}"
	done
else
	for t in "${order[@]}"; do
		[ "${kind[$t]}" = skip ] || sel+=("$t")
	done
fi

if [ "$ronly" = 0 ]; then
# ---- mdadm tree, module ------------------------------------------------------
log "scripts/build-mdadm.sh (patched mdadm and its source tree)"
scripts/build-mdadm.sh "$top/build/mdadm" >"$out/build-mdadm.log" 2>&1 ||
	{ tail -n 10 "$out/build-mdadm.log" >&2; die "build-mdadm.sh failed"; }
mtree=$(find "$top/build/mdadm/src" -mindepth 1 -maxdepth 1 -type d -name 'mdadm-*' | head -n 1)
if [ -z "$mtree" ] || [ ! -x "$mtree/mdadm" ] || [ ! -f "$mtree/test" ]; then
	die "no built mdadm tree under build/mdadm/src"
fi
make -C "$mtree" swap_super test_stripe >"$out/build-helpers.log" 2>&1 ||
	{ tail -n 10 "$out/build-helpers.log" >&2; die "cannot build swap_super/test_stripe"; }
if [ "$build" = 1 ]; then
	log "make (md-raid5x.ko)"
	make >"$out/make.log" 2>&1 || { tail -n 20 "$out/make.log" >&2; die "make failed"; }
fi
[ -n "$ko" ] || ko=$top/md-raid5x.ko
[ -f "$ko" ] || die "no module $ko"

# ---- stage: /opt/mdt in the guest ------------------------------------------
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage/mdadm/tests" "$stage/tools/bin" "$stage/tools/lib"
cp -a "$mtree/mdadm" "$mtree/test" "$mtree/swap_super" "$mtree/test_stripe" "$stage/mdadm/"
cp -a "$mtree/tests/." "$stage/mdadm/tests/"
for t in "${sel[@]}"; do
	[ "${kind[$t]}" = variant ] || continue
	s=$mtree/tests/${src[$t]}
	[ -f "$s" ] || die "$t: no test ${src[$t]} in $mtree/tests"
	sed -e "${sedx[$t]}" "$s" >"$stage/mdadm/tests/$t"
	! cmp -s "$s" "$stage/mdadm/tests/$t" ||
		die "$t: '${sedx[$t]}' does not change ${src[$t]} (mdadm version changed?)"
done
for t in "${sel[@]}"; do
	[ -f "$stage/mdadm/tests/$t" ] || die "no test $t in $mtree/tests"
done
# programs the tests call (test's check_env, testdev, 03r5assem-failed's
# mkfs) that the guest has not: copied with their libraries
tools=(/usr/bin/lsblk /usr/sbin/fsck /usr/sbin/mkfs /usr/bin/udevadm)
for b in "${tools[@]}"; do
	[ -x "$b" ] || die "$b missing on the host"
	cp -L "$b" "$stage/tools/bin/"
	ldd "$b" | awk '/=> \//{print $3}' | while read -r l; do
		cp -Ln "$l" "$stage/tools/lib/"
	done
done
for f in ext2 ext3 ext4; do
	ln -s /usr/sbin/mke2fs "$stage/tools/bin/mkfs.$f"
	ln -s /usr/sbin/e2fsck "$stage/tools/bin/fsck.$f"
done

# ---- run -------------------------------------------------------------------
# One guest per pass. A test that hangs the guest (hung-task panic) or
# crashes it gets verdict CRASH (its console log is kept as
# logs/PASS/TEST.console) and a new guest runs the rest of the pass.
[ -n "$gtmo" ] || gtmo=$((600 + 300 * ${#sel[@]}))
rm -rf "$out/logs" "$out"/console-* "$out"/results-* "$out"/guest-* "$out"/status-* "$out/results.txt"
mkdir -p "$out/logs"
: >"$out/results.txt"
qopt=(--quiet)
[ "$verbose" = 0 ] || qopt=()
t0=$SECONDS
# run_pass PASS: the pass's guests; results in $out/results-PASS.txt, the
# worst guest.sh status (2 splat, 3 crash/timeout) in $out/status-PASS
run_pass() {
	local p=$1 boot=0 st gst=0 cl t todo rest
	todo=("${sel[@]}")
	: >"$out/results-$p.txt"
	while [ ${#todo[@]} -gt 0 ]; do
		boot=$((boot + 1))
		cl=$out/console-$p-$boot.log
		log "pass $p, guest $boot: ${#todo[@]} tests (guest timeout $gtmo s, log $cl)"
		st=0
		# the guest's /var/tmp (mdadm's $targetdir: member files, bitmap
		# files): ext4 on a virtio disk, fresh per guest. Not tmpfs: md
		# maps a bitmap file's blocks with bmap(), which tmpfs lacks
		# ("bitmap read error: -22", RUN_ARRAY EINVAL)
		img=$out/vartmp-$p-$boot.img
		rm -f "$img"
		truncate -s 3G "$img"
		mke2fs -q -t ext4 -F -L mdt-vartmp "$img" >"$out/mkfs-$p-$boot.log" 2>&1 ||
			{ cat "$out/mkfs-$p-$boot.log" >&2; die "mke2fs $img failed"; }
		scripts/guest.sh "${qopt[@]}" "${gargs[@]}" --ko "$ko" --file "$stage:/opt/mdt" \
			--disk "$img" \
			--timeout "$gtmo" --log "$cl" --out "$out/results-$p-$boot.tgz" \
			tests/mdadm/run-guest.sh "$p" "$(IFS=,; echo "${todo[*]}")" "$ttmo" \
			>"$out/guest-$p-$boot.log" 2>&1 || st=$?
		rm -f "$img" "$out/mkfs-$p-$boot.log"
		grep -E '^guest\.sh: ' "$out/guest-$p-$boot.log" | grep -v 'no @@OUT block' >&2 || true
		[ "$st" = 0 ] || [ "$st" = 1 ] || gst=$st
		[ ! -s "$out/results-$p-$boot.tgz" ] || tar -C "$out/logs" -xzf "$out/results-$p-$boot.tgz"
		grep -h '^MDT-RESULT ' "$cl" | tr -d '\r' >>"$out/results-$p.txt" || true
		rest=()
		for t in "${todo[@]}"; do
			grep -q "^MDT-RESULT $p $t " "$cl" || rest+=("$t")
		done
		[ ${#rest[@]} -gt 0 ] || break
		[ ${#rest[@]} -lt ${#todo[@]} ] || [ "$st" != 0 ] || break
		# the first test without a result took the guest down
		t=${rest[0]}
		log "pass $p: $t crashed or hung the guest (status $st)"
		mkdir -p "$out/logs/$p"
		cp "$cl" "$out/logs/$p/$t.console"
		echo "MDT-RESULT $p $t CRASH 0 raid5x=0 raid456=0 r5x_counters=0 rc=$st" >>"$out/results-$p.txt"
		todo=("${rest[@]:1}")
	done
	echo "$gst" >"$out/status-$p"
}
if [ "$parallel" = 1 ]; then
	for p in "${plist[@]}"; do
		run_pass "$p" &
	done
	wait
else
	for p in "${plist[@]}"; do
		run_pass "$p"
	done
fi
gst=0
for p in "${plist[@]}"; do
	cat "$out/results-$p.txt" >>"$out/results.txt"
	st=$(cat "$out/status-$p")
	[ "$st" = 0 ] || gst=$st
done
wall="$((SECONDS - t0)) s wall"
else
	mtree=$(find "$top/build/mdadm/src" -mindepth 1 -maxdepth 1 -type d -name 'mdadm-*' | head -n 1)
	wall="report rewritten from the logs (--report-only)"
	cat "$out"/console-*.log 2>/dev/null | tr -d '\r' | grep -a '^MDT-RESULT ' >"$out/results.txt"
	cat "$out"/results-*.txt 2>/dev/null | grep ' CRASH ' >>"$out/results.txt"
	gst=0
fi

# ---- report ----------------------------------------------------------------
declare -A verdict secs note
while read -r _ p t v s x5 x456 xc rc; do
	verdict[$p/$t]=$v
	secs[$p/$t]=$s
	x5=${x5#raid5x=} x456=${x456#raid456=} xc=${xc#r5x_counters=}
	if [ "$v" = CRASH ]; then
		note[$p/$t]="guest hung or crashed; last step:$(grep -a "^mdt-step $t:" \
			"$out/logs/$p/$t.console" 2>/dev/null | grep -av " echo [0-9]*.$" | tail -n 1 | tr -d '\r' |
			sed 's/^[^:]*:++ [0-9.]*//') (logs/$p/$t.console)"
		continue
	fi
	case $p in
	raid5x)
		if [ "$x5" -gt 0 ] && [ "$x456" = 0 ]; then
			note[$p/$t]="raid5x served every sampled array ($x5 samples, counters up to $xc)"
		elif [ "$x456" -gt 0 ]; then
			note[$p/$t]="raid456 served $x456 samples!"
			verdict[$p/$t]=FAIL
		else
			note[$p/$t]="no level-5 array sampled"
		fi ;;
	raid456) [ "$v" = PASS ] || note[$p/$t]="raid456 $v" ;;
	esac
	: "$rc"
done <"$out/results.txt"

cell() { # PASS TEST
	local k=$1/$2
	if [ "${kind[$2]}" = skip ]; then
		echo SKIP
	elif [ -n "${verdict[$k]:-}" ]; then
		echo "${verdict[$k]} (${secs[$k]} s)"
	else
		echo "not run"
	fi
}
{
	echo "# mdadm's own raid5 tests: raid456 vs raid5x"
	echo
	echo "mdadm $(sed -n 's/^mdadm \([^ ]*\) .*/\1/p' "$top/build/mdadm/stamp") test suite (\`./test --tests=NAME\`," \
		"one per test, loop devices, INTEGRITY=yes) in QEMU guests (one per pass, a new one after a crash)" \
		"($(grep -a -h -m1 -o 'kernel [^ ]* up' "$out"/console-*-1.log 2>/dev/null | head -n 1 | sed 's/ up$//' || echo 'kernel ?')," \
		"$(date -u +%Y-%m-%d), raid5x $(git -C "$top" describe --always --dirty 2>/dev/null))," \
		"${wall}. raid5x pass: md-raid5x claim_raid5=1, raid456 unloaded and" \
		"blocked (\`install raid456 /bin/false\`); the sampler checks every 0.2 s that" \
		"each level-5 array has md/raid5x_stats/."
	echo
	echo "| test | source | raid456 | raid5x | raid5x check / skip reason |"
	echo "|---|---|---|---|---|"
	for t in "${order[@]}"; do
		if [ "${kind[$t]}" != skip ]; then
			printf '%s\n' "${sel[@]}" | grep -qx -- "$t" || continue
		fi
		case ${kind[$t]} in
		run) s="mdadm" ;;
		variant) s="${src[$t]}, level 5 only" ;;
		skip) s="mdadm" ;;
		esac
		if [ "${kind[$t]}" = skip ]; then
			n5=${reason[$t]}
		else
			n5=${note[raid5x/$t]:-}
		fi
		echo "| $t | $s | $(cell raid456 "$t") | $(cell raid5x "$t") | $n5 |"
	done
	echo
	echo "Logs: \`$out/logs/<pass>/<test>.out\` (test output), \`.xtrace\` (set -x of" \
		"the test), \`.dmesg\`, \`logs/<pass>/logs/\` (mdadm's own failure logs)."
} >"$out/report.md"
cat "$out/report.md"

failed=0
k=0
[ "$ktap" = 0 ] || { echo "KTAP version 1"; echo "1..$((${#sel[@]} * ${#plist[@]}))"; }
for p in "${plist[@]}"; do
	for t in "${sel[@]}"; do
		k=$((k + 1))
		v=${verdict[$p/$t]:-not-run}
		if [ "$v" = PASS ]; then
			[ "$ktap" = 0 ] || echo "ok $k - $p: mdadm test $t (${secs[$p/$t]} s)"
		else
			failed=$((failed + 1))
			if [ "$ktap" = 1 ]; then
				echo "not ok $k - $p: mdadm test $t: $v"
				f=$out/logs/$p/$t.out
				[ ! -f "$f" ] || tail -n 8 "$f" | sed 's/^/# /'
			fi
		fi
	done
done
[ "$gst" = 0 ] || log "a guest ended with status $gst (see $out/guest-*.log)"
if [ "$gst" = 2 ] || [ "$gst" = 3 ]; then
	failed=$((failed + 1))
	[ "$ktap" = 0 ] || echo "# guest: kernel splat, timeout or crash (status $gst)"
fi
[ "$failed" = 0 ]
