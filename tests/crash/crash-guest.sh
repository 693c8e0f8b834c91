#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# crash-guest.sh: the guest half of tests/host/30-crash.sh (two boots on the
# same virtio disks /dev/vda..vdd, the members).
#
# usage: crash-guest.sh write  PERS BITMAP CRASH_AFTER
#        crash-guest.sh verify PERS BITMAP CRASH_AFTER ACKS
#   PERS    raid5x or raid456 (the personality under test)
#   BITMAP  none or internal
#   ACKS    acknowledged writes per writer, "a0,a1,a2,a3" (the host reads
#           them from boot 1's console)
#
# write (boot 1, scripts/guest.sh --expect-crash): create a 4-member level-5
# array (64K chunk, --assume-clean on zeroed disks, optional internal bitmap
# with 1 MiB bitmap chunks), switch it to raid5x, fill the test region
# (the first 24 MiB of the array) with generation 0, then run 4 writers with
# O_DIRECT|O_SYNC writes: writers 0-2 write 4-16 KiB into interleaved 16 KiB
# zones of the first 16 MiB (partial-stripe writes sharing stripes), writer 3
# writes 128-384 KiB at 64 KiB alignment into the next 8 MiB (full and
# partial stripes). Every 512-byte sector written is one text line naming
# its sector and the write's generation. Each writer follows a fixed
# pseudo-random plan (same in both boots) and, after each acknowledged write,
# prints "ACK W I" through /dev/kmsg before it starts the next write (printk
# writes the serial console synchronously, and the sysrq "Resetting" line
# comes after every earlier record, so no ACK of a write that was followed
# by another is lost). After CRASH_AFTER acknowledged writes the guest
# announces GUEST-CRASH on /dev/kmsg and resets itself (sysrq b: no sync,
# writes in flight).
#
# verify (boot 2): assemble read-only (md must find the array dirty), switch
# to raid5x while read-only (so raid456 does none of the resync), go
# read-write: PERS resyncs (member reads and time are reported as
# "crash-figure" lines), `check` gives mismatch_cnt 0, every sector of the
# test region holds the generation of the last acknowledged write to it (or
# of the one write per writer that was in flight), and raid456 assembles the
# same disks with the same bytes and mismatch_cnt 0.
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

phase=${1:?phase}
pers=${2:?pers}
bitmap=${3:?bitmap}
crash_after=${4:?crash_after}
case $phase in write|verify) ;; *) echo "bad phase $phase" >&2; exit 64 ;; esac
case $pers in raid5x|raid456) ;; *) echo "bad pers $pers" >&2; exit 64 ;; esac
case $bitmap in none|internal) ;; *) echo "bad bitmap $bitmap" >&2; exit 64 ;; esac

members=(/dev/vda /dev/vdb /dev/vdc /dev/vdd)
md=/dev/md0
sys=/sys/block/md0/md
W=4                   # writers
SMALL_SECT=32768      # writers 0-2: the first 16 MiB, 16 KiB zones
BIG_SECT=16384        # writer 3: the next 8 MiB, 64 KiB units
REGION_SECT=$((SMALL_SECT + BIG_SECT))
MAXOPS=3000           # plan length per writer (the crash comes first)
PLAN_WRITE=4
PLAN_VERIFY=9

# the plan: one line "w i start_sector nsect gen" per write, deterministic
make_plan() {
	awk -v W="$W" -v N="$MAXOPS" -v SMALL="$SMALL_SECT" -v BIG="$BIG_SECT" '
	function rnd(m) { x = (x * 48271) % 2147483647; return x % m }
	BEGIN {
		x = 20261130
		zones = SMALL / 32          # 16 KiB zones, zone z owned by z % 3
		units = BIG / 128           # 64 KiB units
		for (w = 0; w < W; w++)
			for (i = 1; i <= N; i++) {
				if (w < 3) {
					z = 3 * rnd(int(zones / 3)) + w
					k = rnd(4)          # 4 KiB offset in the zone
					l = 1 + rnd(4 - k)  # 4 KiB blocks
					s = z * 32 + k * 8
					n = l * 8
				} else {
					l = 2 + rnd(5)
					s = SMALL + 128 * rnd(units - l + 1)
					n = 128 * l
				}
				print w, i, s, n, i * W + w
			}
	}' >/tmp/plan
}

