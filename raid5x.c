// SPDX-License-Identifier: GPL-2.0
/*
 * raid5x.c - the md personality: conf set-up and teardown, request entry,
 * direct reads, raid5xd, resync requests, member changes, module init.
 *
 * raid5x never takes an array the user did not hand to it: it registers
 * under a level number no superblock carries (R5X_PERS_LEVEL), so md's
 * number-first lookup of 0.90 arrays keeps finding raid456, and it always
 * reports level 5 to md, so the superblock keeps saying raid5 and raid456
 * can assemble the array again at any time.
 *
 * Why a private level number and not md's own: md keys personalities by
 * level (a list up to 6.13, an xarray of submodule ids from 6.14), and the
 * level number is what superblocks store, so the only number that names
 * raid5x without claiming someone's arrays is one no superblock can hold.
 * Users reach raid5x by name ("raid5x": mdadm --level=raid5x, or
 * `echo raid5x > md/level`, md's takeover hook), never by number.  md_run
 * sets mddev->level to the personality's number before calling run();
 * run() sets it back to 5 before md writes any superblock (md_update_sb
 * runs after run(), on every kernel from 6.1 to 7.x).
 *
 * sysfs: md removes the old personality's attribute group (to_remove) only
 * at mddev_unlock, after the new one's run().  raid456's group has the
 * same names as ours (stripe_cache_size, ...), so on a takeover from
 * raid456 run() removes that group first: it is recognised by its
 * stripe_cache_size attribute, and raid456 is the only personality that
 * can hand over a level-5 array.  Its show/store methods would otherwise
 * be called with our conf.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "raid5x.h"
#include "stripe_cache.h"
#include "delay_list.h"
#include "plug.h"
#include "iobatch.h"
#include "members.h"
#include "workers.h"
#include "discard.h"
#include "write_track.h"

/* md "level" number of the personality; never stored in a superblock */
#define R5X_PERS_LEVEL	(-55)

/* Direct member read of a bio inside one chunk (front-padded clone). */
struct r5x_aread {
	struct r5x_conf *conf;
	struct md_rdev *rdev;
	struct bio *orig;
	unsigned long acct_start; /* r5x_read_acct_start's, when acct */
	bool acct;		/* this read's statistics end here */
	struct bio clone;	/* must be last: bioset front_pad */
};

static struct bio_set r5x_aread_set;
/* failed direct reads go back through the stripe cache from here */
static struct workqueue_struct *r5x_retry_wq;

/* raid5xd: degraded writes parked until md recorded a failure go on. */
static void resume_sb_waiters(struct r5x_conf *conf)
{
	struct r5x_stripe *sh, *tmp;

	lockdep_assert_held(&conf->lock);
	if (list_empty(&conf->sb_wait))
		return;
	if (r5x_may_wait_record(conf) && r5x_failure_unrecorded(conf)) {
		/* md may update the superblock outside raid5xd: look again */
		mod_timer(&conf->delay_timer, jiffies + 1);
		return;
	}
	list_for_each_entry_safe(sh, tmp, &conf->sb_wait, lru) {
		clear_bit(R5X_STRIPE_SB_WAIT, &sh->state);
		list_move_tail(&sh->lru, &conf->handle);
	}
}

static int calc_degraded(struct r5x_conf *conf)
{
	int i, degraded = 0;

	for (i = 0; i < conf->geom.raid_disks; i++)
		if (r5x_disk_failed(conf, i))
			degraded++;
	return degraded;
}

/*
 * submit_to_stripes @flags.  R5X_SUB_RECHECK: a read the member failed
 * around the cache (read_aligned); its blocks are read from the member
 * again even if the cache has them.
 */
#define R5X_SUB_WRITE	1	/* a write (else a read) */
#define R5X_SUB_RECHECK	2	/* a failed direct read, retried */
#define R5X_SUB_OWNPLUG	4	/* under raid5x's own plug (make_request) */

/*
 * Attach every page of @bi to its stripe; the caller ends its own count.
 * A stripe gets all of @bi's blocks in it at once (the blocks of one row
 * at the same offset in its chunks, one chunk apart in the array), in
 * ascending stripe order: a bio over whole rows completes each stripe
 * before the next is touched.  Under raid5x's own plug, which only keeps
 * this bio's partial stripes from starting before the bio is all queued,
 * a stripe the bio has overwritten whole goes to raid5xd at once, while
 * the submitter queues the rest (as raid456 hands over a full stripe);
 * under the submitter's plug (writeback, io_submit, 6.1's block-device
 * writes) every stripe waits for the unplug, which batches member writes
 * for more I/O to come.
 */
static void submit_to_stripes(struct r5x_conf *conf, struct bio *bi,
			      unsigned int flags, int gsflags)
{
	bool write = flags & R5X_SUB_WRITE;
	unsigned int chunk = conf->geom.chunk_sectors;
	int dd = conf->geom.data_disks;
	sector_t first = round_down(bi->bi_iter.bi_sector, R5X_STRIPE_SECTORS);
	sector_t end = bio_end_sector(bi);
	bool seq = write && r5x_note_write(conf, bi->bi_iter.bi_sector, end);
	struct r5x_loc loc;
	struct r5x_stripe *sh;
	sector_t s, ls, n;
	int idx;

	for (s = first; s < end; s += R5X_STRIPE_SECTORS) {
		/* the chunk's place in its row: 0 .. data_disks - 1 */
		n = s >> ilog2(chunk);
		idx = sector_div(n, dd);
		/* queued with the block one chunk before it, same stripe */
		if (idx && s - chunk >= first)
			continue;
		r5x_map_sector(&conf->geom, s, &loc);
		sh = r5x_get_stripe(conf, loc.msector, gsflags);
		if (WARN_ON_ONCE(!sh)) {
			bi->bi_status = BLK_STS_RESOURCE;
			return;
		}
		for (ls = s; idx < dd && ls < end; idx++, ls += chunk) {
			if (ls != s)
				r5x_map_sector(&conf->geom, ls, &loc);
			if (WARN_ON_ONCE(sh->dev[loc.disk].lsector != ls ||
					 loc.disk == sh->pd_idx ||
					 loc.msector != sh->sector)) {
				bi->bi_status = BLK_STS_IOERR;	/* not silently */
				break;
			}
			bio_inc_remaining(bi);
			if (write) {
				md_write_inc(conf->mddev, bi);
				r5x_mark_stream(sh, seq);
			}
			r5x_attach_bio(sh, loc.disk, bi, ls, write);
			if (flags & R5X_SUB_RECHECK)
				set_bit(R5X_DEV_RECHECK, &sh->dev[loc.disk].flags);
		}
		if ((flags & R5X_SUB_OWNPLUG) && write && r5x_stripe_overwritten(sh)) {
			r5x_count(conf, own_plug_passed, 1);
			r5x_release_stripe(sh);
		} else {
			r5x_release_or_plug(conf, sh);
		}
	}
}

