#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 76-persist: what docs/sysfs.md tells users about raid5x's attributes.
#  - md/raid5x_stats/: one number per counter file, counters read-only,
#    `echo 1 > reset` zeroes them, anything else is EINVAL;
#  - md/stripe_cache_active and md/stripe_cache_allocated: a number each,
#    a write refused; allocated equals stripe_cache_size on an array
#    never resized;
#  - raid456's attributes raid5x does not have (group_thread_cnt,
#    rmw_level, stripe_size, journal_mode, ppl_write_hint) are absent: a
#    shell redirect to one fails (EACCES, sysfs cannot create a file),
#    reading one is ENOENT;
#  - a value set through sysfs resets on assembly and on takeover (raid456's
#    stripe_cache_size 256 after assembly, raid5x's defaults after the
#    switch);
#  - the documented udev rule (TEST=="md/raid5x_stats") applies values when
#    raid5x runs the array and a change event comes (udevd in the guest);
#    not under raid456;
#  - /etc/modprobe.d options set claim_raid5 at the next modprobe.
# timeout: 600
# guest-args: --bin /usr/bin/udevadm
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 17
load_md
read -r -a devs <<<"$(make_members 4 16)"
sys=/sys/block/md0/md
st=$sys/raid5x_stats
create_raid5 md0 4 64 left-symmetric "${devs[@]}"
tap_check "takeover to raid5x" to_raid5x md0

# raid5x_stats/
all_numbers() {
	local f v n=0
	for f in "$st"/*; do
		[ "${f##*/}" = reset ] && continue
		read -r v <"$f" || return 1
		[[ $v =~ ^[0-9]+$ ]] || { note "${f##*/}: '$v'"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 20 ] || { note "only $n counter files"; return 1; }
}
r5x_check "raid5x_stats/: one number per counter file" all_numbers
dd if=/dev/urandom of=/dev/md0 bs=192k count=64 oflag=direct status=none
r5x_check "writes counted (write_blocks > 0)" test "$(cat "$st/write_blocks")" -gt 0
r5x_check "a counter file is read-only" fails sh -c "echo 5 > $st/write_blocks"
r5x_check "reset accepts only 1 (EINVAL otherwise)" fails sh -c "echo 2 > $st/reset"
zeroed() {
	echo 1 >"$st/reset" || return 1
	r5x_stats md0 | awk '$2 != 0 { print "# " $0; bad = 1 } END { exit bad }'
}
r5x_check "echo 1 > reset zeroes every counter" zeroed

# read-only array attributes
read_only() {
	local a v msg
	for a in stripe_cache_active stripe_cache_allocated; do
		read -r v <"$sys/$a" || { note "$a unreadable"; return 1; }
		[[ $v =~ ^[0-9]+$ ]] || { note "$a: '$v'"; return 1; }
		msg=$( (echo 1 >"$sys/$a") 2>&1) && { note "write to $a succeeded"; return 1; }
		note "$a $v, a write: ${msg##*: }"
	done
	[ "$(cat "$sys/stripe_cache_allocated")" = "$(cat "$sys/stripe_cache_size")" ] ||
		{ note "stripe_cache_allocated $(cat "$sys/stripe_cache_allocated"), stripe_cache_size $(cat "$sys/stripe_cache_size")"; return 1; }
}
r5x_check "stripe_cache_active, stripe_cache_allocated: numbers, writes refused; allocated = stripe_cache_size" read_only

# raid456-only attributes
absent_eacces() {
	local a msg
	for a in group_thread_cnt rmw_level stripe_size journal_mode ppl_write_hint; do
		[ ! -e "$sys/$a" ] || { note "$a exists"; return 1; }
		msg=$( (echo 1 >"$sys/$a") 2>&1) && { note "write to $a succeeded"; return 1; }
		[[ $msg == *"Permission denied"* ]] || { note "$a: $msg"; return 1; }
		msg=$(cat "$sys/$a" 2>&1) && return 1
		[[ $msg == *"No such file"* ]] || { note "$a read: $msg"; return 1; }
	done
}
r5x_check "raid456-only attributes absent: write EACCES, read ENOENT" absent_eacces