# pattern START NSECT GEN: the contents of a write (one 512-byte line a
# sector; the writers build the same with printf)
pattern() {
	awk -v s0="$1" -v n="$2" -v g="$3" 'BEGIN {
		for (s = s0; s < s0 + n; s++)
			printf "%-511s\n", sprintf("s=%010d g=%08d", s, g)
	}'
}

is_level() { [ "$(md_level md0)" = "$1" ] || { note "md0 runs '$(md_level md0)', want $1"; return 1; }; }
has_bitmap() {
	local loc
	loc=$(cat "$sys/bitmap/location" 2>/dev/null || echo none)
	note "bitmap location: $loc"
	if [ "$bitmap" = internal ]; then [ "$loc" != none ]; else [ "$loc" = none ]; fi
}
disks_present() {
	local d
	for d in "${members[@]}"; do
		[ -b "$d" ] || { note "$d missing"; return 1; }
	done
}

# ---- boot 1 ----------------------------------------------------------------
writer() { # W: run the plan of writer W until the crash (one exec a write)
	local w=$1 i s n g k l buf=/tmp/buf.$1 lines
	while read -r _ i s n g; do
		lines=()
		for ((k = s; k < s + n; k++)); do
			printf -v l 's=%010d g=%08d' "$k" "$g"
			lines+=("$l")
		done
		printf '%-511s\n' "${lines[@]}" >"$buf"
		dd if="$buf" of="$md" bs=$((n * 512)) count=1 \
			oflag=direct,sync,seek_bytes seek=$((s * 512)) status=none ||
			{ echo "# writer $w: write $i failed"; return 1; }
		echo "<4>ACK $w $i" >/dev/kmsg
		echo "$w $i" >>/tmp/acks
	done <"/tmp/plan.$w"
}

prefill() {
	pattern 0 "$REGION_SECT" 0 | dd of="$md" bs=1M iflag=fullblock \
		oflag=direct status=none && sync
}

if [ "$phase" = write ]; then
	tap_plan "$PLAN_WRITE"
	load_md
	tap_check "4 member disks present" disks_present
	create() {
		local bargs=(--bitmap="$bitmap")
		[ "$bitmap" = none ] || bargs+=(--bitmap-chunk=1M)
		mdadm --create "$md" --run --quiet --level=5 --metadata=1.2 \
			--assume-clean --chunk=64 --layout=left-symmetric \
			--raid-devices=4 "${bargs[@]}" "${members[@]}" &&
			is_level raid5 && has_bitmap
	}
	tap_check "create level-5 array, bitmap $bitmap" create
	# mdadm writes a new internal bitmap all dirty; md clears the bits of
	# an in-sync array over a few daemon periods, in memory first and on
	# the disks later: wait until the members' bitmaps say 0 dirty, so
	# boot 2's resync covers only what the crash left dirty
	if [ "$bitmap" = internal ]; then
		i=0
		while ! mdadm -X "${members[0]}" 2>/dev/null | grep -q ' 0 dirty' &&
			[ "$i" -lt 120 ]; do
			sleep 0.5
			i=$((i + 1))
		done
		note "bitmap after $((i / 2)) s: $(grep -o 'bitmap:.*' /proc/mdstat); on disk: $(mdadm -X "${members[0]}" 2>/dev/null | grep -o '[0-9]* dirty.*')"
	fi
	if [ "$pers" = raid5x ]; then
		r5x_check "takeover to raid5x (bitmap $bitmap)" to_raid5x md0
	else
		tap_check "array runs under raid456" is_level raid5
	fi
	make_plan
	for ((w = 0; w < W; w++)); do
		awk -v w="$w" '$1 == w' /tmp/plan >/tmp/plan.$w
	done
	t0=$EPOCHREALTIME
	tap_check "fill the test region ($((REGION_SECT / 2048)) MiB) with generation 0" prefill
	note "prefill took $(gl_since "$t0") s"
	wait_idle md0 60 || true
	# md marks an array clean once no write has been in flight for
	# safe_mode_delay (0.2 s); these writers spend most of their time
	# building the next buffer, so the crash could find the array clean
	# (seen once: reset 0.43 s after the last acknowledged write). Keep
	# it dirty while they write, as a busy array would be.
	sysfs_write "$sys/safe_mode_delay" 60 ||
		{ note "cannot set $sys/safe_mode_delay"; exit 1; }
	note "safe_mode_delay $(cat "$sys/safe_mode_delay")"
	: >/tmp/acks
	# no rate limit on /dev/kmsg (the ACK lines); a fifo nobody writes
	# makes `read -t` a sleep that does not fork
	echo on >/proc/sys/kernel/printk_devkmsg
	mkfifo /tmp/tick
	note "$(md_mdstat_line md0); writers start, crash after $crash_after acknowledged writes"
	pids=()
	for ((w = 0; w < W; w++)); do
		writer "$w" &
		pids+=($!)
	done
	t0=$EPOCHREALTIME
	while mapfile -t done_acks </tmp/acks && [ "${#done_acks[@]}" -lt "$crash_after" ]; do
		read -r -t 0.1 <>/tmp/tick || true
		kill -0 "${pids[@]}" 2>/dev/null || { note "a writer stopped early"; exit 1; }
	done
	echo "<4>GUEST-CRASH: reset after ${#done_acks[@]} acknowledged writes in $(gl_since "$t0") s" >/dev/kmsg
	echo b >/proc/sysrq-trigger
	sleep 30
	note "the guest did not reset"
	exit 1
