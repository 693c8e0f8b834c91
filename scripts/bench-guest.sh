#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# bench-guest.sh: the guest half of the side-by-side benchmark (run as /run.sh
# by scripts/guest.sh, started by scripts/bench.sh; not meant to be run alone).
#
# usage: /run.sh KEY=VALUE...  (defaults in parentheses)
#   mode=suite|hunt        suite: the job table below; hunt: counter-example
#                          matrix (suite)
#   members=N chunk=KB size=MB   geometry of every suite array (4 512 400)
#   reps=N                 suite repetitions (3)
#   jobs=A,B,...|all       suite jobs (all); see job_opts for the names
#   arrays=raid456,raid456t,raid5x,raid0  arrays per job, interleaved in
#                          this order, rotated by one each rep; also
#                          raid5x+NAME=VAL[+NAME=VAL...]: raid5x with
#                          md-raid5x reloaded with those module parameters
#                          (rmmod, modprobe; plain raid5x reloads it without
#                          them), e.g. raid5x,raid5x+claim_raid5=1;
#                          raid456+sys.NAME=VAL[+...]: raid456 with its
#                          md/NAME set (read back); raid456u: raid456t with
#                          md/skip_copy 1 (unsafe with O_DIRECT: fio's
#                          buffer is the page md writes and parity was
#                          computed from, so a buffer changed in flight
#                          leaves parity stale). Any RAID5 name may end in
#                          @bm or @bmCHUNK: that array with an internal
#                          bitmap (bitmap= below), e.g. raid5x@bm4M; or
#                          in @ll: md's lockless bitmap (forky's mdadm,
#                          /usr/local/sbin/mdadm-forky, --bitmap=lockless
#                          --assume-clean: every bit clean), with the
#                          md-mod bench.sh put at /opt/md-llbitmap/
#   io=MB                  bytes per sequential job (128); random jobs do
#                          io/4, the ext4 job copies a tree of ~0.9*io MB
#                          into a file system of 3*io MB
#   region=MB              random jobs' region (256, capped at 90% of the array)
#   check=raid5x|all|none  parity check (md sync_action "check" limited to the
#                          written region by sync_min/sync_max) after raid5x
#                          runs only, after every RAID5 run (raid456,
#                          raid456t, raid5x), or never (raid5x). Every run
#                          also gets a data check (below).
#   dirty=MB               vm.dirty_bytes (background: a quarter) so that
#                          buffered writes stream like a long dd (64; 0 keeps
#                          the kernel defaults)
#   tune=NAME:VAL,...      raid5x sysfs tunables set after takeover
#                          (stripe_cache_size is also set on raid456, not
#                          on raid456t: its settings are TUNED456's)
#   profile=0|1            suite runs under perf (cpu-clock samples of every
#                          CPU) plus the md thread's CPU time: where the CPU
#                          time of each run went (profile_json); needs perf
#   locks=0|1              suite runs under `perf lock record -a` (the
#                          kernel's lock:contention_begin/end tracepoints,
#                          no lockdep needed): contended acquisitions and
#                          time spent waiting, by lock type and caller
#                          (locks_json); needs perf
#   member_delay=R[:W]     suite members behind dm-delay: every member read
#                          waits R ms, every write W ms (0), so a read costs
#                          what a seek costs a disk (default 0: no dm-delay);
#                          member counts still come from the loop devices
#   hunt_members=3,4,6 hunt_chunks=64,512 hunt_size=MB (160) hunt_region=MB
#   (256) hunt_runtime=S (3) hunt_reps=N (2) hunt_cells=RW:BS:QD,...
#                          (RW seq|rand, BS like 4k/64k/1m or fs = one full
#                          stripe, QD the libaio depth)
#   bitmap=none|bm|bmCHUNK  an internal write-intent bitmap on every RAID5
#                          array whose name has no @ part (below): bm =
#                          mdadm's default bitmap chunk, bm4M = a 4 MiB
#                          chunk (none)
#   hunt_arrays=raid456,raid5x  the hunt's contestants (raid456, raid456t,
#                          raid5x; raid5x among them), all alive at once as
#                          md0, md1, ... in this order
#
# Every suite run uses FRESH members (sparse files on tmpfs, loop devices)
# and a fresh array: raid456 = mdadm --level=5 (left-symmetric, v1.2, no
# bitmap unless @bm, --assume-clean); raid456t = the same, then raid456 at
# a safe tuning: TUNED456 below (md/stripe_cache_size 4096,
# md/skip_copy 0, md/group_thread_cnt 2) written and read back, a failed
# write or a value that does not read back fails the run's setup; raid456u
# the same with md/skip_copy 1 (UNSAFE456, unsafe); raid5x = the same as
# raid456, then "raid5x" > md/level; raid0 = mdadm --level=0 over members-1
# devices (the same data capacity, no parity: the ceiling). A run's numbers
# count only if the data check passed: fio verify_only replay of the
# written region (every write carries verify_pattern=%o, i.e. its own
# offset), for the read job a replay of its prefill, for ext4 e2fsck -fn
# plus md5sum -c of the copied tree; plus the
# parity check above.
#
# Output: per run one JSON line (fio JSON, member sectors read/written from
# /sys/block/loopN/stat fields 3 and 7 before/after, md/raid5x_stats/
# before/after, the bios md0 received before/after (/sys/block/md0/stat),
# the array's queue limits, verification; the header record
# adds the guest's kernel, command line and md-raid5x's module parameters)
# sent with emit_out (base64) inside the console
# log, and a progress line "@@BENCH [i/n] ARRAY JOB rep R: X MiB/s".
# shellcheck source=../tests/lib/guest-lib.sh
. /lib/guest-lib.sh

mode=suite members=4 chunk=512 size=400 reps=3 jobs=all bitmap=none
arrays=raid456,raid456t,raid5x,raid0 io=128 region=256 check=raid5x dirty=64 tune=""
profile=0 locks=0 perf_hz=499 member_delay=0
hunt_members=3,4,6 hunt_chunks=64,512 hunt_size=160 hunt_region=256
hunt_runtime=3 hunt_reps=2 hunt_arrays=raid456,raid5x
hunt_cells=seq:4k:32,seq:64k:32,seq:1m:1,seq:1m:8,seq:fs:1,rand:4k:1,rand:4k:32,rand:64k:8
all_jobs=seq-write-2M-buffered,seq-write-fullstripe,seq-write-1M,seq-write-64K,seq-write-100K,rand-write-4K,rand-rw-70-30-4K,seq-read-8K-x4,ext4-copy
# jobs run only when named in jobs=
opt_jobs=seq-write-1M-qd1

for a in "$@"; do
	k=${a%%=*} v=${a#*=}
	case $k in
	mode | members | chunk | size | reps | jobs | arrays | io | region | check | dirty | tune | profile | locks | member_delay | bitmap | \
		hunt_members | hunt_chunks | hunt_size | hunt_region | hunt_runtime | hunt_reps | hunt_cells | \
		hunt_arrays)
		printf -v "$k" '%s' "$v" ;;
	*) echo "bench-guest: unknown argument $a" >&2; exit 64 ;;
	esac
done
[ "$jobs" = all ] && jobs=$all_jobs

W=/tmp/bench          # work directory (records, fio files)
TREE=/tmp/bench-tree  # source tree of the ext4 job
MNT=/mnt/bench
mkdir -p "$W" "$MNT"
T_START=$EPOCHREALTIME

# ---- small helpers ---------------------------------------------------------

