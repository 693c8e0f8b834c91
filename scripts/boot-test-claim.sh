#!/usr/bin/env bash
# boot-test-claim.sh: claim_raid5 in the initramfs. Boot a real Debian 12 system in QEMU (Debian's 6.1 kernel,
# an initramfs made by Debian's update-initramfs, systemd, udev, Debian's
# mdadm) with md-raid5x installed by DKMS as README.md says, and check what
# README's "Install on a server", "The initramfs" and "After a reboot"
# claim.
#
# usage: scripts/boot-test-claim.sh [--root-only] [--keep] [--timeout S]
#
#   --root-only   only build (or refresh) the cached root and its initrds
#   --keep        keep the scratch directory (disk images, console logs)
#   --timeout S   limit of each QEMU boot in seconds (default 900)
#
# Steps (all as root; the host's apt configuration is never touched):
#  1. debootstrap bookworm into $BOOTTEST_CACHE/root (default
#     /var/cache/raid5x/boot-test-claim; cached), install linux-image-amd64,
#     initramfs-tools, systemd-sysv, udev, e2fsprogs and README's package
#     line with apt inside the root, copy this tree (git archive HEAD) to
#     /usr/src/raid5x-0.1 and run `dkms add` and `dkms install -k KVER`
#     inside it (a private mount namespace with /proc, /sys, /dev).
#  2. configure the root as README's "The initramfs" and "After a reboot"
#     say: the array's ARRAY line in /etc/mdadm/mdadm.conf (the array is
#     created in the first boot with a fixed UUID; that boot checks that
#     `mdadm --detail --scan` prints this very line), md-raid5x in
#     /etc/initramfs-tools/modules, `options md-raid5x claim_raid5=1` in
#     /etc/modprobe.d/raid5x.conf; `update-initramfs -u` in the chroot
#     gives initrd A. The same plus `softdep raid456 pre: md-raid5x` in
#     raid5x.conf gives initrd A2. (update-initramfs takes 3.5-5 min here
#     even natively; in a TCG guest it would take far longer.)
#  3. an ext4 image of the root (/dev/vda) and four 64 MiB members
#     (/dev/vdb../dev/vde) in a scratch directory (/tmp/boottest-XXXXXX).
#  4. boots with QEMU (TCG) of the root's /boot/vmlinuz; before each boot
#     the phase's initrd and raid5x.conf are written into the image
#     (debugfs), so the guest's /boot and /etc match what it booted. A
#     systemd unit runs /usr/local/sbin/bt-guest, which prints BT lines on
#     ttyS0 and powers off. Phases (kernel command line boottest.phase=):
#       setup  initrd A: mdadm --create (level 5, --assume-clean on zeroed
#              members), 48 MiB of random data written, md5 recorded
#       a      initrd A: md-raid5x is in the initramfs, md0 was started
#              there, data intact; md0 runs on raid456 (udev assembles it
#              in init-top, before /init loads the modules listed in
#              /etc/initramfs-tools/modules): checked, as README says
#       a2     initrd A2 (softdep added): md0 started in the initramfs on
#              raid5x (md/raid5x_stats), data intact
#       b      initrd A2, module_blacklist=md_raid5x (the kernel refuses to
#              load the module, as for an unsigned module under Secure
#              Boot): md0 assembles as raid5 on raid456, data intact
# Output: KTAP lines (ok N - ... / not ok N - ...) and a summary; exit 0
# when every check passed, 1 when one failed, 64 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=debroot.sh
. "$here/debroot.sh"
cache=${BOOTTEST_CACHE:-/var/cache/raid5x/boot-test-claim}
mirror=${RAID5X_MIRROR:-http://deb.debian.org/debian}
secmirror=${RAID5X_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
export LC_ALL=C

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}
usage_err() {
	echo "boot-test: $*" >&2
	echo "usage: scripts/boot-test-claim.sh [--root-only] [--keep] [--timeout S] (--help)" >&2
	exit 64
}
die() {
	echo "boot-test: error: $*" >&2
	exit 1
}
say() {
	echo "boot-test: $(date +%T) $*" >&2
}

root_only=0 keep=0 tmo=900
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--root-only) root_only=1 ;;
	--keep) keep=1 ;;
	--timeout)
		[ $# -ge 2 ] || usage_err "--timeout needs a value"
		[[ $2 =~ ^[0-9]+$ ]] || usage_err "--timeout: not a number: $2"
		tmo=$2
		shift ;;
	*) usage_err "unknown argument '$1'" ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mkfs)"
