# shellcheck shell=bash
# guest-lib.sh: helpers for scripts that run inside the raid5x test guest.
#
# scripts/guest.sh installs this file as /lib/guest-lib.sh; a guest script
# starts with
#     #!/bin/bash
#     . /lib/guest-lib.sh
# It sets `set -euo pipefail`, a cleanup trap (stops md arrays, removes dm
# devices, detaches loop devices) and KTAP-style result helpers.
#
# Conventions:
#   * MD arguments are "md0" or "/dev/md0".
#   * Helpers return non-zero on failure and print a "# ..." diagnostic; they
#     never exit, so they work inside `if`, `tap_check` and `||`.
#   * raid5x presence: raid5x_available (the module file is installed in the
#     guest via scripts/guest.sh --ko, or the personality is registered).
set -euo pipefail

GL_TAP_N=0        # assertions printed so far
GL_TAP_FAILED=0   # of which "not ok"
GL_TAP_PLAN=""    # planned assertions (tap_plan)
GL_EXIT_HOOKS=()  # commands run by the cleanup trap, last first
GL_MEMBER_DIR=/tmp/gl-members

# ---- diagnostics ---------------------------------------------------------

# note MSG...: print a KTAP diagnostic line ("# MSG").
note() { echo "# $*"; }

# gl_on_exit CMD: run CMD (a string, eval'ed) from the cleanup trap.
gl_on_exit() { GL_EXIT_HOOKS+=("$1"); }

