#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 70-refusals: raid5x takes only what it can run, and never an array the
# user did not hand to it.
#  - with raid5x loaded first, new 0.90 and 1.2 level-5 arrays still run
#    under raid456 (md matches 0.90 arrays by level number);
#  - takeover of a geometry raid5x cannot run is refused with a kernel
#    message naming the reason, and the array keeps running as it was;
#  - the personality of other tunables (raid5x-only sysfs files) is absent
#    under raid456 and present under raid5x.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 16
load_md
modprobe md-raid5x 2>/dev/null || true
tap_check "md-raid5x registered before any array exists" grep -q '\[raid5x\]' /proc/mdstat

read -r -a devs <<<"$(make_members 4 24)"
sys=/sys/block/md0/md

mdadm --create /dev/md0 --run --quiet --level=5 --metadata=0.90 --assume-clean \
	--raid-devices=3 "${devs[@]:0:3}"
tap_check "0.90 level-5 array runs under raid456 with raid5x loaded" test "$(md_level md0)" = raid5
stop_array md0
wipefs -a "${devs[@]}" >/dev/null
create_raid5 md0 3 64 left-symmetric "${devs[@]:0:3}"
tap_check "1.2 level-5 array runs under raid456 with raid5x loaded" test "$(md_level md0)" = raid5
tap_check "raid5x-only attribute absent under raid456" test ! -e "$sys/seq_delay_ms"
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

# refused(name, dmesg-reason): takeover fails, level unchanged, message logged
refused() {
	local name=$1 reason=$2 before mark
	before=$(md_level md0)
	mark=$(dmesg | wc -l)
	if echo raid5x >"$sys/level" 2>/dev/null; then
		tap_not_ok "$name: takeover refused" "level is now $(md_level md0)"
	else
		tap_ok "$name: takeover refused"
	fi
	tap_check "$name: message names the reason" sh -c \
		"dmesg | tail -n +$((mark + 1)) | grep -q 'md/raid5x:md0: $reason'"
	tap_check "$name: array still runs as $before and serves I/O" sh -c \
		"test \"\$(cat $sys/level)\" = '$before' && dd if=/dev/urandom of=/dev/md0 bs=64k count=4 oflag=direct 2>/dev/null && dd if=/dev/md0 of=/dev/null bs=64k count=4 iflag=direct 2>/dev/null"
}

mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 --assume-clean \
	--raid-devices=3 "${devs[@]:0:3}" --write-journal "${devs[3]}"
refused "write journal" "cannot run array: arrays with a write journal"
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

mdadm --create /dev/md0 --run --quiet --level=5 --metadata=1.2 --assume-clean \
	--bitmap=none --raid-devices=2 "${devs[@]:0:2}"
refused "2-member raid5" "cannot run array: member count must be 3"
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

mdadm --create /dev/md0 --run --quiet --level=4 --metadata=1.2 --assume-clean \
	--bitmap=none --raid-devices=3 "${devs[@]:0:3}"
refused "raid4 array" "cannot take over level 4: only level-5 arrays"
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

mdadm --create /dev/md0 --run --quiet --level=6 --metadata=1.2 --assume-clean \
	--bitmap=none --raid-devices=4 "${devs[@]:0:4}"
tap_check_fails "raid6 array: takeover refused" sh -c "echo raid5x > $sys/level"
tap_check "raid6 array: still raid6" test "$(md_level md0)" = raid6
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

tap_check "no kernel warnings" sh -c "! dmesg | grep -qE 'WARNING:|BUG:'"
tap_done
