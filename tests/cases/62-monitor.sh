#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 62-monitor: `mdadm --monitor` reports a raid5x array's events as it does
# raid456's, in the same boot: a monitor (--delay 1, --program writing each
# event to a file) watches the array while a member fails, is removed, and
# a spare is added and rebuilt. The events seen on raid5x (Fail,
# DegradedArray or the rebuild's, RebuildFinished, SpareActive) must be
# the ones raid456's array gave (progress events RebuildNN aside: they
# depend on the rebuild's speed); `--oneshot` on a degraded array says
# DegradedArray for both. The rebuild is held at 5 MB/s (md/sync_speed_min
# and max) on both arrays so that it lasts several of the monitor's 1 s
# polls: at full speed raid5x's rebuild of these small members could start
# and end between two polls, and the monitor then reports neither
# RebuildStarted nor RebuildFinished (CI on 7.2 once saw just that).
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 6
load_md
read -r -a devs <<<"$(make_members 5 "$(gl_scaled 32 16)")"
cat >/tmp/ev.sh <<'EOF'
#!/bin/sh
echo "$1 $2 $3" >>/tmp/events
EOF
chmod +x /tmp/ev.sh
mon=""
cleanup() {
	[ -z "$mon" ] || kill "$mon" 2>/dev/null
	[ -e /dev/md0 ] && mdadm --stop /dev/md0 >/dev/null 2>&1
	return 0
}
gl_on_exit cleanup

# has LIST WORD...: the event list has every WORD
has() {
	local l=" $1 " w
	shift
	for w; do [[ $l == *" $w "* ]] || return 1; done
}

# array_up PERS: a fresh md0 on the first four members, run by PERS, and
# no event recorded yet
array_up() {
	: >/tmp/events
	create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}" || return 1
	[ "$1" = raid5 ] || to_raid5x md0
}
# array_down: md0 stopped, the members blank again; print the event names
# seen for md0, sorted, unique (RebuildNN, progress at 20% steps, left out:
# it depends on the rebuild's speed)
array_down() {
	local d
	mdadm --stop /dev/md0 >/dev/null 2>&1
	for d in "${devs[@]}"; do mdadm --zero-superblock "$d" 2>/dev/null; done
	awk '$2 == "/dev/md0" && $1 !~ /^Rebuild[0-9]/ { print $1 }' /tmp/events |
		sort -u | tr '\n' ' '
}

# events PERS: what a monitor saw while a member failed and a spare rebuilt
events() {
	array_up "$1" || return 1
	mdadm --monitor --delay=1 --program=/tmp/ev.sh /dev/md0 >/dev/null 2>&1 &
	mon=$!
	sleep 2
	mdadm /dev/md0 --fail "${devs[1]}" >/dev/null 2>&1
	sleep 3
	mdadm /dev/md0 --remove "${devs[1]}" >/dev/null 2>&1
	wipefs -a "${devs[4]}" >/dev/null 2>&1 || true
	echo 5000 >"$(md_sys md0)/sync_speed_min"
	echo 5000 >"$(md_sys md0)/sync_speed_max"
	mdadm /dev/md0 --add "${devs[4]}" >/dev/null 2>&1
	wait_rebuilt md0 300 >/dev/null
	sleep 3
	kill "$mon" 2>/dev/null
	wait "$mon" 2>/dev/null
	mon=""
	array_down
}
e5=$(events raid5)
note "raid456: $e5"
tap_check "raid456's array: the monitor saw Fail and RebuildFinished" \
	has "$e5" Fail RebuildFinished
ex=$(events raid5x)
note "raid5x: $ex"
r5x_check "raid5x's array: the monitor saw Fail and RebuildFinished" \
	has "$ex" Fail RebuildFinished
r5x_check "raid5x's events are raid456's ($ex)" test "$ex" = "$e5"

# --oneshot on a degraded array
oneshot() {
	array_up "$1" || return 1
	mdadm /dev/md0 --fail "${devs[2]}" >/dev/null 2>&1
	mdadm --monitor --oneshot --program=/tmp/ev.sh /dev/md0 >/dev/null 2>&1
	array_down
}
o5=$(oneshot raid5)
ox=$(oneshot raid5x)
note "oneshot raid456: $o5; raid5x: $ox"
tap_check "raid456: --oneshot says DegradedArray" has "$o5" DegradedArray
r5x_check "raid5x: --oneshot says DegradedArray" has "$ox" DegradedArray
r5x_check "raid5x's --oneshot events are raid456's ($ox)" test "$ox" = "$o5"
tap_done
