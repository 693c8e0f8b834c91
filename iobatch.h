/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iobatch.h - member bios of several pages out of one-page ones.
 *
 * The stripe state machine plans one bio per 4 KiB member page (the bio
 * embedded in each r5x_dev).  A handler (raid5xd or a worker) that runs
 * many stripes in a row hands those bios to its r5x_iobatch instead of
 * submitting them: a bio that continues a pending one (same member, same
 * operation and flags, the next sector) is carried by one multi-page bio
 * (a "carrier"), and the carrier is sent when it is full, when its slot is
 * needed, or at r5x_iob_flush().  Each page's own bio is completed, with
 * the carrier's status, when the carrier completes, so the state machine
 * sees exactly the completions it planned.
 *
 * Failure: a carrier that fails is not trusted for any page it carried.
 * Every page's bio is sent again on its own (from a workqueue; not from the
 * completion, which may run in interrupt context), and only that bio's
 * result is reported: a bad sector fails the 4 KiB block it lies in, as it
 * would have without batching (the read-error, bad-block and md_error rules
 * in stripe_handle.c stay per page).
 *
 * A carrier is allocated without waiting (GFP_NOWAIT): if none is free the
 * page's bio goes out on its own, so batching never waits for memory.
 *
 * Barrier: a handler that drains a stripe whose bitmap bits may not be on
 * disk yet calls r5x_iob_hold() before handing over its writes.  The next
 * bio the batch sends, whichever it is, first runs the batch's barrier
 * function (the bitmap flush) for the highest sequence number held.  So
 * every stripe a handler drains between two sends shares one flush, and
 * the flush no longer cuts the carriers short as a flush of the batch
 * would: the bios pending meanwhile wait for it and go after it.
 */
#ifndef RAID5X_IOBATCH_H
#define RAID5X_IOBATCH_H

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/percpu.h>

#define R5X_IOB_SLOTS	16	/* pending member bios per handler */
#define R5X_IOB_PAGES	32	/* pages per carrier (128 KiB) */

struct r5x_iobatch {
	struct bio *pend[R5X_IOB_SLOTS]; /* a one-page bio or a carrier */
	unsigned int evict;		 /* next slot to give up when full */
	bool off;			 /* merge_member_io=0: send each now */
	u64 __percpu *sent;		 /* counts the bios sent */
	unsigned long hold;		 /* barrier owed before a send, or 0 */
	void (*barrier_fn)(void *ctx, unsigned long seq);
	void *ctx;			 /* the barrier's argument */
};

/*
 * A handler's batch, empty, counting the bios it sends in @sent, running
 * @barrier_fn(@ctx, seq) for a hold; merge_member_io (module parameter) is
 * read now.  The barrier may sleep; it runs in the handler's context.
 */
void r5x_iob_start(struct r5x_iobatch *b, u64 __percpu *sent,
		   void (*barrier_fn)(void *ctx, unsigned long seq), void *ctx);

/* No bio leaves the batch before a barrier for @seq (> 0) has run. */
void r5x_iob_hold(struct r5x_iobatch *b, unsigned long seq);

/* Send @bio (one page, prepared, not yet sent) now or with the batch. */
void r5x_iob_submit(struct r5x_iobatch *b, struct bio *bio);
/*
 * Send everything pending, after a barrier held.  Before the handler
 * sleeps or returns.
 */
void r5x_iob_flush(struct r5x_iobatch *b);

int r5x_iob_init(void);
void r5x_iob_exit(void);

#endif /* RAID5X_IOBATCH_H */
