#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 16-write-reads: write-only workloads do not read from the members (the
# pre-reads of read-modify-write that raid456 issues when it starts a
# partial stripe before the rest of it arrives; seeds 000 and 001).
# Four writers, each on its own 48 MiB region of a fresh 4-member array
# (512 KiB chunk: a full stripe is 1.5 MiB), member sectors read and
# written counted from /sys/block/loopN/stat around each:
#   full    O_DIRECT psync writes of one full stripe, queue depth 1
#           (O_DIRECT bios carry REQ_SYNC: it must not start pre-reads)
#   seq1m   O_DIRECT 1 MiB sequential, libaio depth 8 (bios cross stripes)
#   seq64k  O_DIRECT 64 KiB sequential, libaio depth 32
#   dd      buffered dd of 1 MiB blocks, conv=fsync (page-cache writeback)
# raid5x: `full` reads nothing, `dd` at most 1% of what it wrote, and
# seq1m and seq64k at most a third (half on the debug kernel) of what
# raid456's same writer read in this boot (measured: raid5x 0.7% and 1.5% of the sectors written on an
# idle host, 0.7% and 8% with four other guests on its 2 cores, raid456
# 18-33% and 35-38%; the first bio of a stream is not known to be
# sequential, and a starved submitter looks like a queue-depth-1 one; a
# writer above the bound runs again on a spare region, at most twice, and
# one run within it passes). Each region then verifies (fio verify_only, md5 of the dd
# region), under raid5x and again under raid456 after a stop and an
# assembly, and raid456's check finds mismatch_cnt 0.
# raid456 runs the same writers first as the control: its seq1m and
# seq64k must read (at least 10% of what they wrote), which shows the
# workload provokes pre-reads at all; its figures are printed.
# Fails on a raid5x that starts partial stripes at once: with
# r5x_may_preread() granting every stripe, seq1m read 15256 sectors
# against raid456's 32192 and seq64k 53536 against 55152 (not ok 7, 8).
# Every writer also counts the stripes that sat parked on the delayed list
# with every data page already overwritten (activated_full): none may.
# Fails on a raid5x whose r5x_attach_bio leaves R5X_STRIPE_DELAYED set (a
# bio completing a stripe that a handler had just parked went unseen until
# seq_delay_ms; 6.12 and 7.2 give O_DIRECT writes no plug of their own):
# not ok 10 on 7.2 (activated_full 1), 6.12 passed (0).  The race needs the
# handler and the submitter on two CPUs at once, rare in the suite's
# single-thread guests: the 7.2 benchmark's guest (a host thread per vCPU)
# found 19-111 a run of seq-write-1M, each a full stripe held 100 ms.
# Last, rows written by one bio each: a fresh raid5x array with 64 KiB
# chunks (a row is 192 KiB), O_DIRECT psync writes of one row, 128 of them:
# every stripe reaches raid5xd overwritten whole (2048 of them: released
# by a plug, or let go at once by raid5x's own), none is delayed, nothing
# is read, the rows verify. raid5x plugs a write of more than one block
# itself when the submitter holds no plug (7.x gives an O_DIRECT write
# that fits one bio none; the 1.5 MiB writes above arrive plugged on every
# kernel: the block layer plugs a write it splits into several bios; 6.1
# plugs every block-device write, 6.12 every bio it submits: there the
# note shows plugged_stripes 2048), and queues each stripe's blocks of
# the bio together, so a row's stripes are whole as soon as they are
# queued and go at once (own_plug_passed); the submitter's plug holds
# them to its unplug (plugged_stripes). Fails without raid5x's plug on
# 7.2 (the module of ebdd38d, this case: not ok 13, plugs 0, 535 of 2048
# stripes delayed, 120 sectors read, 852 member bios).
# On that array, the queue limits: raid5x builds its own member bios, so
# the members' segment count does not bound the array's bios; md cuts
# them at six whole rows (r5x_max_bio_sectors: 1152 KiB).  Fails on the
# module of 12be61b, which kept the loop members' limits: not ok 14 on 6.1
# and 7.2 (max_segments 128, max_sectors_kb 1280, 32 bios).
# Then a lone writer (dd, O_DIRECT 1 MiB writes, one at a time, each
# ending inside a 192 KiB row): its next write is sent only after this one
# completes, so its partial rows have nothing to wait for; none is parked
# on the delayed list (they are granted pre-reads at once, granted_lone),
# and the data reads back as written.  Fails on the module of 94ddfa2,
# which parked them until the bio's whole rows were written (with 4 ms
# members, this job ran 0.91-0.94x raid456 then, 1.13-1.23x with the
# change: docs/reports/lone-writer-2026-12-06.md): not ok 15 (delayed
# 160, activated_idle 160, no granted_lone).
# timeout: 900
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 15
load_md
sys=/sys/block/md0/md
region=48
jobs="full seq1m seq64k dd"