fi

# ---- boot 2 ----------------------------------------------------------------
tap_plan "$PLAN_VERIFY"
load_md
make_plan
IFS=, read -r -a acks <<<"${5:?acks}"
read_acks() {
	local w total=0
	[ "${#acks[@]}" = "$W" ] || { note "want $W ack counts, got '${5:-}'"; return 1; }
	for ((w = 0; w < W; w++)); do
		[[ ${acks[w]} =~ ^[0-9]+$ ]] || { note "bad ack count '${acks[w]}'"; return 1; }
		total=$((total + acks[w]))
	done
	note "acknowledged writes per writer: ${acks[*]} (total $total)"
	[ "$total" -ge "$crash_after" ]
}
tap_check "boot 1 acknowledged >= $crash_after writes" read_acks

assemble_dirty() {
	mdadm --assemble --readonly --run "$md" "${members[@]}" || return 1
	note "$(md_mdstat_line md0); resync_start $(cat "$sys/resync_start"); array_state $(cat "$sys/array_state")"
	[ "$(cat "$sys/resync_start")" != none ] ||
		{ note "the array is clean: the crash did not leave it dirty"; return 1; }
	has_bitmap
}
tap_check "assemble read-only: array is dirty (resync needed), bitmap $bitmap" assemble_dirty
# md refuses a personality change on a read-only array and while a resync
# runs: freeze sync_action, go read-write (no resync starts), switch, then
# let the resync run (under the new personality)
go_rw_frozen() {
	echo frozen >"$sys/sync_action" && mdadm --readwrite "$md" || return 1
	sleep 0.5
	note "read-write, frozen: sync_action $(cat "$sys/sync_action"), resync_start $(cat "$sys/resync_start")"
	[ "$(cat "$sys/sync_action")" = frozen ] && [ "$(cat "$sys/resync_start")" = 0 ]
}
rw_switch() {
	go_rw_frozen || return 1
	if [ "$pers" = raid5x ]; then to_raid5x md0; else is_level raid5; fi
}
if [ "$pers" = raid5x ]; then
	r5x_check "read-write with the resync frozen, takeover to raid5x" rw_switch
else
	tap_check "read-write with the resync frozen, runs under raid456" rw_switch
fi

resync() {
	local t0 before after i=0 rd mib secs
	before=$(member_stats "${members[@]}") || return 1
	t0=$EPOCHREALTIME
	echo resync >"$sys/sync_action" || return 1
	# the resync may not have started yet: wait for it (or its end)
	while [ "$(cat "$sys/sync_action")" = idle ] && [ "$(cat "$sys/resync_start")" != none ]; do
		sleep 0.1
		i=$((i + 1))
		[ "$i" -lt 100 ] || { note "no resync started"; return 1; }
	done
	note "resync: $(md_mdstat_line md0) level $(md_level md0)"
	is_level "$want" || return 1
	wait_idle md0 300 || return 1
	secs=$(gl_since "$t0")
	after=$(member_stats "${members[@]}") || return 1
	rd=$(( ${after% *} - ${before% *} ))
	mib=$(awk -v r="$rd" 'BEGIN { printf "%.1f", r / 2048 }')
	note "crash-figure pers=$pers bitmap=$bitmap resync_read_sectors=$rd resync_read_mib=$mib resync_s=$secs"
	note "resync_start $(cat "$sys/resync_start"); mismatch_cnt $(cat "$sys/mismatch_cnt")"
	[ "$(cat "$sys/resync_start")" = none ] && is_level "$want"
}
want=raid5
[ "$pers" = raid5x ] && want=raid5x
tap_check "resync under $want runs to completion" resync

