#!/usr/bin/env bash
# boot-test.sh: a real Debian server per release, start to finish, in QEMU:
# the release's own kernel, systemd, udev and mdadm, md-raid5x installed as
# README.md's "Install on a server" says for that release, and what a raid456
# user does routinely: reboot, the monthly scrub, TRIM, grow, a failed
# member reported, a kernel upgrade, the module missing.
#
# usage: scripts/boot-test.sh [--release R] [--root-only] [--keep] [--timeout S]
#
#   --release R   bookworm (Debian 12, default), trixie (Debian 13), forky
#   --root-only   only build (or refresh) the cached root
#   --keep        keep the scratch directory (disk images, console logs)
#   --timeout S   limit of each QEMU boot in seconds (default 1200)
#
# Root (all as root; the host's apt configuration is never touched; cached
# in $BOOTTEST_CACHE/R, default /var/cache/raid5x/boot-test/R):
#  1. debootstrap R (minbase, systemd, udev), its base suite only; apt-get
#     install linux-image-amd64 and README's package line as written
#     (build-essential linux-headers-amd64 linux-source mdadm dkms openssl); this
#     tree (git archive HEAD) to /usr/src/raid5x-0.1, `dkms add` and
#     `dkms install` (README's DKMS lines) for the installed kernel.
#  2. the kernel upgrade within the release (bookworm and trixie: their
#     -security suite has a newer kernel than the base suite; forky has one
#     version, no upgrade): the security suite added, `apt-get upgrade` as an
#     admin runs it; DKMS must have built md-raid5x for the new kernel (its
#     kernel hook), or have failed with one message naming what to install,
#     after which `dkms autoinstall` (README) builds it. The boots run the
#     newest kernel.
# Boots (QEMU TCG, 2 vCPUs, 2 GiB; root /dev/vda an ext4 image of the root,
# members /dev/vdb..vde 64 MiB raw images with discard=unmap, /dev/vdf a
# 96 MiB spare; a systemd
# unit runs the phase's checks, prints BT lines on ttyS0, powers off):
#   setup   `make install-tools` (README), devices_handle_discard_safely=Y in
#           /etc/modprobe.d/raid5x.conf (README, TRIM); stock `mdadm --create
#           --level=5` on zeroed members, `raid5x-array add` (README): on
#           raid5x, discard advertised; ext4, a 32 MiB file kept (md5) and a
#           48 MiB file to delete later; the file system in /etc/fstab
#   reboot  clock set 2 min before the scrub timer's next elapse at least 15
#           days after setup: the array back on raid5x (switched by udev,
#           logged), raid5x-arrays.service active, data intact; the timer
#           starts the scrub by itself: `check` seen running, its
#           mismatch_cnt 0 logged; the 48 MiB file deleted and `fstrim`: the
#           host sees the members' allocated blocks fall, `check` 0 after
#   grow    members grown by 32 MiB on the host: `mdadm --grow --size=max`
#           on raid5x, the new region resynced, data and parity kept;
#           `--grow --raid-devices=5` with vdf added as a spare refused with
#           raid5x's message (vdf removed again); a member
#           failed: the mdmonitor service logs the Fail event and `mdadm
#           --monitor --oneshot` reports DegradedArray; re-added, rebuilt
#           under raid5x, `check` 0
#   missing module_blacklist=md_raid5x: the array runs on raid456 with its
#           data, the kernel log says why, raid5x-arrays.service failed
# Output: KTAP lines and a summary; exit 0 when every check passed, 1 when
# one failed, 64 on a usage error. Times: tests/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=debroot.sh
. "$here/debroot.sh"
mirror=${RAID5X_MIRROR:-http://deb.debian.org/debian}
secmirror=${RAID5X_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
export LC_ALL=C

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}
usage_err() {
	echo "boot-test: $*" >&2
	echo "usage: scripts/boot-test.sh [--release bookworm|trixie|forky] [--root-only] [--keep] [--timeout S] (--help)" >&2
	exit 64
}
die() {
	echo "boot-test: error: $*" >&2
	exit 1
}
say() {
	echo "boot-test: $(date +%T) $*" >&2
}

release=bookworm root_only=0 keep=0 tmo=1200
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--release)
		[ $# -ge 2 ] || usage_err "--release needs a value"
		release=$2
		shift ;;
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
case $release in
bookworm) kglob='6.1.0-*-amd64' security=1 ;;
trixie) kglob='6.12.*+deb13-amd64' security=1 ;;
forky) kglob='7.*+deb14-amd64' security=0 ;;
*) usage_err "--release: bookworm, trixie or forky, not '$release'" ;;
esac
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mkfs)"
for t in debootstrap qemu-system-x86_64 mkfs.ext4 debugfs unshare git; do
	command -v "$t" >/dev/null || die "missing host tool: $t"
