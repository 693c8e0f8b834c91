// SPDX-License-Identifier: GPL-2.0
/*
 * stripe_handle.c - the stripe state machine (see raid5x.h), run by raid5xd
 * and the workers (workers.c), one handler per stripe at a time.
 *
 * handle_stripe() looks at one stripe with no member I/O in flight and
 * decides, in this order:
 *   0. record failed member writes (md's bad-block log, else fail the
 *      member) and forget a failure of a member that has been replaced;
 *   1. complete array writes whose member writes finished, unless one of
 *      them failed and md has not yet recorded that on disk (then the
 *      stripe waits on sb_wait: an acknowledged write must survive a crash);
 *      when nothing failed, the last member write's completion has done
 *      this already (end_writes_early);
 *   2. fail every bio if more than one member is unusable; unreadable
 *      blocks are recorded as bad, and a recovery marks the stripe bad on
 *      the member it rebuilds and goes on (raid5's rule);
 *   3. plan (under sh->lock, against concurrent bio attaches):
 *      - reads: serve from uptodate pages, read the member, or reconstruct
 *        a failed member's block from all the others;
 *      - writes: choose read-modify-write or reconstruct-write by the number
 *        of member reads each needs (tie: reconstruct-write); with reads
 *        needed and no pre-read permission, park on the delayed list;
 *        otherwise drain the bios (towrite -> written) for writing;
 *      - resync/check/recovery requests;
 *      - or, while a member's block is unreadable (R5X_DEV_READERR), only
 *        reads and the repair: rebuild that block from the others, serve
 *        the reads from it and write it back to the member; writes and
 *        sync requests wait for the write-back to finish;
 *   4. outside the lock: reconstruct, copy, compute parity, submit I/O.
 * A pass that reads a member never also writes one: the writes wait for
 * the next pass, so no page has two member I/Os (R5X_DEV_LOCKED).
 * Pages are only touched here and by member I/O, never by submitters, so
 * no lock is needed for their contents.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "raid5x.h"
#include "parity.h"
#include "stripe_cache.h"
#include "delay_list.h"
#include "members.h"
#include "policy.h"
#include "iobatch.h"
#include "nocopy.h"

static struct kmem_cache *bref_cache;
static mempool_t *bref_pool;

int r5x_bref_pool_init(void)
{
	bref_cache = KMEM_CACHE(r5x_bref, 0);
	if (!bref_cache)
		return -ENOMEM;
	bref_pool = mempool_create_slab_pool(1024, bref_cache);
	if (!bref_pool) {
		kmem_cache_destroy(bref_cache);
		return -ENOMEM;
	}
	return 0;
}

void r5x_bref_pool_exit(void)
{
	mempool_destroy(bref_pool);
	kmem_cache_destroy(bref_cache);
}

static void blist_add(struct r5x_blist *l, struct r5x_bref *r)
{
	r->next = NULL;
	if (l->tail)
		l->tail->next = r;
	else
		l->head = r;
	l->tail = r;
}

/* Move all of @from to the end of @to. */
static void blist_splice(struct r5x_blist *to, struct r5x_blist *from)
{
	if (!from->head)
		return;
	if (to->tail)
		to->tail->next = from->head;
	else
		to->head = from->head;
	to->tail = from->tail;
	from->head = NULL;
	from->tail = NULL;
}

static u8 sector_mask(sector_t lsector, struct bio *bio)
{
	sector_t from = max(bio->bi_iter.bi_sector, lsector);
	sector_t to = min(bio_end_sector(bio), lsector + R5X_STRIPE_SECTORS);

	if (from >= to)
		return 0;
	return (u8)(((1u << (to - from)) - 1) << (from - lsector));
}

/* An array bio's last attachment is over: md's write count, then its end. */
static void bio_done(struct r5x_conf *conf, struct bio *bi, bool write)
{
	if (write)
		md_write_end(conf->mddev);
	bio_endio(bi);
}

/*
 * Attach array bio @bio to member @disk's page of @sh, whose array sector is
 * @lsector.  The caller holds a reference on @sh and has raised the bio's
 * remaining count for this attachment.
 */
void r5x_attach_bio(struct r5x_stripe *sh, int disk, struct bio *bio,
		    sector_t lsector, bool write)
{
	struct r5x_conf *conf = sh->conf;
	struct r5x_dev *dev = &sh->dev[disk];
	struct r5x_bref *r = mempool_alloc(bref_pool, GFP_NOIO);
	unsigned long bm_seq = 0;

	r->bio = bio;
	if (write && conf->mddev->bitmap) {
		/* ended in complete_blist(), whatever becomes of the write */
		r5x_bm_startwrite(conf->mddev, sh->sector, R5X_STRIPE_SECTORS);
		bm_seq = atomic_long_inc_return(&conf->bm_seq);
	}
	spin_lock(&sh->lock);
	if (bm_seq > sh->bm_seq)
		sh->bm_seq = bm_seq;
	if (write) {
		blist_add(&dev->towrite, r);
		dev->wmask |= sector_mask(lsector, bio);
		if (bio->bi_opf & REQ_FUA)
			set_bit(R5X_DEV_FUA, &dev->flags);
		if (bio->bi_opf & REQ_SYNC)
			set_bit(R5X_DEV_SYNC, &dev->flags);
	} else {
		blist_add(&dev->toread, r);
	}
	set_bit(R5X_STRIPE_HANDLE, &sh->state);
	/*
	 * A handler may have parked this stripe (delay_stripe) after looking
	 * at its bios and before this one came: the release would file it on
	 * the delayed list with the new bio unseen until its deadline (a full
	 * stripe waited seq_delay_ms there).  Look at it again instead; if it
	 * still needs pre-reads it is parked again, with its first deadline.
	 * The caller holds a reference, so it is on no list now.
	 */
	clear_bit(R5X_STRIPE_DELAYED, &sh->state);
	spin_unlock(&sh->lock);
}

/*
 * Do the bios queued on @sh overwrite every data block whole?  Such a
 * stripe needs no pre-read, whatever comes after.  No lock: a parked
 * stripe (delay_list.c) has no reference, so no bio can be attached; a
 * submitter holding a reference (submit_to_stripes) may read a stale
 * answer, which only decides whether it hands the stripe on now or at
 * the unplug.
 */
bool r5x_stripe_overwritten(const struct r5x_stripe *sh)
{
	int i, disks = sh->conf->geom.raid_disks;

	for (i = 0; i < disks; i++)
		if (i != sh->pd_idx && READ_ONCE(sh->dev[i].wmask) != R5X_WMASK_FULL)
			return false;
	return true;
}

