#!/usr/bin/env bash
# kroot.sh: build roots for the kernels raid5x supports (Debian's 6.1, 6.12
# and 7.x), and builds of md-raid5x.ko in them.
#
# usage: scripts/kroot.sh resolve LINE
#        scripts/kroot.sh prepare KVER
#        scripts/kroot.sh make KVER DIR [MAKE ARGS...]
#        scripts/kroot.sh check KVER
#
#   resolve LINE   print the kernel release to build for. LINE is 6.1 (the
#                  newest bookworm 6.1 headers installed on this host), 6.12
#                  (trixie's linux-headers-amd64 today), 7 (forky's), or a
#                  full release (printed as is once it is known supported).
#   prepare KVER   make everything KVER needs ready and print, for eval:
#                  KVER, ROOT (the build root; empty for a host kernel),
#                  KDIR and MDINC (as seen inside ROOT: the host path is
#                  $ROOT$KDIR), KERNEL and MODDIR (host paths: the guest's
#                  kernel image and its module tree, modules decompressed
#                  and depmod'ed).
#   make KVER DIR [ARGS]
#                  build the module whose sources are in DIR for KVER: runs
#                  scripts/kfeatures.sh KDIR MDINC (if it exists), then
#                  make -C KDIR M=DIR MDINC=MDINC ARGS, in ROOT (chroot, in a
#                  private mount namespace with /proc, DIR and this tree
#                  bind-mounted at their own paths) or on the host. ARGS
#                  words with '=' are variables (e.g. W=1); other words are
#                  the targets (default: modules).
#   check KVER     exit 0 if KVER is of a supported line (6.1, 6.12, 7.x),
#                  else say why (exit 1).
#
# Where a release is built:
#   on this host           when /lib/modules/KVER/build is here (bookworm's
#                          6.1.0-N-amd64: headers and linux-source-6.1 from
#                          scripts/setup.sh); MDINC is build/mdinc/KVER
#                          (scripts/mdheaders.sh)
# else, from its suffix, in a root:
#   X+deb13-amd64          trixie (+ trixie-updates, trixie-security): gcc-14
#   X+deb14-amd64          forky: gcc-16
#   X+deb12-amd64          bookworm-backports (gcc-12, in its own root)
# Their compilers and kbuild tools need glibc >= 2.38, so a root of that
# release is made with debootstrap (minbase) under RAID5X_ROOTS (default
# /var/cache/raid5x/roots/SUITE), and every apt command runs inside it: the
# host's apt sources are never touched. prepare installs linux-headers-KVER
# and linux-source-SERIES there and refuses unless both have the same
# version (md.h from another version means another struct mddev), extracts
# drivers/md/*.h into ROOT/var/lib/raid5x/mdinc/KVER, and unpacks
# linux-image-KVER (with linux-binary-/linux-modules-KVER where the image is
# a meta package, as in forky) into RAID5X_ROOTS/guest/KVER for the QEMU
# guest. Results are cached: a second prepare of the same KVER prints the
# cached assignments (RAID5X_ROOTS/state/KVER.env). The archive is asked
# again (apt-get update in the root) when resolve finds the root's package
# lists older than RAID5X_APT_MAX_AGE seconds (default 3600).
# Needs root for anything but a host kernel. All progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=debroot.sh
. "$here/debroot.sh"
cache=${RAID5X_ROOTS:-/var/cache/raid5x/roots}
mirror=${RAID5X_MIRROR:-http://deb.debian.org/debian}
secmirror=${RAID5X_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
maxage=${RAID5X_APT_MAX_AGE:-3600}
# first line of a prepared KVER's state file; bump when prepare's result
# changes (a cached KVER of an older version is prepared again)
state_version="# kroot state 2"
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}
usage_err() {
	echo "kroot: $*" >&2
	usage >&2
	exit 64
}
die() {
	echo "kroot: error: $*" >&2
	exit 1
}
say() {
	echo "kroot: $*" >&2
}

supported="6.1, 6.12 and 7.x (Debian: 6.1.0-N-amd64 of bookworm, X+deb13-amd64 of trixie or X+deb12-amd64 of bookworm-backports, X+deb14-amd64 of forky)"

# line_of KVER: the supported line of a release (6.1, 6.12, 7); dies for
# any other kernel
line_of() {
	case $1 in
	6.1.*|6.1-*) echo 6.1 ;;
	6.12.*|6.12-*) echo 6.12 ;;
	7.*) echo 7 ;;
	*) die "kernel $1 is not supported: raid5x supports Linux $supported" ;;
	esac
}

