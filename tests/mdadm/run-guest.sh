#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# run-guest.sh: the guest half of scripts/mdadm-tests.sh. Runs mdadm's own
# test suite (its `test` script, one `./test --tests=NAME` per test) once per
# pass, in this order:
#   raid456  the reference: the kernel's raid456 serves level 5 (loaded by
#            the guest's /init); md-raid5x is not loaded
#   raid5x   raid456 unloaded and kept out (modprobe.d `install raid456
#            /bin/false`), md-raid5x loaded with claim_raid5=1: every level-5
#            array mdadm creates or assembles runs on raid5x
# A sampler records, every 0.2 s, which personality serves each level-4/5/6
# array (raid5x when md/raid5x_stats/ exists) and the sum of its counters,
# so each test's line says whether raid5x really served it.
#
# usage (as /run.sh): run-guest.sh PASSES TESTS TIMEOUT
#   PASSES  comma-separated: raid456,raid5x
#   TESTS   comma-separated test names present in /opt/mdt/mdadm/tests
#   TIMEOUT seconds per test
# Expects (scripts/mdadm-tests.sh --file, --disk): /dev/vda, an empty ext4
# for /var/tmp; /opt/mdt/mdadm (mdadm tree: mdadm,
# test, tests/, swap_super, test_stripe), /opt/mdt/tools/{bin,lib} (programs
# the tests call that the guest lacks). Results: lines
#   MDT-RESULT PASS TEST VERDICT SECONDS raid5x=N raid456=N r5x_counters=N
# on the console, and a tarball of the logs sent with emit_out.
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh
set +e +o pipefail
trap - ERR

passes=${1:?passes} tests=${2:?tests} tmo=${3:-600}
T=/opt/mdt
R=/tmp/mdt-results
export PATH=$T/tools/bin:$PATH
export LD_LIBRARY_PATH=$T/tools/lib
# mdadm's tests call $dir/swap_super and $dir/test_stripe
export dir=$T/mdadm
# time-stamped xtrace in the tests' logs (bash reads BASH_ENV, not PS4, from
# the environment)
echo "PS4='+ \${EPOCHREALTIME} '" >/tmp/mdt-bashenv
export BASH_ENV=/tmp/mdt-bashenv
mkdir -p "$R" /var/tmp
# /var/tmp (mdadm's $targetdir) is the ext4 disk the host made
# (/dev/vda): md needs bmap() on a bitmap file, which tmpfs lacks
if [ -b /dev/vda ]; then
	modprobe ext4 2>/dev/null
	mount -t ext4 /dev/vda /var/tmp || { note "cannot mount /dev/vda on /var/tmp"; exit 1; }
else
	note "no /dev/vda: /var/tmp on tmpfs (bitmap-file tests will fail)"
	mount -t tmpfs -o size=1800m tmpfs /var/tmp || { note "cannot mount /var/tmp"; exit 1; }
fi
# a neutral mdadm configuration, as on a developer's machine (the guest's
# own one says AUTO -all and HOMEHOST <none>)
[ -e /etc/mdadm/mdadm.conf ] && mv /etc/mdadm/mdadm.conf /etc/mdadm/mdadm.conf.guest
echo "mdt: mdadm $("$T/mdadm/mdadm" --version 2>&1), kernel $(uname -r)"

# sampler OUT: one line per level-4/5/6 array every 0.2 s:
# "raid5x SUM_OF_COUNTERS" or "raid456 0"
sampler() {
	local s l st
	while :; do
		for s in /sys/block/md*/md; do
			l=$(cat "$s/level" 2>/dev/null) || continue
			case $l in
			raid4|raid5|raid6|raid5x) ;;
			*) continue ;;
			esac
			if [ -e "$s/raid5x_stats" ]; then
				echo "raid5x $(r5x_stats "$s" 2>/dev/null |
					awk '$2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }')"
				continue
			fi
			# md sets mddev->pers (array_state leaves inactive) only
			# after pers->run, which creates raid5x's attributes: an
			# array still starting, or stopping, is nobody's yet
			st=$(cat "$s/array_state" 2>/dev/null) || continue
			case $st in clear|inactive|"") continue ;; esac
			[ -e "$s/raid5x_stats" ] || echo "raid456 0"
		done
		sleep 0.2
	done >>"$1"
}

# clean_slate: nothing of a previous test left behind
clean_slate() {
	local md
	for md in /sys/block/md*; do
		[ -e "$md" ] && mdadm --stop "/dev/${md##*/}" >/dev/null 2>&1
	done
	losetup -D >/dev/null 2>&1
	rm -f /var/tmp/mdtest* /var/tmp/stderr /var/tmp/log
}

