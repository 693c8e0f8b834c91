# shellcheck shell=bash
# torture-lib.sh: the guest side of the raid5x differential torture run
# (`make torture`, scripts/torture.sh; a fixed slice in tests/cases/94-torture.sh).
#
# Sourced after /lib/guest-lib.sh. A sequence is a seed: it picks a geometry
# (3-8 members, chunk 4K-512K, one of the 6 level-5 layouts, with or without
# an internal bitmap, members of 4-16 MiB, at most 32 MiB of data) and 6-14 steps. Twin arrays of
# that geometry, A (md0, raid456: the oracle) and B (md1, created as level 5
# by stock mdadm, then taken over: echo raid5x > md/level), each over n+1
# dm-linear members (dm names tA0.., tB0..; the last one starts as a free
# device) on loop files on the guest's tmpfs, go through the same steps.
# tortio (tortio.c) writes the same patterned blocks to both and reads both
# back against a model (block -> generation).
#
# After every step: both arrays agree on md/array_state, md/degraded, the
# member line of /proc/mdstat, each device's md/dev-*/state and slot and
# the bitmap's presence; check/repair agree on mismatch_cnt; md operations
# (mdadm --fail/--add/--grow, sysfs writes) succeed or fail on both; reads
# return what the model says or fail (EIO) on both; the kernel log shows no
# splat. Any difference is a divergence: the sequence fails, its step list
# is printed, then shrunk (steps dropped one at a time while the replay
# still diverges) and printed again.
#
# A step list (replayable, `tort_run_list "LIST"`): steps separated by ';',
# the first is the geometry: "geom N CHUNK_KB LAYOUT BITMAP MSZ_MB".
# Steps (KIND ARGS), the KIND names --skip-step takes:
#   write START NBLK IOBLKS MODE   tortio write (MODE: d direct, f O_DSYNC
#                                  (FUA), s fdatasync (flush), b buffered)
#   read START NBLK IOBLKS MODE    tortio read, verified
#   verify                         whole array, O_DIRECT, verified
#   fail I                         mdadm --fail device I (not when degraded)
#   remove                         mdadm --remove every faulty device
#   add I zero|keep                --add device I (superblock zeroed or kept:
#                                  kept + bitmap = a re-add), wait for recovery
#   replace I                      --replace device I --with a free device
#   recint I J idle|stop|write     fail+remove J if not degraded, add I with
#                                  the recovery slowed, then interrupt it (echo
#                                  idle, or stop + assemble) or write during
#                                  it; then let it finish
#   restart                        stop both, assemble (B on raid456, frozen,
#                                  taken over by raid5x, idle again)
#   check / repair                 sync_action, then mismatch_cnt compared
#   cache N                        stripe_cache_size
#   workers N                      raid5x md/worker_threads (raid456:
#                                  group_thread_cnt)
#   skipcopy 0|1                   md/skip_copy
#   merge 0|1                      md_raid5x's merge_member_io parameter
#   bitmap internal|none           mdadm --grow --bitmap
#   powercut START NBLK MSEC       buffered writes in the background, every
#                                  member of both arrays cut after MSEC ms
#                                  (dmsetup suspend --noflush, flakey
#                                  drop_writes), stop, restore, assemble,
#                                  resync; blocks written meanwhile may be
#                                  old or new; then rewritten (tortio settle)
#   badread I BLK NBLK             dm-error under device I for NBLK sectors at
#                                  member sector BLK*8 of the data area during
#                                  a full verify, then restored
#   writeerr I                     flakey error_writes under device I during a
#                                  write, then restored (the member fails or
#                                  logs a bad block)
#   suspend START NBLK             md/suspend_lo..hi over a range while
#                                  writes go elsewhere, then cleared
#   discard START NBLK             BLKDISCARD of a block range on both (the
#                                  modules' devices_handle_discard_safely is
#                                  Y): both advertise the same limits and
#                                  agree; the rows discarded read zeros
# Environment: TORT_SKIP (space-separated kinds not generated), TORT_QUIET,
# TORT_MAXSTEPS (at most that many generated steps before the final verify
# and check: the same seed's first steps, for short sequences),
# TORT_NO_R5X=1 (both twins stay raid456: the harness's own false-positive
# check; any divergence then is the harness's, or raid456's nondeterminism).

export DM_DISABLE_UDEV=1
TORT_DIR=/tmp/tort
TORT_KLOG=/tmp/tort.klog
TORT_SKIP=${TORT_SKIP:-}
TORT_WHY=""      # the last divergence
TORT_LAYOUTS=(left-asymmetric right-asymmetric left-symmetric right-symmetric parity-first parity-last)
TORT_SPLAT='WARNING:|BUG:|Oops|Call Trace|possible circular locking|INFO: possible|inconsistent lock state|suspicious RCU usage|KASAN|UBSAN|sleeping function called from invalid context|general protection fault|kernel BUG|blocked for more than|soft lockup|hard LOCKUP'

tlog() { [ "${TORT_QUIET:-0}" = 1 ] || echo "$@"; }

