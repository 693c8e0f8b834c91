// SPDX-License-Identifier: GPL-2.0
/*
 * delay_policy_test.c - KUnit suite raid5x_delay: the delayed-list policy.
 *
 * Every expected value below is worked out by hand from the rules at the
 * top of delay_list.c (the numbers are in the comments), not computed by
 * the code under test.  Edges: a deadline or grace reached exactly, the
 * batch bound, the bypass threshold, empty lists, jiffies wrap-around.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include "delay_policy.h"

static void delay_stream(struct kunit *test)
{
	sector_t ends[4] = {};
	u8 runs[4] = { 7, 7, 7, 7 };	/* a new stream's slot starts at 0 */
	unsigned int next = 0;

	/* a write at sector 0 continues nothing, not even an unused slot */
	KUNIT_EXPECT_EQ(test, 0u, r5x_stream_note(ends, runs, 4, &next, 0, 8));
	KUNIT_EXPECT_EQ(test, (sector_t)8, ends[0]);
	KUNIT_EXPECT_EQ(test, 0, (int)runs[0]);
	KUNIT_EXPECT_EQ(test, 1u, next);
	/* ... but its successor does: the first write in a row it continues */
	KUNIT_EXPECT_EQ(test, 1u, r5x_stream_note(ends, runs, 4, &next, 8, 16));
	KUNIT_EXPECT_EQ(test, (sector_t)16, ends[0]);
	KUNIT_EXPECT_EQ(test, 1u, next);
	/* a gap is a new stream; an overlap too */
	KUNIT_EXPECT_EQ(test, 0u, r5x_stream_note(ends, runs, 4, &next, 17, 24));
	KUNIT_EXPECT_EQ(test, 0u, r5x_stream_note(ends, runs, 4, &next, 12, 20));
	KUNIT_EXPECT_EQ(test, (sector_t)24, ends[1]);
	KUNIT_EXPECT_EQ(test, (sector_t)20, ends[2]);
	KUNIT_EXPECT_EQ(test, 0, (int)runs[1]);
	KUNIT_EXPECT_EQ(test, 0, (int)runs[2]);
	KUNIT_EXPECT_EQ(test, 3u, next);
	/* two interleaved streams are each recognised, each with its run */
	KUNIT_EXPECT_EQ(test, 2u, r5x_stream_note(ends, runs, 4, &next, 16, 32));
	KUNIT_EXPECT_EQ(test, 1u, r5x_stream_note(ends, runs, 4, &next, 24, 40));
	KUNIT_EXPECT_EQ(test, 3u, r5x_stream_note(ends, runs, 4, &next, 32, 48));
	KUNIT_EXPECT_EQ(test, 3u, next);
	/* the ring keeps the last 4 ends: two new streams push out slot 0 */
	KUNIT_EXPECT_EQ(test, 0u,
			r5x_stream_note(ends, runs, 4, &next, 1000, 1008));
	KUNIT_EXPECT_EQ(test, 0u, next);
	KUNIT_EXPECT_EQ(test, 0, (int)runs[3]);
	KUNIT_EXPECT_EQ(test, 0u,
			r5x_stream_note(ends, runs, 4, &next, 2000, 2008));
	KUNIT_EXPECT_EQ(test, 1u, next);
	KUNIT_EXPECT_EQ(test, 0, (int)runs[0]);
	/* slot 1 (ends at 40) is still there; sectors beyond 2^32 work */
	KUNIT_EXPECT_EQ(test, 2u,
			r5x_stream_note(ends, runs, 4, &next, 40, 1ULL << 33));
	KUNIT_EXPECT_EQ(test, 3u,
			r5x_stream_note(ends, runs, 4, &next, 1ULL << 33,
					(1ULL << 33) + 8));
	/* the stream that ended at 48 was forgotten: its run with it */
	KUNIT_EXPECT_EQ(test, 0u, r5x_stream_note(ends, runs, 4, &next, 48, 56));
	KUNIT_EXPECT_EQ(test, (sector_t)56, ends[1]);
	KUNIT_EXPECT_EQ(test, 0, (int)runs[1]);
	KUNIT_EXPECT_EQ(test, 2u, next);
	/* the run saturates at 255 instead of wrapping to "new stream" */
	runs[2] = 254;
	ends[2] = 5000;
	KUNIT_EXPECT_EQ(test, 255u,
			r5x_stream_note(ends, runs, 4, &next, 5000, 5008));
	KUNIT_EXPECT_EQ(test, 255u,
			r5x_stream_note(ends, runs, 4, &next, 5008, 5016));
	KUNIT_EXPECT_EQ(test, 2u, next);
}