# gl_cleanup: the EXIT trap: run hooks, stop arrays, remove dm devices,
# detach loops. Keeps the script's exit status.
gl_cleanup() {
	local rc=$? i
	set +e
	if [ "$rc" != 0 ]; then
		note "guest script exiting with status $rc"
	fi
	for ((i = ${#GL_EXIT_HOOKS[@]} - 1; i >= 0; i--)); do
		eval "${GL_EXIT_HOOKS[$i]}"
	done
	gl_teardown
	exit "$rc"
}

# gl_teardown: stop every md array, remove every dm device, detach every
# loop device (errors ignored). Also tests/lib/batch-guest.sh's reset.
gl_teardown() {
	local md
	for md in /sys/block/md*; do
		[ -e "$md" ] || continue
		# || true: under set -e a sysfs entry of an array just
		# stopped (still listed) would end the calling script
		mdadm --stop "/dev/${md##*/}" >/dev/null 2>&1 || true
	done
	dmsetup remove_all >/dev/null 2>&1 || true
	losetup -D >/dev/null 2>&1 || true
	return 0
}
# gl_fresh: a clean slate for a case's next scenario: every array stopped
# (retrying while busy), dm and loop devices gone, member files deleted.
# Always succeeds.
gl_fresh() {
	local md
	for md in /sys/block/md*; do
		if [ -e "$md" ]; then
			stop_array "${md##*/}" || true
		fi
	done
	gl_teardown
	rm -rf "$GL_MEMBER_DIR"
	return 0
}
trap gl_cleanup EXIT
trap 'note "command failed (line $LINENO): $BASH_COMMAND"' ERR

# ---- polling without forks -----------------------------------------------
# Under TCG a fork + exec of busybox costs the guest about 30 ms of CPU on
# the debug kernel, 15 on Debian's (a dynamically linked program 130 and
# 65): a loop of `sleep 0.1` and `$(cat FILE)` took 139 ms an iteration on
# the debug kernel where `gl_nap 0.1` and `read` take 105, and that CPU is
# taken from the resync or rebuild being waited for.
# gl_nap S: sleep S seconds (fractions allowed), a builtin `read -t` on a
# FIFO that nobody writes (opened read-write, so the open does not block).
GL_NAP_FIFO=/tmp/.gl-nap.$$
mkfifo "$GL_NAP_FIFO"
exec {GL_NAP_FD}<>"$GL_NAP_FIFO"
rm -f "$GL_NAP_FIFO"
gl_nap() { read -r -t "$1" -u "$GL_NAP_FD" _ || true; }

# ---- KTAP output ---------------------------------------------------------

# tap_plan N: print the KTAP header and the plan "1..N".
tap_plan() {
	GL_TAP_PLAN=$1
	echo "KTAP version 1"
	echo "1..$1"
}

# tap_ok NAME: print "ok N - NAME".
tap_ok() {
	GL_TAP_N=$((GL_TAP_N + 1))
	echo "ok $GL_TAP_N - $*"
}

# tap_not_ok NAME [REASON]: print "not ok N - NAME" (and "# REASON").
tap_not_ok() {
	GL_TAP_N=$((GL_TAP_N + 1))
	GL_TAP_FAILED=$((GL_TAP_FAILED + 1))
	echo "not ok $GL_TAP_N - $1"
	if [ $# -gt 1 ]; then
		note "$2"
	fi
}

# tap_skip_rest REASON: the plan's remaining assertions cannot apply on
# this kernel: "ok N - skipped # SKIP REASON" for each (KTAP's skip).
tap_skip_rest() {
	tap_skip $((GL_TAP_PLAN - GL_TAP_N)) "$*"
}

# tap_skip N REASON: the next N assertions are skipped (KTAP "# SKIP").
tap_skip() {
	local i
	for ((i = 0; i < $1; i++)); do
		GL_TAP_N=$((GL_TAP_N + 1))
		echo "ok $GL_TAP_N - skipped # SKIP $2"
	done
}

# gl_wait_pid PID SECONDS: wait up to SECONDS for process PID to end;
# fails if it is still running (it is not reaped: `wait` for its status).
gl_wait_pid() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		gl_nap 0.1
	done
	! kill -0 "$1" 2>/dev/null
}

# gl_kernel_from MAJOR: the guest's kernel is MAJOR.0 or newer.
gl_kernel_from() {
	local v
	v=$(uname -r)
	[ "${v%%.*}" -ge "$1" ]
}

# tap_check NAME CMD [ARGS...]: run CMD; ok if it succeeds, else not ok.
# A "# took S s" diagnostic follows (per-assertion timing).
tap_check() {
	local name=$1 t0=$EPOCHREALTIME
	shift
	if "$@"; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "failed: $*"
	fi
	note "took $(gl_since "$t0") s"
}

# gl_run OUT CMD...: CMD's stdout and stderr to OUT (and to stderr, as
# notes), its exit status printed: rc=$(gl_run /tmp/x.out cmd args)
gl_run() {
	local out=$1 rc=0
	shift
	"$@" >"$out" 2>&1 || rc=$?
	sed 's/^/#   /' "$out" >&2
	echo "$rc"
}

# gl_since T0: seconds since $EPOCHREALTIME value T0, one decimal.
gl_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# tap_check_fails NAME CMD [ARGS...]: ok if CMD FAILS (expected refusal).
tap_check_fails() {
	local name=$1
	shift
	if "$@"; then
		tap_not_ok "$name" "unexpectedly succeeded: $*"
	else
		tap_ok "$name"
	fi
}

# fails CMD [ARGS...]: succeed if CMD fails (for tap_check / r5x_check).
fails() {
	if "$@"; then
		return 1
	fi
	return 0
}

# tap_done: print a summary; exit 0 only if every planned assertion ran and
# passed.
tap_done() {
	note "$GL_TAP_N assertions, $GL_TAP_FAILED failed${GL_TAP_PLAN:+, plan $GL_TAP_PLAN}"
	if [ -n "$GL_TAP_PLAN" ] && [ "$GL_TAP_N" != "$GL_TAP_PLAN" ]; then
		note "plan mismatch: planned $GL_TAP_PLAN, ran $GL_TAP_N"
		exit 1
	fi
	[ "$GL_TAP_FAILED" = 0 ] || exit 1
	exit 0
}

# ---- modules -------------------------------------------------------------

# raid5x_available: true if md-raid5x is installed (modinfo finds it) or the
# raid5x personality is already registered (built in or loaded).
raid5x_available() {
	modinfo md-raid5x >/dev/null 2>&1 && return 0
	[ -d /sys/module/md_raid5x ] && return 0
	grep -q '\[raid5x\]' /proc/mdstat 2>/dev/null
}

# r5x_check NAME CMD [ARGS...]: tap_check for a raid5x-only assertion:
# "not ok" with a reason when raid5x is not available.
r5x_check() {
	if raid5x_available; then
		tap_check "$@"
	else
		tap_not_ok "$1" "raid5x not available (md-raid5x.ko not installed in the guest)"
	fi
}

# load_md: load crc32c_generic, md_mod, raid456, loop and, if available,
# md-raid5x (after raid456, so raid456 stays first for level 5). Built-in
# parts are accepted. Fails if md, raid5 or loop is not usable at the end.
load_md() {
	local m
	for m in crc32c_generic libcrc32c md_mod raid456 loop; do
		modprobe "$m" 2>/dev/null || true
	done
	[ -e /proc/mdstat ] || { note "load_md: md is not available"; return 1; }
	grep -q '\[raid5\]' /proc/mdstat ||
		{ note "load_md: raid456 personality not registered"; return 1; }
	[ -e /dev/loop-control ] || { note "load_md: loop is not available"; return 1; }
	if modinfo md-raid5x >/dev/null 2>&1; then
		modprobe md-raid5x || { note "load_md: modprobe md-raid5x failed"; return 1; }
	fi
	return 0
}

# unload_modules MOD...: modprobe -r, retried for up to 5 s while md still
# holds a personality of a just-stopped array (6.12 releases it from a
# workqueue); ok once none of MOD is loaded.
unload_modules() {
	local i m left
	for ((i = 0; i < 50; i++)); do
		modprobe -r "$@" 2>/dev/null || true
		left=""
		for m in "$@"; do
			[ ! -d "/sys/module/${m//-/_}" ] || left="$left $m"
		done
		[ -n "$left" ] || return 0
		sleep 0.1
	done
	note "unload_modules: still loaded:$left"
	return 1
}

# claim_raid5_load: unload raid456 and md-raid5x, load md-raid5x with
# claim_raid5=1.  Status 0 loaded; 2 refused because this kernel keys md
# personalities by level (6.14+: the refusal message is in the kernel
# log, and md-raid5x loads again without the parameter); 1 anything else.
claim_raid5_load() {
	unload_modules md-raid5x raid456 || return 1
	modprobe md-raid5x claim_raid5=1 2>/dev/null && return 0
	dmesg | grep -q 'claim_raid5 is not available on this kernel' || return 1
	modprobe md-raid5x && modprobe raid456 || return 1
	return 2
}

# ---- members and arrays --------------------------------------------------

# make_members N SIZE_MB: create N sparse files on tmpfs, attach each to a
# loop device, print the devices space-separated on one line.
make_members() {
	local n=$1 size=$2 i f dev devs=()
	mkdir -p "$GL_MEMBER_DIR" || return 1
	for ((i = 0; i < n; i++)); do
		f=$(mktemp "$GL_MEMBER_DIR/m$i.XXXXXX") || return 1
		truncate -s "${size}M" "$f" || return 1
		dev=$(losetup -f --show "$f") ||
			{ note "make_members: losetup $f failed"; return 1; }
		devs+=("$dev")
	done
	echo "${devs[*]}"
}

# md_dev MD: print /dev/mdX.  md_sys MD: print /sys/block/mdX/md.
md_dev() { echo "/dev/${1##*/}"; }
md_sys() { echo "/sys/block/${1##*/}/md"; }

# bb_covers FILE SECTOR N: the bad-block list FILE (md/dev-*/bad_blocks,
# "start length" lines) covers every sector of SECTOR..+N
bb_covers() {
	local f=$1 a=$2 n=$3 s l k
	for ((k = a; k < a + n; k++)); do
		while read -r s l; do
			[ "$k" -ge "$s" ] && [ "$k" -lt $((s + l)) ] && continue 2
		done <"$f"
		return 1
	done
}

# md_same MD FILE OFF LEN: the array's bytes OFF..+LEN (O_DIRECT) equal
# FILE's at the same offset (FILE: a copy of what was written); a read
# error or a difference is noted
md_same() {
	local a b fl=skip_bytes,count_bytes
	a=$(dd if="/dev/${1##*/}" bs=1M skip="$3" count="$4" iflag="$fl",direct status=none | md5sum) ||
		{ note "read error in array bytes $3 +$4"; return 1; }
	b=$(dd if="$2" bs=1M skip="$3" count="$4" iflag="$fl" status=none | md5sum)
	[ "$a" = "$b" ] || { note "array bytes $3 +$4 differ from what was written"; return 1; }
}

# r5x_stats MD_OR_SYSDIR: print raid5x's counters as "name value" lines, one
# per file of md/raid5x_stats/ (the write-only reset left out); status 1 when
# raid5x does not run the array (no raid5x_stats/).
r5x_stats() {
	local d=$1 f v
	case $d in /*) ;; *) d=$(md_sys "$d") ;; esac
	[ -d "$d/raid5x_stats" ] || return 1
	for f in "$d"/raid5x_stats/*; do
		[ "${f##*/}" = reset ] && continue
		read -r v <"$f" || return 1
		echo "${f##*/} $v"
	done
}

# r5x_stat MD_OR_SYSDIR NAME: raid5x's counter NAME (md/raid5x_stats/NAME)
r5x_stat() {
	local d=$1
	case $d in /*) ;; *) d=$(md_sys "$d") ;; esac
	cat "$d/raid5x_stats/$2"
}

# md_member_in MD DEV: DEV is a member of MD that md does not list as
# faulty, and MD is not degraded.
md_member_in() {
	local sys st
	sys=$(md_sys "$1")
	st=$(cat "$sys/dev-${2##*/}/state")
	if [[ $st == *faulty* ]] || [ "$(cat "$sys/degraded")" != 0 ]; then
		note "member ${2##*/}: state '$st', degraded $(cat "$sys/degraded")"
		return 1
	fi
}

# md_level MD: print the array's personality (md/level), e.g. raid5, raid5x.
md_level() { cat "$(md_sys "$1")/level" 2>/dev/null; }
# md_member MD DEV ATTR: md's ATTR (state, slot, ...) of member DEV of MD
md_member() { cat "$(md_sys "$1")/dev-${2##*/}/$3" 2>/dev/null; }

# md_mdstat_line MD: print the array's line of /proc/mdstat.
md_mdstat_line() { grep "^${1##*/} :" /proc/mdstat; }

# create_raid5 MD N CHUNK_KB LAYOUT DEVS...: create a clean level-5 array with
# v1.2 metadata, no bitmap (GL_BITMAP=internal: an internal write-intent
# bitmap, GL_BITMAP_CHUNK its chunk, e.g. 4M; mdadm's default if empty;
# GL_MDADM: another mdadm, e.g. forky's for GL_BITMAP=lockless).
# LAYOUT: left-asymmetric left-symmetric right-asymmetric right-symmetric
# parity-first parity-last.
create_raid5() {
	local md n=$2 chunk=$3 layout=$4
	md=$(md_dev "$1")
	shift 4
	"${GL_MDADM:-mdadm}" --create "$md" --run --quiet --level=5 --metadata=1.2 \
		--assume-clean --bitmap="${GL_BITMAP:-none}" \
		${GL_BITMAP_CHUNK:+--bitmap-chunk="$GL_BITMAP_CHUNK"} \
		--chunk="$chunk" --layout="$layout" --raid-devices="$n" "$@" ||
		{ note "create_raid5: mdadm --create $md failed"; return 1; }
	[ "$(md_level "$md")" = raid5 ] ||
		{ note "create_raid5: level is '$(md_level "$md")'"; return 1; }
}

# to_raid5x MD: switch a running level-5 array to the raid5x personality
# (echo raid5x > md/level); verify md/level and /proc/mdstat say raid5x.
to_raid5x() {
	local md sys
	md=$(md_dev "$1")
	sys=$(md_sys "$md")
	if ! echo raid5x >"$sys/level"; then
		note "to_raid5x: writing raid5x to $sys/level failed (level $(md_level "$md"), sync_action $(cat "$sys/sync_action"), sync_completed $(cat "$sys/sync_completed" 2>/dev/null))"
		dmesg | grep -E "md/raid5x|md: |${md##*/}" | tail -n 3 | sed 's/^/# /'
		return 1
	fi
	[ "$(md_level "$md")" = raid5x ] ||
		{ note "to_raid5x: $sys/level reads '$(md_level "$md")'"; return 1; }
	md_mdstat_line "$md" | grep -qw raid5x ||
		{ note "to_raid5x: /proc/mdstat: $(md_mdstat_line "$md")"; return 1; }
}

# md_freeze MD: md/sync_action frozen, and no sync thread left running
# (what md/level needs before a personality change).  6.1's md starts a
# sync thread from a work item (md_start_sync): one still registering when
# "frozen" is written outlives it and keeps md/level busy (EBUSY) until
# "frozen" is written again.  sync_completed reads "none" once no sync
# runs.  scripts/raid5x-array does the same.
md_freeze() {
	local sys i
	sys=$(md_sys "$(md_dev "$1")")
	for ((i = 0; i < 100; i++)); do
		echo frozen >"$sys/sync_action" || return 1
		[ "$(cat "$sys/sync_completed")" = none ] && return 0
		gl_nap 0.1
	done
	note "md_freeze: ${1##*/} still syncing after 10 s: sync_completed $(cat "$sys/sync_completed")"
	return 1
}

# stop_array MD: mdadm --stop, retrying while the device is busy.
stop_array() {
	local md i
	md=$(md_dev "$1")
	for i in 1 2 3 4 5; do
		mdadm --stop "$md" >/dev/null 2>&1 && return 0
		sleep "$i"
	done
	note "stop_array: cannot stop $md"
	mdadm --stop "$md"
	return 1
}

# assemble_raid456 MD DEVS...: assemble with stock mdadm and check that the
# array runs under the in-kernel raid5 personality.
assemble_raid456() {
	local md
	md=$(md_dev "$1")
	shift
	mdadm --assemble --run --quiet "$md" "$@" ||
		{ note "assemble_raid456: mdadm --assemble $md failed"; return 1; }
	[ "$(md_level "$md")" = raid5 ] ||
		{ note "assemble_raid456: level is '$(md_level "$md")', not raid5"; return 1; }
	md_mdstat_line "$md" | grep -qw raid5 ||
		{ note "assemble_raid456: /proc/mdstat: $(md_mdstat_line "$md")"; return 1; }
}

# md_rebuilt SYSDIR: the array whose md directory (md_sys) is SYSDIR is
# rebuilt right now: degraded reads 0 and no sync runs. Polled, so builtin
# reads only and SYSDIR rather than MD (a $(md_sys) is a fork).
md_rebuilt() {
	local d a
	read -r d <"$1/degraded" && read -r a <"$1/sync_action" &&
		[ "$d" = 0 ] && [ "$a" = idle ]
}

# wait_rebuilt MD [S]: wait until md_rebuilt (recovery starts asynchronously
# after --add: until md's thread has started it, sync_action reads idle
# with the array still degraded, so wait_idle alone may return before it
# began), at most S s (default 300).
wait_rebuilt() {
	local sys i
	sys=$(md_sys "$1")
	for ((i = 0; i < ${2:-300} * 10; i++)); do
		md_rebuilt "$sys" && return 0
		gl_nap 0.1
	done
	note "wait_rebuilt: degraded=$(cat "$sys/degraded") action=$(cat "$sys/sync_action") after ${2:-300} s"
	return 1
}

# md_stuck_report MD: what a sync that does not end looks like: md's
# progress, raid5x's cache and counters, and the kernel's list of blocked
# tasks (sysrq w, into the guest's kernel log) with md's threads' stacks.
md_stuck_report() {
	local sys f t
	sys=$(md_sys "$1")
	for f in sync_completed sync_speed sync_min sync_max degraded \
		stripe_cache_size stripe_cache_active; do
		[ -r "$sys/$f" ] && note "  $f: $(cat "$sys/$f" 2>/dev/null)"
	done
	if [ -d "$sys/raid5x_stats" ]; then
		note "  raid5x_stats: $(cd "$sys/raid5x_stats" && grep -H . -- * 2>/dev/null | tr '\n' ' ')"
	fi
	note "  mdstat: $(tr '\n' ' ' </proc/mdstat)"
	for f in "$sys"/dev-*/state; do
		[ -r "$f" ] && note "  ${f#"$sys"/}: $(cat "$f" 2>/dev/null)"
	done
	note "  array_state: $(cat "$sys/array_state" 2>/dev/null)"
	for t in /proc/[0-9]*; do
		case $(cat "$t/comm" 2>/dev/null) in
		md*_raid5*|md*_resync|md*_reshape|md*_recovery)
			note "  $(cat "$t/comm"): $(tr '\n' ' ' <"$t/stack" 2>/dev/null)" ;;
		esac
	done
	echo 1 >/proc/sys/kernel/sysrq 2>/dev/null
	echo w >/proc/sysrq-trigger 2>/dev/null || true
}