# tort_gen SEED: print the step list of sequence SEED (geometry first)
tort_gen() {
	local seed=$1 n chunk layout bm msz nsteps i k r rowb nblk ablk start io mode steps=()
	RANDOM=$seed
	n=$((3 + RANDOM % 6))
	chunk=$((4 << (RANDOM % 8)))
	layout=${TORT_LAYOUTS[RANDOM % 6]}
	bm=none
	[ $((RANDOM % 2)) = 0 ] || bm=internal
	msz=$((4 + 2 * (RANDOM % 7)))
	while [ $((msz * (n - 1))) -gt 32 ] && [ "$msz" -gt 4 ]; do
		msz=$((msz - 2))
	done
	steps+=("geom $n $chunk $layout $bm $msz")
	# data blocks of the array (approximate: mdadm's data offset aside)
	ablk=$(((msz - 2) * 256 * (n - 1)))
	rowb=$((chunk * (n - 1) / 4))
	nsteps=$((6 + RANDOM % 9))
	[ "${TORT_MAXSTEPS:-0}" = 0 ] || [ "$nsteps" -le "$TORT_MAXSTEPS" ] || nsteps=$TORT_MAXSTEPS
	for ((i = 0; i < nsteps; i++)); do
		r=$((RANDOM % 100))
		case $r in
		[0-9]|1[0-9]|2[0-9]|3[0-4]) k='write' ;;
		3[5-9]|4[0-2]) k='read' ;;
		4[3-8]) k=fail ;;
		49|5[0-1]) k=remove ;;
		5[2-6]) k=add ;;
		5[7-9]) k=replace ;;
		6[0-4]) k=recint ;;
		6[5-8]) k=restart ;;
		69|7[0-1]) k=check ;;
		7[2-3]) k=repair ;;
		7[4-5]) k=cache ;;
		7[6-7]) k=workers ;;
		78) k=skipcopy ;;
		79) k=merge ;;
		8[0-2]) k=bitmap ;;
		8[3-6]) k=powercut ;;
		8[7-8]) k=verify ;;
		89|9[0-1]) k=badread ;;
		9[2-4]) k=writeerr ;;
		*) k=suspend ;;
		esac
		[[ " $TORT_SKIP " != *" $k "* ]] || { i=$((i - 1)); continue; }
		case $k in
		write|read|powercut|suspend)
			case $((RANDOM % 4)) in
			0) nblk=$((1 + RANDOM % (rowb > 1 ? rowb - 1 : 1))) ;;   # sub-row
			1) nblk=$rowb ;;                                          # a row
			2) nblk=$((rowb * (2 + RANDOM % 3))) ;;                   # rows
			*) nblk=$((1 + RANDOM % 64)) ;;
			esac
			[ "$nblk" -le $((ablk / 2)) ] || nblk=$((ablk / 2))
			start=$((RANDOM * 32768 + RANDOM))
			start=$((start % (ablk - nblk)))
			# aligned to a row or a chunk half of the time
			case $((RANDOM % 4)) in
			0) start=$((start / rowb * rowb)) ;;
			1) start=$((start / (chunk / 4) * (chunk / 4))) ;;
			esac
			case $((RANDOM % 3)) in
			0) io=1 ;; 1) io=$nblk ;; *) io=$((1 + RANDOM % 64)) ;;
			esac
			# at most 32 I/Os a step (each is a syscall per array, slow
			# under TCG)
			[ $((nblk / io)) -le 32 ] || io=$(((nblk + 31) / 32))
			case $((RANDOM % 6)) in
			0) mode='d' ;; 1) mode='df' ;; 2) mode='ds' ;; 3) mode='b' ;; 4) mode='bs' ;; *) mode='bf' ;;
			esac
			case $k in
			write) steps+=("write $start $nblk $io $mode") ;;
			read) steps+=("read $start $nblk $io ${mode:0:1}") ;;
			# a power cut's writes: at most 1024 blocks (the cut lands
			# in them; 28 MiB of 16K buffered writes, then their
			# settle, took 150 s under TCG)
			powercut) steps+=("powercut $start $((nblk * 4 > 1024 ? 1024 : nblk * 4)) $((RANDOM % 300))") ;;
			suspend) steps+=("suspend $start $nblk") ;;
			esac ;;
		fail) steps+=("fail $((RANDOM % (n + 1)))") ;;
		remove|restart|check|repair|verify) steps+=("$k") ;;
		# (RANDOM drawn here, not in a $(...): a subshell's RANDOM is
		# seeded anew, the seed's choice was not reproducible)
		add)
			local how=keep
			[ $((RANDOM % 2)) != 0 ] || how=zero
			steps+=("add $((RANDOM % (n + 1))) $how") ;;
		replace) steps+=("replace $((RANDOM % (n + 1)))") ;;
		recint)
			local m=(idle stop write)
			steps+=("recint $((RANDOM % (n + 1))) $((RANDOM % (n + 1))) ${m[RANDOM % 3]}") ;;
		cache) local c=(17 32 64 128 256 512 1024); steps+=("cache ${c[RANDOM % 7]}") ;;
		workers) steps+=("workers $((RANDOM % 9))") ;;
		skipcopy|merge) steps+=("$k $((RANDOM % 2))") ;;
		bitmap)
			local bmk=none
			[ $((RANDOM % 2)) != 0 ] || bmk=internal
			steps+=("bitmap $bmk") ;;
		badread) steps+=("badread $((RANDOM % (n + 1))) $((RANDOM % (msz * 200))) $((8 << (RANDOM % 4)))") ;;
		writeerr) steps+=("writeerr $((RANDOM % (n + 1)))") ;;
		esac
	done
	steps+=("verify" "check")
	# first, half the array written (drawn last: a seed's other steps are
	# as they were): blocks never written read as zeros, and a member
	# rebuilt with holes, or not at all, reads back zeros there too
	nblk=$((ablk / 2))
	start=$(((RANDOM * 32768 + RANDOM) % (ablk - nblk) / rowb * rowb))
	steps=("${steps[0]}" "write $start $nblk 256 d" "${steps[@]:1}")
	# discards (drawn after everything else: the steps above are the
	# seed's as they were before discard existed): in half the sequences
	# one or two, each inserted after a random step
	if [ $((RANDOM % 2)) = 0 ] && [[ " $TORT_SKIP " != *" discard "* ]]; then
		local nd=$((1 + RANDOM % 2)) pos
		for ((i = 0; i < nd; i++)); do
			case $((RANDOM % 3)) in
			0) nblk=$((1 + RANDOM % (rowb * 2))) ;;
			1) nblk=$((rowb * (1 + RANDOM % 4))) ;;
			*) nblk=$((1 + RANDOM % (ablk / 4))) ;;
			esac
			# a small array: at most all of it but one block (a seed
			# whose draw reached ablk divided by 0 here, no plan at all)
			[ "$nblk" -lt "$ablk" ] || nblk=$((ablk - 1))
			start=$(((RANDOM * 32768 + RANDOM) % (ablk - nblk)))
			[ $((RANDOM % 2)) = 0 ] || start=$((start / rowb * rowb))
			pos=$((2 + RANDOM % (${#steps[@]} - 3)))
			steps=("${steps[@]:0:pos}" "discard $start $nblk" "${steps[@]:pos}")
		done
	fi
	local IFS=';'
	echo "${steps[*]}"
}

# ---- setup ------------------------------------------------------------------
# the twins' device lists (dm nodes), per array letter
TA=() TB=()
declare -A TLOOP=()
TSEED=${TSEED:-0}
TN=0 TNBLK=0 TSECT=0 TMSZ=0 TBM=none TCHUNK=0 TLAYOUT=""

# (no forks in what runs every step: a fork costs 15-30 ms under TCG)
declare -A TMD=([A]=md0 [B]=md1) TSYS=([A]=/sys/block/md0/md [B]=/sys/block/md1/md) TDEV=()
tdevs() { if [ "$1" = A ]; then echo "${TA[*]}"; else echo "${TB[*]}"; fi; }
# tdmname X I: dm name of device I of array X
tdmname() { echo "t$1$2"; }

# tort_teardown: both arrays stopped, the dm devices removed; the pool of
# loop devices stays for the next sequence (tort_release: detached too)
tort_teardown() {
	local md
	for md in md0 md1; do
		[ -e "/sys/block/$md/md" ] && mdadm --stop "/dev/$md" >/dev/null 2>&1
		[ -e "/sys/block/$md/md" ] && { sleep 0.5; mdadm --stop "/dev/$md" >/dev/null 2>&1; }
	done
	dmsetup remove_all >/dev/null 2>&1
	echo 200000 >/proc/sys/dev/raid/speed_limit_max
	[ ! -w /sys/module/md_raid5x/parameters/merge_member_io ] ||
		echo Y >/sys/module/md_raid5x/parameters/merge_member_io
	# both twins advertise discard (read when an array starts)
	local p
	for p in /sys/module/raid456/parameters/devices_handle_discard_safely \
		/sys/module/md_raid5x/parameters/devices_handle_discard_safely; do
		[ ! -w "$p" ] || echo Y >"$p"
	done
	return 0
}

tort_release() {
	tort_teardown
	losetup -D >/dev/null 2>&1
	rm -rf "$TORT_DIR"
	TLOOP=()
}

# the pool: per twin, TORT_POOL loop devices on files of TORT_POOL_MB
# (the largest geometry: 8 members and a free one, 16 MiB), attached once
# a boot; a sequence zeroes them (tortio zero) and puts dm-linear devices
# of its member size on the first N+1 of them. Per device and sequence
# that saves a truncate, a losetup and their teardown: a setup took 6-23 s
# of a 10-30 s sequence under TCG.
TORT_POOL=9 TORT_POOL_MB=16
tort_pool() {
	local x i f l files=()
	for x in A B; do
		for ((i = 0; i < TORT_POOL; i++)); do
			f=$TORT_DIR/$x$i
			files+=("$f")
			[ -n "${TLOOP[$x$i]:-}" ] && [ -e "$f" ] && continue
			mkdir -p "$TORT_DIR"
			truncate -s "${TORT_POOL_MB}M" "$f" || return 1
			l=$(losetup -f --show "$f") || return 1
			TLOOP[$x$i]=$l
		done
	done
	tortio zero "${files[@]}"
}

# tdm_nodes: TDEV[XI] = /dev/dm-N of every dm device tXI (builtins only)
tdm_nodes() {
	local d n
	for d in /sys/block/dm-*; do
		read -r n <"$d/dm/name" 2>/dev/null || continue
		[[ $n == t[AB][0-9] ]] && TDEV[${n#t}]=/dev/${d##*/}
	done
}

tort_setup() {
	local x i sz spec=""
	TN=$1 TCHUNK=$2 TLAYOUT=$3 TBM=$4 TMSZ=$5
	tort_teardown
	if [ "$TN" -ge "$TORT_POOL" ] || [ "$TMSZ" -gt "$TORT_POOL_MB" ]; then
		echo "# geometry beyond the pool: $TN members of $TMSZ MiB"
		return 1
	fi
	tort_pool || { echo "# the loop pool failed"; return 1; }
	TSECT=$((TMSZ * 2048))
	TA=() TB=() TDEV=()
	for x in A B; do
		for ((i = 0; i <= TN; i++)); do
			spec+="t$x$i,,,rw,0 $TSECT linear ${TLOOP[$x$i]} 0;"
		done
	done
	dmsetup create --concise "${spec%;}" || { echo "# dmsetup create failed"; return 1; }
	tdm_nodes
	for x in A B; do
		for ((i = 0; i <= TN; i++)); do
			[ -n "${TDEV[$x$i]:-}" ] || { echo "# no node for t$x$i"; return 1; }
			if [ $x = A ]; then TA+=("${TDEV[$x$i]}"); else TB+=("${TDEV[$x$i]}"); fi
		done
	done
	local bmo=(--bitmap=none)
	[ "$TBM" = none ] || bmo=(--bitmap=internal --bitmap-chunk=64K)
	for x in A B; do
		read -r -a d <<<"$(tdevs $x)"
		mdadm --create "/dev/${TMD[$x]}" --run --quiet --level=5 --metadata=1.2 \
			--assume-clean "${bmo[@]}" --chunk="$TCHUNK" --layout="$TLAYOUT" \
			--raid-devices="$TN" "${d[@]:0:TN}" 2>&1 || { echo "# mdadm --create $x failed"; return 1; }
	done
	[ "${TORT_NO_R5X:-0}" = 1 ] || to_raid5x md1 || return 1
	sz=$(blockdev --getsize64 /dev/md0)
	[ "$sz" = "$(blockdev --getsize64 /dev/md1)" ] || { echo "# twin sizes differ"; return 1; }
	TNBLK=$((sz / 4096))
	tortio init "$TORT_DIR/model" "$TNBLK" "$TSEED"
	dmesg -c >/dev/null
}

# ---- comparison --------------------------------------------------------------
diverge() { TORT_WHY="$*"; return 1; }

# tstate X: TSTATE = array X's state (the parts compared), builtins only
tstate() {
	local x=$1 sys=${TSYS[$1]} i b st sl as dg line l bm=none hit=0
	[ -e "$sys/array_state" ] || { TSTATE=absent; return 0; }
	read -r as <"$sys/array_state"
	# active and clean differ by md's safe-mode timer (200 ms after the
	# last write, a superblock write later): compared as one, and at the
	# end both must be clean (tclean_end)
	[ "$as" != active ] || as=clean
	read -r dg <"$sys/degraded"
	while read -r l; do
		if [ "$hit" = 1 ]; then
			[[ $l =~ \[[0-9]+/[0-9]+\]\ \[[U_]+\] ]] && line=${BASH_REMATCH[0]}
			break
		fi
		[[ $l == "${TMD[$x]} :"* ]] && hit=1
	done </proc/mdstat
	[ ! -r "$sys/bitmap/location" ] || read -r bm <"$sys/bitmap/location"
	[ "$bm" = none ] || bm=bitmap
	TSTATE="$as degraded=$dg $line $bm"
	for ((i = 0; i <= TN; i++)); do
		b=${TDEV[$x$i]##*/}
		if [ -e "$sys/dev-$b" ]; then
			st="" sl=""
			read -r st <"$sys/dev-$b/state"
			read -r sl <"$sys/dev-$b/slot"
			# a faulty member's write_error says only whether md saw a
			# data write fail before a superblock write did (md core's
			# super_written fails it without WriteErrorSeen): with every
			# write to it failing, a race in either twin (RESULTS.md, 10)
			[[ $st != faulty* ]] || st=${st/,write_error/}
			TSTATE+=" d$i=$sl:$st"
		else
			TSTATE+=" d$i=-"
		fi
	done
}

# tcompare: both arrays in the same state (array_state may lag: polled 3 s)
tcompare() {
	local a b i
	twait || return 1
	for ((i = 0; i < 30; i++)); do
		tstate A
		a=$TSTATE
		tstate B
		b=$TSTATE
		[ "$a" != "$b" ] || return 0
		gl_nap 0.1
	done
	diverge "state: raid456 [$a] raid5x [$b]"
}

# tklog: the kernel log since the last call is free of splats
tklog() {
	dmesg -c >"$TORT_DIR/klog.step" 2>/dev/null
	cat "$TORT_DIR/klog.step" >>"$TORT_KLOG"
	local k
	read -r -d '' k <"$TORT_DIR/klog.step"
	if [[ $k =~ $TORT_SPLAT ]]; then
		diverge "kernel log: $(grep -Em 3 "$TORT_SPLAT" "$TORT_DIR/klog.step" | tr '\n' '|')"
		return 1
	fi
}

# twait: both idle (syncs over); a sync still running after 240 s diverges
twait() {
	local x a r st i
	for x in A B; do
		for ((i = 0; i < 2400; i++)); do
			read -r a <"${TSYS[$x]}/sync_action" 2>/dev/null || continue 2
			[ "$a" != frozen ] || continue 2
			if [ "$a" = idle ]; then
				# idle before a needed resync has started (just
				# assembled after a power cut): not yet
				read -r r <"${TSYS[$x]}/resync_start" 2>/dev/null || r=none
				read -r st <"${TSYS[$x]}/array_state" 2>/dev/null || st=""
				case $r:$st in
				none:*|*:read-auto|*:readonly|*:inactive) continue 2 ;;
				esac
			fi
			gl_nap 0.1
		done
		diverge "${TMD[$x]}: sync_action still $a (resync_start $r) after 240 s"
		return 1
	done
}

# tboth NAME CMD...: run CMD with X=A then X=B (CMD sees $X); the statuses agree
tboth() {
	local name=$1 ra rb oa ob
	shift
	X=A; oa=$("$@" 2>&1); ra=$?
	X=B; ob=$("$@" 2>&1); rb=$?
	[ "$ra" = "$rb" ] && return 0
	# what each side printed, on one line, so that a divergence in CI
	# says why without the guest's console
	oa=${oa//$'\n'/|} ob=${ob//$'\n'/|}
	diverge "$name: raid456 status $ra${oa:+ ($oa)}, raid5x status $rb${ob:+ ($ob)}"
}

tio() {
	local rc out
	out=$(tortio "$1" "$TORT_DIR/model" /dev/md0 /dev/md1 "${@:2}" 2>&1)
	rc=$?
	tlog "#   ${out##*$'\n'}"
	if [[ $out == *"ORACLE "* ]]; then
		# raid456 lost a write raid5x kept (tortio.c; RESULTS.md, 5)
		TORT_ORACLE=$((TORT_ORACLE + 1))
		grep '^ORACLE ' <<<"$out" | head -n 3 | sed 's/^/#   /'
	fi
	if [ "$rc" = 5 ]; then
		# raid5x failed writes raid456 took: tafter decides after the step
		TORT_ACKED+=" $(grep '^ACKED ' <<<"$out" | cut -d' ' -f2 | tr '\n' ' ')"
		return 0
	fi
	if [ "$rc" = 6 ]; then
		# raid5x failed reads raid456 answered: tafter decides after
		# the step
		TORT_CACHED+=" $(grep '^CACHED ' <<<"$out" | cut -d' ' -f2 | tr '\n' ' ')"
		return 0
	fi
	if [ "$rc" = 4 ]; then
		# raid456 read wrong data where raid5x read the model's: raid456
		# is off the oracle's path (RESULTS.md, 8); the sequence ends
		# after this step with raid5x checked alone (tort_run_list)
		TORT_ORACLE=$((TORT_ORACLE + 1)) TORT_OFF=1
		grep '^ORACLE-OFF ' <<<"$out" | head -n 3 | sed 's/^/#   /'
		return 0
	fi
	[ "$rc" = 0 ] || diverge "tortio $*: ${out//$'\n'/|}"
}
tverify() { tio read 0 "$TNBLK" 256 d; }

# tin X I: device I is in array X (listed), and its state
tin() { [ -e "${TSYS[$1]}/dev-${TDEV[$1$2]##*/}" ]; }
# tdst X I: TST = device I's md state (empty if not in the array)
tdst() { TST=""; read -r TST <"${TSYS[$1]}/dev-${TDEV[$1$2]##*/}/state" 2>/dev/null; }
tinsync() { tdst "$1" "$2"; [[ $TST == *in_sync* ]]; }
# tclean: array A is not degraded
tclean() { local d; read -r d <"${TSYS[A]}/degraded"; [ "$d" = 0 ]; }
tdegn() { local d; read -r d <"${TSYS[A]}/degraded"; [ "$d" = "$1" ]; }
# tfree X: index of a device not in array X (or none)
tfree() {
	local i
	for ((i = 0; i <= TN; i++)); do
		tin "$1" "$i" || { echo "$i"; return 0; }
	done
	return 1
}

# ---- step bodies (X is the array; called through tboth) ------------------------
s_fail() { mdadm "/dev/${TMD[$X]}" --fail "${TDEV[$X$1]}"; }
s_remove() {
	local i st rc=0
	for ((i = 0; i <= TN; i++)); do
		tdst "$X" "$i"
		[[ $TST == *faulty* ]] || continue
		mdadm "/dev/${TMD[$X]}" --remove "${TDEV[$X$i]}" || rc=1
	done
	return $rc
}
s_add() {
	local d
	d=${TDEV[$X$1]}
	[ "$2" = keep ] || mdadm --zero-superblock "$d" || return 1
	mdadm "/dev/${TMD[$X]}" --add "$d"
}
s_assemble() {
	local md d=()
	md=/dev/${TMD[$X]}
	local all
	read -r -a all <<<"$(tdevs "$X")"
	# only the devices with a superblock (mdadm refuses the others)
	# (no process substitution: the guest has no /dev/fd)
	read -r -a d <<<"$(tortio sb "${all[@]}")"
	mdadm --assemble --run --quiet "$md" "${d[@]}" || return 1
	md_freeze "${TMD[$X]}" || return 1
	if [ "$X" = B ] && [ "${TORT_NO_R5X:-0}" != 1 ]; then
		to_raid5x md1 || return 1
	fi
	echo idle >"${TSYS[$X]}/sync_action"
}
s_sysfs_w() { if [ "$X" = A ]; then s_sysfs group_thread_cnt "$1"; else s_sysfs worker_threads "$1"; fi; }
s_replace() {
	local w=()
	[ $# -lt 2 ] || w=(--with "${TDEV[$X$2]}")
	mdadm "/dev/${TMD[$X]}" --replace "${TDEV[$X$1]}" "${w[@]}"
}
s_stop() { mdadm --stop "/dev/${TMD[$X]}"; }
s_sysfs() { echo "$2" >"${TSYS[$X]}/$1"; }
s_grow_bitmap() { mdadm --grow "/dev/${TMD[$X]}" --bitmap="$1"; }

# tsync KIND: check or repair on both, mismatch_cnt agrees
tsync() {
	local ma mb
	twait || return 1
	tboth "$1" s_sysfs sync_action "$1" || return 1
	gl_nap 0.3
	twait || return 1
	read -r ma <"${TSYS[A]}/mismatch_cnt"
	read -r mb <"${TSYS[B]}/mismatch_cnt"
	tlog "#   $1: mismatch_cnt raid456 $ma raid5x $mb"
	[ "$ma" = "$mb" ] && return 0
	tsync_lost_werr "$ma" "$mb" && return 0
	diverge "$1: mismatch_cnt raid456 $ma, raid5x $mb"
}

# tlisted X LO HI: a member of array X lists data sectors LO..HI bad
tlisted() {
	local x=$1 i d off s n
	for ((i = 0; i <= TN; i++)); do
		tin "$x" "$i" || continue
		d=${TSYS[$x]}/dev-${TDEV[$x$i]##*/}
		read -r off <"$d/offset" || continue
		while read -r s n; do
			[ -n "$s" ] || continue
			[ "$s" -le $((off + $2)) ] && [ $((s + n)) -ge $((off + $3)) ] && return 0
		done <"$d/bad_blocks"
	done
	return 1
}

# tsync_lost_werr MA MB: raid456's check found MA mismatched sectors and
# raid5x's none, every one (md's "mismatch sector in range" lines, all
# there) in a stripe raid5x lists bad on a member and raid456 on none:
# raid456 dropped the write error of a stripe of a batch (raid5.c's
# break_stripe_batch_list copies the head's flags over R5_WriteError), so
# its block there is stale and unlisted (RESULTS.md, 14). raid456 is off
# the oracle's path from here (a degraded read there gets stale data).
tsync_lost_werr() {
	local n=0 lo hi ranges
	[ "$2" = 0 ] && [ "$1" -gt 0 ] || return 1
	ranges=$(dmesg | sed -n "s/.*${TMD[A]}: mismatch sector in range \([0-9]*\)-\([0-9]*\).*/\1 \2/p")
	[ -n "$ranges" ] || return 1
	while read -r lo hi; do
		tlisted B "$lo" "$hi" && ! tlisted A "$lo" "$hi" || return 1
		n=$((n + hi - lo))
	done <<<"$ranges"
	[ "$n" = "$1" ] || return 1
	tlog "#   ORACLE-OFF check: raid456's mismatches at $(tr ' \n' '- ' <<<"$ranges")are stripes raid5x lists bad and raid456 does not (raid456 lost a write error: RESULTS.md, 14)"
	TORT_ORACLE=$((TORT_ORACLE + 1)) TORT_OFF=1
}

# tslow on|off: md's sync speed limit (both arrays)
tslow() {
	local v=200000
	[ "$1" = off ] || v=$((TMSZ * 1024 / 4))
	echo "$v" >/proc/sys/dev/raid/speed_limit_max
	echo "$((v < 1000 ? v : 1000))" >/proc/sys/dev/raid/speed_limit_min
}

# tdm X I TABLE: swap device I's dm table (live, under md)
tdm() { echo "$3" | dmsetup load "$(tdmname "$1" "$2")" && dmsetup resume "$(tdmname "$1" "$2")"; }
tloop() { echo "${TLOOP[$1$2]}"; }
tlinear() { echo "0 $TSECT linear $(tloop "$1" "$2") 0"; }

# tstep STEP...: run one step on both arrays; 0 agreed, 2 skipped (not
# applicable), 1 divergence (TORT_WHY)
tstep() {
	local k=$1 i j
	shift
	case $k in
	write) tio write "$@" ;;
	read) tio read "$@" ;;
	verify) twait && tverify ;;
	fail)
		tclean && tinsync A "$1" || return 2
		tboth fail s_fail "$1" || return 1
		# raid456 counts a member with a listed bad block as failed for
		# its stripe even while its cached block is up to date, raid5x
		# serves that block (RESULTS.md, divergence 4): both read anew
		tcache_drop ;;
	remove)
		local f any=0
		for f in "${TSYS[A]}"/dev-*/state; do
			read -r TST <"$f" && [[ $TST == *faulty* ]] && any=1
		done
		[ "$any" = 1 ] || return 2
		tboth remove s_remove ;;
	add)
		tin A "$1" && return 2
		tboth add s_add "$1" "$2" || return 1
		gl_nap 0.3
		twait && tverify ;;
	replace)
		tclean && tinsync A "$1" || return 2
		if j=$(tfree A); then
			tboth "replace add" s_add "$j" zero || return 1
			tboth replace s_replace "$1" "$j" || return 1
		else
			tboth replace s_replace "$1" || return 1
		fi
		gl_nap 0.3
		twait || return 1
		tcompare || return 1
		tboth "replace remove" s_remove || return 1
		tverify ;;
	recint)
		i=$1 j=$2
		# not applicable (checked before anything is failed): device
		# I is a member and not the one failed here (I = J: a re-add)
		{ [ "$i" = "$j" ] && tclean; } || ! tin A "$i" || return 2
		if tclean; then
			tinsync A "$j" || return 2
			tboth "recint fail" s_fail "$j" || return 1
			tcache_drop
			tboth "recint remove" s_remove || return 1
		fi
		tdegn 1 || return 2
		tin A "$i" && return 2
		tslow on
		tboth "recint add" s_add "$i" keep || { tslow off; return 1; }
		gl_nap 0.5
		case $3 in
		idle) tboth "recint idle" s_sysfs sync_action idle ;;
		stop) tboth "recint stop" s_stop && tboth "recint assemble" s_assemble ;;
		write) tio write $((TNBLK / 3)) $((TNBLK / 8)) 16 d ;;
		esac || { tslow off; return 1; }
		gl_nap 0.3
		tslow off
		twait && tverify ;;
	restart) trestart "" && tverify ;;
	check|repair) tsync "$k" ;;
	cache) tboth cache s_sysfs stripe_cache_size "$1" ;;
	workers)
		tboth workers s_sysfs_w "$1" ;;
	skipcopy) tboth skip_copy s_sysfs skip_copy "$1" ;;
	merge)
		[ "${TORT_NO_R5X:-0}" = 0 ] || return 2
		[ -w /sys/module/md_raid5x/parameters/merge_member_io ] || { diverge "no md_raid5x parameter merge_member_io"; return 1; }
		echo "$1" >/sys/module/md_raid5x/parameters/merge_member_io ;;
	bitmap)
		twait || return 1
		tboth "bitmap $1" s_grow_bitmap "$1" ;;
	powercut) t_powercut "$@" ;;
	badread) t_badread "$@" ;;
	writeerr) t_writeerr "$@" ;;
	suspend) t_suspend "$@" ;;
	discard) t_discard "$@" ;;
	*) diverge "unknown step $k"; return 1 ;;
	esac
}

