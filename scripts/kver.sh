#!/usr/bin/env bash
# Print the kernel release raid5x builds for by default: the running kernel
# when its headers are installed (/lib/modules/$(uname -r)/build: a user
# builds for the kernel they booted), else the newest installed headers
# tree under /lib/modules (a build machine, a container, this sandbox).
# Other kernel lines: make KVER=6.12 or KVER=7 (scripts/kroot.sh).
#   --newest   the newest installed headers, whatever is running
set -euo pipefail
case ${1:-} in
"" | --newest) ;;
-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
*) echo "usage: scripts/kver.sh [--newest] (--help)" >&2; exit 64 ;;
esac
if [ "${1:-}" != --newest ]; then
	run=$(uname -r)
	if [ -e "/lib/modules/$run/build/Makefile" ]; then
		echo "$run"
		exit 0
	fi
fi
best=""
for d in /lib/modules/*/build; do
	[ -e "$d/Makefile" ] || continue
	v=${d#/lib/modules/}
	v=${v%/build}
	best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "kver.sh: no kernel headers under /lib/modules/*/build;" \
	     "run scripts/setup.sh (installs linux-headers-amd64)" >&2
	exit 1
fi
echo "$best"