# wait_idle MD [TIMEOUT_S]: wait until md/sync_action reads idle.
wait_idle() {
	local sys t=${2:-900} i=0 a
	sys=$(md_sys "$1")
	while :; do
		read -r a <"$sys/sync_action" ||
			{ note "wait_idle: cannot read $sys/sync_action"; return 1; }
		[ "$a" != idle ] || return 0
		gl_nap 0.1
		i=$((i + 1))
		if [ "$i" -ge $((t * 10)) ]; then
			note "wait_idle: $1 still $(cat "$sys/sync_action") after $t s"
			md_stuck_report "$1"
			return 1
		fi
	done
}

# md_check_zero MD: md's check under whatever personality runs MD (raid5x
# too) finds mismatch_cnt 0.
md_check_zero() {
	local sys mm
	sys=$(md_sys "$1")
	wait_idle "$1" 600 && echo check >"$sys/sync_action" && gl_nap 0.5 &&
		wait_idle "$1" 600 || return 1
	mm=$(cat "$sys/mismatch_cnt")
	[ "$mm" = 0 ] || { note "md_check_zero: $1 mismatch_cnt=$mm"; return 1; }
}

# check_parity MD: run a parity check (array must run under raid456) and
# require mismatch_cnt == 0.
check_parity() {
	local md sys mm
	md=$(md_dev "$1")
	sys=$(md_sys "$md")
	[ "$(md_level "$md")" = raid5 ] ||
		{ note "check_parity: $md runs '$(md_level "$md")', need raid5"; return 1; }
	wait_idle "$md" || return 1
	echo check >"$sys/sync_action" || { note "check_parity: cannot start check"; return 1; }
	wait_idle "$md" || return 1
	mm=$(cat "$sys/mismatch_cnt")
	note "check_parity: $md mismatch_cnt=$mm"
	[ "$mm" = 0 ]
}

