#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 24-early-write-end: the array writes of a drained stripe complete with
# its last member write when nothing failed (stripe_handle.c
# end_writes_early, module parameter early_write_end), not in a later pass
# of raid5xd; with a member missing every stripe still takes that pass.
# On a fresh 4-member array (512 KiB chunk), raid5x:
#   - random 4K O_DIRECT writes (libaio, depth 16) verify, and at least
#     half of the stripes drained for them (rmw_stripes + rcw_stripes +
#     full_stripes) ended early (raid5x_stats early_ends; a completion
#     that comes while the handler is still in its pass leaves the stripe
#     to the next one);
#   - full-stripe O_DIRECT writes: the same;
#   - with early_write_end=0, none ends early and the data verifies;
#   - 20 rounds of a full-stripe write followed at once by the array
#     leaving raid5x (md/level raid4, then raid5, then raid5x): md frees
#     the personality once the array bios ended, without quiescing it,
#     while the completion that ended them may still hold its stripe
#     (free_conf waits for it). The race is narrow: 20 rounds did not hit
#     it on 9429ad3's module (6.12, 7.2), whose CI 6.12 lane died of a
#     double fault in a later case; this part checks that the wait ends
#     (no warning) and the data stays right;
#   - member 3 failed: random writes verify, none ends early;
#   - member 3 added back and rebuilt: the array reads what it read
#     degraded, md's check finds mismatch_cnt 0.
#   - lockless_release (module parameter, Y by default): the random
#     writes' completions hand stripes to the handlers without the
#     array's lock (raid5x_stats handoffs > 0); with lockless_release=0
#     none does and the data verifies (stripe_cache.c r5x_release_stripe);
#     the level-change rounds above run with it, where free_conf drops
#     the references still handed over when raid5xd is gone.
#   - write_clone (module parameter, N by default: write_track.c), on a
#     second array with 64 KiB chunks: either way random 4K writes verify
#     and a lone writer (8 O_DIRECT writes of 1 MiB, one at a time) gets
#     its partial rows granted at once
#     (granted_lone > 0: the count of writes in flight went back to 0
#     after each write), and check finds 0.
# Fails on the module before early_write_end (no parameter, no early_ends
# counter): not ok 2-5 and 7; on the module before lockless_release (no
# parameter, no handoffs counter): not ok 11-12; on the module before
# write_clone (0d1e33f's): not ok 13-14, and on a module whose end_io
# does not count the write out (write_end without count_out; checked on
# 6.1): not ok 13-14, granted_lone 0 (the leaked count makes every
# writer look deeper than one).
# timeout: 400
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 14
load_md
param=/sys/module/md_raid5x/parameters/early_write_end
sys=/sys/block/md0/md
msz=$(gl_scaled 48 16)  # MiB per member
wsz=$(gl_scaled 16 4)   # MiB each writer writes

read -r -a devs <<<"$(make_members 4 "$msz")"
step() { create_raid5 md0 4 512 left-symmetric "${devs[@]}" && to_raid5x md0; }
r5x_check "raid5x over 4 members" step
[ "$GL_TAP_FAILED" = 0 ] || { tap_skip_rest "no raid5x array"; tap_done; }
param_default() { [ -w "$param" ] && [ "$(cat "$param")" = Y ]; }
tap_check "module parameter early_write_end, Y by default" param_default

# run WHAT CMD...: run CMD; EARLY = stripes ended early meanwhile, DRAINED =
# stripes drained for writes
drained() {
	echo $(($(r5x_stat "$sys" rmw_stripes) + $(r5x_stat "$sys" rcw_stripes) +
		$(r5x_stat "$sys" full_stripes)))
}
run() {
	local e0 d0 what=$1
	shift
	e0=$(r5x_stat "$sys" early_ends) && d0=$(drained) || return 1
	"$@" || return 1
	EARLY=$(($(r5x_stat "$sys" early_ends) - e0))
	DRAINED=$(($(drained) - d0))
	note "$what: $EARLY of $DRAINED drained stripes ended early"
}
rand() { # OFFSET_MB [MD]
	fio_verify --name=rand --filename="/dev/${2:-md0}" --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randwrite --bs=4k --offset="$1M" --size="${wsz}M"
}
full() { # OFFSET_MB: from the first row (1.5 MiB) there
	local row=1536
	fio_verify --name=full --filename=/dev/md0 --direct=1 --ioengine=libaio \
		--iodepth=4 --rw=write --bs="${row}k" \
		--offset="$((($1 * 1024 + row - 1) / row * row))k" --size="$((wsz / 3 * 3))M"
}
mostly() { [ "$DRAINED" -gt 0 ] && [ $((EARLY * 2)) -ge "$DRAINED" ]; }
none() { [ "$DRAINED" -gt 0 ] && [ "$EARLY" = 0 ]; }
rand_early() { run "random 4K" rand 0 && mostly; }
full_early() { run "full stripes" full "$wsz" && mostly; }
rand_off() {
	echo 0 >"$param" || return 1
	run "random 4K, early_write_end=0" rand "$((2 * wsz))" && none
	local rc=$?
	echo 1 >"$param" || return 1
	return "$rc"
}
tap_check "random 4K writes verify; most drained stripes end early" rand_early
tap_check "full-stripe writes verify; most drained stripes end early" full_early
tap_check "early_write_end=0: random 4K writes verify, none ends early" rand_off