done

cache=${BOOTTEST_CACHE:-/var/cache/raid5x/boot-test}/$release
root=$cache/root
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

# in_root CMD...: CMD in the root, in a private mount namespace with /proc,
# /sys and /dev mounted (gone with the namespace, whatever happens)
in_root() { debroot_in "$root" "$@"; }
newest_kernel() {
	find "$root/lib/modules" -mindepth 1 -maxdepth 1 -name "$kglob" -printf '%f\n' |
		sort -V | tail -n 1
}
dkms_has() { in_root dkms status -m raid5x -v 0.1 -k "$1" 2>/dev/null | grep -q ': installed'; }

# ---- 1. the root: base suite, README's install ------------------------------
t_root=$SECONDS
if [ ! -e "$root/.bt-debootstrap" ]; then
	say "debootstrap $release into $root (log $cache/debootstrap.log)"
	rm -rf "$root"
	debroot_make "$release" "$root" "$cache/debootstrap.log" \
		systemd-sysv,udev,kmod,e2fsprogs,initramfs-tools,zstd,procps ||
		die "debootstrap failed: see $cache/debootstrap.log"
	printf 'deb %s %s main\n' "$mirror" "$release" >"$root/etc/apt/sources.list"
	debroot_apt_options "$root"
	# no daemons started by package scripts in the chroot
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	: >"$root/.bt-debootstrap"
fi
# README's "Install on a server" line, as written (recommends too); the
# root is brought up to it again when the line changes
readme_pkgs="build-essential linux-headers-amd64 linux-source mdadm dkms openssl"
if [ "$(cat "$root/.bt-packages" 2>/dev/null)" != "$readme_pkgs" ]; then
	say "apt-get install in the root (log $cache/apt.log)"
	read -r -a pkgs <<<"$readme_pkgs"
	{
		in_root apt-get update -q &&
		in_root apt-get install -y -q linux-image-amd64 &&
		in_root apt-get install -y -q "${pkgs[@]}"
	} >>"$cache/apt.log" 2>&1 || die "apt-get in the root failed: see $cache/apt.log"
	echo "$readme_pkgs" >"$root/.bt-packages"
	rm -f "$root/.bt-dkms"
fi
kold=$(newest_kernel)
[ -n "$kold" ] || die "no $kglob kernel in the root"

# this tree as a user clones it, at HEAD; reinstalled when anything but the
# docs and the boot tests changed
srckey=$(git -C "$top" ls-tree -r HEAD | grep -vE '	(docs/|README\.md$|scripts/boot-test[a-z-]*\.sh$)' |
	sha256sum | cut -c1-16)
if [ "$(cat "$root/.bt-dkms" 2>/dev/null)" != "$srckey" ]; then
	say "dkms add/install raid5x/0.1 (log $cache/dkms.log)"
	in_root dkms remove raid5x/0.1 --all >/dev/null 2>&1 || true
	rm -rf "$root/usr/src/raid5x-0.1"
	mkdir -p "$root/usr/src/raid5x-0.1"
	git -C "$top" archive HEAD | tar -x -C "$root/usr/src/raid5x-0.1"
	t0=$SECONDS
	# README: dkms add, then dkms install (for the running kernel: here
	# the newest installed; an older one left by an upgrade needs the
	# kernel source of its own version, which linux-source no longer is)
	{
		in_root dkms add raid5x/0.1 &&
		in_root dkms install raid5x/0.1 -k "$(newest_kernel)"
	} >"$cache/dkms.log" 2>&1 || {
		cat "$root"/var/lib/dkms/raid5x/0.1/build/make.log >>"$cache/dkms.log" 2>/dev/null || true
		die "dkms failed: see $cache/dkms.log"
	}
	echo "dkms: $((SECONDS - t0)) s" >>"$cache/dkms.log"
	echo "$srckey" >"$root/.bt-dkms"
fi