# md_md5 MD: print the md5 of the whole array device, read with O_DIRECT
# (through the personality, not the page cache). md5, not sha256: 3x faster
# under TCG (64 MiB: 0.36 s vs 1.19 s), and these checks look for
# corruption, not for an attacker.
md_md5() {
	local md pid rc=0
	md=$(md_dev "$1")
	dd if="$md" bs=1M iflag=direct status=none | md5sum | cut -d' ' -f1 >/tmp/md5.out &
	pid=$!
	# a read that does not end: say what the array looks like before the
	# kernel's hung-task report ends the guest
	if ! gl_wait_pid "$pid" 90; then
		# callers capture stdout (the sum) and may drop stderr
		{
			note "md_md5: the read of $md has not ended in 90 s"
			md_stuck_report "$md"
		} >/dev/console 2>&1
	fi
	wait "$pid" || rc=$?
	cat /tmp/md5.out
	return "$rc"
}

# sysfs_write FILE VALUE: write VALUE to FILE; the status is the write's
# (error text suppressed).
sysfs_write() {
	(echo "$2" >"$1") 2>/dev/null
}

# member_stats DEVS...: print "READ_SECTORS WRITE_SECTORS" summed over the
# members (/sys/block/loopN/stat fields 3 and 7, 512-byte sectors).
member_stats() {
	local d r=0 w=0 s
	for d in "$@"; do
		read -r -a s <"/sys/block/${d##*/}/stat" || return 1
		r=$((r + s[2]))
		w=$((w + s[6]))
	done
	echo "$r $w"
}