static void delay_stream_confirm(struct kunit *test)
{
	/* a new stream is never one, whatever the confirmation asked */
	KUNIT_EXPECT_FALSE(test, r5x_stream_seq(0, 1));
	KUNIT_EXPECT_FALSE(test, r5x_stream_seq(0, 0));
	/* stream_confirm 1: the first continuation (the rule before) */
	KUNIT_EXPECT_TRUE(test, r5x_stream_seq(1, 1));
	/* the default, 2: a lone coincidence is not a stream, two in a row are */
	KUNIT_EXPECT_FALSE(test, r5x_stream_seq(1, 2));
	KUNIT_EXPECT_TRUE(test, r5x_stream_seq(2, 2));
	KUNIT_EXPECT_TRUE(test, r5x_stream_seq(255, 2));
	/* the bound of the tunable, 8 */
	KUNIT_EXPECT_FALSE(test, r5x_stream_seq(7, 8));
	KUNIT_EXPECT_TRUE(test, r5x_stream_seq(8, 8));
}

static void delay_window(struct kunit *test)
{
	/* 64 KiB chunk (128 sectors), 3 data members: 192 KiB = 196608 */
	u64 row = r5x_row_bytes(128, 3);

	KUNIT_EXPECT_EQ(test, 196608ULL, row);
	/* 512 MiB chunks, 255 data members: 127.5 GiB, beyond 32 bits */
	KUNIT_EXPECT_EQ(test, 136902082560ULL, r5x_row_bytes(1U << 20, 255));
	/* a sequential stripe waits only if a whole row is in flight */
	KUNIT_EXPECT_TRUE(test, r5x_may_wait(true, false, 196608, row));
	KUNIT_EXPECT_TRUE(test, r5x_may_wait(true, false, 1 << 20, row));
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(true, false, 196607, row));
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(true, false, 0, row));
	/* a lone writer's next bio waits for this one: nothing to wait for */
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(true, true, 1 << 20, row));
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(true, true, 196608, row));
	/* any other partial stripe is granted pre-reads at once */
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(false, false, 1 << 20, row));
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(false, false, 0, row));
	KUNIT_EXPECT_FALSE(test, r5x_may_wait(false, true, 1 << 20, row));
}

/*
 * The writers' window is the peak in flight over the last span (25 jiffies
 * here): a dip does not lower it, a figure equal to or above it raises it
 * (and refreshes its time) at once, and a peak older than the span is
 * replaced by the figure now.  Each step: bytes in flight and jiffies in,
 * the window and its time out, and whether a sequential stripe may then
 * wait for a 1.5 MiB row.
 */
struct window_step {
	u64 in_flight;
	unsigned long now;
	u64 window;
	unsigned long at;
	bool may_wait;
};

static void window_steps(struct kunit *test, u64 w, unsigned long at,
			 const struct window_step *st, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		w = r5x_window_note(w, &at, st[i].in_flight, st[i].now, 25);
		KUNIT_EXPECT_EQ_MSG(test, st[i].window, w, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, st[i].at, at, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, st[i].may_wait,
				    r5x_may_wait(true, false, w, 3 * 512 << 10),
				    "step %d", i);
	}
}