for t in debootstrap qemu-system-x86_64 mkfs.ext4 debugfs unshare git; do
	command -v "$t" >/dev/null || die "missing host tool: $t"
done

root=$cache/root
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

# in_root CMD...: CMD in the root, in a private mount namespace with /proc,
# /sys and /dev mounted (gone with the namespace, whatever happens)
in_root() { debroot_in "$root" "$@"; }

# ---- 1. the root ----------------------------------------------------------
t_root=$SECONDS
if [ ! -e "$root/.bt-debootstrap" ]; then
	say "debootstrap bookworm into $root (log $cache/debootstrap.log)"
	rm -rf "$root"
	mkdir -p "$root"
	debootstrap --variant=minbase \
		--include=systemd-sysv,udev,kmod,e2fsprogs,initramfs-tools,zstd,procps \
		bookworm "$root" "$mirror" /usr/share/debootstrap/scripts/sid \
		>"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed: see $cache/debootstrap.log"
	printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
		"$mirror" "$mirror" "$secmirror" >"$root/etc/apt/sources.list"
	echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99raid5x"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# no daemons started by package scripts in the chroot
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	: >"$root/.bt-debootstrap"
fi
if [ ! -e "$root/.bt-packages" ]; then
	say "apt-get install in the root (log $cache/apt.log)"
	{
		in_root apt-get update -q &&
		in_root apt-get install -y -q linux-image-amd64 &&
		# README's "Install on a server" line, as written (recommends too)
		in_root apt-get install -y -q build-essential linux-headers-amd64 \
			linux-source-6.1 mdadm dkms
	} >"$cache/apt.log" 2>&1 || die "apt-get in the root failed: see $cache/apt.log"
	: >"$root/.bt-packages"
fi
kver=$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -name '6.1.0-*-amd64' -printf '%f\n' |
	sort -V | tail -n 1)
[ -n "$kver" ] || die "no 6.1.0-*-amd64 kernel in the root"

# this tree as a user clones it, at HEAD; rebuilt when anything but the
# docs and this script changed
srckey=$(git -C "$top" ls-tree -r HEAD | grep -vE '	(docs/|README\.md$|scripts/boot-test\.sh$)' |
	sha256sum | cut -c1-16)
if [ "$(cat "$root/.bt-dkms" 2>/dev/null)" != "$srckey $kver" ]; then
	say "dkms add/install raid5x/0.1 for $kver (log $cache/dkms.log)"
	in_root dkms remove raid5x/0.1 --all >/dev/null 2>&1 || true
	rm -rf "$root/usr/src/raid5x-0.1"
	mkdir -p "$root/usr/src/raid5x-0.1"
	git -C "$top" archive HEAD | tar -x -C "$root/usr/src/raid5x-0.1"
	t0=$SECONDS
	{
		in_root dkms add raid5x/0.1 &&
		in_root dkms install raid5x/0.1 -k "$kver"
	} >"$cache/dkms.log" 2>&1 || {
		cat "$root/var/lib/dkms/raid5x/0.1/build/make.log" >>"$cache/dkms.log" 2>/dev/null || true
		die "dkms failed: see $cache/dkms.log"
	}
	echo "dkms: $((SECONDS - t0)) s" >>"$cache/dkms.log"
	echo "$srckey $kver" >"$root/.bt-dkms"
fi