static void aligned_reads_put(struct r5x_conf *conf)
{
	if (atomic_dec_and_test(&conf->aligned_reads))
		wake_up(&conf->wait_for_quiesce);
}

static void retry_reads_work(struct work_struct *work)
{
	struct r5x_conf *conf = container_of(work, struct r5x_conf, retry_work);
	struct bio *bi;

	for (;;) {
		spin_lock_irq(&conf->lock);
		bi = bio_list_pop(&conf->retry_reads);
		spin_unlock_irq(&conf->lock);
		if (!bi)
			return;
		submit_to_stripes(conf, bi, R5X_SUB_RECHECK, R5X_GS_NOQUIESCE);
		bio_endio(bi);
		r5x_read_release(conf->mddev);
		aligned_reads_put(conf);
	}
}

static void aligned_read_endio(struct bio *clone)
{
	struct r5x_aread *ar = container_of(clone, struct r5x_aread, clone);
	struct r5x_conf *conf = ar->conf;
	struct bio *orig = ar->orig;
	blk_status_t err = clone->bi_status;
	unsigned long flags;

	/*
	 * Also on a failed read: its retry through the cache is not
	 * accounted again, so the read's time ends at the failure.
	 */
	if (ar->acct)
		r5x_read_acct_end(orig, ar->acct_start);
	rdev_dec_pending(ar->rdev, conf->mddev);
	bio_put(clone);
	if (!err) {
		bio_endio(orig);
		/* before the count quiesce (and so a stop) waits for */
		r5x_read_release(conf->mddev);
		aligned_reads_put(conf);
		return;
	}
	/* let the stripe path re-read, fail the member, reconstruct */
	r5x_count(conf, aligned_retries, 1);
	spin_lock_irqsave(&conf->lock, flags);
	bio_list_add(&conf->retry_reads, orig);
	spin_unlock_irqrestore(&conf->lock, flags);
	queue_work(r5x_retry_wq, &conf->retry_work);
}

/* Send a read inside one chunk of a healthy member straight to it. */
static bool read_aligned(struct r5x_conf *conf, struct bio *bi)
{
	struct mddev *mddev = conf->mddev;
	struct bio *clone;
	unsigned int shift = ilog2(conf->geom.chunk_sectors);
	sector_t start = bi->bi_iter.bi_sector;
	sector_t first_bad;
	sector_t bad_sectors;
	unsigned long acct_start = 0;
	struct r5x_aread *ar;
	struct md_rdev *rdev;
	struct r5x_loc loc;
	bool acct;

	if (!bi->bi_iter.bi_size ||
	    (start >> shift) != ((bio_end_sector(bi) - 1) >> shift))
		return false;
	r5x_map_sector(&conf->geom, start, &loc);
	rdev = r5x_get_rdev(conf, loc.disk, false);
	if (!rdev)
		return false;
	if (r5x_is_badblock(rdev, loc.msector, bio_sectors(bi), &first_bad,
			    &bad_sectors))
		goto fallback;
	/*
	 * No conf->lock here: count the read, then look at quiesce.
	 * raid5x_quiesce sets quiesce, then reads the count; with a full
	 * barrier on both sides, either it sees this read or this read sees
	 * it (and goes through the cache, where get_stripe waits).
	 */
	atomic_inc(&conf->aligned_reads);
	smp_mb__after_atomic();	/* pairs with raid5x_quiesce's smp_mb() */
	if (READ_ONCE(conf->quiesce)) {
		aligned_reads_put(conf);
		goto fallback;
	}

	r5x_read_hold(mddev);
	acct = r5x_read_acct_start(bi, &acct_start);
	clone = bio_alloc_clone(rdev->bdev, bi, GFP_NOIO, &r5x_aread_set);
	ar = container_of(clone, struct r5x_aread, clone);
	ar->conf = conf;
	ar->rdev = rdev;
	ar->orig = bi;
	ar->acct = acct;
	ar->acct_start = acct_start;
	clone->bi_iter.bi_sector = loc.msector + rdev->data_offset;
	clone->bi_end_io = aligned_read_endio;
	r5x_count(conf, aligned_reads, 1);
	submit_bio_noacct(clone);
	return true;
fallback:
	rdev_dec_pending(rdev, mddev);
	return false;
}

/*
 * A read crossing a chunk boundary on a healthy array: split off the part
 * up to the boundary (it can go straight to one member) and send the rest
 * back through md, which calls us again for it.
 */
static struct bio *split_read_at_chunk(struct r5x_conf *conf, struct bio *bi)
{
	unsigned int chunk = conf->geom.chunk_sectors;
	sector_t start = bi->bi_iter.bi_sector;
	unsigned int sectors = chunk - (start & (chunk - 1));
	struct bio *split;

	if (conf->mddev->degraded || bio_sectors(bi) <= sectors)
		return bi;
	split = bio_split(bi, sectors, GFP_NOIO, &conf->mddev->bio_set);
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(split)))
		return bi;	/* the stripe cache serves any size */
	bio_chain(split, bi);
	submit_bio_noacct(bi);
	return split;
}

