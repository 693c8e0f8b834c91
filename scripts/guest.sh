#!/usr/bin/env bash
# guest.sh: boot a QEMU (TCG) guest from an initramfs and run one script in it.
#
# usage: scripts/guest.sh [options] GUEST_SCRIPT [ARGS...]
#   --kernel BZIMAGE   guest kernel (default /boot/vmlinuz-KVER)
#   --moddir DIR       its module tree (default /lib/modules/KVER; may be
#                      missing when md/raid456/loop are built in)
#   --kver KVER        kernel release (default: read from BZIMAGE's header,
#                      else scripts/kver.sh)
#   --ko FILE.ko       extra module, installed as /lib/modules/KVER/extra/
#                      (repeatable); depmod runs so modprobe finds it
#   --fio FILE         the guest's /usr/bin/fio (default the host's), e.g.
#                      the lean build of scripts/build-fio.sh (env GUEST_FIO)
#   --bin FILE         one more host program in the guest, at the same
#                      path, with its shared libraries (repeatable), e.g.
#                      /usr/bin/perf for `scripts/bench.sh --profile`
#   --file SRC:DEST    copy a host file or directory to guest path DEST
#                      (repeatable)
#   --timeout SEC      stop the guest after SEC seconds (default 600): each
#                      vCPU's RIP from QEMU's monitor goes to LOG.monitor,
#                      then an NMI panics the guest with every CPU's
#                      backtrace on its console (a guest frozen with
#                      interrupts off too), then QEMU is killed
#   --boot-timeout SEC give up as --timeout does if /init has not started
#                      SEC seconds after QEMU did (no "GUEST-INIT: kernel"
#                      line: a boot QEMU TCG lost, e.g. hung in early ACPI
#                      set-up); exit status 4. 0 (default): --timeout only
#   --boot-retries N   after a lost boot (--boot-timeout), keep its console
#                      as LOG.lost and boot again, up to N times (default
#                      0); /init never ran, so no disk was touched
#   --mem MB           guest memory (default 3072; members live on tmpfs)
#   --smp N            guest CPUs (default 2)
#   --tcg-thread MODE  multi (default): a host thread per guest CPU;
#                      single: all guest CPUs in one host thread (QEMU
#                      -accel tcg,thread=single; the guest still has --smp
#                      CPUs, run in turn), for a guest that shares the
#                      host's cores with other work (env GUEST_TCG_THREAD)
#   --clock SOURCE     the guest's clocksource: tsc (default; booted with
#                      tsc=reliable) or hpet (env GUEST_CLOCK). Under TCG
#                      the TSC is read from the host's clock, but a guest
#                      booting on a loaded host may find it "unsynchronized"
#                      and fall back to the emulated HPET, whose every read
#                      is a device access in QEMU (10-15% of the md thread's
#                      samples in docs/reports/profile-2026-11-30.md): the
#                      clocksource then depended on the host's load at boot
#   --append ARGS      extra kernel command line
#   --log FILE         console log (default build/logs/<script>.log)
#   --out FILE         write the guest's @@OUT-BEGIN@@/@@OUT-END@@ blocks
#                      (emit_out in tests/lib/guest-lib.sh) to FILE
#   --quiet            do not stream the console to stdout
#   --hung SEC         panic the guest when a task is blocked SEC seconds
#                      (hung_task_timeout_secs + hung_task_panic; default
#                      120, 0 disables)
#   --disk FILE        attach the host raw image FILE as a virtio-blk disk
#                      (repeatable: /dev/vda, /dev/vdb, ... in order); its
#                      contents outlive the guest. /init loads virtio_blk
#                      and waits for the disks.
#   --expect-crash     the guest is meant to die: it writes a line holding
#                      "GUEST-CRASH:" to the console (e.g. to /dev/kmsg),
#                      then resets itself (echo b >/proc/sysrq-trigger; no
#                      sync, QEMU exits on the reset). Exit 0 if it did so
#                      with a clean kernel log, 1 if the guest script ended
#                      instead (verdict PASS or FAIL), 3 if it died without
#                      the marker or with a kernel panic.
#
# The guest runs GUEST_SCRIPT as /run.sh under bash with ARGS, in /tmp, after
# /init has mounted proc/sys/devtmpfs/tmpfs/debugfs and loaded crc32c_generic
# and libcrc32c (where they are modules), md_mod, raid456 and loop.
# Kernels of other releases (scripts/kroot.sh prepare prints KERNEL, MODDIR,
# KVER): --kernel KERNEL --moddir MODDIR --kver KVER; the module tree must
# hold plain .ko files (kroot.sh decompresses Debian's .ko.xz). tests/lib/guest-lib.sh is at /lib/guest-lib.sh.
# /init prints "GUEST-VERDICT: PASS" or "GUEST-VERDICT: FAIL rc=N", then the
# whole dmesg between @@DMESG-BEGIN@@ and @@DMESG-END@@, then powers off.
#
# exit status: 0  verdict PASS and a clean kernel log (--expect-crash: the
#                 announced crash and a clean kernel log)
#              1  verdict FAIL (the guest script failed; --expect-crash:
#                 any verdict)
#              2  kernel log shows a splat (WARNING:, BUG:, lockdep, ...)
#                 or a failed KUnit case ("not ok N"), whatever the verdict
#              3  timeout, or the guest died without a verdict (panic)
#              4  --boot-timeout: /init never started
#              64 usage or host-side setup error
# Environment: GUEST_QUIET=1 is --quiet, GUEST_HUNG_S=N is --hung N; BUILD
# overrides the build directory.
set -euo pipefail
# The body is one { } block: bash parses it whole before running, so
# editing this file while a run is in progress cannot corrupt that run.
{

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD:-$top/build}
self=$here/$(basename "${BASH_SOURCE[0]}")

