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
 * Handle stripes until none is ready, or @budget of them (0: no bound):
 * raid5xd's loop and each worker's.  Returns how many it handled.
 */
int r5x_handle_ready(struct r5x_conf *conf, void *scratch, int budget)
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