/* Copy between @page (array sectors lsector..+STRIPE) and @bio's overlap. */
static void copy_bio_page(struct bio *bio, struct page *page, sector_t lsector,
			  bool to_page)
{
	sector_t bstart = bio->bi_iter.bi_sector;
	sector_t from = max(bstart, lsector);
	sector_t to = min(bio_end_sector(bio), lsector + R5X_STRIPE_SECTORS);
	struct bvec_iter start = bio->bi_iter, it;
	char *paddr = page_address(page) + ((from - lsector) << 9);
	struct bio_vec bv;

	if (from >= to)
		return;
	bio_advance_iter(bio, &start, (from - bstart) << 9);
	start.bi_size = (to - from) << 9;
	__bio_for_each_segment(bv, bio, it, start) {
		char *b = bvec_kmap_local(&bv);

		if (to_page) {
			memcpy(paddr, b, bv.bv_len);
		} else {
			memcpy(b, paddr, bv.bv_len);
			flush_dcache_page(bv.bv_page);
		}
		kunmap_local(b);
		paddr += bv.bv_len;
	}
}

/*
 * Complete every bio of @l (status @err if non-zero) and free the nodes.
 * For writes, end each attachment's bitmap write; @bm_clean: every member
 * got it, so the bitmap may forget the region.
 */
static void complete_blist(struct r5x_stripe *sh, struct r5x_blist *l,
			   bool write, blk_status_t err, struct page *page,
			   sector_t lsector, bool bm_clean)
{
	struct r5x_conf *conf = sh->conf;
	struct r5x_bref *r = l->head, *next;

	for (; r; r = next) {
		next = r->next;
		if (err)
			r->bio->bi_status = err;
		else if (page)
			copy_bio_page(r->bio, page, lsector, false);
		if (write && conf->mddev->bitmap)
			r5x_bm_endwrite(conf->mddev, sh->sector,
					R5X_STRIPE_SECTORS, bm_clean && !err);
		bio_done(conf, r->bio, write);
		mempool_free(r, bref_pool);
	}
	l->head = NULL;
	l->tail = NULL;
}

/* What one pass over a stripe decided. */
struct r5x_plan {
	int failed;		/* members unusable for this stripe */
	unsigned long unusable;	/* members that cannot serve it (dev_failed) */
	int compute;		/* member to reconstruct first, or -1 */
	bool drained;		/* writes drained: compute parity and write */
	bool rmw;		/* ... by read-modify-write */
	bool no_parity;		/* parity member failed: write data only */
	bool fua;		/* member writes must be FUA */
	bool sync;		/* ... are REQ_SYNC (member_write_flags) */
	bool sync_now;		/* sync request: all blocks present, act */
	unsigned long want_read;	/* members to read */
	unsigned long rewrite;	/* members to write a rebuilt block back to */
	unsigned long serve;	/* members whose queued reads the page serves */
	void *scratch;		/* the handler's page for a parity check */
};

/*
 * Member @i cannot serve this stripe: its I/O failed here, or its slot's
 * member is missing, faulty or being rebuilt and not yet past it (a
 * member being rebuilt counts as failed only above its recovery_offset).
 * The members' state is the pass's snapshot (p->unusable): what changes
 * after it, submit_member_io finds when it looks the member up again.
 */
static bool dev_failed(struct r5x_stripe *sh, const struct r5x_plan *p, int i)
{
	return test_bit(R5X_DEV_IOERR, &sh->dev[i].flags) ||
		test_bit(R5X_DEV_READERR, &sh->dev[i].flags) ||
		(p->unusable & BIT(i));
}

static bool dev_uptodate(struct r5x_stripe *sh, struct r5x_plan *p, int i)
{
	return test_bit(R5X_DEV_UPTODATE, &sh->dev[i].flags) || p->compute == i;
}

/*
 * Member @i failed a read of this block that went around the cache
 * (R5X_DEV_RECHECK): if the cached page is only a clean copy of the
 * member's block (no write queued, draining or in flight, no sync), drop
 * it, so the reads waiting read the member again and a failure there
 * takes the read-error path (rebuild, write back, bad block), as it
 * would on a stripe not in the cache. A page holding anything newer than
 * the member stays: it is what the array must return.
 */
static void recheck_member(struct r5x_stripe *sh, int i)
{
	struct r5x_dev *dev = &sh->dev[i];

	if (test_bit(R5X_STRIPE_SYNC, &sh->state) ||
	    test_bit(R5X_DEV_LOCKED, &dev->flags) ||
	    test_bit(R5X_DEV_NOCOPY, &dev->flags) ||
	    test_bit(R5X_DEV_BADWRITE, &dev->flags) ||
	    test_bit(R5X_DEV_READERR, &dev->flags) ||
	    !r5x_blist_empty(&dev->towrite) || !r5x_blist_empty(&dev->written))
		return;
	if (test_and_clear_bit(R5X_DEV_UPTODATE, &dev->flags))
		r5x_count(sh->conf, rechecks, 1);
}

/* Read member @i for an array read, a rebuild or a sync (counted once). */
static void want_read(struct r5x_stripe *sh, struct r5x_plan *p, int i)
{
	if (!(p->want_read & BIT(i)))
		r5x_count(sh->conf, read_blocks, 1);
	p->want_read |= BIT(i);
}

/* Ask for every usable, not yet uptodate member but @skip; return how many. */
static int want_all_but(struct r5x_stripe *sh, struct r5x_plan *p, int skip)
{
	int i, n = 0;

	for (i = 0; i < sh->conf->geom.raid_disks; i++) {
		if (i == skip || dev_uptodate(sh, p, i) || dev_failed(sh, p, i))
			continue;
		want_read(sh, p, i);
		n++;
	}
	return n;
}

/* Reconstruct failed member @f if every other member is uptodate. */
static bool plan_compute(struct r5x_stripe *sh, struct r5x_plan *p, int f)
{
	if (dev_uptodate(sh, p, f))
		return true;
	if (want_all_but(sh, p, f))
		return false;
	p->compute = f;
	return true;
}

static void plan_reads(struct r5x_stripe *sh, struct r5x_plan *p)
{
	int i;

	for (i = 0; i < sh->conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];

		if (r5x_blist_empty(&dev->toread))
			continue;
		if (dev_uptodate(sh, p, i) ||
		    (dev_failed(sh, p, i) && plan_compute(sh, p, i)))
			p->serve |= BIT(i);
		else if (!dev_failed(sh, p, i))
			want_read(sh, p, i);
	}
}

/*
 * Member @f's block could not be read: rebuild it from the others (reading
 * them first if needed), then write it back.  The write-back replaces the
 * unreadable sectors on a disk that remaps on write, and clears them from
 * md's bad-block list.
 */
static void plan_rewrite(struct r5x_stripe *sh, struct r5x_plan *p, int f)
{
	if (test_bit(R5X_DEV_REWRITE, &sh->dev[f].flags))
		return;
	/* a read-only array is not written: the block is rebuilt, read-only */
	if (plan_compute(sh, p, f) && !sh->conf->mddev->ro)
		p->rewrite |= BIT(f);
}

/*
 * rmw is unsafe where parity may not yet match data: not resynced yet, or
 * (llbitmap) written since creation and not yet lazily synced.
 */
static bool rmw_allowed(struct r5x_stripe *sh)
{
	struct mddev *mddev = sh->conf->mddev;
	sector_t done = r5x_resync_offset(mddev);

	return (done == MaxSector || sh->sector + R5X_STRIPE_SECTORS <= done) &&
	       r5x_bm_blocks_synced(mddev, sh->sector);
}

