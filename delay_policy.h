/* SPDX-License-Identifier: GPL-2.0 */
/*
 * delay_policy.h - the delayed-list decisions, free of stripes and locks.
 *
 * delay_list.c and stripe_cache.c hold the lists and the lock; every choice
 * they make about a partial-stripe write (is it part of a sequential stream,
 * may it read now, how long may it wait, which delayed stripes may read, is
 * everything stalled, when to wake cache waiters, when a pre-reading stripe
 * goes ahead of the handle list) is one of these functions, computed from
 * plain numbers, so KUnit (delay_policy_test.c, raid5x_delay) checks them.
 * Times are jiffies; comparisons are wrap-safe (time_after).
 */
#ifndef RAID5X_DELAY_POLICY_H
#define RAID5X_DELAY_POLICY_H

#include <linux/types.h>

unsigned int r5x_stream_note(sector_t *ends, u8 *runs, unsigned int n,
			     unsigned int *next, sector_t start, sector_t end);
bool r5x_stream_seq(unsigned int run, unsigned int confirm);

u64 r5x_row_bytes(unsigned int chunk_sectors, unsigned int data_disks);
bool r5x_may_wait(bool seq, bool lone, u64 bytes_in_flight, u64 row_bytes);
u64 r5x_window_note(u64 peak, unsigned long *at, u64 in_flight,
		    unsigned long now, unsigned long span);
unsigned long r5x_delay_deadline(bool seq, unsigned long now,
				 unsigned long seq_wait);
bool r5x_delay_aged(unsigned long deadline, unsigned long now);

/* A stall: every active stripe is delayed, nothing in flight completes one. */
struct r5x_stall_in {
	unsigned long now;
	unsigned long write_seq;	/* write bios seen so far */
	int busy;			/* active stripes not delayed */
	bool delayed;			/* the delayed list is not empty */
	int writes_in_flight;		/* array write bios not completed */
};

enum r5x_stall {
	R5X_STALL_NO,		/* not stalled */
	R5X_STALL_WAIT,		/* maybe: look again after the grace */
	R5X_STALL_YES,		/* stalled: release every delayed stripe */
};

enum r5x_stall r5x_stall_check(const struct r5x_stall_in *in,
			       unsigned long grace, unsigned long *since,
			       unsigned long *stall_seq);

/* Activation of delayed stripes: the plan for one walk of the list. */
struct r5x_act_in {
	int preread_batch;	/* tunable: stripes pre-reading at once */
	int preread_active;	/* stripes holding pre-read permission */
	int active_stripes;	/* stripes not idle */
	int nr_delayed;		/* stripes on the delayed list */
	int waiters;		/* submitters sleeping for a free stripe */
	int wake_batch;		/* free stripes that wake them */
	bool quiesce;
	bool stalled;		/* r5x_stall_check() said R5X_STALL_YES */
};

struct r5x_act_plan {
	int budget;		/* stripes that may still be activated */
	bool pressure;		/* activate regardless of age */
	bool all;		/* stalled or quiescing: every stripe, no limit */
	unsigned long next;	/* earliest deadline of a stripe kept, or 0 */
};

enum r5x_act {
	R5X_ACT_KEEP,		/* stays delayed */
	R5X_ACT_AGED,		/* its deadline has passed */
	R5X_ACT_PRESSURE,	/* the cache or a quiesce needs it */
	R5X_ACT_IDLE,		/* stalled: nothing else can complete it */
};

/*
 * A lower bound on the deadlines of the stripes on the delayed list, so that
 * raid5xd, which looks for eligible delayed stripes before every stripe it
 * handles, walks the list only when one may have aged (or under pressure,
 * a stall or a quiesce) instead of every time.  @valid: @min (when @any)
 * bounds every delayed stripe's deadline; @any false: no delayed stripe.
 */
struct r5x_delay_floor {
	unsigned long min;
	bool valid;
	bool any;
};

void r5x_floor_note(struct r5x_delay_floor *f, unsigned long deadline);
bool r5x_floor_skip(const struct r5x_delay_floor *f,
		    const struct r5x_act_plan *p, unsigned long now);
void r5x_floor_walked(struct r5x_delay_floor *f, const struct r5x_act_plan *p,
		      bool whole);

int r5x_act_busy(const struct r5x_act_in *in);
void r5x_act_plan(const struct r5x_act_in *in, struct r5x_act_plan *p);
enum r5x_act r5x_act_step(struct r5x_act_plan *p, unsigned long deadline,
			  unsigned long now);

int r5x_wake_batch_of(int max_nr_stripes, int wake_batch_pct);
bool r5x_hold_first(int *bypass_count, int threshold);

#endif /* RAID5X_DELAY_POLICY_H */