# ---- device-mapper (export DM_DISABLE_UDEV=1: no udev in the guest) -------

# dm_node NAME: /dev/dm-MINOR of dm device NAME (devtmpfs node).
dm_node() { echo "/dev/dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"; }

# dm_swap NAME TABLE: load TABLE (one or more lines) into NAME and make it
# live, under whatever is stacked on NAME.
dm_swap() { echo "$2" | dmsetup load "$1" && dmsetup resume "$1"; }

# dm_members N SECTORS LOOP...: a dm-linear device r5x0 .. r5x(N-1) of
# SECTORS sectors over each of the first N loop devices (members whose
# tables a case swaps with dm_swap); print their nodes on one line.
dm_members() {
	local n=$1 sz=$2 i nodes=()
	shift 2
	for ((i = 0; i < n; i++)); do
		dmsetup create "r5x$i" --table "0 $sz linear $1 0" || return 1
		nodes+=("$(dm_node "r5x$i")")
		shift
	done
	echo "${nodes[*]}"
}

# gl_pers PERS: "TAG CHECK" for a scenario run by PERS (raid5 or raid5x):
# the name its assertions carry (raid456 or raid5x) and the check that runs
# them (tap_check; r5x_check for raid5x: not ok with a reason when the
# module is missing). read -r tag chk <<<"$(gl_pers "$pers")"
gl_pers() {
	if [ "$1" = raid5 ]; then
		echo "raid456 tap_check"
	else
		echo "$1 r5x_check"
	fi
}