# suite_of KVER: where a release is built: host (its headers are installed
# here), trixie, forky or bookworm-backports (a root); dies for an
# unsupported kernel.
suite_of() {
	local k=$1
	line_of "$k" >/dev/null
	if [ -e "/lib/modules/$k/build/Makefile" ]; then
		echo host
		return
	fi
	case $k in
	*+deb13-amd64) echo trixie ;;
	*+deb14-amd64) echo forky ;;
	*+deb12-amd64) echo bookworm-backports ;;
	6.1.0-*-amd64)
		die "linux-headers-$k is not installed on this host: apt-get install linux-headers-$k linux-source-6.1 (scripts/setup.sh installs the current ones)" ;;
	*) die "no headers of $k on this host, and it is no Debian release kroot.sh can fetch ($supported)" ;;
	esac
}

# series_of KVER: the linux-source package's series (6.1, 6.12, 7.2)
series_of() {
	sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$1"
}

need_root() {
	[ "$(id -u)" = 0 ] || die "$1 needs root (debootstrap, chroot); run it as root"
}

# in_root ROOT CMD...: CMD inside ROOT, with a clean environment
in_root() {
	local r=$1
	shift
	# INITRD=No: the kernel images apt installs in a root (trixie's
	# headers depend on one) need no initramfs (Debian's postinst hooks)
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LC_ALL=C DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
}

# write_apt_config ROOT SUITE: sources.list and options of a root
write_apt_config() {
	local r=$1 s=$2
	case $s in
	trixie)
		printf 'deb %s trixie main\ndeb %s trixie-updates main\ndeb %s trixie-security main\n' \
			"$mirror" "$mirror" "$secmirror" ;;
	forky)
		printf 'deb %s forky main\n' "$mirror" ;;
	bookworm-backports)
		printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\ndeb %s bookworm-backports main\n' \
			"$mirror" "$mirror" "$secmirror" "$mirror" ;;
	esac >"$r/etc/apt/sources.list"
	debroot_apt_options "$r"
}

# root_dir SUITE: where its root lives
root_dir() {
	echo "$cache/$1"
}

# ensure_debootstrap: the host tool, installed if missing (this writes
# outside the cache directory: said first)
ensure_debootstrap() {
	command -v debootstrap >/dev/null && return 0
	say "installing debootstrap on this host (apt-get install debootstrap)"
	apt-get install -y --no-install-recommends debootstrap </dev/null >&2 ||
		die "apt-get install debootstrap failed"
}

# make_root SUITE: debootstrap the root (once), write its apt config,
# apt-get update. Under the suite's lock.
make_root() {
	local s=$1 r new dsuite t0
	r=$(root_dir "$s")
	if [ -e "$r/.kroot-complete" ]; then
		return 0
	fi
	ensure_debootstrap
	dsuite=$s
	[ "$s" != bookworm-backports ] || dsuite=bookworm
	new=$r.new
	rm -rf "$new"
	mkdir -p "$new"
	t0=$SECONDS
	say "debootstrap $dsuite into $new (minbase; a few minutes)"
	debroot_make "$dsuite" "$new" "$cache/$s.debootstrap.log" make,xz-utils,kmod,dwarves ||
		die "debootstrap $dsuite failed: see $cache/$s.debootstrap.log"
	write_apt_config "$new" "$s"
	in_root "$new" apt-get update -q >&2 || die "apt-get update in the $s root failed"
	touch "$new/var/lib/apt/lists/.kroot-updated"
	: >"$new/.kroot-complete"
	rm -rf "$r"
	mv "$new" "$r"
	say "$s root ready in $((SECONDS - t0)) s: $r"
}

# lock SUITE: serialize work on a root (fd 8)
lock() {
	mkdir -p "$cache"
	exec 8>"$cache/.$1.lock"
	flock 8
}