static bool raid5x_make_request(struct mddev *mddev, struct bio *bi)
{
	struct r5x_conf *conf = mddev->private;
	bool write = op_is_write(bio_op(bi));
	struct blk_plug plug;
	bool many;

	if (unlikely(bi->bi_opf & REQ_PREFLUSH) && md_flush_request(mddev, bi))
		return true;
	if (bio_op(bi) != REQ_OP_READ && bio_op(bi) != REQ_OP_WRITE &&
	    bio_op(bi) != REQ_OP_DISCARD) {
		/* write-zeroes is not advertised */
		bi->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bi);
		return true;
	}
	if (!write) {
		bi = split_read_at_chunk(conf, bi);
		if (read_aligned(conf, bi))
			return true;
	}
	if (write && unlikely(r5x_bitmap_unmarkable(mddev))) {
		pr_err_ratelimited("md/raid5x:%s: a bitmap raid5x cannot mark was added: writes refused; remove it (mdadm --grow --bitmap=none) or move the array to raid456\n",
				   mdname(mddev));
		bio_io_error(bi);
		return true;
	}
	if (unlikely(r5x_llbitmap(mddev)) && bio_op(bi) == REQ_OP_DISCARD) {
		/* before md core marks it: see r5x_llbitmap */
		bi->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bi);
		return true;
	}
	if (write && !r5x_write_start(mddev, bi))
		return false;
	md_account_bio(mddev, &bi);
	if (bio_op(bi) == REQ_OP_DISCARD) {
		/* not in writes_in_flight: the write policy counts data only */
		r5x_discard_queue(conf, bi);	/* ends it, md_write_end too */
		return true;
	}
	if (!write) {
		submit_to_stripes(conf, bi, 0, 0);
		bio_endio(bi);
		return true;
	}
	bi = r5x_track_write(conf, bi);
	/*
	 * The partial stripes of a write over more than one block wait for
	 * the end of its bio (plug.c) even when the submitter holds no plug,
	 * as 7.x leaves O_DIRECT writes (6.12 plugs every bio it submits,
	 * 6.1 every block-device write): none starts pre-reads for a
	 * block the same bio is about to write.  The stripes it overwrites
	 * whole go at once (submit_to_stripes).  Under the submitter's own
	 * plug raid5x takes none: that one holds every stripe.
	 */
	many = bio_sectors(bi) > R5X_STRIPE_SECTORS && !current->plug;
	if (many)
		blk_start_plug(&plug);
	submit_to_stripes(conf, bi, R5X_SUB_WRITE | (many ? R5X_SUB_OWNPLUG : 0), 0);
	if (many)
		blk_finish_plug(&plug);
	md_write_end(mddev);
	bio_endio(bi);
	return true;
}

/*
 * md lost its safe mode (tests/torture/RESULTS.md, divergence 7): the
 * array not clean, safemode 0, no write counted and no safe-mode timer
 * armed, so nothing marks it clean until the next write (a resync after a
 * crash).  One way there: md_check_recovery sets safemode 1 -> 0 and
 * set_in_sync fails on a write still counted; a timer firing before
 * set_in_sync returns has its safemode cleared again.  The same state
 * shows for a moment at every clean -> dirty change (a writer waits in
 * md_write_start, not yet in writes_in_flight): so raid5xd acts only when
 * it finds the state again 2 safe-mode delays later (it arranges that
 * look), and then does what md's timer would have done.  The idle look
 * every R5X_IDLE_LOOK_SECS finds a state reached outside raid5xd.
 */
static void safemode_kick(struct r5x_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	unsigned long wait = 2 * mddev->safemode_delay;

	if (READ_ONCE(mddev->in_sync) || READ_ONCE(mddev->safemode) ||
	    !wait || mddev->external || !md_is_rdwr(mddev) ||
	    atomic_read(&conf->writes_in_flight) ||
	    atomic_read(&conf->discards_in_flight) ||
	    timer_pending(&mddev->safemode_timer)) {
		conf->unclean_since = 0;
		return;
	}
	if (!conf->unclean_since)
		conf->unclean_since = jiffies | 1;
	if (time_before(jiffies, conf->unclean_since + wait)) {
		r5x_delay_wake_by(conf, conf->unclean_since + wait + 1);
		return;
	}
	conf->unclean_since = 0;
	WRITE_ONCE(mddev->safemode, 1);
	r5x_count(conf, safemode_kicks, 1);
	r5x_wake_thread(conf);
}

/*
 * raid5xd runs at least this often (seconds), idle or not: a safe mode md
 * lost with no I/O left to wake raid5xd is found within that time.
 */
#define R5X_IDLE_LOOK_SECS	5

/* stripes raid5xd handles between two looks at md's superblock work */
#define R5X_THREAD_BATCH	64

/*
 * raid5xd: superblock updates for md, then stripes until none is ready.
 * Under sustained I/O there is always a stripe ready: md's work (a
 * failure to record, a recovery to start) is looked at again between
 * batches, as raid5d does, or writes parked for it would wait for good.
 */
static void raid5x_thread(struct md_thread *thread)
{
	struct mddev *mddev = thread->mddev;
	struct r5x_conf *conf = mddev->private;
	bool first = true;

	do {
		if (first || (READ_ONCE(mddev->sb_flags) &
			      ~BIT(MD_SB_CHANGE_PENDING)))
			md_check_recovery(mddev);
		first = false;
		if (conf->nr_stripes > conf->max_nr_stripes)
			r5x_cache_shrink(conf);
		spin_lock_irq(&conf->lock);
		resume_sb_waiters(conf);
		spin_unlock_irq(&conf->lock);
	} while (r5x_handle_ready(conf, conf->scratch, R5X_THREAD_BATCH) >=
		 R5X_THREAD_BATCH);
	safemode_kick(conf);
}

static sector_t raid5x_size(struct mddev *mddev, sector_t sectors, int raid_disks)
{
	struct r5x_conf *conf = mddev->private;

	if (!sectors)
		sectors = mddev->dev_sectors;
	if (!raid_disks)
		raid_disks = conf->geom.raid_disks;
	sectors = round_down(sectors, conf->geom.chunk_sectors);
	return sectors * (raid_disks - 1);
}

/*
 * mdadm --grow --size: md has checked that no sync runs and that every
 * member has room.  Growing, the rows past the old end are resynced (md
 * starts at the old end, as for raid456); shrinking leaves the rows past
 * the new end as they are.  The bitmap follows the member size; not
 * llbitmap's (r5x_llbitmap): refused.
 */
static int raid5x_resize(struct mddev *mddev, sector_t sectors)
{
	struct r5x_conf *conf = mddev->private;
	sector_t old = mddev->dev_sectors, array;
	int err;

	if (r5x_llbitmap(mddev)) {
		pr_warn("md/raid5x:%s: cannot resize an array with the lockless bitmap (llbitmap); remove the bitmap first (mdadm --grow --bitmap=none)\n",
			mdname(mddev));
		return -EINVAL;
	}
	sectors = round_down(sectors, conf->geom.chunk_sectors);
	if (!sectors)
		return -EINVAL;
	array = raid5x_size(mddev, sectors, conf->geom.raid_disks);
	if (mddev->external_size && array < mddev->array_sectors)
		return -EINVAL;
	err = r5x_bitmap_resize(mddev, sectors);
	if (err)
		return err;
	md_set_array_sectors(mddev, array);
	if (sectors > old && r5x_resync_offset(mddev) > old) {
		r5x_resync_offset(mddev) = old;
		set_bit(MD_RECOVERY_NEEDED, &mddev->recovery);
	}
	mddev->dev_sectors = sectors;
	mddev->resync_max_sectors = sectors;
	r5x_pr(conf, info, "member size %llu -> %llu sectors%s\n",
	       (unsigned long long)old, (unsigned long long)sectors,
	       sectors > old ? ", the new rows to resync" : "");
	return 0;
}

