#!/usr/bin/env bash
# shellcheck disable=SC2016  # bash -c scripts and apt format strings are literal
# 10-dkms (host side): `make install DESTDIR=...` and the dkms.conf work.
#   * make install DESTDIR=scratch puts md-raid5x.ko under lib/modules/KVER/updates/;
#   * dkms add/build/install of raid5x/VERSION for the installed Debian kernel
#     (KVER: scripts/kver.sh), then `modinfo -k KVER md-raid5x` shows
#     description, version (= dkms.conf PACKAGE_VERSION) and license;
#   * dkms remove, and nothing of raid5x is left in dkms or /lib/modules.
# Idempotent: a leftover of an interrupted run (marked by .raid5x-check in
# /usr/src/raid5x-VERSION) is removed first; an installation of raid5x/VERSION
# that this test did not make is left alone and the dkms part is skipped.
# Prints KTAP lines; needs root and the dkms package.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 1
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ $# -lt 2 ] || echo "# $2"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi; }
logged() { local log=$1; shift; "$@" >"$log" 2>&1 || { sed "s/^/#   /" "$log" | tail -n 15; return 1; }; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

plan=9
echo "KTAP version 1"
echo "1..$plan"
kver=$(scripts/kver.sh) || { not_ok "kernel headers installed"; exit 1; }
# dkms runs `make clean` (rm -rf $(BUILD)) in its own copy: a BUILD from
# the caller (tests/run.sh's log directory) must not reach it
unset BUILD
ver=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' dkms.conf)
src=/usr/src/raid5x-$ver
echo "# kernel $kver, raid5x $ver"

# ---- make install DESTDIR --------------------------------------------------
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if make -s install DESTDIR="$scratch/root" >"$scratch/install.log" 2>&1; then
	check "make install DESTDIR puts md-raid5x.ko in updates/" \
		test -f "$scratch/root/lib/modules/$kver/updates/md-raid5x.ko"
else
	not_ok "make install DESTDIR puts md-raid5x.ko in updates/" "$(tail -n 5 "$scratch/install.log")"
fi

# ---- dkms ------------------------------------------------------------------
cleanup_dkms() {
	dkms remove "raid5x/$ver" --all >/dev/null 2>&1
	rm -rf "$src"
}
if ! command -v dkms >/dev/null; then
	not_ok "dkms installed" "apt-get install dkms (scripts/setup.sh)"
	for i in $(seq $((plan - n))); do not_ok "dkms step $i" "no dkms"; done
	echo "# $n assertions, $failed failed"; exit 1
fi
if [ -d "$src" ] && [ ! -e "$src/.raid5x-check" ]; then
	for i in $(seq $((plan - n))); do
		skip "dkms step $i" "raid5x/$ver is installed and not by this test"
	done
	exit 0
fi
cleanup_dkms   # leftover of an interrupted run
trap 'cleanup_dkms; rm -rf "$scratch"' EXIT
mkdir -p "$src"
# the tracked files only (no build products), as a release tarball would be;
# without git (a tarball or DKMS tree) every file but build/ and kbuild's
# products
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z
else
	find . \( -path ./build -o -path ./.git \) -prune -o -type f \
		! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
		! -name '*.cmd' ! -name '*.o.d' ! -name Module.symvers \
		! -name modules.order ! -name '.checkpatch-camelcase.*' -print0
fi | xargs -0 cp --parents -t "$src"
cp dkms.conf "$src/"
touch "$src/.raid5x-check"
check "dkms add raid5x/$ver" logged "$scratch/add.log" dkms add "raid5x/$ver"
t0=$SECONDS
if dkms build "raid5x/$ver" -k "$kver" >"$scratch/build.log" 2>&1; then
	ok "dkms build raid5x/$ver -k $kver"
	echo "# built in $((SECONDS - t0)) s"
else
	not_ok "dkms build raid5x/$ver -k $kver" "see below"
	sed 's/^/#   /' "$scratch/build.log" | tail -n 20
	find /var/lib/dkms/raid5x/"$ver"/build -name make.log -exec tail -n 20 {} \; | sed 's/^/#   /'
fi
check "dkms install raid5x/$ver -k $kver" logged "$scratch/dkinst.log" dkms install "raid5x/$ver" -k "$kver"
mi=$(modinfo -k "$kver" md-raid5x 2>&1)
echo "$mi" | grep -E '^(filename|description|version|license|parm):' | sed 's/^/# /'
check "modinfo: filename under updates/" grep -qE "^filename: +/lib/modules/$kver/updates/.*md-raid5x\.ko" <<<"$mi"
check "modinfo: description" grep -qE '^description: +raid5x' <<<"$mi"
check "modinfo: version $ver and license GPL" \
	bash -c 'grep -qE "^version: +$1\$" <<<"$2" && grep -qE "^license: +GPL\$" <<<"$2"' _ "$ver" "$mi"
params=$(grep -c '^parm:' <<<"$mi")
echo "# $params module parameters (each must carry a description)"
check "modinfo: every parameter described" \
	bash -c '! grep -E "^parm: +[a-z_0-9]+:? *(\(|$)" <<<"$1"' _ "$mi"
cleanup_dkms
depmod -a "$kver"
check "dkms remove: nothing of raid5x left" \
	bash -c '[ -z "$(dkms status raid5x 2>/dev/null)" ] && ! modinfo -k "$1" md-raid5x >/dev/null 2>&1 && [ ! -d "$2" ]' _ "$kver" "$src"
trap 'rm -rf "$scratch"' EXIT
echo "# $n assertions, $failed failed"
[ "$failed" = 0 ]
