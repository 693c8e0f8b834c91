#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 85-dm-faults: faults injected for real below the members of a raid5x
# array. Each member is a device-mapper device (linear) over a loop device;
# its table is swapped under the running array to inject faults.
#
# Read errors (the block must be rebuilt from parity, returned, written
# back, and counted in md/dev-*/errors; the member stays):
#   - Debian's kernel: member 1 sits on dm-integrity (separate metadata
#     device, so data sectors map 1:1 to the loop device); overwriting a
#     block of the loop device behind dm-integrity makes its reads fail
#     (checksum) until the block is written again: a bad sector that a
#     rewrite fixes. (dm-flakey of 6.1 has no error_reads: a flakey device
#     that fails reads fails the rewrite too.)
#   - a kernel with fail_make_request (the debug kernel):
#     /sys/block/dm-N/make-it-fail with debugfs fail_make_request times=2.
# Then: a member that keeps failing reads (md/max_read_errors 2, six bad
# blocks) is failed; rebuilt by raid5x; a write error (dm-flakey
# error_writes) fails the member and the data verifies degraded; a second
# member failing (dm error target) fails the array cleanly: reads return
# right data or an I/O error, never wrong data; writes fail.
# timeout: 900
# debug-kernel: yes
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

export DM_DISABLE_UDEV=1 # no udev in the guest: use /dev/dm-N (devtmpfs)
tap_plan 17
load_md
for m in dm-mod dm-flakey dm-integrity; do
	modprobe "$m" 2>/dev/null || true
done

fmr=/sys/kernel/debug/fail_make_request
if [ -d "$fmr" ]; then
	method=fail_make_request
elif dmsetup targets 2>/dev/null | grep -q '^integrity'; then
	method=dm-integrity
else
	method=none
fi
note "read errors injected with: $method"


msz=6 # MiB per member
read -r -a loops <<<"$(make_members 5 "$msz")"
sz=$((msz * 2048)) # sectors
base=("${loops[0]}" "${loops[1]}" "${loops[2]}" "${loops[3]}")
if [ "$method" = dm-integrity ]; then
	# data sectors map 1:1 to loops[1]; tags and journal on loops[4]
	dmsetup create r5xi1 --table "0 $sz integrity ${loops[1]} 0 4 D 2 meta_device:${loops[4]} internal_hash:crc32c"
	base[1]=$(dm_node r5xi1)
	# every tag valid before md reads anything
	dd if=/dev/zero of="${base[1]}" bs=1M oflag=direct status=none 2>/dev/null || true
fi
mdev=()
for i in 0 1 2 3; do
	dmsetup create "r5x$i" --table "0 $sz linear ${base[$i]} 0"
	mdev+=("$(dm_node "r5x$i")")
done
sys=/sys/block/md0/md
rd() { echo "$sys/dev-${mdev[$1]##*/}"; } # md's sysfs dir of member $1

step() {
	create_raid5 md0 4 64 left-symmetric "${mdev[@]}" || return 1
	# no bad-block log: a write error must fail the member, not be logged
	stop_array md0 || return 1
	mdadm --assemble --run --quiet --update=no-bbl /dev/md0 "${mdev[@]}" || return 1
	to_raid5x md0
}
tap_check "raid5x array over 4 dm members (${mdev[*]})" step
size=$(blockdev --getsize64 /dev/md0)
head -c "$size" /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/md0 bs=192k oflag=direct status=none
doff=$(cat "$(rd 1)/offset") # member data offset, sectors
note "array $((size >> 20)) MiB, member data offset $doff sectors"

# Geometry (left-symmetric, 4 members, 64 KiB chunks): row r keeps parity
# on member 3 - r % 4 and data chunk j on member (parity + 1 + j) % 4.
# chunk_on_m1 ROW: print the array chunk number stored on member 1 in ROW
# (none if member 1 holds the parity of ROW).
chunk_on_m1() {
	local r=$1 pd j
	pd=$((3 - r % 4))
	for j in 0 1 2; do
		if [ $(((pd + 1 + j) % 4)) = 1 ]; then
			echo $((r * 3 + j))
			return 0
		fi
	done
	return 1
}

# expect ARRAY_BYTE LEN: the bytes written there (from /tmp/data).
# (No <(...) in guest scripts: the guest has no /dev/fd.)
expect() { dd if=/tmp/data bs=4k skip=$(($1 / 4096)) count=$(($2 / 4096)) status=none; }