# ---- I/O -----------------------------------------------------------------

GL_FIO_N=0
# fio_verify ARGS...: run fio with crc32c verification (fatal, with a verify
# pass after writing); fails on a fio exit status, a job error or a verify
# failure, read from fio's JSON with jq. Prints fio's messages and the jobs'
# errors only on failure (a one-line summary otherwise).
fio_verify() {
	local out rc=0 errs
	GL_FIO_N=$((GL_FIO_N + 1))
	out=/tmp/fio.$GL_FIO_N
	fio --verify=crc32c --verify_fatal=1 --do_verify=1 --eta=never \
		--exitall_on_error=1 --output-format=json --output="$out.json" \
		"$@" 2>"$out.err" || rc=$?
	# fio may put a line of its own before the JSON document
	sed -n '/^{/,$p' "$out.json" >"$out.doc"
	errs=$(jq '[.jobs[].error] | add' "$out.doc" 2>/dev/null) || errs=unreadable
	if [ "$rc" != 0 ] || [ "$errs" != 0 ] || grep -q 'verify: bad' "$out.err"; then
		note "fio_verify: fio $* failed (rc=$rc, job errors $errs):"
		sed 's/^/#   /' "$out.err"
		jq -c '.jobs[] | {jobname, error}' "$out.doc" 2>/dev/null | sed 's/^/#   /'
		return 1
	fi
	note "fio ok: $(jq -r '.jobs[] | "\(.jobname): read \(.read.io_bytes / 1048576 | floor) MiB, write \(.write.io_bytes / 1048576 | floor) MiB"' "$out.doc" | tr '\n' ';')"
}

