#!/usr/bin/env bash
# bench.sh: side-by-side benchmark of raid5x against the in-kernel raid456
# (at its defaults and at its best tuning) and raid0 (`make bench`), in one
# QEMU guest boot.
#
# usage: scripts/bench.sh [options]
#   (`make bench BENCH_ARGS="--reps 1 --jobs seq-write-1M"` passes options)
# suite (default): every job on fresh arrays of the same geometry, raid456,
# raid456t, raid5x and raid0 over members-1 devices (the ceiling: same data,
# no parity), interleaved (A B C D, then B C D A, ...) and repeated.
# raid456t is raid456 at a safe tuning: the same array, then
# md/stripe_cache_size 4096, md/skip_copy 0, md/group_thread_cnt 2, each
# written and read back in the guest (a failure fails that run); the
# report's x/456t column is raid5x at its defaults / raid456t.
#   --members N        members of the RAID5 arrays (4)
#   --chunk KB         chunk size (512)
#   --size MB          member size (400); members are sparse files on the
#                      guest's tmpfs behind loop devices
#   --reps N           repetitions (3)
#   --jobs LIST        comma-separated job names (all: every job --list-jobs
#                      shows but those run only with --jobs)
#   --arrays LIST      subset/order of raid456,raid456t,raid5x,raid0 (all
#                      four, in this order); also raid456u (raid456t with
#                      md/skip_copy 1: faster, but unsafe for O_DIRECT
#                      writers, whose buffer md then writes and computes
#                      parity from while the program may change it) and
#                      raid456+sys.NAME=VAL[+sys.NAME=VAL] (raid456 with
#                      md/NAME set and read back); the report's 456best
#                      is the best safe raid456 (every raid456 kind but
#                      raid456u) per job. Any RAID5 name may end in @bm
#                      (an internal bitmap, mdadm's default chunk) or
#                      @bmCHUNK (e.g. raid5x@bm4M), or in @ll (md's
#                      lockless bitmap, --kernel 7 only: md-mod rebuilt
#                      with it, scripts/md-llbitmap.sh, and forky's mdadm
#                      in the guest; every array of that boot runs on
#                      that md-mod): the report compares
#                      each @ group on its own and adds the bitmap's cost
#                      (with / without) per personality;
#                      raid5x+NAME=VAL[+NAME=VAL]
#                      is raid5x with md-raid5x reloaded with those module
#                      parameters for its runs (raid5x's runs reload it
#                      without), to compare a parameter in one boot: e.g.
#                      --arrays raid456,raid5x,raid5x+NAME=1 (sys.NAME=VAL:
#                      the array's md/NAME, written after the takeover and
#                      read back, e.g. raid5x+sys.worker_threads=2); the report
#                      adds its ratios to raid456 and to raid5x
#   --io MB            bytes per sequential job (128); random jobs do a
#                      quarter of it, the ext4 job copies a tree of ~0.9x it
#                      into a file system of 3x it
#   --region MB        region of the random jobs (256)
#   --check MODE       parity check (md "check" over the written region)
#                      after raid5x runs (raid5x, default), after every
#                      raid456, raid456t and raid5x run (all), or never
#                      (none); every run also gets a data check (fio
#                      verify_only replay, e2fsck + md5sum)
#   --dirty MB         guest vm.dirty_bytes, so buffered writes stream like a
#                      long dd (64; 0 = kernel default)
#   --tune NAME=VAL    set a raid5x tunable after takeover (repeatable;
#                      stripe_cache_size is set on raid456 too, not on
#                      raid456t: it keeps its fixed tuning above, the
#                      safe reference, whatever raid5x
#                      is tuned to)
#   --bitmap B         bm or bmCHUNK: an internal bitmap on every RAID5
#                      array (suite and hunt) whose name has no @ part
#                      (default: none)
#   --member-delay R[:W]  members behind dm-delay: each member read waits
#                      R ms, each write W ms (default 0), so a pre-read
#                      costs what a seek costs a disk (tmpfs reads are
#                      nearly free); raid0 gets the same members
#   --profile          run every suite job under `perf record -a` (cpu-clock
#                      samples) and read the md thread's CPU time: the
#                      report adds where each array's CPU went per MiB
#                      (md thread: copy, XOR, the rest; fio's submission;
#                      kernel workers: loop's member I/O, the flusher;
#                      other), the top symbols of the md thread, fio and
#                      the kernel workers, and the busiest other commands
#                      (ksoftirqd: member completions loop raised from
#                      its worker). Sampling
#                      costs throughput: compare ratios, not absolute MiB/s;
#                      needs perf on the host (apt-get install linux-perf)
#   --locks            run every suite job under `perf lock record -a` (the
#                      kernel's lock contention tracepoints; no lockdep, so
#                      on Debian's own kernel): the report adds contended
#                      acquisitions per MiB, time waiting, and the callers
#                      that waited longest; not with --profile
# hunt (--hunt): seed 003's counter-example search, raid456 vs raid5x (and
# raid456t with --hunt-arrays), all arrays alive at once and alternating per
# cell, time-based fio cells:
#   --hunt-members LIST (3,4,6)  --hunt-chunks LIST (64,512)
#   --hunt-size MB (160)  --hunt-region MB (256)  --hunt-runtime S (3)
#   --hunt-reps N (2)
#   --hunt-cells LIST  RW:BS:QD,... RW seq|rand, BS 4k|64k|1m|fs (one full
#                      stripe), QD libaio depth (seq:4k:32,seq:64k:32,
#                      seq:1m:1,seq:1m:8,seq:fs:1,rand:4k:1,rand:4k:32,
#                      rand:64k:8); 6 geometries x 8 cells x 2 arrays x 2
#                      reps = 192 runs, about 20 min
#   --hunt-arrays LIST the contestants, a subset/order of raid456,raid456t,
#                      raid5x with raid5x among them (raid456,raid5x);
#                      raid456,raid456t,raid5x adds a third array to every
#                      cell (half as long again) and an x/456t verdict
# common:
#   --kernel K         the guest kernel: 6.1 (this host's Debian 6.1), 6.12
#                      (trixie's current), 7 (forky's current) or a full
#                      release, as tests/run.sh --kernels: scripts/kroot.sh
#                      prepare K readies its image, module tree and build
#                      root (cached), the module is built for it in
#                      BUILD/bench-module/KVER (kroot.sh make) and every
#                      array runs on it, raid456 being that kernel's own.
#                      Default: the host's Debian 6.1 kernel, module built
#                      in the tree (make)
#   --append ARGS      extra guest kernel command line; md_raid5x.NAME=VAL
#                      sets a module parameter (the guest's modprobe reads
#                      it when it loads md-raid5x)
#   --ko FILE          use this module (default: run `make`, use ./md-raid5x.ko;
#                      with --kernel it must be built for that kernel)
#   --no-build         do not run `make`; use ./md-raid5x.ko as it is
#   --out DIR          results directory (build/bench)
#   --mem MB           guest memory (3072)
#   --smp N            guest CPUs (2; under TCG a host thread per vCPU, so
#                      -smp 4 on 2 host cores shows contention, not speed)
#   --timeout S        guest timeout (default: from the number of runs); a
#                      guest whose /init has not started after 300 s
#                      (BENCH_BOOT_TIMEOUT), a boot QEMU TCG lost, is
#                      booted once more (its console kept as LOG.lost)
#   --report LOG       do not run anything: rebuild the report from LOG
#   --verbose          stream the whole guest console
#   --list-jobs        print the suite's jobs and exit
#
# Output: a progress line per run, then a Markdown table (also DIR/report.md),
# DIR/results.json and DIR/bench.png (gnuplot); for --hunt DIR/hunt.md and
# DIR/hunt.json. The console log is DIR/suite.log or DIR/hunt.log. The last
# lines give the exact command and the kernel/module versions.
# Exit status: 0 all runs verified, 1 a run failed or failed verification,
# 2 the guest failed (crash, timeout, kernel splat), 64 usage.
set -euo pipefail
# The body is one { } block: bash parses it whole before running, so
# editing this file while a benchmark runs (it runs for many minutes)
# cannot break that run's report step.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")

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
die() {
	echo "bench.sh: $*" >&2
	exit 64
}