# Host programs copied into the guest (with their shared libraries).
guest_bins=(
	/bin/bash /usr/sbin/mdadm /usr/bin/fio /usr/sbin/mke2fs /usr/sbin/e2fsck
	/usr/sbin/tune2fs /usr/sbin/dumpe2fs /usr/sbin/debugfs /usr/sbin/dmsetup
	/usr/bin/kmod /usr/sbin/losetup /usr/sbin/blockdev /usr/sbin/wipefs
	/usr/bin/dd /usr/bin/sha256sum /usr/bin/md5sum /usr/bin/cmp /usr/bin/jq
)
# Parts of the module tree copied into the guest (if present).
guest_mod_paths=(
	kernel/drivers/md kernel/drivers/block/loop.ko
	kernel/drivers/block/virtio_blk.ko kernel/drivers/virtio
	kernel/crypto kernel/lib kernel/arch/x86/crypto kernel/arch/x86/lib
	kernel/fs/ext4 kernel/fs/jbd2 kernel/fs/mbcache.ko
	modules.order modules.builtin modules.builtin.modinfo
)

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$self" >&2
	exit 64
}
help() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$self"
	exit 0
}
die() {
	echo "guest.sh: $*" >&2
	exit 64
}
log() {
	echo "guest.sh: $*" >&2
}

kernel="" moddir="" kver="" fio=${GUEST_FIO:-} timeout=600 boot_timeout=0 boot_retries=0 mem=3072 smp=2 tcgthread=${GUEST_TCG_THREAD:-multi} clock=${GUEST_CLOCK:-tsc} append="" logf="" outf=""
hung=${GUEST_HUNG_S:-120}
quiet=${GUEST_QUIET:-0}
kos=() files=() disks=()
expect_crash=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:?--kernel needs a file}; shift 2 ;;
	--moddir) moddir=${2:?--moddir needs a directory}; shift 2 ;;
	--kver) kver=${2:?--kver needs a release}; shift 2 ;;
	--ko) kos+=("${2:?--ko needs a file}"); shift 2 ;;
	--fio) fio=${2:?--fio needs a file}; shift 2 ;;
	--bin)
		[ -x "${2:?--bin needs a program}" ] || die "--bin $2: not an executable file"
		guest_bins+=("$2"); shift 2 ;;
	--file) files+=("${2:?--file needs SRC:DEST}"); shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--boot-timeout) boot_timeout=${2:?}; shift 2 ;;
	--boot-retries) boot_retries=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--tcg-thread) tcgthread=${2:?}; shift 2 ;;
	--clock) clock=${2:?}; shift 2 ;;
	--append) append=${2:?}; shift 2 ;;
	--log) logf=${2:?}; shift 2 ;;
	--out) outf=${2:?}; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--hung) hung=${2:?}; shift 2 ;;
	--disk) disks+=("${2:?--disk needs a file}"); shift 2 ;;
	--expect-crash) expect_crash=1; shift ;;
	-h|--help) help ;;
	--) shift; break ;;
	-*) echo "guest.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