# discard START NBLK: the twins advertise discard with the same granularity
# (discard_max_bytes differs: 7.x's raid456 advertises UINT_MAX sectors,
# raid5x its members' limit), and a discard does the same on both (tortio
# discard checks the data after)
t_discard() {
	local a b
	read -r a </sys/block/md0/queue/discard_granularity
	read -r b </sys/block/md1/queue/discard_granularity
	[ "$a" = "$b" ] || { diverge "discard_granularity: raid456 $a, raid5x $b"; return 1; }
	read -r b </sys/block/md1/queue/discard_max_bytes
	[ "$b" != 0 ] || { diverge "raid5x advertises no discard"; return 1; }
	tio discard "$1" "$2" $((TCHUNK * (TN - 1) / 4)) $((a / 4096))
}

# powercut START NBLK MSEC
t_powercut() {
	local x i pid st=0 t0=$EPOCHREALTIME tm=""
	tclean || return 2
	twait || return 1
	sync
	tortio write "$TORT_DIR/model" /dev/md0 /dev/md1 "$1" "$2" 4 bp >/dev/null 2>&1 &
	pid=$!
	gl_nap "$(awk -v m="$3" 'BEGIN { printf "%.3f", m / 1000 }')"
	for x in A B; do
		for ((i = 0; i <= TN; i++)); do
			dmsetup suspend --noflush "t$x$i"
		done
		for ((i = 0; i <= TN; i++)); do
			echo "0 $TSECT flakey $(tloop $x $i) 0 0 3600 1 drop_writes" |
				dmsetup load "t$x$i"
			dmsetup resume "t$x$i"
		done
	done
	tm+=" cut $(gl_since "$t0")"
	wait "$pid" || true
	tm+=" writer $(gl_since "$t0")"
	tboth "powercut stop" s_stop || st=1
	tm+=" stopped $(gl_since "$t0")"
	for x in A B; do
		for ((i = 0; i <= TN; i++)); do
			tdm $x "$i" "$(tlinear $x "$i")"
		done
	done
	[ "$st" = 0 ] || return 1
	tboth "powercut assemble" s_assemble || return 1
	tm+=" assembled $(gl_since "$t0")"
	gl_nap 0.3
	twait || return 1
	tm+=" resynced $(gl_since "$t0")"
	tcompare || return 1
	tverify || return 1
	tio settle || return 1
	tlog "#   powercut (s since its start):$tm settled $(gl_since "$t0")"
}

