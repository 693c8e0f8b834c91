#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# rebuild-bench-guest.sh: the guest half of scripts/rebuild-bench.sh.
#
# usage: rebuild-bench-guest.sh REPS SIZE_MB CHUNK_KB SPEED_MIN SPEED_MAX
#                               SCENARIOS THROTTLE_KB THROTTLE_S CACHE PERS...
# CACHE: stripe_cache_size set on each array once it runs (0: leave it).
# SCENARIOS: a comma-separated list of idle, throttle, write, load; they
# run in that order, one after the other, on the same array.
#
# For each repetition, each personality in turn (the order rotates per
# repetition): 5 fresh members of SIZE_MB on tmpfs, a clean 4-member array
# (stock mdadm, --assume-clean; raid5x by takeover), written full with
# O_DIRECT (fio, random buffers), md5 of its first three quarters (region
# F, where the foreground writer of `write` goes) and of the rest (region
# W, the witness). md's limits are speed_limit_min/max SPEED_MIN/SPEED_MAX
# KB/s (/proc/sys/dev/raid) unless a scenario says otherwise. Every
# recovery rebuilds slot 1: its member is failed and removed, the free
# member (superblock zeroed) is added as a spare, and the recovery is timed
# from the add to sync_action idle (polled every 0.1 s with builtins only:
# a fork costs the guest CPU the sync needs). After each, `check` under the
# same personality must give mismatch_cnt 0 and the data must verify.
#   idle      `check` and `repair` of the clean array timed the same way
#             (each must find mismatch_cnt 0), then a recovery of the idle
#             array; F and W must hash as before. One line:
#             "@@RB pers=P rep=R secs=S check_secs=C repair_secs=R
#             member_mib=M check=MISMATCHES data=ok|bad"
#   throttle  speed_limit_max THROTTLE_KB (speed_limit_min SPEED_MIN, or
#             THROTTLE_KB/2 if that is not below THROTTLE_KB), a recovery of
#             the idle array; its rate is measured from /proc/mdstat's
#             progress (KB of the member rebuilt) over THROTTLE_S seconds,
#             from 2 s after the add (md's own average runs ahead by up to
#             a second's worth of the limit at the start), and md's
#             sync_speed is sampled every 0.5 s in that window; then the
#             limits go back and the recovery ends at full speed. F and W
#             must hash as before. One line: "@@RBT pers=P rep=R limit=KB
#             win_s=S kbs=KB (the measured rate) md_med=KB md_max=KB
#             (sync_speed samples) check=MISMATCHES data=ok|bad"
#             (win_s is short of THROTTLE_S if the recovery ended first)
#   write     a foreground fio job writes region F while the spare is
#             rebuilt: random 64 KiB O_DIRECT writes (libaio, depth 4),
#             one pass at most (random map: no block twice), crc32c verify
#             headers, seed 1000+REP (the same for both personalities). It
#             starts on the degraded array; once its first writes show in
#             md0's counters the spare is added. Foreground MiB/s = md0's
#             written sectors from the add to the recovery's end (or fio's,
#             if its pass ended first: fg=pass) over that time. md's
#             sync_speed is sampled every 0.5 s from 1 s after the add.
#             The writer goes on for 5 s once the recovery is over:
#             after_mibs, its rate on the rebuilt array with no sync ("-"
#             if its pass ended before); then it is stopped (SIGINT: fio
#             saves how far it got). Afterwards: `check`; fio replays the
#             completed writes and verifies each block (verify_only with
#             the saved state: a lost write leaves the fill's random bytes,
#             which fail the header check); W must hash as before. One
#             line: "@@RBW pers=P rep=R secs=S fg_mibs=X
#             fg_mib=WRITTEN_IN_WINDOW member_mib=M speed_min=KB
#             md_min=KB md_min3=KB (lowest sample from 3 s after the
#             add: md's sync_speed is an average since the start, so early
#             samples carry the recovery's start-up) md_med=KB
#             md_n=SAMPLES fg=stopped|pass
#             after_mibs=X check=MISMATCHES verify=ok|bad witness=ok|bad
#             verified_mib=V member_rd_mib=R member_wr_mib=W" (the last
#             two: MiB read and written on the members from the add to the
#             recovery's end, the recovery's own I/O included)
#   load      a recovery at md's default limits (speed_limit_min/max
#             1000/200000 KB/s, whatever SPEED_MIN/SPEED_MAX; put back
#             after it) under two fio jobs at once (one fio, separate
#             jobs, time based): ldw, random 4 KiB O_DIRECT writes
#             (libaio, depth 32) over region F, random map (no block twice
#             in a pass), crc32c verify headers, seed 2000+REP (the same
#             for both personalities); ldr, sequential 1 MiB O_DIRECT reads
#             (libaio, depth 4) over region W. fio starts on the degraded
#             array; once its reads and its writes show in md0's counters
#             the spare is added; when the recovery ends fio is stopped
#             (SIGINT: it saves ldw's state). Foreground figures from
#             fio's per-I/O completion latency logs (Unix-epoch ms), cut to
#             the I/Os completed from the add to the recovery's end:
#             writes per second and their p99 latency, read MiB/s and
#             their p99 (nearest rank). The logs must hold as many I/Os as
#             fio's JSON counts. Afterwards: `check`; fio replays ldw's
#             completed writes (verify_only, saved state) and verifies each
#             block: every one of them must verify (a lost write leaves
#             the bytes there before, which fail the header check); a
#             writer that wrapped (more writes than F's blocks: a lost
#             second write would pass) counts as failed (verify=wrapped:
#             use larger members); W must hash as before. One line:
#             "@@RBL pers=P rep=R secs=S w_iops=X w_p99_ms=X r_mibs=X
#             r_p99_ms=X member_rd_mib=R member_wr_mib=W check=MISMATCHES
#             verify=ok|bad|wrapped witness=ok|bad fg=running|pass|noio|error
#             w_ios=N r_ios=N (I/Os completed in the window) written=N
#             verified=N (ldw's writes, all of fio's run, and those
#             replayed) pre_s=S (fio's start to the add) md_med=KB
#             member_mib=M speed_min=KB speed_max=KB worker_stripes=N"
#             (stripes raid5x's workers handled from the add to the
#             recovery's end; - under raid456); fg must be running
#             (fio ran through the whole recovery, without errors, both
#             jobs completed I/O in the window)
# Exit 1 if any run failed a check.
# shellcheck source=../tests/lib/guest-lib.sh
. /lib/guest-lib.sh