# emit_out FILE [b64|plain]: send FILE to the host between @@OUT-BEGIN@@ and
# @@OUT-END@@ (guest.sh --out FILE collects it). The console log level is
# lowered meanwhile so kernel messages cannot split the block.
emit_out() {
	local f=$1 mode=${2:-b64} lvl
	lvl=$(cut -f1 /proc/sys/kernel/printk)
	dmesg -n 1
	echo "@@OUT-BEGIN@@ $mode ${f##*/}"
	if [ "$mode" = b64 ]; then
		base64 "$f"
	else
		cat "$f"
		[ -z "$(tail -c 1 "$f")" ] || echo
	fi
	echo "@@OUT-END@@"
	dmesg -n "$lvl"
}

# ---- volume scale (debug kernel) -----------------------------------------
# GL_SCALE: divisor for a case's data volumes. tests/run.sh boots the debug
# kernel (KASAN, lockdep: 2-3x slower) with gl_scale=N on the command line
# (RAID5X_DEBUG_SCALE, default 4) so the whole suite fits there too; a case
# shrinks member sizes and fio sizes with gl_scaled/gl_unit and keeps every
# assertion. Elsewhere (Debian's kernel) it is 1: volumes as written.
GL_SCALE=$(tr ' ' '\n' </proc/cmdline 2>/dev/null | sed -n 's/^gl_scale=\([1-9][0-9]*\)$/\1/p' | tail -n 1)
GL_SCALE=${GL_SCALE:-1}

