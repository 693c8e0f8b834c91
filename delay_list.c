// SPDX-License-Identifier: GPL-2.0
/*
 * delay_list.c - when a partial-stripe write may read from the members.
 *
 * A write that does not cover its whole stripe needs pre-reads (old data and
 * parity for read-modify-write, or the untouched data for reconstruct-write).
 * Issued at once, those reads are wasted whenever the rest of the stripe is
 * about to arrive, which is what sequential writers do.  So such a stripe
 * waits on the delayed list, and delay_list.c decides when it may read:
 *
 *  - Batched activation (seed 000): at most preread_batch stripes hold
 *    pre-read permission at a time; activation moves a bounded batch from
 *    the delayed list to the hold list, oldest first.
 *  - Age bound: a stripe written by a sequential stream (its bio started
 *    where an earlier write ended) may wait up to seq_delay_ms for the rest
 *    of the stripe, if the writes in flight add up to at least a row.  Any
 *    other partial stripe is granted pre-reads at once when a slot is free
 *    (r5x_preread_grant_now), else it waits its turn.  REQ_SYNC
 *    plays no part: O_DIRECT writes get the same treatment (seed 001).
 *  - Nothing else in progress: when every active stripe is parked on the
 *    delayed list, no stripe in flight can complete them; with a single
 *    write bio in flight (a queue-depth-1 writer) they are eligible at
 *    once, otherwise after R5X_STALL_GRACE without any progress.  A stall
 *    releases every delayed stripe, not a batch (nothing else can make
 *    progress meanwhile), and holds until a new write bio arrives.
 *  - Pressure: when submitters sleep for free stripes and the stripes in
 *    flight will not free a wake-up batch by themselves, or under quiesce,
 *    delayed stripes are eligible regardless of age, so nothing starves.
 * A delayed stripe that receives the rest of its data leaves the delayed
 * list through the normal path and is written without any read.
 */
#include <linux/jiffies.h>
#include "raid5x.h"
#include "delay_list.h"
#include "stripe_cache.h"

static void delay_timer_fn(struct timer_list *t)
{
	struct r5x_conf *conf = from_timer(conf, t, delay_timer);

	r5x_wake_thread(conf);
}

void r5x_delay_init(struct r5x_conf *conf)
{
	timer_setup(&conf->delay_timer, delay_timer_fn, 0);
}

void r5x_delay_stop(struct r5x_conf *conf)
{
	del_timer_sync(&conf->delay_timer);
}

/*
 * Record a write bio [start, end) and say whether it continues an earlier
 * one (a sequential stream).  Tracks the ends of the last few writes, so
 * several interleaved streams are each recognised.
 */
bool r5x_note_write(struct r5x_conf *conf, sector_t start, sector_t end)
{
	unsigned int i, n = ARRAY_SIZE(conf->stream_end);
	bool seq = false;
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	conf->write_seq++;
	for (i = 0; i < n; i++) {
		if (conf->stream_end[i] == start && start) {
			conf->stream_end[i] = end;
			seq = true;
			break;
		}
	}
	if (!seq) {
		conf->stream_end[conf->stream_next] = end;
		conf->stream_next = (conf->stream_next + 1) % n;
	}
	spin_unlock_irqrestore(&conf->lock, flags);
	return seq;
}

/* Handler decided @sh needs pre-reads it has no permission for: park it. */
void r5x_delay_stripe(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	if (!sh->delay_deadline) {
		unsigned long wait = 0;

		if (test_bit(R5X_STRIPE_SEQ, &sh->state))
			wait = msecs_to_jiffies(READ_ONCE(conf->tun.seq_delay_ms));
		sh->delay_deadline = jiffies + wait;
		if (!sh->delay_deadline)
			sh->delay_deadline = 1;
		r5x_count(conf, delayed, 1);
	}
	set_bit(R5X_STRIPE_DELAYED, &sh->state);
	set_bit(R5X_STRIPE_HANDLE, &sh->state);
}

/* @sh just went on the delayed list: make sure raid5xd looks at it in time. */
void r5x_delay_arm(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	lockdep_assert_held(&conf->lock);
	if (time_after(sh->delay_deadline, jiffies)) {
		if (!timer_pending(&conf->delay_timer) ||
		    time_before(sh->delay_deadline, conf->delay_timer.expires))
			mod_timer(&conf->delay_timer, sh->delay_deadline);
	}
}

/*
 * Every active stripe is parked on the delayed list: no stripe in flight
 * can complete them.  A lone writer (one write bio in flight, a queue depth
 * of one) will not send the rest before this bio completes: release now.
 * With several bios in flight the submitter may be about to refill its
 * queue after reaping completions, so wait a jiffy for that first.
 */