# badread I BLK NSECT: device I returns EIO for NSECT sectors at data sector
# BLK*8 during a whole-array read, then is restored. Both arrays' md
# rewrite the block (fails: dm-error) and fail the member or log a bad block.
t_badread() {
	local i=$1 off x d
	tclean && tin A "$i" || return 2
	twait || return 1
	for x in A B; do
		d=${TDEV[$x$i]}
		off=$(cat "${TSYS[$x]}/dev-${d##*/}/offset")
		local dev s0=$((off + $2 * 8)) n=$3
		dev=$(tloop $x "$i")
		[ $((s0 + n)) -lt "$TSECT" ] || return 2
		tdm $x "$i" "$(printf '0 %d linear %s 0\n%d %d error\n%d %d linear %s %d' \
			"$s0" "$dev" "$s0" "$n" $((s0 + n)) $((TSECT - s0 - n)) "$dev" $((s0 + n)))" || return 1
	done
	echo 3 >/proc/sys/vm/drop_caches
	tcache_drop
	tverify
	local rc=$?
	[ "$rc" != 0 ] || ! tbadread_cached "$i" "$2" "$3" || rc=0
	tfault_end "$i" $rc
}

# tbadread_cached I BLK NSECT: after a badread's verify, raid456 recorded
# fewer of the failing sectors on device I than raid5x (nothing, or a part):
# every block raid456 lists raid5x lists too, and raid5x's are all inside
# the failing range (bad blocks, write_error after the failed write-back).
# raid456's retry of a failed direct read answers from its stripe cache when
# it holds the block; raid5x reads the member again (RESULTS.md, 9, 11, 17).
# tcache_drop leaves 17 stripes in each cache, and which stay is not under
# the harness's control. Then raid456 is off the oracle's path (its member
# keeps sectors it does not know are unreadable, and serves them once the
# fault is gone): TORT_OFF, raid5x alone.
tbadread_cached() {
	local i=$1 s n u x oa ob na=0 nb=0 a=() b=()
	local -A cov=()
	tdst A "$i"
	[[ $TST == in_sync* ]] || return 1
	tdst B "$i"
	[[ $TST == *write_error* ]] || return 1
	oa=$(cat "${TSYS[A]}/dev-${TDEV[A$i]##*/}/offset") || return 1
	ob=$(cat "${TSYS[B]}/dev-${TDEV[B$i]##*/}/offset") || return 1
	mapfile -t a <"${TSYS[A]}/dev-${TDEV[A$i]##*/}/bad_blocks"
	mapfile -t b <"${TSYS[B]}/dev-${TDEV[B$i]##*/}/bad_blocks"
	[ "${#b[@]}" -gt 0 ] || return 1
	for x in "${b[@]}"; do
		read -r s n <<<"$x"
		[ "$s" -ge $((ob + $2 * 8)) ] && [ $((s + n)) -le $((ob + $2 * 8 + $3)) ] || return 1
		for ((u = s - ob; u < s - ob + n; u++)); do cov[$u]=1; done
		nb=$((nb + n))
	done
	for x in "${a[@]}"; do
		read -r s n <<<"$x"
		[ -n "$n" ] || continue
		for ((u = s - oa; u < s - oa + n; u++)); do
			[ -n "${cov[$u]:-}" ] || return 1
		done
		na=$((na + n))
	done
	[ "$na" -lt "$nb" ] || return 1
	tlog "#   ORACLE-OFF badread: raid456 listed ${na} sectors on device $i (${a[*]:-none}), raid5x ${nb} (${b[*]}) (raid456's cache answered; RESULTS.md, 11, 17)"
	TORT_ORACLE=$((TORT_ORACLE + 1)) TORT_OFF=1
}

