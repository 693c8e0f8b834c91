/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - every policy decision raid5x makes, counted.
 *
 * One row per counter: name (its file in /sys/block/mdX/md/raid5x_stats/)
 * and meaning.  A benchmark reads them before and after a run to explain
 * its numbers; writing 1 to raid5x_stats/reset zeroes them all.
 *
 * Each CPU counts in its own copy (no shared cache line on the I/O path:
 * a direct read counts one, a stripe several); a file shows the sum over
 * every CPU less what it was at the last reset (conf->stats_base).
 */
#ifndef RAID5X_COUNTERS_H
#define RAID5X_COUNTERS_H

#include <linux/percpu.h>

#define R5X_COUNTERS(X)							\
	X(preread_blocks,  "member blocks read to complete a partial write") \
	X(read_blocks,     "member blocks read for array reads via the cache") \
	X(write_blocks,    "member blocks written (data and parity)")	\
	X(member_bios,     "member bios sent by stripe handling (merge_member_io joins blocks)") \
	X(rmw_stripes,     "stripes written by read-modify-write")	\
	X(rcw_stripes,     "stripes written by reconstruct-write")	\
	X(full_stripes,    "stripes written with every data block overwritten") \
	X(nocopy_blocks,   "data blocks written uncopied from a stable page (skip_copy)") \
	X(granted_now,     "partial writes granted pre-reads at once (no write completes them)") \
	X(granted_lone,    "of those, a lone writer's sequential ones (r5x_lone_writer)") \
	X(stream_unconfirmed, "write bios continuing a recent write, below stream_confirm") \
	X(delayed,         "stripes put on the delayed list")		\
	X(activated,       "stripes moved from delayed to hold")	\
	X(activated_aged,  "of those, activated because their delay expired") \
	X(activated_pressure, "of those, activated because the cache was short") \
	X(activated_idle,  "of those, activated because nothing else was in flight") \
	X(activated_full,  "of those, overwritten whole (0: full stripes never wait)") \
	X(delay_walks,     "walks of the delayed list looking for stripes to activate") \
	X(bypassed,        "times a hold stripe was passed by a handle stripe") \
	X(plugs,           "unplug callbacks run")			\
	X(plugged_stripes, "stripes released by unplug callbacks")	\
	X(own_plug_passed, "overwritten stripes raid5x's own plug let go at once") \
	X(wakeups,         "batched wake-ups of stripe-cache waiters")	\
	X(cache_waits,     "times a submitter slept for a free stripe")	\
	X(aligned_reads,   "reads sent straight to a member")		\
	X(aligned_retries, "direct reads retried through the cache")	\
	X(rechecks,        "cached blocks re-read after a direct read failed") \
	X(reconstructs,    "blocks computed from the others (degraded)") \
	X(io_errors,       "member I/O errors seen")			\
	X(read_errors,     "member blocks that could not be read (read error or bad block)") \
	X(corrected,       "of those, rebuilt from parity and written back") \
	X(badblocks,       "blocks recorded in a member's bad-block log") \
	X(sb_waits,        "times a stripe waited for md to record a failure") \
	X(early_ends,      "stripes whose writes ended with their last member write") \
	X(handoffs,        "last references handed to the handlers lock-free (lockless_release)") \
	X(bm_stripes,      "stripes drained on an array with a write-intent bitmap") \
	X(bm_flushes,      "bitmap flushes (md_bitmap_unplug) those stripes' writes waited for") \
	X(sync_stripes,    "stripes handled for resync/check/recovery") \
	X(worker_stripes,  "stripes handled by a worker thread (worker_threads)") \
	X(discards,        "array discards handled (devices_handle_discard_safely)") \
	X(discard_rows,    "whole rows discarded on every member")	\
	X(discard_zeroed,  "member ranges zeroed because the member refused the discard") \
	X(safemode_kicks,  "times raid5xd set the safe mode md had lost (divergence 7)")

#define R5X_COUNTER_ENUM(name, help) R5X_C_##name,
enum r5x_counter { R5X_COUNTERS(R5X_COUNTER_ENUM) R5X_NR_COUNTERS };
#undef R5X_COUNTER_ENUM

struct r5x_counters {
	u64 v[R5X_NR_COUNTERS];
};

#define r5x_count(conf, name, n) \
	this_cpu_add((conf)->stats->v[R5X_C_##name], (n))

struct mddev;
/* sysfs.c: the attributes and raid5x_stats/ of an array raid5x runs */
int r5x_sysfs_add(struct mddev *mddev);
void r5x_sysfs_del(struct mddev *mddev);

#endif /* RAID5X_COUNTERS_H */
