#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 66-array-record: scripts/raid5x-array, what keeps an array on raid5x
# across reboots with any release's stock mdadm (issue 26; the udev rule
# contrib/udev/65-md-raid5x.rules runs `raid5x-array udev mdX`, called here
# as udev calls it, with MD_UUID from `mdadm --detail --export`; the real
# udev and boots: scripts/boot-test.sh). Asserts: `add` records md0's UUID
# and switches it, with the initial sync running (it goes on under raid5x, to the
# end, parity checked); after a stop and a stock `mdadm --assemble` (md0 on
# raid456) `udev md0` switches it back, data intact, also when the array is
# auto-read-only (as udev's mdadm --incremental starts it; 6.12 and 7.2 md
# refuse a personality change there: failed on be379d1 in the boot test); an array not recorded
# (md1) is left on raid456, `check` passes; with md-raid5x missing (its
# .ko moved away, as for a module not built for this kernel) `udev md0`
# fails, md0 stays on raid456 with its data,
# the kernel log says why, `check` fails naming md0; `remove` forgets it;
# an `all` line switches md1, but not md2 while it reshapes on raid456
# (README's way round for --raid-devices: left alone, not frozen); bad
# usage exits 2. Fails before
# scripts/raid5x-array existed (the program is missing).
# timeout: 600
# guest-args: --file scripts/raid5x-array:/usr/sbin/raid5x-array
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 14
load_md
ra=/usr/sbin/raid5x-array
export RAID5X_ARRAYS=/tmp/r5x/arrays
[ -x "$ra" ] || chmod +x "$ra" 2>/dev/null || note "$ra is missing"
read -r -a devs <<<"$(make_members 12 "$(gl_scaled 32 16)")"
s0=$(md_sys md0)
ko=""
cleanup() {
	[ -z "$ko" ] || [ ! -e /tmp/md-raid5x.ko.away ] || mv /tmp/md-raid5x.ko.away "$ko"
	return 0
}
gl_on_exit cleanup

# as_udev KNAME: what the rule runs, with the environment 63-md-raid-arrays
# gives it
as_udev() {
	local u
	u=$(mdadm --detail --export "/dev/$1" | sed -n 's/^MD_UUID=//p')
	MD_UUID=$u "$ra" udev "$1"
}
md5() { dd if="/dev/$1" bs=1M count=8 iflag=direct status=none | md5sum | cut -d' ' -f1; }

# md0 created with its initial sync to do (no --assume-clean: mdadm
# builds the last member as a spare, a recovery), slowed so the switch
# lands while it runs
mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 --bitmap=none \
	--chunk=64 --raid-devices=4 "${devs[@]:0:4}" || note "mdadm --create md0 failed"
echo 1000 >"$s0/sync_speed_max"
create_raid5 md1 4 64 left-symmetric "${devs[@]:4:4}"
uuid0=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
act0=$(cat "$s0/sync_action")

# 1-2: add, during the initial sync
rc=$(gl_run /tmp/a.add "$ra" add /dev/md0)
added() {
	[ "$rc" = 0 ] && [ "$(md_level md0)" = raid5x ] &&
		grep -q "^$uuid0 /dev/md0" "$RAID5X_ARRAYS"
}
r5x_check "add: md0 recorded ($uuid0) and switched (status $rc, level $(md_level md0), sync_action was $act0)" added
resumed() {
	case $act0 in resync | recover) [ "$(cat "$s0/sync_action")" = "$act0" ] ;; *) false ;; esac
}
tap_check "the initial sync ($act0) goes on under raid5x (sync_action $(cat "$s0/sync_action"))" resumed
echo 200000 >"$s0/sync_speed_max"
wait_idle md0 300 >/dev/null
dd if=/dev/urandom of=/dev/md0 bs=1M count=8 oflag=direct status=none
sum=$(md5 md0)
r5x_check "initial sync done under raid5x, parity consistent (check: mismatch_cnt 0)" md_check_zero md0

# 4: stop, stock assemble (raid456), then the udev run
stop_array md0
assemble_raid456 md0 "${devs[@]:0:4}" || note "stock assemble failed"
lvl_before=$(md_level md0)
rc=$(gl_run /tmp/a.udev as_udev md0)
udev_switched() {
	[ "$lvl_before" = raid5 ] && [ "$rc" = 0 ] && [ "$(md_level md0)" = raid5x ] &&
		[ "$(md5 md0)" = "$sum" ] && dmesg | grep -q "raid5x-array: md0: switched to raid5x"
}
r5x_check "after stop and stock assemble ($lvl_before), 'udev md0' switches it back, data intact, logged" udev_switched

# 5: an auto-read-only array (as udev's mdadm --incremental starts one):
# md 6.12+ changes the personality of writable arrays only (EROFS)
stop_array md0
assemble_raid456 md0 "${devs[@]:0:4}" || note "stock assemble failed"
echo read-auto >"$s0/array_state" || note "cannot make md0 read-auto"
st_before=$(cat "$s0/array_state")
rc=$(gl_run /tmp/a.ro as_udev md0)
ro_switched() {
	[ "$st_before" = read-auto ] && [ "$rc" = 0 ] && [ "$(md_level md0)" = raid5x ] &&
		[ "$(cat "$s0/array_state")" = read-auto ] && [ "$(md5 md0)" = "$sum" ]
}
r5x_check "a read-auto array ($st_before): 'udev md0' switches it and it is read-auto again (status $rc, $(cat "$s0/array_state")), data intact" ro_switched