# tgarble I: the sectors both twins list as bad on device I get random
# data on disk (below dm). dm-error leaves the data under a failed read
# right, and a failed write leaves the old data: a twin reading a listed
# block anyway would read right data by luck, unseen. Garbled, such a read
# shows as a wrong block.
tgarble() {
	local x bb s n
	declare -A seen=()
	for x in A B; do
		bb=${TSYS[$x]}/dev-${TDEV[$x$1]##*/}/bad_blocks
		[ -r "$bb" ] || return 0
		while read -r s n; do
			[ -n "$n" ] || continue
			if [ "$x" = A ]; then
				seen[$s:$n]=1
			elif [ -n "${seen[$s:$n]:-}" ]; then
				seen[$s:$n]=2
			fi
		done <"$bb"
	done
	for s in "${!seen[@]}"; do
		[ "${seen[$s]}" = 2 ] || continue
		for x in A B; do
			dd if=/dev/urandom of="$(tloop $x "$1")" bs=512 seek="${s%:*}" \
				count="${s#*:}" oflag=direct conv=notrunc status=none
		done
		tlog "#   garbled sectors ${s%:*}+${s#*:} of device $1 (listed bad on both)"
	done
}

# tcache_drop: empty both twins' stripe caches (stripe_cache_size down to
# 17 and back). Used around the fault steps: raid5x's cache can hold a row
# whole where raid456 reads around its cache (chunk-aligned reads) or
# counts a member with a listed bad block as failed even while its cached
# block is up to date; a read served from the cache then misses a fault
# the other twin sees (RESULTS.md, divergences 2 to 4).
tcache_drop() {
	local x c
	for x in A B; do
		read -r c <"${TSYS[$x]}/stripe_cache_size" || continue
		[ "$c" -le 17 ] || { echo 17 >"${TSYS[$x]}/stripe_cache_size" &&
			echo "$c" >"${TSYS[$x]}/stripe_cache_size"; }
	done
}

# tfault_end I RC: the fault step on device I ended with status RC: both
# twins' device I linear again; then RC, the twins' state and a verify
tfault_end() {
	local x
	for x in A B; do
		tdm $x "$1" "$(tlinear $x "$1")"
	done
	tgarble "$1"
	tcache_drop
	[ "$2" = 0 ] || return 1
	[ "$TORT_OFF" = 1 ] && return 0	# raid5x is checked alone
	tcompare || return 1
	tverify
}

# writeerr I: writes fail on device I (flakey error_writes) during one
# write. Whether the member fails depends on md core: a superblock write
# failing there fails it (super_written), and whether a twin writes its
# superblock inside the window is timing (its clean/active transition,
# 200 ms of safe mode): RESULTS.md, 13. So the window stays open until
# both twins are clean again (up to 3 s): each writes its superblock in
# it. Failing the data area only was tried and undone (13).
t_writeerr() {
	local i=$1 x dev rc
	tclean && tin A "$i" || return 2
	twait || return 1
	for x in A B; do
		dev=$(tloop $x "$i")
		tdm $x "$i" "0 $TSECT flakey $dev 0 0 3600 1 error_writes" || return 1
	done
	tio write $((TNBLK / 4)) $((TCHUNK * 3 / 4)) 8 ds
	rc=$?
	tnot_active 30
	tfault_end "$i" "$rc" || return 1
	twerr_lost "$i"
}

# trestart PREFIX: both twins idle, stopped and assembled again (their
# caches empty), idle again; PREFIX names the tboth checks in a divergence
trestart() {
	twait && tboth "$1stop" s_stop && tboth "$1assemble" s_assemble || return 1
	gl_nap 0.3
	twait
}

# tafter KIND: blocks tortio could not decide during a step, decided after
# it. Both twins restart (empty caches) and raid456 reads each block once
# (O_DIRECT); then the blocks are read back on both with MODE k.
#  acked: writes raid456 acknowledged and raid5x failed (tortio's ACKED
#   blocks, TORT_ACKED). raid456 writes a full row as a batch of stripes;
#   a member stripe whose block cannot be stored (listed bad on a member
#   that failed a write, with another member missing) is written as if it
#   were: raid456 returns the data while the stripe is cached and EIO after
#   (RESULTS.md, 15). raid456 must fail one of the reads at least, else
#   raid5x refused a write raid456 kept: a divergence.
#  cached: reads raid456 answered right and raid5x failed (tortio's CACHED
#   blocks, TORT_CACHED). raid456 answers from a cached stripe whose blocks
#   its members can no longer return (a member failed, another lists the
#   block bad), raid5x reads the members (RESULTS.md, 16). raid456 must
#   fail every one of the reads, else raid5x failed a read raid456 serves
#   from its members: a divergence.
tafter() {
	local kind=$1 blocks b lo hi ok=() eio=()
	if [ "$kind" = acked ]; then
		blocks=$TORT_ACKED TORT_ACKED=""
	else
		blocks=$TORT_CACHED TORT_CACHED=""
	fi
	# shellcheck disable=SC2086 # a list of block numbers
	set -- $blocks
	trestart "$kind " || return 1
	lo=$1 hi=$1
	for b; do
		[ "$b" -ge "$lo" ] || lo=$b
		[ "$b" -le "$hi" ] || hi=$b
		if dd if=/dev/"${TMD[A]}" of=/dev/null bs=4096 skip="$b" count=1 \
			iflag=direct status=none 2>/dev/null; then
			ok+=("$b")
		else
			eio+=("$b")
		fi
	done
	case $kind in
	acked)
		[ "${#eio[@]}" != 0 ] || {
			diverge "raid5x failed writes raid456 stored: blocks $lo..$hi ($#) all read back on raid456 after a restart"
			return 1
		}
		tlog "#   ORACLE raid456 acknowledged writes it lost: ${#eio[@]} of $# blocks EIO after a restart (${eio[*]:0:6}; RESULTS.md, 15)" ;;
	cached)
		[ "${#ok[@]}" = 0 ] || {
			diverge "raid5x failed reads raid456 serves from its members after a restart: ${#ok[@]} of $# blocks (${ok[*]:0:6})"
			return 1
		}
		tlog "#   ORACLE raid456 answered $# reads from its cache that its members cannot (EIO after a restart; RESULTS.md, 16)" ;;
	esac
	TORT_ORACLE=$((TORT_ORACLE + 1))
	tio read "$lo" $((hi - lo + 1)) 256 dk
}