/*
 * md's bad-block verdict on @sh's block of member @rdev: 0 none, > 0
 * listed and on disk, < 0 listed but not yet on disk (is_badblock).
 */
static int stripe_badblock(struct r5x_stripe *sh, struct md_rdev *rdev)
{
	sector_t first_bad;
	sector_t bad_sectors;

	return r5x_is_badblock(rdev, sh->sector, R5X_STRIPE_SECTORS, &first_bad,
			       &bad_sectors);
}

/*
 * Does a member list a block of @sh as bad without that being on disk yet
 * (external metadata: until its handler acknowledges it)?
 */
static bool unacked_badblock(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	bool bad = false;
	int i;

	for (i = 0; i < conf->geom.raid_disks && !bad; i++) {
		struct md_rdev *rdev = r5x_get_rdev(conf, i, true);

		if (!rdev)
			continue;
		bad = stripe_badblock(sh, rdev) < 0;
		rdev_dec_pending(rdev, conf->mddev);
	}
	return bad;
}

/*
 * With @failed members unusable for @sh, must its writes wait until md has
 * recorded a failure (or a bad block) in the superblocks?  Yes, as in
 * raid5, also while quiesced, unless md cannot record it before the
 * quiesce ends (r5x_may_wait_record).
 */
static bool wait_for_record(struct r5x_stripe *sh, int failed)
{
	struct r5x_conf *conf = sh->conf;

	if (!failed || !r5x_may_wait_record(conf) ||
	    (!r5x_failure_unrecorded(conf) && !unacked_badblock(sh)))
		return false;
	set_bit(R5X_STRIPE_SB_WAIT, &sh->state);
	set_bit(R5X_STRIPE_HANDLE, &sh->state);
	r5x_count(conf, sb_waits, 1);
	return true;
}

static void drain_writes(struct r5x_stripe *sh, struct r5x_plan *p)
{
	int i;

	for (i = 0; i < sh->conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];

		if (r5x_blist_empty(&dev->towrite))
			continue;
		blist_splice(&dev->written, &dev->towrite);
		dev->wmask = 0;
		if (test_and_clear_bit(R5X_DEV_FUA, &dev->flags))
			p->fua = true;
		if (test_and_clear_bit(R5X_DEV_SYNC, &dev->flags))
			p->sync = true;
	}
	p->drained = true;
}

/*
 * The flags of a drained stripe's member writes, data and parity alike:
 * REQ_FUA if a bio asked for it, REQ_SYNC if a bio was synchronous
 * (O_DIRECT, fsync's writeback), as raid5 does.  Without REQ_SYNC the
 * members' writeback throttling (wbt) takes them for background
 * writeback: while a read was issued or completed in the last 100 ms,
 * which pre-reads always are, it lets a quarter of its depth of them in
 * flight and the handler sleeps in wbt for the rest
 * (docs/reports/write-sync-2026-12-06.md).
 */
static blk_opf_t member_write_flags(const struct r5x_plan *p)
{
	return (p->fua ? REQ_FUA : 0) | (p->sync ? REQ_SYNC : 0);
}

static void plan_writes(struct r5x_stripe *sh, struct r5x_plan *p)
{
	struct r5x_conf *conf = sh->conf;
	struct r5x_wstate d[R5X_MAX_DISKS];
	struct r5x_wchoice c;
	int i, full = 1, pd = sh->pd_idx;
	bool has_write = false, rmw_ok = rmw_allowed(sh);

	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];

		d[i].uptodate = dev_uptodate(sh, p, i);
		d[i].failed = dev_failed(sh, p, i);
		d[i].written = !r5x_blist_empty(&dev->towrite);
		d[i].overwrite = dev->wmask == R5X_WMASK_FULL;
		if (i == sh->pd_idx)
			continue;
		has_write |= d[i].written;
		if (!d[i].overwrite)
			full = 0;
	}
	if (!has_write)
		return;
	/* md must record a failure before we write degraded */
	if (wait_for_record(sh, p->failed))
		return;
	/*
	 * One member I/O per page: a pass that reads (for queued array
	 * reads) writes nothing; the reads' completion brings us back.
	 */
	if (p->want_read)
		return;
	/*
	 * A parity slot that cannot be read but can be written (a spare
	 * being rebuilt, a replacement being copied while the member it
	 * replaces has failed) must be written: recovery may already have
	 * passed this stripe.  Reconstruct-write computes its parity
	 * without reading it.
	 */
	if (d[pd].failed && r5x_slot_writable(conf, pd) &&
	    !test_bit(R5X_DEV_READERR, &sh->dev[pd].flags)) {
		d[pd].failed = false;
		rmw_ok = false;
	}
	r5x_choose_write(d, conf->geom.raid_disks, pd, rmw_ok, &c);
	if (c.want) {
		if (r5x_may_preread(conf, sh)) {
			p->want_read |= c.want;
			r5x_count(conf, preread_blocks, hweight_long(c.want));
		}
		return;
	}
	if (c.compute >= 0)
		p->compute = c.compute;
	p->rmw = c.rmw;
	p->no_parity = c.no_parity;
	if (full)
		r5x_count(conf, full_stripes, 1);
	else if (p->rmw)
		r5x_count(conf, rmw_stripes, 1);
	else
		r5x_count(conf, rcw_stripes, 1);
	drain_writes(sh, p);
}

/*
 * Resync/check/recovery: wait until all blocks are present, then act.
 * A replacement copy needs only its slot's block (read, or rebuilt from
 * the others when the slot's member cannot be read).
 */
static void plan_sync(struct r5x_stripe *sh, struct r5x_plan *p)
{
	int t = sh->sync_target;
	int skip = sh->sync_mode == R5X_SYNC_RECOVER ? t : -1;

	/*
	 * Queued writes go first (their own I/O brings us back).  Queued
	 * reads do not block a sync: this pass serves or reads them, and a
	 * sync deferred for a read served from the cache would never be
	 * looked at again.
	 */
	if (!test_bit(R5X_STRIPE_SYNC, &sh->state) || p->drained ||
	    test_bit(R5X_STRIPE_SYNC_WRITING, &sh->state) ||
	    r5x_stripe_bios_queued(sh, false))
		return;
	if (sh->sync_mode == R5X_SYNC_REPLACE && !dev_failed(sh, p, t)) {
		if (dev_uptodate(sh, p, t))
			p->sync_now = true;
		else
			want_read(sh, p, t);
		return;
	}
	/* check what is on the members, not what the cache remembers */
	if (sh->sync_mode < R5X_SYNC_RECOVER &&
	    !test_and_set_bit(R5X_STRIPE_SYNC_FRESH, &sh->state)) {
		int i;

		for (i = 0; i < sh->conf->geom.raid_disks; i++)
			clear_bit(R5X_DEV_UPTODATE, &sh->dev[i].flags);
	}
	if (want_all_but(sh, p, skip))
		return;
	p->sync_now = true;
}