script=$1
shift
[ -f "$script" ] || die "no such guest script: $script"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout must be seconds"
[[ $boot_timeout =~ ^[0-9]+$ ]] || die "--boot-timeout must be seconds"
[[ $boot_retries =~ ^[0-9]+$ ]] || die "--boot-retries must be a count"
[ "$boot_retries" = 0 ] || [ "$boot_timeout" -gt 0 ] || die "--boot-retries needs --boot-timeout"
[[ $mem =~ ^[0-9]+$ ]] || die "--mem must be MB"
[[ $tcgthread =~ ^(single|multi)$ ]] || die "--tcg-thread must be single or multi"
[[ $clock =~ ^(tsc|hpet)$ ]] || die "--clock must be tsc or hpet"
if [ -n "$fio" ]; then
	[ -x "$fio" ] || die "--fio $fio: not an executable file"
	fio=$(readlink -f "$fio")
	for i in "${!guest_bins[@]}"; do
		[ "${guest_bins[$i]}" != /usr/bin/fio ] || guest_bins[i]=$fio
	done
fi
name=$(basename "$script" .sh)

# The release string stored in a bzImage's setup header (offset 0x20e).
kver_of_bzimage() {
	local f=$1 magic off
	magic=$(dd if="$f" bs=1 skip=514 count=4 2>/dev/null) || return 1
	[ "$magic" = HdrS ] || return 1
	off=$(od -An -tu2 -j526 -N2 "$f" | tr -d ' ')
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 1
	dd if="$f" bs=1 skip=$((off + 512)) count=200 2>/dev/null |
		tr '\0' '\n' | head -n 1 | awk '{print $1}'
}

if [ -z "$kver" ] && [ -n "$kernel" ]; then
	kver=$(kver_of_bzimage "$kernel" || true)
	[ -n "$kver" ] || { [ -n "$moddir" ] && kver=$(basename "$moddir"); } ||
		die "cannot read the release of $kernel: pass --kver"
fi
[ -n "$kver" ] || kver=$("$here/kver.sh")
[ -n "$kernel" ] || kernel=/boot/vmlinuz-$kver
[ -n "$moddir" ] || moddir=/lib/modules/$kver
[ -r "$kernel" ] || die "cannot read kernel $kernel (run scripts/setup.sh, or pass --kernel)"
if [ ! -d "$moddir/kernel" ]; then
	log "note: no module tree at $moddir (assuming md, raid456, loop are built in)"
elif [ -n "$(find "$moddir/kernel/drivers/md" -name '*.ko.[xgz]*' -print -quit 2>/dev/null)" ]; then
	die "$moddir holds compressed modules (.ko.xz/.gz/.zst), which the guest cannot load: use the decompressed tree of scripts/kroot.sh prepare (MODDIR)"
fi
for k in "${kos[@]}"; do
	[ -f "$k" ] || die "no such module file: $k"