static bool stall_expired(struct r5x_conf *conf, int busy)
{
	/* a declared stall lasts until a new write bio arrives */
	if (conf->stall_seq && conf->stall_seq == conf->write_seq)
		return true;
	conf->stall_seq = 0;
	if (busy || list_empty(&conf->delayed)) {
		conf->stall_since = 0;
		return false;
	}
	if (atomic_read(&conf->writes_in_flight) > 1) {
		if (!conf->stall_since) {
			conf->stall_since = jiffies ?: 1;
			mod_timer(&conf->delay_timer, jiffies + R5X_STALL_GRACE);
			return false;
		}
		if (time_before(jiffies, conf->stall_since + R5X_STALL_GRACE))
			return false;
	}
	conf->stall_since = 0;
	conf->stall_seq = conf->write_seq ?: 1;
	return true;
}

/*
 * Can the writes in flight fill a whole row (chunk * data members)?  If a
 * sequential writer keeps less than a row in flight (queue depth times
 * block size), its next bio is only sent after this one completes, so no
 * stripe of it can be completed by waiting: waiting would only add latency.
 */
static bool window_fills_row(struct r5x_conf *conf)
{
	u64 row = (u64)conf->geom.chunk_sectors * conf->geom.data_disks << 9;

	return atomic64_read(&conf->write_bytes_in_flight) >= row;
}

/*
 * A partial write that no bio in flight is going to complete (not part of
 * a sequential stream, or a stream whose window is smaller than a row):
 * grant it pre-reads at once while fewer than preread_batch stripes hold
 * them, instead of a trip through the lists.
 */
bool r5x_preread_grant_now(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	bool granted = false;

	if (test_bit(R5X_STRIPE_SEQ, &sh->state) && window_fills_row(conf))
		return false;
	spin_lock_irq(&conf->lock);
	if (conf->preread_active < conf->tun.preread_batch) {
		conf->preread_active++;
		set_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state);
		granted = true;
	}
	spin_unlock_irq(&conf->lock);
	if (granted)
		r5x_count(conf, granted_now, 1);
	return granted;
}

/* Move a bounded batch of eligible delayed stripes to the hold list. */
void r5x_activate_delayed(struct r5x_conf *conf)
{
	struct r5x_stripe *sh, *tmp;
	int budget = conf->tun.preread_batch - conf->preread_active;
	/*
	 * Stripes that are neither delayed nor on a plug will go idle by
	 * themselves; only when those cannot satisfy a sleeping submitter's
	 * batch must delayed stripes be pushed out to free the cache.
	 */
	int busy = conf->active_stripes - conf->nr_delayed;
	bool pressure = conf->quiesce ||
		(conf->waiters && busy < r5x_wake_batch(conf));
	bool stalled = stall_expired(conf, busy);
	unsigned long next = 0;

	lockdep_assert_held(&conf->lock);
	if (list_empty(&conf->delayed))
		return;
	/* nothing else can move: the whole parked set may read at once */
	if (stalled || conf->quiesce)
		budget = INT_MAX;
	if (budget <= 0)
		return;
	list_for_each_entry_safe(sh, tmp, &conf->delayed, lru) {
		bool aged = !time_after(sh->delay_deadline, jiffies);

		if (!aged && !pressure && !stalled) {
			if (!next || time_before(sh->delay_deadline, next))
				next = sh->delay_deadline;
			continue;
		}
		list_move_tail(&sh->lru, &conf->hold);
		clear_bit(R5X_STRIPE_DELAYED, &sh->state);
		set_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state);
		conf->nr_delayed--;
		conf->preread_active++;
		r5x_count(conf, activated, 1);
		if (aged)
			r5x_count(conf, activated_aged, 1);
		else if (pressure)
			r5x_count(conf, activated_pressure, 1);
		else
			r5x_count(conf, activated_idle, 1);
		if (--budget == 0)
			break;
	}
	if (next && (!timer_pending(&conf->delay_timer) ||
		     time_before(next, conf->delay_timer.expires)))
		mod_timer(&conf->delay_timer, next);
}

/* @sh's pre-read cycle is over (its writes completed): free the slot. */
void r5x_preread_done(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	unsigned long flags;

	sh->delay_deadline = 0;
	if (!test_and_clear_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state))
		return;
	spin_lock_irqsave(&conf->lock, flags);
	conf->preread_active--;
	if (!list_empty(&conf->delayed))
		r5x_wake_thread(conf);
	spin_unlock_irqrestore(&conf->lock, flags);
}