# tbbset X I: the 8-sector blocks device I of array X lists bad, one a line
tbbset() {
	local s n
	while read -r s n; do
		[ -n "$s" ] || continue
		for ((; n > 0; n -= 8, s += 8)); do echo "$s"; done
	done <"${TSYS[$1]}/dev-${TDEV[$1$2]##*/}/bad_blocks"
}

# twerr_lost I: after a write with device I failing writes, raid5x lists
# blocks bad there that raid456 does not, and raid456's list is part of
# raid5x's: raid456 lost the write errors of stripes of a batch (a
# full-stripe write; raid5.c's break_stripe_batch_list copies the head's
# flags over R5_WriteError), its blocks there are stale and unlisted, and
# a degraded read of them returns wrong data (RESULTS.md, 14). raid456 is
# off the oracle's path: the sequence goes on with raid5x alone.
twerr_lost() {
	local x more=0
	local -A inb=()
	tinsync A "$1" && tinsync B "$1" || return 0
	for x in $(tbbset B "$1"); do inb[$x]=1; done
	for x in $(tbbset A "$1"); do
		[ -n "${inb[$x]:-}" ] || return 0	# raid456 lists one raid5x does not
		unset "inb[$x]"
	done
	more=${#inb[@]}
	[ "$more" -gt 0 ] || return 0
	tlog "#   ORACLE-OFF writeerr: raid5x lists $more more blocks bad on device $1 than raid456 (raid456 lost a write error: RESULTS.md, 14)"
	TORT_ORACLE=$((TORT_ORACLE + 1)) TORT_OFF=1
}

# suspend START NBLK: md/suspend_lo..hi over the range; a write elsewhere
# completes; cleared; then the range is written
t_suspend() {
	local lo=$(($1 * 8)) hi=$((($1 + $2) * 8)) s=$(($1 + $2)) n
	tboth "suspend_hi" s_sysfs suspend_hi "$hi" || return 1
	tboth "suspend_lo" s_sysfs suspend_lo "$lo" || return 1
	# somewhere outside: after the range, else before it
	n=$((TNBLK - s > 8 ? 8 : TNBLK - s))
	if [ "$n" -gt 0 ]; then
		timeout 60 tortio write "$TORT_DIR/model" /dev/md0 /dev/md1 "$s" "$n" 4 d >/dev/null ||
			{ tboth "suspend clear" s_sysfs suspend_lo 0; diverge "write outside suspend_lo..hi did not complete"; return 1; }
	fi
	tboth "suspend clear hi" s_sysfs suspend_hi 0 || return 1
	tboth "suspend clear lo" s_sysfs suspend_lo 0 || return 1
	tio write "$1" "$2" 4 d
}

# tdiag: what both arrays hold on a divergence (KTAP diagnostics): each
# device's state and bad-block list, md's sync position
tdiag() {
	local x i b f v
	for x in A B; do
		for ((i = 0; i <= TN; i++)); do
			b=${TDEV[$x$i]##*/}
			[ -e "${TSYS[$x]}/dev-$b" ] || continue
			v=""
			for f in state errors bad_blocks unacknowledged_bad_blocks recovery_start; do
				v+=" $f=$(tr '\n' ',' <"${TSYS[$x]}/dev-$b/$f" 2>/dev/null)"
			done
			echo "#  diag ${TMD[$x]} d$i ($b):$v"
		done
		v=""
		for f in array_state degraded sync_action sync_completed resync_start mismatch_cnt stripe_cache_active; do
			v+=" $f=$(cat "${TSYS[$x]}/$f" 2>/dev/null)"
		done
		v+=" inflight=$(tr -s ' ' , <"/sys/block/${TMD[$x]}/inflight" 2>/dev/null)"
		echo "#  diag ${TMD[$x]}:$v"
	done
}

# tort_run_list LIST: run a step list on fresh twins; 0 pass, 1 divergence
# (TORT_FAILSTEP: its index, TORT_WHY), 2 setup failure
tort_run_list() {
	local list=$1 steps g idx=0 st t0
	IFS=';' read -r -a steps <<<"$list"
	read -r -a g <<<"${steps[0]}"
	TORT_FAILSTEP=-1 TORT_WHY="" TORT_NSTEPS=0 TORT_ORACLE=0 TORT_OFF=0 TORT_LATE=0 TORT_ACKED="" TORT_CACHED=""
	tort_setup "${g[@]:1}" >"$TORT_DIR.setup" 2>&1 ||
		{ TORT_WHY="setup failed: $(tr '\n' '|' <"$TORT_DIR.setup")"; tort_teardown; return 2; }
	: >"$TORT_KLOG"
	for ((idx = 1; idx < ${#steps[@]}; idx++)); do
		t0=$EPOCHREALTIME
		if [ ! -e "${TSYS[A]}/array_state" ] && [ ! -e "${TSYS[B]}/array_state" ]; then
			tlog "#  step $idx on: neither array runs (both failed alike): the rest is skipped"
			break
		fi
		# shellcheck disable=SC2086 # a step is words
		tstep ${steps[idx]}
		st=$?
		if [ "$st" = 1 ]; then
			tklog
			tdiverged "$idx" "step $idx: ${steps[idx]}: DIVERGED"
			return
		fi
		TORT_NSTEPS=$((TORT_NSTEPS + 1))
		if [ -n "${TORT_ACKED// }" ] && [ "$TORT_OFF" = 0 ] && ! tafter acked; then
			tklog
			tdiverged "$idx" "step $idx: ${steps[idx]}: DIVERGED (acknowledged writes)"
			return
		fi
		if [ -n "${TORT_CACHED// }" ] && [ "$TORT_OFF" = 0 ] && ! tafter cached; then
			tklog
			tdiverged "$idx" "step $idx: ${steps[idx]}: DIVERGED (reads raid456 answered)"
			return
		fi
		if [ "$TORT_OFF" = 1 ]; then
			tlog "#  step $idx: ${steps[idx]} $(gl_since "$t0") s; raid456 is off the oracle's path: the rest is skipped, raid5x checked alone"
			tcheck_alone || { tdiverged "$idx" "raid5x alone: DIVERGED"; return; }
			tort_teardown
			return 0
		fi
		if tcompare && tklog; then
			tlog "#  step $idx: ${steps[idx]}$([ "$st" = 2 ] && echo " (skipped: not applicable)") $(gl_since "$t0") s"
		else
			tdiverged "$idx" "step $idx: ${steps[idx]}: DIVERGED after it"
			return
		fi
	done
	if ! tclean_end; then
		tdiverged "$idx" "end: DIVERGED"
		return
	fi
	tort_teardown
	return 0
}

# tcheck_alone: raid5x after raid456 left the oracle's path (the step's
# reads already matched the model on raid5x): its kernel log clean, and a
# check finds its parity consistent (mismatch_cnt 0)
tcheck_alone() {
	local m
	tklog || return 1
	twait || return 1
	echo check >"${TSYS[B]}/sync_action" || { TORT_WHY="raid5x refused a check"; return 1; }
	gl_nap 0.3
	twait || return 1
	read -r m <"${TSYS[B]}/mismatch_cnt"
	tlog "#   check on raid5x alone: mismatch_cnt $m"
	[ "$m" = 0 ] || { TORT_WHY="raid5x alone: check found mismatch_cnt $m"; return 1; }
	tklog
}

# tdiverged IDX WHAT: the run diverged at step IDX: say WHAT and why, the
# twins' diagnostics, tear down; status 1
tdiverged() {
	TORT_FAILSTEP=$1
	tlog "#  $2: $TORT_WHY"
	[ "${TORT_QUIET:-0}" = 1 ] || tdiag
	tort_teardown
	return 1
}

# tnot_active TICKS: wait up to TICKS x 0.1 s until neither twin's
# array_state is active; TSA and TSB hold the states read last
tnot_active() {
	local n
	for ((n = 0; n < $1; n++)); do
		read -r TSA <"${TSYS[A]}/array_state" 2>/dev/null || TSA=absent
		read -r TSB <"${TSYS[B]}/array_state" 2>/dev/null || TSB=absent
		[ "$TSA" = active ] || [ "$TSB" = active ] || return 0
		gl_nap 0.1
	done
}

# tclean_end: an array left alone goes clean (md's safe mode): within 20 s,
# both twins that were active are clean, or both stay as they are. raid456
# staying active where raid5x went clean is raid456's (after a failed
# write-back it stayed active for good: RESULTS.md, divergence 6): noted,
# counted with raid456-lost, not a divergence.
tclean_end() {
	tnot_active 200
	local sa=$TSA sb=$TSB
	local k=0
	read -r k <"${TSYS[B]}/raid5x_stats/safemode_kicks" 2>/dev/null || k=0
	[ "$k" = 0 ] || tlog "#   NOTE raid5x's safemode_kicks $k (md's lost safe mode found: RESULTS.md, divergence 7)"
	if [ "$sa" = active ] && [ "$sb" = clean ]; then
		tlog "#   ORACLE array_state 20 s after the last step: raid456 active, raid5x clean"
		TORT_ORACLE=$((TORT_ORACLE + 1))
		return 0
	fi
	[ "$sa" != "$sb" ] || return 0
	# raid5x active, raid456 clean (RESULTS.md, divergence 7): which of
	# md's two reasons? A write md still counts (writes_pending: md
	# refuses "clean" with EBUSY) is a divergence; with none, md takes
	# "clean" (its safe-mode timer was not armed again): noted and counted
	# (late-clean), the array is clean as raid456's
	local x r late=0
	for x in A B; do
		read -r r <"${TSYS[$x]}/array_state" 2>/dev/null || continue
		[ "$r" = active ] || continue
		if echo clean >"${TSYS[$x]}/array_state" 2>/dev/null; then
			tlog "#   NOTE ${TMD[$x]}: array_state \"clean\" taken: no write pending, md's safe-mode timer not armed"
			[ "$x" = A ] || late=1
		else
			tlog "#   ${TMD[$x]}: array_state \"clean\" refused: md counts a write pending (inflight $(cat "/sys/block/${TMD[$x]}/inflight"))"
		fi
		local p
		for p in /proc/[0-9]*; do
			[[ $(cat "$p/comm" 2>/dev/null) == "${TMD[$x]}_raid"* ]] || continue
			tlog "#   ${TMD[$x]}'s thread: $(tr '\n' ' ' <"$p/stat" | cut -d' ' -f3) wchan $(cat "$p/wchan" 2>/dev/null) stack $(tr '\n' '|' <"$p/stack" 2>/dev/null)"
		done
	done
	if [ "$late" = 1 ] && [ "$sa" = clean ]; then
		read -r sb <"${TSYS[B]}/array_state" 2>/dev/null || sb=absent
		if [ "$sb" = clean ]; then
			TORT_LATE=$((TORT_LATE + 1))
			return 0
		fi
	fi
	diverge "array_state 20 s after the last step: raid456 $sa, raid5x $sb"
}

tjoin() { local IFS=';'; echo "$*"; }

# tkind WHY: the kind of a divergence (its text up to the first colon and
# the word after it: "state", "tortio read", "check", "kernel log", ...)
tkind() { local k=${1%%:*}; echo "${k%% [0-9]*}"; }

# tort_shrink LIST FAILIDX SECS: drop steps (last first) while the replay
# still diverges the same way (tkind), for at most SECS seconds; print the
# shortest list, then the last divergence's text on a second line
tort_shrink() {
	local list=$1 fidx=$2 secs=$3 steps cur i try t0=$SECONDS kind why=$TORT_WHY
	kind=$(tkind "$TORT_WHY")
	IFS=';' read -r -a steps <<<"$list"
	cur=("${steps[@]:0:fidx+1}")
	for ((i = ${#cur[@]} - 2; i >= 1; i--)); do
		[ $((SECONDS - t0)) -lt "$secs" ] || break
		try=("${cur[@]:0:i}" "${cur[@]:i+1}")
		TORT_QUIET=1 tort_run_list "$(tjoin "${try[@]}")" >/dev/null 2>&1
		if [ "$TORT_FAILSTEP" -gt 0 ] && [ "$(tkind "$TORT_WHY")" = "$kind" ]; then
			cur=("${try[@]:0:TORT_FAILSTEP+1}")
			why=$TORT_WHY
			[ "$i" -le $((${#cur[@]} - 1)) ] || i=$((${#cur[@]} - 1))
		fi
	done
	tjoin "${cur[@]}"
	echo "$why"
}

# tort_seq SEED: one sequence; prints TORTURE-* lines; 0 pass, 1 fail
tort_seq() {
	local seed=$1 list t0=$SECONDS rc shrunk
	TSEED=$seed
	list=$(tort_gen "$seed")
	echo "TORTURE-BEGIN seed=$seed geom=\"${list%%;*}\""
	tort_run_list "$list"
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "TORTURE-END seed=$seed result=pass steps=$TORT_NSTEPS secs=$((SECONDS - t0)) raid456-lost=$TORT_ORACLE late-clean=$TORT_LATE"
		return 0
	fi
	echo "TORTURE-DIVERGE seed=$seed step=$TORT_FAILSTEP: $TORT_WHY"
	echo "TORTURE-REPLAY seed=$seed: $list"
	if [ "$rc" = 1 ] && [ "${TORT_SHRINK_SECS:-0}" -gt 0 ]; then
		grep -E "$TORT_SPLAT" "$TORT_KLOG" 2>/dev/null | head -n 20 | sed 's/^/#  klog: /'
		shrunk=$(tort_shrink "$list" "$TORT_FAILSTEP" "$TORT_SHRINK_SECS")
		echo "TORTURE-SHRUNK seed=$seed: ${shrunk%%$'\n'*}"
		echo "TORTURE-SHRUNK-WHY seed=$seed: ${shrunk#*$'\n'}"
	fi
	echo "TORTURE-END seed=$seed result=fail steps=$TORT_NSTEPS secs=$((SECONDS - t0))"
	return 1
}
