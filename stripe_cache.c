// SPDX-License-Identifier: GPL-2.0
/*
 * stripe_cache.c - stripe pool, hash, references and list placement.
 *
 * A stripe's reference count going 0->1 takes it off whatever list it was
 * on; going 1->0 puts it on exactly one list chosen from its state bits
 * (__r5x_release_stripe).  Both happen under conf->lock.  Idle stripes stay
 * hashed on the inactive LRU so later reads can hit their pages; a stripe is
 * reused from the LRU head (oldest) when a new sector needs one.
 *
 * Wake-ups of submitters sleeping for a free stripe are batched (seed 002):
 * they are woken once wake_batch_pct percent of the cache is idle again, not
 * after every freed stripe, so a burst of new requests gets a run of free
 * stripes instead of trickling in one at a time.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/bio.h>
#include <linux/workqueue.h>
#include "raid5x.h"
#include "stripe_cache.h"
#include "delay_policy.h"

/* how often a stripe parked on sb_wait is looked at again (ms) */
#define R5X_SB_POLL_MS	20

static struct hlist_head *stripe_hash(struct r5x_conf *conf, sector_t sector)
{
	return &conf->hash[hash_64(sector >> ilog2(R5X_STRIPE_SECTORS),
				   ilog2(conf->hash_mask + 1))];
}

/*
 * A lone writer: exactly one array write in flight now, and none found
 * another in flight for R5X_SOLO_QUIET.  Its next write comes after this
 * one completes: its partial stripes read at once (delay_list.c), and
 * with solo_worker it gets a worker (below).  A deep queue also drains to
 * one write at moments; without the quiet time the worker ran those
 * stripes too, and random 4K writes at depth 32 took a third more p99
 * latency with it than without (docs/benchmarks.md).
 */
bool r5x_lone_writer(struct r5x_conf *conf)
{
	return atomic_read(&conf->writes_in_flight) == 1 &&
	       time_after(jiffies, READ_ONCE(conf->deep_write) + R5X_SOLO_QUIET);
}

/*
 * A lone writer's write that the solo worker speeds up: one of at most a
 * row.  Its latency is the hand-offs between threads.  A longer one keeps
 * raid5xd busy while the submitter queues the rest, and two handlers
 * taking its stripes in turn split each member's run into 1-2 page bios
 * (7.2, 1 MiB O_DIRECT writes at depth 1 on 3 members, 64K chunks: 1.9
 * blocks a member bio with the worker, 64 without, and 0.80x raid456
 * against 1.05x: docs/reports/solo-rows-7.2-2026-12-06.md).
 */
static bool solo_write(struct r5x_conf *conf)
{
	return r5x_lone_writer(conf) &&
	       atomic64_read(&conf->write_bytes_in_flight) <=
	       r5x_row_bytes(conf->geom.chunk_sectors, conf->geom.data_disks);
}

/*
 * Something for the handlers: wake raid5xd and queue the workers.  With
 * no workers configured, a lone writer (as a synchronous writer at queue
 * depth 1 is) gets one worker beside raid5xd for a write of at most a row
 * when solo_worker is set (solo_write): whichever of the two runs first
 * takes the stripe.  Deeper queues keep raid5xd alone, where workers cost
 * throughput and latency on few CPUs.
 */
void r5x_wake_thread(struct r5x_conf *conf)
{
	int i, n = READ_ONCE(conf->tun.worker_threads);

	md_wakeup_thread(conf->mddev->thread);
	if (!n && READ_ONCE(conf->tun.solo_worker) && solo_write(conf))
		n = 1;
	for (i = 0; i < n; i++)
		queue_work(conf->wq, &conf->workers[i].work);
}

static void free_stripe(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	int i;

	for (i = 0; i < conf->geom.raid_disks; i++) {
		/* a bio's page is never ours to free */
		if (WARN_ON_ONCE(test_bit(R5X_DEV_NOCOPY, &sh->dev[i].flags)))
			sh->dev[i].page = sh->dev[i].orig_page;
		if (sh->dev[i].page)
			put_page(sh->dev[i].page);
		kfree(sh->dev[i].req);
		kfree(sh->dev[i].rreq);
	}
	kmem_cache_free(conf->slab, sh);
}

static struct r5x_stripe *alloc_stripe(struct r5x_conf *conf, gfp_t gfp)
{
	struct r5x_stripe *sh;
	int i;

