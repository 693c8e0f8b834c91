// SPDX-License-Identifier: GPL-2.0
/*
 * delay_policy.c - when a partial-stripe write may read: the decisions.
 *
 * The rules are described at the top of delay_list.c, which applies them
 * under conf->lock; here each rule is a function of plain numbers.
 */
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include "delay_policy.h"

/*
 * Record a write bio [@start, @end) among the ends of the last @n writes
 * (@ends, ring position *@next; @runs: how many writes in a row each slot's
 * stream has continued) and return how many writes in a row this one
 * continues: 0 for a new stream, 1 when it continues a write that itself
 * continued nothing, and so on (saturating at U8_MAX).  Several interleaved
 * streams are each recognised.  A write at sector 0 continues nothing
 * (0 marks an unused slot).
 */
unsigned int r5x_stream_note(sector_t *ends, u8 *runs, unsigned int n,
			     unsigned int *next, sector_t start, sector_t end)
{
	unsigned int i;

	for (i = 0; i < n && start; i++) {
		if (ends[i] == start) {
			ends[i] = end;
			if (runs[i] < U8_MAX)
				runs[i]++;
			return runs[i];
		}
	}
	ends[*next] = end;
	runs[*next] = 0;
	*next = (*next + 1) % n;
	return 0;
}

/*
 * Is a write that continues @run writes in a row part of a sequential
 * stream?  Only from the @confirm'th continuation on (stream_confirm).  A
 * random writer's bio now and then starts where a recent one ended (about
 * 2% of the hunt's random 64 KiB writes did, by chance or because fio's
 * random map hands out the block after a written one, not told apart):
 * with @confirm 1 such a bio's partial stripes waited
 * up to seq_delay_ms for a rest that never came, and set the random
 * writer's p99 (64 KiB writes on 64 KiB chunks, 6 members: 2.9x raid456's
 * on 6.1, 3.9x on 7.2).  Two such coincidences in a row are rare; a real
 * stream pays with its second write's partial stripes, once.
 */
bool r5x_stream_seq(unsigned int run, unsigned int confirm)
{
	return run && run >= confirm;
}

/* Bytes of data in one row: chunk * data members. */
u64 r5x_row_bytes(unsigned int chunk_sectors, unsigned int data_disks)
{
	return (u64)chunk_sectors * data_disks << 9;
}

/*
 * May a partial stripe wait for the rest of its data instead of reading
 * now?  Only if it belongs to a sequential stream whose writes in flight
 * add up to at least a row, and the writer is not @lone: a writer that
 * keeps less than a row in flight, or only ever one bio (a lone writer, as
 * a queue-depth-1 writer is, whose window is that bio alone), sends its
 * next bio only after this one completes, so no stripe of it is completed
 * by waiting, and waiting would only add latency: the partial rows at the
 * ends of a lone writer's 1 MiB bio waited for its whole rows to be
 * written before they started their reads.
 */
bool r5x_may_wait(bool seq, bool lone, u64 bytes_in_flight, u64 row_bytes)
{
	return seq && !lone && bytes_in_flight >= row_bytes;
}

/*
 * The writers' window: the most bytes of writes in flight seen in the last
 * @span jiffies (*@at: when that peak was set), given @in_flight now.  The
 * instantaneous figure dips whenever a row completes and its bios are
 * reaped at once (a 64 KiB qd32 writer drops from 2 MiB to 0.5 MiB until
 * it refills), and a stripe judged in such a dip would read for nothing;
 * the peak is what the writer keeps in flight.  A peak older than @span is
 * forgotten, so a writer that shrinks its window is believed soon.
 */
u64 r5x_window_note(u64 peak, unsigned long *at, u64 in_flight,
		    unsigned long now, unsigned long span)
{
	if (in_flight >= peak || time_after(now, *at + span)) {
		*at = now;
		return in_flight;
	}
	return peak;
}

/*
 * When a stripe parked at @now becomes eligible by age: a sequential one
 * after @seq_wait, any other at once.  Never 0 (0 means "not parked").
 */
unsigned long r5x_delay_deadline(bool seq, unsigned long now,
				 unsigned long seq_wait)
{
	unsigned long d = now + (seq ? seq_wait : 0);

	return d ?: 1;
}

/* A deadline is reached at the jiffy it names (not one later). */
bool r5x_delay_aged(unsigned long deadline, unsigned long now)
{
	return !time_after(deadline, now);
}

/*
 * Every active stripe is parked on the delayed list: no stripe in flight
 * can complete them.  A lone writer (one write bio in flight, a queue depth
 * of one) will not send the rest before this bio completes: a stall now.
 * With several bios in flight the submitter may be about to refill its
 * queue after reaping completions, so the stall is declared only after
 * @grace jiffies without a change (*@since: when it started, or 0).  A
 * declared stall (*@stall_seq: in->write_seq then, or 0) lasts until a new
 * write bio arrives.
 */
