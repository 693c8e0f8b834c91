#!/usr/bin/env bash
# Build (once per machine) the raid5x debug guest kernel and print where it is.
#
#   scripts/debug-kernel.sh                 build if needed, print a summary
#   scripts/debug-kernel.sh --print-paths   build if needed, then print only
#                                           KEY=value lines on stdout, for
#                                           eval "$(scripts/debug-kernel.sh --print-paths)"
#   scripts/debug-kernel.sh --config-only   configure + check the .config, no build
#   scripts/debug-kernel.sh --force         throw away this key's cache, rebuild
#
# The kernel is Debian's linux-source (the version of the installed
# linux-headers), `make tinyconfig` + kernel/debug.config merged with
# scripts/kconfig/merge_config.sh -m + `make olddefconfig`. Every option of
# the fragment is checked in the final .config: one that did not stick fails.
#
# Cache: $RAID5X_CACHE (default /var/cache/raid5x/debug-kernel)/<key>, key =
# hash of (linux-source package + version, fragment contents, SCRIPT_VERSION).
# The build tree is kept (in-tree build, modules_prepare state included), so
# out-of-tree modules build with `make -C "$KDIR" M=<dir>`; md.h for that tree
# is "$SRCDIR/drivers/md/md.h" (MDINC below).
#
# Environment: RAID5X_CACHE, RAID5X_DEBUG_CONFIG (fragment path),
# RAID5X_LINUX_SOURCE (a linux source tarball instead of the Debian package),
# RAID5X_JOBS (default nproc), RAID5X_NICE (default 10),
# RAID5X_MIN_FREE_GB (default 6).
#
# All progress goes to stderr; stdout carries only the result.
set -euo pipefail

# Bump when a change here changes what gets built (invalidates caches).
SCRIPT_VERSION=1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
fragment=${RAID5X_DEBUG_CONFIG:-$repo/kernel/debug.config}
cache_root=${RAID5X_CACHE:-/var/cache/raid5x/debug-kernel}
jobs=${RAID5X_JOBS:-$(nproc)}
nice_lvl=${RAID5X_NICE:-10}
min_free_gb=${RAID5X_MIN_FREE_GB:-6}

mode=summary
force=0
for a in "$@"; do
	case "$a" in
	--print-paths) mode=paths ;;
	--config-only) mode=config ;;
	--force) force=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel: unknown argument: $a (try --help)" >&2; exit 64 ;;
	esac
done

t0=$(date +%s)
say() { printf '[debug-kernel %4ds] %s\n' "$(( $(date +%s) - t0 ))" "$*" >&2; }
die() { echo "debug-kernel: ERROR: $*" >&2; exit 1; }