# the guest side: a oneshot unit that runs bt-guest PHASE on ttyS0, then
# powers off (also when it fails); getty off ttyS0; fstab, hostname
install -m 755 /dev/stdin "$root/usr/local/sbin/bt-guest" <<'GUEST'
#!/bin/bash
# bt-guest: written by scripts/boot-test-claim.sh; runs at boot, prints BT lines
set -u
phase=$(sed -n 's/.*boottest\.phase=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
kv=$(uname -r)
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
# ktime ERE: the timestamp (s) of the first kernel line matching it
ktime() {
	dmesg | grep -m 1 -E "$1" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}
data_ok() {
	[ -s /root/bt.md5 ] &&
	[ "$(dd if=/dev/md0 bs=1M count=48 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" = "$(cat /root/bt.md5)" ]
}
in_initrd() {
	lsinitramfs "/boot/initrd.img-$kv" | grep -qE "$1"
}
# the array was started in the initramfs: its first kernel line comes
# before systemd's first one (systemd starts after the switch to /)
md_in_initramfs() {
	local m s
	m=$(ktime 'md0')
	s=$(ktime 'systemd\[1\]: ')
	[ -n "$m" ] && [ -n "$s" ] && awk -v m="$m" -v s="$s" 'BEGIN{exit !(m < s)}'
}
md_common() {
	show cat /proc/mdstat
	show mdadm --detail /dev/md0
	show cat /sys/block/md0/md/level
	show ls /sys/block/md0/md/
	show sh -c 'lsmod | grep -E "raid|^md_mod"'
	show sh -c 'dmesg | grep -E "md0|md/raid|raid5x|raid456|raid6: |EXT4-fs \(vda\)|systemd\[1\]: systemd |Run /init|module verification|taint|blacklist"'
	show sh -c 'journalctl -b -o short-monotonic --no-pager | grep -E "mdadm|md0|raid" | head -n 40'
	check "md0 is active (/proc/mdstat)" grep -qE '^md0 : active' /proc/mdstat
	info "first md0 kernel line at $(ktime 'md0') s, md_raid5x's at $(ktime 'md_raid5x: |md/raid5x') s, systemd's first at $(ktime 'systemd\[1\]: ') s"
	check "md0 was started in the initramfs (its first kernel line before systemd's)" md_in_initramfs
	check "the 48 MiB written at setup read back with the same md5" data_ok
}
info "phase $phase, kernel $kv, up $(cut -d' ' -f1 /proc/uptime) s"
show cat /proc/cmdline
show dpkg-query -W "linux-image-$kv" "linux-headers-$kv" linux-source-6.1 mdadm dkms initramfs-tools systemd udev kmod gcc-12
show dkms status
show cat /etc/initramfs-tools/modules /etc/modprobe.d/raid5x.conf
show grep -v '^#' /etc/mdadm/mdadm.conf
case $phase in
setup)
	check "modinfo finds md-raid5x.ko installed by DKMS under updates/" \
		sh -c "modinfo -n md-raid5x | grep -q /updates/"
	show modinfo md-raid5x
	show cat /proc/mdstat
	uuid=$(sed -n 's/^ARRAY .*UUID=\([0-9a-f:]*\).*/\1/p' /etc/mdadm/mdadm.conf)
	info "creating md0 with the UUID of mdadm.conf's ARRAY line: $uuid"
	show mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
		--assume-clean --uuid="$uuid" /dev/vdb /dev/vdc /dev/vdd /dev/vde
	check "mdadm --create: md0 active" grep -qE '^md0 : active' /proc/mdstat
	dd if=/dev/urandom of=/root/bt.data bs=1M count=48 status=none
	dd if=/root/bt.data of=/dev/md0 bs=1M oflag=direct conv=fsync status=none
	md5sum </root/bt.data | cut -d' ' -f1 >/root/bt.md5
	rm -f /root/bt.data
	info "data md5 $(cat /root/bt.md5)"
	check "the data read back from md0 right after writing" data_ok
	show mdadm --detail --scan
	check "mdadm --detail --scan prints mdadm.conf's ARRAY line" \
		bash -c 'mdadm --detail --scan | grep "^ARRAY" | cmp -s - <(grep "^ARRAY" /etc/mdadm/mdadm.conf)'
	show cat /proc/mdstat
	show mdadm --stop /dev/md0
	;;