/*
 * A change of raid_disks, layout or chunk size (mdadm --grow, or md's
 * sysfs) would need a reshape, which raid5x does not do: refused with the
 * way round.  Asking for what the array already has is not a change.
 */
static int raid5x_check_reshape(struct mddev *mddev)
{
	if (!mddev->delta_disks && mddev->new_layout == mddev->layout &&
	    mddev->new_chunk_sectors == mddev->chunk_sectors)
		return 0;
	pr_warn("md/raid5x:%s: cannot reshape (raid-devices, layout or chunk): stop the array, assemble it on raid456, grow it there and switch back when the reshape is over (README: Create an array, convert one, and back)\n",
		mdname(mddev));
	return -EINVAL;
}

/* How long free_conf waits for a member write's completion to let go. */
#define R5X_FREE_WAIT	(10 * HZ)
#define R5X_FREE_POLL	(HZ / 20)

/*
 * md frees a personality once no array bio is in flight, and on 6.7+ it
 * may do so without quiescing it (a level change suspends the array:
 * active_io, not the personality's quiesce).  A member write's completion
 * that ended its stripe's array writes (end_writes_early) still holds
 * the stripe, and touches the array, until it releases it under
 * conf->lock: wait for that, as raid5x_quiesce does.
 */
static void wait_stripes_idle(struct r5x_conf *conf)
{
	unsigned long end = jiffies + R5X_FREE_WAIT;

	spin_lock_irq(&conf->lock);
	WRITE_ONCE(conf->quiesce, 1);
	for (;;) {
		/*
		 * raid5xd is gone: a completion's last reference that went
		 * on conf->released is dropped here, looked for every
		 * R5X_FREE_POLL (nothing wakes this wait for it)
		 */
		r5x_drain_released(conf);
		if (!conf->active_stripes)
			break;
		if (WARN_ON_ONCE(time_after(jiffies, end)))
			break;
		wait_event_lock_irq_timeout(conf->wait_for_quiesce,
					    !conf->active_stripes ||
					    !llist_empty(&conf->released),
					    conf->lock, R5X_FREE_POLL);
	}
	spin_unlock_irq(&conf->lock);
}

static void free_conf(struct r5x_conf *conf)
{
	if (!conf)
		return;
	if (conf->slab)
		wait_stripes_idle(conf);
	r5x_delay_stop(conf);
	r5x_workers_stop(conf);
	r5x_discard_conf_stop(conf);
	flush_work(&conf->retry_work);
	if (conf->slab)
		r5x_cache_destroy(conf);
	kfree(conf->scratch);
	free_percpu(conf->stats);
	kfree(conf);
}

/* Refuse what raid5x cannot run; @why names the reason for the log. */
static int check_array(struct mddev *mddev, const char **why)
{
	if (mddev->reshape_position != MaxSector || mddev->delta_disks ||
	    mddev->new_chunk_sectors != mddev->chunk_sectors ||
	    mddev->new_layout != mddev->layout) {
		*why = "a reshape is in progress";
		return -EINVAL;
	}
	if (test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
		*why = "arrays with a write journal are not supported";
		return -EINVAL;
	}
	if (test_bit(MD_HAS_PPL, &mddev->flags)) {
		*why = "arrays with a partial parity log are not supported";
		return -EINVAL;
	}
	*why = r5x_bitmap_unsupported(mddev);
	if (*why)
		return -EINVAL;
	if (mddev_is_clustered(mddev)) {
		*why = "clustered arrays are not supported";
		return -EINVAL;
	}
	return 0;
}

static struct r5x_conf *setup_conf(struct mddev *mddev)
{
	struct r5x_conf *conf;
	struct md_rdev *rdev;
	const char *why = NULL;
	struct r5x_geom geom;
	int err, degraded;

	err = check_array(mddev, &why);
	if (!err)
		err = r5x_geom_init(&geom, mddev->raid_disks,
				    mddev->new_chunk_sectors, mddev->new_layout,
				    &why);
	if (err) {
		pr_warn("md/raid5x:%s: cannot run array: %s\n", mdname(mddev), why);
		return ERR_PTR(err);
	}
	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return ERR_PTR(-ENOMEM);
	conf->mddev = mddev;
	conf->geom = geom;
	spin_lock_init(&conf->lock);
	spin_lock_init(&conf->stream_lock);
	init_llist_head(&conf->released);
	mutex_init(&conf->bm_flush_lock);
	INIT_LIST_HEAD(&conf->inactive);
	INIT_LIST_HEAD(&conf->handle);
	INIT_LIST_HEAD(&conf->delayed);
	INIT_LIST_HEAD(&conf->hold);
	INIT_LIST_HEAD(&conf->sb_wait);
	init_waitqueue_head(&conf->wait_for_stripe);
	init_waitqueue_head(&conf->wait_for_quiesce);
	bio_list_init(&conf->retry_reads);
	INIT_WORK(&conf->retry_work, retry_reads_work);
	r5x_discard_conf_init(conf);
	r5x_delay_init(conf);
	conf->recovery_disabled = r5x_recovery_off_init(mddev);
	conf->tun.preread_bypass_threshold = R5X_DEF_BYPASS;
	conf->tun.preread_batch = R5X_DEF_PREREAD_BATCH;
	conf->tun.seq_delay_ms = R5X_DEF_SEQ_DELAY_MS;
	conf->tun.stall_grace_ms = R5X_DEF_STALL_GRACE_MS;
	conf->tun.stream_confirm = R5X_DEF_STREAM_CONFIRM;
	conf->tun.wake_batch_pct = R5X_DEF_WAKE_BATCH_PCT;
	conf->tun.solo_worker = 1;	/* a lone writer's latency: r5x_wake_thread */
	conf->deep_write = jiffies - R5X_SOLO_QUIET - 1;
	conf->tun.skip_copy = 0;	/* docs/reports/nocopy-2026-12-01.md */

