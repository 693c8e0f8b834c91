/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid5x.h - shared types of the raid5x md personality.
 *
 * ARCHITECTURE
 *
 * raid5x is a RAID5 with md raid5's on-disk layout (geometry.c maps sectors
 * exactly like raid5 for all six level-5 layouts), so an array moves between
 * raid5x and the kernel's raid456 unchanged.  The array is cut into stripes
 * of one page (R5X_STRIPE_SECTORS) per member, like raid5.  Every write and
 * every read that cannot go straight to a member goes through a cached
 * struct r5x_stripe; a single md thread ("raid5xd") runs the stripe state
 * machine (stripe_handle.c); the submitter only attaches bios to stripes.
 *
 *   make_request (raid5x.c)   split into pages, attach bios to stripes
 *     -> plug.c               hold touched stripes until the submitter unplugs
 *     -> stripe_cache.c       release: stripe lands on one list by its state
 *     -> raid5xd              takes stripes from the lists, handle_stripe()
 *     -> delay_list.c         stripes needing pre-reads wait; batched release
 *
 * LAYERS (a file calls only the ones below it)
 *
 *   raid5x.c          md personality, request entry, raid5xd, sync requests
 *   sysfs.c           attributes (asks raid5x.c only whether an array is ours)
 *   stripe_handle.c   the state machine of one stripe
 *   discard.c         array discards: whole rows on every member, the
 *                     span fenced from the cache meanwhile
 *   delay_list.c      the pre-read rule: which stripe may read, and when;
 *                     which stripe raid5xd takes next
 *   plug.c            stripes held under the submitter's block plug
 *   write_track.c     array writes in flight, from submission to end
 *                     (the write's end_io borrowed for it)
 *   stripe_cache.c    pool, hash, references, the lists themselves
 *   members.c         which member serves a slot, and its state
 *   iobatch.c         a handler's one-page member bios joined into
 *                     multi-page ones (and split again on an error)
 *   nocopy.c          whether a written page may go to the members
 *                     uncopied (the bio's page cannot change meanwhile)
 *   geometry.c, parity.c, policy.c, delay_policy.c, plug_policy.c: pure
 *                     functions, no state of their own (KUnit-tested)
 *
 * STRIPE STATE MACHINE (one stripe, handled only by raid5xd)
 *
 *   IDLE     no bios, no I/O, refcount 0, on the inactive LRU, maybe cached
 *   QUEUED   bios attached (toread/towrite), refcount 0, on handle, delayed
 *            or hold list; or referenced by a submitter or a plug
 *   READING  member reads in flight (R5X_DEV_LOCKED on those devs); each
 *            in-flight member I/O holds one stripe reference
 *   WRITING  towrite drained into written (copied into the pages, or a
 *            stable bio page written as it is: R5X_DEV_NOCOPY, nocopy.c),
 *            parity computed, member writes in flight; new bios may still
 *            queue on towrite meanwhile.  Completing the writes puts the
 *            cache page back, not uptodate.  When the last member write
 *            completes with nothing failed, its completion completes the
 *            array writes (end_writes_early, early_write_end); otherwise
 *            the next pass of a handler does.
 *   -> back to QUEUED (more bios) or IDLE when the last I/O completes.
 *
 * One member I/O per page at a time (R5X_DEV_LOCKED): raid5xd plans only
 * when none is in flight, and a pass that reads members writes none.
 * A write that failed on a member (R5X_DEV_WERR, BADWRITE) or that a
 * failed member missed is acknowledged only once md has recorded the bad
 * block or the failure in the superblocks (the stripe waits on sb_wait).
 *
 * Transitions: QUEUED->READING/WRITING and completions of bios happen in
 * raid5xd (process context).  Member I/O completion (irq context) updates
 * per-dev flags and releases the I/O's reference with R5X_STRIPE_HANDLE
 * set, which queues the stripe for raid5xd again; the one exception is a
 * WRITING stripe's last member write with nothing failed, no member
 * missing and no handler inside the stripe: that completion ends the
 * array writes itself (stripe_handle.c end_writes_early).
 * A write needing pre-reads gets R5X_STRIPE_PREREAD_ACTIVE at once if no
 * write in flight can complete it (r5x_may_preread; also
 * R5X_STRIPE_PREREAD_NOW, outside the preread_batch bound), else goes QUEUED
 * -> delayed list until delay_list.c grants it; full-stripe writes never
 * wait.  Any bio attached to a stripe clears R5X_STRIPE_DELAYED (under
 * sh->lock, as the handler sets it), so its release queues it to be
 * handled again: a stripe completed by that bio leaves without reads.
 *
 * LIST OWNERSHIP (the lru node)
 *
 *   A stripe with refcount 0 sits on exactly one of: inactive (idle),
 *   handle (work to do), delayed (wants pre-reads, not yet allowed),
 *   hold (allowed to pre-read, waiting for raid5xd), sb_wait (a degraded
 *   write waiting until md has recorded a member's failure in the
 *   superblocks; raid5xd moves them back to handle once it has).  A stripe with a
 *   non-zero refcount is on none of them: whoever took the reference
 *   (submitter, plug, in-flight I/O, raid5xd) owns it; the plug keeps it on
 *   the plug's own list through the same node while holding a reference.
 *   Under conf->lock, stripe_cache.c places a released stripe on its list
 *   and delay_list.c moves stripes from delayed to hold and takes them
 *   off handle and hold for raid5xd.
 *   The last reference, given up outside conf->lock (an I/O completion, a
 *   submitter without a plug), is not dropped there: the stripe goes on
 *   the lockless conf->released list (R5X_STRIPE_ON_RELEASE) still
 *   holding it, and the next handler to look for work drops it under the
 *   lock (r5x_drain_released), so the 1->0 step stays under the lock and
 *   a completion never waits for it.
 *
 * MEMBER FAULTS (md's raid5 rules, see stripe_handle.c)
 *
 *   read error, block rebuildable: rebuilt from parity, written back
 *     (R5X_DEV_READERR/REWRITE), member kept up to max_read_errors;
 *   read error, not rebuildable (another member missing): the block goes
 *     into the member's bad-block log and the request fails; a recovery
 *     marks the block bad on the member it rebuilds and goes on;
 *   write error: the block goes into the bad-block log (member kept),
 *     else the member is failed; writes it missed are acknowledged only
 *     once md has recorded that (sb_wait);
 *   a spare being rebuilt, or a replacement being copied, keeps its slot
 *     and recovery_offset when the recovery is interrupted;
 *   a bad-block log that cannot take a block disables recovery
 *     (conf->recovery_disabled, md's convention).
 *
 * LOCKING
 *
 *   conf->lock (spinlock, irq-safe: I/O completion may release stripes)
 *     protects: the hash, all stripe lists, refcount 0<->1 transitions,
 *     stripe counters (active, preread_active, nr_delayed), quiesce state,
 *     bypass_count.  Never held while sleeping or submitting I/O.
 *     A direct read (read_aligned) takes no lock: it counts itself in
 *     aligned_reads, then reads quiesce, which raid5x_quiesce writes
 *     (under the lock) before it reads aligned_reads, a full barrier
 *     between on both sides.  On 6.7+ it also holds mddev->active_io
 *     (r5x_read_hold), which md's suspend waits for without quiescing
 *     the personality; it drops that before aligned_reads, so a quiesce
 *     (and a stop behind it) never finishes under the drop.
 *   conf->stream_lock (spinlock, irq-safe) protects the write-stream
 *     record every write bio updates (r5x_note_write); nothing is taken
 *     inside it.
 *   sh->lock (spinlock, process context only, irqs on)
 *     protects: the bio lists and per-dev coverage of one stripe.
 *     Order: conf->lock may be taken inside sh->lock (granting pre-reads
 *     while planning); sh->lock is never taken under conf->lock.
 *   A discard (discard.c) fences a span of member sectors under conf->lock:
 *     r5x_get_stripe() waits outside it, the discard waits until no stripe
 *     inside is in use and forgets the idle ones, then discards every
 *     member there with no lock held, and lifts the fence.
 *   mddev->reconfig_mutex (md's) is held by md around run/free/takeover and
 *     sysfs stores that resize the cache; it is taken before conf->lock.
 *   RCU protects conf->disks[].rdev and .replacement, as in md; md calls
 *   hot_add/hot_remove/spare_active under reconfig_mutex, one at a time.
 */
#ifndef RAID5X_H
#define RAID5X_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/bio.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include "compat.h"
#include "geometry.h"
#include "counters.h"
#include "delay_policy.h"

#define R5X_STRIPE_SIZE		PAGE_SIZE
/* a page's sector mask (r5x_dev.wmask) is 8 bits: 4 KiB pages only */
#if PAGE_SHIFT != 12
#error "raid5x supports 4 KiB pages only (this kernel's PAGE_SIZE is larger)"
#endif
#define R5X_STRIPE_SECTORS	(R5X_STRIPE_SIZE >> 9)
/* r5x_dev.wmask of a page that bios overwrite whole */
#define R5X_WMASK_FULL		((u8)((1u << R5X_STRIPE_SECTORS) - 1))
#define R5X_MAX_DISKS		32	/* members, parity included */

/* stripe cache size: raid5's range and default */
#define R5X_MIN_STRIPES		17
#define R5X_MAX_STRIPES		32768
#define R5X_DEFAULT_STRIPES	1024	/* raid5: 256; see README */

/* Per-member buffer state of one stripe (dev->flags bits). */
enum r5x_dev_flags {
	R5X_DEV_UPTODATE,	/* page holds the member's current contents */
	R5X_DEV_LOCKED,		/* member I/O in flight on this page */
	R5X_DEV_FUA,		/* the write must be FUA (a bio asked for it) */
	R5X_DEV_SYNC,		/* a write bio queued here was REQ_SYNC */
	R5X_DEV_IOERR,		/* member unusable for this page (gone, failed) */
	R5X_DEV_READERR,	/* unreadable (read error, bad block): rebuild */
				/* from the others, then write it back */
	R5X_DEV_REWRITE,	/* that write-back is in flight */
	R5X_DEV_REWRITTEN,	/* it, or any write, succeeded on a block md */
				/* lists bad: raid5xd clears the entry */
	R5X_DEV_REPL_GOOD,	/* ... the same on the slot's replacement */
	R5X_DEV_REPL_FAILED,	/* the replacement's write failed: the array */
				/* writes wait until md has recorded that */
	R5X_DEV_WERR,		/* member write failed (irq): raid5xd records */
				/* a bad block or fails the member */
	R5X_DEV_BADWRITE,	/* ... done: the member's copy is stale; the */
				/* array writes wait until md recorded it */
	R5X_DEV_REPLONLY,	/* next write goes to the replacement only */
	R5X_DEV_NOCOPY,		/* page is a write bio's own (nocopy.c) until */
				/* the write completes; cache page in orig_page */
	R5X_DEV_RECHECK,	/* the member failed a read of this block that */
				/* went around the cache: read it again, not */
				/* from the cache, so the read-error path runs */
};

/*
 * A list of array bios attached to one page.  A bio spanning many pages sits
 * on many such lists at once, so the link is a separate node (bi_next would
 * allow only one list).
 */
struct r5x_bref {
	struct r5x_bref *next;
	struct bio *bio;
};

struct r5x_blist {
	struct r5x_bref *head;
	struct r5x_bref *tail;
};

static inline bool r5x_blist_empty(const struct r5x_blist *l)
{
	return !l->head;
}

/* One member's page of a stripe. */
struct r5x_dev {
	struct page *page;	/* the cached block, or a bio's (R5X_DEV_NOCOPY) */
	struct page *orig_page;	/* the cached block while page is a bio's */
	struct bio *req;	/* member I/O, one inline segment (bio_kmalloc) */
	struct bio *rreq;	/* the same write to the slot's replacement */
	struct md_rdev *rdev;	/* member of the I/O in flight */
	struct md_rdev *rrdev;	/* replacement of the rreq in flight */
	/*
	 * The member (replacement) whose write made a listed bad block good
	 * (R5X_DEV_REWRITTEN, _REPL_GOOD): its nr_pending is held until
	 * raid5xd clears the entry on that very device, whatever became of
	 * the slot meanwhile.
	 */
	struct md_rdev *good_rdev;
	struct md_rdev *good_rrdev;
	struct r5x_blist toread; /* array reads waiting for this page */
	struct r5x_blist towrite; /* array writes not yet drained */
	struct r5x_blist written; /* drained writes, member write in flight */
	sector_t lsector;	/* array sector of this page (data devs) */
	u8 wmask;		/* sectors of the page covered by towrite */
	unsigned long flags;	/* enum r5x_dev_flags */
};

/* Stripe state bits (sh->state). */
enum r5x_stripe_state {
	R5X_STRIPE_HANDLE,	/* has work: queue for raid5xd on release */
	R5X_STRIPE_ACTIVE,	/* raid5xd is inside handle_stripe() */
	R5X_STRIPE_DELAYED,	/* on (or bound for) the delayed list */
	R5X_STRIPE_PREREAD_ACTIVE, /* granted pre-reads; in preread_active unless NOW */
	R5X_STRIPE_PREREAD_NOW,	/* ... at once, outside preread_active */
	R5X_STRIPE_ON_PLUG,	/* referenced by a plug list */
	R5X_STRIPE_SYNC,	/* resync/check/recovery requested */
	R5X_STRIPE_SYNC_WRITING, /* sync request's member writes in flight */
	R5X_STRIPE_SYNC_FRESH,	/* sync request dropped cached pages to re-read */
	R5X_STRIPE_SEQ,		/* last write bio was part of a sequential stream */
	R5X_STRIPE_SB_WAIT,	/* park on sb_wait when released */
	R5X_STRIPE_ON_RELEASE,	/* its last reference is on conf->released */
};

struct r5x_conf;

/* One stripe: R5X_STRIPE_SIZE bytes on each member at member sector @sector. */
struct r5x_stripe {
	struct hlist_node hash;	/* conf->hash, while it caches @sector */
	struct list_head lru;	/* see LIST OWNERSHIP */
	struct llist_node release_node;	/* on conf->released (ON_RELEASE) */
	struct r5x_conf *conf;
	sector_t sector;	/* member sector (without data_offset) */
	int pd_idx;		/* parity member */
	atomic_t count;		/* references */
	unsigned long state;	/* enum r5x_stripe_state */
	spinlock_t lock;	/* bio lists, wmask */
	atomic_t io_pending;	/* member I/Os in flight */
	unsigned long delay_deadline; /* jiffies: delayed stripe activates by then */
	unsigned long bm_seq;	/* conf->bm_seq of its newest bitmap startwrite */
	unsigned int sync_mode;	/* enum r5x_sync_mode while R5X_STRIPE_SYNC */
	int sync_target;	/* member rebuilt by recovery, or -1 */
	struct r5x_dev dev[];	/* conf->raid_disks entries */
};

enum r5x_sync_mode {
	R5X_SYNC_RESYNC,	/* recompute parity, write it */
	R5X_SYNC_CHECK,		/* compare parity, count mismatches */
	R5X_SYNC_REPAIR,	/* compare, count, rewrite bad parity */
	R5X_SYNC_RECOVER,	/* rebuild sync_target from the others */
	R5X_SYNC_REPLACE,	/* copy slot sync_target to its replacement */
};

/*
 * One slot.  @replacement (mdadm --replace) receives every write to the
 * slot and a copy of the rest by recovery (R5X_SYNC_REPLACE); it is never
 * read.  Once in sync it takes the slot: spare_active fails @rdev, and its
 * removal moves @replacement into @rdev.
 */
struct r5x_disk {
	struct md_rdev __rcu *rdev;
	struct md_rdev __rcu *replacement;
};

/* Tunables, all validated by sysfs.c; see README for ranges. */
/* Handlers of stripes beside raid5xd (workers.c) */
#define R5X_MAX_WORKERS		8
/* a lone writer for solo_worker: no write found another in flight for */
#define R5X_SOLO_QUIET		(HZ / 10)
/* solo_worker 2: raid5xd and the solo worker handle stripes in turn */
#define R5X_SOLO_EXCLUSIVE	2

/* conf->handling: one handler at a time in exclusive mode (workers.c) */
enum r5x_handling {
	R5X_HANDLING_BUSY,	/* a handler is in its loop */
	R5X_HANDLING_MISSED,	/* another came meanwhile: look again */
};

struct r5x_worker {
	struct work_struct work;
	struct r5x_conf *conf;
	void *scratch;			/* its page for parity checks */
};

struct r5x_tunables {
	int preread_bypass_threshold;	/* raid5's meaning */
	int preread_batch;		/* max stripes pre-reading at once */
	int seq_delay_ms;		/* max age of a delayed sequential stripe */
	int stall_grace_ms;		/* full stall: wait for new writes this long */
	int stream_confirm;		/* continuations before a stream may wait (READ_ONCE) */
	int wake_batch_pct;		/* % of cache freed before waking waiters */
	int worker_threads;		/* handlers beside raid5xd (READ_ONCE) */
	int solo_worker;		/* 1, 2: a worker too for a lone writer (READ_ONCE) */
	int skip_copy;			/* write stable bio pages uncopied (READ_ONCE) */
};

struct r5x_conf {
	struct mddev *mddev;
	struct r5x_geom geom;
	struct r5x_disk disks[R5X_MAX_DISKS];

	spinlock_t lock;		/* see LOCKING */
	struct hlist_head *hash;	/* stripes by sector */
	unsigned int hash_mask;
	struct list_head inactive;	/* idle stripes, LRU at the head */
	struct list_head handle;	/* stripes with work */
	struct list_head delayed;	/* writes waiting to be allowed pre-reads */
	struct list_head hold;		/* allowed to pre-read, queued */
	int nr_stripes;			/* allocated */
	int max_nr_stripes;		/* stripe_cache_size */
	int active_stripes;		/* stripes not on inactive */
	int nr_delayed;			/* on delayed list */
	int preread_active;		/* PREREAD_ACTIVE from the delayed list */
	int bypass_count;		/* hold stripes passed by handle stripes */
	int quiesce;			/* 0, 1 = quiescing (no new stripes), 2 = quiet */
	int recovery_disabled;		/* == mddev's: recovery cannot go on */
	int waiters;			/* sleeping in get_stripe() */
	struct kmem_cache *slab;
	char slab_name[sizeof("raid5x-") + DISK_NAME_LEN];
	wait_queue_head_t wait_for_stripe;	/* cache full */
	wait_queue_head_t wait_for_quiesce;	/* quiesce state changes */
	/* each on a line of its own: reads and writes count without a lock */
	atomic_t aligned_reads ____cacheline_aligned_in_smp; /* direct member reads in flight */
	/* array write bios not completed (write_track.c) */
	atomic_t writes_in_flight ____cacheline_aligned_in_smp;
	atomic64_t write_bytes_in_flight; /* ... and their bytes */
	unsigned long deep_write;	/* jiffies a write last found another in flight */
	unsigned long stall_since;	/* jiffies all active stripes were delayed, or 0 */
	unsigned long write_seq;	/* write bios seen (under stream_lock) */
	unsigned long stall_seq;	/* write_seq when a stall was declared, or 0 */
	struct bio_list retry_reads;	/* failed direct reads, under lock */
	struct work_struct retry_work;	/* sends them through the cache */
	struct list_head sb_wait;	/* see LIST OWNERSHIP */
	/*
	 * Stripes whose last reference a completion or a submitter gave up
	 * without conf->lock (r5x_release_stripe): the reference rides on
	 * this list until a handler drops it under the lock
	 * (r5x_drain_released).
	 */
	struct llist_head released;
	/*
	 * Write-intent bitmap: every write attachment to a stripe page is one
	 * md_bitmap_startwrite (numbered by bm_seq) and one endwrite when the
	 * bio is completed.  A handler that drains a stripe whose newest
	 * startwrite is past bm_flushed holds its member I/O batch: the batch
	 * flushes the bitmap (md_bitmap_unplug, r5x_bitmap_barrier) before it
	 * sends anything more, so no data reaches a member before its dirty
	 * bit is on disk, and the stripes a handler drains meanwhile share
	 * that one flush (counters bm_stripes, bm_flushes).
	 */
	atomic_long_t bm_seq;
	unsigned long bm_flushed;	/* written under bm_flush_lock */
	struct mutex bm_flush_lock;	/* one md_bitmap_unplug at a time */
	unsigned long unclean_since;	/* safemode_kick (raid5xd only): first seen, jiffies | 1 */
	bool fullsync;			/* recovery may not skip clean regions */
	struct timer_list delay_timer;	/* wakes raid5xd for aged stripes */
	struct r5x_delay_floor delay_floor; /* under lock: skip needless walks */

	/*
	 * sequential write stream detection and the writers' window
	 * (delay_list.c; written under stream_lock, read with READ_ONCE;
	 * write_seq too): every write bio notes itself here, so not under
	 * conf->lock, which the handlers hold for their lists
	 */
	spinlock_t stream_lock;
	sector_t stream_end[8];
	u8 stream_runs[8];		/* r5x_stream_note */
	unsigned int stream_next;
	u64 window;			/* peak write bytes in flight (r5x_window_note) */
	unsigned long window_at;	/* jiffies the peak was set */

	/*
	 * Discard (discard.c): queued array discards, and the member sectors
	 * [fence_lo, fence_hi) of the span being discarded (fence_hi 0: none),
	 * in which r5x_get_stripe() waits.  Under lock.
	 */
	struct bio_list discards;
	atomic_t discards_in_flight;	/* queued or running (quiesce waits) */
	struct work_struct discard_work;
	sector_t fence_lo, fence_hi;
	wait_queue_head_t wait_for_fence;

	struct r5x_tunables tun;
	struct r5x_counters __percpu *stats;	/* counters.h */
	u64 stats_base[R5X_NR_COUNTERS];	/* sums at the last reset */
	void *scratch;			/* raid5xd's page for parity checks */
	struct workqueue_struct *wq;	/* the workers' (workers.c) */
	struct r5x_worker workers[R5X_MAX_WORKERS];
	unsigned long handling;		/* enum r5x_handling (workers.c) */
};

/* raid5x.c */
extern struct md_personality raid5x_personality;
bool r5x_is_ours(struct mddev *mddev);

/* stripe_handle.c */
struct r5x_iobatch;
/* iobatch barrier: bitmap bits up to startwrite @seq on disk (may sleep) */
void r5x_bitmap_barrier(void *ctx, unsigned long seq);
void r5x_handle_stripe(struct r5x_stripe *sh, void *scratch,
		       struct r5x_iobatch *iob);
void r5x_attach_bio(struct r5x_stripe *sh, int disk, struct bio *bio,
		    sector_t lsector, bool write);
bool r5x_stripe_overwritten(const struct r5x_stripe *sh);
int r5x_bref_pool_init(void);
void r5x_bref_pool_exit(void);

/* sysfs.c */
extern struct attribute_group r5x_attr_group;

#define r5x_pr(conf, lvl, fmt, ...) \
	pr_##lvl("md/raid5x:%s: " fmt, mdname((conf)->mddev), ##__VA_ARGS__)

#endif /* RAID5X_H */
