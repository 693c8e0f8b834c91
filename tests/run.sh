#!/usr/bin/env bash
# tests/run.sh: the raid5x test suite (`make check`).
#
# usage: tests/run.sh [options] [CASE...]
#   CASE             a case name or prefix from tests/cases/ (e.g. 10, 20-compat,
#                    tests/cases/30-ext4.sh); default: every case
#   --no-build       do not run `make`; use ./md-raid5x.ko if it exists
#   --ko FILE        use this module instead of building (e.g. one built with
#                    `make KDIR=... MDSRC=...` for a debug kernel)
#   --kernel F, --moddir D, --kver V, --mem MB, --append ARGS, --timeout S
#                    passed to scripts/guest.sh (--timeout: per case, default
#                    from the case's "# timeout: S" line, else 600;
#                    doubled in the debug-kernel pass); --kernel, --moddir
#                    and --kver run the Debian pass on that kernel only
#   --kernels LIST   the Debian kernel lines whose pass runs, comma-separated
#                    from 6.1, 6.12, 7 (default all three; also
#                    RAID5X_KERNELS, which scripts/setup.sh reads too);
#                    the debug-kernel pass is chosen apart (--no-debug)
#   --no-ko          run without md-raid5x.ko (the raid456 parts only; every
#                    raid5x assertion then fails, by design)
#   --smp N          guest CPUs for every case (default 2; while the two
#                    passes run side by side QEMU runs a guest's CPUs in
#                    one host thread, scripts/guest.sh --tcg-thread)
#   -v, --verbose    stream every guest console to stdout
#   --no-debug       skip the debug-kernel pass (also RAID5X_DEBUG=0)
#   --debug-only     skip the Debian-kernel pass (guest cases run on the
#                    debug kernel only; host cases still run)
#   --serial         run the passes one after another in one lane, not
#                    in two lanes side by side (also RAID5X_DEBUG_PARALLEL=0)
#   --boot-each      boot a guest per case instead of one per pass (also
#                    RAID5X_BOOT_EACH=1)
#
# The debug-kernel pass: the guest cases marked "# debug-kernel: yes" (23
# of 46: the fault paths, the workers, the cache, the plug; every case with
# RAID5X_DEBUG_ALL=1) again on the debug kernel built by
# scripts/debug-kernel.sh (KUnit, lockdep, KASAN; cached per machine), with
# md-raid5x.ko built against it, booted with gl_scale=RAID5X_DEBUG_SCALE
# (default 4: cases divide their data volumes by it, same assertions;
# tests/lib/guest-lib.sh GL_SCALE) and gl_sample=RAID5X_DEBUG_SAMPLE (default
# 1: cases that loop over layouts run the subset they name, GL_SAMPLE). It
# runs alongside the Debian pass (two guests at a time; its lines, marked
# "debug|", appear as they come).
# Its last RAID5X_DEBUG_TAIL (default 2) cases run once the queue of kernel
# passes (below) is empty, in whichever lane is free first (log
# debug-tail-batch.log); 0 keeps them in the debug pass.
#
# The passes on the newer Debian kernels (6.12: trixie's current kernel, 7:
# forky's; scripts/kroot.sh prepare LINE makes their build root, headers,
# md.h and the guest's image ready, cached; scripts/setup.sh does it ahead):
# md-raid5x.ko is built for that kernel in build/logs/tests/module-KVER
# (scripts/kroot.sh make: never the in-tree 6.1 build), then every guest
# case runs on Debian's own image of that kernel, booted with
# gl_scale=RAID5X_KERNEL_SCALE (default 4, as the debug pass: same
# assertions on a quarter of the data volumes; 1 is the full volumes of
# the 6.1 pass) and gl_sample=RAID5X_KERNEL_SAMPLE (default 1, as the debug
# pass: the cases that loop over layouts, geometries or twins run the subset
# they name; the whole matrix runs in the 6.1 pass, and a layout's mapping
# is raid5x's own code, the same on every kernel; 0 runs it all). Their
# logs are prefixed with the line
# (6.12-10-fio-verify.log). Measured (QEMU CPU seconds of 10-fio-verify,
# full volume): 6.1 88 s, 6.12 100 s, 7.2 133 s (85 s at scale 4).
# Lanes: with two lanes (the default) the debug-kernel pass runs in the
# second lane; the 6.12 and 7 passes are a queue that either lane takes
# from once it is free (the Debian 6.1 pass's lane after that pass, the
# debug lane after the debug pass), so the two lanes end close together.
# Each pass's results end with "KVER: N passed, N failed"; the summary
# repeats them per kernel before the total.
#
# Host-side cases (tests/host/*.sh: lint, packaging) run first, on the
# host, printing KTAP on stdout.
# Each pass boots one guest (scripts/guest.sh) that runs its guest cases one
# after another (tests/lib/batch-guest.sh resets the guest in between; a
# boot costs 7-11 s of CPU under TCG); --boot-each boots one per case.
# A case's KTAP lines ("ok N - ", "not ok N - ") are its assertions; it also
# gets one failure if it timed out or the guest died in it, if the kernel
# log written while it ran shows a splat (WARNING:, BUG:, lockdep, ...), if
# it failed without any "not ok", if fewer assertions ran than its plan
# (1..N) promised, or if its output has no plan at all (every case prints
# one first, so none means its output is missing). If the guest dies, the
# cases after the one it died in boot one each. Logs: build/logs/tests/ (one per case, as if booted alone).
# The last line is "N passed, N failed"; the exit status is 1 on any failure.
set -euo pipefail
# The body is one { } block: bash parses it whole before running, so
# editing this file while a run is in progress cannot corrupt that run.
{

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
logdir=${BUILD:-$top/build}/logs/tests

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

build=1 ko="" timeout="" verbose=0 noko=0 booteach=${RAID5X_BOOT_EACH:-0} debug=${RAID5X_DEBUG:-1} debugonly=0
kernels=${RAID5X_KERNELS:-6.1,6.12,7} kscale=${RAID5X_KERNEL_SCALE:-4} custom=0
ksample=${RAID5X_KERNEL_SAMPLE:-1}
parallel=${RAID5X_DEBUG_PARALLEL:-1} dscale=${RAID5X_DEBUG_SCALE:-4}
dsample=${RAID5X_DEBUG_SAMPLE:-1} smp="" dtailn=${RAID5X_DEBUG_TAIL:-2}
gargs=() cases=() bname=""
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0; shift ;;
	--no-ko) build=0; noko=1; shift ;;
	--ko) ko=${2:?}; build=0; shift 2 ;;
	--kernel|--moddir|--kver) debug=0; custom=1; gargs+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
	--kernels) kernels=${2:?--kernels needs a list}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--mem|--append) gargs+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	-v|--verbose) verbose=1; shift ;;
	--no-debug) debug=0; shift ;;
	--debug-only) debugonly=1; shift ;;
	--serial) parallel=0; shift ;;
	--boot-each) booteach=1; shift ;;
	-h|--help) usage 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage ;;
	*) cases+=("$1"); shift ;;
	esac
