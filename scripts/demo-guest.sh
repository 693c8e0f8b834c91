#!/bin/bash
# demo-guest.sh: runs inside the guest for `make demo`: a raid5x array on
# four loop members, written and read back with fio, /proc/mdstat and the
# throughput printed.
# shellcheck source=tests/lib/guest-lib.sh
. /lib/guest-lib.sh

load_md
raid5x_available || { note "md-raid5x.ko is not in the guest"; exit 1; }
read -r -a devs <<<"$(make_members 4 256)"
create_raid5 md0 4 512 left-symmetric "${devs[@]}"
to_raid5x md0
echo "== /proc/mdstat"
cat /proc/mdstat
echo "== raid5x tunables"
for f in stripe_cache_size preread_bypass_threshold preread_batch seq_delay_ms stall_grace_ms wake_batch_pct; do
	printf '%-26s %s\n' "$f" "$(cat /sys/block/md0/md/$f)"
done
job() { # name fio-args...
	local name=$1 out
	shift
	out=$(fio --eta=never --name="$name" --filename=/dev/md0 --size=384M \
		--output-format=terse --terse-version=3 "$@")
	# terse v3: field 7 read KiB/s, 48 write KiB/s
	awk -F';' -v n="$name" '{ printf "%-34s read %7.1f MiB/s  write %7.1f MiB/s\n", n, $7/1024, $48/1024 }' <<<"$out"
}
echo "== fio on raid5x (each write job verified with crc32c)"
job seq-write-1M-qd8 --rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=8 \
	--verify=crc32c --verify_fatal=1
job seq-read-1M-qd8 --rw=read --bs=1M --direct=1 --ioengine=libaio --iodepth=8
job rand-write-4k-qd32 --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=32 --size=64M --verify=crc32c --verify_fatal=1
echo "== raid5x counters"
cat /sys/block/md0/md/raid5x_counters