static void delay_window_peak(struct kunit *test)
{
	/* a 2 MiB peak set at jiffy 1000 */
	static const struct window_step dip[] = {
		{ 512 << 10, 1010, 2 << 20, 1000, true },	/* dip: kept */
		{ 512 << 10, 1025, 2 << 20, 1000, true },	/* still in span */
		{ 512 << 10, 1026, 512 << 10, 1026, false },	/* span over */
		{ 3 << 20, 1027, 3 << 20, 1027, true },		/* higher */
	};
	/* a 3 MiB peak set 5 jiffies before the jiffies counter wraps */
	static const struct window_step wrap[] = {
		{ 3 << 20, 10, 3 << 20, 10, true },		/* equal: refreshed */
		{ 1 << 20, 30, 3 << 20, 10, true },		/* dip in span */
	};

	window_steps(test, 2 << 20, 1000, dip, ARRAY_SIZE(dip));
	window_steps(test, 3 << 20, ULONG_MAX - 5, wrap, ARRAY_SIZE(wrap));
}

static void delay_age(struct kunit *test)
{
	/* seq_delay 100 ms at HZ=250 is 25 jiffies */
	KUNIT_EXPECT_EQ(test, 1025UL, r5x_delay_deadline(true, 1000, 25));
	KUNIT_EXPECT_EQ(test, 1000UL, r5x_delay_deadline(false, 1000, 25));
	KUNIT_EXPECT_EQ(test, 1000UL, r5x_delay_deadline(true, 1000, 0));
	/* 0 means "not parked": a deadline landing on 0 becomes 1 */
	KUNIT_EXPECT_EQ(test, 1UL, r5x_delay_deadline(false, 0, 25));
	KUNIT_EXPECT_EQ(test, 1UL, r5x_delay_deadline(true, ULONG_MAX, 1));
	/* wrap-around: ULONG_MAX - 5 + 10 = 4 */
	KUNIT_EXPECT_EQ(test, 4UL, r5x_delay_deadline(true, ULONG_MAX - 5, 10));
	/* aged at the deadline's own jiffy, not one later */
	KUNIT_EXPECT_FALSE(test, r5x_delay_aged(1025, 1024));
	KUNIT_EXPECT_TRUE(test, r5x_delay_aged(1025, 1025));
	KUNIT_EXPECT_TRUE(test, r5x_delay_aged(1025, 1026));
	/* across the wrap */
	KUNIT_EXPECT_FALSE(test, r5x_delay_aged(4, ULONG_MAX - 1));
	KUNIT_EXPECT_TRUE(test, r5x_delay_aged(ULONG_MAX - 1, 4));
}