# inject_read_error ROW [TIMES]: make member 1 fail reads of the first
# 4 KiB of its chunk in ROW (dm-integrity: corrupt the block below it;
# fail_make_request: fail the next TIMES requests to member 1).
inject_read_error() {
	local r=$1 times=${2:-2}
	case $method in
	dm-integrity)
		dd if=/dev/urandom of="${loops[1]}" bs=512 seek=$((doff + r * 128)) \
			count=8 oflag=direct conv=notrunc status=none ;;
	fail_make_request)
		# no superblock write may take the injected failure: md marks
		# the array clean (a superblock write) safe_mode_delay after
		# the last write
		wait_clean || return 1
		echo 1 >"$fmr/verbose" # 2 would dump a stack: a splat to guest.sh
		echo 100 >"$fmr/probability"
		echo 1 >"$fmr/interval"
		echo "$times" >"$fmr/times"
		echo 1 >"/sys/block/${mdev[1]##*/}/make-it-fail" ;;
	*) return 1 ;;
	esac
}
# wait_clean: the array clean and its superblock write over. array_state
# shows "clean" as soon as md sets in_sync, before md_update_sb has written
# the superblocks that record it; a failure injected in that gap fails the
# superblock write, and md fails member 1 (seen once, CI of c1a2903). So
# also wait until member 1 has no request in flight and its written
# sectors stay the same across 0.2 s.
wait_clean() {
	local i st fl w prev=none
	for ((i = 0; i < 100; i++)); do
		read -r st <"$sys/array_state"
		fl=$(cat "/sys/block/${mdev[1]##*/}/inflight")
		w=$(m1_writes)
		[ "$st" = clean ] && [ "${fl//[[:space:]]/}" = 00 ] &&
			[ "$w" = "$prev" ] && return 0
		prev=$w
		gl_nap 0.2
	done
	note "array_state $st, member 1 inflight '$fl', not settled"
	return 1
}
inject_off() {
	[ "$method" != fail_make_request ] ||
		echo 0 >"/sys/block/${mdev[1]##*/}/make-it-fail"
}

m1_in_array() { md_member_in md0 "${mdev[1]}"; }
m1_errors() { cat "$(rd 1)/errors"; }
m1_writes() { # sectors written to member 1 (member_stats: "READ WRITE")
	local s
	s=$(member_stats "${mdev[1]}") && echo "${s#* }"
}

# --- read error, O_DIRECT read across a chunk boundary --------------------
r=4
k=$(chunk_on_m1 $r)
e0=$(m1_errors)
w0=$(m1_writes)
inject_read_error $r
off=$((k * 65536 - 4096)) # 4 KiB of chunk k-1, then 4 KiB of chunk k
got=$(dd if=/dev/md0 bs=4k skip=$((off / 4096)) count=2 iflag=direct status=none | md5sum) || got=EIO
inject_off
tap_check "O_DIRECT read across a chunk boundary, read error on member 1: right data" \
	test "$got" = "$(expect "$off" 8192 | md5sum)"
tap_check "member 1 still in the array (not faulty, degraded 0)" m1_in_array
e1=$(m1_errors)
tap_check "md/dev-${mdev[1]##*/}/errors counted the corrected read ($e0 -> $e1)" \
	test "$e1" -gt "$e0"
step() { # the block was written back: member writes, right contents below md
	local w1
	w1=$(m1_writes)
	[ "$w1" -gt "$w0" ] || { note "no write to member 1 ($w0 -> $w1 sectors)"; return 1; }
	expect $((k * 65536)) 4096 >/tmp/want
	dd if="${base[1]}" bs=512 skip=$((doff + r * 128)) count=8 iflag=direct \
		status=none | cmp - /tmp/want
}
tap_check "the block was rewritten on member 1 (reads back right below md)" step

# --- read error, buffered read ---------------------------------------------
r=5
k=$(chunk_on_m1 $r)
inject_read_error $r
sync
echo 3 >/proc/sys/vm/drop_caches
got=$(dd if=/dev/md0 bs=4k skip=$((k * 16)) count=1 status=none | md5sum) || got=EIO
inject_off
tap_check "buffered read, read error on member 1: right data" \
	test "$got" = "$(expect $((k * 65536)) 4096 | md5sum)"
e2=$(m1_errors)
step() { m1_in_array && [ "$e2" -gt "$e1" ]; }
tap_check "member 1 stays, errors counted again ($e1 -> $e2)" step

# --- a member that keeps failing reads -------------------------------------
echo 2 >"$sys/max_read_errors"
rows=(7 8 9 11 12 13)
if [ "$method" = fail_make_request ]; then
	inject_read_error 0 -1
else
	for r in "${rows[@]}"; do
		inject_read_error "$r"
	done