done

# the kernel lines: 6.1 is the Debian pass (this host's kernel), the
# others are extra passes (kernel_pass); a custom --kernel is 6.1's only
debian=0 extra=()
for l in $(tr ',' ' ' <<<"$kernels"); do
	case $l in
	6.1) debian=1 ;;
	6.12|7) [ "$custom" = 1 ] || extra+=("$l") ;;
	*) echo "run.sh: --kernels: unknown kernel line '$l' (6.1, 6.12, 7)" >&2; exit 64 ;;
	esac
done
[ "$debugonly" = 0 ] || { debian=0; extra=(); }

passed=0 failed=0
fail_case() {
	# a case-level failure (not an individual assertion)
	echo "  not ok - $1"
	failed=$((failed + 1))
	note_failure "not ok - $1"
}

# note_failure LINE...: keep LINEs for the summary's "== failures" ($fsum;
# both lanes append), so the last lines of the output name what failed
note_failure() {
	[ -n "${fsum:-}" ] || return 0
	printf '%s\n' "$@" >>"$fsum"
}

# check_plan NAME NOK NNOT PLAN ST WHERE: a case-level failure if fewer
# assertions ran than the KTAP plan promised, or if a case that otherwise
# succeeded (ST 0) printed no plan: every case prints one first, so none
# means its output is missing (an empty log section), not that nothing
# failed. Returns 1 only for the missing plan (the caller's status).
check_plan() {
	local name=$1 nok=$2 nnot=$3 plan=$4 st=$5 where=$6
	if [ -n "$plan" ] && [ $((nok + nnot)) -lt "$plan" ]; then
		fail_case "$name: only $((nok + nnot)) of $plan planned assertions ran"
	elif [ -z "$plan" ] && [ "$st" = 0 ]; then
		fail_case "$name: no KTAP plan in $where"
		return 1
	fi
	return 0
}

# ---- build ---------------------------------------------------------------
mkdir -p "$logdir"
# The newer kernels' roots, headers, md.h and images: fetched in the
# background from the start (network and disk while the lanes compute; on
# a fresh machine about 8 min), so that kernel_pass's own `kroot.sh
# prepare` later finds them ready, or waits on the root's lock for the
# rest; cached, this only asks the archive whether the kernels moved.
for l in ${extra[@]+"${extra[@]}"}; do
	scripts/kroot.sh prepare "$l" >"$logdir/kroot-$l-early.log" 2>&1 </dev/null &
done
if [ "$build" = 1 ]; then
	echo "== make (build md-raid5x.ko)"
	t0=$SECONDS
	if make >"$logdir/make.log" 2>&1; then
		echo "   built in $((SECONDS - t0)) s"
	else
		tail -n 20 "$logdir/make.log" | sed 's/^/   | /'
		echo "   make failed (log $logdir/make.log); running the cases without md-raid5x.ko"
		fail_case "build md-raid5x.ko"
	fi
fi
if [ -z "$ko" ] && [ "$noko" = 0 ] && [ -f "$top/md-raid5x.ko" ]; then
	ko=$top/md-raid5x.ko
fi
if [ -n "$ko" ]; then
	[ -f "$ko" ] || { echo "run.sh: no such module $ko" >&2; exit 64; }
	gargs+=(--ko "$ko")
	echo "== module: $ko"
else
	echo "== module: md-raid5x.ko not built; raid5x assertions will fail"
fi

# ---- select cases --------------------------------------------------------
all=()
for f in tests/host/*.sh tests/cases/*.sh; do
	[ -e "$f" ] && all+=("$f")
done
sel=()
if [ ${#cases[@]} -eq 0 ]; then
	sel=("${all[@]}")
else
	for c in "${cases[@]}"; do
		c=${c##*/}
		c=${c%.sh}
		n=0
		for f in "${all[@]}"; do
			case ${f##*/} in
			"$c".sh|"$c"-*) sel+=("$f"); n=$((n + 1)) ;;
			esac
		done
		[ "$n" -gt 0 ] || { echo "run.sh: no test case matches '$c'" >&2; exit 64; }
	done