check_run() {
	local mm
	wait_idle md0 || return 1
	echo check >"$sys/sync_action" || return 1
	sleep 0.5
	wait_idle md0 300 || return 1
	mm=$(cat "$sys/mismatch_cnt")
	note "check under $(md_level md0): mismatch_cnt $mm"
	[ "$mm" = 0 ] && is_level "$want"
}
tap_check "check under $want after the resync: mismatch_cnt 0" check_run

# verify FILE: the test region's contents in FILE against the plan
verify() {
	local w acked=""
	for ((w = 0; w < W; w++)); do acked+="${acks[w]} "; done
	awk -v acked="$acked" -v W="$W" -v NS="$REGION_SECT" '
		BEGIN {
			split(acked, a, " ")
			# replay the plan: the last acknowledged write of each
			# sector, and the one write per writer that may have been
			# in flight
			while ((getline line < "/tmp/plan") > 0) {
				split(line, f, " ")
				w = f[1]; i = f[2]; s = f[3]; n = f[4]; g = f[5]
				if (i <= a[w + 1]) {
					for (k = s; k < s + n; k++) { want[k] = g; delete alt[k] }
					nacked++
				} else if (i == a[w + 1] + 1) {
					for (k = s; k < s + n; k++) alt[k] = g
				}
			}
		}
		{
			s = NR - 1
			e = sprintf("%-511s", sprintf("s=%010d g=%08d", s, (s in want) ? want[s] : 0))
			if ($0 == e) { if (s in alt) old++; next }
			if (s in alt && $0 == sprintf("%-511s", sprintf("s=%010d g=%08d", s, alt[s]))) {
				new++
				next
			}
			if (bad++ < 5)
				printf "# sector %d: read \"%s\", want gen %d%s\n", s, substr($0, 1, 30), (s in want) ? want[s] : 0, (s in alt) ? " or " alt[s] : ""
		}
		END {
			printf "# %d acknowledged writes replayed; %d sectors read (want %d); in-flight sectors: %d new, %d old; %d bad sectors\n", nacked, NR, NS, new, old, bad
			exit !(bad == 0 && NR == NS)
		}' "$1"
}
verify_data() {
	dd if="$md" of=/tmp/region bs=1M count=$((REGION_SECT / 2048)) iflag=direct status=none &&
		verify /tmp/region
}
tap_check "every acknowledged write reads back (test region, $((REGION_SECT / 2048)) MiB)" verify_data
# the verifier itself: the last acknowledged write of writer 0 planted back
# to generation 0 (a lost write) must be caught
planted() {
	local s n
	[ "${acks[0]}" -gt 0 ] || { note "writer 0 acknowledged nothing"; return 1; }
	read -r _ _ s n _ <<<"$(awk -v i="${acks[0]}" '$1 == 0 && $2 == i' /tmp/plan)"
	pattern "$s" 1 0 | dd of=/tmp/region bs=512 seek="$s" conv=notrunc status=none || return 1
	note "planted: sector $s (write 0/${acks[0]}) back to generation 0"
	fails verify /tmp/region
}
tap_check "the verifier catches a planted lost write" planted

# the first 32 MiB: the test region and what follows it (the rest is
# covered by the parity check)
head_sha() { dd if="$md" bs=1M count=32 iflag=direct status=none | sha256sum | cut -d' ' -f1; }
sha=$(head_sha)
stop_array md0
raid456_same() {
	assemble_raid456 md0 "${members[@]}" || return 1
	local s
	s=$(head_sha)
	[ "$s" = "$sha" ] || { note "raid456 sha256 $s, $want had $sha"; return 1; }
}
tap_check "raid456 assembles the same disks: same sha256 of the first 32 MiB" raid456_same
tap_check "raid456 check: mismatch_cnt 0" check_parity md0
tap_done