	rdev_for_each(rdev, mddev) {
		if (test_bit(Journal, &rdev->flags)) {
			why = "a journal device is present";
			goto refuse;
		}
		if (rdev->raid_disk < 0 || rdev->raid_disk >= geom.raid_disks)
			continue;
		if (test_bit(Replacement, &rdev->flags))
			RCU_INIT_POINTER(conf->disks[rdev->raid_disk].replacement, rdev);
		else
			RCU_INIT_POINTER(conf->disks[rdev->raid_disk].rdev, rdev);
		/*
		 * A member being rebuilt into a slot that was not its own (a
		 * fresh spare, a replacement) has no bitmap history there:
		 * its recovery, resumed after a stop or a takeover, must not
		 * skip the regions the bitmap calls clean.
		 */
		if (!test_bit(In_sync, &rdev->flags) &&
		    rdev->saved_raid_disk != rdev->raid_disk)
			conf->fullsync = true;
		/*
		 * A replacement is never read, so a resync does not make it
		 * agree with what it copies: in an array that needs one (a
		 * crash), its copy starts again where the resync does.
		 */
		if (test_bit(Replacement, &rdev->flags) &&
		    !test_bit(In_sync, &rdev->flags) &&
		    rdev->recovery_offset > r5x_resync_offset(mddev))
			rdev->recovery_offset = r5x_resync_offset(mddev);
	}
	degraded = calc_degraded(conf);
	if (degraded > 1) {
		why = "more than one member is missing or faulty";
		goto refuse;
	}
	if (degraded && r5x_resync_offset(mddev) != MaxSector && !mddev->ok_start_degraded) {
		why = "array is degraded and not clean (parity may be wrong)";
		goto refuse;
	}
	conf->scratch = kmalloc(R5X_STRIPE_SIZE, GFP_KERNEL);
	conf->stats = alloc_percpu(struct r5x_counters);
	err = conf->scratch && conf->stats ? r5x_workers_init(conf) : -ENOMEM;
	if (!err)
		err = r5x_cache_init(conf, R5X_DEFAULT_STRIPES);
	if (err) {
		free_conf(conf);
		return ERR_PTR(err);
	}
	return conf;
refuse:
	pr_warn("md/raid5x:%s: cannot run array: %s\n", mdname(mddev), why);
	free_conf(conf);
	return ERR_PTR(-EINVAL);
}

static bool group_has_attr(const struct attribute_group *grp, const char *name)
{
	struct attribute **a;

	for (a = grp->attrs; a && *a; a++)
		if (!strcmp((*a)->name, name))
			return true;
	return false;
}

static int raid5x_run(struct mddev *mddev)
{
	struct r5x_conf *conf = mddev->private;
	unsigned int chunk;
	struct md_thread *thread;
	int err;

	if (r5x_init_writes_pending(mddev) < 0)
		return -ENOMEM;
	if (!conf) {
		conf = setup_conf(mddev);
		if (IS_ERR(conf))
			return PTR_ERR(conf);
	}
	/* the superblock must keep saying raid5 */
	mddev->level = 5;
	mddev->new_level = 5;
	mddev->degraded = calc_degraded(conf);
	mddev->dev_sectors = round_down(mddev->dev_sectors, conf->geom.chunk_sectors);
	mddev->resync_max_sectors = mddev->dev_sectors;
	chunk = conf->geom.chunk_sectors << 9;
	err = r5x_set_queue_limits(mddev, chunk, chunk * conf->geom.data_disks,
				   r5x_discard_granularity(&conf->geom));
	if (err) {
		free_conf(conf);
		mddev->private = NULL;
		return err;
	}
	r5x_set_stable_writes(mddev, conf->tun.skip_copy);
	thread = md_register_thread(raid5x_thread, mddev, "raid5x");
	if (!thread) {
		free_conf(conf);
		mddev->private = NULL;
		return -ENOMEM;
	}
	/* an idle array is looked at now and then too (safemode_kick) */
	thread->timeout = R5X_IDLE_LOOK_SECS * HZ;
	mddev->thread = thread;
	mddev->private = conf;
	md_set_array_sectors(mddev, raid5x_size(mddev, 0, 0));

	/* raid456's attributes would read our conf as theirs: drop them now */
	if (mddev->to_remove && mddev->to_remove != &r5x_attr_group &&
	    group_has_attr(mddev->to_remove, "stripe_cache_size")) {
		sysfs_remove_group(&mddev->kobj, mddev->to_remove);
		mddev->to_remove = NULL;
	}
	if (r5x_sysfs_add(mddev))
		r5x_pr(conf, warn, "cannot create sysfs attributes\n");

	r5x_pr(conf, info, "raid5x active with %d of %d members, %uk chunk, %s\n",
	       conf->geom.raid_disks - mddev->degraded, conf->geom.raid_disks,
	       conf->geom.chunk_sectors / 2, r5x_layout_name(conf->geom.layout));
	return 0;
}

static void raid5x_free(struct mddev *mddev, void *priv)
{
	free_conf(priv);
	r5x_sysfs_del(mddev);
}

static void raid5x_status(struct seq_file *seq, struct mddev *mddev)
{
	struct r5x_conf *conf = mddev->private;
	int i;

	seq_printf(seq, " level %d, %uk chunk, algorithm %d", mddev->level,
		   conf->geom.chunk_sectors / 2, conf->geom.layout);
	seq_printf(seq, " [%d/%d] [", conf->geom.raid_disks,
		   conf->geom.raid_disks - mddev->degraded);
	for (i = 0; i < conf->geom.raid_disks; i++)
		seq_puts(seq, r5x_disk_failed(conf, i) ? "_" : "U");
	seq_puts(seq, "]");
}

static void raid5x_error(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5x_conf *conf = mddev->private;
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	/* no degraded write until md has recorded this (it clears Blocked) */
	set_bit(Blocked, &rdev->flags);
	set_bit(Faulty, &rdev->flags);
	clear_bit(In_sync, &rdev->flags);
	mddev->degraded = calc_degraded(conf);
	if (mddev->degraded > 1) {
		/* failed: no spare is taken any more (raid456 alike) */
		set_bit(MD_BROKEN, &mddev->flags);
		WRITE_ONCE(conf->recovery_disabled,
			   r5x_recovery_off_now(mddev));
	}
	spin_unlock_irqrestore(&conf->lock, flags);
	set_bit(MD_RECOVERY_INTR, &mddev->recovery);
	set_mask_bits(&mddev->sb_flags, 0,
		      BIT(MD_SB_CHANGE_DEVS) | BIT(MD_SB_CHANGE_PENDING));
	pr_crit("md/raid5x:%s: disk failure on %pg, disabling device; %d of %d members operational\n",
		mdname(mddev), rdev->bdev,
		conf->geom.raid_disks - mddev->degraded, conf->geom.raid_disks);
	r5x_wake_thread(conf);
}

