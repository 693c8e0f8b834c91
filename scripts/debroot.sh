#!/usr/bin/env bash
# debroot.sh: a Debian root of any release (bookworm, trixie, forky) made
# with debootstrap, shared by scripts/kroot.sh (build roots) and
# scripts/boot-test.sh (roots booted whole). Sourced, not run; the caller
# sets $mirror (RAID5X_MIRROR, default deb.debian.org) and runs as root.
#
#   debroot_make SUITE DIR LOG [PKG,PKG...]
#       debootstrap --variant=minbase SUITE into DIR (created) with the
#       extra packages, output to LOG; status of debootstrap
#   debroot_apt_options DIR
#       the apt options every root gets (Check-Valid-Until off: a snapshot
#       mirror serves InRelease files past their Valid-Until, forky's is
#       expired there; the signatures are still checked) and the host's
#       resolv.conf
#   debroot_in DIR CMD...
#       CMD in the root DIR, in a private mount namespace with /proc, /sys
#       and /dev mounted (gone with the namespace, whatever happens), with a
#       clean environment (the boot tests' roots; kroot.sh's build roots
#       need no mounts and chroot directly)

debroot_make() {
	local suite=$1 dir=$2 log=$3 incl=${4:-}
	mkdir -p "$dir"
	# bookworm's debootstrap has no forky script: sid's serves every suite
	debootstrap --variant=minbase ${incl:+--include="$incl"} \
		"$suite" "$dir" "${mirror:-http://deb.debian.org/debian}" \
		/usr/share/debootstrap/scripts/sid >"$log" 2>&1
}

debroot_apt_options() {
	echo 'Acquire::Check-Valid-Until "false";' >"$1/etc/apt/apt.conf.d/99raid5x"
	cp -L /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
}

debroot_in() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private -- /bin/sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" &&
		mount --rbind /dev "$r/dev" &&
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"' sh "$@"
}