# leave_after_write: 20 rounds of a full-stripe O_DIRECT write (every
# stripe ends early) and, at once, the array leaving raid5x (md/level
# raid4: raid456 takes it over as raid4; on 6.7+ md frees the personality
# once the array bios ended, without quiescing it), then back through
# raid5 to raid5x; the last round's data reads back
# (on a second array, parity-last: raid456 takes over only that layout)
leave_after_write() {
	local i w=/tmp/row rc=0 m s1=/sys/block/md1/md
	read -r -a m <<<"$(make_members 4 "$(gl_scaled 64 16)")"
	create_raid5 md1 4 512 parity-last "${m[@]}" && to_raid5x md1 || return 1
	head -c $((1536 * 1024)) /dev/urandom >"$w"
	for ((i = 0; i < 20 && rc == 0; i++)); do
		dd if="$w" of=/dev/md1 bs=1536k seek="$((i % 8))" oflag=direct status=none &&
			md_freeze md1 && echo raid4 >"$s1/level" &&
			echo raid5 >"$s1/level" && to_raid5x md1 || rc=1
	done
	[ "$rc" = 0 ] && [ "$(md_level md1)" = raid5x ] &&
		dd if=/dev/md1 of=/tmp/row.back bs=1536k skip=3 count=1 iflag=direct status=none &&
		cmp /tmp/row.back "$w" && stop_array md1
}
tap_check "20 writes each followed at once by a level change away and back; data reads back" leave_after_write

degraded() {
	mdadm --manage /dev/md0 --fail "${devs[3]}" >/dev/null 2>&1 &&
		mdadm --manage /dev/md0 --remove "${devs[3]}" >/dev/null 2>&1 &&
		run "random 4K, member 3 missing" rand "$((3 * wsz))" && none
}
tap_check "member 3 missing: random 4K writes verify, none ends early" degraded
want=$(md_md5 md0)
rebuilt() {
	mdadm --zero-superblock "${devs[3]}" >/dev/null 2>&1
	mdadm --manage /dev/md0 --add "${devs[3]}" >/dev/null && wait_rebuilt md0
}
tap_check "member 3 added back and rebuilt" rebuilt
tap_check "the array reads what it read degraded" test "$(md_md5 md0)" = "$want"
tap_check "md's check finds mismatch_cnt 0" md_check_zero md0

# handed: random writes (OFFSET_MB) run; HANDED = the hand-offs meanwhile
lparam=/sys/module/md_raid5x/parameters/lockless_release
handed() {
	local h0
	h0=$(r5x_stat "$sys" handoffs) || return 1
	run "random 4K, lockless_release=$(cat "$lparam")" rand "$1" || return 1
	HANDED=$(($(r5x_stat "$sys" handoffs) - h0))
	note "$HANDED last references handed over without the lock"
}
lockless_on() {
	[ -w "$lparam" ] && [ "$(cat "$lparam")" = Y ] &&
		handed "$((4 * wsz))" && [ "$HANDED" -gt 0 ]
}
lockless_off() {
	echo 0 >"$lparam" || return 1
	handed "$((5 * wsz))" && [ "$HANDED" = 0 ]
	local rc=$?
	echo 1 >"$lparam" || return 1
	return "$rc"
}
tap_check "lockless_release Y by default: random 4K writes verify, completions hand stripes over" lockless_on
tap_check "lockless_release=0: random 4K writes verify, no stripe handed over; check 0" \
	eval 'lockless_off && md_check_zero md0'

# write_clone (write_track.c): how raid5x sees an array write end, for its
# count of writes in flight. Either way random writes verify, and a lone
# writer (O_DIRECT 1 MiB writes one at a time, each ending inside a row)
# is seen as one: its partial rows are granted pre-reads at once
# (granted_lone > 0), which needs the count back at 0 after each write.
# On md1, 64 KiB chunks: a row (192 KiB) is less than the writer's 1 MiB
# in flight, so its stream's rows could wait and are granted for being
# a lone writer's (on md0 a row is 1.5 MiB: they are granted anyway).
wparam=/sys/module/md_raid5x/parameters/write_clone
w1sys=/sys/block/md1/md
read -r -a wdevs <<<"$(make_members 4 "$msz")"
tracked() { # OFFSET_MB
	local g0
	rand "$1" md1 || return 1
	gl_nap 0.3  # the random writer's depth is forgotten after 100 ms
	g0=$(r5x_stat "$w1sys" granted_lone) || return 1
	dd if=/dev/urandom of=/tmp/lone bs=1M count=8 status=none &&
		dd if=/tmp/lone of=/dev/md1 bs=1M seek="$(($1 + wsz))" oflag=direct status=none &&
		dd if=/dev/md1 of=/tmp/lone.back bs=1M skip="$(($1 + wsz))" count=8 iflag=direct status=none &&
		cmp /tmp/lone.back /tmp/lone || return 1
	LONE=$(($(r5x_stat "$w1sys" granted_lone) - g0))
	note "write_clone=$(cat "$wparam"): a lone writer's partial stripes granted at once: $LONE"
	[ "$LONE" -gt 0 ]
}
clone_off() {
	create_raid5 md1 4 64 left-symmetric "${wdevs[@]}" && to_raid5x md1 &&
		[ -w "$wparam" ] && [ "$(cat "$wparam")" = N ] && tracked 0
}
clone_on() {
	echo 1 >"$wparam" || return 1
	tracked "$((wsz + 8))"
	local rc=$?
	echo 0 >"$wparam" || return 1
	return "$rc"
}
tap_check "write_clone N by default: random 4K writes verify; a lone writer is seen (granted_lone > 0)" clone_off
tap_check "write_clone=1: random 4K writes verify; a lone writer is seen; check 0" \
	eval 'clone_on && md_check_zero md1'
tap_done