done
for f in "${files[@]}"; do
	[[ $f == *:/* ]] || die "--file wants SRC:/abs/dest, got $f"
	[ -e "${f%%:/*}" ] || die "--file source missing: ${f%%:/*}"
done
for d in ${disks[@]+"${disks[@]}"}; do
	[ -f "$d" ] || [ -b "$d" ] || die "--disk: no such image file: $d"
	{ [ -r "$d" ] && [ -w "$d" ]; } || die "--disk: $d must be readable and writable"
	[[ $d != *,* ]] || die "--disk: a comma in the path is not supported: $d"
done
[ ${#disks[@]} -le 20 ] || die "--disk: at most 20 disks"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (scripts/setup.sh)"
[ -x /bin/busybox ] || die "busybox missing (scripts/setup.sh)"

mkdir -p "$build/guest/cache" "$build/guest/runs" "$build/logs"
[ -n "$logf" ] || logf=$build/logs/$name.log
mkdir -p "$(dirname "$logf")"
run=$(mktemp -d "$build/guest/runs/$name.XXXXXX")
qpid="" tpid="" wdpid=""
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	local rc=$?
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	[ -n "$wdpid" ] && pkill -P "$wdpid" 2>/dev/null && kill "$wdpid" 2>/dev/null
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null && wait "$qpid" 2>/dev/null
	rm -rf "$run"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the static part of the initramfs, cached ---------------------------
# Shared libraries of the guest programs, one absolute path a line.
guest_libs() {
	local b
	for b in "${guest_bins[@]}"; do
		[ -e "$b" ] || continue
		ldd "$b" | awk '/=> \//{print $3} /^[ \t]*\//{print $1}'
	done | sort -u
}

# Cache key: the builder code, the kernel's modules, the guest programs and the
# dpkg database (any package upgrade may change a shared library).
key=$(
	{
		declare -f build_static guest_libs
		printf '%s\n' "${guest_bins[@]}" "${guest_mod_paths[@]}"
		echo "kver=$kver moddir=$moddir"
		for p in "${guest_mod_paths[@]}"; do
			[ -e "$moddir/$p" ] && find "$moddir/$p" -printf '%P %s %T@\n'
		done
		stat -L -c '%n %s %Y' /bin/busybox "${guest_bins[@]}" \
			/var/lib/dpkg/status 2>/dev/null || true
	} | sha256sum | cut -c1-16
)
cache=$build/guest/cache/$kver-$key
static=$cache/static.cpio

build_static() {
	local root=$cache/root b real a l p libs
	libs=$(guest_libs)
	rm -rf "$root"
	mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,run,etc,mnt,root,var}
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	cp /bin/busybox "$root/usr/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		[ "${a##*/}" = busybox ] && continue
		ln -sfn /usr/bin/busybox "$root/$a"
	done
	for b in "${guest_bins[@]}"; do
		[ -e "$b" ] || { log "note: $b not installed, not in guest"; continue; }
		if [ "$b" = "$fio" ]; then
			install -m 755 "$b" "$root/usr/bin/fio"
			continue
		fi
		real=$(readlink -f "$b")
		rm -f "$root$real"
		cp "$real" "$root$real"
		[ -e "$root$b" ] || ln -sfn "$real" "$root$b"
	done
	ln -sfn mke2fs "$root/usr/sbin/mkfs.ext4"
	ln -sfn e2fsck "$root/usr/sbin/fsck.ext4"
	for a in modprobe insmod rmmod lsmod modinfo depmod; do
		rm -f "$root/usr/sbin/$a" "$root/usr/bin/$a"
		ln -s /usr/bin/kmod "$root/usr/sbin/$a"
	done
	for l in $libs; do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
	printf '%s\n' /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/ceph \
		>"$root/etc/ld.so.conf"
	ldconfig -r "$root" 2>/dev/null || true
	cp /etc/mke2fs.conf "$root/etc/" 2>/dev/null || true
	echo 'root:x:0:0:root:/root:/bin/bash' >"$root/etc/passwd"
	echo 'root:x:0:' >"$root/etc/group"
	: >"$root/etc/fstab"
	mkdir -p "$root/etc/mdadm"
	printf 'DEVICE /dev/loop* /dev/mapper/*\nHOMEHOST <none>\nAUTO -all\n' \
		>"$root/etc/mdadm/mdadm.conf"
	[ "$(id -u)" = 0 ] && mknod -m 600 "$root/dev/console" c 5 1
	mkdir -p "$root/usr/lib/modules/$kver"
	for p in "${guest_mod_paths[@]}"; do
		[ -e "$moddir/$p" ] || continue
		mkdir -p "$root/usr/lib/modules/$kver/$(dirname "$p")"
		cp -a "$moddir/$p" "$root/usr/lib/modules/$kver/$(dirname "$p")/"
	done
	depmod -b "$root" "$kver" 2>/dev/null || log "note: depmod failed for the static tree"
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) >"$static.tmp"
	mv "$static.tmp" "$static"
}