say() { echo "@@BENCH $*"; }
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'; }
# jstr S: S as a JSON string (_jstr sets REPLY instead: no subshell, TCG
# forks are slow)
_jstr() {
	local str=${1//\\/\\\\}
	str=${str//\"/\\\"}
	str=${str//$'\n'/\\n}
	str=${str//$'\t'/ }
	str=${str//$'\r'/}
	REPLY="\"$str\""
}
jstr() {
	_jstr "$1"
	printf '%s' "$REPLY"
}
# jkv K V ...: a JSON object from key/value pairs; values that look like
# JSON numbers, objects, arrays, true/false/null are copied, others quoted.
jkv() {
	local out="" k v sep=""
	while [ $# -ge 2 ]; do
		k=$1 v=$2
		shift 2
		out+="$sep\"$k\":"
		sep=,
		if [[ $v =~ ^-?[0-9]+(\.[0-9]+)?$ || ${v:0:1} == [\{\[] || $v == true || $v == false || $v == null ]]; then
			out+=$v
		else
			_jstr "$v"
			out+=$REPLY
		fi
	done
	printf '{%s}' "$out"
}
# kv_file_json FILE: a JSON object from "name value" lines
kv_file_json() {
	awk 'BEGIN { printf "{" } NF >= 2 { printf "%s\"%s\":%s", s, $1, $2; s = "," } END { printf "}" }' "$1"
}
# counters_json MD: md/raid5x_stats/ as JSON, null when not raid5x
counters_json() {
	local kv
	if kv=$(r5x_stats "$1"); then kv_file_json - <<<"$kv"; else printf null; fi
}
# files_json DIR QUOTE NAME...: {"NAME":value,...} of the readable files
# DIR/NAME, each value a JSON string when QUOTE is 1, else as read (numbers)
files_json() {
	local d=$1 q=$2 n v out="" sep=""
	shift 2
	for n in "$@"; do
		[ -r "$d/$n" ] || continue
		v=$(cat "$d/$n" 2>/dev/null) || v=null
		if [ "$q" = 1 ]; then
			_jstr "$v"
			v=$REPLY
		fi
		out+="$sep\"$n\":$v"
		sep=,
	done
	printf '{%s}' "$out"
}
# tunables_json MD: the array's stripe cache and raid5x tunables
tunables_json() {
	files_json "$(md_sys "$1")" 1 stripe_cache_size preread_bypass_threshold preread_batch \
		seq_delay_ms stall_grace_ms stream_confirm wake_batch_pct worker_threads solo_worker group_thread_cnt skip_copy rmw_level
}
# queue_json MD: the array's queue limits that decide how the block layer
# splits a bio before md sees it (chunk_sectors: 0 = no boundary)
queue_json() {
	files_json "/sys/block/$1/queue" 0 chunk_sectors max_sectors_kb max_hw_sectors_kb \
		max_segments max_segment_size minimum_io_size optimal_io_size
}
# modparams_json: md-raid5x's module parameters as loaded
modparams_json() {
	local p=/sys/module/md_raid5x/parameters f names=()
	for f in "$p"/*; do
		names+=("${f##*/}")
	done
	files_json "$p" 1 "${names[@]}"
}
# bios_json MD: [reads, read sectors, writes, write sectors] completed by the
# array (/sys/block/MD/stat fields 1, 3, 5, 7): md counts the bios its
# personality received, after the block layer split them to the limits
bios_json() {
	local s
	read -r -a s <"/sys/block/$1/stat" 2>/dev/null || { printf null; return; }
	printf '[%s,%s,%s,%s]' "${s[0]}" "${s[2]}" "${s[4]}" "${s[6]}"
}
# stats_json DEVS...: [sectors_read, sectors_written] summed over members
stats_json() {
	local s
	s=$(member_stats "$@") || { printf null; return; }
	printf '[%s,%s]' "${s% *}" "${s#* }"
}
# fio_json_line FILE: fio's JSON output on one line (jq -c; the lines fio
# may print before the JSON, such as warnings, dropped)
fio_json_line() {
	sed -n '/^{/,$p' "$1" | jq -c . 2>/dev/null || true
}
# fio_mibs JSONLINE: total bandwidth (read+write) in MiB/s
fio_mibs() {
	{ jq -r '[.jobs[] | .read.bw_bytes + .write.bw_bytes] | add / 1048576' \
		<<<"$1" 2>/dev/null || true; } | awk '{ printf "%.1f", $1 }'
}
# emit_record JSON: send one JSON line to the host
emit_record() {
	printf '%s\n' "$1" >"$W/rec.json"
	emit_out "$W/rec.json" b64
}
roundown() { echo $(($1 / $2 * $2)); }

# ---- arrays --------------------------------------------------------------

ARR_DEVS=()     # member loop devices of the array set up last
ARR_DM=()       # their dm-delay devices (ARR_DELAY), the array's members
ARR_DELAY=0     # setup_array puts members behind dm-delay: R[:W] ms
ARR_MEMDIR=""   # their backing files
ARR_ERR=""      # why setup failed
# raid456t: raid456 at its best safe tuning, md/NAME:VALUE written in this
# order after mdadm --create (tune= does not change them: raid456t is the
# fixed reference "raid456 at its best safe tuning"); raid456u: the same
# with skip_copy 1, which is not safe for O_DIRECT writers
TUNED456=stripe_cache_size:4096,skip_copy:0,group_thread_cnt:2
UNSAFE456=stripe_cache_size:4096,skip_copy:1,group_thread_cnt:2
# array_bitmap KIND: the GL_BITMAP and GL_BITMAP_CHUNK words for KIND's
# @bm[CHUNK] part, or bitmap= when it has none ("none" and "")
array_bitmap() {
	local b=$bitmap
	[[ $1 == *@* ]] && b=${1#*@}
	case $b in
	none) echo "none " ;;
	bm) echo "internal " ;;
	bm[0-9]*) echo "internal ${b#bm}" ;;
	ll) echo "lockless " ;;
	*) return 1 ;;
	esac
}
# setup_array KIND MD N CHUNK_KB SIZE_MB: fresh members + array; sets ARR_*.
# KIND: raid456, raid456t, raid456u, raid5x, raid0, with +NAME=VAL parts
# and an @bm[CHUNK] part (see arrays= above)
setup_array() {
	local kind=${1%%@*} md=$2 n=$3 ck=$4 sz=$5 devs nd t bm
	ARR_MEMDIR=/tmp/members-$md ARR_ERR="" ARR_DEVS=()
	bm=$(array_bitmap "$1") || { ARR_ERR="bad bitmap in $1 (bm or bmCHUNK, e.g. bm4M)"; return 1; }
	rm -rf "$ARR_MEMDIR"
	nd=$n
	[ "$kind" = raid0 ] && nd=$((n - 1))
	devs=$(GL_MEMBER_DIR=$ARR_MEMDIR make_members "$nd" "$sz") ||
		{ ARR_ERR="make_members failed"; return 1; }
	read -r -a ARR_DEVS <<<"$devs"
	ARR_DM=()
	local mem=("${ARR_DEVS[@]}") i rd wr sz
	if [ "$ARR_DELAY" != 0 ]; then
		rd=${ARR_DELAY%%:*} wr=0
		[[ $ARR_DELAY == *:* ]] && wr=${ARR_DELAY#*:}
		mem=()
		for i in "${!ARR_DEVS[@]}"; do
			sz=$(blockdev --getsz "${ARR_DEVS[$i]}")
			DM_DISABLE_UDEV=1 dmsetup create "bench-$md-$i" --table \
				"0 $sz delay ${ARR_DEVS[$i]} 0 $rd ${ARR_DEVS[$i]} 0 $wr" ||
				{ ARR_ERR="dmsetup create delay failed"; return 1; }
			ARR_DM+=("bench-$md-$i")
			# no udev in the guest: the devtmpfs node, /dev/dm-MINOR
			mem+=("/dev/dm-$(DM_DISABLE_UDEV=1 dmsetup info -c --noheadings -o minor "bench-$md-$i" | tr -d ' ')")
		done
	fi
	r5x_load_for "$kind" || return 1
	case ${kind%%+*} in
	raid456 | raid456t | raid456u | raid5x)
		mdadm=mdadm
		[ "${bm% *}" != lockless ] || mdadm=/usr/local/sbin/mdadm-forky
		GL_BITMAP=${bm% *} GL_BITMAP_CHUNK=${bm#* } GL_MDADM=$mdadm \
			create_raid5 "$md" "$n" "$ck" left-symmetric "${mem[@]}" ||
			{ ARR_ERR="mdadm --create level 5 failed"; return 1; }
		if [ "${bm% *}" = internal ]; then
			[ "$(cat "$(md_sys "$md")/bitmap/location" 2>/dev/null)" != none ] ||
				{ ARR_ERR="$1: no bitmap after mdadm --create --bitmap=internal"; return 1; }
		elif [ "${bm% *}" = lockless ]; then
			grep -q '\[llbitmap\]' "$(md_sys "$md")/bitmap_type" 2>/dev/null ||
				{ ARR_ERR="$1: no llbitmap after mdadm --create --bitmap=lockless"; return 1; }
		fi
		if [ "${kind%%+*}" = raid5x ]; then
			to_raid5x "$md" || { ARR_ERR="takeover to raid5x failed"; return 1; }
		fi
		case $kind in
		raid456t) tune_456t "$md" raid456t "$TUNED456" || return 1 ;;
		raid456u) tune_456t "$md" raid456u "$UNSAFE456" || return 1 ;;
		esac
		;;
	raid0)
		mdadm --create "/dev/$md" --run --quiet --level=0 --metadata=1.2 \
			--chunk="$ck" --raid-devices="$nd" "${mem[@]}" ||
			{ ARR_ERR="mdadm --create level 0 failed"; return 1; }
		;;
	*) ARR_ERR="unknown array kind $kind"; return 1 ;;
	esac
	apply_tune "$kind" "$md" || return 1
	sysfs_write "$(md_sys "$md")/sync_speed_max" 2000000 || true
	# let udev-less md settle: the device must be readable
	for t in 1 2 3 4 5; do
		blockdev --getsize64 "/dev/$md" >/dev/null 2>&1 && return 0
		sleep "$t"
	done
	ARR_ERR="/dev/$md not ready"
	return 1
}
# r5x_load_for KIND: before a raid5x run, md-raid5x loaded with the module
# parameters KIND names (raid5x+NAME=VAL+...; none for raid5x): reloaded
# when the last raid5x run's differ (no array is running then). Every NAME
# must exist (the kernel ignores unknown ones); fails with ARR_ERR.
R5X_LOADED=""   # the parameters md-raid5x was last loaded with here
r5x_load_for() {
	local want="" p args=()
	case $1 in
	raid5x+*) want=${1#raid5x+} ;;
	raid5x) ;;
	*) return 0 ;;
	esac
	# sys.NAME=VAL items are the array's md/NAME (apply_tune), not parameters
	IFS=+ read -r -a args <<<"$want"
	want=""
	for p in ${args[@]+"${args[@]}"}; do
		[[ $p == sys.* ]] || want+=${want:++}$p
	done
	[ "$want" != "$R5X_LOADED" ] || return 0
	IFS=+ read -r -a args <<<"$want"
	rmmod md_raid5x || { ARR_ERR="rmmod md_raid5x failed"; return 1; }
	modprobe md-raid5x ${args[@]+"${args[@]}"} ||
		{ ARR_ERR="modprobe md-raid5x ${args[*]} failed"; return 1; }
	R5X_LOADED=$want
	for p in ${args[@]+"${args[@]}"}; do
		[ -e "/sys/module/md_raid5x/parameters/${p%%=*}" ] ||
			{ ARR_ERR="md-raid5x has no parameter ${p%%=*}"; return 1; }
	done
	echo "bench-guest: md-raid5x reloaded${want:+ with ${args[*]}}: $(modparams_json)"
}
# tune_456t MD KIND SETTINGS: SETTINGS (NAME:VAL,...) on MD, each value
# read back; fails with ARR_ERR. Prints the values read back (the console
# log), the first time per KIND also as a progress line.
T456_SAID=" "
tune_456t() {
	local md=$1 k=$2 sys item name val got rb=""
	sys=$(md_sys "$md")
	for item in ${3//,/ }; do
		name=${item%%:*} val=${item#*:}
		[ -e "$sys/$name" ] ||
			{ ARR_ERR="$k: $md has no md/$name (level $(md_level "$md"))"; return 1; }
		sysfs_write "$sys/$name" "$val" ||
			{ ARR_ERR="$k: writing $val to md/$name of $md failed"; return 1; }
		got=$(cat "$sys/$name" 2>/dev/null) || got="(unreadable)"
		[ "$got" = "$val" ] ||
			{ ARR_ERR="$k: md/$name of $md reads '$got' after writing $val"; return 1; }
		rb+=" $name=$got"
	done
	echo "bench-guest: $k $md read back:$rb"
	if [[ $T456_SAID != *" $k "* ]]; then
		say "$k settings read back on $md:$rb"
		T456_SAID+="$k "
	fi
}
# apply_tune KIND MD: tune=NAME:VAL,... on raid5x (stripe_cache_size on
# raid456 too; raid456t keeps TUNED456)
apply_tune() {
	local kind=$1 md=$2 item name val sys got items=()
	sys=$(md_sys "$md")
	# raid5x+sys.NAME=VAL, raid456+sys.NAME=VAL: this variant's md/NAME,
	# read back
	if [[ $kind == raid5x+* || $kind == raid456+* ]]; then
		IFS=+ read -r -a items <<<"${kind#*+}"
		for item in "${items[@]}"; do
			[[ $item == sys.* ]] || continue
			item=${item#sys.}
			name=${item%%=*} val=${item#*=}
			sysfs_write "$sys/$name" "$val" ||
				{ ARR_ERR="cannot set md/$name=$val on $kind"; return 1; }
			got=$(cat "$sys/$name" 2>/dev/null)
			[ "$got" = "$val" ] ||
				{ ARR_ERR="$kind: md/$name reads '$got' after writing $val"; return 1; }
		done
	fi
	[ -n "$tune" ] || return 0
	for item in ${tune//,/ }; do
		name=${item%%:*} val=${item#*:}
		case ${kind%%+*} in
		raid5x) ;;
		raid456) [ "$name" = stripe_cache_size ] || continue ;;
		*) continue ;;
		esac
		sysfs_write "$sys/$name" "$val" ||
			{ ARR_ERR="cannot set $name=$val on $kind"; return 1; }
	done
}
# teardown MD MEMDIR DEVS...: stop the array, detach and delete members.
teardown() {
	local md=$1 dir=$2 d
	shift 2
	grep -q " $MNT " /proc/mounts && umount "$MNT"
	[ -e "/sys/block/$md/md" ] && { stop_array "$md" || true; }
	for d in "${ARR_DM[@]}"; do
		DM_DISABLE_UDEV=1 dmsetup remove "$d" || true
	done
	ARR_DM=()
	for d in "$@"; do
		losetup -d "$d" 2>/dev/null || true
	done
	rm -rf "$dir"
}

# parity_check MD BYTES: md "check" of the first BYTES of array data (all of
# it when BYTES is 0 or covers the array), limited with sync_min/sync_max.
# Prints "MISMATCH_CNT SECONDS"; fails if the check could not run.
parity_check() {
	local md=$1 bytes=$2 sys ndata cs comp max c t0 i=0
	sys=$(md_sys "$md")
	t0=$EPOCHREALTIME
	wait_idle "$md" 60 >/dev/null || return 1
	ndata=$(($(cat "$sys/raid_disks") - 1))
	cs=$(($(cat "$sys/chunk_size") / 512))
	comp=$(($(cat "$sys/component_size") * 2))
	max=$(((bytes / 512 + ndata - 1) / ndata))
	max=$(((max + cs - 1) / cs * cs))
	if [ "$bytes" = 0 ] || [ "$max" -ge "$comp" ]; then
		echo check >"$sys/sync_action" || return 1
		wait_idle "$md" 1800 >/dev/null || return 1
	else
		echo 0 >"$sys/sync_min" && echo "$max" >"$sys/sync_max" || return 1
		echo check >"$sys/sync_action" || return 1
		# sync_completed reads "none" until the sync thread starts, and
		# again once it ended (it stops at sync_max only by waiting there)
		local started=0
		while :; do
			c=$(cat "$sys/sync_completed")
			if [ "$c" = none ]; then
				[ "$started" = 1 ] && break
				[ "$i" -lt 300 ] || { echo idle >"$sys/sync_action"; return 1; }
			else
				started=1
				[ "${c%% *}" -ge "$max" ] && break
			fi
			sleep 0.2
			i=$((i + 1))
			[ "$i" -lt 9000 ] || { echo idle >"$sys/sync_action"; return 1; }
		done
		echo idle >"$sys/sync_action"
		wait_idle "$md" 120 >/dev/null || return 1
		echo 0 >"$sys/sync_min"
		echo max >"$sys/sync_max"
	fi
	echo "$(cat "$sys/mismatch_cnt") $(secs "$t0")"
}

# parity_selftest KIND...: the parity check must find a planted error. On a
# fresh array of each KIND (4 x 32 MiB, 64K chunk, never written through md,
# so nothing is cached) 4 KiB of one member's data area are overwritten with
# random bytes behind md's back; parity_check of the first MiB must report
# mismatch_cnt > 0. Emits a "selftest" record and a progress line.
parity_selftest() {
	local kind pc mm off f res="" ok=true kok
	for kind in "$@"; do
		mm=null
		if setup_array "$kind" md0 4 64 32; then
			off=$(cat "/sys/block/md0/md/dev-${ARR_DEVS[0]##*/}/offset")
			f=$(cat "/sys/block/${ARR_DEVS[0]##*/}/loop/backing_file")
			dd if=/dev/urandom of="$f" bs=4096 seek=$((off / 8 + 16)) count=1 conv=notrunc \
				2>/dev/null
			if pc=$(parity_check md0 1048576); then mm=${pc% *}; fi
		fi
		teardown md0 "$ARR_MEMDIR" "${ARR_DEVS[@]}"
		kok=true
		[ "$mm" != null ] && [ "$mm" -gt 0 ] || kok=false ok=false
		res+=" $kind mismatch_cnt=$mm"
		emit_record "$(jkv type selftest array "$kind" mismatch_cnt "$mm" ok "$kok")"
	done
	if [ "$ok" = true ]; then
		say "parity-check self-test: planted error found:$res"
	else
		say "parity-check self-test FAILED (a planted error must give mismatch_cnt > 0):$res"
	fi
}

# ---- the suite's jobs ------------------------------------------------------

FS_KB=0   # one full stripe of data, KiB
ARR_BYTES=0
# job_opts JOB MD: the timed fio job's options, one per line. Writes carry
# verify_pattern=%o (each block holds its offset) for the replay check.
job_opts() {
	local job=$1 md=$2 io_b rnd_b reg_b
	local cap=$((ARR_BYTES * 9 / 10 / 1048576 * 1048576))
	io_b=$((io * 1048576))
	reg_b=$((region * 1048576))
	[ "$io_b" -le "$cap" ] || io_b=$cap
	[ "$reg_b" -le "$cap" ] || reg_b=$cap
	rnd_b=$((io_b / 4))
	[ "$rnd_b" -le "$reg_b" ] || rnd_b=$reg_b
	printf '%s\n' "filename=/dev/$md" randrepeat=1 randseed=4242 group_reporting=1 \
		norandommap=0 thread=0
	case $job in
	seq-write-2M-buffered) # seed 000: dd bs=2M
		printf '%s\n' rw=write bs=2M direct=0 ioengine=psync end_fsync=1 \
			"size=$(roundown "$io_b" 2097152)" ;;
	seq-write-fullstripe) # seed 001: O_DIRECT bs = chunk * (members-1)
		printf '%s\n' rw=write "bs=${FS_KB}k" direct=1 ioengine=psync \
			"size=$(roundown "$io_b" $((FS_KB * 1024)))" ;;
	seq-write-1M)
		printf '%s\n' rw=write bs=1M direct=1 ioengine=libaio iodepth=8 \
			"size=$(roundown "$io_b" 1048576)" ;;
	seq-write-1M-qd1) # dd bs=1M oflag=direct: one write at a time
		printf '%s\n' rw=write bs=1M direct=1 ioengine=psync \
			"size=$(roundown "$io_b" 1048576)" ;;
	seq-write-64K)
		printf '%s\n' rw=write bs=64k direct=1 ioengine=libaio iodepth=32 \
			"size=$(roundown "$io_b" 65536)" ;;
	seq-write-100K)
		printf '%s\n' rw=write bs=100k direct=1 ioengine=libaio iodepth=8 \
			"size=$(roundown "$io_b" 102400)" ;;
	rand-write-4K)
		printf '%s\n' rw=randwrite bs=4k direct=1 ioengine=libaio iodepth=32 \
			"size=$reg_b" "io_size=$rnd_b" ;;
	rand-rw-70-30-4K) # reads of never-written blocks read zeros (holes)
		printf '%s\n' rw=randrw rwmixread=70 bs=4k direct=1 ioengine=libaio \
			iodepth=16 "size=$reg_b" "io_size=$rnd_b" ;;
	seq-read-8K-x4) # seed 003: 8K reads, qd64, 4 jobs, on prefilled data
		printf '%s\n' rw=read bs=8k direct=1 ioengine=libaio iodepth=64 numjobs=4 \
			"size=$((io_b / 4 / 8192 * 8192))" "offset_increment=$((io_b / 4 / 8192 * 8192))"
		return ;;
	prefill) # untimed: the read job's data (rounded up to full stripes)
		local fsb=$((FS_KB * 1024)) rd=$((io_b / 4 / 8192 * 8192 * 4))
		printf '%s\n' rw=write "bs=${FS_KB}k" direct=1 ioengine=libaio iodepth=4 \
			"size=$(((rd + fsb - 1) / fsb * fsb))" ;;
	*) return 1 ;;
	esac
	printf '%s\n' verify=pattern verify_pattern=%o do_verify=0
}
# job_region JOB: bytes of array data the job writes into (for the parity
# check); 0 = the whole array
job_region() {
	local o
	case $1 in
	ext4-copy) echo $((EXT4_MB * 1048576)); return ;;
	seq-read-8K-x4) o=$(job_opts prefill md0) ;;
	*) o=$(job_opts "$1" md0) ;;
	esac
	grep '^size=' <<<"$o" | cut -d= -f2
}
# write_jobfile FILE JOB MD [verify]: a fio job file; "verify" makes the
# replay check (O_DIRECT, verify_only, fatal)
write_jobfile() {
	local f=$1 job=$2 md=$3 phase=${4:-run}
	{
		echo "[$job]"
		if [ "$phase" = verify ]; then
			job_opts "$job" "$md" | sed -e '/^direct=/d' -e '/^do_verify=/d' \
				-e '/^end_fsync=/d' -e '/^numjobs=/d'
			printf '%s\n' direct=1 verify_only=1 do_verify=1 verify_fatal=1
		else
			job_opts "$job" "$md"
		fi
	} >"$f"
}
# fio_run JOBFILE OUT [WRAPPER...]: fio (under WRAPPER, e.g. `perf record -a
# --`), its JSON into OUT, its console and the wrapper's into OUT.stderr;
# fails on error
fio_run() {
	"${@:3}" fio --eta=never --output-format=json --output="$2" "$1" >"$2.stderr" 2>&1
}