# what resets a value
echo 2048 >"$sys/stripe_cache_size"
echo 8 >"$sys/preread_batch"
stop_array md0
mdadm --assemble /dev/md0 --run --quiet "${devs[@]}"
tap_check "assembled by stock mdadm: raid456, stripe_cache_size 256" \
	test "$(md_level md0)/$(cat "$sys/stripe_cache_size")" = raid5/256
echo 512 >"$sys/stripe_cache_size"
to_raid5x md0
r5x_check "takeover: raid5x's defaults (1024, preread_batch 32)" \
	test "$(cat "$sys/stripe_cache_size")/$(cat "$sys/preread_batch")" = 1024/32

# the udev rule of docs/sysfs.md, with udevd running
if command -v udevadm >/dev/null; then
	mkdir -p /etc/udev/rules.d /run/udev
	cat >/etc/udev/rules.d/60-raid5x.rules <<'EOF'
SUBSYSTEM=="block", KERNEL=="md*", ACTION=="add|change", TEST=="md/raid5x_stats", ATTR{md/stripe_cache_size}="4096", ATTR{md/preread_batch}="64"
EOF
	ln -sf "$(command -v udevadm)" /tmp/systemd-udevd
	/tmp/systemd-udevd --daemon >/dev/null 2>&1 || true
	gl_on_exit "udevadm control --exit 2>/dev/null || true"
	udevadm settle -t 10 || true
fi
if ! command -v udevadm >/dev/null || ! udevadm control --ping 2>/dev/null; then
	for i in 1 2 3 4; do
		echo "ok $((GL_TAP_N + i)) - udev step $i # SKIP no udevd in this guest"
	done
	GL_TAP_N=$((GL_TAP_N + 4))
else
	udevadm trigger --action=change /sys/block/md0
	udevadm settle -t 10 || true
	tap_check "udev rule applied on a change event (4096, 64)" \
		test "$(cat "$sys/stripe_cache_size")/$(cat "$sys/preread_batch")" = 4096/64
	stop_array md0
	mdadm --assemble /dev/md0 --run --quiet "${devs[@]}"
	udevadm settle -t 10 || true
	tap_check "under raid456 the rule does not apply (256)" \
		test "$(cat "$sys/stripe_cache_size")" = 256
	to_raid5x md0
	tap_check "after the takeover: defaults until a change event" \
		test "$(cat "$sys/stripe_cache_size")" = 1024
	echo change >/sys/block/md0/uevent
	udevadm settle -t 10 || true
	tap_check "echo change > uevent applies the rule" \
		test "$(cat "$sys/stripe_cache_size")/$(cat "$sys/preread_batch")" = 4096/64
	udevadm control --exit || true
fi
stop_array md0

# modprobe.d
param=/sys/module/md_raid5x/parameters/claim_raid5
mkdir -p /etc/modprobe.d
echo "options md-raid5x claim_raid5=1" >/etc/modprobe.d/raid5x.conf
# reload_says Y|N: modprobe md-raid5x (not loaded), claim_raid5 reads $1
reload_says() {
	local v i=0
	while [ -d /sys/module/md_raid5x ] && [ "$i" -lt 50 ]; do
		gl_nap 0.1
		i=$((i + 1))
	done
	[ ! -d /sys/module/md_raid5x ] || { note "md-raid5x still loaded 5 s after rmmod"; return 1; }
	if ! modprobe md-raid5x; then
		# 6.14+ refuses claim_raid5=1 at load: that refusal is the
		# options file applied
		[ "$1" = Y ] && dmesg | grep -q 'claim_raid5 is not available on this kernel' &&
			{ note "claim_raid5=1 from modprobe.d refused by $(uname -r), as documented"; return 0; }
		return 1
	fi
	v=$(cat "$param") || return 1
	[ "$v" = "$1" ] || { note "claim_raid5=$v; modprobe.d: $(cat /etc/modprobe.d/* 2>&1)"; return 1; }
}
tap_check "rmmod md-raid5x (no array on it)" rmmod md-raid5x
tap_check "modprobe.d options: claim_raid5=Y" reload_says Y
rm /etc/modprobe.d/raid5x.conf
rmmod md-raid5x 2>/dev/null || true
tap_check "without the file: claim_raid5=N" reload_says N
tap_done
