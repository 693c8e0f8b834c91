#!/bin/bash
# demo-guest.sh: runs inside the guest for `make demo` (scripts/demo.sh).
# Loads md-raid5x, creates a raid5x array with the patched mdadm
# (/usr/local/sbin/mdadm-raid5x --create --level=raid5x), shows
# /proc/mdstat and mdadm --detail, writes and verifies it with fio, then
# runs one sequential write job on a raid456 array and on the raid5x array
# (same geometry, same boot, alternating, DEMO_REPS each): MiB/s from fio's
# JSON (jq) and the members' reads from /sys/block/loopN/stat.
# shellcheck source=tests/lib/guest-lib.sh
. /lib/guest-lib.sh

P=/usr/local/sbin/mdadm-raid5x
reps=${DEMO_REPS:-2}
io=192   # MiB per run: 128 rows of 1.5 MiB, no partial row at the end

echo "== loading md-raid5x"
load_md
raid5x_available || { note "md-raid5x.ko is not in the guest"; exit 1; }
modinfo md-raid5x | grep -E '^(filename|version|license|description):'
grep Personalities /proc/mdstat

# members are new sparse files: all zeros, so their parity is already right
# and --assume-clean is correct (mdadm(8)); on used disks, let it resync
read -r -a x <<<"$(make_members 4 256)"
read -r -a r <<<"$(make_members 4 256)"
echo "== $P --create /dev/md0 --level=raid5x --raid-devices=4 --chunk=512 (zeroed members: --assume-clean)"
"$P" --create /dev/md0 --run --level=raid5x --metadata=1.2 --chunk=512 \
	--raid-devices=4 --assume-clean --bitmap=none "${x[@]}"
echo "== /proc/mdstat"
cat /proc/mdstat
echo "== $P --detail /dev/md0"
"$P" --detail /dev/md0

echo "== fio: write 192 MiB to raid5x and read it back, verified (crc32c)"
fio_verify --name=verify --filename=/dev/md0 --rw=write --bs=1M --direct=1 \
	--ioengine=libaio --iodepth=8 --size=${io}M

echo "== raid456 beside it: mdadm --create /dev/md1 --level=5, the same geometry"
mdadm --create /dev/md1 --run --quiet --level=5 --metadata=1.2 --chunk=512 \
	--raid-devices=4 --assume-clean --bitmap=none "${r[@]}"
grep -A1 '^md' /proc/mdstat

# run MD DEVS...: one O_DIRECT sequential 1 MiB write, queue depth 8; print
# "MiB/s member-read-MiB"
run() {
	local md=$1 b a mibs
	shift
	b=$(member_stats "$@")
	mibs=$(fio --eta=never --name=seq --filename="$md" --rw=write --bs=1M \
		--direct=1 --ioengine=libaio --iodepth=8 --size=${io}M \
		--output-format=json | jq -r '.jobs[0].write.bw_bytes / 1048576')
	a=$(member_stats "$@")
	awk -v m="$mibs" -v s=$((${a% *} - ${b% *})) 'BEGIN { printf "%.1f %.1f\n", m, s / 2048 }'
}
echo "== one job, $reps runs each, alternating: fio --rw=write --bs=1M --direct=1 --iodepth=8, $io MiB"
echo 1 >/sys/block/md0/md/raid5x_stats/reset
printf '%-8s %4s %10s %18s\n' array run MiB/s "member reads MiB"
declare -A sum
for ((i = 1; i <= reps; i++)); do
	for a in raid456 raid5x; do
		if [ "$a" = raid456 ]; then read -r mibs rd <<<"$(run /dev/md1 "${r[@]}")"
		else read -r mibs rd <<<"$(run /dev/md0 "${x[@]}")"; fi
		printf '%-8s %4d %10s %18s\n' "$a" "$i" "$mibs" "$rd"
		sum[$a]=$(awk -v s="${sum[$a]:-0}" -v m="$mibs" 'BEGIN { print s + m }')
	done
done
awk -v x="${sum[raid5x]}" -v r="${sum[raid456]}" \
	'BEGIN { printf "raid5x / raid456 throughput (mean of the runs): %.2fx\n", x / r }'
echo "== raid5x's counters for those runs (md/raid5x_stats/)"
for c in write_blocks full_stripes rcw_stripes rmw_stripes preread_blocks delayed; do
	printf '%-16s %s\n' "$c" "$(cat /sys/block/md0/md/raid5x_stats/$c)"
done
echo "(one boot, few runs: a first look; make bench gives medians and spreads)"