static void page_ptrs(struct r5x_stripe *sh, void **srcs, int skip1, int skip2)
{
	int i, n = 0;

	for (i = 0; i < sh->conf->geom.raid_disks; i++)
		if (i != skip1 && i != skip2)
			srcs[n++] = page_address(sh->dev[i].page);
}

static void compute_block(struct r5x_stripe *sh, int f)
{
	void *srcs[R5X_MAX_DISKS];

	page_ptrs(sh, srcs, f, -1);
	r5x_xor_set(page_address(sh->dev[f].page), srcs,
		    sh->conf->geom.raid_disks - 1, R5X_STRIPE_SIZE);
	set_bit(R5X_DEV_UPTODATE, &sh->dev[f].flags);
	r5x_count(sh->conf, reconstructs, 1);
}

/* The pages of the members with drained writes, in @srcs; returns how many. */
static int written_ptrs(struct r5x_stripe *sh, void **srcs)
{
	int i, n = 0;

	for (i = 0; i < sh->conf->geom.raid_disks; i++)
		if (!r5x_blist_empty(&sh->dev[i].written))
			srcs[n++] = page_address(sh->dev[i].page);
	return n;
}

/*
 * Copy drained bios into pages (or write a stable bio page as it is,
 * nocopy.c) and compute parity; mark writes.
 */
static unsigned long run_drain(struct r5x_stripe *sh, struct r5x_plan *p)
{
	struct r5x_conf *conf = sh->conf;
	int i, n, pd = sh->pd_idx;
	void *srcs[R5X_MAX_DISKS];
	void *parity = page_address(sh->dev[pd].page);
	unsigned long wmask = 0;

	if (p->rmw) {	/* take the old data out of the parity */
		n = written_ptrs(sh, srcs);
		r5x_xor_into(parity, srcs, n, R5X_STRIPE_SIZE);
	}
	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];
		struct page *bpage;
		struct r5x_bref *r;

		if (r5x_blist_empty(&dev->written))
			continue;
		bpage = r5x_nocopy_page(conf, dev);
		if (bpage) {
			dev->orig_page = dev->page;
			dev->page = bpage;
			set_bit(R5X_DEV_NOCOPY, &dev->flags);
			r5x_count(conf, nocopy_blocks, 1);
		} else {
			for (r = dev->written.head; r; r = r->next)
				copy_bio_page(r->bio, dev->page, dev->lsector,
					      true);
		}
		set_bit(R5X_DEV_UPTODATE, &dev->flags);
		wmask |= BIT(i);
	}
	if (!p->no_parity) {
		if (p->rmw) {
			/* add the new data in: a page may be a bio's now */
			n = written_ptrs(sh, srcs);
			r5x_xor_into(parity, srcs, n, R5X_STRIPE_SIZE);
		} else {
			page_ptrs(sh, srcs, pd, -1);
			r5x_xor_set(parity, srcs, conf->geom.data_disks,
				    R5X_STRIPE_SIZE);
		}
		set_bit(R5X_DEV_UPTODATE, &sh->dev[pd].flags);
		wmask |= BIT(pd);
	}
	return wmask;
}

/* Act on a sync request whose blocks are all present; returns writes. */
static unsigned long run_sync(struct r5x_stripe *sh, struct r5x_plan *p)
{
	struct r5x_conf *conf = sh->conf;
	struct mddev *mddev = conf->mddev;
	void *srcs[R5X_MAX_DISKS];
	int pd = sh->pd_idx;

	r5x_count(conf, sync_stripes, 1);
	if (sh->sync_mode == R5X_SYNC_REPLACE) {
		struct r5x_dev *dev = &sh->dev[sh->sync_target];

		if (!test_bit(R5X_DEV_UPTODATE, &dev->flags))
			compute_block(sh, sh->sync_target);
		set_bit(R5X_DEV_REPLONLY, &dev->flags);
		return BIT(sh->sync_target);
	}
	if (sh->sync_mode == R5X_SYNC_RECOVER) {
		compute_block(sh, sh->sync_target);
		return BIT(sh->sync_target);
	}
	if (p->failed)
		return 0;	/* degraded: nothing to compare against */
	page_ptrs(sh, srcs, -1, -1);
	if (r5x_xor_is_zero(srcs, conf->geom.raid_disks, p->scratch,
			    R5X_STRIPE_SIZE))
		return 0;
	atomic64_add(R5X_STRIPE_SECTORS, &mddev->resync_mismatches);
	if (sh->sync_mode == R5X_SYNC_CHECK)
		return 0;
	compute_block(sh, pd);
	return BIT(pd);
}

static void finish_sync(struct r5x_stripe *sh, bool ok)
{
	clear_bit(R5X_STRIPE_SYNC_FRESH, &sh->state);
	clear_bit(R5X_STRIPE_SYNC, &sh->state);
	r5x_done_sync(sh->conf->mddev, R5X_STRIPE_SECTORS, ok);
}

/*
 * A read of @dev's block from working member @rdev failed.  While the
 * member has had at most md's max_read_errors recent read errors (the
 * count halves per hour without one, as raid10 counts), keep it: the
 * stripe rebuilds the block from parity and writes it back.  A member that
 * is not in sync, or keeps failing, is failed through md.
 */
static void read_failed(struct r5x_stripe *sh, struct r5x_dev *dev,
			struct md_rdev *rdev)
{
	struct mddev *mddev = sh->conf->mddev;
	time64_t now;
	int n;

	clear_bit(R5X_DEV_UPTODATE, &dev->flags);
	r5x_count(sh->conf, read_errors, 1);
	/* errors long past count less (policy.c); races only lose a halving */
	now = ktime_get_seconds();
	atomic_set(&rdev->read_errors,
		   r5x_decay_read_errors(atomic_read(&rdev->read_errors),
					 READ_ONCE(rdev->last_read_error), now));
	WRITE_ONCE(rdev->last_read_error, now);
	n = atomic_inc_return(&rdev->read_errors);
	/*
	 * Degraded, failing it would fail the array: the block is recorded
	 * as bad instead (fail_stripe), as raid5 does.
	 */
	if (test_bit(In_sync, &rdev->flags) && !test_bit(Faulty, &rdev->flags) &&
	    (n <= atomic_read(&mddev->max_corr_read_errors) || mddev->degraded)) {
		pr_info_ratelimited("md/raid5x:%s: read error on %pg at sector %llu, rebuilding it from parity\n",
				    mdname(mddev), rdev->bdev,
				    (unsigned long long)(sh->sector + rdev->data_offset));
		set_bit(R5X_DEV_READERR, &dev->flags);
		return;
	}
	if (test_bit(In_sync, &rdev->flags))
		pr_warn("md/raid5x:%s: %pg: %d read errors, more than max_read_errors (%d): failing it\n",
			mdname(mddev), rdev->bdev, n,
			atomic_read(&mddev->max_corr_read_errors));
	set_bit(R5X_DEV_IOERR, &dev->flags);
	md_error(mddev, rdev);
}

