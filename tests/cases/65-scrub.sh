#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# 65-scrub: the monthly scrub reaches raid5x arrays (issue 26). Debian's
# checkarray, as its cron line runs it, skips a machine whose only array
# runs on raid5x ("no redundant arrays present": the bug, kept as a
# documented fact; skipped if the host has no /usr/share/mdadm/checkarray
# to copy in). scripts/raid5x-scrub, installed as /usr/sbin/raid5x-scrub,
# with a raid456 array (md1) beside the raid5x one (md0) in the same boot:
# skips the freshly created md0 without --force (the 14-day rule) and
# checks it with the clock 15 days on; --force starts `check` on md0
# (sync_action reads check: the check is slowed with sync_speed_max) and
# logs it to the system log (busybox syslogd) and stdout; --status shows
# it, --cancel stops it; md1 is never checked (its last_sync_action
# is still none/idle at the end); --wait returns once the check ended and prints mismatch_cnt 0;
# after garbage written to a member's data area below md, --force --wait
# reports a non-zero mismatch_cnt and exits 1; a bad option exits 2 with a
# message. Fails before scripts/raid5x-scrub existed (every assertion on
# it: the program is missing).
# timeout: 600
# guest-args: --file scripts/raid5x-scrub:/usr/sbin/raid5x-scrub --file /usr/share/mdadm/checkarray:/usr/share/mdadm/checkarray
# shellcheck source=../lib/guest-lib.sh
. /lib/guest-lib.sh

tap_plan 12
load_md
scrub=/usr/sbin/raid5x-scrub
ca=/usr/share/mdadm/checkarray
export RAID5X_SCRUB_POLL=1
read -r -a devs <<<"$(make_members 8 "$(gl_scaled 32 16)")"
s0=$(md_sys md0) s1=$(md_sys md1)
slog="" clock0=$EPOCHSECONDS moved=0
cleanup() {
	[ -z "$slog" ] || kill "$slog" 2>/dev/null
	rm -f /dev/log /etc/default/mdadm
	# the clock back where it would be had it not been moved
	[ "$moved" = 0 ] || date -s "@$((EPOCHSECONDS - 15 * 86400))" >/dev/null 2>&1
	return 0
}
gl_on_exit cleanup
# the system log: what logger(1) writes
syslogd -n -O /tmp/syslog &
slog=$!
[ -x "$scrub" ] || chmod +x "$scrub" 2>/dev/null || note "$scrub is missing"

act() { cat "$1/sync_action"; }

create_raid5 md0 4 64 left-symmetric "${devs[@]:0:4}"
to_raid5x md0 || note "md0 is not raid5x: the raid5x assertions fail"

# 1: Debian's checkarray with only md0 (raid5x) present, as the cron line
# runs it (AUTOCHECK=true, Debian's default) and without --quiet
if [ -x "$ca" ]; then
	mkdir -p /etc/default && echo AUTOCHECK=true >/etc/default/mdadm
	rcq=$(gl_run /tmp/ca.q "$ca" --cron --all --idle --quiet)
	rc=$(gl_run /tmp/ca.out "$ca" --cron --all --idle)
	ca_skipped() {
		[ "$rcq" = 0 ] && [ "$rc" = 0 ] && [ "$(act "$s0")" = idle ] &&
			grep -q "no redundant arrays present" /tmp/ca.out
	}
	r5x_check "Debian's checkarray skips a raid5x-only machine (the bug: status $rcq and $rc, md0 $(act "$s0"))" ca_skipped
else
	tap_skip 1 "no $ca in the guest (the host has no Debian mdadm)"
fi

create_raid5 md1 4 64 left-symmetric "${devs[@]:4:4}"

# 2: the 14-day rule: md0 was created a moment ago
rc=$(gl_run /tmp/s.fresh "$scrub")
fresh_skipped() {
	[ "$rc" = 0 ] && [ "$(act "$s0")" = idle ] &&
		grep -q "md0: created less than 14 days ago" /tmp/s.fresh
}
r5x_check "without --force a fresh array is skipped (status $rc, md0 $(act "$s0"))" fresh_skipped

