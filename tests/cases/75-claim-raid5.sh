#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 75-claim-raid5: the claim_raid5 module parameter.
#  - off by default: level-5 arrays keep running under raid456;
#  - md-raid5x claim_raid5=1 loaded before raid456: plain `mdadm --level=5`
#    arrays (1.2 and 0.90 metadata) run on raid5x (its sysfs files and
#    counters), with verified data, even with raid456 loaded after it;
#  - the module cannot be unloaded under a running array; once it is gone,
#    raid456 assembles what raid5x wrote: same bytes, parity clean.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 13
load_md
param=/sys/module/md_raid5x/parameters/claim_raid5
tap_check "claim_raid5 is off by default" test "$(cat "$param" 2>/dev/null)" = N

read -r -a devs <<<"$(make_members 4 24)"
sys=/sys/block/md0/md
create_raid5 md0 4 64 left-symmetric "${devs[@]}"
tap_check "default: a level-5 array runs under raid456" test ! -e "$sys/raid5x_stats"
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

rc=0
claim_raid5_load || rc=$?
if [ "$rc" = 2 ]; then
	# 6.14+: md keeps one personality per level; raid5x must refuse
	# rather than take level 5 from raid456 (and raid4/raid6 with it)
	tap_ok "claim_raid5=1 refused on $(uname -r), with its reason in the kernel log"
	create_raid5 md0 4 64 left-symmetric "${devs[@]}"
	tap_check "a level-5 array still runs under raid456" \
		grep -q '^md0 : active raid5 ' /proc/mdstat
	tap_check "... not raid5x" test ! -e "$sys/raid5x_stats"
	stop_array md0
	tap_skip_rest "claim_raid5 is not available on this kernel (6.14+)"
	tap_done
fi
tap_check "md-raid5x and raid456 unloaded, md-raid5x claim_raid5=1 loaded" \
	test "$rc" = 0
tap_check "claim_raid5 reads Y" test "$(cat "$param" 2>/dev/null)" = Y
tap_check "/proc/mdstat lists raid5 served by raid5x" \
	grep -q '\[raid5x\] \[raid5\]' /proc/mdstat

# created as plain raid5 (mdadm sets the level by name for 1.2 metadata)
create_raid5 md0 4 64 left-symmetric "${devs[@]}"
tap_check "1.2 level-5 array runs on raid5x" test -e "$sys/raid5x_stats"
# md_run() asks for md-level-5 before its lookup, so raid456 may get loaded
# here; registered after raid5x, it must not take the array
tap_check "/proc/mdstat names the array raid5, as mdadm expects" \
	grep -q '^md0 : active raid5 ' /proc/mdstat
fio_verify --name=w --filename=/dev/md0 --rw=write --bs=192k --direct=1 \
	--ioengine=libaio --iodepth=8 --size=48M
# shellcheck disable=SC2016 # an awk program
tap_check "writes went through raid5x's stripe cache" \
	test "$(cat "$sys/raid5x_stats/full_stripes")" -gt 0
tap_check_fails "rmmod md-raid5x refused while an array runs on it" rmmod md-raid5x
stop_array md0
wipefs -a "${devs[@]}" >/dev/null

# 0.90 metadata: mdadm passes level NUMBER 5; raid456 now loaded after us
modprobe raid456
mdadm --create /dev/md0 --run --quiet --level=5 --metadata=0.90 \
	--assume-clean --chunk=64 --raid-devices=4 "${devs[@]}"
tap_check "0.90 array runs on raid5x with raid456 loaded after it" \
	test -e "$sys/raid5x_stats"
fio_verify --name=w --filename=/dev/md0 --rw=randwrite --bs=4k-100k \
	--direct=1 --ioengine=libaio --iodepth=16 --size=40M
sum=$(md_md5 md0)
stop_array md0

tap_check "md-raid5x unloads once its arrays are stopped" unload_modules md-raid5x
assemble_raid456 md0 "${devs[@]}"
tap_check "raid456 reads the same bytes raid5x wrote" test "$(md_md5 md0)" = "$sum"
tap_check "raid456 check: parity raid5x wrote is clean" check_parity md0
stop_array md0
tap_done