/* The rebuilt block of an unreadable one is back on member @rdev. */
static void rewrite_done(struct r5x_stripe *sh, struct r5x_dev *dev,
			 struct md_rdev *rdev)
{
	struct mddev *mddev = sh->conf->mddev;

	atomic_add(R5X_STRIPE_SECTORS, &rdev->corrected_errors);
	r5x_count(sh->conf, corrected, 1);
	pr_info_ratelimited("md/raid5x:%s: read error corrected (%lu sectors at %llu on %pg)\n",
			    mdname(mddev), (unsigned long)R5X_STRIPE_SECTORS,
			    (unsigned long long)(sh->sector + rdev->data_offset),
			    rdev->bdev);
	clear_bit(R5X_DEV_READERR, &dev->flags);
}

/* The write to a slot's replacement finished. */
static void end_repl_io(struct r5x_stripe *sh, struct r5x_dev *dev,
			struct bio *bio)
{
	struct r5x_conf *conf = sh->conf;
	struct md_rdev *rrdev = dev->rrdev;

	if (bio->bi_status) {
		/* no bad-block log on a replacement: it is failed (raid5) */
		r5x_count(conf, io_errors, 1);
		md_error(conf->mddev, rrdev);
		/* the array write waits until md has recorded that */
		set_bit(R5X_DEV_REPL_FAILED, &dev->flags);
	} else if (stripe_badblock(sh, rrdev) && !WARN_ON_ONCE(dev->good_rrdev)) {
		/* a block marked bad by an earlier copy is good again */
		dev->good_rrdev = rrdev;	/* its reference goes with it */
		set_bit(R5X_DEV_REPL_GOOD, &dev->flags);
		rrdev = NULL;
	}
	bio_uninit(bio);
	dev->rrdev = NULL;
	if (rrdev)
		rdev_dec_pending(rrdev, conf->mddev);
}

static bool early_write_end = true;
module_param(early_write_end, bool, 0644);
MODULE_PARM_DESC(early_write_end,
		 "complete array writes in the completion of their last member write when nothing failed, without a pass of raid5xd (default 1)");

/* a page flag that only a handler pass may act on */
#define R5X_DEV_FAULT_FLAGS	(BIT(R5X_DEV_IOERR) | BIT(R5X_DEV_READERR) | \
				 BIT(R5X_DEV_REWRITE) | BIT(R5X_DEV_REWRITTEN) | \
				 BIT(R5X_DEV_REPL_GOOD) | BIT(R5X_DEV_REPL_FAILED) | \
				 BIT(R5X_DEV_WERR) | BIT(R5X_DEV_BADWRITE) | \
				 BIT(R5X_DEV_RECHECK) | BIT(R5X_DEV_REPLONLY))

/*
 * End the array writes @dev's member write carried, with @status; the
 * bitmap may forget the region if @bm_clean.  A NOCOPY page was the
 * writer's: its bio is completed, so the stripe takes its own page back.
 */
static void end_dev_writes(struct r5x_stripe *sh, struct r5x_dev *dev,
			   blk_status_t status, bool bm_clean)
{
	if (test_and_clear_bit(R5X_DEV_NOCOPY, &dev->flags)) {
		dev->page = dev->orig_page;
		dev->orig_page = NULL;
		clear_bit(R5X_DEV_UPTODATE, &dev->flags);
	}
	complete_blist(sh, &dev->written, true, status, NULL, 0, bm_clean);
}

/*
 * The last member I/O of @sh completed (any context, irqs maybe off).  If
 * it was the write of drained array writes and nothing failed, complete
 * those writes here, as the next pass would (finish_writes with no
 * member failed: the bitmap may forget the region), and return true:
 * raid5xd need not look at the stripe for them.  Anything else (a
 * failure, a member missing or being rebuilt here, a sync request, a
 * handler still inside its pass) returns false and the pass does it.
 * New bios queued meanwhile set R5X_STRIPE_HANDLE themselves.
 *
 * The stripe is ours: every handler pass ended (R5X_STRIPE_ACTIVE clear,
 * read after the io_pending decrement), no member I/O is in flight, and
 * the stripe is referenced, so no handler can take it.  Once the array
 * writes are ended md may free the array (on 6.7+ without quiescing it):
 * free_conf waits until the caller has released the stripe.
 */
static bool end_writes_early(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	bool any = false;
	int i;

	if (!READ_ONCE(early_write_end) ||
	    test_bit_acquire(R5X_STRIPE_ACTIVE, &sh->state) ||
	    test_bit(R5X_STRIPE_SYNC, &sh->state) ||
	    test_bit(R5X_STRIPE_SB_WAIT, &sh->state))
		return false;
	for (i = 0; i < conf->geom.raid_disks; i++) {
		if (READ_ONCE(sh->dev[i].flags) & R5X_DEV_FAULT_FLAGS)
			return false;
		any |= !r5x_blist_empty(&sh->dev[i].written);
	}
	if (!any || r5x_failed_at_mask(conf, sh->sector))
		return false;
	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];

		if (!r5x_blist_empty(&dev->written))
			end_dev_writes(sh, dev, 0, true);
	}
	r5x_preread_done(conf, sh);
	r5x_count(conf, early_ends, 1);
	/*
	 * What the pass would have woken raid5xd for: delayed stripes that
	 * writes in flight held back (delay_list.c), and its safe-mode look
	 * once the array's writes are over (safemode_kick)
	 */
	if (READ_ONCE(conf->nr_delayed) ||
	    !atomic_read(&conf->writes_in_flight))
		md_wakeup_thread(conf->mddev->thread);
	return true;
}

static void end_member_io(struct bio *bio)
{
	struct r5x_stripe *sh = bio->bi_private;
	struct r5x_dev *dev = sh->dev;
	struct r5x_conf *conf = sh->conf;
	struct md_rdev *rdev;

	while (dev->req != bio && dev->rreq != bio)
		dev++;
	if (bio == dev->rreq) {
		end_repl_io(sh, dev, bio);
		goto out;
	}
	rdev = dev->rdev;
	if (bio->bi_status) {
		r5x_count(conf, io_errors, 1);
		if (bio_op(bio) == REQ_OP_READ) {
			read_failed(sh, dev, rdev);
		} else {
			/* raid5xd records it (write_failed) */
			set_bit(WriteErrorSeen, &rdev->flags);
			set_bit(R5X_DEV_WERR, &dev->flags);
			/* a spare, if any, takes its place (raid5's rule) */
			if (!test_and_set_bit(WantReplacement, &rdev->flags))
				set_bit(MD_RECOVERY_NEEDED, &conf->mddev->recovery);
			/* a failed write-back: the block stays bad */
			if (test_and_clear_bit(R5X_DEV_REWRITE, &dev->flags))
				clear_bit(R5X_DEV_READERR, &dev->flags);
		}
	} else if (bio_op(bio) == REQ_OP_READ) {
		set_bit(R5X_DEV_UPTODATE, &dev->flags);
	} else {
		/* any write over a listed bad block makes it good (raid5) */
		bool good = stripe_badblock(sh, rdev);

		if (test_and_clear_bit(R5X_DEV_REWRITE, &dev->flags)) {
			rewrite_done(sh, dev, rdev);
			good = true;
		}
		/*
		 * bad-block list updates are irq-unsafe: raid5xd clears the
		 * entry, on this device (its reference goes along)
		 */
		if (good && !WARN_ON_ONCE(dev->good_rdev)) {
			dev->good_rdev = rdev;
			set_bit(R5X_DEV_REWRITTEN, &dev->flags);
			rdev = NULL;
		}
	}
	bio_uninit(bio);
	dev->rdev = NULL;
	if (rdev)
		rdev_dec_pending(rdev, conf->mddev);
	clear_bit(R5X_DEV_LOCKED, &dev->flags);
out:
	if (atomic_dec_and_test(&sh->io_pending) && !end_writes_early(sh))
		set_bit(R5X_STRIPE_HANDLE, &sh->state);
	r5x_release_stripe(sh);
}