fi

# ---- what the selected cases' guests need built (their guest-args) --------
# need_built DIR TARGET WHAT: when a selected case's guest-args name
# build/DIR/, `make TARGET` (log in $logdir); a failed build fails the run.
need_built() {
	local log=$logdir/make-$2.log
	grep -qs "^# guest-args:.*build/$1/" "${sel[@]}" || return 0
	echo "== make $2 ($3)"
	if make "$2" >"$log" 2>&1; then
		tail -n 1 "$log" | sed 's/^/   /'
	else
		tail -n 10 "$log" | sed 's/^/   | /'
		fail_case "make $2 (log $log)"
	fi
}
need_built mdadm mdadm "patched mdadm for the guest"
need_built mdadm-forky mdadm-forky "forky's mdadm 4.6 for the guest"
need_built torture torture-helper "the torture run's static I/O helper"

# ---- fio for the guests (scripts/build-fio.sh, cached per machine) -------
# Debian's fio resolves 64 libraries at every start: 1.0 s under TCG on the
# debug kernel, 0.47 s on Debian's; the lean build starts in 75 / 28 ms.
# Exported as GUEST_FIO for every guest (the host cases' too).
echo "== fio for the guests (scripts/build-fio.sh)"
t0=$SECONDS
if scripts/build-fio.sh >"$logdir/build-fio.log" 2>&1 &&
	fiobin=$(tail -n 1 "$logdir/build-fio.log") && [ -x "$fiobin" ]; then
	export GUEST_FIO=$fiobin
	echo "   $fiobin ($(grep '^build-fio: ' "$logdir/build-fio.log" | tail -n 1 | cut -d' ' -f2-), $((SECONDS - t0)) s)"
else
	tail -n 5 "$logdir/build-fio.log" | sed 's/^/   | /'
	echo "   no lean fio (log $logdir/build-fio.log): the guests run Debian's /usr/bin/fio, slower to start"
fi