static void delay_stall(struct kunit *test)
{
	struct r5x_stall_in in = {
		.now = 100, .write_seq = 5, .busy = 0, .delayed = true,
		.writes_in_flight = 1,
	};
	unsigned long since = 0, seq = 0;

	/* something not delayed is active: no stall, grace forgotten */
	in.busy = 1;
	since = 90;
	KUNIT_EXPECT_EQ(test, R5X_STALL_NO, r5x_stall_check(&in, 1, &since, &seq));
	KUNIT_EXPECT_EQ(test, 0UL, since);
	/* nothing delayed: no stall (the empty list) */
	in.busy = 0;
	in.delayed = false;
	since = 90;
	KUNIT_EXPECT_EQ(test, R5X_STALL_NO, r5x_stall_check(&in, 1, &since, &seq));
	KUNIT_EXPECT_EQ(test, 0UL, since);
	KUNIT_EXPECT_EQ(test, 0UL, seq);
	/* all delayed, a lone writer (1 bio in flight): stalled at once */
	in.delayed = true;
	KUNIT_EXPECT_EQ(test, R5X_STALL_YES, r5x_stall_check(&in, 1, &since, &seq));
	KUNIT_EXPECT_EQ(test, 5UL, seq);
	/* it lasts while no write bio arrives, whatever else changes */
	in.busy = 3;
	in.now = 500;
	KUNIT_EXPECT_EQ(test, R5X_STALL_YES, r5x_stall_check(&in, 1, &since, &seq));
	/* a new write bio ends it */
	in.write_seq = 6;
	KUNIT_EXPECT_EQ(test, R5X_STALL_NO, r5x_stall_check(&in, 1, &since, &seq));
	KUNIT_EXPECT_EQ(test, 0UL, seq);
	/* no write in flight at all: stalled at once too */
	in.busy = 0;
	in.writes_in_flight = 0;
	KUNIT_EXPECT_EQ(test, R5X_STALL_YES, r5x_stall_check(&in, 1, &since, &seq));
	KUNIT_EXPECT_EQ(test, 6UL, seq);
	/* several bios in flight: a grace of 2 jiffies first */
	in.write_seq = 7;
	in.writes_in_flight = 4;
	in.now = 1000;
	KUNIT_EXPECT_EQ(test, R5X_STALL_WAIT, r5x_stall_check(&in, 2, &since, &seq));
	KUNIT_EXPECT_EQ(test, 1000UL, since);
	KUNIT_EXPECT_EQ(test, R5X_STALL_NO, r5x_stall_check(&in, 2, &since, &seq));
	in.now = 1001;
	KUNIT_EXPECT_EQ(test, R5X_STALL_NO, r5x_stall_check(&in, 2, &since, &seq));
	KUNIT_EXPECT_EQ(test, 1000UL, since);
	/* the grace ends exactly at since + grace */
	in.now = 1002;
	KUNIT_EXPECT_EQ(test, R5X_STALL_YES, r5x_stall_check(&in, 2, &since, &seq));
	KUNIT_EXPECT_EQ(test, 0UL, since);
	KUNIT_EXPECT_EQ(test, 7UL, seq);
	/* progress during the grace starts it over */
	in.write_seq = 8;
	KUNIT_EXPECT_EQ(test, R5X_STALL_WAIT, r5x_stall_check(&in, 2, &since, &seq));
	in.busy = 1;
	KUNIT_EXPECT_EQ(test, R5X_STALL_NO, r5x_stall_check(&in, 2, &since, &seq));
	in.busy = 0;
	in.now = 1010;
	KUNIT_EXPECT_EQ(test, R5X_STALL_WAIT, r5x_stall_check(&in, 2, &since, &seq));
	KUNIT_EXPECT_EQ(test, 1010UL, since);
	/* a grace starting at jiffy 0 is recorded as 1 (0 = none) */
	since = 0;
	in.now = 0;
	in.write_seq = 9;
	KUNIT_EXPECT_EQ(test, R5X_STALL_WAIT, r5x_stall_check(&in, 2, &since, &seq));
	KUNIT_EXPECT_EQ(test, 1UL, since);
	/* a stall declared at write_seq 0 is recorded as 1 */
	in.write_seq = 0;
	in.writes_in_flight = 1;
	KUNIT_EXPECT_EQ(test, R5X_STALL_YES, r5x_stall_check(&in, 2, &since, &seq));
	KUNIT_EXPECT_EQ(test, 1UL, seq);
}