fi
bad=0
for r in "${rows[@]}"; do
	k=$(chunk_on_m1 "$r")
	got=$(dd if=/dev/md0 bs=4k skip=$((k * 16)) count=1 iflag=direct status=none | md5sum) ||
		got=EIO
	[ "$got" = "$(expect $((k * 65536)) 4096 | md5sum)" ] || bad=$((bad + 1))
done
inject_off
tap_check "six reads of failing blocks on member 1: all right data ($bad wrong)" test "$bad" = 0
step() {
	local st
	st=$(cat "$(rd 1)/state")
	note "member 1: state '$st', errors $(m1_errors), max_read_errors $(cat "$sys/max_read_errors")"
	[[ $st == *faulty* ]] && [ "$(cat "$sys/degraded")" = 1 ]
}
tap_check "member 1 failed after more than max_read_errors read errors" step
want=$(md5sum </tmp/data | cut -d' ' -f1)
tap_check "degraded array reads back every byte" test "$(md_md5 md0)" = "$want"

# --- raid5x rebuilds member 1 ----------------------------------------------
step() {
	mdadm --manage /dev/md0 --fail "${mdev[1]}" >/dev/null 2>&1 # if still in
	mdadm --manage /dev/md0 --remove "${mdev[1]}" >/dev/null 2>&1 || return 1
	mdadm --zero-superblock "${mdev[1]}" || return 1
	mdadm --manage /dev/md0 --add "${mdev[1]}" >/dev/null || return 1
	wait_rebuilt md0 300 || return 1
	[ "$(cat "$sys/degraded")" = 0 ] && [ "$(md_level md0)" = raid5x ] &&
		[ "$(md_md5 md0)" = "$want" ]
}
tap_check "raid5x rebuilds member 1 (remove, add): degraded 0, same bytes" step

# --- write error: dm-flakey error_writes on member 2 -----------------------
dm_swap r5x2 "0 $sz flakey ${base[2]} 0 0 1 1 error_writes"
fio_reg=$((4 << 20))
step() {
	fio_verify --name=werr --filename=/dev/md0 --rw=randwrite --bsrange=4k-192k \
		--size="$fio_reg" --direct=1 --ioengine=libaio --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --randrepeat=1
}
tap_check "fio write+verify while member 2 fails every write" step
step() {
	local st
	st=$(cat "$sys/dev-${mdev[2]##*/}/state")
	note "member 2 state '$st'; $(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' ')"
	[[ $st == *faulty* ]] && [ "$(cat "$sys/degraded")" = 1 ] &&
		[ "$(md_level md0)" = raid5x ]
}
tap_check "the write error failed member 2; raid5x runs degraded" step
rest=$((size - fio_reg))
step() {
	dd if=/tmp/data of=/tmp/want bs=1M skip=$((fio_reg >> 20)) status=none
	dd if=/dev/md0 bs=1M skip=$((fio_reg >> 20)) iflag=direct status=none |
		cmp - /tmp/want
}
tap_check "degraded: the $((rest >> 20)) MiB fio did not touch read back unchanged" step

# --- second failure: member 0 returns errors for everything ----------------
# a small stripe cache: the reads below must reach the members, not
# pages cached since the fill
echo 32 >"$sys/stripe_cache_size"
dm_swap r5x0 "0 $sz error"
wrong=0 errs=0 okc=0
# 8 rows (24 chunks) past the fio region: every member holds data there
for ((k = fio_reg / 65536; k < fio_reg / 65536 + 24; k++)); do
	if dd if=/dev/md0 of=/tmp/chunk bs=64k skip="$k" count=1 iflag=direct status=none 2>/dev/null; then
		expect $((k * 65536)) 65536 >/tmp/want
		if cmp -s /tmp/chunk /tmp/want; then
			okc=$((okc + 1))
		else
			wrong=$((wrong + 1))
		fi
	else
		errs=$((errs + 1))
	fi
done
note "second failure: $okc chunks right, $errs I/O errors, $wrong wrong"
tap_check "second failure: reads give right data or I/O errors, never wrong data" \
	test "$wrong" = 0 -a "$errs" -gt 0 -a "$okc" -gt 0
tap_check "second failure: a write fails with an I/O error" \
	fails dd if=/dev/zero of=/dev/md0 bs=4k count=1 seek=$((fio_reg / 4096)) oflag=direct status=none
step() {
	note "$(grep -A1 '^md0 :' /proc/mdstat | tr '\n' ' '); degraded $(cat "$sys/degraded")"
	[ "$(cat "$sys/degraded")" = 2 ]
}
tap_check "md reports two members failed (degraded 2)" step
tap_done