# refresh_lists SUITE: apt-get update in the root if its lists are older
# than $maxage seconds
refresh_lists() {
	local r stamp age
	r=$(root_dir "$1")
	stamp=$r/var/lib/apt/lists/.kroot-updated
	age=$maxage
	[ -e "$stamp" ] && age=$(($(date +%s) - $(stat -c %Y "$stamp")))
	[ "$age" -ge "$maxage" ] || return 0
	write_apt_config "$r" "$1"
	say "apt-get update in the $1 root"
	in_root "$r" apt-get update -q >&2 || die "apt-get update in the $1 root failed"
	touch "$stamp"
}

# host_newest SERIES: the newest installed host headers of that series
host_newest() {
	local d v best=""
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		v=${d#/lib/modules/}
		v=${v%/build}
		[[ $v =~ ^6\.1\.0-[0-9]+-amd64$ ]] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] || die "no Debian 6.1 headers installed (/lib/modules/6.1.0-*-amd64/build): run scripts/setup.sh"
	echo "$best"
}

cmd_resolve() {
	local line=$1 s r k
	case $line in
	6.1) host_newest; return ;;
	6.12) s=trixie ;;
	7|7.*)
		if [[ $line =~ ^7(\.[0-9]+)?$ ]]; then s=forky; else suite_of "$line" >/dev/null; echo "$line"; return; fi ;;
	*)
		suite_of "$line" >/dev/null
		echo "$line"
		return ;;
	esac
	need_root "resolve $line"
	lock "$s"
	make_root "$s"
	refresh_lists "$s"
	r=$(root_dir "$s")
	k=$(in_root "$r" apt-cache depends linux-headers-amd64 |
		sed -n 's/^ *Depends: linux-headers-\([0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$k" ] || die "$s's linux-headers-amd64 names no linux-headers-KVER (apt-cache depends in $r)"
	case $line in
	7.*) [[ $k == "$line".* ]] || die "forky's kernel is $k, not $line" ;;
	esac
	suite_of "$k" >/dev/null
	echo "$k"
}

# pkg_version ROOT PKG: installed version of PKG in ROOT ("" if none)
pkg_version() {
	# shellcheck disable=SC2016 # dpkg-query's format
	{ in_root "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$2" 2>/dev/null || true; } |
		awk '$1 == "ii" { print $2 }'
}