list_jobs() {
	cat <<'EOF'
seq-write-2M-buffered  buffered sequential 2M writes + fsync (dd-like, seed 000)
seq-write-fullstripe   O_DIRECT psync writes of one full stripe, chunk*(members-1) (seed 001)
seq-write-1M           O_DIRECT sequential 1M writes, libaio qd8
seq-write-64K          O_DIRECT sequential 64K writes, libaio qd32
seq-write-100K         O_DIRECT sequential 100K writes (odd size), libaio qd8
rand-write-4K          O_DIRECT random 4K writes, libaio qd32 (io/4 over --region)
rand-rw-70-30-4K       O_DIRECT random 4K 70% reads / 30% writes, qd16 (io/4 over --region)
seq-read-8K-x4         O_DIRECT sequential 8K reads, qd64, 4 jobs, prefilled (seed 003)
ext4-copy              mkfs.ext4 (3*io MB), cp -a of a generated tree (~0.9*io MB), sync
seq-write-1M-qd1       O_DIRECT sequential 1M writes, psync (dd oflag=direct; only with --jobs)
EOF
}

# Command line: BENCH_ARGS (from `make bench BENCH_ARGS=...`) when no args.
orig_args=("$@")
if [ $# -eq 0 ] && [ -n "${BENCH_ARGS:-}" ]; then
	read -r -a orig_args <<<"$BENCH_ARGS"
	set -- "${orig_args[@]}"
fi

mode=suite profile=0 locks=0 ko="" build=1 out="" mem=3072 smp=2 timeout="" report_log="" verbose=0
kline="" llbitmap=0 append=""
gargs=() tunes=()
num() { [[ $2 =~ ^[0-9]+$ ]] || die "$1 wants a number, got '$2'"; }
list() { [[ $2 =~ ^[A-Za-z0-9:,_-]+$ ]] || die "$1 wants a comma-separated list, got '$2'"; }
while [ $# -gt 0 ]; do
	opt=$1
	case $opt in
	--members | --chunk | --size | --reps | --io | --region | --dirty | --hunt-size | \
		--hunt-region | --hunt-runtime | --hunt-reps)
		[ $# -ge 2 ] || die "$opt needs a value"
		num "$opt" "$2"
		k=${opt#--}
		gargs+=("${k//-/_}=$2")
		shift 2 ;;
	--jobs | --arrays | --hunt-members | --hunt-chunks | --hunt-cells | --hunt-arrays)
		[ $# -ge 2 ] || die "$opt needs a value"
		if [ "$opt" = --arrays ]; then
			[[ $2 =~ ^[A-Za-z0-9.,_+=@-]+$ ]] || die "$opt wants a comma-separated list, got '$2'"
		else
			list "$opt" "$2"
		fi
		k=${opt#--}
		gargs+=("${k//-/_}=$2")
		shift 2 ;;
	--check)
		case ${2:-} in raid5x | all | none) ;; *) die "--check wants raid5x, all or none" ;; esac
		gargs+=("check=$2")
		shift 2 ;;
	--tune)
		[[ ${2:-} =~ ^[a-z_]+=[0-9]+$ ]] || die "--tune wants NAME=NUMBER"
		tunes+=("${2/=/:}")
		shift 2 ;;
	--hunt) mode=hunt; shift ;;
	--profile) profile=1; gargs+=(profile=1); shift ;;
	--locks) locks=1; gargs+=(locks=1); shift ;;
	--bitmap)
		[[ ${2:-} =~ ^(none|bm|bm[0-9]+[KMG])$ ]] || die "--bitmap wants none, bm or bmCHUNK (e.g. bm4M)"
		gargs+=("bitmap=$2")
		shift 2 ;;
	--member-delay)
		[[ ${2:-} =~ ^[0-9]+(:[0-9]+)?$ ]] || die "--member-delay wants READ_MS or READ_MS:WRITE_MS"
		gargs+=("member_delay=$2")
		shift 2 ;;
	--kernel) kline=${2:?--kernel needs 6.1, 6.12, 7 or a release}; shift 2 ;;
	--append) append=${2:?--append needs kernel arguments}; shift 2 ;;
	--ko) ko=${2:?--ko needs a file}; build=0; shift 2 ;;
	--no-build) build=0; shift ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--mem) num "$1" "${2:-}"; mem=$2; shift 2 ;;
	--smp) num "$1" "${2:-}"; [ "$2" -ge 1 ] || die "--smp wants 1 or more"; smp=$2; shift 2 ;;
	--timeout) num "$1" "${2:-}"; timeout=$2; shift 2 ;;
	--report) report_log=${2:?--report needs a console log}; shift 2 ;;
	--verbose | -v) verbose=1; shift ;;
	--list-jobs) list_jobs; exit 0 ;;
	-h | --help) usage 0 ;;
	*) echo "bench.sh: unknown option $opt" >&2; usage ;;
	esac
