#!/usr/bin/env bash
# shellcheck disable=SC2016  # bash -c scripts and apt format strings are literal
# Build Debian's mdadm with the raid5x patches (patches/mdadm/*.patch) into
# OUTDIR/mdadm (`make mdadm`: build/mdadm/mdadm).
#
# usage: scripts/build-mdadm.sh [OUTDIR]
#
# Fetches the source with `apt-get source mdadm` (adds a bookworm deb-src
# entry, /etc/apt/sources.list.d/raid5x-deb-src.sources, if apt has none),
# applies the patches with `patch -p1`, builds with the upstream Makefile
# (needs libudev-dev, installed if missing). Cached: nothing is done when
# OUTDIR/mdadm was built from the same source version and patch hash
# (OUTDIR/stamp). The result links the same libraries as Debian's mdadm, so
# the test guest can run it (scripts/guest.sh --file).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$top/build/mdadm}
export DEBIAN_FRONTEND=noninteractive
die() { echo "build-mdadm: $*" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

phash=$(cat "$top"/patches/mdadm/*.patch | sha256sum | cut -c1-16)

have_debsrc() {
	apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -qx Sources
}
if ! have_debsrc; then
	[ "$(id -u)" = 0 ] || die "no deb-src entry for apt and not root; add one"
	echo "build-mdadm: adding a deb-src entry for bookworm"
	cat >/etc/apt/sources.list.d/raid5x-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -q || die "apt-get update failed"
fi
srcver=$(apt-cache showsrc mdadm 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$srcver" ] || die "apt knows no source package mdadm (deb-src missing?)"
stamp="mdadm $srcver patches $phash"
if [ -x "$out/mdadm" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "build-mdadm: $out/mdadm is up to date ($stamp)"
	exit 0
fi
for p in dpkg-dev libudev-dev; do
	if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | cut -c1-2)" != ii ]; then
		echo "build-mdadm: apt-get install $p"
		apt-get install -y --no-install-recommends "$p" </dev/null >/dev/null ||
			die "cannot install $p"
	fi
done
src=$out/src
rm -rf "$src"
mkdir -p "$src"
echo "build-mdadm: apt-get source mdadm=$srcver"
(cd "$src" && apt-get source -q "mdadm=$srcver" >"$out/source.log" 2>&1) ||
	{ tail -n 5 "$out/source.log" >&2; die "apt-get source mdadm failed"; }
dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'mdadm-*' | head -n 1)
[ -n "$dir" ] || die "no mdadm-* directory after apt-get source"
for p in "$top"/patches/mdadm/*.patch; do
	echo "build-mdadm: patch ${p##*/}"
	patch -d "$dir" -p1 --batch --forward <"$p" >"$out/patch.log" 2>&1 ||
		{ cat "$out/patch.log" >&2; die "patch ${p##*/} does not apply to mdadm $srcver"; }
done
echo "build-mdadm: make"
make -C "$dir" -j"$(nproc)" mdadm >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "build failed (log $out/build.log)"; }
cp "$dir/mdadm" "$out/mdadm.new"
mv "$out/mdadm.new" "$out/mdadm"
echo "$stamp" >"$out/stamp"
echo "build-mdadm: built $out/mdadm ($stamp)"
