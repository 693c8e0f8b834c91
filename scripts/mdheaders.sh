#!/usr/bin/env bash
# Extract drivers/md/*.h (md.h, md-cluster.h, md-bitmap.h, ...) for kernel
# KVER from the Debian linux-source package into OUTDIR. md.h is not shipped in
# linux-headers; a struct mddev from another version corrupts memory silently,
# so the source package version must equal the headers package version.
#
# usage: scripts/mdheaders.sh KVER OUTDIR [SOURCE_TARBALL]
set -euo pipefail
case ${1:-} in
-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
esac
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: scripts/mdheaders.sh KVER OUTDIR [SOURCE_TARBALL] (--help)" >&2
	exit 64
fi
kver=$1
out=$2
tarball=${3:-}
die() { echo "mdheaders: $*" >&2; exit 1; }

if [ -z "$tarball" ]; then
	# Debian: linux-source-6.1 ships /usr/src/linux-source-6.1.tar.xz
	series=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	tarball=/usr/src/linux-source-$series.tar.xz
	[ -f "$tarball" ] || die "missing $tarball: apt-get install linux-source-$series (or run scripts/setup.sh)"
	hv=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null) ||
		die "linux-headers-$kver is not installed: apt-get install linux-headers-$kver"
	sv=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null) ||
		die "linux-source-$series is not installed"
	if [ "$hv" != "$sv" ]; then
		if dpkg --compare-versions "$hv" gt "$sv"; then
			die "version mismatch: linux-headers-$kver is $hv but linux-source-$series is $sv; install the kernel source of this kernel: apt-get install linux-source (or linux-source-$series=$hv), then dkms autoinstall"
		fi
		die "version mismatch: linux-headers-$kver is $hv but linux-source-$series is $sv (newer): $kver is an older kernel than the source installed; build for the newest kernel (boot it), or apt-get install linux-source-$series=$hv if the archive still has it"
	fi
fi
[ -f "$tarball" ] || die "missing $tarball"

if [ -f "$out/md.h" ] && [ "$out/md.h" -nt "$tarball" ]; then
	exit 0
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
top=$(basename "$tarball" .tar.xz)
# every header of drivers/md (md.h, md-bitmap.h, md-cluster.h and what
# they include on newer kernels; a few hundred KB)
tar -xJf "$tarball" -C "$tmp" --wildcards --no-wildcards-match-slash \
	"$top/drivers/md/*.h"
cp "$tmp/$top"/drivers/md/*.h "$out/"
echo "mdheaders: extracted md.h for $kver into $out"
