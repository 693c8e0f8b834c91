#!/usr/bin/env bash
# Build fio for the test guests from Debian's source package (bookworm's,
# the same code as /usr/bin/fio, also where apt has forky's deb-src for
# `make mdadm-forky`) without the I/O engines the tests never use, into
# OUTDIR/fio.
#
# usage: scripts/build-fio.sh [OUTDIR]
#   OUTDIR defaults to $RAID5X_CACHE/fio ($RAID5X_CACHE: the per-machine
#   cache scripts/debug-kernel.sh uses, default /var/cache/raid5x/debug-kernel)
#
# Why: Debian's fio links 64 shared libraries (ceph, glusterfs, RDMA, PMEM,
# ICU: 80 MiB) and resolves them all at start (BIND_NOW). Under TCG one
# `fio --version` took 1.0 s on the debug kernel and 0.47 s on Debian's;
# the tests start fio a few hundred times per pass. Built here with
# --disable-{rbd,rados,gfapi,rdma,pmem,numa,http,libzbc,libnfs,dfs,xnvme,
# tcmalloc,native} it links libaio, libz, libm and libc and starts in 75 ms
# and 28 ms. The engines the tests use (libaio, psync, sync) and the verify
# code are unchanged. The benchmark (scripts/bench.sh) keeps Debian's fio.
#
# Cached: nothing is done when OUTDIR/fio was built from the same source
# version and flags (OUTDIR/stamp). Needs dpkg-dev, libaio-dev, zlib1g-dev
# (installed if missing). Prints the path of the result on its last line.
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
-*) echo "build-fio.sh: unknown option '$1' (try --help)" >&2; exit 64 ;;
esac
[ $# -le 1 ] || { echo "build-fio.sh: one OUTDIR at most (try --help)" >&2; exit 64; }
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-${RAID5X_CACHE:-/var/cache/raid5x/debug-kernel}/fio}
export DEBIAN_FRONTEND=noninteractive
die() { echo "build-fio: $*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=debsrc.sh
. "$top/scripts/debsrc.sh"
mkdir -p "$out" || die "cannot create $out (set RAID5X_CACHE to a writable directory)"
out=$(cd "$out" && pwd)

flags=(--disable-rbd --disable-rados --disable-gfapi --disable-rdma
	--disable-pmem --disable-numa --disable-http --disable-libzbc
	--disable-libnfs --disable-dfs --disable-xnvme --disable-tcmalloc
	--disable-native)
srcver=$(debsrc_version fio bookworm)
stamp="fio $srcver ${flags[*]}"
if [ -x "$out/fio" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "build-fio: up to date (fio $srcver)"
	echo "$out/fio"
	exit 0
fi
debsrc_need dpkg-dev libaio-dev zlib1g-dev
dir=$(debsrc_fetch fio "$srcver" "$out/src")
echo "build-fio: configure ${flags[*]}"
(cd "$dir" && ./configure "${flags[@]}") >"$out/configure.log" 2>&1 ||
	{ tail -n 20 "$out/configure.log" >&2; die "configure failed (log $out/configure.log)"; }
grep -q '^Linux AIO support[[:space:]]*yes' "$out/configure.log" ||
	die "configure found no libaio (log $out/configure.log)"
echo "build-fio: make"
make -C "$dir" -j"$(nproc)" fio >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "build failed (log $out/build.log)"; }
want="fio-${srcver%%-*}"
got=$("$dir/fio" --version) || die "the built fio does not run"
[ "$got" = "$want" ] || die "the built fio says $got, want $want"
cp "$dir/fio" "$out/fio.new"
mv "$out/fio.new" "$out/fio"
rm -rf "$out/src"
echo "$stamp" >"$out/stamp"
echo "build-fio: built fio $srcver ($(ldd "$out/fio" | grep -c '=>') shared libraries)"
echo "$out/fio"
