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
 *    of the stripe, if the writers' window (peak write bytes in flight over
 *    the last R5X_WINDOW_SPAN, r5x_window_note) is at least a row.  Any
 *    other partial stripe is granted pre-reads at once
 *    (r5x_preread_grant_now), outside the preread_batch bound: nothing in
 *    flight will complete it, so waiting for a slot only serialises it (a
 *    64 KiB random writer at queue depth 8 touches 128 stripes of a 512 KiB
 *    chunk array; 32 slots ran 2 of its bios at a time, 0.91x raid456), and
 *    the writer's own queue depth bounds how many there are.  They are
 *    marked apart (R5X_STRIPE_PREREAD_NOW) and not counted in
 *    preread_active, so they never use up the delayed list's batch
 *    either.  REQ_SYNC plays no part: O_DIRECT writes get the same
 *    treatment (seed 001).
 *  - Nothing else in progress: when every active stripe is parked on the
 *    delayed list, no stripe in flight can complete them; with a single
 *    write bio in flight (a queue-depth-1 writer) they are eligible at
 *    once, otherwise after stall_grace_ms without any progress.  A stall
 *    releases every delayed stripe, not a batch (nothing else can make
 *    progress meanwhile), and holds until a new write bio arrives.
 *  - Pressure: when submitters sleep for free stripes and the stripes in
 *    flight will not free a wake-up batch by themselves, or under quiesce,
 *    delayed stripes are eligible regardless of age, so nothing starves.
 * A delayed stripe that receives the rest of its data leaves the delayed
 * list through the normal path and is written without any read.
 *
 * The decisions themselves are pure functions in delay_policy.c; this file
 * applies them to the lists, under conf->lock, and keeps the timer.
 */
#include <linux/jiffies.h>
#include "raid5x.h"
#include "delay_list.h"
#include "delay_policy.h"
#include "stripe_cache.h"

static void delay_timer_fn(struct timer_list *t)
{
	struct r5x_conf *conf = r5x_timer_container_of(conf, t, delay_timer);

	r5x_wake_thread(conf);
}

void r5x_delay_init(struct r5x_conf *conf)
{
	timer_setup(&conf->delay_timer, delay_timer_fn, 0);
}

void r5x_delay_stop(struct r5x_conf *conf)
{
	timer_delete_sync(&conf->delay_timer);
}

/*
 * Record a write bio [start, end) and say whether it continues an earlier
 * one (a sequential stream).  Tracks the ends of the last few writes, so
 * several interleaved streams are each recognised.
 */
bool r5x_note_write(struct r5x_conf *conf, sector_t start, sector_t end)
{
	unsigned long flags;
	bool seq;

	spin_lock_irqsave(&conf->lock, flags);
	conf->write_seq++;
	seq = r5x_stream_note(conf->stream_end, ARRAY_SIZE(conf->stream_end),
			      &conf->stream_next, start, end);
	conf->window = r5x_window_note(conf->window, &conf->window_at,
				       atomic64_read(&conf->write_bytes_in_flight),
				       jiffies, R5X_WINDOW_SPAN);
	spin_unlock_irqrestore(&conf->lock, flags);
	return seq;
}

/* Handler decided @sh needs pre-reads it has no permission for: park it. */
void r5x_delay_stripe(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	if (!sh->delay_deadline) {
		unsigned long wait;

		wait = msecs_to_jiffies(READ_ONCE(conf->tun.seq_delay_ms));
		sh->delay_deadline =
			r5x_delay_deadline(test_bit(R5X_STRIPE_SEQ, &sh->state),
					   jiffies, wait);
		r5x_count(conf, delayed, 1);
	}
	set_bit(R5X_STRIPE_DELAYED, &sh->state);
	set_bit(R5X_STRIPE_HANDLE, &sh->state);
}

/* @sh just went on the delayed list: make sure raid5xd looks at it in time. */
void r5x_delay_arm(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	lockdep_assert_held(&conf->lock);
	r5x_floor_note(&conf->delay_floor, sh->delay_deadline);
	if (time_after(sh->delay_deadline, jiffies)) {
		if (!timer_pending(&conf->delay_timer) ||
		    time_before(sh->delay_deadline, conf->delay_timer.expires))
			mod_timer(&conf->delay_timer, sh->delay_deadline);
	}
}