exec 9>"$build/guest/cache/.lock"
flock 9
if [ ! -s "$static" ] || [ ! -d "$cache/root" ]; then
	t0=$SECONDS
	log "building static initramfs for $kver ($cache)"
	mkdir -p "$cache"
	build_static
	log "static initramfs: $(du -h "$static" | cut -f1) in $((SECONDS - t0)) s"
	# keep the six most recently used caches (tests/run.sh's passes use
	# four kernels at once: 6.1, 6.12, 7.x and the debug kernel)
	find "$build/guest/cache" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' |
		sort -rn | tail -n +7 | cut -d' ' -f2- | while read -r old; do rm -rf "$old"; done
fi
touch "$cache"
flock -u 9

# ---- the per-run part: /init, /run.sh, guest lib, args, --ko, --file ----
r=$run/root
mkdir -p "$r/usr/lib" "$r/etc"
cat >"$r/init" <<'INIT'
#!/bin/sh
# /init generated by scripts/guest.sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
. /etc/guest-env
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# --file copies to /tmp live in the initramfs: carry them onto the tmpfs
mkdir -p /.initramfs-tmp
cp -a /tmp/. /.initramfs-tmp/
mount -t tmpfs -o mode=1777 tmpfs /tmp
cp -a /.initramfs-tmp/. /tmp/ && rm -rf /.initramfs-tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# a task stuck in D state for GUEST_HUNG_S seconds panics the guest (its
# stack is printed first): a hang fails fast instead of at --timeout
echo "$GUEST_HUNG_S" >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null &&
	echo 1 2>/dev/null >/proc/sys/kernel/hung_task_panic
kv=$(uname -r)
if [ ! -e "/lib/modules/$kv" ]; then
	for d in /lib/modules/*; do
		[ -d "$d" ] && ln -s "${d##*/}" "/lib/modules/$kv" && break
	done
fi
# crc32c_generic and libcrc32c are modules up to 6.13; 6.14+ (7.x) has
# the CRC library built in and neither module
for m in crc32c_generic libcrc32c; do
	modprobe "$m" 2>/dev/null || true
done
for m in md_mod raid456 loop; do
	modprobe "$m" 2>/dev/null || [ -d "/sys/module/$m" ] ||
		echo "guest-init: module $m not available"
