#!/usr/bin/env bash
# Print the Debian kernel version raid5x builds for: the newest installed
# linux-headers tree under /lib/modules (never the running kernel's `uname -r`).
set -euo pipefail
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