# run_writer NAME OFFSET_MB: one writer on md0; prints "READ WRITE"
# member sectors it caused
run_writer() {
	local r0 w0 r1 w1
	[ -e "$sys/raid5x_stats/reset" ] && echo 1 >"$sys/raid5x_stats/reset"
	read -r r0 w0 <<<"$(member_stats "${devs[@]}")"
	case $1 in
	full) fio --eta=never --output=/dev/null --name=full --filename=/dev/md0 \
		--direct=1 --ioengine=psync --rw=write --bs=1536k \
		--offset="$2"M --size="$region"M --verify=pattern --verify_pattern=%o --do_verify=0 ;;
	seq1m) fio --eta=never --output=/dev/null --name=seq1m --filename=/dev/md0 \
		--direct=1 --ioengine=libaio --iodepth=8 --rw=write --bs=1M \
		--offset="$2"M --size="$region"M --verify=pattern --verify_pattern=%o --do_verify=0 ;;
	seq64k) fio --eta=never --output=/dev/null --name=seq64k --filename=/dev/md0 \
		--direct=1 --ioengine=libaio --iodepth=32 --rw=write --bs=64k \
		--offset="$2"M --size="$region"M --verify=pattern --verify_pattern=%o --do_verify=0 ;;
	dd) dd if=/tmp/dd.src of=/dev/md0 bs=1M seek="$2" count="$region" \
		conv=fsync,notrunc status=none ;;
	esac || return 1
	read -r r1 w1 <<<"$(member_stats "${devs[@]}")"
	echo "$((r1 - r0)) $((w1 - w0))"
}

# verify_writer NAME OFFSET_MB: the region reads back as written
verify_writer() {
	case $1 in
	dd) [ "$(dd if=/dev/md0 bs=1M skip="$2" count="$region" iflag=direct status=none | md5sum)" = \
		"$(md5sum </tmp/dd.src)" ] ;;
	*) local bs=1M
		[ "$1" = full ] && bs=1536k
		[ "$1" = seq64k ] && bs=64k
		fio --eta=never --output=/dev/null --name="$1" --filename=/dev/md0 \
			--direct=1 --ioengine=libaio --iodepth=8 --rw=write --bs="$bs" \
			--offset="$2"M --size="$region"M --verify=pattern --verify_pattern=%o \
			--verify_only=1 --verify_fatal=1 ;;
	esac
}

# stats_line: raid5x's non-zero policy counters, NAME=VALUE
stats_line() {
	local f v out=""
	for f in "$sys"/raid5x_stats/*; do
		[ "${f##*/}" = reset ] && continue
		read -r v <"$f" && [ "$v" != 0 ] && out+=" ${f##*/}=$v"
	done
	echo "${out# }"
}

# The debug kernel (KASAN, lockdep) runs the writers several times slower,
# and a slow submitter's partial stripes are granted pre-reads like a
# queue-depth-1 writer's: there raid5x read 13% of seq64k's writes against
# raid456's 37%, so the bound is half of raid456's, not a quarter.
# A host busier than the suite's two lanes does the same to Debian's
# kernels: 6.12 read 26% (13568 vs 52304 sectors) with a kernel build
# beside its lane, hence a third there, which a module granting every
# stripe (about raid456's reads) still fails by far.
share=3 retries=2
case $(uname -r) in *-raid5x-debug) share=2 ;; esac

# pct_le J PERMILLE: J's member reads are at most PERMILLE/1000 of its writes
pct_le() { [ "${wr[$1]:-0}" -gt 0 ] && [ $((rd[$1] * 1000)) -le $(($2 * wr[$1])) ]; }