# 6-7: md1 is not recorded
rc=$(gl_run /tmp/a.udev1 as_udev md1)
left_alone() { [ "$rc" = 0 ] && [ "$(md_level md1)" = raid5 ]; }
tap_check "'udev md1' (not recorded) leaves md1 on raid456 (status $rc)" left_alone
rc=$(gl_run /tmp/a.check "$ra" check)
check_ok() { [ "$rc" = 0 ] && grep -q "md0: on raid5x" /tmp/a.check && ! grep -q md1 /tmp/a.check; }
r5x_check "check: md0 on raid5x, md1 not its business (status $rc)" check_ok

# 8-10: md-raid5x missing (its .ko moved away: modprobe, and md's
# request_module, fail as for a module not built for this kernel)
stop_array md0
unload_modules md-raid5x || note "md-raid5x still loaded"
ko=$(modinfo -n md-raid5x 2>/dev/null)
if [ -n "$ko" ]; then mv "$ko" /tmp/md-raid5x.ko.away; else note "md-raid5x.ko not found"; fi
assemble_raid456 md0 "${devs[@]:0:4}" || note "stock assemble failed"
rc=$(gl_run /tmp/a.refused as_udev md0)
refused() {
	[ "$rc" = 1 ] && [ "$(md_level md0)" = raid5 ] && [ "$(md5 md0)" = "$sum" ] &&
		grep -q "md0: cannot switch to raid5x: modprobe md-raid5x failed" /tmp/a.refused
}
tap_check "module missing: 'udev md0' fails, md0 stays on raid456 with its data (status $rc, level $(md_level md0))" refused
tap_check "the kernel log says why (journalctl -k sees it)" \
	sh -c 'dmesg | grep -q "raid5x-array: md0: cannot switch to raid5x: modprobe md-raid5x failed"'
rc=$(gl_run /tmp/a.check2 "$ra" check)
check_fails() { [ "$rc" = 1 ] && grep -q "md0: recorded in .* but running on raid456" /tmp/a.check2; }
tap_check "check fails, naming md0 (status $rc)" check_fails
[ -z "$ko" ] || mv /tmp/md-raid5x.ko.away "$ko"
modprobe md-raid5x || note "modprobe md-raid5x failed"

# 11: remove
rc=$(gl_run /tmp/a.rm "$ra" remove /dev/md0)
rc2=$(gl_run /tmp/a.udev2 as_udev md0)
removed() {
	[ "$rc" = 0 ] && [ "$rc2" = 0 ] && ! grep -q "$uuid0" "$RAID5X_ARRAYS" &&
		[ "$(md_level md0)" = raid5 ]
}
tap_check "remove: md0 forgotten, 'udev md0' then leaves it on raid456 (status $rc, $rc2)" removed

# 12: an `all` line
echo all >>"$RAID5X_ARRAYS"
rc=$(gl_run /tmp/a.all as_udev md1)
all_line() { [ "$rc" = 0 ] && [ "$(md_level md1)" = raid5x ]; }
r5x_check "an 'all' line: 'udev md1' switches md1 (status $rc, level $(md_level md1))" all_line

# 13: a reshape on raid456 (README's way round for --raid-devices) is
# left alone: not frozen, not switched
mdadm --create /dev/md2 --run --quiet --level=5 --metadata=1.2 --bitmap=none \
	--assume-clean --chunk=64 --raid-devices=3 "${devs[@]:8:3}" || note "mdadm --create md2 failed"
s2=$(md_sys md2)
echo 500 >"$s2/sync_speed_max"
mdadm /dev/md2 --add "${devs[11]}" >/dev/null 2>&1 || note "cannot add a spare to md2"
mdadm --grow /dev/md2 --raid-devices=4 >/tmp/a.grow 2>&1 || note "mdadm --grow md2: $(cat /tmp/a.grow)"
gl_nap 1
act2=$(cat "$s2/sync_action")
rc=$(gl_run /tmp/a.reshape as_udev md2)
reshape_left() {
	[ "$act2" = reshape ] && [ "$rc" = 1 ] && [ "$(md_level md2)" = raid5 ] &&
		[ "$(cat "$s2/sync_action")" = reshape ] && grep -q "md2: a reshape is in progress" /tmp/a.reshape
}
tap_check "an 'all' line and md2 reshaping on raid456 ($act2): 'udev md2' leaves it, reshape going on (status $rc, $(cat "$s2/sync_action"))" reshape_left
echo 200000 >"$s2/sync_speed_max"
wait_idle md2 300 >/dev/null
stop_array md2

# 14: bad usage
rc=$(gl_run /tmp/a.bad "$ra" frobnicate)
rc2=$(gl_run /tmp/a.bad2 "$ra" add)
bad_usage() { [ "$rc" = 2 ] && [ "$rc2" = 2 ] && grep -q "unknown command" /tmp/a.bad; }
tap_check "an unknown command and add without an array exit 2 (status $rc, $rc2)" bad_usage

stop_array md0
stop_array md1
tap_done