# ---------------------------------------------------------------- deps ----
check_deps() {
	local missing=() c pkg
	for c in gcc:build-essential make:build-essential ld:binutils \
		 flex:flex bison:bison bc:bc perl:perl-base tar:tar xz:xz-utils \
		 sha256sum:coreutils cpio:cpio depmod:kmod setsid:util-linux \
		 flock:util-linux; do
		command -v "${c%%:*}" >/dev/null 2>&1 || missing+=("${c#*:} (for ${c%%:*})")
	done
	# objtool (ORC unwinder) needs libelf headers; scripts/ may need openssl
	[ -e /usr/include/libelf.h ] || [ -e /usr/include/libelf/libelf.h ] ||
		missing+=("libelf-dev (for <libelf.h>)")
	[ -e /usr/include/openssl/opensslv.h ] || missing+=("libssl-dev (for <openssl/*.h>)")
	if [ ${#missing[@]} -gt 0 ]; then
		printf 'debug-kernel: ERROR: missing packages; apt-get install:\n' >&2
		printf '  %s\n' "${missing[@]}" >&2
		exit 1
	fi
	[ "$(uname -m)" = x86_64 ] || die "this builds an x86_64 kernel natively; host is $(uname -m)"
}

# --------------------------------------------------------- the source ----
# Sets tarball, src_id (what goes into the key), src_desc.
find_source() {
	if [ -n "${RAID5X_LINUX_SOURCE:-}" ]; then
		tarball=$RAID5X_LINUX_SOURCE
		[ -f "$tarball" ] || die "RAID5X_LINUX_SOURCE=$tarball: no such file"
		src_id="file:$(readlink -f "$tarball"):$(stat -c '%s:%Y' "$tarball")"
		src_desc=$tarball
		return
	fi
	local series="" kver
	# Prefer the series of the installed Debian headers (what raid5x ships for).
	if kver=$("$here/kver.sh" 2>/dev/null); then
		series=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	fi
	if [ -n "$series" ] && [ -f "/usr/src/linux-source-$series.tar.xz" ]; then
		tarball=/usr/src/linux-source-$series.tar.xz
	else
		tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' 2>/dev/null | sort -V | tail -n 1)
	fi
	if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
		die "no /usr/src/linux-source-*.tar.xz: apt-get install linux-source-${series:-6.1}"
	fi
	local pkg ver hv
	pkg=$(basename "$tarball" .tar.xz)
	ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
		die "$tarball is not from an installed $pkg package; apt-get install $pkg (or set RAID5X_LINUX_SOURCE)"
	src_id="$pkg=$ver"
	src_desc="$pkg $ver"
	if hv=$(dpkg-query -W -f='${Version}' linux-headers-amd64 2>/dev/null) && [ "$hv" != "$ver" ]; then
		say "warning: $pkg is $ver but linux-headers-amd64 is $hv (the debug kernel is self-consistent; the Debian-kernel module build is not)"
	fi
}

# ------------------------------------------------------------- config ----
# Print every fragment line that did not end up in .config.
config_mismatches() {
	local cfg=$1 line sym
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%[[:space:]]}
		case "$line" in
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			if grep -q "^$sym=" "$cfg"; then
				echo "  wanted unset: $sym, got: $(grep "^$sym=" "$cfg")"
			fi ;;
		CONFIG_*=*)
			sym=${line%%=*}
			if ! grep -qxF -- "$line" "$cfg"; then
				echo "  wanted: $line, got: $(grep -E "^$sym=|^# $sym is not set" "$cfg" || echo "(absent: dependency missing or no such symbol)")"
			fi ;;
		esac
	done <"$fragment"
}

configure() {
	say "configure: make tinyconfig + $(basename "$fragment") (merge_config.sh -m) + olddefconfig"
	(
		cd "$srcdir"
		make -s tinyconfig >/dev/null
		scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
		make -s olddefconfig >/dev/null
	) >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuration failed (log: $log)"; }
	local bad
	bad=$(config_mismatches "$srcdir/.config")
	if [ -n "$bad" ]; then
		echo "debug-kernel: ERROR: fragment options that did not stick in $srcdir/.config:" >&2
		echo "$bad" >&2
		rm -f "$dir/.configured"
		exit 1
	fi
	say "configure: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$fragment") fragment options verified in .config"
	touch "$dir/.configured"
}

# ------------------------------------------------------------- output ----
emit() {
	local kver
	kver=$(cat "$dir/kver")
	local -a kv=(
		"KERNEL=$dir/bzImage"
		"KVER=$kver"
		"KDIR=$srcdir"
		"SRCDIR=$srcdir"
		"MDINC=$srcdir/drivers/md"
		"MODROOT=$dir/modules"
		"MODDIR=$dir/modules/lib/modules/$kver"
		"KCONFIG=$srcdir/.config"
		"DEBUG_KERNEL_DIR=$dir"
	)
	if [ "$mode" = paths ]; then
		local e
		for e in "${kv[@]}"; do printf '%s=%q\n' "${e%%=*}" "${e#*=}"; done
	else
		echo "debug kernel ready ($(cat "$dir/source")):"
		printf '  %s\n' "${kv[@]}"
		echo "build an out-of-tree module: make -C $srcdir M=\$PWD modules"
	fi
}

complete_ok() {
	[ -f "$dir/.complete" ] && [ -f "$dir/bzImage" ] && [ -f "$dir/kver" ] &&
		[ -f "$srcdir/Module.symvers" ] && [ -d "$dir/modules/lib/modules/$(cat "$dir/kver")" ]
}

# --------------------------------------------------------------- main ----
[ -f "$fragment" ] || die "no config fragment at $fragment"
find_source
key=$( { echo "$src_id"; cat "$fragment"; echo "script=$SCRIPT_VERSION"; } | sha256sum | cut -c1-16)
dir=$cache_root/$key
srcdir=$dir/linux
log=$dir/build.log