	sh = kmem_cache_zalloc(conf->slab, gfp);
	if (!sh)
		return NULL;
	sh->conf = conf;
	spin_lock_init(&sh->lock);
	INIT_LIST_HEAD(&sh->lru);
	INIT_HLIST_NODE(&sh->hash);
	for (i = 0; i < conf->geom.raid_disks; i++) {
		sh->dev[i].page = alloc_page(gfp);
		sh->dev[i].req = bio_kmalloc(1, gfp);
		sh->dev[i].rreq = bio_kmalloc(1, gfp);
		if (!sh->dev[i].page || !sh->dev[i].req || !sh->dev[i].rreq) {
			free_stripe(conf, sh);
			return NULL;
		}
	}
	return sh;
}

/*
 * Number of idle stripes at which sleeping submitters are woken: a share
 * of the pool there is (a pool still shrinking to stripe_cache_size is
 * larger; one still growing, smaller).
 */
int r5x_wake_batch(struct r5x_conf *conf)
{
	return r5x_wake_batch_of(min(conf->max_nr_stripes, conf->nr_stripes),
				 conf->tun.wake_batch_pct);
}

static int idle_stripes(struct r5x_conf *conf)
{
	return conf->nr_stripes - conf->active_stripes;
}

static int grow_stripes(struct r5x_conf *conf, int nr)
{
	while (nr-- > 0) {
		struct r5x_stripe *sh = alloc_stripe(conf, GFP_KERNEL);

		if (!sh)
			return -ENOMEM;
		spin_lock_irq(&conf->lock);
		list_add_tail(&sh->lru, &conf->inactive);
		conf->nr_stripes++;
		spin_unlock_irq(&conf->lock);
	}
	return 0;
}

int r5x_cache_init(struct r5x_conf *conf, int nr)
{
	unsigned int buckets = roundup_pow_of_two(R5X_MAX_STRIPES);

	snprintf(conf->slab_name, sizeof(conf->slab_name), "raid5x-%s",
		 mdname(conf->mddev));
	conf->slab = kmem_cache_create(conf->slab_name,
				       struct_size((struct r5x_stripe *)NULL, dev,
						   conf->geom.raid_disks),
				       0, 0, NULL);
	if (!conf->slab)
		return -ENOMEM;
	conf->hash = kvcalloc(buckets, sizeof(*conf->hash), GFP_KERNEL);
	if (!conf->hash)
		return -ENOMEM;
	conf->hash_mask = buckets - 1;
	conf->max_nr_stripes = nr;
	return grow_stripes(conf, nr);
}

/* Free every stripe; the array is quiet (no references, no lists but inactive). */
void r5x_cache_destroy(struct r5x_conf *conf)
{
	struct r5x_stripe *sh, *tmp;

	WARN_ON_ONCE(conf->active_stripes);
	list_for_each_entry_safe(sh, tmp, &conf->inactive, lru) {
		list_del(&sh->lru);
		hlist_del_init(&sh->hash);
		free_stripe(conf, sh);
	}
	kvfree(conf->hash);
	conf->hash = NULL;
	kmem_cache_destroy(conf->slab);
	conf->slab = NULL;
}

/* Free idle stripes while the pool is larger than stripe_cache_size. */
void r5x_cache_shrink(struct r5x_conf *conf)
{
	struct r5x_stripe *sh;

	for (;;) {
		spin_lock_irq(&conf->lock);
		if (conf->nr_stripes <= conf->max_nr_stripes ||
		    list_empty(&conf->inactive)) {
			spin_unlock_irq(&conf->lock);
			return;
		}
		sh = list_first_entry(&conf->inactive, struct r5x_stripe, lru);
		list_del_init(&sh->lru);
		hlist_del_init(&sh->hash);
		conf->nr_stripes--;
		spin_unlock_irq(&conf->lock);
		free_stripe(conf, sh);
	}
}

/*
 * Set stripe_cache_size.  Growing allocates now; shrinking frees idle
 * stripes now and the rest as they go idle (raid5xd calls shrink).  A
 * grow that runs out of memory keeps what it got: stripe_cache_size then
 * says how many stripes there are, and -ENOMEM is returned.
 */