# gl_scaled N [MIN]: print N / GL_SCALE (rounded down), at least MIN
# (default 1). For sizes in whole MiB, counts of blocks, and the like.
gl_scaled() {
	local v=$(($1 / GL_SCALE)) min=${2:-1}
	[ "$v" -ge "$min" ] || v=$min
	echo "$v"
}

# GL_SAMPLE: 1 when tests/run.sh booted the guest with gl_sample=1 (the
# debug-kernel pass and the 6.12 and 7 passes; RAID5X_DEBUG_SAMPLE=0 and
# RAID5X_KERNEL_SAMPLE=0 turn it off). A case that loops over a matrix of
# layouts or geometries then runs the subset it names with gl_sample: the
# debug kernel is there to catch locking, memory and atomic-context bugs,
# the newer kernels to catch what their md and block layer do differently,
# and the layout changes neither (a layout's mapping is raid5x's own code,
# checked by KUnit on the debug kernel; every layout runs on Debian 12's
# kernel). Elsewhere 0: the whole matrix.
GL_SAMPLE=$(tr ' ' '\n' </proc/cmdline 2>/dev/null | sed -n 's/^gl_sample=\([01]\)$/\1/p' | tail -n 1)
GL_SAMPLE=${GL_SAMPLE:-0}

# gl_sample ARRAY IDX...: under GL_SAMPLE=1 keep only the elements of the
# bash array named ARRAY at the listed indices (in that order) and note what
# was left out; otherwise leave ARRAY whole. Call it before tap_plan.
gl_sample() {
	local -n gl_arr=$1
	local i kept=() left=()
	shift
	[ "$GL_SAMPLE" = 1 ] || return 0
	for i in "$@"; do
		kept+=("${gl_arr[$i]:?gl_sample: no element $i}")
	done
	for i in "${!gl_arr[@]}"; do
		[[ " $* " == *" $i "* ]] || left+=("${gl_arr[$i]}")
	done
	note "sampled matrix: ${#kept[@]} of ${#gl_arr[@]}; left out here: $(printf '[%s] ' "${left[@]}")"
	gl_arr=("${kept[@]}")
}

# gl_unit: print a scaled MiB in bytes: 1 MiB / GL_SCALE, rounded down to a
# multiple of 64 KiB (so offsets built from it stay 4K-aligned), at least
# 64 KiB. A layout written as multiples of it shrinks as a whole.
gl_unit() {
	local u=$((1048576 / GL_SCALE / 65536 * 65536))
	[ "$u" -ge 65536 ] || u=65536
	echo "$u"
}