static void raid5x_quiesce(struct mddev *mddev, int quiesce)
{
	struct r5x_conf *conf = mddev->private;

	spin_lock_irq(&conf->lock);
	if (quiesce) {
		WRITE_ONCE(conf->quiesce, 1);
		smp_mb();	/* before aligned_reads is read: read_aligned */
		r5x_wake_thread(conf);	/* it activates every delayed stripe */
		wait_event_lock_irq(conf->wait_for_quiesce,
				    (r5x_drain_released(conf),
				     !conf->active_stripes) &&
				    !atomic_read(&conf->discards_in_flight) &&
				    !atomic_read(&conf->aligned_reads),
				    conf->lock);
		WRITE_ONCE(conf->quiesce, 2);
	} else {
		WRITE_ONCE(conf->quiesce, 0);
		wake_up(&conf->wait_for_quiesce);
		wake_up(&conf->wait_for_stripe);
	}
	spin_unlock_irq(&conf->lock);
}

/*
 * Will the array still miss a member once @target (or nothing, -1) is in
 * sync?  Then the bitmap must keep its bits: the next member needs them.
 */
static bool still_degraded(struct r5x_conf *conf, int target)
{
	int i;

	for (i = 0; i < conf->geom.raid_disks; i++)
		if (i != target && r5x_disk_failed(conf, i))
			return true;
	return false;
}

/* Does @rdev still need the block at @sector (a spare or a replacement)? */
static bool needs_block(struct md_rdev *rdev, sector_t sector)
{
	return rdev && !test_bit(Faulty, &rdev->flags) &&
		!test_bit(In_sync, &rdev->flags) &&
		rdev->recovery_offset <= sector;
}

/* In llbitmap's lazy sync, the member out of sync needs every block. */
static bool lazy_target(struct md_rdev *rdev)
{
	return rdev && !test_bit(Faulty, &rdev->flags) &&
		!test_bit(In_sync, &rdev->flags);
}

/*
 * What a recovery does at @sector: rebuild a spare's slot (RECOVER), or
 * copy a slot to its replacement (REPLACE); *@target is the slot, or -1.
 * One target per stripe: a spare goes first, and a replacement that would
 * be passed over is failed (md would count it copied) - add it again once
 * the rebuild is done.
 */
static int recovery_target(struct r5x_conf *conf, sector_t sector, int *target)
{
	struct md_rdev *rdev, *skipped = NULL;
	int i, mode = R5X_SYNC_RECOVER;
	bool lazy = r5x_lazy_recovery(conf->mddev);

	rcu_read_lock();
	for (i = 0; i < conf->geom.raid_disks; i++) {
		rdev = rcu_dereference(conf->disks[i].rdev);
		if (needs_block(rdev, sector) || (lazy && lazy_target(rdev)))
			*target = i;
	}
	for (i = 0; i < conf->geom.raid_disks; i++) {
		rdev = rcu_dereference(conf->disks[i].replacement);
		if (!needs_block(rdev, sector))
			continue;
		if (*target < 0) {
			*target = i;
			mode = R5X_SYNC_REPLACE;
		} else if (!skipped) {
			skipped = rdev;
			atomic_inc(&rdev->nr_pending);
		}
	}
	rcu_read_unlock();
	if (skipped) {
		pr_warn("md/raid5x:%s: a member is being rebuilt: replacement %pg abandoned\n",
			mdname(conf->mddev), skipped->bdev);
		md_error(conf->mddev, skipped);
		rdev_dec_pending(skipped, conf->mddev);
	}
	return mode;
}

static sector_t raid5x_sync_request(struct mddev *mddev, sector_t sector_nr,
				    R5X_SYNC_MAX_SECTOR_PARAM int *skipped)
{
	struct r5x_conf *conf = mddev->private;
	sector_t max_sector = mddev->dev_sectors;
	struct r5x_stripe *sh;
	int mode, target = -1;

	if (sector_nr >= max_sector) {
		if (mddev->bitmap) {
			r5x_bm_close_sync(mddev, mddev->curr_resync < max_sector,
					  mddev->curr_resync);
			if (mddev->curr_resync >= max_sector)
				conf->fullsync = false;
		}
		return 0;
	}
	if (test_bit(MD_RECOVERY_SYNC, &mddev->recovery)) {
		if (mddev->degraded) {
			/* nothing to compare a degraded stripe with */
			*skipped = 1;
			return max_sector - sector_nr;
		}
		if (test_bit(MD_RECOVERY_CHECK, &mddev->recovery))
			mode = R5X_SYNC_CHECK;
		else if (test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery))
			mode = R5X_SYNC_REPAIR;
		else
			mode = R5X_SYNC_RESYNC;
	} else {
		mode = recovery_target(conf, sector_nr, &target);
		if (target < 0) {
			*skipped = 1;
			return max_sector - sector_nr;
		}
	}
	/*
	 * With a bitmap, regions no write touched since the last sync need no
	 * resync, and a member re-added to its old slot needs only the regions
	 * written while it was away.  check/repair and fresh spares do it all.
	 */
	if (mddev->bitmap) {
		sector_t n;
		bool needed = r5x_bm_start_sync(mddev, sector_nr, &n,
						still_degraded(conf, target));

		if (!needed && !conf->fullsync && n >= R5X_STRIPE_SECTORS &&
		    !test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery)) {
			*skipped = 1;
			return round_down(n, R5X_STRIPE_SECTORS);
		}
		r5x_bm_cond_end_sync(mddev, sector_nr);
	}
	sh = r5x_get_stripe(conf, round_down(sector_nr, R5X_STRIPE_SECTORS), 0);
	if (!sh)
		return 0;
	/* a handler may hold the stripe: it reads these under sh->lock */
	spin_lock(&sh->lock);
	sh->sync_mode = mode;
	sh->sync_target = target;
	set_bit(R5X_STRIPE_SYNC, &sh->state);
	spin_unlock(&sh->lock);
	set_bit(R5X_STRIPE_HANDLE, &sh->state);
	r5x_release_stripe(sh);
	return R5X_STRIPE_SECTORS;
}