a | a2)
	check "lsinitramfs lists md-raid5x.ko" in_initrd '/md-raid5x\.ko'
	check "lsinitramfs lists etc/modprobe.d/raid5x.conf" in_initrd 'etc/modprobe.d/raid5x\.conf'
	md_common
	check "md_raid5x is loaded with claim_raid5=Y" \
		grep -qx Y /sys/module/md_raid5x/parameters/claim_raid5
	if [ "$phase" = a ]; then
		# md-raid5x in /etc/initramfs-tools/modules alone: init-top/udev
		# assembles md0 (mdadm --incremental, raid456 autoloaded) before
		# /init loads the listed modules; README says so and asks for
		# the softdep (a2)
		check "without the softdep md0 runs on raid456 (md-raid5x loaded after udev assembled md0, as README says)" \
			sh -c 'test ! -e /sys/block/md0/md/raid5x_stats && test -e /sys/block/md0/md/stripe_cache_size'
	else
		check "md0 runs on raid5x (md/raid5x_stats exists)" test -d /sys/block/md0/md/raid5x_stats
		show ls /sys/block/md0/md/raid5x_stats
	fi
	;;
b)
	md_common
	check "md_raid5x is not loaded" test ! -e /sys/module/md_raid5x
	check "raid456 is loaded" test -d /sys/module/raid456
	check "md0 runs on raid456 (no md/raid5x_stats; md/stripe_cache_size exists)" \
		sh -c 'test ! -e /sys/block/md0/md/raid5x_stats && test -e /sys/block/md0/md/stripe_cache_size'
	;;
*) info "unknown phase '$phase'" ;;
esac
sync
echo "BT-END: $phase at $(cut -d' ' -f1 /proc/uptime) s"
GUEST
cat >"$root/etc/systemd/system/bt-guest.service" <<'UNIT'
[Unit]
Description=raid5x boot test (scripts/boot-test-claim.sh)
After=multi-user.target
SuccessAction=poweroff
FailureAction=poweroff

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/bt-guest
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=1200

