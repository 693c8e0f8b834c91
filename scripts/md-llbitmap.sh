#!/usr/bin/env bash
# md-llbitmap.sh: md-mod.ko for a 7.x kernel with md's lockless bitmap
# (CONFIG_MD_LLBITMAP) built in, for the test guest (case 71).
#
# usage: scripts/md-llbitmap.sh KVER [OUTDIR]
#   OUTDIR defaults to $RAID5X_CACHE/md-llbitmap/KVER (RAID5X_CACHE:
#   /var/cache/raid5x/debug-kernel), shared by the suite and bench.sh.
#
# Debian builds llbitmap into no kernel (forky's 7.2.12+deb14:
# "# CONFIG_MD_LLBITMAP is not set"; upstream calls it experimental), so
# `mdadm --bitmap=lockless` fails there for raid456 and raid5x alike. A user
# who wants it rebuilds md-mod; this does the same from KVER's own Debian
# source (drivers/md of the linux-source tarball in KVER's build root):
# md.o, md-bitmap.o and md-llbitmap.o, nothing else changed. Prints
# OUTDIR/md-mod.ko; cached (OUTDIR/stamp: KVER and the tarball's size and
# time). Exit 2 when KVER's md has no llbitmap (before 6.18).
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
esac
[ $# = 1 ] || [ $# = 2 ] || { echo "md-llbitmap.sh: usage: KVER [OUTDIR] (try --help)" >&2; exit 64; }
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kver=$1 out=${2:-${RAID5X_CACHE:-/var/cache/raid5x/debug-kernel}/md-llbitmap/$1}
die() { echo "md-llbitmap: $*" >&2; exit 1; }
env=$("$top/scripts/kroot.sh" prepare "$kver") || die "scripts/kroot.sh prepare $kver failed"
KVER="" ROOT="" MDINC=""
eval "$(grep -E '^(KVER|ROOT|MDINC)=' <<<"$env")"
[ -n "$KVER" ] || die "scripts/kroot.sh prepare $kver printed no KVER"
grep -qs ID_LLBITMAP "$ROOT$MDINC/md.h" || { echo "md-llbitmap: $KVER's md has no llbitmap" >&2; exit 2; }
tarball=$(find "$ROOT/usr/src" -maxdepth 1 -name 'linux-source-*.tar.xz' | head -n 1)
[ -n "$tarball" ] || die "no linux-source tarball under $ROOT/usr/src"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stamp="$KVER $(stat -c '%s %Y' "$tarball")"
if [ -f "$out/md-mod.ko" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$out/md-mod.ko"
	exit 0
fi
rm -rf "$out/src"
mkdir -p "$out/src"
src=$(basename "$tarball" .tar.xz)
tar -xJf "$tarball" -C "$out/src" --strip-components=3 --wildcards \
	"$src/drivers/md/*.[ch]"
[ -f "$out/src/md-llbitmap.c" ] || { echo "md-llbitmap: $KVER's md has no llbitmap" >&2; exit 2; }
cat >"$out/src/Kbuild" <<'KB'
obj-m := md-mod.o
md-mod-y := md.o md-bitmap.o md-llbitmap.o
ccflags-y := -DCONFIG_MD_LLBITMAP=1
KB
"$top/scripts/kroot.sh" make "$KVER" "$out/src" >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "build failed (log $out/build.log)"; }
cp "$out/src/md-mod.ko" "$out/md-mod.ko"
echo "$stamp" >"$out/stamp"
echo "$out/md-mod.ko"
