// SPDX-License-Identifier: GPL-2.0
/*
 * iobatch.c - member bios of several pages (see iobatch.h).
 *
 * A carrier's bi_private heads the list of the one-page bios it carries,
 * linked through their bi_next (they are never submitted themselves while
 * carried, so the field is theirs to use).  Only the handler that owns an
 * r5x_iobatch touches its slots; carriers in flight belong to the block
 * layer until their completion.
 */
#include <linux/blkdev.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "iobatch.h"

static bool merge_member_io = true;
module_param(merge_member_io, bool, 0644);
MODULE_PARM_DESC(merge_member_io,
		 "join adjacent 4 KiB member I/Os of a handler's stripes into multi-page bios (default 1)");

static struct bio_set carrier_set;
static struct workqueue_struct *resend_wq;
static DEFINE_SPINLOCK(resend_lock);
static struct bio_list resend_list;	/* one-page bios to send on their own */

static void resend_fn(struct work_struct *work)
{
	struct bio *bio;

	for (;;) {
		spin_lock_irq(&resend_lock);
		bio = bio_list_pop(&resend_list);
		spin_unlock_irq(&resend_lock);
		if (!bio)
			break;
		submit_bio_noacct(bio);
	}
}

static DECLARE_WORK(resend_work, resend_fn);

static void carrier_end_io(struct bio *carrier)
{
	struct bio *bio = carrier->bi_private, *next;
	blk_status_t status = carrier->bi_status;
	unsigned long flags;

	bio_put(carrier);
	if (status) {
		/* which page failed is unknown: each is sent again alone */
		spin_lock_irqsave(&resend_lock, flags);
		for (; bio; bio = next) {
			next = bio->bi_next;
			bio->bi_next = NULL;
			bio_list_add(&resend_list, bio);
		}
		spin_unlock_irqrestore(&resend_lock, flags);
		queue_work(resend_wq, &resend_work);
		return;
	}
	for (; bio; bio = next) {
		next = bio->bi_next;
		bio->bi_next = NULL;
		bio->bi_status = BLK_STS_OK;
		bio->bi_end_io(bio);
	}
}

static void run_barrier(struct r5x_iobatch *b)
{
	unsigned long seq = b->hold;

	if (seq) {
		b->hold = 0;
		b->barrier_fn(b->ctx, seq);
	}
}

static void send(struct r5x_iobatch *b, struct bio *bio)
{
	run_barrier(b);
	this_cpu_inc(*b->sent);
	submit_bio_noacct(bio);
}

static bool is_carrier(struct bio *bio)
{
	return bio->bi_end_io == carrier_end_io;
}

/* Put @bio's page at the end of @carrier, which now carries @bio too. */
static void carry(struct bio *carrier, struct bio *bio)
{
	struct bio_vec *bv = &bio->bi_io_vec[0];

	__bio_add_page(carrier, bv->bv_page, bv->bv_len, bv->bv_offset);
	bio->bi_next = carrier->bi_private;
	carrier->bi_private = bio;
}

/* A carrier for the pending one-page @bio, or NULL if none is free. */
static struct bio *new_carrier(struct bio *bio)
{
	struct bio *carrier;

	carrier = bio_alloc_bioset(bio->bi_bdev, R5X_IOB_PAGES, bio->bi_opf,
				   GFP_NOWAIT | __GFP_NOWARN, &carrier_set);
	if (!carrier)
		return NULL;
	carrier->bi_iter.bi_sector = bio->bi_iter.bi_sector;
	carrier->bi_ioprio = bio->bi_ioprio;
	carrier->bi_end_io = carrier_end_io;
	carrier->bi_private = NULL;
	carry(carrier, bio);
	return carrier;
}

static bool continues(struct bio *pend, struct bio *bio)
{
	return pend->bi_bdev == bio->bi_bdev && pend->bi_opf == bio->bi_opf &&
	       bio_end_sector(pend) == bio->bi_iter.bi_sector;
}

/* Add @bio to slot @i's pending bio; false if it cannot be carried. */
static bool join(struct r5x_iobatch *b, unsigned int i, struct bio *bio)
{
	struct bio *pend = b->pend[i];

	if (!is_carrier(pend)) {
		pend = new_carrier(pend);
		if (!pend)
			return false;
		b->pend[i] = pend;
	}
	carry(pend, bio);
	if (pend->bi_vcnt == pend->bi_max_vecs) {
		b->pend[i] = NULL;
		send(b, pend);
	}
	return true;
}

void r5x_iob_start(struct r5x_iobatch *b, u64 __percpu *sent,
		   void (*barrier_fn)(void *ctx, unsigned long seq), void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->off = !READ_ONCE(merge_member_io);
	b->sent = sent;
	b->barrier_fn = barrier_fn;
	b->ctx = ctx;
}

void r5x_iob_hold(struct r5x_iobatch *b, unsigned long seq)
{
	if (seq > b->hold)
		b->hold = seq;
}

void r5x_iob_submit(struct r5x_iobatch *b, struct bio *bio)
{
	unsigned int i, free = R5X_IOB_SLOTS;

	if (b->off) {
		send(b, bio);
		return;
	}
	for (i = 0; i < R5X_IOB_SLOTS; i++) {
		struct bio *pend = b->pend[i];

		if (!pend) {
			if (free == R5X_IOB_SLOTS)
				free = i;
			continue;
		}
		if (!continues(pend, bio))
			continue;
		if (join(b, i, bio))
			return;
		/* no carrier: what is pending goes, @bio waits in its place */
		send(b, pend);
		b->pend[i] = bio;
		return;
	}
	if (free == R5X_IOB_SLOTS) {
		free = b->evict;
		b->evict = (b->evict + 1) % R5X_IOB_SLOTS;
		send(b, b->pend[free]);
	}
	b->pend[free] = bio;
}

void r5x_iob_flush(struct r5x_iobatch *b)
{
	unsigned int i;

	run_barrier(b);
	for (i = 0; i < R5X_IOB_SLOTS; i++) {
		if (b->pend[i]) {
			send(b, b->pend[i]);
			b->pend[i] = NULL;
		}
	}
}

int r5x_iob_init(void)
{
	int err;

	err = bioset_init(&carrier_set, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS);
	if (err)
		return err;
	resend_wq = alloc_workqueue("raid5x_resend", WQ_MEM_RECLAIM | WQ_UNBOUND,
				    0);
	if (!resend_wq) {
		bioset_exit(&carrier_set);
		return -ENOMEM;
	}
	return 0;
}

/* After every array stopped: no carrier in flight, nothing to resend. */
void r5x_iob_exit(void)
{
	destroy_workqueue(resend_wq);
	bioset_exit(&carrier_set);
}