# ---- 2. the kernel upgrade ----------------------------------------------------
upgrade_note="no upgrade: $release's archive has one kernel version"
if [ "$security" = 1 ] && [ ! -e "$root/.bt-upgrade" ]; then
	say "kernel upgrade: $release-security added, apt-get upgrade (log $cache/upgrade.log)"
	printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
		"$mirror" "$release" "$mirror" "$release" "$secmirror" "$release" \
		>"$root/etc/apt/sources.list"
	{
		in_root apt-get update -q &&
		in_root apt-get upgrade -y -q --with-new-pkgs
	} >"$cache/upgrade.log" 2>&1 || {
		echo "apt-get upgrade status $?" >>"$cache/upgrade.log"
		in_root apt-get install -f -y -q >>"$cache/upgrade.log" 2>&1 || true
	}
	knew=$(newest_kernel)
	echo "$kold" >"$cache/upgrade.from"
	{
		echo "== old kernel $kold, new kernel $knew"
		in_root dkms status
	} >>"$cache/upgrade.log" 2>&1
	if [ "$knew" != "$kold" ] && dkms_has "$knew"; then
		echo "dkms built for $knew during apt-get upgrade" >"$cache/upgrade.result"
	elif [ "$knew" != "$kold" ]; then
		# the one message, then README's remedy
		msg=$(grep -hoE 'mdheaders: [^"]*' "$cache/upgrade.log" "$root"/var/lib/dkms/raid5x/0.1/build/make.log 2>/dev/null | sort -u | head -n 3 | tr '\n' ' ')
		echo "dkms failed during apt-get upgrade: ${msg:-no mdheaders message}" >"$cache/upgrade.result"
		in_root dkms autoinstall -k "$knew" >>"$cache/upgrade.log" 2>&1 || true
		dkms_has "$knew" && echo "then dkms autoinstall -k $knew built it" >>"$cache/upgrade.result"
	else
		echo "apt-get upgrade brought no new kernel (still $kold)" >"$cache/upgrade.result"
	fi
	: >"$root/.bt-upgrade"
fi
[ -e "$cache/upgrade.result" ] && upgrade_note=$(tr '\n' ' ' <"$cache/upgrade.result")
kver=$(newest_kernel)
[ ! -e "$cache/upgrade.from" ] || kold=$(cat "$cache/upgrade.from")
dkms_has "$kver" || die "md-raid5x is not installed by DKMS for $kver: see $cache/dkms.log and $cache/upgrade.log"

# the guest side: a oneshot unit that runs bt-guest on ttyS0, then powers off
install -m 755 "$here/boot-test-guest.sh" "$root/usr/local/sbin/bt-guest"
cat >"$root/etc/systemd/system/bt-guest.service" <<'UNIT'
[Unit]
Description=raid5x boot test (scripts/boot-test.sh)
After=multi-user.target
SuccessAction=poweroff
FailureAction=poweroff

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/bt-guest
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=1500