enum r5x_stall r5x_stall_check(const struct r5x_stall_in *in,
			       unsigned long grace, unsigned long *since,
			       unsigned long *stall_seq)
{
	if (*stall_seq && *stall_seq == in->write_seq)
		return R5X_STALL_YES;
	*stall_seq = 0;
	if (in->busy || !in->delayed) {
		*since = 0;
		return R5X_STALL_NO;
	}
	if (in->writes_in_flight > 1) {
		if (!*since) {
			*since = in->now ?: 1;
			return R5X_STALL_WAIT;
		}
		if (time_before(in->now, *since + grace))
			return R5X_STALL_NO;
	}
	*since = 0;
	*stall_seq = in->write_seq ?: 1;
	return R5X_STALL_YES;
}

/*
 * Stripes that are neither delayed nor on a plug will go idle by
 * themselves; only when those cannot satisfy a sleeping submitter's batch
 * must delayed stripes be pushed out to free the cache.
 */
int r5x_act_busy(const struct r5x_act_in *in)
{
	return in->active_stripes - in->nr_delayed;
}

/*
 * How many delayed stripes may be activated now, and on what grounds.  At
 * most preread_batch stripes hold pre-read permission; a stall or a quiesce
 * lifts the limit (nothing else can move).  Under cache pressure or quiesce,
 * age does not matter.
 */
void r5x_act_plan(const struct r5x_act_in *in, struct r5x_act_plan *p)
{
	p->pressure = in->quiesce ||
		(in->waiters && r5x_act_busy(in) < in->wake_batch);
	p->all = in->stalled || in->quiesce;
	p->budget = p->all ? INT_MAX : in->preread_batch - in->preread_active;
	p->next = 0;
}

/*
 * One delayed stripe, in list order (oldest first), with deadline
 * @deadline: activate it (the reason) or keep it (its deadline is folded
 * into p->next, for the timer).  The walk stops when p->budget is 0.
 */
enum r5x_act r5x_act_step(struct r5x_act_plan *p, unsigned long deadline,
			  unsigned long now)
{
	bool aged = r5x_delay_aged(deadline, now);

	if (p->budget <= 0)
		return R5X_ACT_KEEP;
	if (!aged && !p->pressure && !p->all) {
		if (!p->next || time_before(deadline, p->next))
			p->next = deadline;
		return R5X_ACT_KEEP;
	}
	p->budget--;
	if (aged)
		return R5X_ACT_AGED;
	return p->pressure ? R5X_ACT_PRESSURE : R5X_ACT_IDLE;
}

/*
 * A stripe with deadline @deadline joins the delayed list.  An invalid
 * floor stays invalid: the next walk computes it.
 */
void r5x_floor_note(struct r5x_delay_floor *f, unsigned long deadline)
{
	if (!f->valid)
		return;
	if (!f->any || time_before(deadline, f->min))
		f->min = deadline;
	f->any = true;
}

/*
 * May the walk of the delayed list be skipped?  Only when the floor is
 * valid and no deadline can have been reached by @now, and nothing (the
 * plan's pressure, stall or quiesce) activates stripes regardless of age.
 * Stripes that left the list since only make the bound lower than needed.
 */
bool r5x_floor_skip(const struct r5x_delay_floor *f,
		    const struct r5x_act_plan *p, unsigned long now)
{
	if (!f->valid || p->pressure || p->all)
		return false;
	return !f->any || !r5x_delay_aged(f->min, now);
}

/*
 * A walk ended: over the @whole list, the stripes it kept have p->next as
 * their earliest deadline (0: it kept none).  A walk cut short by the
 * batch bound did not see every deadline: the floor is unknown.
 */
void r5x_floor_walked(struct r5x_delay_floor *f, const struct r5x_act_plan *p,
		      bool whole)
{
	f->valid = whole;
	f->any = whole && p->next;
	f->min = f->any ? p->next : 0;
}

/* Sleepers for a free stripe wake when this many stripes are idle. */
int r5x_wake_batch_of(int max_nr_stripes, int wake_batch_pct)
{
	return max(1, max_nr_stripes * wake_batch_pct / 100);
}

/*
 * Both the handle list and the hold list (granted pre-reads) have work:
 * the handle list goes first, but the hold list is passed over at most
 * @threshold times in a row (*@bypass_count counts them).  True when the
 * hold list's stripe goes now.
 */
bool r5x_hold_first(int *bypass_count, int threshold)
{
	if (*bypass_count >= threshold) {
		*bypass_count = 0;
		return true;
	}
	(*bypass_count)++;
	return false;
}
