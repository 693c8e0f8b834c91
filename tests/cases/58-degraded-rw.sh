#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 58-degraded-rw: a degraded array under concurrent reads and writes.
# 4 members, 16 KiB chunks, member 1 failed and removed (mdadm --fail,
# --remove). fio runs two writers (random 4 KiB, O_DIRECT, libaio, iodepth
# 16, each on its own half of the region, crc32c verify of every 64
# blocks written while writing: verify_backlog) and two readers (bs=20k at
# random 4 KiB-aligned offsets over the whole region: every read crosses a
# chunk boundary, so it goes through the stripe cache, and many land on
# the missing member and are rebuilt from parity) for a few seconds; once
# with the default stripe_cache_size, once with the smallest (17), so
# stripes are reused while member reads of their previous use may just
# have completed.
# Afterwards the data must be consistent: the array assembled degraded
# under raid456 reads the same bytes; re-adding the member, raid456 rebuilds
# it (same bytes) and its check finds mismatch_cnt 0.
# Twin: the same on raid456 first (the reference), then on raid5x; the
# assertions name the personality.
# Fails on the module before the fix: raid5x oopses within seconds of the
# first fio run ("BUG: kernel NULL pointer dereference, address:
# 00000000000000b8", RIP end_member_io, from blk_update_request in
# softirq; on the debug kernel "BUG: KASAN: null-ptr-deref in
# end_member_io"): the guest dies in this case.
# timeout: 600
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 12
load_md

sys=/sys/block/md0/md
msz=$(gl_scaled 24 8)            # MiB per member (8 on the debug kernel)
runtime=$(gl_scaled 16 8)        # s per fio run

# fio_rw PERS: the two writers and two readers on md0 for $runtime s;
# fails on a fio error or a verify failure.
rw_n=0
fio_rw() {
	local out rc=0
	rw_n=$((rw_n + 1))
	out=/tmp/fio-rw.$rw_n.log
	[ "$(md_level md0)" = "$1" ] || { note "level $(md_level md0), want $1"; return 1; }
	fio --eta=never --output="$out" /tmp/rw.fio || rc=$?
	if [ "$rc" != 0 ] || grep -qE 'verify: bad|err= *[1-9]' "$out"; then
		note "fio failed (rc=$rc):"
		sed 's/^/#   /' "$out"
		return 1
	fi
	note "fio ok: $(grep -E '^ *(READ|WRITE):' "$out" | tr -s ' ' | tr '\n' ';')"
	note "issued: $(grep -E 'issued rwts' "$out" | tr -s ' ' | tr '\n' ';')"
}

# scenario PERS: the whole story on a fresh array run by PERS (raid5 or
# raid5x); 6 assertions.
scenario() {
	local pers=$1 tag chk devs size region half sum
	read -r tag chk <<<"$(gl_pers "$pers")"
	read -r -a devs <<<"$(make_members 4 "$msz")"
	step() {
		create_raid5 md0 4 16 left-symmetric "${devs[@]}" || return 1
		if [ "$pers" = raid5x ]; then
			to_raid5x md0 || return 1
		fi
		mdadm --manage /dev/md0 --fail "${devs[1]}" >/dev/null 2>&1 || return 1
		mdadm --manage /dev/md0 --remove "${devs[1]}" >/dev/null 2>&1 || return 1
		if [ "$(cat "$sys/degraded")" != 1 ] || [ "$(md_level md0)" != "$pers" ]; then
			note "degraded $(cat "$sys/degraded"), level $(md_level md0)"
			return 1
		fi
	}
	"$chk" "$tag: 4 members, 16 KiB chunks, member 1 failed and removed" step
	size=$(blockdev --getsize64 /dev/md0 2>/dev/null || echo 0)
	region=$((size >> 20 << 20))
	[ "$region" -le $((60 << 20)) ] || region=$((60 << 20))
	half=$((region / 2))
	note "$tag: array $((size >> 20)) MiB, fio region $((region >> 20)) MiB, $runtime s per run"
	cat >/tmp/rw.fio <<-JOB
		[global]
		filename=/dev/md0
		direct=1
		ioengine=libaio
		iodepth=16
		time_based=1
		runtime=$runtime
		[w0]
		rw=randwrite
		bs=4k
		offset=0
		size=$half
		verify=crc32c
		verify_fatal=1
		do_verify=1
		verify_backlog=64
		randseed=11
		[w1]
		rw=randwrite
		bs=4k
		offset=$half
		size=$half
		verify=crc32c
		verify_fatal=1
		do_verify=1
		verify_backlog=64
		randseed=12
		[r0]
		rw=randread
		bs=20k
		blockalign=4k
		norandommap=1
		size=$region
		randseed=13
		[r1]
		rw=randread
		bs=20k
		blockalign=4k
		norandommap=1
		size=$region
		randseed=14
	JOB
	"$chk" "$tag: degraded, 2 writers + 2 readers (bs=20k), default stripe_cache_size ($(cat "$sys/stripe_cache_size" 2>/dev/null)): fio ok" \
		fio_rw "$pers"
	step() {
		echo 17 >"$sys/stripe_cache_size" && fio_rw "$pers"
	}
	"$chk" "$tag: degraded, 2 writers + 2 readers, stripe_cache_size 17: fio ok" step
	sum=$(md_md5 md0 2>/dev/null) || sum=EIO
	note "$tag: md5 of the array: $sum"
	stop_array md0 || true
	step() {
		assemble_raid456 md0 "${devs[0]}" "${devs[2]}" "${devs[3]}" || return 1
		local s
		s=$(md_md5 md0) || return 1
		[ "$s" = "$sum" ] || { note "md5 $s under raid456, $sum under $tag"; return 1; }
	}
	"$chk" "$tag: stop, assemble degraded under raid456: same md5" step
	step() {
		mdadm --zero-superblock "${devs[1]}" &&
			mdadm --manage /dev/md0 --add "${devs[1]}" >/dev/null || return 1
		sleep 0.5
		wait_rebuilt md0 || return 1
		local s
		s=$(md_md5 md0) || return 1
		[ "$s" = "$sum" ] || { note "md5 $s after the rebuild, $sum before"; return 1; }
	}
	"$chk" "$tag: member re-added, raid456 rebuilds it: same md5" step
	"$chk" "$tag: raid456 check after the rebuild: mismatch_cnt 0" check_parity md0
	gl_fresh
}

scenario raid5
scenario raid5x
tap_done