static void delay_plan(struct kunit *test)
{
	struct r5x_act_in in = {
		.preread_batch = 32, .preread_active = 30, .active_stripes = 10,
		.nr_delayed = 4, .waiters = 0, .wake_batch = 6,
	};
	struct r5x_act_plan p;

	/* batch 32, 30 pre-reading: 2 more */
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_EQ(test, 2, p.budget);
	KUNIT_EXPECT_FALSE(test, p.pressure);
	KUNIT_EXPECT_FALSE(test, p.all);
	KUNIT_EXPECT_EQ(test, 0UL, p.next);
	/* the batch is full; over-full after preread_batch was lowered */
	in.preread_active = 32;
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_EQ(test, 0, p.budget);
	in.preread_active = 40;
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_LE(test, p.budget, 0);
	/* a stall lifts the limit, without claiming pressure */
	in.stalled = true;
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_EQ(test, INT_MAX, p.budget);
	KUNIT_EXPECT_TRUE(test, p.all);
	KUNIT_EXPECT_FALSE(test, p.pressure);
	/* quiesce: no limit and pressure */
	in.stalled = false;
	in.quiesce = true;
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_EQ(test, INT_MAX, p.budget);
	KUNIT_EXPECT_TRUE(test, p.all);
	KUNIT_EXPECT_TRUE(test, p.pressure);
	/* waiters: busy = 10 active - 4 delayed = 6, not below wake_batch 6 */
	in.quiesce = false;
	in.preread_active = 0;
	in.waiters = 1;
	KUNIT_EXPECT_EQ(test, 6, r5x_act_busy(&in));
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_FALSE(test, p.pressure);
	KUNIT_EXPECT_EQ(test, 32, p.budget);
	/* ... below 7: the stripes in flight cannot free a batch */
	in.wake_batch = 7;
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_TRUE(test, p.pressure);
	KUNIT_EXPECT_FALSE(test, p.all);
	KUNIT_EXPECT_EQ(test, 32, p.budget);
	/* no one waiting: no pressure, however busy */
	in.waiters = 0;
	in.nr_delayed = 10;
	r5x_act_plan(&in, &p);
	KUNIT_EXPECT_FALSE(test, p.pressure);
}

/*
 * One walk of the delayed list as delay_list.c does it: each stripe in
 * order until the budget is spent.  Result: one letter per stripe, A aged,
 * P pressure, I idle (stall), K kept, - not reached.
 */
struct walk_case {
	const char *name;
	int budget;
	bool pressure, all;
	unsigned long now;
	int n;
	unsigned long deadline[6];
	const char *expect;
	unsigned long next;
	int budget_left;
};

static const struct walk_case walk_cases[] = {
	{ "empty list", 5, false, false, 100, 0, {}, "", 0, 5 },
	{ "age at the bound", 2, false, false, 100, 4, { 100, 200, 90, 50 },
	  "AKA-", 200, 0 },
	{ "batch limit 1", 1, false, false, 100, 3, { 50, 60, 70 },
	  "A--", 0, 0 },
	{ "batch limit 3 of 4 aged", 3, false, false, 100, 5,
	  { 99, 101, 98, 97, 96 }, "AKAA-", 101, 0 },
	{ "none aged: earliest deadline", 5, false, false, 100, 3,
	  { 150, 120, 130 }, "KKK", 120, 5 },
	{ "one jiffy short", 5, false, false, 100, 2, { 101, 101 },
	  "KK", 101, 5 },
	{ "pressure", 2, true, false, 100, 3, { 150, 120, 130 }, "PP-", 0, 0 },
	{ "pressure, aged counted as aged", 3, true, false, 100, 3,
	  { 150, 90, 130 }, "PAP", 0, 0 },
	{ "stall: all, no limit", INT_MAX, false, true, 100, 5,
	  { 150, 160, 100, 170, 180 }, "IIAII", 0, INT_MAX - 5 },
	{ "quiesce: all under pressure", INT_MAX, true, true, 100, 2,
	  { 150, 160 }, "PP", 0, INT_MAX - 2 },
	{ "wrap: aged across 0", 5, false, false, 5, 2,
	  { ULONG_MAX - 2, 6 }, "AK", 6, 4 },
	{ "wrap: next before 0", 5, false, false, ULONG_MAX - 10, 2,
	  { 3, ULONG_MAX - 1 }, "KK", ULONG_MAX - 1, 5 },
};

