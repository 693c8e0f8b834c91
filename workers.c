// SPDX-License-Identifier: GPL-2.0
/*
 * workers.c - who handles stripes.
 *
 * raid5xd (the array's md thread) always does; with worker_threads set to
 * N (sysfs, 0 by default, at most R5X_MAX_WORKERS) N work items of the
 * array's own unbound workqueue do too, each with its own block plug and
 * scratch page.  Every wake-up of raid5xd queues them as well
 * (r5x_wake_thread); each runs until no stripe is ready.  With N = 0 and
 * solo_worker set (the default), the first worker is queued while exactly
 * one array write is in flight and none found another in flight for
 * R5X_SOLO_QUIET (a lone writer: r5x_lone_writer in stripe_cache.c).
 *
 * Why several handlers are safe: a stripe is taken off the handle or hold
 * list with a reference, under conf->lock (r5x_next_stripe), so one
 * handler at a time owns it until it is released, and a completion that
 * comes meanwhile only sets R5X_STRIPE_HANDLE: the release files it again.
 * What handlers share is atomic (counters, the bitmap sequence), under
 * conf->lock (lists, the delayed-list decisions), or per handler (the
 * scratch page of a parity check, the plug, the member I/O batch), or
 * taken in turn (the bitmap flush, conf->bm_flush_lock).  raid5xd alone does md's
 * superblock work, the cache's shrinking and the sb_wait list.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "raid5x.h"
#include "workers.h"
#include "delay_list.h"
#include "stripe_cache.h"
#include "iobatch.h"

/*
 * Handle stripes until none is ready, or @budget of them (0: no bound).
 * Returns how many it handled.
 */
static int handle_ready(struct r5x_conf *conf, void *scratch, int budget)
{
	struct r5x_stripe *sh;
	struct r5x_iobatch iob;
	struct blk_plug plug;
	int n = 0;

	r5x_iob_start(&iob, &conf->stats->v[R5X_C_member_bios],
		      r5x_bitmap_barrier, conf);
	blk_start_plug(&plug);
	spin_lock_irq(&conf->lock);
	while ((!budget || n < budget) && (sh = r5x_next_stripe(conf))) {
		spin_unlock_irq(&conf->lock);
		r5x_handle_stripe(sh, scratch, &iob);
		n++;
		cond_resched();
		/* release it under the lock the next stripe is taken with */
		spin_lock_irq(&conf->lock);
		if (atomic_dec_and_test(&sh->count))
			__r5x_release_stripe(conf, sh);
	}
	spin_unlock_irq(&conf->lock);
	r5x_iob_flush(&iob);
	blk_finish_plug(&plug);
	return n;
}

/*
 * Exclusive handling (solo_worker 2, no worker_threads): raid5xd and the
 * solo worker never run the loop at once, so a lone writer's stripes are
 * all joined into member bios by one handler (two in turn split each
 * member's run: docs/reports/solo-rows-7.2-2026-12-06.md).  A handler
 * that finds the loop taken marks MISSED and leaves; the one in the loop
 * looks again after it lets go.  MISSED is set before the test-and-set
 * and read after the clear, both ordered, so a stripe made ready while
 * the owner was leaving is either seen by it or taken by the newcomer.
 */
static bool handling_begin(struct r5x_conf *conf)
{
	set_bit(R5X_HANDLING_MISSED, &conf->handling);
	/* MISSED before the test of BUSY: pairs with handling_end's */
	smp_mb__after_atomic();
	if (test_and_set_bit_lock(R5X_HANDLING_BUSY, &conf->handling))
		return false;
	clear_bit(R5X_HANDLING_MISSED, &conf->handling);
	return true;
}

/* Let go of the loop; true if another handler came meanwhile. */
static bool handling_end(struct r5x_conf *conf)
{
	clear_bit_unlock(R5X_HANDLING_BUSY, &conf->handling);
	/* BUSY cleared before MISSED is read: pairs with handling_begin's */
	smp_mb__after_atomic();
	return test_and_clear_bit(R5X_HANDLING_MISSED, &conf->handling);
}

/*
 * raid5xd's loop and each worker's: handle stripes until none is ready,
 * or @budget of them (0: no bound); in exclusive mode only if no other
 * handler is in its loop.  Returns how many it handled.
 */
int r5x_handle_ready(struct r5x_conf *conf, void *scratch, int budget)
{
	int n = 0;

	if (READ_ONCE(conf->tun.worker_threads) ||
	    READ_ONCE(conf->tun.solo_worker) != R5X_SOLO_EXCLUSIVE)
		return handle_ready(conf, scratch, budget);
	do {
		if (!handling_begin(conf))
			break;
		n += handle_ready(conf, scratch, budget ? budget - n : 0);
	} while (handling_end(conf) && (!budget || n < budget));
	return n;
}

static void worker_fn(struct work_struct *work)
{
	struct r5x_worker *w = container_of(work, struct r5x_worker, work);

	r5x_count(w->conf, worker_stripes,
		  r5x_handle_ready(w->conf, w->scratch, 0));
}

/* The workqueue and every worker's page; the workers start idle. */
int r5x_workers_init(struct r5x_conf *conf)
{
	int i;

	conf->wq = alloc_workqueue("raid5x_%s", WQ_UNBOUND | WQ_MEM_RECLAIM,
				   R5X_MAX_WORKERS, mdname(conf->mddev));
	if (!conf->wq)
		return -ENOMEM;
	for (i = 0; i < R5X_MAX_WORKERS; i++) {
		conf->workers[i].conf = conf;
		INIT_WORK(&conf->workers[i].work, worker_fn);
	}
	for (i = 0; i < R5X_MAX_WORKERS; i++) {
		conf->workers[i].scratch = kmalloc(R5X_STRIPE_SIZE, GFP_KERNEL);
		if (!conf->workers[i].scratch)
			return -ENOMEM;	/* r5x_workers_stop frees the rest */
	}
	return 0;
}

/* No stripe left to handle (md stopped or quiesced the array): tear down. */
void r5x_workers_stop(struct r5x_conf *conf)
{
	int i;

	WRITE_ONCE(conf->tun.worker_threads, 0);
	WRITE_ONCE(conf->tun.solo_worker, 0);
	if (!conf->wq)
		return;
	for (i = 0; i < R5X_MAX_WORKERS; i++)
		cancel_work_sync(&conf->workers[i].work);
	destroy_workqueue(conf->wq);
	conf->wq = NULL;
	for (i = 0; i < R5X_MAX_WORKERS; i++) {
		kfree(conf->workers[i].scratch);
		conf->workers[i].scratch = NULL;
	}
}
