#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 52-read-errors: a member that cannot read some blocks stays in the array.
# One member is an md "faulty" device in read-fixable mode (every Nth read
# fails, and keeps failing until the sector is written: a disk with latent
# sector errors that remaps on write).  raid5x must return the right data,
# rebuilt from parity, write it back (md's corrected-errors count, dev-*/errors),
# and keep the member - until more than max_read_errors have been seen, when
# md fails it.  Blocks in md's bad-block list are never read: they are
# rebuilt the same way and the write-back clears them from the list.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

load_md
modprobe faulty 2>/dev/null || true
if ! grep -q '\[faulty\]' /proc/mdstat; then
	# the debug kernel has no CONFIG_MD_FAULTY; 85-dm-faults injects read
	# errors there with fail_make_request
	tap_plan 1
	tap_ok "read errors # SKIP md faulty personality not in this kernel"
	tap_done
fi
tap_plan 17
read -r -a devs <<<"$(make_members 4 40)"
sys=/sys/block/md0/md
mdadm --build /dev/md9 --run --quiet --level=faulty --raid-devices=1 "${devs[3]}"
create_raid5 md0 4 64 left-symmetric "${devs[@]:0:3}" /dev/md9
tap_check "takeover to raid5x" to_raid5x md0

counter() { cat "$sys/raid5x_stats/$1"; }
md5_of() { dd if=/dev/md0 bs=1M count="$1" iflag=direct status=none | md5sum | cut -d' ' -f1; }

dd if=/dev/urandom of=/tmp/data bs=1M count=64 status=none
dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
want=$(md5sum </tmp/data | cut -d' ' -f1)

# phase 1: latent read errors, corrected
echo 1000 >"$sys/max_read_errors"
mdadm --grow /dev/md9 --layout=rf16 >/dev/null
echo 3 >/proc/sys/vm/drop_caches
tap_check "reads return the right data while a member has read errors" \
	test "$(md5_of 64)" = "$want"
nerr=$(counter read_errors)
ncor=$(counter corrected)
note "read_errors=$nerr corrected=$ncor dev-md9/errors=$(cat "$sys/dev-md9/errors")"
# a direct read that failed went through the cache again: its statistics
# must still end (6.1: raid5x ends them at the failure)
inflight0() {
	local r w
	read -r r w </sys/block/md0/inflight || return 1
	if [ "$r" != 0 ] || [ "$w" != 0 ] || [ "$(counter aligned_retries)" -le 0 ]; then
		note "md0 inflight '$r $w', aligned_retries $(counter aligned_retries)"
		return 1
	fi
}
tap_check "failed direct reads were retried, and md0 has nothing in flight after them" inflight0
tap_check "read errors were hit" test "${nerr:-0}" -gt 0
tap_check "every one was rebuilt and written back" test "$ncor" = "$nerr"
tap_check "md counts the corrected sectors (dev-md9/errors)" \
	test "$(cat "$sys/dev-md9/errors")" = $((ncor * 8))
tap_check "the member stays in sync" grep -qx in_sync "$sys/dev-md9/state"
mdadm --grow /dev/md9 --layout=clear >/dev/null
tap_check "written-back blocks read fine once the member heals" \
	test "$(md5_of 64)" = "$want"

# phase 2: writes and reads together while errors keep coming
mdadm --grow /dev/md9 --layout=rf7 >/dev/null
tap_check "fio verify (mixed random I/O) across read errors" fio_verify \
	--name=mix --filename=/dev/md0 --rw=randrw --rwmixread=50 \
	--bsrange=4k-200k --direct=1 --ioengine=libaio --iodepth=16 \
	--size=48M --randrepeat=1
mdadm --grow /dev/md9 --layout=clear >/dev/null
tap_check "member still in sync after the mixed run" grep -qx in_sync "$sys/dev-md9/state"
echo check >"$sys/sync_action"
wait_idle md0
tap_check "raid5x check: parity consistent" test "$(cat "$sys/mismatch_cnt")" = 0

# phase 3: md's bad-block list is honoured on reads
dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
echo "4096 8" >"$sys/dev-${devs[1]##*/}/bad_blocks"
before=$(counter read_errors)
echo 3 >/proc/sys/vm/drop_caches
tap_check "data right around a listed bad block" test "$(md5_of 64)" = "$want"
tap_check "the bad block was rebuilt, not read" test "$(counter read_errors)" -gt "$before"
tap_check "the write-back cleared it from the list" \
	test -z "$(cat "$sys/dev-${devs[1]##*/}/bad_blocks")"

# phase 4: a member that keeps failing is failed by md
echo 3 >"$sys/max_read_errors"
echo 0 >"$sys/dev-md9/errors" 2>/dev/null || true
mdadm --grow /dev/md9 --layout=rf3 >/dev/null
echo 3 >/proc/sys/vm/drop_caches
tap_check "data still right as the member is failed" test "$(md5_of 64)" = "$want"
tap_check "past max_read_errors the member is faulty" \
	grep -q faulty "$sys/dev-md9/state"
mdadm --grow /dev/md9 --layout=clear >/dev/null
tap_check "degraded array reads the same bytes" test "$(md5_of 64)" = "$want"
stop_array md0
mdadm --stop /dev/md9 >/dev/null
tap_done