/*
 * A write to a block of @rdev that md lists as bad after a write error
 * there: do not try again (raid5's rule), the block stays bad and the
 * stripe's writes are acknowledged once the entry is on disk.
 */
static bool skip_bad_write(struct r5x_stripe *sh, struct r5x_dev *dev,
			   struct md_rdev *rdev)
{
	if (!test_bit(WriteErrorSeen, &rdev->flags) ||
	    !stripe_badblock(sh, rdev))
		return false;
	set_bit(R5X_DEV_BADWRITE, &dev->flags);
	if (test_and_clear_bit(R5X_DEV_READERR, &dev->flags))
		clear_bit(R5X_DEV_REWRITE, &dev->flags);
	rdev_dec_pending(rdev, sh->conf->mddev);
	return true;
}

/* Set up @bio for @dev's page at member @rdev and send it. */
static void send_page(struct r5x_stripe *sh, struct r5x_dev *dev,
		      struct bio *bio, struct md_rdev *rdev, blk_opf_t opf,
		      bool sync, struct r5x_iobatch *iob)
{
	atomic_inc(&sh->io_pending);
	atomic_inc(&sh->count);
	bio_init(bio, rdev->bdev, r5x_inline_vecs(bio), 1, opf);
	bio->bi_iter.bi_sector = sh->sector + rdev->data_offset;
	__bio_add_page(bio, dev->page, R5X_STRIPE_SIZE, 0);
	bio->bi_end_io = end_member_io;
	bio->bi_private = sh;
	if (sync)
		r5x_sync_acct(rdev->bdev, R5X_STRIPE_SECTORS);
	if (op_is_write(opf))
		r5x_count(sh->conf, write_blocks, 1);
	r5x_iob_submit(iob, bio);
}

/* Every write to a slot goes to its replacement too, if it has one. */
static void submit_repl_write(struct r5x_stripe *sh, int i, blk_opf_t opf,
			      bool sync, struct r5x_iobatch *iob)
{
	struct r5x_dev *dev = &sh->dev[i];
	struct md_rdev *rrdev = r5x_get_repl(sh->conf, i);

	if (!rrdev)
		return;
	if (WARN_ON_ONCE(dev->rrdev)) {
		rdev_dec_pending(rrdev, sh->conf->mddev);
		return;
	}
	dev->rrdev = rrdev;
	send_page(sh, dev, dev->rreq, rrdev, opf, sync, iob);
}

static void submit_member_io(struct r5x_stripe *sh, int i, blk_opf_t opf,
			     struct r5x_iobatch *iob)
{
	struct r5x_conf *conf = sh->conf;
	struct r5x_dev *dev = &sh->dev[i];
	/* md counts sync I/O apart from other I/O (is_mddev_idle) */
	bool sync = test_bit(R5X_STRIPE_SYNC, &sh->state);
	struct md_rdev *rdev;

	/* handle_stripe runs with no I/O in flight and plans one per page */
	if (WARN_ON_ONCE(test_bit(R5X_DEV_LOCKED, &dev->flags))) {
		/* not this write's to keep: the next one goes to both */
		clear_bit(R5X_DEV_REPLONLY, &dev->flags);
		return;
	}
	if (op_is_write(opf)) {
		submit_repl_write(sh, i, opf, sync, iob);
		if (test_and_clear_bit(R5X_DEV_REPLONLY, &dev->flags))
			return;
	}
	rdev = op_is_write(opf) ? r5x_get_rdev(conf, i, true) :
		r5x_get_reader(conf, i, sh->sector);
	if (!rdev) {
		/* member went away since planning: re-plan reads without it */
		clear_bit(R5X_DEV_READERR, &dev->flags);
		if (!op_is_write(opf))
			set_bit(R5X_DEV_IOERR, &dev->flags);
		set_bit(R5X_STRIPE_HANDLE, &sh->state);
		return;
	}
	if (!op_is_write(opf) && stripe_badblock(sh, rdev)) {
		/* known bad: rebuild from parity, do not read it */
		rdev_dec_pending(rdev, conf->mddev);
		r5x_count(conf, read_errors, 1);
		set_bit(R5X_DEV_READERR, &dev->flags);
		set_bit(R5X_STRIPE_HANDLE, &sh->state);
		return;
	}
	if (op_is_write(opf) && skip_bad_write(sh, dev, rdev)) {
		set_bit(R5X_STRIPE_HANDLE, &sh->state);
		return;
	}
	if (op_is_write(opf) && test_bit(R5X_DEV_READERR, &dev->flags))
		set_bit(R5X_DEV_REWRITE, &dev->flags);
	dev->rdev = rdev;
	set_bit(R5X_DEV_LOCKED, &dev->flags);
	send_page(sh, dev, dev->req, rdev, opf, sync, iob);
}

static void submit_io(struct r5x_stripe *sh, unsigned long reads,
		      unsigned long writes, blk_opf_t wflags,
		      struct r5x_iobatch *iob)
{
	int i;

	if (!reads && !writes)
		return;
	/* hold io_pending up so a fast completion cannot re-queue us early */
	atomic_inc(&sh->io_pending);
	for_each_set_bit(i, &reads, R5X_MAX_DISKS)
		submit_member_io(sh, i, REQ_OP_READ, iob);
	for_each_set_bit(i, &writes, R5X_MAX_DISKS)
		submit_member_io(sh, i, REQ_OP_WRITE | wflags, iob);
	/* all completed already (or none could be sent): look again */
	if (atomic_dec_and_test(&sh->io_pending))
		set_bit(R5X_STRIPE_HANDLE, &sh->state);
}

/*
 * Member writes of drained bios are done: complete the array writes.
 * p->failed members are unusable now; a page whose member write failed
 * (R5X_DEV_BADWRITE) counts too: more than one fails the writes; any keeps
 * the bitmap region dirty (the member that missed it needs a resync) and
 * holds the completions back until md has recorded the failure, as
 * raid5 does: acknowledged before that, a crash would assemble the stale
 * member as in sync and resync would compute parity from its old data.
 * Returns false if the stripe waits for that.
 */
