#!/bin/bash
# boot-test-guest.sh: the guest side of scripts/boot-test.sh, installed in
# the booted root as /usr/local/sbin/bt-guest and run by bt-guest.service
# at boot. Runs the phase named by boottest.phase= on the kernel command
# line (setup, reboot, grow, missing: scripts/boot-test.sh says what each
# checks) and prints BT-INFO/BT-CMD/BT-OUT/BT-CHECK/BT-END lines on ttyS0.
# shellcheck disable=SC2016 # single-quoted sh -c scripts expand in the child
set -u
phase=$(sed -n 's/.*boottest\.phase=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
kv=$(uname -r)
src=/usr/src/raid5x-0.1
info() { echo "BT-INFO: $*"; }
# check DESC CMD...: a BT-CHECK line, pass or fail
check() {
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "BT-CHECK: pass: $d"
	else
		echo "BT-CHECK: fail: $d"
	fi
}
show() {
	echo "BT-CMD: $*"
	"$@" 2>&1 | sed 's/^/BT-OUT: /'
}
# wait_for S CMD...: poll CMD every second, at most S s
wait_for() {
	local s=$1 i
	shift
	for ((i = 0; i < s; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}
uuid=5a1d0b00:7e575a1d:00000000:00000026
# the array, whatever name it was assembled under
find_md() {
	local p k
	for p in /sys/block/md*; do
		[ -e "$p/md/array_state" ] || continue
		k=${p##*/}
		mdadm --detail --export "/dev/$k" 2>/dev/null | grep -qx "MD_UUID=$uuid" &&
			{ echo "$k"; return 0; }
	done
	return 1
}
md=$(find_md || echo md0)
S=/sys/block/$md/md
level() { cat "$S/level" 2>/dev/null; }
on_raid5x() { [ "$(level)" = raid5x ] && [ -d "$S/raid5x_stats" ]; }
on_raid456() { [ "$(level)" = raid5 ] && [ ! -d "$S/raid5x_stats" ] && [ -e "$S/stripe_cache_size" ]; }
idle() { [ "$(cat "$S/sync_action")" = idle ]; }
# settled_on_raid5x: the sync md started has ended (15 min at most) and
# the array is still on raid5x
settled_on_raid5x() { wait_for 900 idle && [ "$(level)" = raid5x ]; }
rebuilt_on_raid5x() { settled_on_raid5x && [ "$(cat "$S/degraded")" = 0 ]; }
md_check0() {
	wait_for 600 idle || return 1
	echo check >"$S/sync_action" || return 1
	sleep 1
	wait_for 600 idle || return 1
	info "check on $md: mismatch_cnt $(cat "$S/mismatch_cnt")"
	[ "$(cat "$S/mismatch_cnt")" = 0 ]
}
mnt() { mountpoint -q /mnt || mount "/dev/$md" /mnt; }
data_ok() { mnt && [ "$(md5sum </mnt/keep.bin | cut -d' ' -f1)" = "$(cat /root/bt.md5)" ]; }
# the journal's lines with their identifiers (kmsg lines written by a
# program, as "raid5x-array: mdX: ...", get it as their identifier)
jgrep() { journalctl -b -o short-monotonic --no-pager | grep -qE "$1"; }

info "phase $phase, kernel $kv, up $(cut -d' ' -f1 /proc/uptime) s, clock $(date -u +%FT%TZ), array $md"
show dpkg-query -W "linux-image-$kv" mdadm dkms systemd udev linux-source
show dkms status
show cat /proc/mdstat
case $phase in
setup)
	check "modinfo finds md-raid5x.ko installed by DKMS under updates/" \
		sh -c "modinfo -n md-raid5x | grep -q /updates/"
	check "DKMS signed it (modinfo names a signer: $(modinfo -F signer md-raid5x 2>/dev/null))" \
		sh -c '[ -n "$(modinfo -F signer md-raid5x)" ]'
	# README: the tools, then TRIM's switch
	show make -C "$src" install-tools
	check "make install-tools: raid5x-scrub.timer enabled" systemctl is-enabled raid5x-scrub.timer
	check "make install-tools: raid5x-arrays.service enabled" systemctl is-enabled raid5x-arrays.service
	check "make install-tools: the udev rule installed" test -e /etc/udev/rules.d/65-md-raid5x.rules
	echo "options md-raid5x devices_handle_discard_safely=Y" >/etc/modprobe.d/raid5x.conf
	# docs/sysfs.md's tuning rule, as written there
	cat >/etc/udev/rules.d/60-raid5x.rules <<'RULE'
SUBSYSTEM=="block", KERNEL=="md*", ACTION=="add|change", TEST=="md/raid5x_stats", \
  ATTR{md/stripe_cache_size}="4096"
RULE
	show mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
		--assume-clean --uuid="$uuid" /dev/vdb /dev/vdc /dev/vdd /dev/vde
	md=md0 S=/sys/block/md0/md
	check "stock mdadm --create --level=5: md0 runs on raid456" on_raid456
	show raid5x-array add /dev/md0
	check "raid5x-array add /dev/md0: md0 on raid5x, recorded in /etc/raid5x/arrays" \
		sh -c "grep -q '^$uuid' /etc/raid5x/arrays && [ \"\$(cat $S/level)\" = raid5x ]"
	info "discard_max_bytes $(cat /sys/block/md0/queue/discard_max_bytes), discard_granularity $(cat /sys/block/md0/queue/discard_granularity)"
	check "devices_handle_discard_safely=Y: md0 advertises discard" \
		sh -c '[ "$(cat /sys/block/md0/queue/discard_max_bytes)" -gt 0 ]'
	# not appended to mdadm.conf: that wants update-initramfs -u, minutes
	# under TCG; the array comes back as md127, found by its UUID
	show mdadm --detail --scan
	show mdadm --detail /dev/md0
	show raid5x-array list
	show mkfs.ext4 -q -F /dev/md0
	# mounted at boot, as on a server (a mounted array is writable: an
	# unused one stays auto-read-only, which checkarray and raid5x-scrub
	# skip, for raid456 as for raid5x)
	echo "UUID=$(blkid -o value -s UUID /dev/md0) /mnt ext4 defaults,nofail 0 2" >>/etc/fstab
	mnt
	dd if=/dev/urandom of=/mnt/keep.bin bs=1M count=32 status=none
	md5sum </mnt/keep.bin | cut -d' ' -f1 >/root/bt.md5
	dd if=/dev/urandom of=/mnt/trim.bin bs=1M count=48 status=none
	sync
	umount /mnt
	check "ext4 on md0: the 32 MiB file reads back after a remount" data_ok
	umount /mnt
	check "check on raid5x: mismatch_cnt 0" md_check0
	;;
reboot)
	show sh -c 'journalctl -b -o short-monotonic --no-pager | grep -E "raid5x|md0|md12|mdadm" | head -n 40'
	check "the array is back on raid5x ($md, switched at boot)" on_raid5x
	check "the journal has raid5x-array's line: switched to raid5x" jgrep "raid5x-array: $md: switched to raid5x"
	check "raid5x-arrays.service is active (not failed)" systemctl is-active raid5x-arrays.service
	check "docs/sysfs.md's udev tuning rule applied after the switch (stripe_cache_size $(cat "$S/stripe_cache_size"))" \
		sh -c "[ \"\$(cat $S/stripe_cache_size)\" = 4096 ]"
	check "the 32 MiB file reads back" data_ok
	info "array_state $(cat "$S/array_state"); /mnt mounted at boot: $(findmnt -n -o SOURCE /mnt)"
	# the scrub, started by its timer: the clock was set 2 min before it
	show systemctl list-timers raid5x-scrub.timer --no-pager
	# two runs: Persistent=true catches up the elapse the clock jumped over
	# (at boot), then the elapse itself at 01:00:00
	check "raid5x-scrub.timer starts the check by itself (journal: check started)" \
		wait_for 400 jgrep "raid5x-scrub.*$md: check started"
	sched() { journalctl -b --since "$(date -u +%F) 01:00:00" -o short-monotonic --no-pager | grep -qE "raid5x-scrub.*$md: check started"; }
	check "... and again at the timer's scheduled elapse, first Sunday 01:00 (journal since 01:00:00)" \
		wait_for 400 sched
	info "sync_action after the timer fired: $(cat "$S/sync_action")"
	check "the scrub ends and logs mismatch_cnt 0" \
		wait_for 600 jgrep "raid5x-scrub.*$md: check ended, mismatch_cnt 0"
	show sh -c 'journalctl -b -o short-monotonic --no-pager -u raid5x-scrub.service | tail -n 8'
	check "the scrub ran a check on $md (last_sync_action check)" \
		sh -c "[ \"\$(cat $S/last_sync_action)\" = check ]"
	# TRIM
	rm -f /mnt/trim.bin
	sync
	show fstrim -v /mnt
	check "fstrim on ext4 over raid5x succeeds" fstrim /mnt
	sync
	check "after fstrim: check mismatch_cnt 0" md_check0
	check "after fstrim: the 32 MiB file reads back" data_ok
	show raid5x-array list
	umount /mnt
	;;
grow)
	check "the array is back on raid5x ($md)" on_raid5x
	cs0=$(cat "$S/component_size")
	show mdadm --grow "/dev/$md" --size=max
	cs1=$(cat "$S/component_size")
	info "component_size $cs0 -> $cs1 KiB"
	check "mdadm --grow --size=max on raid5x: component size $cs0 -> $cs1 KiB" \
		test "$cs1" -gt "$cs0"
	check "the new region resynced under raid5x (sync ends, still raid5x)" \
		settled_on_raid5x
	check "after the grow: check mismatch_cnt 0" md_check0
	check "after the grow: the 32 MiB file reads back" data_ok
	show resize2fs "/dev/$md"
	check "after the grow: e2fsck clean" sh -c "umount /mnt; e2fsck -fn /dev/$md"
	show mdadm "/dev/$md" --add /dev/vdf
	echo "BT-CMD: mdadm --grow /dev/$md --raid-devices=5"
	out=$(mdadm --grow "/dev/$md" --raid-devices=5 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/BT-OUT: /'
	show sh -c "dmesg | grep 'md/raid5x' | tail -n 3"
	check "--grow --raid-devices=5 refused, raid5x's message in the kernel log" \
		sh -c "[ $rc != 0 ] && dmesg | grep -q 'md/raid5x:$md: cannot reshape'"
	check "the array still runs on raid5x, 4 members" \
		sh -c "[ \"\$(cat $S/level)\" = raid5x ] && [ \"\$(cat $S/raid_disks)\" = 4 ]"
	show mdadm "/dev/$md" --remove /dev/vdf
	# a failed member: mdmonitor (started by udev for the array) and
	# mdadm --monitor --oneshot
	show systemctl status mdmonitor.service --no-pager
	show mdadm "/dev/$md" --fail /dev/vde
	# mdadm --monitor mails root (MAILADDR root in Debian's mdadm.conf;
	# Debian's exim delivers root's mail to /var/mail/mail unless root has
	# an alias); with no MTA (minimal trixie, forky) mdadm logs the event
	fail_mailed() { grep -qsE "Fail event (detected|had been detected) on md device" /var/mail/* || jgrep "Fail event detected on md device"; }
	check "the mdmonitor service reports the Fail event (mail to root, else the journal)" wait_for 180 fail_mailed
	show sh -c 'tail -n 3 /var/log/exim4/mainlog 2>&1; grep -sE "^Subject|event detected" /var/mail/* | tail -n 4'
	info "Fail event: in /var/mail $(cat /var/mail/* 2>/dev/null | grep -c 'Fail event') times, in the journal $(journalctl -b --no-pager | grep -c 'Fail event detected') times; sendmail: $(command -v sendmail || echo none)"
	printf '#!/bin/sh\necho "$*" >>/root/bt-events\n' >/root/bt-event
	chmod 755 /root/bt-event
	rm -f /root/bt-events
	show mdadm --monitor --scan --oneshot --program=/root/bt-event
	show cat /root/bt-events
	check "mdadm --monitor --oneshot reports DegradedArray" grep -q "^DegradedArray /dev/" /root/bt-events
	show mdadm "/dev/$md" --remove /dev/vde
	show mdadm "/dev/$md" --add /dev/vde
	sleep 2
	check "the member rebuilds under raid5x" \
		rebuilt_on_raid5x
	check "after the rebuild: check mismatch_cnt 0" md_check0
	check "after the rebuild: the 32 MiB file reads back" data_ok
	umount /mnt
	;;
missing)
	show sh -c 'journalctl -b -o short-monotonic --no-pager | grep -E "raid5x|md/raid" | head -n 20'
	check "module refused: the array runs on raid456 ($md)" on_raid456
	check "the 32 MiB file reads back" data_ok
	check "the kernel log says why: raid5x-array: $md: cannot switch to raid5x" \
		jgrep "raid5x-array: $md: cannot switch to raid5x"
	show systemctl status raid5x-arrays.service --no-pager
	check "raid5x-arrays.service failed (systemctl --failed shows it)" \
		sh -c '[ "$(systemctl is-failed raid5x-arrays.service)" = failed ]'
	umount /mnt
	;;
*) info "unknown phase '$phase'" ;;
esac
sync
echo "BT-END: $phase at $(cut -d' ' -f1 /proc/uptime) s"
