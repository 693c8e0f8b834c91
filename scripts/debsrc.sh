# shellcheck shell=bash disable=SC2016  # apt format strings are literal
# debsrc.sh: Debian source packages for the tools built for the test guest
# (scripts/build-mdadm.sh, scripts/build-fio.sh source this file after
# defining `die MSG`; messages start with the script's name).

# debsrc_version PKG [SUITE]: print the newest source version of PKG apt
# knows; with SUITE (a Debian codename: bookworm), the newest one of that
# suite's deb-src entry, whatever other releases apt has sources of (a
# trixie or forky machine's deb-src). First writes a deb-src entry,
# /etc/apt/sources.list.d/raid5x-deb-src.sources (SUITE and SUITE-updates,
# deb.debian.org; bookworm without SUITE; another SUITE goes to
# raid5x-deb-src-SUITE.sources, forky without -updates, which it has not),
# and runs apt-get update, if apt has no deb-src entry (with SUITE: none of
# SUITE's).
debsrc_version() {
	local v suite=${2:-bookworm} filter=() list=raid5x-deb-src
	[ -z "${2:-}" ] || filter=("Release: $suite")
	[ "$suite" = bookworm ] || list=raid5x-deb-src-$suite
	# testing (forky) has no -updates suite
	local suites="$suite $suite-updates"
	[ "$suite" != forky ] || suites=$suite
	if ! apt-get indextargets --format '$(CREATED_BY)' 'Created-By: Sources' ${filter[@]+"${filter[@]}"} 2>/dev/null |
		grep -qx Sources; then
		[ "$(id -u)" = 0 ] || die "no deb-src entry${2:+ of $suite} for apt and not root; add one"
		echo "${0##*/}: apt has no deb-src entry${2:+ of $suite}: writing /etc/apt/sources.list.d/$list.sources ($suite, deb.debian.org) and running apt-get update" >&2
		cat >"/etc/apt/sources.list.d/$list.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		apt-get update -q >&2 || die "apt-get update failed"
	fi
	if [ -n "${2:-}" ]; then
		# madison's source lines: " PKG | VERSION | URI SUITE/COMPONENT Sources";
		# SUITE-updates counts too (the entry written above names it)
		v=$(apt-cache madison "$1" 2>/dev/null | awk -F'|' -v s="$suite" '
			{ n = split($3, f, " ") }
			n >= 2 && f[n] == "Sources" &&
			(index(f[n - 1], s "/") == 1 || index(f[n - 1], s "-updates/") == 1) {
				gsub(/ /, "", $2); print $2
			}' |
			sort -V | tail -n 1)
	else
		v=$(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	fi
	[ -n "$v" ] || die "apt knows no source package $1${2:+ in $suite} (deb-src missing?)"
	echo "$v"
}

# debsrc_need PKG...: install the (build-dependency) packages not installed.
debsrc_need() {
	local p
	for p in "$@"; do
		if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | cut -c1-2)" != ii ]; then
			echo "${0##*/}: apt-get install $p"
			apt-get install -y --no-install-recommends "$p" </dev/null >/dev/null ||
				die "cannot install $p"
		fi
	done
}

# debsrc_fetch PKG VERSION DIR: apt-get source PKG=VERSION into DIR (emptied
# first; log DIR.log), print the unpacked source tree.
debsrc_fetch() {
	local pkg=$1 ver=$2 dir=$3 tree
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "${0##*/}: apt-get source $pkg=$ver" >&2
	(cd "$dir" && apt-get source -q "$pkg=$ver" >"$dir.log" 2>&1) ||
		{ tail -n 5 "$dir.log" >&2; die "apt-get source $pkg failed"; }
	tree=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
	[ -n "$tree" ] || die "no $pkg-* directory after apt-get source"
	echo "$tree"
}