done
[ "$mode$profile" != hunt1 ] || die "--profile is for the suite, not --hunt"
[ "$mode$locks" != hunt1 ] || die "--locks is for the suite, not --hunt"
[ "$profile$locks" != 11 ] || die "--locks and --profile both run perf: choose one"
[ "$mode" = suite ] || [[ " ${gargs[*]}" != *" member_delay="* ]] ||
	die "--member-delay is for the suite, not --hunt"
[ "$mode" = hunt ] || [[ " ${gargs[*]}" != *" hunt_arrays="* ]] ||
	die "--hunt-arrays is for --hunt (the suite's is --arrays)"
# names are checked here, not after a guest boot
for a in "${gargs[@]}"; do
	case $a in
	jobs=*)
		[ "${a#jobs=}" = all ] && continue
		IFS=, read -r -a l <<<"${a#jobs=}"
		for j in "${l[@]}"; do
			list_jobs | grep -q "^$j " || die "unknown job '$j' (--list-jobs)"
		done ;;
	arrays=*)
		IFS=, read -r -a l <<<"${a#arrays=}"
		for j in "${l[@]}"; do
			if [[ $j == *@* ]]; then
				[[ ${j#*@} =~ ^(bm([0-9]+[KMG])?|ll)$ ]] ||
					die "array '$j': the part after @ is bm, bmCHUNK (e.g. bm4M) or ll"
				[[ $j != *@ll ]] || llbitmap=1
				[[ $j != raid0@* ]] || die "array '$j': raid0 has no bitmap here"
				j=${j%%@*}
			fi
			case $j in
			raid456 | raid456t | raid456u | raid5x | raid0) ;;
			raid5x+*)
				[[ $j =~ ^raid5x(\+(sys\.)?[a-z0-9_]+=[A-Za-z0-9_-]+)+$ ]] ||
					die "array '$j': raid5x+NAME=VALUE[+NAME=VALUE...] (module parameters; sys.NAME: md/NAME of the array)" ;;
			raid456+*)
				[[ $j =~ ^raid456(\+sys\.[a-z0-9_]+=[0-9]+)+$ ]] ||
					die "array '$j': raid456+sys.NAME=NUMBER[+sys.NAME=NUMBER...] (md/NAME of the array)" ;;
			*) die "unknown array '$j' (raid456, raid456t, raid456u, raid5x, raid0, raid5x+NAME=VALUE, raid456+sys.NAME=VALUE, NAME@bm, NAME@ll)" ;;
			esac
		done
		[ "$(printf '%s\n' "${l[@]}" | sort -u | wc -l)" = "${#l[@]}" ] ||
			die "--arrays: an array named twice" ;;
	hunt_arrays=*)
		IFS=, read -r -a l <<<"${a#hunt_arrays=}"
		for j in "${l[@]}"; do
			case $j in
			raid456 | raid456t | raid5x) ;;
			*) die "--hunt-arrays: unknown array '$j' (raid456, raid456t, raid5x)" ;;
			esac
		done
		[ "$(printf '%s\n' "${l[@]}" | sort -u | wc -l)" = "${#l[@]}" ] ||
			die "--hunt-arrays: an array named twice"
		[[ ,${a#hunt_arrays=}, == *,raid5x,* ]] || die "--hunt-arrays must include raid5x" ;;
	esac
done
out=${out:-${BUILD:-$top/build}/bench}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ ${#tunes[@]} -gt 0 ]; then
	gargs+=("tune=$(IFS=,; echo "${tunes[*]}")")
fi
gargs=("mode=$mode" "${gargs[@]}")

# the exact command, for quoting results
cmdline=${self#"$top"/}
for a in "${orig_args[@]}"; do
	if [[ $a =~ ^[A-Za-z0-9_.,:/=+@-]+$ ]]; then cmdline+=" $a"; else cmdline+=" $(printf '%q' "$a")"; fi
done
[ $# -eq 0 ] && [ -n "${BENCH_ARGS:-}" ] && cmdline="BENCH_ARGS='$BENCH_ARGS' make bench  # = $cmdline"

report() {
	local log=$1 rc=0
	shift
	python3 "$here/bench-report.py" --log "$log" --outdir "$out" --mode "$mode" "$@" || rc=$?
	return "$rc"
}

if [ -n "$report_log" ]; then
	[ -f "$report_log" ] || die "no such log: $report_log"
	# the records are base64 in the console log: the report reads the
	# mode from the log's header record
	python3 "$here/bench-report.py" --log "$report_log" --outdir "$out" \
		--meta "command=(report rebuilt from $report_log)"
	exit $?
fi

command -v python3 >/dev/null || die "python3 missing"
command -v gnuplot >/dev/null || echo "bench.sh: gnuplot missing: no chart" >&2
jq=$(command -v jq) || die "jq missing (apt-get install jq): the guest reads fio's JSON with it"

# ---- the guest kernel and the module ----------------------------------------
# --kernel: scripts/kroot.sh prepare prints KVER, KERNEL, MODDIR for the
# guest (as for tests/run.sh's kernel passes); kver is the module's target
kver=$("$here/kver.sh" 2>/dev/null || echo unknown)
kargs=()
if [ -n "$kline" ]; then
	echo "bench.sh: kernel $kline (scripts/kroot.sh prepare $kline)"
	kenv=$("$here/kroot.sh" prepare "$kline" 2>"$out/kroot.log") || {
		tail -n 20 "$out/kroot.log" >&2
		die "scripts/kroot.sh prepare $kline failed, see $out/kroot.log"
	}
	KVER="" KERNEL="" MODDIR=""
	eval "$(grep -E '^(KVER|KERNEL|MODDIR)=' <<<"$kenv")"
	{ [ -n "$KVER" ] && [ -f "$KERNEL" ]; } || die "scripts/kroot.sh prepare $kline printed no kernel: $kenv"
	kver=$KVER
	kargs=(--kernel "$KERNEL" --moddir "$MODDIR" --kver "$KVER")
	echo "bench.sh: guest kernel $KVER ($KERNEL)"
fi
# @ll arrays: md-mod with llbitmap (no Debian kernel has it) and forky's
# mdadm (--bitmap=lockless) in the guest
llfiles=()
if [ "$llbitmap" = 1 ]; then
	[ -n "$kline" ] || die "@ll (llbitmap) needs --kernel 7: md has it from 6.18"
	llko=$("$here/md-llbitmap.sh" "$kver" 2>"$out/md-llbitmap.log") ||
		{ tail -n 20 "$out/md-llbitmap.log" >&2; die "no md-mod with llbitmap for $kver, see $out/md-llbitmap.log"; }
	"$here/build-mdadm.sh" --release forky "${BUILD:-$top/build}/mdadm-forky" >"$out/mdadm-forky.log" 2>&1 ||
		{ tail -n 20 "$out/mdadm-forky.log" >&2; die "make mdadm-forky failed, see $out/mdadm-forky.log"; }
	llfiles=(--file "$llko:/opt/md-llbitmap/md-mod.ko"
		--file "${BUILD:-$top/build}/mdadm-forky/mdadm:/usr/local/sbin/mdadm-forky")
	echo "bench.sh: @ll: $llko and forky's mdadm in the guest"
fi
git_desc=$(git -C "$top" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
if [ "$build" = 1 ] && [ -n "$kline" ]; then
	# in a copy of the sources, never the tree's own (6.1) build
	mdir=${BUILD:-$top/build}/bench-module/$kver
	echo "bench.sh: building the module for $kver (scripts/kroot.sh make, in $mdir)"
	mkdir -p "$mdir"
	rm -f "$mdir"/*.[ch] "$mdir/Kbuild" "$mdir/md-raid5x.ko"
	cp -p "$top"/*.c "$top"/*.h "$top/Kbuild" "$mdir/"
	"$here/kroot.sh" make "$kver" "$mdir" W=1 >"$out/build.log" 2>&1 || {
		tail -n 20 "$out/build.log" >&2
		echo "bench.sh: the build for $kver failed, see $out/build.log" >&2
		exit 64
	}
	ko=$mdir/md-raid5x.ko
elif [ "$build" = 1 ]; then
	echo "bench.sh: building the module (make)"
	# once more after a pause: a concurrent build of the same tree can
	# make one fail (objtool: "Can't open raid5x.o")
	make -C "$top" >"$out/build.log" 2>&1 ||
		{ sleep 10; make -C "$top" >"$out/build.log" 2>&1; } || {
		tail -n 20 "$out/build.log" >&2
		echo "bench.sh: make failed, see $out/build.log" >&2
		exit 64
	}
fi
[ -n "$ko" ] || ko=$top/md-raid5x.ko
[ -f "$ko" ] || die "no module $ko (run make, or pass --ko)"
# A private copy outside the tree: the tree may be rebuilt, and Kbuild's
# clean deletes every *.ko below it (build/ included), while the guest runs.
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/raid5x-bench.XXXXXX")
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	local rc=$?
	rm -rf "$tmpd"
	exit "$rc"
}
trap cleanup EXIT
snap=$tmpd/md-raid5x.ko
cp "$ko" "$snap"
mod_sha=$(sha256sum "$snap" | cut -c1-16)
mod_src=$(modinfo -F srcversion "$snap" 2>/dev/null || echo unknown)
mod_magic=$(modinfo -F vermagic "$snap" 2>/dev/null || echo unknown)
[ -z "$kline" ] || [ "${mod_magic%% *}" = "$kver" ] ||
	die "$ko is built for ${mod_magic%% *}, the guest kernel is $kver"
echo "bench.sh: module $ko: srcversion $mod_src, sha256 $mod_sha..., tree $git_desc"

# ---- run -------------------------------------------------------------------
log=$out/$mode.log
if [ -z "$timeout" ]; then
	# generous: ~60 s per suite run (per 128 MiB), ~15 s per hunt run, boot
	declare -A ga=()
	for a in "${gargs[@]}"; do ga[${a%%=*}]=${a#*=}; done
	count() { local -a l; IFS=, read -r -a l <<<"$1"; echo "${#l[@]}"; }
	if [ "$mode" = hunt ]; then
		geos=$(($(count "${ga[hunt_members]:-3,4,6}") * $(count "${ga[hunt_chunks]:-64,512}")))
		runs=$((geos * $(count "${ga[hunt_cells]:-1,2,3,4,5,6,7,8}") * \
			$(count "${ga[hunt_arrays]:-raid456,raid5x}") * ${ga[hunt_reps]:-2}))
		timeout=$((600 + runs * (${ga[hunt_runtime]:-3} + 12) + geos * 240))
	else
		nj=9
		[ "${ga[jobs]:-all}" = all ] || nj=$(count "${ga[jobs]}")
		runs=$((nj * $(count "${ga[arrays]:-raid456,raid456t,raid5x,raid0}") * ${ga[reps]:-3}))
		timeout=$((600 + runs * 60 * (1 + ${ga[io]:-128} / 256)))
	fi
fi
host_load0=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "bench.sh: $mode in one guest boot (timeout ${timeout} s), console log $log"
echo "bench.sh: guest args: ${gargs[*]}"

trap 'echo "bench.sh: interrupted; the partial console log is $log (bench.sh --report $log)" >&2; exit 130' INT TERM
gflags=(--ko "$snap" --timeout "$timeout" --mem "$mem" --smp "$smp" --log "$log" --bin "$jq"
	${kargs[@]+"${kargs[@]}"} ${llfiles[@]+"${llfiles[@]}"})
[ -z "$append" ] || gflags+=(--append "$append")
if [ "$profile$locks" != 00 ]; then
	perf=$(command -v perf) || die "--profile and --locks need perf (apt-get install linux-perf)"
	gflags+=(--bin "$perf")
fi
# A boot QEMU TCG loses (the guest hung before its /init started: seen
# once in ~40 boots, in early ACPI set-up) is given up after
# $boot_timeout s and booted once more (guest.sh), instead of waiting out
# $timeout.
boot_timeout=${BENCH_BOOT_TIMEOUT:-300}
gflags+=(--boot-timeout "$boot_timeout" --boot-retries 1)
run_guest() {
	if [ "$verbose" = 1 ]; then
		"$here/guest.sh" "${gflags[@]}" "$here/bench-guest.sh" "${gargs[@]}"
	else
		# progress lines only (the console itself is in $log)
		"$here/guest.sh" "${gflags[@]}" "$here/bench-guest.sh" "${gargs[@]}" |
			sed -un -e 's/^@@BENCH //p' -e '/^guest\.sh: /p'
	fi
}
grc=0
run_guest || grc=$?
host_load1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- report ------------------------------------------------------------------
qemu_v=$(qemu-system-x86_64 --version 2>/dev/null | head -n 1 || echo unknown)
rrc=0
report "$log" \
	--meta "command=$cmdline" \
	--meta "started=$started" \
	--meta "guest_status=$grc" \
	--meta "host_kernel_target=$kver" \
	--meta "kernel_line=${kline:-default}" \
	--meta "guest_append=$append" \
	--meta "git=$git_desc$([ "$build" = 1 ] && echo " at build time" || echo " (tree; module not built by bench.sh)")" \
	--meta "module_sha256=$mod_sha" \
	--meta "module_srcversion=$mod_src" \
	--meta "module_vermagic=$mod_magic" \
	--meta "qemu=$qemu_v" \
	--meta "host_loadavg_before=$host_load0" \
	--meta "host_loadavg_after=$host_load1" || rrc=$?
if [ "$grc" != 0 ]; then
	echo "bench.sh: the guest failed (guest.sh status $grc), see $log" >&2
	exit 2
fi
exit "$rrc"
}