# guest_image SUITE KVER OUT: unpack the kernel image and its modules for
# the guest into OUT (OUT/vmlinuz, OUT/lib/modules/KVER with .ko files)
guest_image() {
	local s=$1 k=$2 out=$3 r dl p pkgs=() f v hv
	r=$(root_dir "$s")
	dl=$r/var/lib/raid5x/debs/$k
	rm -rf "$dl" "$out.new"
	mkdir -p "$dl" "$out.new/x"
	# forky: linux-image-KVER is a meta package; vmlinuz is in
	# linux-binary-KVER, the modules in linux-modules-KVER and modules.order
	# and modules.builtin* in linux-base-KVER
	for p in "linux-image-$k" "linux-binary-$k" "linux-modules-$k" "linux-base-$k"; do
		in_root "$r" apt-cache show "$p" >/dev/null 2>&1 && pkgs+=("$p")
	done
	[ ${#pkgs[@]} -gt 0 ] || die "the $s archive has no linux-image-$k"
	say "apt-get download ${pkgs[*]} (in the $s root)"
	# shellcheck disable=SC2016 # the script is for the inner shell
	in_root "$r" sh -c 'cd "$1" && shift && apt-get download -q -o APT::Sandbox::User=root "$@"' _ \
		"/var/lib/raid5x/debs/$k" "${pkgs[@]}" >&2 || die "apt-get download ${pkgs[*]} failed"
	hv=$(pkg_version "$r" "linux-headers-$k")
	for f in "$dl"/*.deb; do
		v=$(dpkg-deb -f "$f" Version)
		[ "$v" = "$hv" ] || die "$(basename "$f") is version $v, linux-headers-$k is $hv"
		dpkg-deb -x "$f" "$out.new/x"
	done
	# vmlinuz: /boot (trixie, bookworm) or the modules directory (forky)
	for f in "$out.new/x/boot/vmlinuz-$k" "$out.new/x/usr/lib/modules/$k/vmlinuz" \
		"$out.new/x/lib/modules/$k/vmlinuz"; do
		[ -f "$f" ] && { mv "$f" "$out.new/vmlinuz"; break; }
	done
	[ -f "$out.new/vmlinuz" ] || die "no vmlinuz in ${pkgs[*]}"
	mkdir -p "$out.new/lib/modules/$k"
	for f in "$out.new/x/usr/lib/modules/$k" "$out.new/x/lib/modules/$k"; do
		[ ! -d "$f" ] || cp -a "$f/." "$out.new/lib/modules/$k/"
	done
	rm -f "$out.new/lib/modules/$k/build" "$out.new/lib/modules/$k/source"
	[ -d "$out.new/lib/modules/$k/kernel" ] || die "no module tree in ${pkgs[*]}"
	rm -rf "$out.new/x" "$dl"
	# busybox's insmod and the guest's modprobe want plain .ko files
	find "$out.new/lib/modules/$k" -name '*.ko.xz' -print0 | xargs -0 -r -n 200 -P "$(nproc)" xz -d
	find "$out.new/lib/modules/$k" -name '*.ko.zst' -print0 | xargs -0 -r -n 200 -P "$(nproc)" zstd -q -d --rm
	find "$out.new/lib/modules/$k" -name '*.ko.gz' -print0 | xargs -0 -r -n 200 gzip -d
	depmod -b "$out.new" "$k" || die "depmod -b $out.new $k failed"
	rm -rf "$out"
	mv "$out.new" "$out"
}

cmd_prepare() {
	local k=$1 s r series hv sv mdinc g st t0 tmp
	s=$(suite_of "$k")
	if [ "$s" = host ]; then
		mdinc=${BUILD:-$top/build}/mdinc/$k
		"$here/mdheaders.sh" "$k" "$mdinc" >&2
		printf "KVER='%s'\nROOT=''\nKDIR='%s'\nMDINC='%s'\nKERNEL='%s'\nMODDIR='%s'\n" \
			"$k" "/lib/modules/$k/build" "$mdinc" "/boot/vmlinuz-$k" "/lib/modules/$k"
		return
	fi
	need_root "prepare $k"
	st=$cache/state/$k.env
	r=$(root_dir "$s")
	g=$cache/guest/$k
	lock "$s"
	if [ "$(head -n 1 "$st" 2>/dev/null)" = "$state_version" ] && [ -e "$r/.kroot-complete" ] && [ -f "$g/vmlinuz" ] &&
		[ -e "$r/lib/modules/$k/build/Makefile" ] && [ -f "$r/var/lib/raid5x/mdinc/$k/md.h" ]; then
		cat "$st"
		return
	fi
	t0=$SECONDS
	make_root "$s"
	series=$(series_of "$k")
	hv=$(pkg_version "$r" "linux-headers-$k")
	sv=$(pkg_version "$r" "linux-source-$series")
	# perl: W=1 runs scripts/kernel-doc, a perl script up to 6.15 that
	# needs Pod::Usage (perl-modules), which minbase's perl-base lacks
	if [ -z "$hv" ] || [ "$hv" != "$sv" ] || [ -z "$(pkg_version "$r" perl)" ]; then
		refresh_lists "$s"
		say "apt-get install linux-headers-$k linux-source-$series perl (in the $s root)"
		local aopt=()
		[ "$s" != bookworm-backports ] || aopt=(-t bookworm-backports)
		in_root "$r" apt-get install -y -q --no-install-recommends ${aopt[@]+"${aopt[@]}"} \
			"linux-headers-$k" "linux-source-$series" perl </dev/null >&2 ||
			die "apt-get install linux-headers-$k linux-source-$series in the $s root failed (is $k still in the archive? scripts/kroot.sh resolve ${series%%.*}...)"
		hv=$(pkg_version "$r" "linux-headers-$k")
		sv=$(pkg_version "$r" "linux-source-$series")
	fi
	if [ -z "$hv" ] || [ "$hv" != "$sv" ]; then
		die "version mismatch in the $s root: linux-headers-$k is ${hv:-missing}, linux-source-$series is ${sv:-missing}; md.h must come from the same version (struct mddev)"
	fi
	mdinc=/var/lib/raid5x/mdinc/$k
	if [ ! -f "$r$mdinc/md.h" ] || [ "$r$mdinc/md.h" -ot "$r/usr/src/linux-source-$series.tar.xz" ]; then
		say "extracting drivers/md/*.h of linux-source-$series $sv into $r$mdinc"
		tmp=$(mktemp -d "$cache/.mdinc.XXXXXX")
		tar -xJf "$r/usr/src/linux-source-$series.tar.xz" -C "$tmp" --wildcards \
			--no-wildcards-match-slash "linux-source-$series/drivers/md/*.h" ||
			{ rm -rf "$tmp"; die "cannot extract drivers/md/*.h from linux-source-$series"; }
		rm -rf "$r$mdinc"
		mkdir -p "$r$mdinc"
		cp "$tmp/linux-source-$series"/drivers/md/*.h "$r$mdinc/"
		rm -rf "$tmp"
		echo "$sv" >"$r$mdinc/.version"
	fi
	if [ ! -f "$g/vmlinuz" ]; then
		say "unpacking linux-image-$k for the guest into $g"
		guest_image "$s" "$k" "$g"
	fi
	mkdir -p "$cache/state"
	printf "%s\nKVER='%s'\nROOT='%s'\nKDIR='%s'\nMDINC='%s'\nKERNEL='%s'\nMODDIR='%s'\n" \
		"$state_version" "$k" "$r" "/lib/modules/$k/build" "$mdinc" "$g/vmlinuz" "$g/lib/modules/$k" >"$st.new"
	mv "$st.new" "$st"
	say "$k ready in $((SECONDS - t0)) s ($s root, headers and source $hv)"
	cat "$st"
}

cmd_make() {
	local k=$1 dir=$2 env a vars=() targets=() feat=""
	shift 2
	[ -d "$dir" ] || usage_err "make: no such directory $dir"
	dir=$(cd "$dir" && pwd)
	for a in "$@"; do
		if [[ $a == *=* ]]; then vars+=("$a"); else targets+=("$a"); fi
	done
	[ ${#targets[@]} -gt 0 ] || targets=(modules)
	env=$(cmd_prepare "$k")
	local ROOT KDIR MDINC
	eval "$(grep -E '^(ROOT|KDIR|MDINC)=' <<<"$env")"
	[ ! -x "$top/scripts/kfeatures.sh" ] || feat=$top/scripts/kfeatures.sh
	if [ -z "$ROOT" ]; then
		if [ -n "$feat" ]; then
			"$feat" "$KDIR" "$MDINC" >&2 || die "scripts/kfeatures.sh $KDIR $MDINC failed"
		fi
		exec make -C "$KDIR" M="$dir" MDINC="$MDINC" "${vars[@]}" "${targets[@]}"
	fi
	# in ROOT: a private mount namespace; /proc (7.x objtool), /dev when
	# the root has no device nodes, DIR and this tree at their own paths
	mkdir -p "$ROOT$dir" "$ROOT$top"
	# shellcheck disable=SC2016 # the script is for the inner shell
	unshare -m --propagation private sh -ec '
		r=$1 dir=$2 top=$3
		shift 3
		mount -t proc proc "$r/proc"
		[ -c "$r/dev/null" ] || mount --rbind /dev "$r/dev"
		mount --bind "$top" "$r$top"
		[ "$dir" = "$top" ] || mount --bind "$dir" "$r$dir"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 "$@"
	' _ "$ROOT" "$dir" "$top" sh -ec '
		feat=$1 kdir=$2 mdinc=$3 dir=$4
		shift 4
		[ -z "$feat" ] || "$feat" "$kdir" "$mdinc" >&2
		exec make -C "$kdir" M="$dir" MDINC="$mdinc" "$@"
	' _ "$feat" "$KDIR" "$MDINC" "$dir" "${vars[@]}" "${targets[@]}"
}

[ $# -ge 1 ] || usage_err "missing command"
case $1 in
-h|--help|help) usage; exit 0 ;;
resolve)
	[ $# = 2 ] || usage_err "usage: resolve LINE"
	cmd_resolve "$2" ;;
prepare)
	[ $# = 2 ] || usage_err "usage: prepare KVER"
	cmd_prepare "$(cmd_resolve "$2")" ;;
make)
	[ $# -ge 3 ] || usage_err "usage: make KVER DIR [MAKE ARGS]"
	k=$(cmd_resolve "$2")
	shift 2
	cmd_make "$k" "$@" ;;
check)
	[ $# = 2 ] || usage_err "usage: check KVER"
	line_of "$2" >/dev/null ;;
*) usage_err "unknown command $1" ;;
esac
