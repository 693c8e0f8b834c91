#!/usr/bin/env bash
# lint.sh: static checks of the module and the scripts, as KTAP
# (`make lint`; also the host case tests/host/00-lint.sh of `make check`).
#   W=1 build without warnings; sparse (C=2) without warnings;
#   checkpatch.pl --strict (from linux-source) without errors or warnings
#   beyond .checkpatch-ignore (each type there has its reason);
#   and every shell script through shellcheck.
# Files are found with find, not git, so a release tarball or the DKMS
# source tree is checked too; a check that finds no file fails.
#
# usage: scripts/lint.sh [-h|--help]   (KVER, KDIR, BUILD as for make)
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
"") ;;
*) echo "lint.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
esac
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
kver=${KVER:-$(scripts/kver.sh)}
kdir=${KDIR:-/lib/modules/$kver/build}
build=${BUILD:-$top/build}
mdinc=$build/mdinc/$kver
n=0 bad=0
# sources FIND-ARGS...: the tree's files matching FIND-ARGS, sorted, without
# build/, .git/ and kbuild's generated *.mod.c
sources() {
	find . \( -path ./build -o -path ./.git \) -prune -o -type f \
		! -name '*.mod.c' \( "$@" \) -print | sed 's|^\./||' | LC_ALL=C sort
}
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; shift; printf '# %s\n' "$@"; }

echo "KTAP version 1"
echo "1..4"
scripts/mdheaders.sh "$kver" "$mdinc" >/dev/null
scripts/kfeatures.sh "$kdir" "$mdinc" >/dev/null

# 1-2: W=1 and sparse, on a private copy so every file is compiled and a
# concurrent build or test run in the tree is not disturbed
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp ./*.c ./*.h Kbuild "$out/"
# build_clean NAME MAKE-ARGS...: ok if make succeeds with no warning
build_clean() {
	local name=$1 log
	shift
	if log=$(make -C "$kdir" M="$out" MDINC="$mdinc" "$@" modules 2>&1) &&
		! grep -qE 'warning:|error:' <<<"$log"; then
		ok "$name"
	else
		not_ok "$name" "$(grep -E 'warning:|error:' <<<"$log" | head -n 20)"
	fi
}
build_clean "W=1 build without warnings" W=1
# C=2: sparse over every source file (objects are already built)
build_clean "sparse (C=2) without warnings" C=2

# 3: checkpatch from the matching linux-source
cp_dir=$build/checkpatch
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	series=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kver")
	mkdir -p "$cp_dir"
	tar -xJf "/usr/src/linux-source-$series.tar.xz" -C "$cp_dir" --strip-components=1 \
		"linux-source-$series/scripts/checkpatch.pl" \
		"linux-source-$series/scripts/spelling.txt" \
		"linux-source-$series/scripts/const_structs.checkpatch"
fi
ignore=$(grep -v '^#' .checkpatch-ignore | paste -sd, -)
# the module's sources: tests/ holds user-space helpers (tests/torture)
mapfile -t srcs < <(sources -name '*.c' -o -name '*.h' | grep -v '^tests/')
cp_out=$(perl "$cp_dir/scripts/checkpatch.pl" --strict --no-tree --terse \
	--ignore "$ignore" -f "${srcs[@]}" 2>&1 || true)
probs=$(grep -E ': (ERROR|WARNING|CHECK):' <<<"$cp_out" || true)
if [ ${#srcs[@]} = 0 ]; then
	not_ok "checkpatch --strict" "no .c or .h file found under $top"
elif [ -z "$probs" ]; then
	ok "checkpatch --strict: no errors, warnings or checks (${#srcs[@]} files)"
else
	not_ok "checkpatch --strict" "$(head -n 20 <<<"$probs")"
fi

# 4: shellcheck
mapfile -t shs < <(sources -name '*.sh' -o -path ./.ci/run -o -path ./scripts/raid5x-scrub -o -path ./scripts/raid5x-array)
if [ ${#shs[@]} = 0 ]; then
	not_ok "shellcheck" "no shell script found under $top"
elif sc=$(shellcheck -x "${shs[@]}" 2>&1); then
	ok "shellcheck clean (${#shs[@]} scripts)"
else
	not_ok "shellcheck" "$(head -n 20 <<<"$sc")"
fi
[ "$bad" = 0 ]