int r5x_cache_resize(struct r5x_conf *conf, int nr)
{
	int grow, err = 0;

	if (nr < R5X_MIN_STRIPES || nr > R5X_MAX_STRIPES)
		return -EINVAL;
	/* GFP_KERNEL reclaim may write to this array: let md mark it dirty */
	md_allow_write(conf->mddev);
	spin_lock_irq(&conf->lock);
	grow = nr - conf->nr_stripes;
	/*
	 * Set before growing: raid5xd frees idle stripes above the limit
	 * (r5x_cache_shrink), and would free the new ones as they arrive if
	 * a shrink had just lowered it.
	 */
	conf->max_nr_stripes = nr;
	if (conf->tun.preread_bypass_threshold > nr)
		conf->tun.preread_bypass_threshold = nr;
	spin_unlock_irq(&conf->lock);
	if (grow > 0) {
		err = grow_stripes(conf, grow);
		if (err) {
			spin_lock_irq(&conf->lock);
			conf->max_nr_stripes = conf->nr_stripes;
			spin_unlock_irq(&conf->lock);
		}
	} else {
		r5x_cache_shrink(conf);
	}
	wake_up(&conf->wait_for_stripe);
	return err;
}

/* Empty per-member state of a stripe that just got its identity. */
static void init_devs(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	int i;

	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct r5x_dev *dev = &sh->dev[i];

		/* raid5xd dropped them before the stripe went idle */
		WARN_ON_ONCE(dev->good_rdev || dev->good_rrdev);
		dev->good_rdev = NULL;
		dev->good_rrdev = NULL;
		dev->flags = 0;
		dev->wmask = 0;
		dev->toread = (struct r5x_blist){};
		dev->towrite = (struct r5x_blist){};
		dev->written = (struct r5x_blist){};
		dev->lsector = i == sh->pd_idx ? 0 :
			r5x_array_sector(&conf->geom, sh->sector, i, sh->pd_idx);
	}
}

/* Are array writes (and, if @reads, array reads) queued on @sh? */
bool r5x_stripe_bios_queued(struct r5x_stripe *sh, bool reads)
{
	int i;

	for (i = 0; i < sh->conf->geom.raid_disks; i++)
		if (!r5x_blist_empty(&sh->dev[i].towrite) ||
		    !r5x_blist_empty(&sh->dev[i].written) ||
		    (reads && !r5x_blist_empty(&sh->dev[i].toread)))
			return true;
	return false;
}

/* Give @sh the identity of member sector @sector; caller holds conf->lock. */
static void init_stripe(struct r5x_conf *conf, struct r5x_stripe *sh, sector_t sector)
{
	lockdep_assert_held(&conf->lock);
	WARN_ON_ONCE(atomic_read(&sh->io_pending));
	WARN_ON_ONCE(r5x_stripe_bios_queued(sh, true));
	hlist_del_init(&sh->hash);
	sh->sector = sector;
	sh->pd_idx = r5x_parity_disk(&conf->geom, sector);
	sh->state = 0;
	sh->delay_deadline = 0;
	sh->sync_target = -1;
	init_devs(sh);
	hlist_add_head(&sh->hash, stripe_hash(conf, sector));
}

static struct r5x_stripe *find_stripe(struct r5x_conf *conf, sector_t sector)
{
	struct r5x_stripe *sh;

	lockdep_assert_held(&conf->lock);
	hlist_for_each_entry(sh, stripe_hash(conf, sector), hash)
		if (sh->sector == sector)
			return sh;
	return NULL;
}

/* Take a reference on a stripe that may have none: off its list. */
static void grab_stripe(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	lockdep_assert_held(&conf->lock);
	if (atomic_inc_return(&sh->count) != 1)
		return;
	if (list_empty(&sh->lru))
		return;	/* new stripe being set up */
	list_del_init(&sh->lru);
	if (test_and_clear_bit(R5X_STRIPE_DELAYED, &sh->state))
		conf->nr_delayed--;
	else if (!test_bit(R5X_STRIPE_HANDLE, &sh->state) &&
		 !test_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state))
		conf->active_stripes++;	/* was idle on inactive */
}

/*
 * Return @sector's stripe with a reference, from the cache or recycled from
 * the inactive LRU.  Sleeps while the cache is full (unless NOBLOCK) and
 * while the array is quiescing (unless NOQUIESCE).
 */