/*
 * @rdev goes into a slot other than the one its data was for (md's
 * saved_raid_disk): only a full rebuild makes it right.  Also forget the
 * old slot: md writes MD_FEATURE_RECOVERY_BITMAP into the superblock of any
 * recovering member with saved_raid_disk >= 0, and an assembly in the middle
 * of the rebuild then takes the new slot for the saved one, so the resumed
 * recovery (raid456's too, on 6.1) trusts the bitmap and skips every region
 * it calls clean: the rebuilt member keeps another slot's blocks there.
 */
static void forget_old_slot(struct r5x_conf *conf, struct md_rdev *rdev)
{
	conf->fullsync = true;
	rdev->saved_raid_disk = -1;
}

/*
 * No free slot: @rdev becomes the replacement of a member md was asked to
 * replace (mdadm --replace sets WantReplacement), among slots @first to
 * @last.  Only while every member is in sync: a rebuild and a copy do not
 * run side by side (recovery_target).
 */
static int add_replacement(struct r5x_conf *conf, struct md_rdev *rdev,
			   int first, int last)
{
	struct md_rdev *old;
	int i;

	if (conf->mddev->degraded)
		return -EBUSY;
	for (i = first; i <= last; i++) {
		old = rcu_access_pointer(conf->disks[i].rdev);
		if (!old || !test_bit(WantReplacement, &old->flags) ||
		    rcu_access_pointer(conf->disks[i].replacement))
			continue;
		clear_bit(In_sync, &rdev->flags);
		set_bit(Replacement, &rdev->flags);
		rdev->raid_disk = i;
		rdev->recovery_offset = 0;
		forget_old_slot(conf, rdev);
		rcu_assign_pointer(conf->disks[i].replacement, rdev);
		r5x_pr(conf, info, "%pg replaces %pg in slot %d\n", rdev->bdev,
		       old->bdev, i);
		return 0;
	}
	return -EEXIST;
}

/*
 * A spare takes a free slot (the one userspace asked for in
 * rdev->raid_disk, if any); a member re-added (md's saved_raid_disk) gets
 * its old one back, and with a bitmap only the regions written while it was
 * away are rebuilt.  Any other spare makes the next recovery a full one.
 * Refused while recovery is disabled (a bad-block log was full) and when
 * too many members are missing for a rebuild to help.
 */
static int raid5x_hot_add(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5x_conf *conf = mddev->private;
	int i, slot = -1, old = rdev->saved_raid_disk;
	int first = 0, last = conf->geom.raid_disks - 1;

	if (r5x_recovery_off(mddev, conf->recovery_disabled))
		return -EBUSY;
	if (old < 0 && mddev->degraded > 1)
		return -EINVAL;
	if (rdev->raid_disk >= 0) {
		if (rdev->raid_disk > last)
			return -EINVAL;
		first = rdev->raid_disk;
		last = first;
	}
	if (old >= first && old <= last &&
	    !rcu_access_pointer(conf->disks[old].rdev))
		slot = old;
	for (i = first; slot < 0 && i <= last; i++)
		if (!rcu_access_pointer(conf->disks[i].rdev))
			slot = i;
	if (slot < 0)
		return add_replacement(conf, rdev, first, last);
	if (slot != old)
		forget_old_slot(conf, rdev);
	clear_bit(In_sync, &rdev->flags);
	rdev->raid_disk = slot;
	rdev->recovery_offset = 0;
	rcu_assign_pointer(conf->disks[slot].rdev, rdev);
	return 0;
}

/*
 * Remove @rdev from its slot (md asks for members that are faulty or not
 * in sync).  A replacement in sync moves into the slot of the member it
 * replaced once that one is removed.
 */
static int raid5x_hot_remove(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5x_conf *conf = mddev->private;
	int i = rdev->raid_disk;
	struct md_rdev __rcu **slot;
	struct md_rdev *repl;
	struct r5x_disk *d;

	if (i < 0 || i >= conf->geom.raid_disks)
		return 0;
	d = &conf->disks[i];
	if (rcu_access_pointer(d->rdev) == rdev)
		slot = &d->rdev;
	else if (rcu_access_pointer(d->replacement) == rdev)
		slot = &d->replacement;
	else
		return 0;
	if (test_bit(In_sync, &rdev->flags) && !test_bit(Faulty, &rdev->flags))
		return -EBUSY;
	if (atomic_read(&rdev->nr_pending))
		return -EBUSY;
	/*
	 * A working member being rebuilt stays, with its recovery_offset:
	 * an interrupted recovery (sync_action idle, a check requested, the
	 * array stopped) resumes there.  Unless recovery cannot go on.
	 */
	if (!test_bit(Faulty, &rdev->flags) &&
	    !r5x_recovery_off(mddev, conf->recovery_disabled) &&
	    mddev->degraded <= 1)
		return -EBUSY;
	RCU_INIT_POINTER(*slot, NULL);
	synchronize_rcu();
	if (atomic_read(&rdev->nr_pending)) {
		rcu_assign_pointer(*slot, rdev);
		return -EBUSY;
	}
	clear_bit(WantReplacement, &rdev->flags);
	repl = rcu_access_pointer(d->replacement);
	if (slot == &d->rdev && repl) {
		/* readers may see the replacement in both places, never in none */
		rcu_assign_pointer(d->rdev, repl);
		clear_bit(Replacement, &repl->flags);
		synchronize_rcu();
		RCU_INIT_POINTER(d->replacement, NULL);
	}
	return 0;
}

static int raid5x_spare_active(struct mddev *mddev)
{
	struct r5x_conf *conf = mddev->private;
	unsigned long flags;
	int i, count = 0;

	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct md_rdev *rdev = rcu_access_pointer(conf->disks[i].rdev);
		struct md_rdev *repl = rcu_access_pointer(conf->disks[i].replacement);

		if (repl && repl->recovery_offset == MaxSector &&
		    !test_bit(Faulty, &repl->flags) &&
		    !test_and_set_bit(In_sync, &repl->flags)) {
			/* copied: the replaced member goes (never re-added) */
			if (!rdev || !test_and_clear_bit(In_sync, &rdev->flags))
				count++;
			if (rdev) {
				set_bit(Faulty, &rdev->flags);
				sysfs_notify_dirent_safe(rdev->sysfs_state);
			}
			sysfs_notify_dirent_safe(repl->sysfs_state);
		} else if (rdev && rdev->recovery_offset == MaxSector &&
			   !test_bit(Faulty, &rdev->flags) &&
			   !test_and_set_bit(In_sync, &rdev->flags)) {
			count++;
			sysfs_notify_dirent_safe(rdev->sysfs_state);
		}
	}
	spin_lock_irqsave(&conf->lock, flags);
	mddev->degraded = calc_degraded(conf);
	spin_unlock_irqrestore(&conf->lock, flags);
	return count;
}

