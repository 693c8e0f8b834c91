// SPDX-License-Identifier: GPL-2.0
/*
 * discard.c - array discards (TRIM, fstrim, mount -o discard).
 *
 * raid456's rule: only with the module parameter devices_handle_discard_safely
 * (the admin's word that every member reads back zeroes where it discarded)
 * and members that all take discards is discard advertised.  A row discarded
 * on every member, parity included, then reads zeroes everywhere and its
 * parity (zero) is right without being written.  An array discard is cut to
 * the whole rows it covers; the partial rows at its ends are left as they
 * are (a discard is a hint; raid456 does the same).
 *
 * A work item takes the queued discards one by one and their rows a span
 * (at most R5X_DISCARD_SPAN stripes per member, whole rows) at a time:
 *   1. fence: under conf->lock the span's member sectors are marked, and
 *      r5x_get_stripe() waits outside them (stripe_cache.c);
 *   2. wait until no cached stripe of the span is in use, and forget the
 *      idle ones (their pages would be stale after the discard);
 *   3. the write-intent bitmap: the span marked (raid5x on 6.1; md core
 *      from md_account_bio on later kernels) and on disk before any member
 *      is touched, so a crash in the middle resyncs the span;
 *   4. discard every working member and replacement over the span; one
 *      that refuses (a member without discard added later) gets zeroes
 *      written instead, and one that fails that too is a write error: the
 *      range goes into its bad-block log, or md fails the member;
 *   5. lift the fence.
 * A quiesce waits until no discard is queued or running (raid5x_quiesce):
 * md may destroy the bitmap or mark the array clean right after it.  The
 * work item goes on while the array quiesces (it takes no new stripe, and
 * the stripes it waits for are drained by the quiesce too).  Where a slot
 * had no member to discard (degraded), the discard is acknowledged only
 * once md has recorded the failure, as degraded writes are
 * (stripe_handle.c).
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/workqueue.h>
#include "raid5x.h"
#include "discard.h"
#include "stripe_cache.h"
#include "members.h"

bool r5x_discard_safely;
module_param_named(devices_handle_discard_safely, r5x_discard_safely, bool, 0644);
MODULE_PARM_DESC(devices_handle_discard_safely,
		 "Set to Y if every member of every array reliably returns zeroes from discarded blocks (as raid456's; read when an array starts)");

/* Stripes per member one span fences at most (whole rows, one row at least) */
#define R5X_DISCARD_SPAN	2048
/* Stripe lookups under conf->lock before it is dropped once */
#define R5X_FORGET_BUDGET	256

static struct workqueue_struct *r5x_discard_wq;

/*
 * The granularity raid5x advertises: a row (chunk x data members), rounded
 * up to a power of two as the block layer wants; 0 if discard is off.
 */
unsigned int r5x_discard_granularity(const struct r5x_geom *g)
{
	if (!r5x_discard_safely)
		return 0;
	return roundup_pow_of_two((unsigned int)g->chunk_sectors *
				  g->data_disks << SECTOR_SHIFT);
}

/*
 * Discard member @rdev over member sectors [@lo, @lo + @len); zeroes
 * written if it refuses.  Returns false if neither took (recorded then).
 */
static bool discard_member(struct r5x_conf *conf, struct md_rdev *rdev,
			   sector_t lo, sector_t len)
{
	sector_t s = lo + rdev->data_offset;

	if (!blkdev_issue_discard(rdev->bdev, s, len, GFP_NOIO))
		return true;
	r5x_count(conf, discard_zeroed, 1);
	if (!blkdev_issue_zeroout(rdev->bdev, s, len, GFP_NOIO, 0))
		return true;
	r5x_count(conf, io_errors, 1);
	if (!rdev_set_badblocks(rdev, lo, len, 0)) {
		md_error(conf->mddev, rdev);
		return false;
	}
	r5x_count(conf, badblocks, len >> ilog2(R5X_STRIPE_SECTORS));
	r5x_pr(conf, warn_ratelimited,
	       "discard of %llu sectors at %llu on %pg failed, zeroing too: recorded as bad\n",
	       (unsigned long long)len, (unsigned long long)s, rdev->bdev);
	return false;
}

/* Step 2: no stripe of the fenced span in use, none left in the cache. */
static void forget_span(struct r5x_conf *conf, sector_t lo, sector_t hi)
{
	sector_t pos = lo;

	lockdep_assert_held(&conf->lock);
	while (pos < hi) {
		if (r5x_cache_forget(conf, &pos, hi, R5X_FORGET_BUDGET)) {
			r5x_wake_thread(conf);
			wait_event_lock_irq(conf->wait_for_fence,
					    !r5x_cache_busy_at(conf, pos),
					    conf->lock);
		} else if (pos < hi) {
			spin_unlock_irq(&conf->lock);
			cond_resched();
			spin_lock_irq(&conf->lock);
		}
	}
}

/*
 * Discard member sectors [@lo, @lo + @len) (whole rows) on every member.
 * Returns how many slots have no member that took it (0 normally).
 */
