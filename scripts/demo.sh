#!/usr/bin/env bash
# demo.sh: the README's main job (`make demo`).
#
# usage: scripts/demo.sh [-h|--help]
#
# On this host, as root: installs the Debian packages that are missing
# (scripts/setup.sh: apt-get update, apt-get install; and jq), builds md-raid5x.ko
# and the patched mdadm (scripts/build-mdadm.sh: apt-get source mdadm; if
# apt has no deb-src entry it first writes
# /etc/apt/sources.list.d/raid5x-deb-src.sources). Nothing is installed
# into the host's kernel: the rest happens in a QEMU guest
# (scripts/demo-guest.sh) that loads md-raid5x, creates a raid5x array on 4
# loop members with `mdadm --create --level=raid5x`, shows /proc/mdstat and
# `mdadm --detail`, writes and verifies it with fio, then runs one
# sequential write job (O_DIRECT 1 MiB, queue depth 8) on raid456 and on
# raid5x in the same boot: throughput and member reads side by side.
# The full benchmark is `make bench` (scripts/bench.sh).
# Log: build/logs/demo.log.
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
"") ;;
*) echo "demo.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
esac
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
t0=$SECONDS

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		sudo -n "$@" || {
			echo "demo: run as root (or with passwordless sudo): $* changes this host" >&2
			exit 1
		}
	fi
}
echo "demo: [1/4] packages: scripts/setup.sh installs what is missing on this host (apt-get update, apt-get install)"
as_root scripts/setup.sh
if ! command -v jq >/dev/null; then   # until scripts/setup.sh lists it
	echo "demo: jq (fio's JSON in the guest) is missing: apt-get install jq on this host"
	as_root apt-get install -y --no-install-recommends jq </dev/null
fi
echo "demo: [2/4] building md-raid5x.ko (make)"
make module
echo "demo: [3/4] building the patched mdadm (make mdadm; apt-get source mdadm, cached)"
as_root make mdadm
echo "demo: [4/4] QEMU guest: raid5x array, fio verify, raid456 beside it (log build/logs/demo.log)"
scripts/guest.sh --ko md-raid5x.ko --file build/mdadm/mdadm:/usr/local/sbin/mdadm-raid5x \
	--bin "$(command -v jq)" --timeout 900 --boot-timeout 300 --boot-retries 1 \
	--log build/logs/demo.log scripts/demo-guest.sh
echo "demo: done in $((SECONDS - t0)) s. The full benchmark: make bench"
