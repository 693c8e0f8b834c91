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
 *    where an earlier write ended, which started where another ended:
 *    stream_confirm writes in a row, r5x_stream_seq) may wait up to
 *    seq_delay_ms for the rest of the stripe, if the writers' window
 *    (peak write bytes in flight over the last R5X_WINDOW_SPAN,
 *    r5x_window_note) is at least a row and the writer is not a lone
 *    one (r5x_lone_writer: one write in flight, as at queue depth 1,
 *    whose next write waits for this one).  Any other partial stripe is
 *    granted pre-reads at once (grant_now), outside the preread_batch
 *    bound: nothing in flight will complete it, so waiting for a slot
 *    only serialises it (a 64 KiB random writer at queue depth 8 touches
 *    128 stripes of a 512 KiB chunk array; 32 slots ran 2 of its bios at
 *    a time, 0.91x raid456), and the writer's own queue depth bounds how
 *    many there are.  They are
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
 * applies them to the lists, under conf->lock, and keeps the timer.  It is
 * the one place the rule lives: the handler asks r5x_may_preread() and
 * either reads or leaves the stripe parked; raid5xd takes its next stripe
 * from r5x_next_stripe(), which activates delayed stripes first; the cache
 * only files a released stripe on the list its flags name.
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
 * Record a write bio [start, end) and say whether it is part of a
 * sequential stream: it continues an earlier write that continued others,
 * stream_confirm writes in a row (r5x_stream_seq).  Tracks the ends of the
 * last few writes, so several interleaved streams are each recognised.
 */
bool r5x_note_write(struct r5x_conf *conf, sector_t start, sector_t end)
{
	unsigned int confirm = READ_ONCE(conf->tun.stream_confirm);
	unsigned long flags;
	unsigned int run;
	bool seq;

	spin_lock_irqsave(&conf->stream_lock, flags);
	WRITE_ONCE(conf->write_seq, conf->write_seq + 1);
	run = r5x_stream_note(conf->stream_end, conf->stream_runs,
			      ARRAY_SIZE(conf->stream_end), &conf->stream_next,
			      start, end);
	seq = r5x_stream_seq(run, confirm);
	WRITE_ONCE(conf->window,
		   r5x_window_note(conf->window, &conf->window_at,
				   atomic64_read(&conf->write_bytes_in_flight),
				   jiffies, R5X_WINDOW_SPAN));
	spin_unlock_irqrestore(&conf->stream_lock, flags);
	if (run && !seq)
		r5x_count(conf, stream_unconfirmed, 1);
	return seq;
}

/* @sh needs pre-reads it has no permission for: park it. */
static void delay_stripe(struct r5x_conf *conf, struct r5x_stripe *sh)
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

/* Make sure the timer wakes raid5xd by @when. */
static void arm_timer(struct r5x_conf *conf, unsigned long when)
{
	if (!timer_pending(&conf->delay_timer) ||
	    time_before(when, conf->delay_timer.expires))
		mod_timer(&conf->delay_timer, when);
}

/* raid5xd runs again by @when at the latest (safemode_kick's second look). */
void r5x_delay_wake_by(struct r5x_conf *conf, unsigned long when)
{
	arm_timer(conf, when);
}

/* Is everything parked (r5x_stall_check)?  Arms the timer for its grace. */
static bool stall_expired(struct r5x_conf *conf, int busy)
{
	unsigned long grace = msecs_to_jiffies(READ_ONCE(conf->tun.stall_grace_ms));
	struct r5x_stall_in in = {
		.now = jiffies,
		.write_seq = READ_ONCE(conf->write_seq),
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
 * a sequential stream, a stream whose window is smaller than a row, or a
 * lone writer's: r5x_lone_writer):
 * grant it pre-reads at once, instead of a trip through the lists, and
 * outside the delayed list's batch (R5X_STRIPE_PREREAD_NOW: not counted in
 * preread_active, so no lock).
 */
static bool grant_now(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	u64 row = r5x_row_bytes(conf->geom.chunk_sectors, conf->geom.data_disks);
	u64 window = max_t(u64, READ_ONCE(conf->window),
			   atomic64_read(&conf->write_bytes_in_flight));
	bool seq = test_bit(R5X_STRIPE_SEQ, &sh->state);
	/* only a sequential stripe may wait: no shared counter read for others */
	bool lone = seq && r5x_lone_writer(conf);

	if (r5x_may_wait(seq, lone, window, row))
		return false;
	set_bit(R5X_STRIPE_PREREAD_NOW, &sh->state);
	set_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state);
	r5x_count(conf, granted_now, 1);
	if (lone && r5x_may_wait(seq, false, window, row))
		r5x_count(conf, granted_lone, 1);
	return true;
}

/*
 * The pre-read gate: plan_writes found that @sh can be written only after
 * member reads.  True when it may read now (it holds a slot of the batch,
 * or nothing in flight will complete it: grant_now); else it is parked for
 * the delayed list and false is returned.
 */
bool r5x_may_preread(struct r5x_conf *conf, struct r5x_stripe *sh)
{
	if (test_bit(R5X_STRIPE_PREREAD_ACTIVE, &sh->state) ||
	    grant_now(conf, sh))
		return true;
	delay_stripe(conf, sh);
	return false;
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
	if (plan.budget <= 0)
		return;	/* r5x_preread_done wakes raid5xd when a slot frees */
	if (r5x_floor_skip(&conf->delay_floor, &plan, now)) {
		/* no deadline reached yet: be back for the earliest */
		if (conf->delay_floor.any)
			arm_timer(conf, conf->delay_floor.min);
		return;
	}
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
		/* full: it should never have waited (r5x_attach_bio) */
		if (r5x_stripe_overwritten(sh))
			r5x_count(conf, activated_full, 1);
		if (plan.budget == 0) {
			whole = false;
			break;
		}
	}
	r5x_floor_walked(&conf->delay_floor, &plan, whole);
	if (plan.next)
		arm_timer(conf, plan.next);
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

/*
 * Next stripe for raid5xd, with a reference; NULL if none.  Stripes on the
 * handle list go first, but a stripe granted pre-reads (hold list) is passed
 * over at most preread_bypass_threshold times in a row.
 */
struct r5x_stripe *r5x_next_stripe(struct r5x_conf *conf)
{
	struct r5x_stripe *sh = NULL;

	lockdep_assert_held(&conf->lock);
	r5x_drain_released(conf);
	r5x_activate_delayed(conf);
	if (!list_empty(&conf->handle)) {
		sh = list_first_entry(&conf->handle, struct r5x_stripe, lru);
		if (!list_empty(&conf->hold)) {
			if (r5x_hold_first(&conf->bypass_count,
					   conf->tun.preread_bypass_threshold))
				sh = list_first_entry(&conf->hold,
						      struct r5x_stripe, lru);
			else
				r5x_count(conf, bypassed, 1);
		}
	} else if (!list_empty(&conf->hold)) {
		sh = list_first_entry(&conf->hold, struct r5x_stripe, lru);
		conf->bypass_count = 0;
	}
	if (!sh)
		return NULL;
	list_del_init(&sh->lru);
	atomic_inc(&sh->count);
	clear_bit(R5X_STRIPE_HANDLE, &sh->state);
	return sh;
}
