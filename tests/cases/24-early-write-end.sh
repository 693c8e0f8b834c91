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
#   - member 3 failed: random writes verify, none ends early;
#   - member 3 added back and rebuilt: the array reads what it read
#     degraded, md's check finds mismatch_cnt 0.
# Fails on the module before early_write_end (no parameter, no early_ends
# counter): not ok 2-6.
# timeout: 400
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 9
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
rand() { # OFFSET_MB
	fio_verify --name=rand --filename=/dev/md0 --direct=1 --ioengine=libaio \
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
tap_done