/* Is everything parked (r5x_stall_check)?  Arms the timer for its grace. */
static bool stall_expired(struct r5x_conf *conf, int busy)
{
	unsigned long grace = msecs_to_jiffies(READ_ONCE(conf->tun.stall_grace_ms));
	struct r5x_stall_in in = {
		.now = jiffies,
		.write_seq = conf->write_seq,
		.busy = busy,
		.delayed = !list_empty(&conf->delayed),
		.writes_in_flight = atomic_read(&conf->writes_in_flight),
	};

	switch (r5x_stall_check(&in, grace, &conf->stall_since,
				&conf->stall_seq)) {
	case R5X_STALL_YES:
		return true;
	case R5X_STALL_WAIT:
		mod_timer(&conf->delay_timer, in.now + grace);
		return false;
	default:
		return false;
	}
}

/*
 * A partial write that no bio in flight is going to complete (not part of
 * a sequential stream, or a stream whose window is smaller than a row):
 * grant it pre-reads at once, instead of a trip through the lists, and
 * outside the delayed list's batch (R5X_STRIPE_PREREAD_NOW: not counted in
 * preread_active, so no lock).
 */
bool r5x_preread_grant_now(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	u64 row = r5x_row_bytes(conf->geom.chunk_sectors, conf->geom.data_disks);
	u64 window = max_t(u64, READ_ONCE(conf->window),
			   atomic64_read(&conf->write_bytes_in_flight));

	if (r5x_may_wait(test_bit(R5X_STRIPE_SEQ, &sh->state), window, row))
		return false;
	set_bit(R5X_STRIPE_PREREAD_NOW, &sh->state);
	set_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state);
	r5x_count(conf, granted_now, 1);
	return true;
}

/* Move a bounded batch of eligible delayed stripes to the hold list. */
void r5x_activate_delayed(struct r5x_conf *conf)
{
	struct r5x_stripe *sh, *tmp;
	struct r5x_act_in in = {
		.preread_batch = conf->tun.preread_batch,
		.preread_active = conf->preread_active,
		.active_stripes = conf->active_stripes,
		.nr_delayed = conf->nr_delayed,
		.waiters = conf->waiters,
		.wake_batch = r5x_wake_batch(conf),
		.quiesce = conf->quiesce,
	};
	struct r5x_act_plan plan;
	unsigned long now = jiffies;
	bool whole = true;

	lockdep_assert_held(&conf->lock);
	in.stalled = stall_expired(conf, r5x_act_busy(&in));
	if (list_empty(&conf->delayed)) {
		/* a whole walk of nothing: no stripe, nothing kept */
		r5x_floor_walked(&conf->delay_floor, &(struct r5x_act_plan){},
				 true);
		return;
	}
	r5x_act_plan(&in, &plan);
	if (plan.budget <= 0 || r5x_floor_skip(&conf->delay_floor, &plan, now))
		return;
	r5x_count(conf, delay_walks, 1);
	list_for_each_entry_safe(sh, tmp, &conf->delayed, lru) {
		enum r5x_act why = r5x_act_step(&plan, sh->delay_deadline,
						now);

		if (why == R5X_ACT_KEEP)
			continue;
		list_move_tail(&sh->lru, &conf->hold);
		clear_bit(R5X_STRIPE_DELAYED, &sh->state);
		set_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state);
		conf->nr_delayed--;
		conf->preread_active++;
		r5x_count(conf, activated, 1);
		if (why == R5X_ACT_AGED)
			r5x_count(conf, activated_aged, 1);
		else if (why == R5X_ACT_PRESSURE)
			r5x_count(conf, activated_pressure, 1);
		else
			r5x_count(conf, activated_idle, 1);
		if (plan.budget == 0) {
			whole = false;
			break;
		}
	}
	r5x_floor_walked(&conf->delay_floor, &plan, whole);
	if (plan.next && (!timer_pending(&conf->delay_timer) ||
			  time_before(plan.next, conf->delay_timer.expires)))
		mod_timer(&conf->delay_timer, plan.next);
}

/* @sh's pre-read cycle is over (its writes completed): free the slot. */
void r5x_preread_done(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	unsigned long flags;

	sh->delay_deadline = 0;
	if (!test_and_clear_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state))
		return;
	if (test_and_clear_bit(R5X_STRIPE_PREREAD_NOW, &sh->state))
		return;	/* granted outside the batch: no slot to free */
	spin_lock_irqsave(&conf->lock, flags);
	conf->preread_active--;
	if (!list_empty(&conf->delayed))
		r5x_wake_thread(conf);
	spin_unlock_irqrestore(&conf->lock, flags);
}
