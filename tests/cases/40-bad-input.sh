#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 40-bad-input: invalid sysfs writes are refused and change nothing; the
# module cannot be removed while an array uses it.
#
#   stripe_cache_size: 0, 15, -1, abc, 100000000, empty -> write fails,
#                      value unchanged (and a valid value is accepted)
#   preread_bypass_threshold: -1, abc, stripe_cache_size + 1 -> same
#   raid5x's own tunables (preread_batch, seq_delay_ms, stall_grace_ms,
#   stream_confirm,
#   wake_batch_pct, worker_threads, solo_worker): one value in range accepted, each bound + 1, -1 and
#   text refused, value unchanged; skip_copy (raid456 has it too): 1
#   accepted, -1 and abc refused (2 and empty: 21-nocopy; raid456 takes 2)
#   module parameters merge_member_io and devices_handle_discard_safely
#   (bools, writable): abc and 2 refused,
#   value unchanged
#   rmmod md-raid5x with a running raid5x array fails; the array stays
#   raid5x and readable; after stopping it, rmmod succeeds.
# timeout: 300
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

bad_scs=(0 15 -1 abc 100000000 "")
# CHECK NAME GOOD BAD...: tunables below stripe_cache_size (README "sysfs
# reference"); CHECK is tap_check for one raid456 has too, r5x_check for
# raid5x's own; SCS_PLUS_1 stands for stripe_cache_size + 1
tunables=("tap_check preread_bypass_threshold 1 -1 abc SCS_PLUS_1"
	"r5x_check preread_batch 8 0 -1 abc SCS_PLUS_1"
	"r5x_check seq_delay_ms 50 -1 1001 abc"
	"r5x_check stall_grace_ms 20 -1 1001 abc"
	"r5x_check stream_confirm 3 0 9 -1 abc"
	"r5x_check wake_batch_pct 50 0 101 abc 5x"
	"r5x_check worker_threads 2 -1 9 abc"
	"r5x_check solo_worker 2 -1 3 abc"
	"tap_check skip_copy 1 -1 abc")
ntun=0
for t in "${tunables[@]}"; do
	read -r -a w <<<"$t"
	ntun=$((ntun + ${#w[@]} - 2))
done
tap_plan $((1 + 2 + ${#bad_scs[@]} + ntun + 4 + 3 + 1))
load_md

read -r -a devs <<<"$(make_members 4 32)"
create_raid5 md0 4 64 left-symmetric "${devs[@]}"
tap_check "takeover to raid5x" to_raid5x md0
lvl=$(md_level md0)
sys=$(md_sys md0)

# refused FILE VALUE: writing VALUE to FILE fails and FILE reads as before.
refused() {
	local before after
	before=$(cat "$1") || return 1
	if sysfs_write "$1" "$2"; then
		note "write of '$2' to ${1##*/} succeeded (now $(cat "$1"))"
		return 1
	fi
	after=$(cat "$1")
	[ "$before" = "$after" ] ||
		{ note "${1##*/} changed from '$before' to '$after'"; return 1; }
}

# accepted FILE VALUE: the write succeeds and FILE reads VALUE.
accepted() {
	sysfs_write "$1" "$2" || { note "write of '$2' to ${1##*/} failed"; return 1; }
	[ "$(cat "$1")" = "$2" ] ||
		{ note "${1##*/} reads '$(cat "$1")' after writing '$2'"; return 1; }
}

tap_check "stripe_cache_size=512 accepted under $lvl" accepted "$sys/stripe_cache_size" 512
tap_check "stripe_cache_size=256 accepted under $lvl" accepted "$sys/stripe_cache_size" 256
for v in "${bad_scs[@]}"; do
	tap_check "stripe_cache_size='$v' refused under $lvl" refused "$sys/stripe_cache_size" "$v"
done

scs=$(cat "$sys/stripe_cache_size")
for t in "${tunables[@]}"; do
	read -r chk name good bad <<<"$t"
	"$chk" "$name=$good accepted under $lvl" accepted "$sys/$name" "$good"
	for v in $bad; do
		[ "$v" = SCS_PLUS_1 ] && v=$((scs + 1))
		"$chk" "$name='$v' refused under $lvl" refused "$sys/$name" "$v"
	done
done
# (geometries and features raid5x refuses: 70-refusals)
for p in merge_member_io devices_handle_discard_safely; do
	for v in abc 2; do
		r5x_check "module parameter $p='$v' refused" \
			refused "/sys/module/md_raid5x/parameters/$p" "$v"
	done
done

dd if=/dev/urandom of=/dev/md0 bs=1M count=8 oflag=direct status=none
h=$(md_md5 md0)

still_raid5x_readable() {
	[ "$(md_level md0)" = raid5x ] ||
		{ note "level is now $(md_level md0)"; return 1; }
	[ "$(md_md5 md0)" = "$h" ] || { note "array content changed"; return 1; }
}
r5x_check "rmmod md-raid5x refused while a raid5x array runs" \
	fails rmmod md-raid5x
r5x_check "array still raid5x and readable after the refused rmmod" \
	still_raid5x_readable
stop_array md0
r5x_check "rmmod md-raid5x succeeds after the array is stopped" rmmod md-raid5x
tap_check "raid456 reassembles the array after rmmod" \
	assemble_raid456 md0 "${devs[@]}"
tap_done