[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf ../bt-guest.service "$root/etc/systemd/system/multi-user.target.wants/bt-guest.service"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
echo bt-guest >"$root/etc/hostname"
rm -f "$root/etc/raid5x/arrays" "$root/etc/modprobe.d/raid5x.conf"
say "root ready in $((SECONDS - t_root)) s: kernel $kver ($upgrade_note)"
[ "$root_only" = 0 ] || exit 0

# ---- 3. the disks -------------------------------------------------------------
work=$(mktemp -d /tmp/boottest-XXXXXX)
cleanup() {
	if [ "$keep" = 1 ]; then
		say "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
mkfs.ext4 -q -F -L btroot -d "$root" "$work/root.img" 8G >"$work/mkfs.log" 2>&1 ||
	die "mkfs.ext4 -d failed: $(cat "$work/mkfs.log")"
for d in b c d e; do
	truncate -s 64M "$work/vd$d.img"
done
# a fifth disk, the spare a --grow --raid-devices=5 needs
truncate -s 96M "$work/vdf.img"
# allocated KiB of the members (holes punched by discard are not counted)
member_kib() { du -k -c "$work"/vd[bcde].img | tail -n 1 | cut -f1; }

# the guest's clock for the reboot: 2 min before raid5x-scrub.timer's
# elapse (the first Sunday of a month, 01:00 UTC) at least 15 days on
scrub_at=$(python3 -c '
import datetime as d
t = d.datetime.utcnow() + d.timedelta(days=15)
t = t.replace(hour=1, minute=0, second=0, microsecond=0) + d.timedelta(days=1)
while not (t.day <= 7 and t.weekday() == 6):
    t += d.timedelta(days=1)
print(t.strftime("%Y-%m-%dT%H:%M:%S"))')
rtc_reboot=$(date -u -d "$scrub_at UTC - 2 min" +%Y-%m-%dT%H:%M:%S)
rtc_later=$(date -u -d "$scrub_at UTC + 1 day" +%Y-%m-%dT%H:%M:%S)

# ---- 4. the boots ---------------------------------------------------------------
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
echo "# boot-test: Debian $release root, kernel $kver, log directory $work"
echo "# kernel upgrade: $upgrade_note"
case $upgrade_note in
"dkms built for"* | "dkms failed during apt-get upgrade: mdheaders: "*"then dkms autoinstall"*)
	tap ok "kernel upgrade $kold -> $kver: $upgrade_note" ;;
"no upgrade"*) echo "ok $((n + 1)) - # SKIP kernel upgrade: $upgrade_note"; n=$((n + 1)) ;;
*) tap fail "kernel upgrade $kold -> $kver: $upgrade_note" ;;
esac
for p in setup reboot grow missing; do
	log=$work/console-$p.log
	rtc="" extra=""
	case $p in
	reboot) rtc=$rtc_reboot ;;
	grow)
		rtc=$rtc_later
		for d in b c d e; do truncate -s 96M "$work/vd$d.img"; done ;;
	missing) rtc=$rtc_later extra=" module_blacklist=md_raid5x" ;;
	esac
	before=$(member_kib)
	echo "# $p: members $before KiB allocated${rtc:+, guest clock $rtc UTC}${extra:+, kernel args:$extra}"
	say "boot $p (timeout $tmo s, console $log)"
	t0=$(date +%s)
	qrc=0
	timeout -k 10 "$tmo" qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-m 2048 -smp 2 -display none -serial "file:$log" -monitor none \
		-nic none -no-reboot ${rtc:+-rtc "base=$rtc"} \
		-kernel "$root/boot/vmlinuz-$kver" -initrd "$root/boot/initrd.img-$kver" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 boottest.phase=$p$extra" \
		-drive "file=$work/root.img,format=raw,if=virtio" \
		-drive "file=$work/vdb.img,format=raw,if=virtio,discard=unmap" \
		-drive "file=$work/vdc.img,format=raw,if=virtio,discard=unmap" \
		-drive "file=$work/vdd.img,format=raw,if=virtio,discard=unmap" \
		-drive "file=$work/vde.img,format=raw,if=virtio,discard=unmap" \
		-drive "file=$work/vdf.img,format=raw,if=virtio,discard=unmap" </dev/null || qrc=$?
	secs=$(($(date +%s) - t0))
	tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
	echo "# $p: QEMU exited $qrc after $secs s"
	grep -aE '^BT-INFO: ' "$log" | sed 's/^/# /' || true
	while IFS= read -r line; do
		case $line in
		"BT-CHECK: pass: "*) tap ok "$p: ${line#BT-CHECK: pass: }" ;;
		"BT-CHECK: fail: "*) tap fail "$p: ${line#BT-CHECK: fail: }" ;;
		esac
	done < <(grep -aE '^BT-CHECK: ' "$log" || true)
	if grep -qaE "^BT-END: $p " "$log"; then
		tap ok "$p: the guest booted, ran its checks and powered off ($secs s)"
	else
		tap fail "$p: no BT-END line (QEMU rc $qrc after $secs s): see $log"
		keep=1
		break
	fi
	if [ "$p" = reboot ]; then
		after=$(member_kib)
		echo "# reboot: members $before -> $after KiB allocated after fstrim"
		if [ $((before - after)) -ge 32768 ]; then
			tap ok "reboot: fstrim reached the members: $before -> $after KiB allocated on the host"
		else
			tap fail "reboot: fstrim reached the members: $before -> $after KiB allocated on the host (less than 32 MiB freed)"
		fi
	fi
	mkdir -p "$cache/logs"
	cp "$log" "$cache/logs/console-$p.log"
done
echo "# $((n - failed)) passed, $failed failed (console logs also in $cache/logs)"
[ "$failed" = 0 ] || exit 1