# ---- profile: where a run's CPU time goes ------------------------------------

# md_thread_pid MD: pid of the array's md thread (md0_raid5x, md0_raid5), or
# nothing (raid0 has none)
md_thread_pid() {
	local p c
	for p in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$p/comm" || continue
		case $c in "$1"_raid5*) echo "${p#/proc/}"; return ;; esac
	done
}
# thread_ticks PID: user+system clock ticks of PID (0 without one)
thread_ticks() {
	local f
	if [ -n "$1" ] && read -r -a f 2>/dev/null <"/proc/$1/stat"; then
		echo $((f[13] + f[14]))
	else
		echo 0
	fi
}
# perf_fio_run JOBFILE OUT MD: fio_run under `perf record -a` (cpu-clock
# samples on every CPU; an idle TCG CPU is sampled far less often than a
# busy one, so idle samples are kept but not reported) and the md thread's
# CPU time; sets
# R_PROF (profile_json) or leaves it null when perf itself failed
perf_fio_run() {
	local jf=$1 out=$2 md=$3 pid t0 t1 rc=0 hz
	R_PROF=null
	pid=$(md_thread_pid "$md")
	t0=$(thread_ticks "$pid")
	fio_run "$jf" "$out" perf record -a -q -F "$perf_hz" -e cpu-clock -o "$W/perf.data" -- || rc=$?
	t1=$(thread_ticks "$pid")
	hz=100	# USER_HZ, the unit of /proc/PID/stat on x86
	if [ -s "$W/perf.data" ]; then
		R_PROF=$(profile_json "$W/perf.data" "$md" "$(awk -v t=$((t1 - t0)) -v h="$hz" 'BEGIN { printf "%.2f", t / h }')")
	fi
	rm -f "$W/perf.data"
	return "$rc"
}
# profile_json PERFDATA MD THREAD_S: samples by who ran (the md thread,
# the submitter fio, kernel workers: loop's member I/O and the flusher's
# writeback, idle, other) and what (copy: memcpy and friends, xor: the XOR
# routines, other); the top symbols of the md thread, of fio and of the
# kernel workers, the top commands of the rest; THREAD_S = the md
# thread's CPU s
profile_json() {
	perf report -i "$1" --stdio -q -n --sort comm,sym 2>/dev/null |
		awk -v md="$2" -v ts="$3" -v hz="$perf_hz" '
		NF >= 5 && $1 ~ /%$/ {
			n = $2; comm = $3; sym = $5
			for (i = 6; i <= NF; i++) sym = sym " " $i
			if (index(comm, md "_raid5") == 1) who = "thread"
			else if (comm == "fio") who = "submit"
			else if (comm ~ /^(kworker|loop)/) who = "worker"
			else if (comm ~ /^swapper/) who = "idle"
			else who = "other"
			if (sym ~ /xor_|xor_blocks/) what = "xor"
			else if (sym ~ /memcpy|memmove|copy_bio_page|copy_page|copy_user|copy_to_iter|copy_from_iter|rep_movs|clear_page/) what = "copy"
			else what = "other"
			c[who "_" what] += n; tot += n
			if (who == "thread" || who == "submit" || who == "worker") {
				k = who "|" sym; top[k] += n
			} else if (who == "other") {
				k = "other|" comm; top[k] += n
			}
		}
		END {
			printf "{\"hz\":%d,\"samples\":%d,\"thread_cpu_s\":%s,\"by\":{", hz, tot, ts
			s = ""
			for (k in c) { printf "%s\"%s\":%d", s, k, c[k]; s = "," }
			printf "},\"top\":["
			# the 12 largest symbols of the md thread, of fio, of the
			# workers; the 12 busiest commands among the others
			s = ""
			split("thread submit worker other", whos, " ")
			for (w = 1; w <= 4; w++)
				for (j = 0; j < 12; j++) {
					best = ""; bn = 0
					for (k in top)
						if (index(k, whos[w] "|") == 1 && top[k] > bn) { bn = top[k]; best = k }
					if (best == "") break
					split(best, ws, "|"); gsub(/["\\]/, "", ws[2])
					printf "%s[\"%s\",\"%s\",%d]", s, ws[1], ws[2], bn; s = ","
					delete top[best]
				}
			printf "]}"
		}'
}
# lock_fio_run JOBFILE OUT: fio_run under `perf lock record -a` (the
# contention tracepoints: each contended acquisition and its wait, with
# the caller); sets R_LOCKS (locks_json) or leaves it null when perf failed
lock_fio_run() {
	local jf=$1 out=$2 rc=0
	R_LOCKS=null
	fio_run "$jf" "$out" perf lock record -a -o "$W/lock.data" -- || rc=$?
	if [ -s "$W/lock.data" ]; then
		R_LOCKS=$(locks_json "$W/lock.data")
	fi
	rm -f "$W/lock.data"
	return "$rc"
}
# locks_json PERFDATA: {"contended": N, "wait_ms": total wait (every
# caller), "top": [[type, caller, contended, wait ms, max wait ms], ...]}
# from `perf lock contention` (which prints its table on stderr; the 10
# callers with the most total wait); null without perf's table
locks_json() {
	perf lock contention -i "$1" -E 100000 -k wait_total 2>&1 |
		awk '
		# a time column: value and unit (ns, us, ms, s) to ms
		function ms(v, u) {
			if (u == "ns") return v / 1e6
			if (u == "us") return v / 1e3
			if (u == "ms") return v
			if (u == "s") return v * 1e3
			return 0
		}
		$1 == "contended" && $NF == "caller" { hdr = 1 }
		$1 ~ /^[0-9]+$/ && NF >= 9 {
			n = $1; w = ms($2, $3); mx = ms($4, $5)
			type = $8; caller = $9
			gsub(/["\\]/, "", caller)
			tn += n; tw += w
			if (k < 10) row[k++] = sprintf("[\"%s\",\"%s\",%d,%.3f,%.3f]", type, caller, n, w, mx)
		}
		END {
			# no table header: perf failed, which is not "no contention"
			if (!hdr) { printf "null"; exit }
			printf "{\"contended\":%d,\"wait_ms\":%.3f,\"top\":[", tn, tw
			for (i = 0; i < k; i++) printf "%s%s", (i ? "," : ""), row[i]
			printf "]}"
		}'
}
# fio_verify_pass JOBFILE: the replay check; prints a reason on failure
fio_verify_pass() {
	local out=$W/verify.log rc=0
	fio --eta=never --output="$out" "$1" >"$out.stderr" 2>&1 || rc=$?
	if [ "$rc" != 0 ] || grep -qE 'verify: bad|err= *[1-9]' "$out"; then
		echo "fio verify_only rc=$rc: $(grep -m 3 -E 'verify|err=|fio:' "$out" "$out.stderr" | tr '\n' ' ' | cut -c1-400)"
		return 1
	fi
}

# gen_tree DIR MB: the ext4 job's source tree: 4 files of MB/8 MiB, MB/4
# files of 1 MiB, MB*2 files of 64 KiB, MB*4 files of 4 KiB (about 0.94*MB
# MiB); each file starts with its own name. Written by bash builtins (no fork
# per file, it is TCG). Also writes DIR.md5.
gen_tree() {
	local dir=$1 mb=$2 s4 s64 s1m i d
	rm -rf "$dir"
	mkdir -p "$dir/big" "$dir/mid" "$dir/small"
	head -c 3072 /dev/urandom | base64 -w 0 >"$W/seed4k"
	s4=$(cat "$W/seed4k")
	s64="" s1m=""
	for ((i = 0; i < 16; i++)); do s64+=$s4; done
	for ((i = 0; i < 16; i++)); do s1m+=$s64; done
	for ((i = 0; i < 4; i++)); do
		{
			echo "big/f$i"
			for ((d = 0; d < mb / 8; d++)); do printf '%s' "$s1m"; done
		} >"$dir/big/f$i"
	done
	for ((i = 0; i < mb / 4; i++)); do
		printf 'mid/f%s\n%s' "$i" "${s1m:0:1048000}" >"$dir/mid/f$i"
	done
	for ((i = 0; i < mb * 2; i++)); do
		d=$dir/small/d$((i / 64))
		[ -d "$d" ] || mkdir -p "$d"
		printf 'small/f%s\n%s' "$i" "${s64:0:65000}" >"$d/m$i"
	done
	for ((i = 0; i < mb * 4; i++)); do
		d=$dir/small/d$((i / 64))
		[ -d "$d" ] || mkdir -p "$d"
		printf 'small/s%s\n%s' "$i" "${s4:0:4000}" >"$d/s$i"
	done
	(cd "$dir" && find . -type f -print0 | xargs -0 md5sum) >"$dir.md5"
}
TREE_BYTES=0
EXT4_MB=0  # the ext4 job's file system size: 3 x io, capped at 90% of the array

# ---- one suite run ---------------------------------------------------------

R_BEFORE="" R_AFTER="" R_CB="" R_CA="" R_BB=null R_BA=null R_FIO=null R_EXT4=null R_WALL=0 R_MIBS=0
R_VER="" R_ERR="" T_SETUP=null T_PREP=null T_TEARDOWN=null
# run_job JOB KIND MD: the timed part; fills R_*; fails with R_ERR
run_job() {
	local job=$1 kind=$2 md=$3 jf=$W/job.fio out=$W/fio.json t0 t1 rc
	R_FIO=null R_EXT4=null R_ERR="" R_PROF=null R_LOCKS=null
	t0=$EPOCHREALTIME
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if [ "$job" = ext4-copy ]; then
		mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "/dev/$md" \
			"${EXT4_MB}M" >"$W/mkfs.log" 2>&1 || { R_ERR="mkfs.ext4 failed: $(tail -n 2 "$W/mkfs.log")"; return 1; }
		mount -t ext4 "/dev/$md" "$MNT" || { R_ERR="mount failed"; return 1; }
		sync
		T_PREP=$(secs "$t0")
		R_BEFORE=$(stats_json "${ARR_DEVS[@]}") R_CB=$(counters_json "$md") R_BB=$(bios_json "$md")
		t0=$EPOCHREALTIME
		rc=0
		cp -a "$TREE" "$MNT/" && sync || rc=$?
		R_WALL=$(secs "$t0")
		R_AFTER=$(stats_json "${ARR_DEVS[@]}") R_CA=$(counters_json "$md") R_BA=$(bios_json "$md")
		[ "$rc" = 0 ] || { R_ERR="cp/sync failed rc=$rc"; return 1; }
		R_EXT4=$(jkv bytes "$TREE_BYTES" seconds "$R_WALL")
		R_MIBS=$(awk -v b="$TREE_BYTES" -v s="$R_WALL" 'BEGIN { printf "%.1f", b / 1048576 / s }')
		return 0
	fi
	if [ "$job" = seq-read-8K-x4 ]; then
		write_jobfile "$W/prefill.fio" prefill "$md"
		fio_run "$W/prefill.fio" "$W/prefill.json" ||
			{ R_ERR="prefill fio failed: $(tail -n 3 "$W/prefill.json.stderr" | tr '\n' ' ')"; return 1; }
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi
	write_jobfile "$jf" "$job" "$md"
	T_PREP=$(secs "$t0")
	R_BEFORE=$(stats_json "${ARR_DEVS[@]}") R_CB=$(counters_json "$md") R_BB=$(bios_json "$md")
	t0=$EPOCHREALTIME
	rc=0
	if [ "$profile" = 1 ]; then
		perf_fio_run "$jf" "$out" "$md" || rc=$?
	elif [ "$locks" = 1 ]; then
		lock_fio_run "$jf" "$out" || rc=$?
	else
		fio_run "$jf" "$out" || rc=$?
	fi
	t1=$EPOCHREALTIME
	R_AFTER=$(stats_json "${ARR_DEVS[@]}") R_CA=$(counters_json "$md") R_BA=$(bios_json "$md")
	R_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	if [ "$rc" != 0 ]; then
		R_ERR="fio rc=$rc: $(cat "$out.stderr" "$out" 2>/dev/null | grep -v '^ *[{}"]' | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
		return 1
	fi
	R_FIO=$(fio_json_line "$out")
	[ -n "$R_FIO" ] || { R_FIO=null; R_ERR="fio printed no JSON"; return 1; }
	R_MIBS=$(fio_mibs "$R_FIO")
}

# verify_job JOB KIND MD: data check (+ parity check per check=); sets R_VER
verify_job() {
	local job=$1 kind=$2 md=$3 data=ok detail="" parity=skipped mm=null pc="" t0 status=ok
	t0=$EPOCHREALTIME
	case $job in
	ext4-copy)
		if ! umount "$MNT"; then
			data=fail detail="umount failed"
		elif ! e2fsck -fn "/dev/$md" >"$W/fsck.log" 2>&1; then
			data=fail detail="e2fsck: $(tail -n 3 "$W/fsck.log" | tr '\n' ' ')"
		else
			echo 3 >/proc/sys/vm/drop_caches
			if ! mount -t ext4 -o ro "/dev/$md" "$MNT"; then
				data=fail detail="read-only mount failed"
			elif ! (cd "$MNT/${TREE##*/}" && md5sum -c "$TREE.md5" >"$W/md5.log" 2>&1); then
				data=fail detail="md5sum -c: $(grep -v ': OK$' "$W/md5.log" | head -n 3 | tr '\n' ' ')"
			fi
			umount "$MNT" 2>/dev/null || true
		fi
		;;
	seq-read-8K-x4)
		write_jobfile "$W/verify.fio" prefill "$md" verify
		detail=$(fio_verify_pass "$W/verify.fio") || data=fail
		;;
	*)
		write_jobfile "$W/verify.fio" "$job" "$md" verify
		detail=$(fio_verify_pass "$W/verify.fio") || data=fail
		;;
	esac
	if [ "$kind" != raid0 ] && { [ "$check" = all ] || { [ "$check" = raid5x ] && [ "${kind%%[+@]*}" = raid5x ]; }; }; then
		if pc=$(parity_check "$md" "$(job_region "$job")"); then
			mm=${pc% *}
			if [ "$mm" = 0 ]; then parity=ok; else parity=fail; fi
		else
			parity=error mm=null
		fi
	fi
	[ "$data" = ok ] || status=fail
	case $parity in fail | error) status=fail ;; esac
	R_VER=$(jkv status "$status" data "$data" parity "$parity" mismatch_cnt "$mm" \
		parity_seconds "${pc#* }" seconds "$(secs "$t0")" detail "$detail")
}

