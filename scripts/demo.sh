#!/usr/bin/env bash
# demo.sh: the README's main job (`make demo`).
#
# Installs what is missing, builds md-raid5x.ko for the Debian kernel, boots
# a QEMU guest, creates a raid5x array on loop devices, writes and reads it
# with fio (verified), and prints /proc/mdstat and the throughput; then runs
# the side-by-side benchmark (raid456 vs raid5x vs raid0, scripts/bench.sh)
# unless DEMO_BENCH=0.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

echo "demo: [1/4] installing packages (scripts/setup.sh)"
if [ "$(id -u)" = 0 ]; then
	scripts/setup.sh
else
	sudo -n scripts/setup.sh || {
		echo "demo: run as root (or with passwordless sudo): apt-get installs packages" >&2
		exit 1
	}
fi
echo "demo: [2/4] building md-raid5x.ko"
make module
echo "demo: [3/4] booting the guest: raid5x array on 4 loop members"
scripts/guest.sh --ko md-raid5x.ko --timeout 900 --log build/logs/demo.log \
	scripts/demo-guest.sh
if [ "${DEMO_BENCH:-1}" != 0 ] && [ -x scripts/bench.sh ]; then
	echo "demo: [4/4] side-by-side benchmark (scripts/bench.sh)"
	scripts/bench.sh
else
	echo "demo: [4/4] benchmark skipped"
fi