# setup_pass PASS: load the personality the pass is about
setup_pass() {
	clean_slate
	rm -f /etc/modprobe.d/mdt-no-raid456.conf
	case $1 in
	raid456)
		modprobe -r md-raid5x 2>/dev/null
		modprobe raid456 || { note "modprobe raid456 failed"; return 1; }
		[ ! -d /sys/module/md_raid5x ] || { note "md-raid5x still loaded"; return 1; }
		;;
	raid5x)
		modprobe -r raid456 || { note "cannot unload raid456"; return 1; }
		mkdir -p /etc/modprobe.d
		echo "install raid456 /bin/false" >/etc/modprobe.d/mdt-no-raid456.conf
		modprobe md-raid5x claim_raid5=1 ||
			{ note "modprobe md-raid5x claim_raid5=1 failed"; return 1; }
		[ ! -d /sys/module/raid456 ] || { note "raid456 still loaded"; return 1; }
		grep -q '\[raid5\]' /proc/mdstat ||
			{ note "no raid5 personality with claim_raid5=1"; return 1; }
		;;
	*) note "unknown pass $1"; return 1 ;;
	esac
	note "pass $1: $(grep Personalities /proc/mdstat)"
}

# run_one PASS TEST: one `./test --tests=TEST` in its own session, killed
# after $tmo seconds; prints the MDT-RESULT line
run_one() {
	local pass=$1 t=$2 L=$R/$1 pid wd spid rc t0 secs verdict x5 x456 xc splat
	mkdir -p "$L/logs"
	clean_slate
	dmesg -c >/dev/null
	: >"$L/$t.samples"
	sampler "$L/$t.samples" &
	spid=$!
	# the test's steps on the console (its own log dies with a hung guest)
	{ tail -n +1 -F /var/tmp/log 2>/dev/null & echo $! >/tmp/mdt-tail.pid; wait; } |
		awk -v t="$t" '/^\+\+ [0-9.]+ (mdadm|check|testdev|tar|sha1sum|dd|cmp|echo|exit|die|mkfs|fsck|blockdev|[^ ]*\/(test_stripe|swap_super)) / {
			print "mdt-step " t ":" substr($0, 1, 200); fflush() }' &
	t0=$(cut -d' ' -f1 /proc/uptime)
	(cd "$T/mdadm" && exec setsid bash ./test --tests="$t" --save-logs \
		--logdir="$L/logs") >"$L/$t.out" 2>&1 &
	pid=$!
	( sleep "$tmo"; echo "mdt: $t: timeout after $tmo s" >>"$L/$t.out"
	  kill -TERM -- "-$pid" 2>/dev/null; sleep 5; kill -KILL -- "-$pid" 2>/dev/null ) &
	wd=$!
	wait "$pid"
	rc=$?
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	kill "$(cat /tmp/mdt-tail.pid)" 2>/dev/null
	wait
	secs=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%d", b - a + 0.5 }')
	dmesg -c >"$L/$t.dmesg"
	cp /var/tmp/log "$L/$t.xtrace" 2>/dev/null
	clean_slate
	if grep -q 'timeout after' "$L/$t.out"; then
		verdict=TIMEOUT
	elif [ "$rc" = 0 ] && grep -q 'succeeded$' "$L/$t.out"; then
		verdict=PASS
	else
		verdict=FAIL
	fi
	x5=$(grep -c '^raid5x ' "$L/$t.samples")
	x456=$(grep -c '^raid456 ' "$L/$t.samples")
	xc=$(awk '$1 == "raid5x" && $2 > m { m = $2 } END { print m + 0 }' "$L/$t.samples")
	splat=$(grep -E -m1 'WARNING:|BUG:|Oops|Call Trace|KASAN|general protection' "$L/$t.dmesg")
	[ -z "$splat" ] || echo "# mdt: $t: kernel log: $splat"
	if [ "$pass" = raid5x ] && [ -d /sys/module/raid456 ]; then
		echo "# mdt: $t: raid456 got loaded during the raid5x pass"
		verdict=FAIL
	fi
	echo "MDT-RESULT $pass $t $verdict $secs raid5x=$x5 raid456=$x456 r5x_counters=$xc rc=$rc"
	echo "MDT-RESULT $pass $t $verdict $secs raid5x=$x5 raid456=$x456 r5x_counters=$xc rc=$rc" >>"$R/results.txt"
	if [ "$verdict" != PASS ]; then
		tail -n 25 "$L/$t.out" | sed 's/^/# | /'
	fi
}

IFS=, read -r -a plist <<<"$passes"
IFS=, read -r -a tlist <<<"$tests"
: >"$R/results.txt"
for p in "${plist[@]}"; do
	if ! setup_pass "$p"; then
		for t in "${tlist[@]}"; do
			echo "MDT-RESULT $p $t SETUP 0 raid5x=0 raid456=0 r5x_counters=0 rc=-1" |
				tee -a "$R/results.txt"
		done
		continue
	fi
	for t in "${tlist[@]}"; do
		run_one "$p" "$t"
	done
done
tar -C "$R" -czf /tmp/mdt-results.tgz .
emit_out /tmp/mdt-results.tgz b64
exit 0