static int discard_span(struct r5x_conf *conf, sector_t lo, sector_t len)
{
	struct mddev *mddev = conf->mddev;
	struct md_rdev *rdev, *repl;
	int i, missing = 0;

	spin_lock_irq(&conf->lock);
	conf->fence_lo = lo;
	conf->fence_hi = lo + len;
	forget_span(conf, lo, lo + len);
	spin_unlock_irq(&conf->lock);

	if (mddev->bitmap) {
		r5x_bm_startwrite(mddev, lo, len);
		mutex_lock(&conf->bm_flush_lock);
		r5x_bm_unplug(mddev);
		mutex_unlock(&conf->bm_flush_lock);
	}
	for (i = 0; i < conf->geom.raid_disks; i++) {
		rdev = r5x_get_rdev(conf, i, true);
		if (rdev) {
			if (!discard_member(conf, rdev, lo, len))
				missing++;
			rdev_dec_pending(rdev, mddev);
		} else {
			missing++;
		}
		repl = r5x_get_repl(conf, i);
		if (repl) {
			if (repl != rdev)
				discard_member(conf, repl, lo, len);
			rdev_dec_pending(repl, mddev);
		}
	}
	if (mddev->bitmap)
		r5x_bm_endwrite(mddev, lo, len, !missing);
	r5x_count(conf, discard_rows, len >> ilog2(conf->geom.chunk_sectors));

	spin_lock_irq(&conf->lock);
	conf->fence_lo = 0;
	conf->fence_hi = 0;
	wake_up_all(&conf->wait_for_fence);
	spin_unlock_irq(&conf->lock);
	return missing;
}

/* A slot went without the discard: acknowledge once md has recorded why. */
static void wait_recorded(struct r5x_conf *conf)
{
	while (r5x_may_wait_record(conf) && r5x_failure_unrecorded(conf)) {
		r5x_wake_thread(conf);
		wait_event_timeout(conf->mddev->sb_wait,
				   !r5x_failure_unrecorded(conf), HZ / 10);
	}
}

static void discard_bio(struct r5x_conf *conf, struct bio *bi)
{
	const struct r5x_geom *g = &conf->geom;
	sector_t row = (sector_t)g->chunk_sectors * g->data_disks;
	sector_t first = DIV_ROUND_UP_SECTOR_T(bi->bi_iter.bi_sector, row);
	sector_t last = bio_end_sector(bi);
	sector_t span = max_t(sector_t, 1, R5X_DISCARD_SPAN /
			      (g->chunk_sectors >> ilog2(R5X_STRIPE_SECTORS)));
	int missing = 0;

	sector_div(last, row);
	r5x_count(conf, discards, 1);
	while (first < last) {
		sector_t n = min(last - first, span);

		missing = max(missing, discard_span(conf, first * g->chunk_sectors,
						    n * g->chunk_sectors));
		first += n;
	}
	if (missing)
		wait_recorded(conf);
	/* more slots without it than RAID5 survives: the rows are lost */
	if (missing > 1)
		bi->bi_status = BLK_STS_IOERR;
	md_write_end(conf->mddev);
	bio_endio(bi);
	spin_lock_irq(&conf->lock);
	if (atomic_dec_and_test(&conf->discards_in_flight) && conf->quiesce)
		wake_up(&conf->wait_for_quiesce);
	spin_unlock_irq(&conf->lock);
}

static void discard_work(struct work_struct *work)
{
	struct r5x_conf *conf = container_of(work, struct r5x_conf,
					     discard_work);
	struct bio *bi;

	for (;;) {
		spin_lock_irq(&conf->lock);
		bi = bio_list_pop(&conf->discards);
		spin_unlock_irq(&conf->lock);
		if (!bi)
			return;
		discard_bio(conf, bi);
	}
}

/*
 * make_request: @bi is an array discard md counted (md_write_start,
 * md_account_bio); the work item ends it, with md_write_end.
 */
void r5x_discard_queue(struct r5x_conf *conf, struct bio *bi)
{
	atomic_inc(&conf->discards_in_flight);
	spin_lock_irq(&conf->lock);
	bio_list_add(&conf->discards, bi);
	spin_unlock_irq(&conf->lock);
	queue_work(r5x_discard_wq, &conf->discard_work);
}

void r5x_discard_conf_init(struct r5x_conf *conf)
{
	bio_list_init(&conf->discards);
	INIT_WORK(&conf->discard_work, discard_work);
	init_waitqueue_head(&conf->wait_for_fence);
}

/* free: nothing is queued after md's last quiesce; the work item is idle. */
void r5x_discard_conf_stop(struct r5x_conf *conf)
{
	WARN_ON_ONCE(atomic_read(&conf->discards_in_flight));
	flush_work(&conf->discard_work);
}

int r5x_discard_init(void)
{
	r5x_discard_wq = alloc_workqueue("raid5x_discard",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return r5x_discard_wq ? 0 : -ENOMEM;
}

void r5x_discard_exit(void)
{
	destroy_workqueue(r5x_discard_wq);
}