# ---- run -----------------------------------------------------------------
# alongside=1: two lanes, the second runs the debug-kernel pass (if any)
# and then takes extra kernel passes from the queue
alongside=0
if [ "$parallel" = 1 ] && [ $((debian + debug + ${#extra[@]})) -ge 2 ] &&
	{ [ "$debugonly" = 0 ] || [ ${#extra[@]} -gt 0 ]; }; then
	alongside=1
fi
suite_t0=$SECONDS
tmult=1   # timeout multiplier: 2 in the debug-kernel pass
# guest CPUs: 2 (as users run it); --smp N overrides. ptcg: how QEMU runs
# them (scripts/guest.sh --tcg-thread). While two passes share the host's
# 2 cores, every guest runs its CPUs in one host thread (single): a 2-CPU
# guest with a thread per CPU next to one busy process took 122 s instead
# of 48 s alone for 20-compat (its vCPUs spin on locks whose holder's
# thread is descheduled); in one thread 58 s, and a debug-kernel guest ran
# 30-ext4, 57 and 56 in 280 s with 2 CPUs that way against 289 s with 1.
# A guest alone gets a thread per CPU (multi). The host cases' own guests
# (30-crash) follow via GUEST_TCG_THREAD.
psmp=${smp:-2} ptcg=multi
if [ "$alongside" = 1 ]; then
	ptcg=single
fi
export GUEST_TCG_THREAD=$ptcg
# vcpus: "2 vCPU", or "2 vCPU in one thread" when they share one.
vcpus() {
	if [ "$ptcg" = single ]; then
		echo "$psmp vCPU in one thread"
	else
		echo "$psmp vCPU"
	fi
}
# timed CPUFILE CMD...: run CMD in a subshell that then writes `times` to
# CPUFILE; its second line is the CPU (user, system) of CMD and everything
# it waited for, i.e. mostly QEMU. A case's CPU time barely depends on how
# loaded the machine is, unlike its wall time: both are reported. (Counting
# this shell's own children instead would also count the debug-kernel pass
# whenever it ends during a case.)
timed() {
	local f=$1
	shift
	(
		st=0
		"$@" || st=$?
		times >"$f"
		exit "$st"
	)
}
# cpu_of CPUFILE: print the whole CPU seconds (user + system) in CPUFILE
cpu_of() {
	awk 'NR == 2 {
		n = split($0, f, /[ ms]+/); t = 0
		for (i = 1; i + 1 <= n; i += 2) if (f[i] != "") t += f[i] * 60 + f[i + 1]
		printf "%d\n", t }' "$1" 2>/dev/null || echo 0
}
# died_before_init LOG: the guest's kernel died before its /init reached
# the "GUEST-INIT: kernel" line, i.e. before anything of raid5x ran (the
# cases load the module). QEMU TCG loses such a boot now and then: an int3
# Oops while the kernel patches its own code on another vCPU, 1.7-2.2 s
# into boot (docs/reports/boot-2026-12-03.md). The caller boots once more,
# says so, and keeps the lost boot's log as LOG.lost.
# A boot can also hang before /init (QEMU spinning after the guest's early
# ACPI set-up, seen once on 2026-12-07): guest.sh gives it up after
# boot_tmo seconds (--boot-timeout, status 4; RAID5X_BOOT_TIMEOUT) instead of the case's or the
# batch's whole timeout, and it is booted once more like a lost one.
boot_tmo=${RAID5X_BOOT_TIMEOUT:-300}
died_before_init() {
	[ -z "${rebooted:-}" ] && [ -e "$1" ] && ! grep -aq '^GUEST-INIT: kernel ' "$1" || return 1
	cp "$1" "$1.lost"
	echo "   the guest died before its init ran (${1#"$top"/}.lost: $(grep -aE -m 1 'Oops|panic|BUG' "$1" | tr -s ' ' | cut -c1-100)); booting once more"
	echo "lost boot before init: ${1#"$top"/}.lost" >>"$lostb"
	return 0
}

# run_case FILE [PREFIX]: one case; PREFIX names its logs and lines
run_case() {
	local f=$1 prefix=${2:-} name log st t0 nok nnot plan body tmo
	local cargs qopt cpuf
	name=$prefix$(basename "$f" .sh)
	if [ "${f#tests/host/}" != "$f" ]; then
		# host-side test: KTAP lines on stdout, status 0 on success
		log=$logdir/host-$name.log
		echo "== host: $name"
		t0=$SECONDS
		st=0
		"$f" >"$log" 2>&1 || st=$?
		[ "$verbose" = 0 ] || cat "$log"
		nok=$(grep -cE '^ok [0-9]+ ' "$log" || true)
		nnot=$(grep -cE '^not ok [0-9]+ ' "$log" || true)
		plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)
		grep -E '^not ok [0-9]+ ' -A3 "$log" | grep -E '^(not ok|#)' | sed 's/^/  /' || true
		[ "$nnot" = 0 ] || note_failure "$(grep -E '^not ok [0-9]+ ' "$log" | sed "s/^/host-$name: /")"
		passed=$((passed + nok))
		failed=$((failed + nnot))
		if [ "$st" != 0 ] && [ "$nnot" = 0 ]; then
			fail_case "$name: host test failed without a 'not ok' (status $st)"
		fi
		check_plan "$name" "$nok" "$nnot" "$plan" "$st" "its output" || st=4
		printf '   %s: %s, %d ok, %d not ok, %d s (log %s)\n' "$name" \
			"$([ "$st" = 0 ] && [ "$nnot" = 0 ] && echo PASS || echo FAIL)" \
			"$nok" "$nnot" $((SECONDS - t0)) "${log#"$top"/}"
		return 0
	fi
	cargs=()
	case_args "$f"
	log=$logdir/$name.log
	tmo=$(case_timeout "$f")
	qopt=(--quiet)
	[ "$verbose" = 0 ] || qopt=()
	echo "== $name (timeout ${tmo} s)"
	t0=$SECONDS
	cpuf=$logdir/$name.cpu
	st=0
	KLOG_RAID456_WARN=$(case_raid456_warn "$f") \
		timed "$cpuf" scripts/guest.sh "${qopt[@]}" --smp "$psmp" --tcg-thread "$ptcg" "${gargs[@]}" ${cargs[@]+"${cargs[@]}"} --timeout "$tmo" --boot-timeout "$boot_tmo" --log "$log" \
		"$f" >"$logdir/$name.harness" 2>&1 || st=$?
	if [ "$st" != 0 ] && died_before_init "$log"; then
		rebooted=1 run_case "$@"
		return
	fi
	[ "$verbose" = 0 ] || cat "$logdir/$name.harness"
	# assertions: KTAP lines of the guest script (before the verdict)
	body=$(sed -n '/^GUEST-INIT: kernel/,/^GUEST-VERDICT: /p' "$log" 2>/dev/null || true)
	report_case "$name" "$log" "$st" $((SECONDS - t0)) "CPU $(cpu_of "$cpuf") s" <<<"$body"
}

# case_args FILE: add the case's guest.sh options ("# guest-args: ...") to
# the array cargs; a --file whose source is missing is dropped (the case
# then reports it).
case_args() {
	local hargs i=0 a
	read -r -a hargs <<<"$(sed -n 's/^# guest-args: *//p' "$1" | head -n 1)"
	while [ "$i" -lt "${#hargs[@]}" ]; do
		a=${hargs[$i]}
		if [ "$a" = --file ] && [ ! -e "${hargs[$((i + 1))]%%:/*}" ]; then
			echo "   (${hargs[$((i + 1))]%%:/*} missing: not copied into the guest)"
		elif [ "$a" = --file ]; then
			cargs+=(--file "${hargs[$((i + 1))]}")
		else
			cargs+=("$a")
			i=$((i - 1))
		fi
		i=$((i + 2))
	done
}

# case_raid456_warn FILE: the raid456 functions named by the case's
# "# raid456-warn: FUNC..." line (empty if none): scripts/klog-check.sh
# leaves out a WARN report of raid456's own raised in one of them
# (KLOG_RAID456_WARN; tests/README.md says when a case may name one).
case_raid456_warn() {
	sed -n 's/^# raid456-warn: *//p' "$1" | head -n 1
}

# case_timeout FILE: the case's timeout in seconds (--timeout, else its
# "# timeout: S" line, else 600), times the pass's multiplier.
case_timeout() {
	local tmo=$timeout
	if [ -z "$tmo" ]; then
		tmo=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
		tmo=${tmo:-600}
	fi
	echo $((tmo * tmult))
}

# run_batch PREFIX FILE...: the guest cases FILE... in one guest boot
# (tests/lib/batch-guest.sh runs them one after another and resets the
# guest in between), each reported as if it had booted alone: its own log
# ($logdir/PREFIXNAME.log: its console section and the kernel log written
# during it), its assertions, its status from its exit code and its own
# kernel log. Results are printed as each case ends. If the guest dies
# (panic, hung task, batch timeout), the case it was in fails, and the
# cases after it run one boot each (run_case).
run_batch() {
	local prefix=$1 f name blog cpuf bpid n=0 i tmo total=60 t0 qopt alive bname=$bname
	local names=() tmos=() specs=() cargs=() ends files
	shift
	files=("$@")
	for f in "$@"; do
		name=$(basename "$f" .sh)
		tmo=$(case_timeout "$f")
		names+=("$name")
		tmos+=("$tmo")
		specs+=("$name:$tmo")
		total=$((total + tmo))
		cargs+=(--file "$top/$f:/cases/$name.sh")
		case_args "$f"
	done
	bname=${bname:-${prefix}batch}
	blog=$logdir/$bname.log
	cpuf=$logdir/$bname.cpu
	qopt=(--quiet)
	[ "$verbose" = 0 ] || qopt=()
	echo "== $bname: ${#names[@]} cases in one guest boot (log ${blog#"$top"/})"
	t0=$SECONDS
	rm -f "$blog"
	timed "$cpuf" scripts/guest.sh "${qopt[@]}" --smp "$psmp" --tcg-thread "$ptcg" "${gargs[@]}" "${cargs[@]}" \
		--timeout "$total" --boot-timeout "$boot_tmo" --log "$blog" tests/lib/batch-guest.sh "${specs[@]}" \
		>"$logdir/$bname.harness" 2>&1 &
	bpid=$!
	while :; do
		alive=0
		kill -0 "$bpid" 2>/dev/null && alive=1
		mapfile -t ends < <(grep -a '^GUEST-CASE-END: ' "$blog" 2>/dev/null || true)
		while [ "$n" -lt "${#ends[@]}" ] && [ "$n" -lt "${#names[@]}" ]; do
			batch_case "$prefix" "${names[$n]}" "${tmos[$n]}" "$blog" "${ends[$n]}" "${files[$n]}"
			n=$((n + 1))
		done
		[ "$alive" = 1 ] || break
		sleep 1
	done
	wait "$bpid" || true
	[ "$verbose" = 0 ] || cat "$logdir/$bname.harness"
	echo "   $bname: $n of ${#names[@]} cases ended in the boot, $((SECONDS - t0)) s, CPU $(cpu_of "$cpuf") s, $(vcpus)"
	[ "$n" -lt "${#names[@]}" ] || return 0
	if [ "$n" = 0 ] && died_before_init "$blog"; then
		rebooted=1 run_batch "$prefix" "${files[@]}"
		return
	fi
	# the guest died during case n: that case fails, the rest boot alone
	name=$prefix${names[$n]}
	awk -v b="GUEST-CASE-BEGIN: ${names[$n]}" '$0 == b { p = 1 } p' "$blog" >"$logdir/$name.log"
	{
		echo "guest.sh: $name: the guest died in this case (panic, hung task or the batch's timeout), see ${blog#"$top"/}"
		# the boot's own verdict (timeout, no verdict, harness error);
		# its kernel-log matches may be other cases'
		grep -E '^guest\.sh: ' "$logdir/$bname.harness" |
			grep -vE ': (kernel log matches|KUnit failure in|FAIL \(status)' || true
	} >"$logdir/$name.harness"
	grep -E '^\[ *[0-9]+\.[0-9]+\]' "$logdir/$name.log" >"$logdir/$name.klog" || true
	KLOG_RAID456_WARN=$(case_raid456_warn "${files[$n]}") \
		scripts/klog-check.sh "$name" "$logdir/$name.klog" 2>>"$logdir/$name.harness" || true
	report_case "$name" "$logdir/$name.log" 3 0 "guest died in it" <<<"$(cat "$logdir/$name.log")"
	for ((i = n + 1; i < ${#names[@]}; i++)); do
		run_case "${files[$i]}" "$prefix"
	done
}

# batch_case PREFIX NAME TIMEOUT BATCHLOG ENDLINE FILE: report one case
# (FILE) of a batch from its section of BATCHLOG.
batch_case() {
	local name=$1$2 guest=$2 tmo=$3 blog=$4 end=$5 file=$6 rc secs st=0 log
	log=$logdir/$name.log
	awk -v b="GUEST-CASE-BEGIN: $guest" -v e="GUEST-CASE-END: $guest " \
		'$0 == b { p = 1 } p { print } p && index($0, e) == 1 { exit }' "$blog" >"$log"
	rc=$(sed -n 's/.* rc=\([0-9]*\).*/\1/p' <<<"$end")
	secs=$(sed -n 's/.* secs=\([0-9]*\).*/\1/p' <<<"$end")
	: >"$logdir/$name.harness"
	if [ "$rc" != 0 ] && [ "${secs:-0}" -ge "$tmo" ]; then
		echo "guest.sh: $name: timeout after $tmo s in the batch boot" >>"$logdir/$name.harness"
		st=3
	elif [ "$rc" != 0 ]; then
		echo "guest.sh: $name: exit status $rc" >>"$logdir/$name.harness"
		st=1
	fi
	# its kernel log: the dmesg written while it ran, dumped after it
	sed -n '/^@@CASE-DMESG-BEGIN@@$/,/^@@CASE-DMESG-END@@$/p' "$log" >"$logdir/$name.klog"
	if ! KLOG_RAID456_WARN=$(case_raid456_warn "$file") \
		scripts/klog-check.sh "$name" "$logdir/$name.klog" 2>>"$logdir/$name.harness"; then
		[ "$st" = 3 ] || st=2
	fi
	report_case "$name" "$log" "$st" "${secs:-0}" "one boot" \
		<<<"$(sed '/^@@CASE-DMESG-BEGIN@@$/,/^@@CASE-DMESG-END@@$/d' "$log")"
}

# report_case NAME LOG ST SECS TIME_NOTE <BODY: count and show one guest
# case's assertions (KTAP lines in BODY, on stdin), add its case-level
# failure for a guest status ST (scripts/guest.sh's: 1 script failed, 2
# kernel log splat, 3 timeout or crash) and print its result line. Lines
# "guest.sh: ..." in $logdir/NAME.harness explain a non-zero ST.
report_case() {
	local name=$1 log=$2 st=$3 dt=$4 tnote=$5 body nok nnot plan verdict
	body=$(cat)
	nok=$(grep -cE '^ok [0-9]+ ' <<<"$body" || true)
	nnot=$(grep -cE '^not ok [0-9]+ ' <<<"$body" || true)
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' <<<"$body" | head -n 1)
	# show each failed assertion with its diagnostics
	# (the "# " diagnostics just before and after it)
	awk '/^# / { if (p) print "    " $0; else if (!/^# took /) buf[n++ % 8] = $0; next }
		/^not ok [0-9]+ / {
			print "  " $0
			for (i = (n > 8 ? n - 8 : 0); i < n; i++) print "    " buf[i % 8]
			p = 1; n = 0; next
		}
		{ p = 0; n = 0 }' <<<"$body" >"$logdir/$name.failed"
	cat "$logdir/$name.failed"
	[ ! -s "$logdir/$name.failed" ] ||
		note_failure "$name:" "$(head -n 12 "$logdir/$name.failed")"
	passed=$((passed + nok))
	failed=$((failed + nnot))
	case $st in
	0) ;;
	1) [ "$nnot" -gt 0 ] || fail_case "$name: guest script failed without a 'not ok'" ;;
	2) fail_case "$name: kernel log splat" ;;
	3) fail_case "$name: guest timeout or crash" ;;
	*) fail_case "$name: harness error (status $st)" ;;
	esac
	if [ "$st" != 0 ]; then
		grep -E '^guest\.sh: ' "$logdir/$name.harness" | grep -v ': FAIL (status' |
			sed 's/^/    /' | tee -a "${fsum:-/dev/null}" || true
	fi
	check_plan "$name" "$nok" "$nnot" "$plan" "$st" "its log (${log#"$top"/})" || st=4
	if [ "$st" = 0 ] && [ "$nnot" = 0 ]; then
		verdict=PASS
	else
		verdict=FAIL
	fi
	printf '   %s: %s, %d ok, %d not ok, %d s, %s, %s (log %s)\n' \
		"$name" "$verdict" "$nok" "$nnot" "$dt" "$tnote" "$(vcpus)" "${log#"$top"/}"
}

# run_guest_cases PREFIX FILE...: the guest cases, in one boot (run_batch)
# or, with --boot-each, one boot each.
run_guest_cases() {
	local prefix=$1 f
	shift
	[ $# -gt 0 ] || return 0
	if [ "$booteach" = 1 ]; then
		for f in "$@"; do
			run_case "$f" "$prefix"
		done
	else
		run_batch "$prefix" "$@"
	fi
}

# ---- the debug-kernel pass (KUnit, lockdep, KASAN) -----------------------
debug_pass() {
	local t0 dko paths f gsel p0=$passed f0=$failed
	echo "== debug kernel (scripts/debug-kernel.sh; first build takes minutes)"
	t0=$SECONDS
	if ! paths=$(scripts/debug-kernel.sh --print-paths 2>"$logdir/debug-kernel.log"); then
		tail -n 20 "$logdir/debug-kernel.log" | sed 's/^/   | /'
		fail_case "debug kernel build (log $logdir/debug-kernel.log)"
		kernel_sum "debug kernel" "$p0" "$f0"
		return 0
	fi
	eval "$paths"
	echo "   debug kernel $KVER ready in $((SECONDS - t0)) s"
	dko=$logdir/debug-module
	rm -rf "$dko" && mkdir -p "$dko/mdinc"
	cp ./*.c ./*.h Kbuild "$dko/"
	# md.h and r5x_features.h (scripts/kfeatures.sh) in a copy, not in
	# the debug kernel's tree
	cp "$MDINC"/*.h "$dko/mdinc/"
	if ! { scripts/kfeatures.sh "$KDIR" "$dko/mdinc" &&
		make -C "$KDIR" M="$dko" MDINC="$dko/mdinc" W=1 modules; } >"$logdir/debug-make.log" 2>&1; then
		tail -n 20 "$logdir/debug-make.log" | sed 's/^/   | /'
		fail_case "build md-raid5x.ko for the debug kernel"
		kernel_sum "debug $KVER" "$p0" "$f0"
		return 0
	fi
	gargs=(--kernel "$KERNEL" --moddir "$MODDIR" --kver "$KVER" --ko "$dko/md-raid5x.ko"
		--append "gl_scale=$dscale gl_sample=$dsample random.trust_cpu=on")
	# slower kernel, two guests at a time: a case's timeout is doubled.
	# Alongside the Debian pass its guest runs its 2 CPUs in one host
	# thread (see ptcg above); once the Debian pass is over (a fresh
	# machine spends most of that pass building the debug kernel) the
	# guest runs alone: a thread per CPU.
	tmult=2
	if [ "$alongside" = 1 ] && [ ! -e "$ddone" ]; then
		ptcg=single
	else
		ptcg=multi
	fi
	gsel=()
	for f in "${sel[@]}"; do
		[[ $f == tests/cases/* ]] || continue
		if [ "${RAID5X_DEBUG_ALL:-0}" = 1 ] ||
			grep -q '^# debug-kernel: yes' "$f"; then
			gsel+=("$f")
		fi
	done
	# Its last $dtailn cases (RAID5X_DEBUG_TAIL) go to whichever lane is
	# free first: this one after its other cases, or the Debian pass's lane
	# once that pass is over (debug_tail; a second debug guest, both in one
	# thread each). The first to create $dclaim runs them. Not when the
	# Debian pass is already over (a fresh machine, after the kernel build).
	dtail=()
	if [ "$alongside" = 1 ] && [ ! -e "$ddone" ] && [ "$booteach" = 0 ] &&
		[ "${#gsel[@]}" -gt "$dtailn" ] && [ "$dtailn" -gt 0 ]; then
		dtail=("${gsel[@]:${#gsel[@]}-$dtailn}")
		gsel=("${gsel[@]:0:${#gsel[@]}-$dtailn}")
		declare -p gargs dtail >"$dtenv"
	fi
	run_guest_cases debug- ${gsel[@]+"${gsel[@]}"}
	[ "${#dtail[@]}" = 0 ] ||
		echo "== its last ${#dtail[@]} cases run once the kernel passes are taken, in whichever lane is free first (debug_tail)"
	echo "== debug-kernel pass time $((SECONDS - t0)) s (volume scale $dscale)"
	kernel_sum "debug $KVER" "$p0" "$f0"
}

# kernel_sum LABEL P0 F0: the pass's own counts (since passed=P0,
# failed=F0) as "LABEL: N passed, N failed", printed and kept for the
# summary ($ksum; both lanes append)
kernel_sum() {
	local line
	line="$1: $((passed - $2)) passed, $((failed - $3)) failed"
	echo "== $line"
	echo "$line" >>"$ksum"
}

# kernel_pass LINE LANE: every guest case on Debian's current kernel of
# LINE (6.12, 7), in lane LANE (main or debug: whether the other lane may
# still be busy): scripts/kroot.sh prepares the kernel and builds
# md-raid5x.ko for it in $logdir/module-KVER
kernel_pass() {
	local line=$1 lane=$2 t0 env dko f gsel=() p0=$passed f0=$failed
	local KVER KERNEL MODDIR gargs=() tmult=1 ptcg=multi other
	echo "== kernel $line: Debian's current kernel (scripts/kroot.sh prepare $line)"
	t0=$SECONDS
	if ! env=$(scripts/kroot.sh prepare "$line" 2>"$logdir/kroot-$line.log"); then
		tail -n 20 "$logdir/kroot-$line.log" | sed 's/^/   | /'
		fail_case "prepare kernel $line (log $logdir/kroot-$line.log)"
		kernel_sum "kernel $line" "$p0" "$f0"
		return 0
	fi
	eval "$(grep -E '^(KVER|KERNEL|MODDIR)=' <<<"$env")"
	echo "   $KVER ready in $((SECONDS - t0)) s ($KERNEL)"
	if [ "$noko" = 0 ]; then
		dko=$logdir/module-$KVER
		mkdir -p "$dko"
		rm -f "$dko"/*.[ch] "$dko/Kbuild"
		cp -p ./*.c ./*.h Kbuild "$dko/"
		t0=$SECONDS
		if ! scripts/kroot.sh make "$KVER" "$dko" W=1 >"$logdir/make-$KVER.log" 2>&1; then
			tail -n 20 "$logdir/make-$KVER.log" | sed 's/^/   | /'
			fail_case "build md-raid5x.ko for $KVER (log $logdir/make-$KVER.log)"
			kernel_sum "$KVER" "$p0" "$f0"
			return 0
		fi
		echo "   md-raid5x.ko for $KVER built in $((SECONDS - t0)) s ($(grep -c 'warning:' "$logdir/make-$KVER.log") warnings)"
		gargs+=(--ko "$dko/md-raid5x.ko")
	fi
	# md-mod with llbitmap built in, for the cases that say they need it
	# (Debian builds it into no kernel; exit 2: this md has none)
	if grep -qs '^# needs:.*md-llbitmap' "${sel[@]}"; then
		local llko rc=0
		llko=$(scripts/md-llbitmap.sh "$KVER" 2>"$logdir/md-llbitmap-$KVER.log") || rc=$?
		case $rc in
		0) gargs+=(--file "$llko:/opt/md-llbitmap/md-mod.ko")
		   echo "   md-mod.ko with llbitmap for $KVER: $llko" ;;
		2) ;;
		*) tail -n 20 "$logdir/md-llbitmap-$KVER.log" | sed 's/^/   | /'
		   fail_case "build md-mod with llbitmap for $KVER (log $logdir/md-llbitmap-$KVER.log)" ;;
		esac
	fi
	gargs+=(--kernel "$KERNEL" --moddir "$MODDIR" --kver "$KVER")
	gargs+=(--append "gl_scale=$kscale gl_sample=$ksample")
	# one host thread for the guest's CPUs while the other lane runs
	other=$bdone
	[ "$lane" = main ] || other=$ddone
	if [ "$alongside" = 1 ] && [ ! -e "$other" ]; then
		ptcg=single
	fi
	for f in "${sel[@]}"; do
		[[ $f == tests/cases/* ]] && gsel+=("$f")
	done
	t0=$SECONDS
	run_guest_cases "$line-" ${gsel[@]+"${gsel[@]}"}
	echo "== kernel $KVER pass time $((SECONDS - t0)) s (volume scale $kscale)"
	kernel_sum "$KVER" "$p0" "$f0"
}

# run_queue LANE: the extra kernel passes no lane has taken yet
run_queue() {
	local l
	for l in ${extra[@]+"${extra[@]}"}; do
		mkdir "$logdir/pass-$l.claim" 2>/dev/null || continue
		kernel_pass "$l" "$1"
	done
}

# debug_tail DONE: the debug pass's last cases (debug_pass wrote them and
# its guest options to $dtenv), in the lane that gets here first once the
# queue of kernel passes is empty: the Debian pass's lane or the debug
# lane (the whole kernel passes first, then this short one: in CI the
# debug lane took its tail, then the 7.x pass, 644 s after the other lane
# had ended). DONE: the file that says the other lane is over (its guest
# then gets a host thread per CPU).
debug_tail() {
	local gargs=() dtail=() tmult=2 ptcg=single p0=$passed f0=$failed
	[ -s "$dtenv" ] && mkdir "$dclaim" 2>/dev/null || return 0
	[ ! -e "$1" ] || ptcg=multi
	# shellcheck source=/dev/null
	. "$dtenv"
	echo "== debug-kernel pass: its last ${#dtail[@]} cases (debug_tail)"
	bname=debug-tail-batch run_guest_cases debug- "${dtail[@]}"
	kernel_sum "debug kernel, its last ${#dtail[@]} cases" "$p0" "$f0"
}

dpid="" dout=$logdir/debug-pass.out dres=$logdir/debug-pass.res ddone=$logdir/debian-pass.done
dtenv=$logdir/debug-tail.env dclaim=$logdir/debug-tail.claim bdone=$logdir/debug-lane.done
ksum=$logdir/kernels.sum
fsum=$logdir/failures.sum
lostb=$logdir/lost-boots
rm -f "$lostb"
rm -rf "$ddone" "$dtenv" "$dclaim" "$bdone" "$ksum" "$logdir"/pass-*.claim
: >"$ksum"
: >"$fsum"
if [ "$alongside" = 1 ]; then
	rm -f "$dres"
	(
		# the lane counts its own results and hands them back in $dres;
		# its lines show as they come, marked "debug|", between the first
		# lane's (all of them are also in $dout)
		{
			# shellcheck disable=SC2030
			passed=0 failed=0
			[ "$debug" = 0 ] || debug_pass
			run_queue debug
			debug_tail "$ddone"
			: >"$bdone"
			echo "$passed $failed" >"$dres"
		} 2>&1 | tee "$dout" | sed -u 's/^/debug| /'
	) &
	dpid=$!
	echo "== second lane: $([ "$debug" = 0 ] || echo "the debug-kernel pass, then ")kernel passes from the queue (its lines marked 'debug|'; ${dout#"$top"/})"
fi

gsel=()
# shellcheck disable=SC2031 # this shell's counts (the lane's are its own)
p0=$passed f0=$failed
for f in "${sel[@]}"; do
	if [[ $f == tests/cases/* ]]; then
		gsel+=("$f")
	else
		run_case "$f"
	fi
done
# shellcheck disable=SC2031
[ $((passed + failed)) = $((p0 + f0)) ] || kernel_sum "host" "$p0" "$f0"
if [ "$debian" = 1 ] && [ "${#gsel[@]}" -gt 0 ]; then
	# shellcheck disable=SC2031
	p0=$passed f0=$failed t0=$SECONDS
	dkver=$(sed -n 's/.*--kver \([^ ]*\).*/\1/p' <<<"${gargs[*]}")
	[ -n "$dkver" ] || dkver=$(scripts/kver.sh 2>/dev/null || echo "Debian kernel")
	run_guest_cases "" "${gsel[@]}"
	echo "== kernel $dkver pass time $((SECONDS - t0)) s"
	kernel_sum "$dkver" "$p0" "$f0"
fi
run_queue main
: >"$ddone"   # this lane's passes are over (debug_pass reads it)
[ -z "$dpid" ] || debug_tail "$bdone"

if [ -n "$dpid" ]; then
	t0=$SECONDS
	# bash may have dropped the lane from its list of children (it keeps
	# a bounded number of finished ones): then wait says "not a child"
	# and returns at once, so also poll until the lane is gone
	wait "$dpid" 2>/dev/null || true
	while kill -0 "$dpid" 2>/dev/null; do sleep 1; done
	echo "== (waited $((SECONDS - t0)) s for the second lane; its output: ${dout#"$top"/})"
	if read -r dp df <"$dres" 2>/dev/null; then
		# shellcheck disable=SC2031
		passed=$((passed + dp))
		# shellcheck disable=SC2031
		failed=$((failed + df))
	else
		fail_case "debug-kernel pass ended without a result (${dout#"$top"/})"
	fi
elif [ "$debug" = 1 ]; then
	debug_pass
fi
if [ -s "$ksum" ]; then
	echo "== per kernel"
	sed 's/^/   /' "$ksum"
fi
if [ -s "$fsum" ]; then
	# what failed, where the last lines of a CI log show it
	echo "== failures (each case's log: ${logdir#"$top"/}/NAME.log)"
	head -n 60 "$fsum" | sed 's/^/   /'
fi
if [ -s "$lostb" ]; then
	echo "== guest boots lost before init and booted again: $(wc -l <"$lostb")"
	sed 's/^/   /' "$lostb"
fi
echo "== suite time $((SECONDS - suite_t0)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
exit
}
