#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2016  # bash -c scripts take their arguments as $1..
# 80-mdadm-raid5x: the patched mdadm (make mdadm, patches/mdadm) creates a
# raid5x array with --level=raid5x, records level=raid5x on the ARRAY line of
# `mdadm --detail --scan`, and `mdadm --assemble --scan` brings it back as
# raid5x; stock mdadm assembles the same array as raid5 with the same bytes;
# without md-raid5x the patched mdadm assembles it as raid5; the common
# mdadm commands (--detail, --examine, --stop, --fail/--remove/--add) work.
# timeout: 900
# guest-args: --file build/mdadm/mdadm:/usr/local/sbin/mdadm-raid5x
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh
tap_plan 25
load_md
P=/usr/local/sbin/mdadm-raid5x   # patched
S=/usr/sbin/mdadm                 # stock Debian mdadm 4.2
CONF=/etc/mdadm/mdadm.conf
mkdir -p /etc/mdadm
mb=$(gl_scaled 40 10)   # members: 40 MiB, smaller on the debug kernel
read -r -a devs <<<"$(make_members 4 "$mb")"
# random member contents: the initial resync has real parity to compute
for d in "${devs[@]}"; do
	dd if=/dev/urandom of="$d" bs=1M count="$mb" status=none
done

is_level() { [ "$(md_level md0)" = "$1" ] || { note "md0 runs '$(md_level md0)', want $1"; return 1; }
	md_mdstat_line md0 | grep -qw "$1" || { note "mdstat: $(md_mdstat_line md0)"; return 1; }; }
detail_says() { "$1" --detail /dev/md0 >/tmp/detail.txt 2>&1 ||
		{ sed 's/^/#   /' /tmp/detail.txt; return 1; }
	grep -qE "Raid Level : $2\$" /tmp/detail.txt || { grep 'Raid Level' /tmp/detail.txt | sed 's/^/# /'; return 1; }; }
examine_says_raid5() {
	if "$1" --examine "${devs[0]}" >/tmp/examine.txt 2>&1 &&
		grep -qE 'Raid Level : raid5$' /tmp/examine.txt; then
		return 0
	fi
	sed 's/^/#   /' /tmp/examine.txt | head -20
	return 1
}
same_md5() { local s; s=$(md_md5 md0) || return 1
	[ "$s" = "$sum" ] || { note "md5 $s != $sum"; return 1; }; }
scan_assemble() { # MDADM: assemble from $CONF; no "unrecognised" warning
	"$1" --assemble --scan --config="$CONF" >/tmp/asm.txt 2>&1
	local rc=$?
	sed 's/^/#   /' /tmp/asm.txt
	[ "$rc" = 0 ] && ! grep -qi unrecognised /tmp/asm.txt; }

tap_check "patched mdadm present and runs" "$P" --version
r5x_check "mdadm --create --level=raid5x (4 members, resync running)" \
	"$P" --create /dev/md0 --run --level=raid5x --metadata=1.2 --chunk=64 \
	--raid-devices=4 "${devs[@]}"
r5x_check "md/level and /proc/mdstat say raid5x" is_level raid5x
r5x_check "mdadm --detail: Raid Level : raid5x" detail_says "$P" raid5x
tap_check "mdadm --examine: superblock says raid5" examine_says_raid5 "$P"
resync_done() { # mdadm creates raid5 degraded + spare: the initial
	# recovery (restarted after the switch) must run to the end
	local t0=$EPOCHREALTIME rs dg
	note "after create: $(md_mdstat_line md0); sync_action $(cat /sys/block/md0/md/sync_action)"
	sleep 2
	wait_idle md0 || return 1
	rs=$(cat /sys/block/md0/md/resync_start)
	dg=$(cat /sys/block/md0/md/degraded)
	note "initial sync under $(md_level md0): $(gl_since "$t0") s, resync_start=$rs degraded=$dg"
	note "$(md_mdstat_line md0)"
	[ "$rs" = none ] && [ "$dg" = 0 ]
}
tap_check "initial sync runs to the end (not degraded)" resync_done
r5x_check "fio write+verify on the raid5x array" fio_verify --name=w \
	--filename=/dev/md0 --direct=1 --rw=randwrite --bs=64k --size=$((mb * 12 / 5))M \
	--ioengine=libaio --iodepth=8
sum=$(md_md5 md0)
note "md5 $sum"
"$P" --detail --scan >"$CONF"
sed 's/^/# conf: /' "$CONF"
r5x_check "mdadm --detail --scan records level=raid5x" grep -q 'level=raid5x' "$CONF"
tap_check "mdadm --stop" "$P" --stop /dev/md0
r5x_check "patched mdadm --assemble --scan: raid5x again" \
	bash -c '"$1" --assemble --scan >/tmp/asm.txt 2>&1; sed "s/^/#   /" /tmp/asm.txt; [ "$(cat /sys/block/md0/md/level)" = raid5x ]' _ "$P"
tap_check "same md5 after reassembly" same_md5
r5x_check "mdadm --fail on raid5x" "$P" /dev/md0 --fail "${devs[3]}"
tap_check "mdadm --remove" "$P" /dev/md0 --remove "${devs[3]}"
wipefs -a -q "${devs[3]}" || true
tap_check "mdadm --add (recovery starts)" \
	bash -c '"$1" /dev/md0 --add "$2" && sleep 1' _ "$P" "${devs[3]}"
wait_idle md0 || true
r5x_check "recovery done under raid5x: [4/4]" \
	bash -c 'grep -q "\[4/4\]" /proc/mdstat && [ "$(cat /sys/block/md0/md/level)" = raid5x ]'
tap_check "same md5 after recovery" same_md5
tap_check "stock mdadm --detail on the raid5x array" "$S" --detail /dev/md0
stop_array md0
tap_check "stock mdadm --assemble --scan (ignores level=raid5x silently)" scan_assemble "$S"
tap_check "stock mdadm: runs as raid5 (raid456)" is_level raid5
tap_check "stock mdadm: same md5" same_md5
tap_check "raid456 parity check: mismatch_cnt 0" check_parity md0
stop_array md0
# without md-raid5x: hide the module file, unload it
ko=$(modinfo -n md-raid5x 2>/dev/null || true)
if [ -n "$ko" ]; then
	mv "$ko" /tmp/md-raid5x.ko.hidden && depmod -a
	rmmod md_raid5x 2>/dev/null || true
fi
tap_check "without md-raid5x: patched --assemble --scan still assembles" \
	bash -c '"$1" --assemble --scan --config="$2" >/tmp/asm.txt 2>&1; rc=$?; sed "s/^/#   /" /tmp/asm.txt; [ $rc = 0 ] || [ -e /sys/block/md0/md/level ]' _ "$P" "$CONF"
raid5_same() { is_level raid5 && same_md5; }
tap_check "without md-raid5x: runs as raid5 with the same md5" raid5_same
if [ -n "$ko" ]; then
	mv /tmp/md-raid5x.ko.hidden "$ko" && depmod -a
fi
stop_array md0

# an internal write-intent bitmap, asked for at creation
tap_check "mdadm --create --level=raid5x --bitmap=internal" \
	"$P" --create /dev/md0 --run --quiet --level=raid5x --metadata=1.2 \
	--chunk=64 --bitmap=internal --assume-clean --raid-devices=4 "${devs[@]}"
tap_check "runs as raid5x with its bitmap" \
	bash -c '[ "$(cat /sys/block/md0/md/level)" = raid5x ] && grep -q "bitmap:" /proc/mdstat'
stop_array md0
tap_done