dd if=/dev/urandom of=/tmp/dd.src bs=1M count="$region" status=none
for pers in raid5 raid5x; do
	read -r tag chk <<<"$(gl_pers "$pers")"
	# raid5x's members also hold the spare regions of the retries (below)
	nreg=4
	[ "$pers" = raid5x ] && nreg=$((4 + 2 * retries))
	read -r -a devs <<<"$(make_members 4 $((region * nreg / 3 + 8)))"
	create_raid5 md0 4 512 left-symmetric "${devs[@]}"
	if [ "$pers" = raid5x ]; then
		$chk "$tag: takeover" to_raid5x md0 || { tap_skip_rest "no raid5x"; break; }
	fi
	# the first open of md0 reads its first blocks (partition scan)
	dd if=/dev/md0 of=/dev/null bs=64k count=1 iflag=direct status=none
	declare -A rd=() wr=() tries=()
	off=0 ok=1 full_parked=0 written=()
	# write_region J LABEL: writer J on the next free region (off), its
	# member reads and writes in rd/wr, the region verified and listed
	write_region() {
		read -r "rd[$1]" "wr[$1]" <<<"$(run_writer "$1" "$off")" || ok=0
		[ -r "$sys/raid5x_stats/activated_full" ] &&
			full_parked=$((full_parked + $(cat "$sys/raid5x_stats/activated_full")))
		note "$tag $2: member reads ${rd[$1]} sectors, writes ${wr[$1]} ($(( ${rd[$1]:-0} * 1000 / (${wr[$1]:-0} + 1) ))/1000)"
		verify_writer "$1" "$off" || { note "$tag $2: region at $off MiB does not verify"; ok=0; }
		[ -d "$sys/raid5x_stats" ] && note "$tag $2 counters: $(stats_line)"
		written+=("$1:$off")
		off=$((off + region))
	}
	for j in $jobs; do
		write_region "$j" "$j"
	done
	# A writer whose reads exceed the bound runs again, on a spare region,
	# up to $retries times (the bound holds if one run meets it). A guest
	# starved by the host's load stalls fio's submission: every stripe in
	# flight parks on the delayed list and stall_grace_ms releases them
	# (activated_idle), and raid456's own reads vary with it: CI's 6.12
	# lane once read 9216 sectors on seq1m against raid456's 13752 (its
	# usual 30000-38000), and with two busy loops on the host 5936 with
	# activated_idle 512. A module granting every partial stripe reads
	# about raid456's figure every time, and still fails.
	for j in seq1m seq64k; do
		[ "$pers" = raid5x ] || break
		tries[$j]=1
		while [ $((rd[$j] * share)) -gt "${rd456[$j]}" ] && [ "${tries[$j]}" -le "$retries" ]; do
			note "$tag $j: ${rd[$j]} sectors read, above 1/$share of raid456's ${rd456[$j]}: again on the spare region at $off MiB"
			tries[$j]=$((tries[$j] + 1))
			write_region "$j" "$j (run ${tries[$j]})"
		done
	done
	if [ "$pers" = raid5 ]; then
		declare -A rd456=([seq1m]=${rd[seq1m]:-0} [seq64k]=${rd[seq64k]:-0})
		tap_check "raid456 (control): every writer's region verifies" test "$ok" = 1
		tap_check "raid456 (control): seq1m reads >= 10% of its writes (${rd[seq1m]}/${wr[seq1m]})" \
			sh -c "[ $((rd[seq1m] * 10)) -ge ${wr[seq1m]} ]"
		tap_check "raid456 (control): seq64k reads >= 10% of its writes (${rd[seq64k]}/${wr[seq64k]})" \
			sh -c "[ $((rd[seq64k] * 10)) -ge ${wr[seq64k]} ]"
	else
		$chk "$tag: every writer's region verifies" test "$ok" = 1
		$chk "$tag: full-stripe O_DIRECT psync reads nothing (${rd[full]} sectors)" \
			test "${rd[full]}" = 0
		for j in seq1m seq64k; do
			$chk "$tag: $j reads at most 1/$share of raid456's (${rd[$j]} vs ${rd456[$j]} sectors, run ${tries[$j]})" \
				test $((rd[$j] * share)) -le "${rd456[$j]}"
		done
		$chk "$tag: buffered dd reads <= 1% of its writes (${rd[dd]}/${wr[dd]})" pct_le dd 10
		$chk "$tag: no full stripe waited on the delayed list (activated_full $full_parked)" \
			test "$full_parked" = 0
	fi
	if [ "$pers" = raid5x ]; then
		# raid456 reads back what raid5x wrote, and checks its parity
		ok=1
		if ! stop_array md0 ||
			! mdadm --assemble /dev/md0 --run "${devs[@]}" >/dev/null 2>&1; then
			note "reassembly under raid456 failed"
			ok=0
		fi
		for w in "${written[@]}"; do
			verify_writer "${w%%:*}" "${w#*:}" ||
				{ note "raid456 on raid5x's ${w%%:*} at ${w#*:} MiB: region does not verify"; ok=0; }
		done
		$chk "$tag: raid456 reassembles the array and every region verifies" test "$ok" = 1
		$chk "$tag: raid456's check finds mismatch_cnt 0" check_parity md0
	fi
	gl_fresh md0
	unset rd wr tries
	[ "$pers" = raid5x ] || continue
	read -r -a devs <<<"$(make_members 4 16)"
	step() {
		local r0 w0 r1 w1 whole delayed
		local row=(fio --eta=never --output=/dev/null --name=row --filename=/dev/md0
			--direct=1 --ioengine=psync --rw=write --bs=192k --size=24M
			--verify=pattern --verify_pattern=%o)
		create_raid5 md0 4 64 left-symmetric "${devs[@]}" && to_raid5x md0 || return 1
		dd if=/dev/md0 of=/dev/null bs=64k count=1 iflag=direct status=none
		echo 1 >"$sys/raid5x_stats/reset" || return 1
		read -r r0 w0 <<<"$(member_stats "${devs[@]}")"
		"${row[@]}" --do_verify=0 || return 1
		read -r r1 w1 <<<"$(member_stats "${devs[@]}")"
		whole=$(($(cat "$sys/raid5x_stats/plugged_stripes") + $(cat "$sys/raid5x_stats/own_plug_passed")))
		delayed=$(cat "$sys/raid5x_stats/delayed")
		note "$tag rows of one bio: member reads $((r1 - r0)), writes $((w1 - w0)) sectors; $(stats_line)"
		"${row[@]}" --verify_only=1 --verify_fatal=1 || return 1
		[ "$whole" -ge 2048 ] && [ "$delayed" = 0 ] && [ $((r1 - r0)) = 0 ]
	}
	$chk "$tag: 64 KiB chunks, 128 O_DIRECT writes of one row each: 2048 stripes handed over whole, none delayed, no member read, rows verify" step
	# bios of up to six whole rows (1152 KiB) and any number of pages: an
	# O_DIRECT write of 1 MiB (256 pages, the most one bio holds) is one bio
	bios() {
		local q=/sys/block/md0/queue ms mk w0 w1
		read -r ms <"$q/max_segments" && read -r mk <"$q/max_sectors_kb" || return 1
		w0=$(awk '{print $5}' /sys/block/md0/stat)
		dd if=/tmp/dd.src of=/dev/md0 bs=1M count=16 seek=16 oflag=direct status=none || return 1
		w1=$(awk '{print $5}' /sys/block/md0/stat)
		note "$tag queue: max_segments $ms, max_sectors_kb $mk; 16 writes of 1 MiB reached md as $((w1 - w0)) bios"
		[ "$(dd if=/dev/md0 bs=1M skip=16 count=16 iflag=direct status=none | md5sum)" = \
			"$(head -c $((16 << 20)) /tmp/dd.src | md5sum)" ] || return 1
		[ "$ms" = 65535 ] && [ "$mk" = 1152 ] && [ $((w1 - w0)) = 16 ]
	}
	$chk "$tag: 64 KiB chunks: bios of up to six whole rows, any number of pages (16 O_DIRECT writes of 1 MiB are 16 bios), data as written" bios
	# a lone writer's partial rows read at once (delay_list.c grant_now)
	lone() {
		local delayed granted r0 w0 r1 w1
		echo 1 >"$sys/raid5x_stats/reset" || return 1
		read -r r0 w0 <<<"$(member_stats "${devs[@]}")"
		dd if=/tmp/dd.src of=/dev/md0 bs=1M count=16 oflag=direct status=none || return 1
		read -r r1 w1 <<<"$(member_stats "${devs[@]}")"
		delayed=$(cat "$sys/raid5x_stats/delayed")
		granted=$(cat "$sys/raid5x_stats/granted_lone" 2>/dev/null) || granted=0
		note "$tag lone writer, 16 x 1 MiB: member reads $((r1 - r0)), writes $((w1 - w0)) sectors; $(stats_line)"
		[ "$(dd if=/dev/md0 bs=1M count=16 iflag=direct status=none | md5sum)" = \
			"$(head -c $((16 << 20)) /tmp/dd.src | md5sum)" ] || return 1
		[ "$delayed" = 0 ] && [ "$granted" -gt 0 ]
	}
	$chk "$tag: a lone writer (16 O_DIRECT writes of 1 MiB, one at a time): no partial row parked on the delayed list, granted_lone > 0, data as written" lone
	gl_fresh md0
done
tap_done