# stripes raid5x's workers have handled so far (guest-lib's r5x_stat), or
# - when raid5x does not run md0
worker_stripes() { r5x_stat md0 worker_stripes 2>/dev/null || echo -; }

reps=${1:?reps} size=${2:?size} chunk=${3:?chunk} smin=${4:?} smax=${5:?}
scen=${6:?scenarios} thr=${7:?throttle KB/s} thr_s=${8:?throttle seconds}
cache=${9:?stripe_cache_size}
shift 9
after_s=5   # write: how long the writer goes on once the recovery is over
load_min=1000 load_max=200000   # load: md's default speed limits
load_fio_s=3600   # load: fio's runtime, a bound (it is stopped at the end)
[ $# -ge 1 ] || { echo "no personality" >&2; exit 64; }
load_md
sys=/sys/block/md0/md
lim=/proc/sys/dev/raid
set_limits() { # MIN MAX (max first when lowering it: md accepts any order,
	echo "$1" >"$lim/speed_limit_min"  # but keep min <= max throughout)
	echo "$2" >"$lim/speed_limit_max"
}
set_limits "$smin" "$smax"
note "speed_limit_min $(cat "$lim/speed_limit_min") speed_limit_max $(cat "$lim/speed_limit_max") KB/s; scenarios $scen"
failed=0
cd /tmp

# now_us: microseconds since the epoch into $NOW (no fork)
now_us() { NOW=${EPOCHREALTIME/[.,]/}; }
# secs_since T0_US: seconds since T0 (microseconds), one decimal, into $SECS
secs_since() {
	now_us
	local d=$(((NOW - $1 + 50000) / 100000))
	SECS=$((d / 10)).$((d % 10))
}
# md0_written: sectors written to md0 (its stat, field 7) into $WSEC
md0_written() {
	local s
	read -r -a s </sys/block/md0/stat
	WSEC=${s[6]}
}
# mdstat_done: KB of the member rebuilt so far, from /proc/mdstat's
# "recovery = P% (DONE/TOTAL)", into $DONE (empty when no recovery shows)
mdstat_done() {
	local line re='recovery = *[0-9.]+% \(([0-9]+)/[0-9]+\)'
	DONE=""
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then DONE=${BASH_REMATCH[1]}; fi
	done </proc/mdstat
}
# region_md5 FROM_MIB COUNT_MIB: md5 of that range of md0 (O_DIRECT)
region_md5() {
	dd if=/dev/md0 bs=1M skip="$1" count="$2" iflag=direct status=none |
		md5sum | cut -d' ' -f1
}
# stats LIST: "min median max n" of the numbers in LIST ("- - - 0" if none)
stats() {
	echo "$1" | tr ' ' '\n' | sort -n | awk 'NF { a[++n] = $1 }
		END { if (!n) { print "- - - 0"; exit }
		      m = (n % 2) ? a[(n + 1) / 2] : int((a[n / 2] + a[n / 2 + 1]) / 2)
		      print a[1], m, a[n], n }'
}

# timed_action ACTION: run check or repair on md0, print its seconds from the
# request to sync_action idle; fails unless it found mismatch_cnt 0.
timed_action() {
	local t0 i=0 a mm
	now_us
	t0=$NOW
	echo "$1" >"$sys/sync_action" || return 1
	read -r a <"$sys/sync_action"
	while [ "$a" = idle ] && [ "$i" -lt 20 ]; do
		gl_nap 0.05
		i=$((i + 1))
		read -r a <"$sys/sync_action"
	done
	while [ "$a" != idle ]; do
		gl_nap 0.1
		read -r a <"$sys/sync_action"
	done
	secs_since "$t0"
	echo "$SECS"
	read -r mm <"$sys/mismatch_cnt"
	[ "$mm" = 0 ] || { note "$1: mismatch_cnt $mm"; return 1; }
}

# check_mm: run `check`, wait for its end, print mismatch_cnt ("?" if the
# check did not run to its end)
check_mm() {
	if echo check >"$sys/sync_action" && gl_nap 0.5 && wait_idle md0 600; then
		cat "$sys/mismatch_cnt"
	else
		echo "?"
	fi
}

# fail_out DEV: fail and remove DEV (slot 1's member)
fail_out() {
	mdadm /dev/md0 --fail "$1" >/dev/null 2>&1 &&
		mdadm /dev/md0 --remove "$1" >/dev/null 2>&1 && sync
}

# recover DEV MODE [FIO_PID]: add DEV (superblock zeroed: a member failed
# before, it would otherwise be refused as a re-add without a bitmap) as a
# spare and wait for the recovery to end. MODE: idle, throttle (the
# measured window, then md's limits back to SPEED_MIN/SPEED_MAX) or write
# (FIO_PID: the foreground writer, whose end is noticed). Sets R_SECS (the
# add to idle), R_SPEEDS (md's sync_speed samples: every 0.5 s from 1 s
# after the add; throttle: in the window only), R_WIN_KBS and R_WIN_S
# (throttle), R_W0/R_W1 (md0's written sectors at the add and at the end,
# or at fio's end: R_FG=pass), R_T1 (microseconds from the add to that
# end), R_T0/R_TE (the add and the recovery's end, microseconds since the
# epoch) and R_MR0/R_MW0, R_MR1/R_MW1 (sectors read and written on the
# members, all five, at the add and at the recovery's end). MODE load is
# write's (FIO_PID: the foreground fio).
recover() {
	local dev=$1 mode=$2 pid=${3:-} t0 i=0 a d next ta=0 tb=0 da=0 fg_end=0 series=""
	R_SPEEDS="" R_SPEEDS3="" R_WIN_KBS=- R_WIN_S=- R_FG=stopped
	mdadm --zero-superblock "$dev" >/dev/null 2>&1 || true
	md0_written
	R_W0=$WSEC
	read -r R_MR0 R_MW0 <<<"$(member_stats "${devs[@]}")"
	r5x_stats md0 >/tmp/r5x.0 2>/dev/null || true
	now_us
	t0=$NOW
	mdadm /dev/md0 --add "$dev" >/dev/null 2>&1 || { note "--add $dev failed"; return 1; }
	# wait for the recovery to start (or to be over already)
	read -r a <"$sys/sync_action"
	read -r d <"$sys/degraded"
	while [ "$a" = idle ] && [ "$d" != 0 ]; do
		gl_nap 0.1
		i=$((i + 1))
		[ "$i" -lt 100 ] || { note "no recovery started"; return 1; }
		read -r a <"$sys/sync_action"
		read -r d <"$sys/degraded"
	done
	next=$((t0 + 1000000))
	while [ "$a" != idle ]; do
		now_us
		if [ "$mode" = throttle ]; then
			if [ "$ta" = 0 ] && [ "$NOW" -ge $((t0 + 2000000)) ]; then
				mdstat_done
				[ -z "$DONE" ] || { da=$DONE ta=$NOW next=$NOW; }
			elif [ "$ta" != 0 ] && [ "$tb" = 0 ] && [ "$NOW" -ge $((ta + thr_s * 1000000)) ]; then
				mdstat_done
				if [ -n "$DONE" ]; then
					tb=$NOW
					R_WIN_KBS=$(((DONE - da) * 1000000 / (tb - ta)))
					R_WIN_S=$(((tb - ta) / 100000))
					R_WIN_S=$((R_WIN_S / 10)).$((R_WIN_S % 10))
					set_limits "$smin" "$smax"
				fi
			fi
		fi
		if [ "$NOW" -ge "$next" ] && { [ "$mode" != throttle ] || { [ "$ta" != 0 ] && [ "$tb" = 0 ]; }; }; then
			read -r d <"$sys/sync_speed"
			if [[ $d =~ ^[0-9]+$ ]]; then
				R_SPEEDS+=" $d"
				[ "$NOW" -lt $((t0 + 3000000)) ] || R_SPEEDS3+=" $d"
			fi
			mdstat_done
			series+=" $(((NOW - t0) / 100000)):$d:${DONE:--}"
			next=$((next + 500000))
		fi
		if [ -n "$pid" ] && [ "$fg_end" = 0 ] && ! kill -0 "$pid" 2>/dev/null; then
			fg_end=$NOW
			md0_written
			R_W1=$WSEC R_FG=pass
		fi
		gl_nap 0.1
		read -r a <"$sys/sync_action"
	done
	now_us
	read -r R_MR1 R_MW1 <<<"$(member_stats "${devs[@]}")"
	note "samples ($mode; tenths of a second after the add:md's sync_speed KB/s:KB rebuilt per /proc/mdstat):$series"
	if r5x_stats md0 >/tmp/r5x.1 2>/dev/null; then
		note "raid5x counters from the add to the end ($mode): $(awk 'NR == FNR { v[$1] = $2; next } $2 != v[$1] { printf "%s +%d ", $1, $2 - v[$1] }' /tmp/r5x.0 /tmp/r5x.1)"
	fi
	if [ "$fg_end" = 0 ]; then
		md0_written
		R_W1=$WSEC
		fg_end=$NOW
	fi
	R_T1=$((fg_end - t0)) R_T0=$t0 R_TE=$NOW
	secs_since "$t0"
	R_SECS=$SECS
	if [ "$mode" = throttle ] && [ "$tb" = 0 ]; then
		# the recovery ended inside the window: the rate up to its end
		if [ "$ta" != 0 ] && [ "$NOW" -gt "$ta" ]; then
			R_WIN_KBS=$(((member_kb - da) * 1000000 / (NOW - ta)))
			R_WIN_S=$(((NOW - ta) / 100000))
			R_WIN_S=$((R_WIN_S / 10)).$((R_WIN_S % 10))
		fi
		set_limits "$smin" "$smax"
	fi
	grep -q '\[4/4\] \[UUUU\]' /proc/mdstat ||
		{ note "not [4/4] after the recovery: $(md_mdstat_line md0)"; return 1; }
}

# data_same: regions F and W hash as after the fill
data_same() {
	[ "$(region_md5 0 "$fmib")" = "$f0" ] && [ "$(region_md5 "$fmib" "$wmib")" = "$w0" ]
}

# window_stats LOG T0_MS T1_MS: of fio's per-I/O completion latency log
# (log_unix_epoch=1: "MS_SINCE_EPOCH, CLAT_NS, DDIR, BS, PRIO" a line), the
# I/Os completed in [T0_MS, T1_MS]: "COUNT BYTES P99_MS" (nearest rank;
# "0 0 -" if none)
window_stats() {
	awk -F', *' -v a="$2" -v b="$3" '$1 >= a && $1 <= b { print $2, $4 }' "$1" |
		sort -n -k1,1 | awk '{ v[++n] = $1; by += $2 }
		END { if (!n) { print "0 0 -"; exit }
		      k = int(n * 0.99); if (k < n * 0.99) k++; if (k < 1) k = 1
		      printf "%d %.0f %.2f\n", n, by, v[k] / 1e6 }'
}

# load_run PERS REP: the load scenario (one_run's devs, out, free, fmib,
# wmib and w0 are seen here, and out/free swapped)
load_run() {
	local pers=$1 rep=$2 fgpid rc k s r0 ws0 t_fio pre win wtot rtot
	local wlog rlog fg verify witness mm vn vdoc errs ws rs wiops rmibs md wk wk0 wk1
	local lg=(--log_avg_msec=0 --disable_slat=1 --disable_lat=1)
	local fw=(--name=ldw --filename=/dev/md0 --rw=randwrite --bs=4k --direct=1
		--ioengine=libaio --iodepth=32 --offset=0 --size="${fmib}M"
		--verify=crc32c --randseed=$((2000 + rep)))
	fail_out "$out" || return 1
	set_limits "$load_min" "$load_max"
	rm -f /tmp/*-ldw-*-verify.state /tmp/ld_[wr]_*.log
	read -r -a s </sys/block/md0/stat
	r0=${s[2]} ws0=${s[6]}
	now_us
	t_fio=$NOW
	# ldw first: fio's random seeds depend on the job's number, and the
	# replay below runs ldw alone
	fio --eta=never --output-format=json --output=/tmp/ld.json \
		--clocksource=clock_gettime --log_unix_epoch=1 \
		"${fw[@]}" --time_based=1 --runtime="$load_fio_s" --do_verify=0 \
		--verify_state_save=1 --write_lat_log=/tmp/ld_w "${lg[@]}" \
		--name=ldr --filename=/dev/md0 --rw=read --bs=1M --direct=1 \
		--ioengine=libaio --iodepth=4 --offset="${fmib}M" --size="${wmib}M" \
		--time_based=1 --runtime="$load_fio_s" --write_lat_log=/tmp/ld_r "${lg[@]}" \
		2>/tmp/ld.err &
	fgpid=$!
	# the spare comes once both jobs' I/O shows in md0's counters
	for ((k = 0; k < 200; k++)); do
		read -r -a s </sys/block/md0/stat
		[ "${s[2]}" = "$r0" ] || [ "${s[6]}" = "$ws0" ] || break
		kill -0 "$fgpid" 2>/dev/null || break
		gl_nap 0.1
	done
	if [ "${s[2]}" = "$r0" ] || [ "${s[6]}" = "$ws0" ]; then
		note "load: fio's reads and writes did not both show in md0's counters in 20 s"
		kill -INT "$fgpid" 2>/dev/null; wait "$fgpid"
		set_limits "$smin" "$smax"
		return 1
	fi
	wk0=$(worker_stripes)
	recover "$free" load "$fgpid" ||
		{ kill -INT "$fgpid" 2>/dev/null; wait "$fgpid"; set_limits "$smin" "$smax"; return 1; }
	# the recovery is over: stop fio now (SIGINT: it saves the writer's
	# state and writes its logs)
	wk1=$(worker_stripes)
	kill -INT "$fgpid" 2>/dev/null || true
	rc=0
	wait "$fgpid" || rc=$?
	set_limits "$smin" "$smax"
	wk=-
	[ "$wk0" = - ] || [ "$wk1" = - ] || wk=$((wk1 - wk0))
	local tmp=$out
	out=$free free=$tmp
	pre=$(((R_T0 - t_fio) / 100000))
	pre=$((pre / 10)).$((pre % 10))
	fg=running
	[ "$R_FG" = stopped ] || fg=pass   # fio ended before the recovery
	[ "$rc" = 0 ] || [ "$rc" = 128 ] || { note "load: fio status $rc:"; sed 's/^/#   /' /tmp/ld.err; fg=error; }
	sed -n '/^{/,$p' /tmp/ld.json >/tmp/ld.doc
	errs=$(jq '[.jobs[].error] | add' /tmp/ld.doc 2>/dev/null) || errs='?'
	[ "$errs" = 0 ] || { note "load: fio job errors $errs"; fg=error; }
	wtot=$(jq '.jobs[] | select(.jobname == "ldw") | .write.total_ios' /tmp/ld.doc 2>/dev/null) || wtot='?'
	rtot=$(jq '.jobs[] | select(.jobname == "ldr") | .read.total_ios' /tmp/ld.doc 2>/dev/null) || rtot='?'
	wlog=$(echo /tmp/ld_w_clat.*.log) rlog=$(echo /tmp/ld_r_clat.*.log)
	# the logs must hold every I/O fio counted
	if [ ! -f "$wlog" ] || [ ! -f "$rlog" ] || [ "$(wc -l <"$wlog")" != "$wtot" ] ||
		[ "$(wc -l <"$rlog")" != "$rtot" ]; then
		note "load: fio's logs ($wlog, $rlog) do not match its counts ($wtot writes, $rtot reads)"
		fg=error
	fi
	read -r -a ws <<<"$(window_stats "$wlog" $((R_T0 / 1000)) $((R_TE / 1000)))"
	read -r -a rs <<<"$(window_stats "$rlog" $((R_T0 / 1000)) $((R_TE / 1000)))"
	win=$((R_TE - R_T0))
	wiops=$(awk -v n="${ws[0]}" -v t="$win" 'BEGIN { printf "%.0f", n / (t / 1e6) }')
	rmibs=$(awk -v b="${rs[1]}" -v t="$win" 'BEGIN { printf "%.1f", b / 1048576 / (t / 1e6) }')
	# foreground figures need both jobs' I/O in the window
	if [ "$fg" = running ] && { [ "${ws[0]}" = 0 ] || [ "${rs[0]}" = 0 ]; }; then
		fg=noio
	fi
	read -r -a md <<<"$(stats "$R_SPEEDS")"
	mm=$(check_mm)
	# replay the writer's completed writes and verify each block (its
	# map is random without repeats: a lost write leaves what was there
	# before, the fill's random bytes or another block size's header,
	# which fail the header check); past one pass blocks were written
	# twice and a lost second write would pass: wrapped, a failure
	verify=bad vn=-
	if [[ $wtot =~ ^[0-9]+$ ]] && [ "$wtot" -gt $((fmib * 256)) ]; then
		verify=wrapped
		note "load: the writer wrapped ($wtot writes of 4 KiB in ${fmib} MiB): use larger members"
	else
		rc=0
		fio "${fw[@]}" --eta=never --output-format=json --output=/tmp/ldv.json \
			--verify_only --verify_state_load=1 --verify_fatal=1 2>/tmp/ldv.err || rc=$?
		vdoc=$(sed -n '/^{/,$p' /tmp/ldv.json)
		vn=$(jq '.jobs[0].read.total_ios' <<<"$vdoc" 2>/dev/null) || vn='?'
		if [ "$rc" = 0 ] && [ "$(jq '.jobs[0].error' <<<"$vdoc" 2>/dev/null)" = 0 ] &&
			! grep -q 'verify' /tmp/ldv.err && [[ $wtot =~ ^[1-9][0-9]*$ ]] && [ "$vn" = "$wtot" ]; then
			verify=ok
		else
			note "load: verify: fio status $rc, verified $vn of $wtot writes:"
			head -20 /tmp/ldv.err | sed 's/^/#   /'
		fi
	fi
	witness=bad
	[ "$(region_md5 "$fmib" "$wmib")" = "$w0" ] && witness=ok
	echo "@@RBL pers=$pers rep=$rep secs=$R_SECS w_iops=$wiops w_p99_ms=${ws[2]} r_mibs=$rmibs r_p99_ms=${rs[2]} member_rd_mib=$(((R_MR1 - R_MR0) / 2048)) member_wr_mib=$(((R_MW1 - R_MW0) / 2048)) check=$mm verify=$verify witness=$witness fg=$fg w_ios=${ws[0]} r_ios=${rs[0]} written=$wtot verified=$vn pre_s=$pre md_med=${md[1]} member_mib=$mib speed_min=$load_min speed_max=$load_max worker_stripes=$wk"
	[ "$mm" = 0 ] && [ "$verify" = ok ] && [ "$witness" = ok ] && [ "$fg" = running ]
}

one_run() { # PERS REP
	local pers=$1 rep=$2 devs out free tmp csecs rsecs mm data st s fgpid rc
	local ws0 ws1 fgmib fgmibs verify witness vmib wmib_fio after a0 t0 s3
	read -r -a devs <<<"$(make_members 5 "$size")" || return 1
	create_raid5 md0 4 "$chunk" left-symmetric "${devs[@]:0:4}" || return 1
	if [ "$pers" = raid5x ]; then
		to_raid5x md0 || return 1
	fi
	[ "$(md_level md0)" = "$([ "$pers" = raid5x ] && echo raid5x || echo raid5)" ] ||
		{ note "$pers: level is $(md_level md0)"; return 1; }
	if [ "$cache" != 0 ]; then
		sysfs_write "$sys/stripe_cache_size" "$cache" || true
		if [ "$(cat "$sys/stripe_cache_size")" != "$cache" ]; then
			note "$pers: stripe_cache_size $cache not taken"
			return 1
		fi
	fi
	fio --eta=never --name=fill --filename=/dev/md0 --rw=write --bs=1M \
		--direct=1 --ioengine=libaio --iodepth=4 --size=100% \
		--output=/dev/null || return 1
	amib=$(($(blockdev --getsize64 /dev/md0) / 1048576))
	fmib=$((amib * 3 / 4)) wmib=$((amib - amib * 3 / 4))
	f0=$(region_md5 0 "$fmib") w0=$(region_md5 "$fmib" "$wmib")
	if [ -z "$f0" ] || [ -z "$w0" ]; then note "cannot hash md0"; return 1; fi
	# slot 1 is rebuilt each time: out leaves, free comes in
	out=${devs[1]} free=${devs[4]}
	member_kb=$((size * 1024 - $(cat "$sys/dev-${devs[0]##*/}/offset") / 2))
	mib=$(awk -v k="$member_kb" 'BEGIN { printf "%.1f", k / 1024 }')
	st=0

	if [[ ,$scen, == *,idle,* ]]; then
		csecs=$(timed_action check) || return 1
		rsecs=$(timed_action repair) || return 1
		fail_out "$out" || return 1
		recover "$free" idle || return 1
		tmp=$out out=$free free=$tmp
		mm=$(check_mm)
		data=bad
		data_same && data=ok
		echo "@@RB pers=$pers rep=$rep secs=$R_SECS check_secs=$csecs repair_secs=$rsecs member_mib=$mib check=$mm data=$data"
		[ "$mm" = 0 ] && [ "$data" = ok ] || st=1
	fi

	if [[ ,$scen, == *,throttle,* ]]; then
		fail_out "$out" || return 1
		if [ "$smin" -lt "$thr" ]; then
			set_limits "$smin" "$thr"
		else
			set_limits $((thr / 2)) "$thr"
		fi
		recover "$free" throttle || { set_limits "$smin" "$smax"; return 1; }
		tmp=$out out=$free free=$tmp
		read -r -a s <<<"$(stats "$R_SPEEDS")"
		mm=$(check_mm)
		data=bad
		data_same && data=ok
		echo "@@RBT pers=$pers rep=$rep limit=$thr win_s=$R_WIN_S kbs=$R_WIN_KBS md_med=${s[1]} md_max=${s[2]} md_n=${s[3]} secs=$R_SECS check=$mm data=$data"
		[ "$mm" = 0 ] && [ "$data" = ok ] || st=1
	fi

	if [[ ,$scen, == *,write,* ]]; then
		fail_out "$out" || return 1
		local fg=(--name=fg --filename=/dev/md0 --rw=randwrite --bs=64k
			--direct=1 --ioengine=libaio --iodepth=4 --offset=0
			--size="${fmib}M" --verify=crc32c --randseed=$((1000 + rep))
			--eta=never --output-format=json)
		rm -f /tmp/*-fg-*-verify.state
		md0_written
		ws0=$WSEC
		fio "${fg[@]}" --do_verify=0 --verify_state_save=1 \
			--output=/tmp/fg.json 2>/tmp/fg.err &
		fgpid=$!
		# the spare comes once the writer is writing
		for ((s = 0; s < 200; s++)); do
			md0_written
			[ "$WSEC" = "$ws0" ] || break
			kill -0 "$fgpid" 2>/dev/null || break
			gl_nap 0.1
		done
		[ "$WSEC" != "$ws0" ] || { note "fio wrote nothing in 20 s"; kill -INT "$fgpid"; wait "$fgpid"; return 1; }
		recover "$free" write "$fgpid" || { kill -INT "$fgpid" 2>/dev/null; wait "$fgpid"; return 1; }
		tmp=$out out=$free free=$tmp
		# the writer's rate on the rebuilt array, no sync running: the
		# reference for fg_mibs
		after=-
		if [ "$R_FG" = stopped ]; then
			md0_written
			a0=$WSEC
			now_us
			t0=$NOW
			gl_nap "$after_s"
			md0_written
			now_us
			! kill -0 "$fgpid" 2>/dev/null ||
				after=$(awk -v s=$((WSEC - a0)) -v t=$((NOW - t0)) 'BEGIN { printf "%.1f", s / 2048 / (t / 1e6) }')
		fi
		kill -INT "$fgpid" 2>/dev/null || true
		rc=0
		wait "$fgpid" || rc=$?
		md0_written
		ws1=$WSEC
		read -r -a s <<<"$(stats "$R_SPEEDS")"
		read -r -a s3 <<<"$(stats "$R_SPEEDS3")"
		fgmib=$(awk -v s=$((R_W1 - R_W0)) 'BEGIN { printf "%.1f", s / 2048 }')
		fgmibs=$(awk -v s=$((R_W1 - R_W0)) -v t="$R_T1" 'BEGIN { printf "%.1f", (t > 0 ? s / 2048 / (t / 1e6) : 0) }')
		# fio's whole run, against md0's counters over it
		wmib_fio=$(sed -n '/^{/,$p' /tmp/fg.json | jq '.jobs[0].write.io_bytes / 1048576 | floor' 2>/dev/null) || wmib_fio='?'
		[ "$rc" = 0 ] || [ "$rc" = 128 ] || { note "foreground fio status $rc:"; sed 's/^/#   /' /tmp/fg.err; }
		[ "$wmib_fio" = $(((ws1 - ws0) / 2048)) ] ||
			note "fio wrote $wmib_fio MiB, md0 counted $(((ws1 - ws0) / 2048)) MiB"
		mm=$(check_mm)
		verify=bad vmib=-
		rc=0
		fio "${fg[@]}" --verify_only --verify_state_load=1 --verify_fatal=1 \
			--output=/tmp/fgv.json 2>/tmp/fgv.err || rc=$?
		sed -n '/^{/,$p' /tmp/fgv.json >/tmp/fgv.doc
		vmib=$(jq '.jobs[0].read.io_bytes / 1048576 | floor' /tmp/fgv.doc 2>/dev/null) || vmib='?'
		if [ "$rc" = 0 ] && [ "$(jq '.jobs[0].error' /tmp/fgv.doc 2>/dev/null)" = 0 ] &&
			! grep -q 'verify' /tmp/fgv.err && [ "$vmib" = "$wmib_fio" ]; then
			verify=ok
		else
			note "verify: fio status $rc, verified $vmib MiB of $wmib_fio MiB written:"
			head -20 /tmp/fgv.err | sed 's/^/#   /'
		fi
		witness=bad
		[ "$(region_md5 "$fmib" "$wmib")" = "$w0" ] && witness=ok
		echo "@@RBW pers=$pers rep=$rep secs=$R_SECS fg_mibs=$fgmibs fg_mib=$fgmib member_mib=$mib speed_min=$smin md_min=${s[0]} md_min3=${s3[0]} md_med=${s[1]} md_n=${s[3]} fg=$R_FG after_mibs=$after check=$mm verify=$verify witness=$witness verified_mib=$vmib member_rd_mib=$(((R_MR1 - R_MR0) / 2048)) member_wr_mib=$(((R_MW1 - R_MW0) / 2048))"
		[ "$mm" = 0 ] && [ "$verify" = ok ] && [ "$witness" = ok ] || st=1
	fi

	if [[ ,$scen, == *,load,* ]]; then
		load_run "$pers" "$rep" || st=1
	fi
	stop_array md0
	for s in "${devs[@]}"; do losetup -d "$s"; done
	rm -rf "$GL_MEMBER_DIR"
	return "$st"
}

pers=("$@")
for ((r = 1; r <= reps; r++)); do
	n=${#pers[@]}
	for ((k = 0; k < n; k++)); do
		p=${pers[$(((k + r - 1) % n))]}
		if [ "$p" = raid5x ] && ! raid5x_available; then
			echo "@@RB pers=raid5x rep=$r secs=- member_mib=- check=- data=no-module"
			failed=1
			continue
		fi
		one_run "$p" "$r" || {
			note "run $p rep $r failed"
			failed=1
			set_limits "$smin" "$smax"
			# one_run may have stopped it already (a failed check): not
			# a reason to end the whole benchmark under set -e
			stop_array md0 2>/dev/null || true
			losetup -D
			rm -rf "$GL_MEMBER_DIR"
		}
	done
done
exit "$failed"
