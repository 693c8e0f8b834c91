#!/usr/bin/env bash
# Install every Debian 12 package the raid5x build, the QEMU guest, the test
# suite and the benchmark need. Idempotent: runs `apt-get update` (once) and
# `apt-get install` only when a package is missing. Must run as root (CI does).
#
# usage: scripts/setup.sh [--check]
#   --check   only report missing packages; exit 1 if any are missing
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

packages=(
	build-essential        # gcc, make for the module
	linux-image-amd64      # guest kernel (/boot/vmlinuz-KVER + modules)
	linux-headers-amd64    # build tree /lib/modules/KVER/build
	linux-source-6.1       # md.h (not in headers), checkpatch.pl, debug kernel
	qemu-system-x86        # the guest
	busybox-static         # guest userland
	dkms                   # make install via DKMS (dkms.conf)
	mdadm fio e2fsprogs dmsetup kmod cpio xz-utils
	sparse shellcheck gnuplot-nox bc
	flex bison libelf-dev libssl-dev dwarves  # debug kernel build
	dpkg-dev libaio-dev zlib1g-dev libudev-dev  # guest fio, patched mdadm
	python3
)
check_only=0
if [ "${1:-}" = "--check" ]; then
	check_only=1
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--check]" >&2
	exit 64
fi

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | cut -c1-2)" = "ii" ]
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#packages[@]} packages are installed"
	exit 0
fi
echo "setup: missing packages: ${missing[*]}"
if [ "$check_only" = 1 ]; then
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "setup: must run as root to install packages (try: sudo $0)" >&2
	exit 1
fi
echo "setup: apt-get update"
apt-get update
echo "setup: apt-get install -y ${missing[*]}"
apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
still=()
for p in "${missing[@]}"; do
	installed "$p" || still+=("$p")
done
if [ ${#still[@]} -gt 0 ]; then
	echo "setup: still missing after install: ${still[*]}" >&2
	exit 1
fi
echo "setup: done"