struct r5x_stripe *r5x_get_stripe(struct r5x_conf *conf, sector_t sector,
				  int flags)
{
	struct r5x_stripe *sh;

	spin_lock_irq(&conf->lock);
	for (;;) {
		if (conf->quiesce && !(flags & R5X_GS_NOQUIESCE)) {
			if (flags & R5X_GS_NOBLOCK)
				break;
			wait_event_lock_irq(conf->wait_for_quiesce,
					    !conf->quiesce, conf->lock);
			continue;
		}
		if (unlikely(r5x_fenced(conf, sector))) {
			/* a discard of that span is running (discard.c) */
			if (flags & R5X_GS_NOBLOCK)
				break;
			wait_event_lock_irq(conf->wait_for_fence,
					    !r5x_fenced(conf, sector),
					    conf->lock);
			continue;
		}
		sh = find_stripe(conf, sector);
		if (sh) {
			grab_stripe(conf, sh);
			spin_unlock_irq(&conf->lock);
			return sh;
		}
		if (!list_empty(&conf->inactive)) {
			sh = list_first_entry(&conf->inactive,
					      struct r5x_stripe, lru);
			list_del_init(&sh->lru);
			conf->active_stripes++;
			atomic_set(&sh->count, 1);
			init_stripe(conf, sh, sector);
			spin_unlock_irq(&conf->lock);
			return sh;
		}
		if (flags & R5X_GS_NOBLOCK)
			break;
		/* cache full: let raid5xd release pressure, sleep for a batch */
		r5x_count(conf, cache_waits, 1);
		conf->waiters++;
		r5x_wake_thread(conf);
		if (flags & R5X_GS_NOQUIESCE)
			/* a quiesce waits for us: wait for any free stripe */
			wait_event_lock_irq(conf->wait_for_stripe,
					    !list_empty(&conf->inactive),
					    conf->lock);
		else
			wait_event_lock_irq(conf->wait_for_stripe,
					    idle_stripes(conf) >= r5x_wake_batch(conf) ||
					    conf->quiesce || !conf->active_stripes,
					    conf->lock);
		conf->waiters--;
	}
	spin_unlock_irq(&conf->lock);
	return NULL;
}

/* The 1->0 step: place @sh on the list its state asks for. */
void __r5x_release_stripe(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	lockdep_assert_held(&conf->lock);
	WARN_ON_ONCE(!list_empty(&sh->lru));
	if (test_bit(R5X_STRIPE_HANDLE, &sh->state) &&
	    test_bit(R5X_STRIPE_SB_WAIT, &sh->state)) {
		list_add_tail(&sh->lru, &conf->sb_wait);
		/*
		 * Look again soon: what it waits for (an external metadata
		 * handler's acknowledgment) may come with no wake-up for us.
		 */
		if (!timer_pending(&conf->delay_timer))
			mod_timer(&conf->delay_timer,
				  jiffies + msecs_to_jiffies(R5X_SB_POLL_MS));
		return;
	}
	if (test_bit(R5X_STRIPE_HANDLE, &sh->state)) {
		if (test_bit(R5X_STRIPE_DELAYED, &sh->state) &&
		    !test_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state)) {
			list_add_tail(&sh->lru, &conf->delayed);
			conf->nr_delayed++;
			/* raid5xd arms the timer (r5x_activate_delayed) */
			r5x_floor_note(&conf->delay_floor, sh->delay_deadline);
		} else {
			clear_bit(R5X_STRIPE_DELAYED, &sh->state);
			list_add_tail(&sh->lru, &conf->handle);
		}
		r5x_wake_thread(conf);
		return;
	}
	WARN_ON_ONCE(test_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state));
	list_add_tail(&sh->lru, &conf->inactive);
	conf->active_stripes--;
	if (conf->nr_stripes > conf->max_nr_stripes)
		r5x_wake_thread(conf);	/* it shrinks the pool */
	/* the waiters' condition in r5x_get_stripe, both halves */
	if (conf->waiters && (idle_stripes(conf) >= r5x_wake_batch(conf) ||
			      !conf->active_stripes)) {
		r5x_count(conf, wakeups, 1);
		wake_up(&conf->wait_for_stripe);
	}
	if (conf->quiesce && !conf->active_stripes)
		wake_up(&conf->wait_for_quiesce);
	if (unlikely(r5x_fenced(conf, sh->sector)))
		wake_up(&conf->wait_for_fence);	/* the discard waits for it */
}