static bool finish_writes(struct r5x_stripe *sh, const struct r5x_plan *p)
{
	struct r5x_conf *conf = sh->conf;
	bool any = false;
	int i, missed = 0, failed = p->failed;

	for (i = 0; i < conf->geom.raid_disks; i++) {
		if (test_bit(R5X_DEV_BADWRITE, &sh->dev[i].flags) &&
		    !dev_failed(sh, p, i))
			failed++;
		/* a replacement that missed it: no data lost, but record it */
		if (test_bit(R5X_DEV_REPL_FAILED, &sh->dev[i].flags))
			missed++;
		any |= !r5x_blist_empty(&sh->dev[i].written);
	}
	if (any && wait_for_record(sh, failed + missed))
		return false;
	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];

		/*
		 * The writes fail: a page whose member write was skipped or
		 * failed holds data no member has and parity cannot give
		 * back (the parity page, with it). Keeping any page would
		 * answer later reads with what the writer was told is lost,
		 * until the stripe leaves the cache; drop them all, as
		 * fail_stripe does, so reads go to the members (raid5 fails
		 * them: two blocks of the stripe missing).
		 */
		if (failed > 1 && any)
			clear_bit(R5X_DEV_UPTODATE, &dev->flags);
		clear_bit(R5X_DEV_BADWRITE, &dev->flags);
		clear_bit(R5X_DEV_REPL_FAILED, &dev->flags);
		if (!r5x_blist_empty(&dev->written))
			end_dev_writes(sh, dev, failed > 1 ? BLK_STS_IOERR : 0,
				       !failed);
	}
	if (any)
		r5x_preread_done(conf, sh);
	return true;
}

/* A sync request's member writes are done. */
static void finish_sync_write(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	int t = sh->sync_mode >= R5X_SYNC_RECOVER ? sh->sync_target : sh->pd_idx;
	struct md_rdev *rrdev;
	bool ok;

	if (!test_and_clear_bit(R5X_STRIPE_SYNC_WRITING, &sh->state))
		return;
	if (sh->sync_mode == R5X_SYNC_REPLACE) {
		rrdev = r5x_get_repl(conf, t);
		ok = rrdev;
		if (rrdev)
			rdev_dec_pending(rrdev, conf->mddev);
	} else {
		ok = !r5x_disk_faulty(conf, t);
	}
	finish_sync(sh, ok);
}

/*
 * Complete the reads queued on member @i from its page, which is uptodate
 * (reads attached since planning are served too: the page is just as good).
 */
static void serve_reads(struct r5x_stripe *sh, int i)
{
	struct r5x_blist l = {};

	spin_lock(&sh->lock);
	blist_splice(&l, &sh->dev[i].toread);
	spin_unlock(&sh->lock);
	complete_blist(sh, &l, false, 0, sh->dev[i].page,
		       sh->dev[i].lsector, false);
}

/*
 * Record @sh's block on member @rdev in its bad-block log (@what went
 * wrong with it), or fail the member if it has no log or the log is full.
 */
static void set_bad_or_fail(struct r5x_stripe *sh, struct md_rdev *rdev,
			    const char *what)
{
	struct r5x_conf *conf = sh->conf;

	if (!rdev_set_badblocks(rdev, sh->sector, R5X_STRIPE_SECTORS, 0)) {
		md_error(conf->mddev, rdev);
		return;
	}
	r5x_count(conf, badblocks, 1);
	pr_warn_ratelimited("md/raid5x:%s: block at sector %llu on %pg %s: recorded as bad\n",
			    mdname(conf->mddev),
			    (unsigned long long)(sh->sector + rdev->data_offset),
			    rdev->bdev, what);
}

/* Is the stripe at @sector listed bad on @rdev, and is that on disk? */
static bool known_bad(struct md_rdev *rdev, sector_t sector)
{
	sector_t first_bad;
	sector_t bad_sectors;

	return r5x_is_badblock(rdev, sector, R5X_STRIPE_SECTORS, &first_bad,
			       &bad_sectors) > 0 &&
		first_bad <= sector &&
		first_bad + bad_sectors >= sector + R5X_STRIPE_SECTORS;
}

/*
 * Member @i's block of @sh cannot be read and cannot be rebuilt (another
 * member is missing too): record it in the member's bad-block log, so
 * the member stays and later requests fail at once instead of reading
 * it again; fail the member only if the log cannot take it.
 */
static void record_unreadable(struct r5x_stripe *sh, int i)
{
	struct r5x_conf *conf = sh->conf;
	struct md_rdev *rdev = r5x_get_reader(conf, i, sh->sector);

	if (!rdev)
		return;
	/* already on disk in the log: nothing to record */
	if (!known_bad(rdev, sh->sector))
		set_bad_or_fail(sh, rdev, "unreadable and not rebuildable");
	rdev_dec_pending(rdev, conf->mddev);
}

/*
 * @rdev (referenced, or NULL) is being rebuilt: mark @sh's block bad on it
 * and drop the reference.  False if its bad-block log cannot take it.
 */
static bool mark_rebuilt_bad(struct r5x_stripe *sh, struct md_rdev *rdev)
{
	struct r5x_conf *conf = sh->conf;
	bool ok = true;

	if (!rdev)
		return true;
	if (!test_bit(In_sync, &rdev->flags)) {
		ok = rdev_set_badblocks(rdev, sh->sector, R5X_STRIPE_SECTORS, 0);
		if (ok)
			r5x_count(conf, badblocks, 1);
	}
	rdev_dec_pending(rdev, conf->mddev);
	return ok;
}

/*
 * A sync request on a stripe that cannot be rebuilt.  check/resync/repair
 * just go on.  A recovery marks the stripe bad on every member it is
 * rebuilding (their block stays unreadable, nothing else is lost) and goes
 * on; if a bad-block log is full, recovery is disabled: returns false.
 */
static bool sync_failed_ok(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	bool ok = true;
	int i;

	if (sh->sync_mode < R5X_SYNC_RECOVER)
		return true;
	/* a spare in the slot, or a replacement beside its member */
	for (i = 0; i < conf->geom.raid_disks; i++) {
		ok &= mark_rebuilt_bad(sh, r5x_get_rdev(conf, i, true));
		ok &= mark_rebuilt_bad(sh, r5x_get_repl(conf, i));
	}
	if (!ok) {
		r5x_pr(conf, warn,
		       "cannot record a bad block on the member being rebuilt: %s\n",
		       R5X_HAVE_RECOVERY_OFF ? "recovery disabled" :
		       "md fails it");
		WRITE_ONCE(conf->recovery_disabled,
			   r5x_recovery_off_now(conf->mddev));
	}
	return ok;
}

