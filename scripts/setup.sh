#!/usr/bin/env bash
# Install every Debian 12 package the raid5x build, the QEMU guest, the test
# suite and the benchmark need. Idempotent: runs `apt-get update` (once) and
# `apt-get install` only when a package is missing. Must run as root (CI does).
# Then, when RAID5X_KERNELS names 6.12 or 7 (the test suite's kernel lines;
# default 6.1,6.12,7), prepares their build roots (scripts/kroot.sh prepare:
# trixie's and forky's current kernels, debootstrap'ed under
# /var/cache/raid5x/roots, both at once; cached, so a second run only asks
# the archive whether the kernels moved).
#
# usage: scripts/setup.sh [--check] [--no-roots]
#   --check     only report missing packages; exit 1 if any are missing
#   --no-roots  packages only (also RAID5X_KERNELS without 6.12 and 7)
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
	debootstrap            # build roots for 6.12 and 7.x (scripts/kroot.sh)
	zstd                   # zstd-compressed kernel images and modules
	mdadm fio e2fsprogs dmsetup kmod cpio xz-utils
	sparse shellcheck gnuplot-nox bc jq
	flex bison libelf-dev libssl-dev dwarves  # debug kernel build
	dpkg-dev libaio-dev zlib1g-dev libudev-dev  # guest fio, patched mdadm
	python3
)
check_only=0 roots=1
for a in "$@"; do
	case $a in
	--check) check_only=1 ;;
	--no-roots) roots=0 ;;
	-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "usage: $0 [--check] [--no-roots] (--help)" >&2; exit 64 ;;
	esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the kernel lines whose roots to prepare: those of RAID5X_KERNELS (the
# test suite's selection, default all three) that need one
lines=()
for l in $(tr "," " " <<<"${RAID5X_KERNELS:-6.1,6.12,7}"); do
	[ "$l" = 6.1 ] || lines+=("$l")
done
[ "$roots" = 1 ] || lines=()

# prepare_roots: scripts/kroot.sh prepare LINE for every line, in parallel
# (logs build/logs/setup-root-LINE.log)
prepare_roots() {
	local l pids=() st=0 t0=$SECONDS logd i=0
	[ ${#lines[@]} -gt 0 ] || return 0
	logd=${BUILD:-$here/../build}/logs
	mkdir -p "$logd"
	echo "setup: preparing build roots for kernel lines ${lines[*]} (scripts/kroot.sh prepare, in parallel)"
	for l in "${lines[@]}"; do
		"$here/kroot.sh" prepare "$l" >"$logd/setup-root-$l.log" 2>&1 &
		pids+=($!)
	done
	for l in "${lines[@]}"; do
		if wait "${pids[$i]}"; then
			echo "setup: $l: $(sed -n "s/^KVER='\(.*\)'$/\1/p" "$logd/setup-root-$l.log") ready ($(grep -o 'ready in [0-9]* s' "$logd/setup-root-$l.log" | tail -n 1 || echo cached))"
		else
			echo "setup: $l: kroot.sh prepare failed (log $logd/setup-root-$l.log):" >&2
			tail -n 15 "$logd/setup-root-$l.log" | sed 's/^/setup:   | /' >&2
			st=1
		fi
		i=$((i + 1))
	done
	echo "setup: build roots done in $((SECONDS - t0)) s"
	return "$st"
}

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | cut -c1-2)" = "ii" ]
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#packages[@]} packages are installed"
	[ "$check_only" = 1 ] && exit 0
	prepare_roots
	exit
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
prepare_roots
echo "setup: done"