run_suite() {
	local ja aa njobs nar total idx=0 rep k job kind rot order v line geo lvl tun qlim mpar t0
	IFS=, read -r -a ja <<<"$jobs"
	IFS=, read -r -a aa <<<"$arrays"
	njobs=${#ja[@]} nar=${#aa[@]}
	total=$((njobs * nar * reps))
	FS_KB=$((chunk * (members - 1)))
	geo=$(jkv members "$members" chunk_kb "$chunk" member_mb "$size" full_stripe_kb "$FS_KB" \
		member_delay "$member_delay")
	[[ $member_delay =~ ^[0-9]+(:[0-9]+)?$ ]] ||
		{ echo "bench-guest: member_delay wants R or R:W (ms)" >&2; exit 64; }
	ARR_DELAY=$member_delay
	if [ "$ARR_DELAY" != 0 ]; then
		modprobe dm-mod 2>/dev/null || true
		modprobe dm-delay 2>/dev/null || true
	fi
	for job in "${ja[@]}"; do
		case ",$all_jobs,$opt_jobs," in *",$job,"*) ;; *) echo "bench-guest: unknown job $job" >&2; exit 64 ;; esac
		if [ "$job" = ext4-copy ] && [ "$TREE_BYTES" = 0 ]; then
			t0=$EPOCHREALTIME
			gen_tree "$TREE" "$io"
			TREE_BYTES=$(find "$TREE" -type f -exec stat -c %s {} + | awk '{ s += $1 } END { print s }')
			say "ext4 source tree: $TREE_BYTES bytes, $(find "$TREE" -type f | wc -l) files in $(secs "$t0") s"
		fi
	done
	for ((rep = 1; rep <= reps; rep++)); do
		for job in "${ja[@]}"; do
			order=()
			for ((k = 0; k < nar; k++)); do
				rot=$(((k + rep - 1) % nar))
				order+=("${aa[$rot]}")
			done
			for kind in "${order[@]}"; do
				idx=$((idx + 1))
				R_VER=null R_ERR="" R_FIO=null R_EXT4=null R_BEFORE=null R_AFTER=null R_CB=null R_CA=null
				R_BB=null R_BA=null
				R_WALL=0 R_MIBS=0 R_PROF=null R_LOCKS=null T_SETUP=null T_PREP=null T_TEARDOWN=null
				t0=$EPOCHREALTIME
				if setup_array "$kind" md0 "$members" "$chunk" "$size"; then
					T_SETUP=$(secs "$t0")
					ARR_BYTES=$(blockdev --getsize64 /dev/md0)
					EXT4_MB=$((io * 3))
					[ "$EXT4_MB" -le $((ARR_BYTES * 9 / 10 / 1048576)) ] ||
						EXT4_MB=$((ARR_BYTES * 9 / 10 / 1048576))
					lvl=$(md_level md0) tun=$(tunables_json md0) qlim=$(queue_json md0) mpar=null
					[ "${kind%%[+@]*}" != raid5x ] || mpar=$(modparams_json)
					if run_job "$job" "$kind" md0; then
						verify_job "$job" "$kind" md0
					else
						R_ERR=${R_ERR:-run failed}
					fi
				else
					R_ERR="setup: $ARR_ERR" lvl=null tun=null qlim=null mpar=null ARR_BYTES=0
				fi
				t0=$EPOCHREALTIME
				teardown md0 "$ARR_MEMDIR" "${ARR_DEVS[@]}"
				T_TEARDOWN=$(secs "$t0")
				emit_record "$(jkv type run mode suite idx "$idx" total "$total" array "$kind" \
					job "$job" rep "$rep" geometry "$geo" level "$lvl" array_bytes "$ARR_BYTES" \
					tunables "$tun" queue "$qlim" module_params "$mpar" wall_s "$R_WALL" member_sectors_before "$R_BEFORE" \
					member_sectors_after "$R_AFTER" counters_before "$R_CB" counters_after "$R_CA" \
					array_bios_before "$R_BB" array_bios_after "$R_BA" verify "$R_VER" error "${R_ERR:-null}" ext4 "$R_EXT4" \
					times "$(jkv setup "$T_SETUP" prepare "$T_PREP" teardown "$T_TEARDOWN")" \
					profile "$R_PROF" locks "$R_LOCKS" fio "$R_FIO")"
				if [ -n "$R_ERR" ]; then
					line="ERROR: $R_ERR"
				else
					line="$R_MIBS MiB/s"
					case $R_VER in
					*'"status":"ok"'*) line+=" (verified)" ;;
					*) line+=" -- VERIFY FAILED: $R_VER" ;;
					esac
				fi
				say "[$idx/$total] $kind $job rep $rep: $line"
			done
		done
	done
}