static void walk_desc(const struct walk_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(walk, walk_cases, walk_desc);

static void delay_walk(struct kunit *test)
{
	const struct walk_case *c = test->param_value;
	struct r5x_act_plan p = {
		.budget = c->budget, .pressure = c->pressure, .all = c->all,
	};
	static const char letter[] = {
		[R5X_ACT_KEEP] = 'K', [R5X_ACT_AGED] = 'A',
		[R5X_ACT_PRESSURE] = 'P', [R5X_ACT_IDLE] = 'I',
	};
	char got[8] = "------";
	int i;

	got[c->n] = '\0';
	for (i = 0; i < c->n; i++) {
		got[i] = letter[r5x_act_step(&p, c->deadline[i], c->now)];
		if (p.budget == 0)
			break;
	}
	KUNIT_EXPECT_STREQ(test, c->expect, got);
	KUNIT_EXPECT_EQ(test, c->next, p.next);
	KUNIT_EXPECT_EQ(test, c->budget_left, p.budget);
}

/* The plan and the walk together: the batch bound counts what is active. */
static void delay_batch(struct kunit *test)
{
	static const unsigned long aged[4] = { 10, 20, 30, 40 };
	struct r5x_act_in in = {
		.preread_batch = 4, .preread_active = 1, .active_stripes = 4,
		.nr_delayed = 4, .wake_batch = 1,
	};
	struct r5x_act_plan p;
	int i, n = 0;

	/* 4 aged stripes, batch 4, 1 already pre-reading: 3 go */
	r5x_act_plan(&in, &p);
	for (i = 0; i < 4 && p.budget > 0; i++)
		n += r5x_act_step(&p, aged[i], 100) != R5X_ACT_KEEP;
	KUNIT_EXPECT_EQ(test, 3, n);
	/* batch 1, none pre-reading: exactly 1 */
	in.preread_batch = 1;
	in.preread_active = 0;
	r5x_act_plan(&in, &p);
	for (i = 0, n = 0; i < 4 && p.budget > 0; i++)
		n += r5x_act_step(&p, aged[i], 100) != R5X_ACT_KEEP;
	KUNIT_EXPECT_EQ(test, 1, n);
	/* a spent budget activates nothing, even an aged stripe */
	KUNIT_EXPECT_EQ(test, R5X_ACT_KEEP, r5x_act_step(&p, 10, 100));
	/* the stall releases every one of them */
	in.stalled = true;
	in.preread_active = 1;
	r5x_act_plan(&in, &p);
	for (i = 0, n = 0; i < 4 && p.budget > 0; i++)
		n += r5x_act_step(&p, 1000, 100) == R5X_ACT_IDLE;
	KUNIT_EXPECT_EQ(test, 4, n);
}

static void delay_wake_batch(struct kunit *test)
{
	/* 256 stripes, 25 %: 64 */
	KUNIT_EXPECT_EQ(test, 64, r5x_wake_batch_of(256, 25));
	/* 399 * 25 / 100 = 99.75: 99 */
	KUNIT_EXPECT_EQ(test, 99, r5x_wake_batch_of(399, 25));
	/* never below 1 */
	KUNIT_EXPECT_EQ(test, 1, r5x_wake_batch_of(3, 25));
	KUNIT_EXPECT_EQ(test, 1, r5x_wake_batch_of(0, 25));
	KUNIT_EXPECT_EQ(test, 1, r5x_wake_batch_of(199, 0));
	KUNIT_EXPECT_EQ(test, 2, r5x_wake_batch_of(200, 1));
	KUNIT_EXPECT_EQ(test, 32768, r5x_wake_batch_of(32768, 100));
}

static void delay_bypass(struct kunit *test)
{
	static const struct { int threshold; const char *expect; } c[] = {
		{ 0, "HHHH" },		/* the hold list never waits */
		{ 1, "hHhHhH" },	/* raid5's default: alternate */
		{ 3, "hhhHhhhH" },
	};
	char got[16];
	unsigned int i, j;
	int count;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		count = 0;
		for (j = 0; c[i].expect[j]; j++)
			got[j] = r5x_hold_first(&count, c[i].threshold) ? 'H' : 'h';
		got[j] = '\0';
		KUNIT_EXPECT_STREQ_MSG(test, c[i].expect, got,
				       "threshold %d", c[i].threshold);
		KUNIT_EXPECT_EQ(test, 0, count);
	}
	/* threshold lowered below the running count: the hold list goes */
	count = 5;
	KUNIT_EXPECT_TRUE(test, r5x_hold_first(&count, 2));
	KUNIT_EXPECT_EQ(test, 0, count);
}