/* Online switch from raid456: accept a plain level-5 array as it is. */
static void *raid5x_takeover(struct mddev *mddev)
{
	if (mddev->level != 5) {
		pr_warn("md/raid5x:%s: cannot take over level %d: only level-5 arrays\n",
			mdname(mddev), mddev->level);
		return ERR_PTR(-EINVAL);
	}
	mddev->new_level = 5;
	mddev->new_layout = mddev->layout;
	mddev->new_chunk_sectors = mddev->chunk_sectors;
	return setup_conf(mddev);
}

#if R5X_BITMAP_BY_CORE
/*
 * md core marks the write-intent bitmap around each array write
 * (md_account_bio) in member sectors: the rows an array range touches,
 * whole, since their parity is rewritten too.
 */
static void raid5x_bitmap_sector(struct mddev *mddev, sector_t *offset,
				 unsigned long *sectors)
{
	struct r5x_conf *conf = mddev->private;
	unsigned int chunk = conf->geom.chunk_sectors;
	unsigned int row = chunk * conf->geom.data_disks;
	sector_t first = *offset, end = *offset + *sectors + row - 1;

	sector_div(first, row);
	sector_div(end, row);
	*offset = first * chunk;
	*sectors = (end - first) * chunk;
}

#define R5X_PERS_BITMAP_OPS	.bitmap_sector = raid5x_bitmap_sector,
#else
#define R5X_PERS_BITMAP_OPS
#endif

#define R5X_PERS_OPS							\
	R5X_PERS_BITMAP_OPS						\
	.make_request	= raid5x_make_request,				\
	.run		= raid5x_run,					\
	.free		= raid5x_free,					\
	.status		= raid5x_status,				\
	.error_handler	= raid5x_error,					\
	.hot_add_disk	= raid5x_hot_add,				\
	.hot_remove_disk = raid5x_hot_remove,				\
	.spare_active	= raid5x_spare_active,				\
	.sync_request	= raid5x_sync_request,				\
	.size		= raid5x_size,					\
	.resize		= raid5x_resize,				\
	.check_reshape	= raid5x_check_reshape,				\
	.quiesce	= raid5x_quiesce,				\
	.takeover	= raid5x_takeover

struct md_personality raid5x_personality = {
	R5X_PERS_HEAD("raid5x", R5X_PERS_LEVEL),
	R5X_PERS_OPS,
};

/*
 * claim_raid5=1: raid5x also registers as "raid5" (level 5), so arrays
 * created or assembled as plain raid5 run on raid5x - provided raid456 is
 * not loaded first (md picks the first personality registered for a level).
 * Off by default: without it raid456 keeps every array it owns.  For test
 * suites written for raid5 (mdadm's own) and for users who want raid5x on
 * every raid5 array without mdadm support for the "raid5x" name.
 */
static bool claim_raid5;
module_param(claim_raid5, bool, 0444);
MODULE_PARM_DESC(claim_raid5,
		 "also serve arrays of level 5 / \"raid5\" (load before raid456; default off)");

static struct md_personality raid5x_claim_personality = {
	R5X_PERS_HEAD("raid5", 5),
	R5X_PERS_OPS,
};

/* Is @mddev run by raid5x (under either of its names)? */
bool r5x_is_ours(struct mddev *mddev)
{
	return mddev->pers == &raid5x_personality ||
	       (claim_raid5 && mddev->pers == &raid5x_claim_personality);
}

static int __init raid5x_init(void)
{
	int err;

	if (claim_raid5 && !R5X_CAN_CLAIM_RAID5) {
		pr_err("md/raid5x: claim_raid5 is not available on this kernel: md registers one personality per level and level 5 is raid456's; use mdadm --level=raid5x or a level change instead\n");
		return -EINVAL;
	}
	err = bioset_init(&r5x_aread_set, BIO_POOL_SIZE,
			  offsetof(struct r5x_aread, clone), 0);
	if (err)
		return err;
	err = r5x_wtrack_init();
	if (err)
		goto out_bioset;
	err = r5x_bref_pool_init();
	if (err)
		goto out_wbioset;
	err = r5x_iob_init();
	if (err)
		goto out_bref;
	r5x_retry_wq = alloc_workqueue("raid5x_retry", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!r5x_retry_wq) {
		err = -ENOMEM;
		goto out_iob;
	}
	err = r5x_discard_init();
	if (err)
		goto out_wq;
	err = r5x_register_pers(&raid5x_personality);
	if (err)
		goto out_discard;
	if (claim_raid5) {
		err = r5x_register_pers(&raid5x_claim_personality);
		if (err)
			goto out_pers;
		pr_info("md/raid5x: claim_raid5=1: serving level-5 (\"raid5\") arrays too\n");
	}
	return 0;
out_pers:
	r5x_unregister_pers(&raid5x_personality);
out_discard:
	r5x_discard_exit();
out_wq:
	destroy_workqueue(r5x_retry_wq);
out_iob:
	r5x_iob_exit();
out_bref:
	r5x_bref_pool_exit();
out_wbioset:
	r5x_wtrack_exit();
out_bioset:
	bioset_exit(&r5x_aread_set);
	return err;
}

static void __exit raid5x_exit(void)
{
	if (claim_raid5)
		r5x_unregister_pers(&raid5x_claim_personality);
	r5x_unregister_pers(&raid5x_personality);
	r5x_discard_exit();
	destroy_workqueue(r5x_retry_wq);
	r5x_iob_exit();
	r5x_bref_pool_exit();
	r5x_wtrack_exit();
	bioset_exit(&r5x_aread_set);
}

module_init(raid5x_init);
module_exit(raid5x_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("raid5x: RAID5 md personality with batched, plug-aware stripe handling");
MODULE_VERSION("0.1");
MODULE_ALIAS("md-raid5x");
MODULE_ALIAS("md-level--55");