# ---- the counter-example hunt ---------------------------------------------

# hunt_opts RW BS QD MD REGION_B: a time-based fio job
hunt_opts() {
	local rw=$1 bs=$2 qd=$3 md=$4 reg=$5
	printf '%s\n' "filename=/dev/$md" direct=1 ioengine=libaio "iodepth=$qd" "bs=$bs" \
		"size=$reg" time_based=1 "runtime=$hunt_runtime" randrepeat=1 randseed=4242 \
		group_reporting=1
	if [ "$rw" = seq ]; then echo rw=write; else echo rw=randwrite; fi
}

run_hunt() {
	local ma ca cells ha n m c cell ci rw bs qd fsb bsb reg total idx=0 rep k kind md
	local bytes geo lvl out jf pc mm t0 cj i
	local -a hdevs=() hdir=()
	IFS=, read -r -a ma <<<"$hunt_members"
	IFS=, read -r -a ca <<<"$hunt_chunks"
	IFS=, read -r -a cells <<<"$hunt_cells"
	IFS=, read -r -a ha <<<"$hunt_arrays"
	n=${#ha[@]}
	case ",$hunt_arrays," in
	*,raid5x,*) ;;
	*) echo "bench-guest: hunt_arrays must include raid5x" >&2; exit 64 ;;
	esac
	total=$((${#ma[@]} * ${#ca[@]} * ${#cells[@]} * n * hunt_reps))
	for m in "${ma[@]}"; do
		for c in "${ca[@]}"; do
			fsb=$((c * 1024 * (m - 1)))
			geo=$(jkv members "$m" chunk_kb "$c" member_mb "$hunt_size" full_stripe_kb $((fsb / 1024)))
			# every array at once (hunt_arrays[i] is md<i>), so each cell
			# alternates between them
			for i in "${!ha[@]}"; do
				setup_array "${ha[$i]}" "md$i" "$m" "$c" "$hunt_size" ||
					{ say "ERROR: hunt m$m c$c ${ha[$i]}: $ARR_ERR"; exit 1; }
				hdevs[i]="${ARR_DEVS[*]}" hdir[i]=$ARR_MEMDIR
			done
			bytes=$(blockdev --getsize64 /dev/md0)
			reg=$((hunt_region * 1048576))
			[ "$reg" -le $((bytes * 9 / 10)) ] || reg=$((bytes * 9 / 10))
			reg=$(roundown "$reg" "$fsb")
			for ((rep = 1; rep <= hunt_reps; rep++)); do
				for ci in "${!cells[@]}"; do
					cell=${cells[$ci]}
					IFS=: read -r rw bs qd <<<"$cell"
					if [ "$bs" = fs ]; then bsb=$fsb; else bsb=$bs; fi
					for ((k = 0; k < n; k++)); do
						# each array once per cell; the first one
						# rotates from cell to cell and, for a cell,
						# from rep to rep (also with a single cell)
						i=$(((k + rep + ci) % n))
						kind=${ha[$i]} md=md$i
						idx=$((idx + 1))
						read -r -a ARR_DEVS <<<"${hdevs[$i]}"
						jf=$W/hunt.fio out=$W/hunt.json
						{ echo "[hunt]"; hunt_opts "$rw" "$bsb" "$qd" "$md" "$reg"; } >"$jf"
						R_BEFORE=$(stats_json "${ARR_DEVS[@]}") R_CB=$(counters_json "$md")
						t0=$EPOCHREALTIME
						R_ERR="" R_FIO=null R_MIBS=0
						if fio_run "$jf" "$out"; then
							R_FIO=$(fio_json_line "$out")
							R_MIBS=$(fio_mibs "$R_FIO")
						else
							R_ERR="fio failed: $(tail -n 3 "$out.stderr" | tr '\n' ' ')"
						fi
						R_WALL=$(secs "$t0")
						R_AFTER=$(stats_json "${ARR_DEVS[@]}") R_CA=$(counters_json "$md")
						lvl=$(md_level "$md")
						emit_record "$(jkv type run mode hunt idx "$idx" total "$total" array "$kind" \
							job "$rw-$bs-qd$qd" rw "$rw" bs "$bs" bs_bytes "$(numfmt_b "$bsb")" qd "$qd" \
							rep "$rep" geometry "$geo" level "$lvl" array_bytes "$bytes" region_bytes "$reg" \
							tunables "$(tunables_json "$md")" wall_s "$R_WALL" \
							member_sectors_before "$R_BEFORE" member_sectors_after "$R_AFTER" \
							counters_before "$R_CB" counters_after "$R_CA" verify null \
							error "${R_ERR:-null}" fio "$R_FIO")"
						say "[$idx/$total] $kind m$m c${c}K $rw bs=$bs qd$qd rep $rep: ${R_ERR:-$R_MIBS MiB/s}"
					done
				done
			done
			# integrity of the whole geometry: parity of the region on each
			for i in "${!ha[@]}"; do
				md=md$i
				if pc=$(parity_check "$md" "$reg"); then mm=${pc% *}; else mm=null pc="null null"; fi
				cj=$(jkv type hunt_check geometry "$geo" array "${ha[$i]}" level "$(md_level "$md")" \
					region_bytes "$reg" mismatch_cnt "$mm" seconds "${pc#* }")
				emit_record "$cj"
				say "parity check m$m c${c}K ${ha[$i]}: mismatch_cnt=$mm"
			done
			for ((i = n - 1; i >= 0; i--)); do
				read -r -a ARR_DEVS <<<"${hdevs[$i]}"
				teardown "md$i" "${hdir[$i]}" "${ARR_DEVS[@]}"
			done
		done
	done
}
# numfmt_b 4k|64k|1m|BYTES: bytes
numfmt_b() {
	local v=${1,,}
	case $v in
	*k) echo $((${v%k} * 1024)) ;;
	*m) echo $((${v%m} * 1048576)) ;;
	*) echo "$v" ;;
	esac
}