static bool lockless_release = true;
module_param(lockless_release, bool, 0644);
MODULE_PARM_DESC(lockless_release,
		 "an I/O completion hands a stripe's last reference to the handlers when the array's lock is busy, instead of waiting for it (default 1)");

/*
 * Give up a reference without conf->lock held.  The last one of a stripe
 * that goes idle is dropped here if the lock is free.  Otherwise (the
 * lock busy, or the stripe has work: the handlers must be woken for it
 * anyway) it is not dropped here: the stripe goes on conf->released with
 * it and the handlers are woken (the first to add to an empty list wakes
 * them; the others find them awake or about to drain), so a completion
 * never spins on the lock the handlers hold for their lists.  A stripe
 * already there (its reference taken again meanwhile and now given back)
 * takes the locked path, which cannot reach 0 then: the list's reference
 * is still held.
 */
void r5x_release_stripe(struct r5x_stripe *sh)
{
	struct r5x_conf *conf = sh->conf;
	unsigned long flags;

	if (atomic_add_unless(&sh->count, -1, 1))
		return;		/* not the last reference */
	if (!test_bit(R5X_STRIPE_HANDLE, &sh->state) &&
	    spin_trylock_irqsave(&conf->lock, flags)) {
		if (atomic_dec_and_test(&sh->count))
			__r5x_release_stripe(conf, sh);
		spin_unlock_irqrestore(&conf->lock, flags);
		return;
	}
	if (READ_ONCE(lockless_release) &&
	    !test_and_set_bit(R5X_STRIPE_ON_RELEASE, &sh->state)) {
		r5x_count(conf, handoffs, 1);
		if (llist_add(&sh->release_node, &conf->released))
			r5x_wake_thread(conf);
		return;
	}
	if (atomic_dec_and_lock_irqsave(&sh->count, &conf->lock, flags)) {
		__r5x_release_stripe(conf, sh);
		spin_unlock_irqrestore(&conf->lock, flags);
	}
}

/*
 * Drop the references riding on conf->released, oldest first, placing
 * each stripe that reaches 0 on its list.  Under conf->lock, by the
 * handlers before they look for work, and by a stop's last wait.
 */
void r5x_drain_released(struct r5x_conf *conf)
{
	struct llist_node *first;
	struct r5x_stripe *sh, *tmp;

	lockdep_assert_held(&conf->lock);
	if (llist_empty(&conf->released))
		return;
	first = llist_reverse_order(llist_del_all(&conf->released));
	llist_for_each_entry_safe(sh, tmp, first, release_node) {
		/* a release from now on may queue it again */
		clear_bit(R5X_STRIPE_ON_RELEASE, &sh->state);
		/* the bit clear before the list's reference goes */
		smp_mb__after_atomic();
		if (atomic_dec_and_test(&sh->count))
			__r5x_release_stripe(conf, sh);
	}
}

/* Is @sh in use: referenced, or queued for raid5xd? */
static bool stripe_in_use(struct r5x_stripe *sh)
{
	return atomic_read(&sh->count) ||
		test_bit(R5X_STRIPE_HANDLE, &sh->state);
}

bool r5x_cache_busy_at(struct r5x_conf *conf, sector_t sector)
{
	struct r5x_stripe *sh;

	lockdep_assert_held(&conf->lock);
	sh = find_stripe(conf, sector);
	return sh && stripe_in_use(sh);
}

/*
 * A discard fenced member sectors [*@pos, @hi): forget the cached stripes
 * there (their pages would outlive the discard), idle ones at the head of
 * the inactive LRU, reused first.  Stops at a stripe in use (returns true,
 * *@pos at it) or after @budget lookups.  Caller holds conf->lock.
 */
bool r5x_cache_forget(struct r5x_conf *conf, sector_t *pos, sector_t hi,
		      int budget)
{
	struct r5x_stripe *sh;

	lockdep_assert_held(&conf->lock);
	for (; *pos < hi && budget > 0; *pos += R5X_STRIPE_SECTORS, budget--) {
		sh = find_stripe(conf, *pos);
		if (!sh)
			continue;
		if (stripe_in_use(sh))
			return true;
		hlist_del_init(&sh->hash);
		list_move(&sh->lru, &conf->inactive);
	}
	return false;
}
