#!/usr/bin/env bash
# Build Debian's mdadm with the raid5x patches (patches/mdadm/*.patch) into
# OUTDIR/mdadm (`make mdadm`: build/mdadm/mdadm).
#
# usage: scripts/build-mdadm.sh [--release forky] [OUTDIR]
#
# --release forky: forky's mdadm (4.6) as Debian ships it, no patches, into
#   OUTDIR (default build/mdadm-forky; `make mdadm-forky`): the test guest
#   runs it where bookworm's 4.2 cannot go (`--bitmap=lockless`, 7.x's
#   llbitmap, case 71). Built here with bookworm's gcc and glibc.
#
# Otherwise bookworm's mdadm (4.2), whatever release runs this (trixie, forky:
# the patches apply to 4.2 only): fetches the newest source version of the
# bookworm suite with `apt-get source mdadm=VERSION` (adds a bookworm
# deb-src entry, /etc/apt/sources.list.d/raid5x-deb-src.sources, and runs
# apt-get update if apt has no deb-src of bookworm), applies the patches
# with `patch -p1`, builds with the upstream Makefile and that release's
# gcc (needs gcc, libc6-dev and libudev-dev, installed if missing). Cached:
# nothing is done when OUTDIR/mdadm was built from the same source version
# and patch hash (OUTDIR/stamp). The result links the same libraries as
# Debian's mdadm, so the test guest can run it (scripts/guest.sh --file).
set -euo pipefail
release=bookworm
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
--release)
	[ "${2:-}" = forky ] || { echo "build-mdadm.sh: --release takes forky (try --help)" >&2; exit 64; }
	release=forky
	shift 2 ;;
-*) echo "build-mdadm.sh: unknown option '$1' (try --help)" >&2; exit 64 ;;
esac
[ $# -le 1 ] || { echo "build-mdadm.sh: one OUTDIR at most (try --help)" >&2; exit 64; }
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "$release" = forky ]; then
	out=${1:-$top/build/mdadm-forky}
	patches=()
else
	out=${1:-$top/build/mdadm}
	patches=("$top"/patches/mdadm/*.patch)
fi
export DEBIAN_FRONTEND=noninteractive
die() { echo "build-mdadm: $*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=debsrc.sh
. "$top/scripts/debsrc.sh"
mkdir -p "$out"
out=$(cd "$out" && pwd)

phash=$(cat /dev/null ${patches[@]+"${patches[@]}"} | sha256sum | cut -c1-16)

srcver=$(debsrc_version mdadm "$release")
stamp="mdadm $srcver patches $phash"
if [ -x "$out/mdadm" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "build-mdadm: $out/mdadm is up to date ($stamp)"
	exit 0
fi
debsrc_need dpkg-dev gcc libc6-dev make patch libudev-dev
dir=$(debsrc_fetch mdadm "$srcver" "$out/src")
for p in ${patches[@]+"${patches[@]}"}; do
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