# ---- main ------------------------------------------------------------------

# @ll arrays: md-mod with llbitmap (bench.sh), loaded before md's users
if [ -f /opt/md-llbitmap/md-mod.ko ]; then
	unload_modules md-raid5x raid456 md_mod
	insmod /opt/md-llbitmap/md-mod.ko || { echo "bench-guest: insmod md-mod with llbitmap failed"; exit 1; }
fi
load_md || exit 1
modprobe ext4 2>/dev/null || true
if [ "$dirty" != 0 ]; then
	echo $((dirty * 1048576 / 4)) >/proc/sys/vm/dirty_background_bytes
	echo $((dirty * 1048576)) >/proc/sys/vm/dirty_bytes
fi
modinfo_json() {
	local f out="" sep=""
	for f in filename version srcversion vermagic; do
		out+="$sep\"$f\":$(jstr "$(modinfo -F "$f" md-raid5x 2>/dev/null | head -n 1)")"
		sep=,
	done
	printf '{%s}' "$out"
}
emit_record "$(jkv type header mode "$mode" kernel "$(uname -r)" uname "$(uname -a)" \
	cmdline "$(cat /proc/cmdline)" module "$(modinfo_json)" module_params "$(modparams_json)" \
	fio "$(fio --version)" mdadm "$(mdadm --version 2>&1)" \
	cpus "$(nproc)" mem_kb "$(awk '/MemTotal/ { print $2 }' /proc/meminfo)" \
	dirty_bytes "$(cat /proc/sys/vm/dirty_bytes)" \
	dirty_background_bytes "$(cat /proc/sys/vm/dirty_background_bytes)" \
	args "$*" members "$members" chunk_kb "$chunk" member_mb "$size" reps "$reps" \
	jobs "$jobs" arrays "$arrays" io_mb "$io" region_mb "$region" check "$check" tune "$tune" \
	hunt_members "$hunt_members" hunt_chunks "$hunt_chunks" hunt_size_mb "$hunt_size" \
	hunt_region_mb "$hunt_region" hunt_runtime_s "$hunt_runtime" hunt_reps "$hunt_reps" \
	hunt_cells "$hunt_cells" hunt_arrays "$hunt_arrays" tuned456 "$TUNED456" \
	unsafe456 "$UNSAFE456" bitmap "$bitmap" \
	profile "$profile" locks "$locks" perf_hz "$perf_hz" member_delay "$member_delay")"
raid5x_available || { say "ERROR: md-raid5x is not available in the guest"; exit 1; }
# the self-test covers raid456t too when this boot runs it
st_kinds=(raid456 raid5x)
if [ "$mode" = hunt ]; then st_arrays=$hunt_arrays; else st_arrays=$arrays; fi
case ",$st_arrays," in *,raid456t,*) st_kinds+=(raid456t) ;; esac
[ "$check" = none ] || parity_selftest "${st_kinds[@]}"
case $mode in
suite) run_suite ;;
hunt) run_hunt ;;
*) echo "bench-guest: unknown mode $mode" >&2; exit 64 ;;
esac
emit_record "$(jkv type footer elapsed_s "$(secs "$T_START")")"
say "done in $(secs "$T_START") s"