[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf ../bt-guest.service "$root/etc/systemd/system/multi-user.target.wants/bt-guest.service"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
echo bt-guest >"$root/etc/hostname"
# README's configuration, and the two initrds (cached with the dkms key)
uuid=5a1d0b00:7e575a1d:00000000:00000018
array="ARRAY /dev/md0 metadata=1.2 name=bt-guest:0 UUID=$uuid"
conf_a="options md-raid5x claim_raid5=1"
conf_a2="$conf_a
softdep raid456 pre: md-raid5x"
cfgkey="$srckey $kver cfg1"
if [ "$(cat "$cache/.initrds" 2>/dev/null)" != "$cfgkey" ]; then
	t0=$SECONDS
	say "configure the root, update-initramfs -u twice (log $cache/initramfs.log)"
	grep -v '^ARRAY' "$root/etc/mdadm/mdadm.conf" >"$root/etc/mdadm/mdadm.conf.new"
	echo "$array" >>"$root/etc/mdadm/mdadm.conf.new"
	mv "$root/etc/mdadm/mdadm.conf.new" "$root/etc/mdadm/mdadm.conf"
	grep -qx md-raid5x "$root/etc/initramfs-tools/modules" ||
		echo md-raid5x >>"$root/etc/initramfs-tools/modules"
	for v in a a2; do
		if [ $v = a ]; then
			echo "$conf_a" >"$root/etc/modprobe.d/raid5x.conf"
		else
			echo "$conf_a2" >"$root/etc/modprobe.d/raid5x.conf"
		fi
		cp "$root/etc/modprobe.d/raid5x.conf" "$cache/raid5x.conf-$v"
		{
			echo "== initrd $v: $(tr '\n' ';' <"$root/etc/modprobe.d/raid5x.conf")"
			in_root update-initramfs -u -k "$kver"
		} >>"$cache/initramfs.log" 2>&1 || die "update-initramfs failed: see $cache/initramfs.log"
		cp "$root/boot/initrd.img-$kver" "$cache/initrd-$v"
		in_root lsinitramfs "/boot/initrd.img-$kver" >"$cache/initrd-$v.list"
	done
	echo "initrds: $((SECONDS - t0)) s" >>"$cache/initramfs.log"
	echo "$cfgkey" >"$cache/.initrds"
fi
say "root ready in $((SECONDS - t_root)) s: kernel $kver"
[ "$root_only" = 0 ] || exit 0

# ---- 2. the disks -----------------------------------------------------------
work=$(mktemp -d /tmp/boottest-XXXXXX)
cleanup() {
	if [ "$keep" = 1 ]; then
		say "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
t0=$SECONDS
mkfs.ext4 -q -F -L btroot -d "$root" "$work/root.img" 6G >"$work/mkfs.log" 2>&1 ||
	die "mkfs.ext4 -d failed: $(cat "$work/mkfs.log")"
for d in b c d e; do
	truncate -s 64M "$work/vd$d.img"
done
say "disk images in $((SECONDS - t0)) s ($work)"

# ---- 3. the boots -------------------------------------------------------------
kernel=$root/boot/vmlinuz-$kver
phases=(setup a a2 b)
n=0 failed=0
tap() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
echo "KTAP version 1"
echo "# boot-test: Debian bookworm root, kernel $kver, log directory $work"
for p in "${phases[@]}"; do
	log=$work/console-$p.log
	case $p in
	setup | a) v=a extra="" ;;
	a2) v=a2 extra="" ;;
	b) v=a2 extra=" module_blacklist=md_raid5x" ;;
	esac
	cp "$cache/initrd-$v" "$work/initrd"
	cp "$cache/raid5x.conf-$v" "$work/raid5x.conf"
	debugfs -w -R "rm /boot/initrd.img-$kver" "$work/root.img" >/dev/null 2>&1
	debugfs -w -R "write $work/initrd /boot/initrd.img-$kver" "$work/root.img" >/dev/null 2>&1
	debugfs -w -R "rm /etc/modprobe.d/raid5x.conf" "$work/root.img" >/dev/null 2>&1
	debugfs -w -R "write $work/raid5x.conf /etc/modprobe.d/raid5x.conf" "$work/root.img" >/dev/null 2>&1
	debugfs -R "cat /etc/modprobe.d/raid5x.conf" "$work/root.img" 2>/dev/null |
		cmp -s - "$work/raid5x.conf" || die "could not write raid5x.conf into the image"
	echo "# $p: initrd $v ($(grep -c md-raid5x "$cache/initrd-$v.list") md-raid5x entries), raid5x.conf: $(tr '\n' ';' <"$work/raid5x.conf")${extra:+, kernel args:$extra}"
	say "boot $p (timeout $tmo s, console $log)"
	t0=$(date +%s)
	qrc=0
	timeout -k 10 "$tmo" qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-m 2048 -smp 2 -display none -serial "file:$log" -monitor none \
		-nic none -no-reboot -kernel "$kernel" -initrd "$work/initrd" \
		-append "root=/dev/vda ro console=ttyS0 panic=-1 boottest.phase=$p$extra" \
		-drive "file=$work/root.img,format=raw,if=virtio" \
		-drive "file=$work/vdb.img,format=raw,if=virtio" \
		-drive "file=$work/vdc.img,format=raw,if=virtio" \
		-drive "file=$work/vdd.img,format=raw,if=virtio" \
		-drive "file=$work/vde.img,format=raw,if=virtio" </dev/null || qrc=$?
	secs=$(($(date +%s) - t0))
	tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
	echo "# $p: QEMU exited $qrc after $secs s"
	grep -E '^BT-INFO: ' "$log" | sed 's/^/# /' || true
	while IFS= read -r line; do
		case $line in
		"BT-CHECK: pass: "*) tap ok "$p: ${line#BT-CHECK: pass: }" ;;
		"BT-CHECK: fail: "*) tap fail "$p: ${line#BT-CHECK: fail: }" ;;
		esac
	done < <(grep -aE '^BT-CHECK: ' "$log" || true)
	if grep -qE "^BT-END: $p " "$log"; then
		tap ok "$p: the guest booted, ran its checks and powered off ($secs s)"
	else
		tap fail "$p: no BT-END line (QEMU rc $qrc after $secs s): see $log"
		keep=1
		break
	fi
	mkdir -p "$cache/logs"
	cp "$log" "$cache/logs/console-$p.log"
done
echo "# $((n - failed)) passed, $failed failed (console logs also in $cache/logs)"
[ "$failed" = 0 ] || exit 1
