// SPDX-License-Identifier: GPL-2.0
/*
 * plug.c - plug-aware full-stripe coalescing.
 *
 * While the submitting task holds a block plug (blk_start_plug: writeback,
 * io_submit batches, 6.1's block-device writes, and raid5x_make_request's
 * own around a write of more than one block), every stripe it touches is
 * kept on a per-plug list with its reference instead of being queued for
 * raid5xd.  The rest of a sequential write therefore reaches each stripe
 * before raid5xd looks at it, and a stripe covered by the time of the unplug
 * is written whole, with no reads.  At unplug (blk_finish_plug, or schedule()
 * when the task sleeps) the stripes are released in ascending sector order,
 * so raid5xd issues member writes in order.  Both decisions are in
 * plug_policy.c.
 */
#include <linux/blkdev.h>
#include <linux/list_sort.h>
#include <linux/slab.h>
#include "raid5x.h"
#include "plug.h"
#include "plug_policy.h"
#include "stripe_cache.h"

struct r5x_plug {
	struct blk_plug_cb cb;		/* must be first: blk_check_plugged() */
	struct list_head stripes;	/* held stripes, linked by sh->lru */
	bool init;
};

static int cmp_sector(void *priv, const struct list_head *a,
		      const struct list_head *b)
{
	const struct r5x_stripe *x = list_entry(a, struct r5x_stripe, lru);
	const struct r5x_stripe *y = list_entry(b, struct r5x_stripe, lru);

	return r5x_plug_order(x->sector, y->sector);
}

static void r5x_unplug(struct blk_plug_cb *blk_cb, bool from_schedule)
{
	struct r5x_plug *plug = container_of(blk_cb, struct r5x_plug, cb);
	struct r5x_conf *conf = blk_cb->data;
	struct r5x_stripe *sh, *tmp;
	unsigned long flags;
	int n = 0;

	list_sort(NULL, &plug->stripes, cmp_sector);
	spin_lock_irqsave(&conf->lock, flags);
	list_for_each_entry_safe(sh, tmp, &plug->stripes, lru) {
		list_del_init(&sh->lru);
		/* another plug may take it (test_and_set_bit) once clear */
		clear_bit_unlock(R5X_STRIPE_ON_PLUG, &sh->state);
		if (atomic_dec_and_test(&sh->count))
			__r5x_release_stripe(conf, sh);
		n++;
	}
	spin_unlock_irqrestore(&conf->lock, flags);
	r5x_count(conf, plugs, 1);
	r5x_count(conf, plugged_stripes, n);
	kfree(plug);
}

/*
 * Drop the submitter's reference on @sh (which has R5X_STRIPE_HANDLE set),
 * or park it on the current plug with that reference until the unplug.
 */
void r5x_release_or_plug(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	struct blk_plug_cb *cb;
	struct r5x_plug *plug;

	cb = blk_check_plugged(r5x_unplug, conf, sizeof(*plug));
	plug = cb ? container_of(cb, struct r5x_plug, cb) : NULL;
	if (plug && !plug->init) {
		INIT_LIST_HEAD(&plug->stripes);
		plug->init = true;
	}
	switch (r5x_plug_action(plug, plug &&
				test_and_set_bit(R5X_STRIPE_ON_PLUG, &sh->state))) {
	case R5X_PLUG_HOLD:
		list_add_tail(&sh->lru, &plug->stripes);
		break;
	case R5X_PLUG_RELEASE:
	case R5X_PLUG_DROP:
		r5x_release_stripe(sh);
		break;
	}
}