/* More members failed than RAID5 survives: error out every bio. */
static void fail_stripe(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	bool sync;
	int i;

	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct r5x_blist rd = {}, wr = {};
		bool unreadable;

		spin_lock(&sh->lock);
		blist_splice(&rd, &sh->dev[i].toread);
		blist_splice(&wr, &sh->dev[i].towrite);
		sh->dev[i].wmask = 0;
		clear_bit(R5X_DEV_UPTODATE, &sh->dev[i].flags);
		unreadable = test_and_clear_bit(R5X_DEV_READERR, &sh->dev[i].flags);
		spin_unlock(&sh->lock);
		if (unreadable)
			record_unreadable(sh, i);
		complete_blist(sh, &rd, false, BLK_STS_IOERR, NULL, 0, false);
		complete_blist(sh, &wr, true, BLK_STS_IOERR, NULL, 0, false);
	}
	clear_bit(R5X_STRIPE_DELAYED, &sh->state);
	r5x_preread_done(conf, sh);
	/* sync_mode was published under sh->lock (raid5x_sync_request) */
	spin_lock(&sh->lock);
	sync = test_bit(R5X_STRIPE_SYNC, &sh->state);
	spin_unlock(&sh->lock);
	if (sync)
		finish_sync(sh, sync_failed_ok(sh));
}

/*
 * A write made the block listed bad on *@rdevp good: take it off that
 * device's list (not the slot's device now: a replacement may have failed
 * or taken the slot since, and the other device did not get the write),
 * and drop the reference the completion kept.
 */
static void clear_badblock(struct r5x_stripe *sh, struct md_rdev **rdevp)
{
	struct md_rdev *rdev = *rdevp;

	*rdevp = NULL;
	if (WARN_ON_ONCE(!rdev))
		return;
	rdev_clear_badblocks(rdev, sh->sector, R5X_STRIPE_SECTORS, 0);
	rdev_dec_pending(rdev, sh->conf->mddev);
}

/*
 * A member write of @i's page failed: record the block in the member's
 * bad-block log and keep the member (raid5's rule), or fail the member
 * if it has no log or the log is full.  The page's data is in the parity.
 */
static void write_failed(struct r5x_stripe *sh, int i)
{
	struct r5x_conf *conf = sh->conf;
	struct md_rdev *rdev = r5x_get_rdev(conf, i, true);

	set_bit(R5X_DEV_BADWRITE, &sh->dev[i].flags);
	if (!rdev)
		return;
	set_bad_or_fail(sh, rdev, "could not be written");
	rdev_dec_pending(rdev, conf->mddev);
}

/*
 * The handler's member I/O batch runs this before it sends anything after
 * a drained stripe whose newest startwrite is @seq: the bitmap bits of
 * every startwrite up to @seq must be on disk before those data writes.
 * One handler flushes at a time: md_bitmap_unplug clears a page's dirty
 * flag before its write is sent, so a second caller meanwhile would find
 * nothing to do and send data ahead of that write.
 */
void r5x_bitmap_barrier(void *ctx, unsigned long seq)
{
	struct r5x_conf *conf = ctx;
	unsigned long now;

	if (seq <= READ_ONCE(conf->bm_flushed))
		return;
	mutex_lock(&conf->bm_flush_lock);
	if (seq > conf->bm_flushed) {
		now = atomic_long_read(&conf->bm_seq);
		r5x_bm_unplug(conf->mddev);
		r5x_count(conf, bm_flushes, 1);
		/* every startwrite up to @now is on disk now */
		WRITE_ONCE(conf->bm_flushed, now);
	}
	mutex_unlock(&conf->bm_flush_lock);
}

/* A drained stripe's writes wait in @iob for its bitmap bits. */
static void bitmap_hold(struct r5x_stripe *sh, struct r5x_iobatch *iob)
{
	struct r5x_conf *conf = sh->conf;
	unsigned long seq = READ_ONCE(sh->bm_seq);

	if (!conf->mddev->bitmap)
		return;
	r5x_count(conf, bm_stripes, 1);
	if (seq > READ_ONCE(conf->bm_flushed))
		r5x_iob_hold(iob, seq);
}

void r5x_handle_stripe(struct r5x_stripe *sh, void *scratch,
		       struct r5x_iobatch *iob)
{
	struct r5x_conf *conf = sh->conf;
	struct r5x_plan p = { .compute = -1, .scratch = scratch };
	unsigned long writes = 0, readerr = 0;
	int i;

	if (WARN_ON_ONCE(test_and_set_bit(R5X_STRIPE_ACTIVE, &sh->state)))
		return;
	if (atomic_read(&sh->io_pending))
		goto out;	/* the last completion queues us again */

	for (i = 0; i < conf->geom.raid_disks; i++) {
		unsigned long *flags = &sh->dev[i].flags;

		if (test_and_clear_bit(R5X_DEV_REWRITTEN, flags))
			clear_badblock(sh, &sh->dev[i].good_rdev);
		if (test_and_clear_bit(R5X_DEV_REPL_GOOD, flags))
			clear_badblock(sh, &sh->dev[i].good_rrdev);
		if (test_and_clear_bit(R5X_DEV_WERR, flags))
			write_failed(sh, i);	/* may fail the member */
	}
	/* after write_failed: a member it failed is unusable in this pass */
	p.unusable = r5x_failed_at_mask(conf, sh->sector);
	for (i = 0; i < conf->geom.raid_disks; i++) {
		unsigned long *flags = &sh->dev[i].flags;

		/*
		 * The member failed here was replaced: a spare being rebuilt
		 * counts as failed only above its recovery_offset (dev_failed)
		 */
		if (test_bit(R5X_DEV_IOERR, flags) && !r5x_disk_faulty(conf, i))
			clear_bit(R5X_DEV_IOERR, flags);
		if (dev_failed(sh, &p, i))
			p.failed++;
		if (test_bit(R5X_DEV_READERR, flags))
			readerr |= BIT(i);
	}
	if (!finish_writes(sh, &p))
		goto out;
	finish_sync_write(sh);
	if (p.failed > 1) {
		fail_stripe(sh);
		goto out;
	}

	spin_lock(&sh->lock);
	for (i = 0; i < conf->geom.raid_disks; i++)
		if (test_and_clear_bit(R5X_DEV_RECHECK, &sh->dev[i].flags) &&
		    !dev_failed(sh, &p, i))
			recheck_member(sh, i);
	plan_reads(sh, &p);
	if (readerr) {
		/* p.failed == 1: exactly this member; repair it first */
		plan_rewrite(sh, &p, __ffs(readerr));
	} else {
		plan_writes(sh, &p);
		plan_sync(sh, &p);
	}
	spin_unlock(&sh->lock);

	if (p.compute >= 0)
		compute_block(sh, p.compute);
	for_each_set_bit(i, &p.serve, R5X_MAX_DISKS)
		serve_reads(sh, i);
	if (p.drained)
		writes = run_drain(sh, &p);
	else if (p.sync_now)
		writes = run_sync(sh, &p);
	else
		writes = p.rewrite;
	if (p.drained)
		bitmap_hold(sh, iob);
	submit_io(sh, p.want_read, writes, member_write_flags(&p), iob);
	if (p.sync_now) {
		if (writes)
			set_bit(R5X_STRIPE_SYNC_WRITING, &sh->state);
		else
			finish_sync(sh, true);
	}
out:
	/* the pass is over: a completion may end its writes (end_writes_early) */
	clear_bit_unlock(R5X_STRIPE_ACTIVE, &sh->state);
}