# 3-4: --force starts check on md0 only, slowed so that it is seen running
echo 2000 >"$s0/sync_speed_max"
rc=$(gl_run /tmp/s.force "$scrub" --force)
force_started() {
	[ "$rc" = 0 ] && [ "$(act "$s0")" = check ] &&
		grep -q "md0: check started" /tmp/s.force
}
r5x_check "--force starts check on the raid5x array (status $rc, md0 $(act "$s0"))" force_started
gl_nap 1
note "system log: $(grep raid5x-scrub /tmp/syslog | tr '\n' ' ')"
r5x_check "the system log has the line (tag raid5x-scrub)" \
	grep -q 'raid5x-scrub: md0: check started' /tmp/syslog

# 5: --status, 6: --cancel
rc=$(gl_run /tmp/s.status "$scrub" --status)
status_shows() { [ "$rc" = 0 ] && grep -q "^md0: check mismatch_cnt" /tmp/s.status && ! grep -q md1 /tmp/s.status; }
r5x_check "--status: md0 check (status $rc)" status_shows
rc=$(gl_run /tmp/s.cancel "$scrub" --cancel)
gl_nap 0.5
cancelled() { [ "$rc" = 0 ] && [ "$(act "$s0")" = idle ] && grep -q "md0: check cancelled" /tmp/s.cancel; }
r5x_check "--cancel stops the check (status $rc, md0 $(act "$s0"))" cancelled

# 7: --wait, a consistent array (members all zero, --assume-clean)
echo 20000 >"$s0/sync_speed_max"
t0=$EPOCHREALTIME
rc=$(gl_run /tmp/s.wait "$scrub" --force --wait)
note "--wait took $(gl_since "$t0") s"
waited_clean() {
	[ "$rc" = 0 ] && [ "$(act "$s0")" = idle ] &&
		grep -q "md0: check ended, mismatch_cnt 0" /tmp/s.wait &&
		[ "$(cat "$s0/last_sync_action")" = check ]
}
r5x_check "--force --wait returns after the check: mismatch_cnt 0 (status $rc, md0 $(act "$s0"))" waited_clean

# 8: garbage in member 1's data area, written below md
off=$(md_member md0 "${devs[1]}" offset)
dd if=/dev/urandom of="${devs[1]}" bs=512 seek=$((off + 2048)) count=128 \
	oflag=direct conv=notrunc status=none
rc=$(gl_run /tmp/s.bad "$scrub" --force --wait)
mismatch_reported() {
	[ "$rc" = 1 ] && [ "$(cat "$s0/mismatch_cnt")" -gt 0 ] &&
		grep -Eq "md0: check ended, mismatch_cnt [1-9]" /tmp/s.bad
}
r5x_check "corrupted parity: --wait reports mismatch_cnt $(cat "$s0/mismatch_cnt") and exits 1 (status $rc)" mismatch_reported

# 9: the 14-day rule lets an array 15 days old through
if date -s "@$((EPOCHSECONDS + 15 * 86400))" >/dev/null; then
	moved=1
	rc=$(gl_run /tmp/s.old "$scrub" --wait)
	date -s "@$((EPOCHSECONDS - 15 * 86400))" >/dev/null && moved=0
	old_checked() { grep -q "md0: check started" /tmp/s.old && grep -q "md0: check ended" /tmp/s.old; }
	r5x_check "an array 15 days old is checked without --force (status $rc)" old_checked
else
	tap_not_ok "an array 15 days old is checked without --force" "date -s failed"
fi
note "clock: $((EPOCHSECONDS - clock0)) s since the case started"

# 10: md1 (raid456) was never touched
# (last_sync_action before any sync: "none" on 6.1, "idle" on 6.12 and 7.2)
raid456_untouched() {
	case $(cat "$s1/last_sync_action") in none|idle) ;; *) return 1 ;; esac
	[ "$(act "$s1")" = idle ] &&
		! grep -q md1 /tmp/s.fresh /tmp/s.force /tmp/s.wait /tmp/s.bad
}
tap_check "the raid456 array was never checked (last_sync_action $(cat "$s1/last_sync_action"), sync_action $(act "$s1"))" raid456_untouched

# 11: a bad option
rc=$(gl_run /tmp/s.opt "$scrub" --bogus)
bad_option() { [ "$rc" = 2 ] && grep -q "unknown option .--bogus" /tmp/s.opt; }
tap_check "a bad option: exit 2 and a message (status $rc)" bad_option

# 12: md1 still raid456, md0 still raid5x
levels_kept() { [ "$(md_level md0)" = raid5x ] && [ "$(md_level md1)" = raid5 ]; }
tap_check "levels unchanged: md0 $(md_level md0), md1 $(md_level md1)" levels_kept
tap_done
