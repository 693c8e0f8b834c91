#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# batch-guest.sh: run several test cases in one guest boot (tests/run.sh
# installs it as /run.sh; the cases are in /cases/).
#
# usage (in the guest): /run.sh NAME:TIMEOUT...
#
# Each case runs as its own bash process (its guest-lib cleanup trap stops
# its arrays, dm devices and loop devices), under `timeout`. Between cases
# this script puts the guest back to the state /init left it in: no md, dm
# or loop devices, nothing mounted under /mnt, /tmp empty, md-raid5x
# unloaded, md's speed limits and fail_make_request at their defaults,
# raid456 and loop loaded.
#
# Console protocol, per case, parsed by tests/run.sh:
#   GUEST-CASE-BEGIN: NAME
#   ... the case's output (KTAP) ...
#   @@CASE-DMESG-BEGIN@@
#   ... the kernel log written during the case (dmesg -c) ...
#   @@CASE-DMESG-END@@
#   GUEST-CASE-END: NAME rc=N secs=S
# (a case killed at its timeout ends with rc 143 or 137 and secs >= TIMEOUT).
# A case that never prints its END
# line took the guest down (panic, hung task): tests/run.sh reruns the
# cases after it one boot each.
# The exit status is 0 if every case exited 0.

# reset_guest: undo what a case may have left behind.
reset_guest() {
	local m
	for m in /mnt/*; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	# the case's own trap did this unless it was killed at its timeout
	(
		# shellcheck source=guest-lib.sh
		. /lib/guest-lib.sh
		trap - EXIT ERR
		gl_teardown
	)
	cd / && rm -rf /tmp/* /tmp/.[!.]* 2>/dev/null
	cd /tmp || return 1
	modprobe -r md-raid5x 2>/dev/null
	echo 1000 >/proc/sys/dev/raid/speed_limit_min
	echo 200000 >/proc/sys/dev/raid/speed_limit_max
	if [ -d /sys/kernel/debug/fail_make_request ]; then
		echo 0 >/sys/kernel/debug/fail_make_request/probability
		echo 1 >/sys/kernel/debug/fail_make_request/times
	fi
	for m in crc32c_generic libcrc32c md_mod raid456 loop; do
		modprobe "$m" 2>/dev/null
	done
	echo 3 >/proc/sys/vm/drop_caches
}

st=0
dmesg -c >/dev/null
for spec in "$@"; do
	name=${spec%%:*} tmo=${spec#*:}
	echo "GUEST-CASE-BEGIN: $name"
	t0=$EPOCHREALTIME
	rc=0
	(cd /tmp && exec timeout -k 10 "$tmo" bash "/cases/$name.sh") || rc=$?
	t1=$EPOCHREALTIME
	reset_guest
	echo "@@CASE-DMESG-BEGIN@@"
	dmesg -c
	echo "@@CASE-DMESG-END@@"
	echo "GUEST-CASE-END: $name rc=$rc secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
	[ "$rc" = 0 ] || st=1
done
exit "$st"