done
# --disk: virtio-blk disks, /dev/vda... in the order given
if [ "$GUEST_DISKS" -gt 0 ]; then
	for m in virtio_pci virtio_blk; do
		modprobe "$m" 2>/dev/null || [ -d "/sys/module/$m" ] ||
			echo "guest-init: module $m not available"
	done
	i=0
	while [ "$(ls /sys/block | grep -c '^vd')" -lt "$GUEST_DISKS" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "guest-init: virtio disks: $(ls /sys/block | grep '^vd' | tr '\n' ' ')"
fi
echo "GUEST-INIT: kernel $kv up $(cut -d' ' -f1 /proc/uptime) s, running /run.sh"
. /etc/guest-args
cd /tmp
bash /run.sh "$@"
rc=$?
sync
echo "GUEST-INIT: /run.sh exited rc=$rc at $(cut -d' ' -f1 /proc/uptime) s"
if [ "$rc" = 0 ]; then
	echo "GUEST-VERDICT: PASS"
else
	echo "GUEST-VERDICT: FAIL rc=$rc"
fi
dmesg -n 1
echo "@@DMESG-BEGIN@@"
dmesg
echo "@@DMESG-END@@"
poweroff -f
INIT
chmod 755 "$r/init"
install -m 755 "$script" "$r/run.sh"
install -m 644 "$top/tests/lib/guest-lib.sh" "$r/usr/lib/guest-lib.sh"
{
	printf 'set --'
	for a in "$@"; do
		printf " '%s'" "${a//\'/\'\\\'\'}"
	done
	printf '\n'
} >"$r/etc/guest-args"
printf "GUEST_NAME='%s'\nGUEST_HUNG_S='%s'\nGUEST_DISKS='%s'\nexport GUEST_NAME GUEST_HUNG_S GUEST_DISKS\n" \
	"$name" "$hung" "${#disks[@]}" >"$r/etc/guest-env"
for f in "${files[@]}"; do
	src=${f%%:/*} dst=/${f#*:/}
	mkdir -p "$r$(dirname "$dst")"
	cp -a "$src" "$r$dst"
done
if [ ${#kos[@]} -gt 0 ]; then
	# depmod over the cached tree plus the extra modules; ship only the
	# extra modules and the regenerated modules.* indexes
	m=$run/modtree
	mkdir -p "$m/lib/modules"
	cp -al "$cache/root/usr/lib/modules/$kver" "$m/lib/modules/$kver"
	mkdir -p "$m/lib/modules/$kver/extra" "$r/usr/lib/modules/$kver/extra"
	for k in "${kos[@]}"; do
		cp "$k" "$m/lib/modules/$kver/extra/"
		cp "$k" "$r/usr/lib/modules/$kver/extra/"
	done
	depmod -b "$m" "$kver" || die "depmod failed for the extra modules"
	cp "$m/lib/modules/$kver"/modules.* "$r/usr/lib/modules/$kver/"
fi
(cd "$r" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$run/run.cpio.gz"
cat "$static" "$run/run.cpio.gz" >"$run/initrd"

# ---- boot ----------------------------------------------------------------
# Under TCG a bzImage spends ~4 s decompressing itself. If the image holds an
# xz/gzip/zstd-compressed vmlinux with a PVH entry note (CONFIG_PVH), boot that
# ELF directly; it is cached next to the initramfs. GUEST_NO_PVH=1 disables.
pvh_vmlinux() {
	local k=$1 out=$2 off magic dec
	for magic in xz gz zst; do
		case $magic in
		xz) off=$(grep -abo $'\xfd7zXZ\x00' "$k" | head -n 1 | cut -d: -f1); dec="xz -dc" ;;
		gz) off=$(grep -abo $'\x1f\x8b\x08\x00' "$k" | head -n 1 | cut -d: -f1); dec="gzip -dc" ;;
		zst) off=$(grep -abo $'\x28\xb5\x2f\xfd' "$k" | head -n 1 | cut -d: -f1); dec="zstd -dc" ;;
		esac
		[ -n "$off" ] || continue
		# shellcheck disable=SC2086 # $dec is a command and its flag
		tail -c +$((off + 1)) "$k" | $dec >"$out.tmp" 2>/dev/null || true
		if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
			readelf -n "$out.tmp" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done
	rm -f "$out.tmp"
	return 1
}
boot_kernel=$kernel
if [ "${GUEST_NO_PVH:-0}" != 1 ] && command -v readelf >/dev/null; then
	kkey=$(stat -L -c '%n %s %Y' "$kernel" | sha256sum | cut -c1-16)
	vml=$build/guest/cache/vmlinux-$kkey
	if [ -s "$vml" ]; then
		boot_kernel=$vml
	elif [ ! -e "$vml.nopvh" ]; then
		if pvh_vmlinux "$kernel" "$vml"; then
			boot_kernel=$vml
		else
			: >"$vml.nopvh"
		fi
	fi
fi
raw=$run/console.raw
# unknown_nmi_panic and panic_print=0x40: the NMI the timeout watchdog
# below sends panics the guest with every CPU's backtrace on the console
# (a guest frozen with interrupts off still takes an NMI; 7.x warns once
# that panic_print is deprecated, an info line)
cmdline="console=ttyS0 loglevel=5 printk.time=1 panic=-1 oops=panic unknown_nmi_panic panic_print=0x40"
if [ "$clock" = tsc ]; then
	cmdline+=" tsc=reliable clocksource=tsc"
else
	cmdline+=" clocksource=hpet"
fi
cmdline+=" rdinit=/init $append"
drives=()
for d in ${disks[@]+"${disks[@]}"}; do
	drives+=(-drive "file=$d,format=raw,if=virtio,cache=writeback")
done
[ "$quiet" = 1 ] || log "booting $kernel ($kver), script $script, log $logf"
# The monitor is a pair of FIFOs (QEMU opens both read-write, so neither
# side blocks), used only by the timeout watchdog.
mon=$run/monitor
mkfifo "$mon.in" "$mon.out"
# monitor_cmd CMD: send one monitor command, print QEMU's answer (what
# arrived within 2 s); gives up quietly if QEMU does not take it.
monitor_cmd() {
	# shellcheck disable=SC2016 # expanded by that sh
	timeout 5 sh -c 'printf "%s\n" "$1" >"$2"' _ "$1" "$mon.in" || {
		echo "(monitor did not take '$1')"
		return 0
	}
	timeout 2 cat "$mon.out" | tr -d '\r' |
		grep -v -e '^(qemu)' -e '^QEMU .* monitor' -e $'\e' || true
}
# on_timeout: what the guest was doing when it ran out of time. Each vCPU's
# instruction pointer (twice, 2 s apart: stuck in one place or moving),
# then an NMI: the guest panics with all CPUs' backtraces on the console
# (a frozen guest too, even with interrupts off; no output at all means
# QEMU itself stalled). QEMU exits on that panic (-no-reboot); it is
# killed 30 s later if not.
on_timeout() {
	: >"$run/timed-out"
	{
		echo "== $(date -u +%T) guest timeout after ${1:-$timeout} s: each vCPU's RIP"
		monitor_cmd "info registers -a" | grep -E '^CPU#|RIP='
		sleep 2
		echo "== 2 s later"
		monitor_cmd "info registers -a" | grep -E '^CPU#|RIP='
		echo "== (System.map of the guest kernel names the RIPs)"
		echo "== nmi (the guest's backtraces follow on its console)"
		monitor_cmd nmi
	} >"$logf.monitor" 2>&1
	local i
	for i in $(seq 30); do
		kill -0 "$qpid" 2>/dev/null || return 0
		sleep 1
	done
	kill -TERM "$qpid" 2>/dev/null
	sleep 5
	kill -KILL "$qpid" 2>/dev/null || true
}
t0=$(date +%s.%N)
# boot_once: one QEMU run of the guest, its console to $logf; a lost boot
# leaves $run/boot-lost
boot_once() {
	rm -f "$run/boot-lost" "$run/timed-out"
	: >"$raw"
	qemu-system-x86_64 -accel "tcg,thread=$tcgthread" -cpu max -m "$mem" \
		-smp "$smp" -nographic -serial stdio -monitor "pipe:$mon" -nic none \
		-no-reboot -kernel "$boot_kernel" -initrd "$run/initrd" ${drives[@]+"${drives[@]}"} \
		-append "$cmdline" </dev/null >"$raw" 2>&1 &
	qpid=$!
	# the watchdog: --boot-timeout first (is /init up?), then --timeout
	(
		trap - EXIT INT TERM
		waited=0
		# QEMU runs and the guest's /init has not said it started
		booting() {
			kill -0 "$qpid" 2>/dev/null && ! grep -aq '^GUEST-INIT: kernel ' "$raw" 2>/dev/null
		}
		if [ "$boot_timeout" -gt 0 ] && [ "$boot_timeout" -lt "$timeout" ]; then
			while [ "$waited" -lt "$boot_timeout" ] && booting; do
				sleep 2 &
				wait $!
				waited=$((waited + 2))
			done
			if booting; then
				: >"$run/boot-lost"
				on_timeout "$waited"
				exit 0
			fi
		fi
		sleep "$((timeout - waited))" &
		wait $!
		kill -0 "$qpid" 2>/dev/null && on_timeout
	) &
	wdpid=$!
	# the log grows while the guest runs (and survives an interrupted run)
	if [ "$quiet" != 1 ]; then
		tail -s 0.2 -n +1 -F --pid="$qpid" "$raw" 2>/dev/null | sed -u 's/\r$//' |
			tee "$logf" &
	else
		tail -s 0.2 -n +1 -F --pid="$qpid" "$raw" 2>/dev/null | sed -u 's/\r$//' \
			>"$logf" &
	fi
	tpid=$!
	wait "$qpid" || true
	qpid=""
	if [ -e "$run/timed-out" ]; then
		wait "$wdpid" 2>/dev/null || true
	else
		pkill -P "$wdpid" sleep 2>/dev/null || true
		kill "$wdpid" 2>/dev/null || true
		wait "$wdpid" 2>/dev/null || true
	fi
	wdpid=""
	if [ -n "$tpid" ]; then
		wait "$tpid" 2>/dev/null || true
		tpid=""
	fi
	# replaced by a rename, never truncated in place: tests/run.sh reads the
	# log while the guest runs, and a read during a rewrite found the last
	# case's section empty (it then passed with no assertions)
	tr -d '\r' <"$raw" >"$logf.new"
	mv -f "$logf.new" "$logf"
}
boot_once
while [ -e "$run/boot-lost" ] && [ "$boot_retries" -gt 0 ]; do
	boot_retries=$((boot_retries - 1))
	cp "$logf" "$logf.lost"
	[ ! -e "$logf.monitor" ] || mv -f "$logf.monitor" "$logf.lost.monitor"
	log "$name: the guest's /init did not start within $boot_timeout s (a lost boot, console: $logf.lost); booting once more"
	boot_once
done
t1=$(date +%s.%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}')

if [ -e "$run/boot-lost" ]; then
	echo "guest.sh: $name: the guest's /init did not start within $boot_timeout s (a lost boot), see $logf (QEMU monitor: $logf.monitor)" >&2
	sed 's/^/guest.sh: monitor: /' "$logf.monitor" >&2
	exit 4
fi
if [ -e "$run/timed-out" ]; then
	echo "guest.sh: $name: guest timeout after $timeout s, see $logf (QEMU monitor: $logf.monitor)" >&2
	sed 's/^/guest.sh: monitor: /' "$logf.monitor" >&2
	exit 3
fi
rm -f "$logf.monitor"

# kernel lines: the dmesg dump, plus printk lines on the console (timestamps)
klog=$run/kernel.log
{
	sed -n '/^@@DMESG-BEGIN@@$/,/^@@DMESG-END@@$/p' "$logf"
	grep -E '^\[ *[0-9]+\.[0-9]+\]' "$logf" || true
} >"$klog"

if [ -n "$outf" ]; then
	mkdir -p "$(dirname "$outf")"
	awk -v out="$outf" -v tmp="$run/out.b64" '
		/^@@OUT-BEGIN@@/ { inb = 1; mode = $2; next }
		/^@@OUT-END@@/ {
			if (mode == "b64") { close(tmp); system("base64 -d < \"" tmp "\" >> \"" out "\""); system(": > \"" tmp "\"") }
			inb = 0; next
		}
		inb && /^\[ *[0-9]+\.[0-9]+\]/ { next }
		inb && mode == "b64" { print > tmp; next }
		inb { print >> out }
	' "$logf" </dev/null
	[ -e "$outf" ] || log "warning: --out given but the guest emitted no @@OUT block"
fi

status=0
verdict=$(grep -E '^GUEST-VERDICT: ' "$logf" | tail -n 1 || true)
if [ "$expect_crash" = 1 ]; then
	if [ -n "$verdict" ]; then
		echo "guest.sh: $name: expected a crash, but the guest script ended (${verdict#GUEST-VERDICT: }), see $logf" >&2
		status=1
	elif line=$(grep -m 1 'Kernel panic' "$logf"); then
		echo "guest.sh: $name: kernel panic instead of the announced crash: $line" >&2
		status=3
	elif ! grep -q 'GUEST-CRASH:' "$logf"; then
		echo "guest.sh: $name: guest died without announcing a crash (GUEST-CRASH:) after $elapsed s, see $logf" >&2
		status=3
	else
		log "$name: crashed as announced: $(grep -m 1 -o 'GUEST-CRASH:.*' "$logf")"
	fi
elif [ -z "$verdict" ] || ! grep -q '^@@DMESG-END@@$' "$logf"; then
	echo "guest.sh: $name: guest died without a verdict (panic or crash?) after $elapsed s, see $logf" >&2
	status=3
elif [ "$verdict" != "GUEST-VERDICT: PASS" ]; then
	echo "guest.sh: $name: ${verdict#GUEST-VERDICT: } (guest script failed), see $logf" >&2
	status=1
fi
# splats and failed KUnit cases (scripts/klog-check.sh)
if ! "$here/klog-check.sh" "$name" "$klog"; then
	[ "$status" = 3 ] || status=2
fi
if [ "$status" = 0 ]; then
	echo "guest.sh: $name: PASS in $elapsed s"
else
	echo "guest.sh: $name: FAIL (status $status) in $elapsed s, log $logf" >&2
fi
exit "$status"
}