static void delay_floor(struct kunit *test)
{
	struct r5x_delay_floor f = {};
	struct r5x_act_plan plan = { .budget = 4 };
	struct r5x_act_plan pressed = { .budget = 4, .pressure = true };
	struct r5x_act_plan stalled = { .budget = INT_MAX, .all = true };

	/* a fresh floor is unknown: walk, and a stripe joining keeps it so */
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 100));
	r5x_floor_note(&f, 150);
	KUNIT_EXPECT_FALSE(test, f.valid);
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 100));

	/* a whole walk that kept stripes due at 150 and later: floor 150 */
	plan.next = 150;
	r5x_floor_walked(&f, &plan, true);
	KUNIT_EXPECT_TRUE(test, f.valid);
	KUNIT_EXPECT_TRUE(test, f.any);
	KUNIT_EXPECT_EQ(test, 150ul, f.min);
	/* before 150 nothing can have aged; at 150 exactly it has */
	KUNIT_EXPECT_TRUE(test, r5x_floor_skip(&f, &plan, 149));
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 150));
	/* pressure, a stall or a quiesce activate regardless of age */
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &pressed, 100));
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &stalled, 100));

	/* a later stripe leaves the floor; an earlier one lowers it */
	r5x_floor_note(&f, 400);
	KUNIT_EXPECT_EQ(test, 150ul, f.min);
	r5x_floor_note(&f, 120);
	KUNIT_EXPECT_EQ(test, 120ul, f.min);
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 130));

	/* a walk cut short by the batch bound did not see every deadline */
	r5x_floor_walked(&f, &plan, false);
	KUNIT_EXPECT_FALSE(test, f.valid);
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 0));

	/* an empty list (a whole walk keeping nothing): skip until a stripe */
	plan.next = 0;
	r5x_floor_walked(&f, &plan, true);
	KUNIT_EXPECT_TRUE(test, f.valid);
	KUNIT_EXPECT_FALSE(test, f.any);
	KUNIT_EXPECT_TRUE(test, r5x_floor_skip(&f, &plan, 1000));
	r5x_floor_note(&f, 900);
	KUNIT_EXPECT_TRUE(test, f.any);
	KUNIT_EXPECT_EQ(test, 900ul, f.min);
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 1000));

	/* jiffies wrap: a floor just past the wrap is still in the future */
	plan.next = 5;
	r5x_floor_walked(&f, &plan, true);
	KUNIT_EXPECT_TRUE(test, r5x_floor_skip(&f, &plan, ULONG_MAX - 2));
	KUNIT_EXPECT_FALSE(test, r5x_floor_skip(&f, &plan, 5));
	/* and a stripe due before the wrap lowers it */
	r5x_floor_note(&f, ULONG_MAX - 1);
	KUNIT_EXPECT_EQ(test, ULONG_MAX - 1, f.min);
}

static struct kunit_case delay_kcases[] = {
	KUNIT_CASE(delay_stream),
	KUNIT_CASE(delay_stream_confirm),
	KUNIT_CASE(delay_window),
	KUNIT_CASE(delay_window_peak),
	KUNIT_CASE(delay_age),
	KUNIT_CASE(delay_stall),
	KUNIT_CASE(delay_plan),
	KUNIT_CASE_PARAM(delay_walk, walk_gen_params),
	KUNIT_CASE(delay_batch),
	KUNIT_CASE(delay_wake_batch),
	KUNIT_CASE(delay_bypass),
	KUNIT_CASE(delay_floor),
	{}
};

static struct kunit_suite delay_suite = {
	.name = "raid5x_delay",
	.test_cases = delay_kcases,
};

kunit_test_suite(delay_suite);