if [ "$force" = 0 ] && [ "$mode" != config ] && complete_ok; then
	emit
	exit 0
fi

check_deps
if ! mkdir -p "$cache_root" 2>/dev/null || [ ! -w "$cache_root" ]; then
	die "cache directory $cache_root is not writable (set RAID5X_CACHE to a writable directory)"
fi

exec 9>"$cache_root/$key.lock"
if ! flock -n 9; then
	say "another debug-kernel.sh is building $dir; waiting for it"
	flock 9
fi
if [ "$force" = 1 ]; then
	say "--force: removing $dir"
	rm -rf "$dir"
elif [ "$mode" != config ] && complete_ok; then
	emit
	exit 0
fi

mkdir -p "$dir"
rm -f "$dir/.complete"
say "cache $dir (key $key: $src_desc + $(basename "$fragment") + script v$SCRIPT_VERSION)"

if [ ! -f "$srcdir/Makefile" ]; then
	avail=$(df -P -BG "$cache_root" | awk 'NR==2 {sub("G","",$4); print $4}')
	[ "$avail" -ge "$min_free_gb" ] ||
		die "only ${avail} GB free under $cache_root, need ${min_free_gb} GB (free space, or set RAID5X_CACHE elsewhere)"
	say "extract: $tarball ($avail GB free)"
	rm -rf "$dir/src.tmp" "$srcdir" "$dir/.configured"
	mkdir -p "$dir/src.tmp"
	tar -xJf "$tarball" -C "$dir/src.tmp" || die "extracting $tarball failed"
	top=$(ls "$dir/src.tmp")
	if [ "$(echo "$top" | wc -l)" != 1 ] || [ ! -f "$dir/src.tmp/$top/Makefile" ]; then
		die "unexpected tarball layout in $tarball"
	fi
	mv "$dir/src.tmp/$top" "$srcdir"
	rmdir "$dir/src.tmp"
	echo "$src_desc" >"$dir/source"
fi
: >>"$log"

if [ ! -f "$dir/.configured" ] || [ "$mode" = config ]; then
	configure
fi
if [ "$mode" = config ]; then
	say "config-only: $srcdir/.config"
	exit 0
fi

# Build with a heartbeat: a full build takes minutes.
run_make() {
	local what=$1; shift
	say "$what: make $* (-j$jobs, nice $nice_lvl; log $log)"
	local t
	t=$(date +%s)
	# make runs in the background (for the heartbeat), in its own process
	# group (setsid), so that stopping this script stops the whole build
	setsid nice -n "$nice_lvl" make -C "$srcdir" -j"$jobs" "$@" >>"$log" 2>&1 &
	local pid=$!
	trap 'kill -TERM -- -"$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; say "$what: interrupted"; exit 130' INT TERM HUP
	while kill -0 "$pid" 2>/dev/null; do
		for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
		kill -0 "$pid" 2>/dev/null &&
			say "$what: still running ($(( $(date +%s) - t ))s): $(tail -n 1 "$log" | cut -c1-70)"
	done
	if ! wait "$pid"; then
		grep -E 'error|Error' "$log" | tail -n 20 >&2 || true
		die "$what failed (full log: $log)"
	fi
	trap - INT TERM HUP
	say "$what: done in $(( $(date +%s) - t ))s"
}

run_make build bzImage modules
# Only valid after the build: before it, `make kernelrelease` does not yet
# see CONFIG_LOCALVERSION (include/config/auto.conf is made by the build).
kver=$(cat "$srcdir/include/config/kernel.release")
echo "$kver" >"$dir/kver"
run_make modules_prepare modules_prepare
rm -rf "$dir/modules"
run_make modules_install modules_install INSTALL_MOD_PATH="$dir/modules"
# The build/source symlinks point at the tree; keep them (they are correct).
cp "$srcdir/arch/x86/boot/bzImage" "$dir/bzImage"
touch "$dir/.complete"
say "debug kernel $kver built in $(( $(date +%s) - t0 ))s ($(du -sh "$dir" | cut -f1) in $dir)"
emit
