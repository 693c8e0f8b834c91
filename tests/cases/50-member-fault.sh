#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 50-member-fault: a member fails (mdadm --fail) while fio writes with
# verification: the raid5x array keeps serving, the data verifies (also
# re-read degraded, then under raid456 assembled from the survivors), and
# /proc/mdstat shows the degraded state.
# timeout: 600
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 9
load_md

read -r -a devs <<<"$(make_members 4 40)"
create_raid5 md0 4 64 left-symmetric "${devs[@]}"
tap_check "takeover to raid5x" to_raid5x md0
lvl=$(md_level md0)

cat >/tmp/fault.fio <<JOB
[global]
filename=/dev/md0
verify=crc32c
verify_fatal=1
randrepeat=1
direct=1
ioengine=libaio
iodepth=8

[rand]
rw=randwrite
bsrange=4k-256k
offset=0
size=40M
rate=6m

[seq]
rw=write
bs=192k
offset=40M
size=24M
rate=4m
JOB

fio_verify /tmp/fault.fio &
fio_pid=$!
gl_on_exit "kill $fio_pid 2>/dev/null"
sleep 3
victim=${devs[2]}
tap_check "mdadm --fail $victim during fio under $lvl" \
	mdadm --manage /dev/md0 --fail "$victim"
tap_check "fio write+verify across the member failure under $lvl" wait "$fio_pid"

degraded_state() {
	local line
	line=$(grep -A 2 '^md0 :' /proc/mdstat | tr '\n' ' ')
	note "mdstat: $line"
	[[ $line == *"[4/3]"* ]] && [[ $line == *"_"* ]] && [[ $line == *"(F)"* ]]
}
tap_check "/proc/mdstat shows [4/3] with '_' and (F)" degraded_state
tap_check "array still runs $lvl after the failure" \
	test "$(md_level md0)" = "$lvl"
tap_check "fio verify_only on the degraded $lvl array" \
	fio_verify --verify_only /tmp/fault.fio
tap_check "whole degraded array readable (O_DIRECT)" md_md5 md0

stop_array md0
survivors=("${devs[0]}" "${devs[1]}" "${devs[3]}")
tap_check "assemble degraded under raid456 from the survivors" \
	assemble_raid456 md0 "${survivors[@]}"
tap_check "fio verify_only under raid456 (degraded)" \
	fio_verify --verify_only /tmp/fault.fio
tap_done
