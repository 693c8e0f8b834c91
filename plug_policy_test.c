// SPDX-License-Identifier: GPL-2.0
/*
 * plug_policy_test.c - KUnit suite raid5x_plug: plug coalescing decisions.
 *
 * What happens to a stripe the submitter is done with (no plug: release;
 * under a plug: hold it once, give back any further reference), and the
 * order of the held stripes at unplug (ascending sector, stable, for
 * sectors of any size), checked with list_sort as plug.c uses it.
 */
#include <kunit/test.h>
#include <linux/list.h>
#include <linux/list_sort.h>
#include "plug_policy.h"

static void plug_action(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, R5X_PLUG_RELEASE, r5x_plug_action(false, false));
	/* without a plug, a stale ON_PLUG bit plays no part */
	KUNIT_EXPECT_EQ(test, R5X_PLUG_RELEASE, r5x_plug_action(false, true));
	KUNIT_EXPECT_EQ(test, R5X_PLUG_HOLD, r5x_plug_action(true, false));
	KUNIT_EXPECT_EQ(test, R5X_PLUG_DROP, r5x_plug_action(true, true));
}

/*
 * A submitter touching stripes in the order @touch: the plug must end up
 * holding each stripe once (first touch) and give back every later
 * reference.  Stripes are small integers; held[] plays the ON_PLUG bit.
 */
static void plug_touches(struct kunit *test)
{
	static const int touch[] = { 3, 1, 3, 3, 2, 1, 0, 2 };
	bool held[4] = {};
	int hold = 0, drop = 0, order[4], n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(touch); i++) {
		int s = touch[i];

		switch (r5x_plug_action(true, held[s])) {
		case R5X_PLUG_HOLD:
			held[s] = true;
			order[n++] = s;
			hold++;
			break;
		case R5X_PLUG_DROP:
			drop++;
			break;
		default:
			KUNIT_FAIL(test, "touch %u of stripe %d released", i, s);
		}
	}
	/* 4 distinct stripes held, the other 4 references given back */
	KUNIT_EXPECT_EQ(test, 4, hold);
	KUNIT_EXPECT_EQ(test, 4, drop);
	KUNIT_EXPECT_EQ(test, 3, order[0]);
	KUNIT_EXPECT_EQ(test, 1, order[1]);
	KUNIT_EXPECT_EQ(test, 2, order[2]);
	KUNIT_EXPECT_EQ(test, 0, order[3]);
}

static void plug_order_cmp(struct kunit *test)
{
	KUNIT_EXPECT_LT(test, r5x_plug_order(8, 16), 0);
	KUNIT_EXPECT_GT(test, r5x_plug_order(16, 8), 0);
	KUNIT_EXPECT_EQ(test, 0, r5x_plug_order(16, 16));
	KUNIT_EXPECT_EQ(test, 0, r5x_plug_order(0, 0));
	/* a difference that does not fit an int (2^32 and 2^31 apart) */
	KUNIT_EXPECT_LT(test, r5x_plug_order(0, 1ULL << 32), 0);
	KUNIT_EXPECT_GT(test, r5x_plug_order(1ULL << 32, 0), 0);
	KUNIT_EXPECT_LT(test, r5x_plug_order(0, 1ULL << 31), 0);
	KUNIT_EXPECT_GT(test, r5x_plug_order(1ULL << 31, 0), 0);
	KUNIT_EXPECT_LT(test, r5x_plug_order(1, ~0ULL), 0);
	KUNIT_EXPECT_GT(test, r5x_plug_order(~0ULL, 1), 0);
}

struct held {
	struct list_head lru;
	sector_t sector;
	int touched;		/* position in the plug list before the sort */
};

static int held_cmp(void *priv, const struct list_head *a,
		    const struct list_head *b)
{
	return r5x_plug_order(list_entry(a, struct held, lru)->sector,
			      list_entry(b, struct held, lru)->sector);
}

static void plug_unplug_order(struct kunit *test)
{
	/* held in touch order; 1 << 32 would sort first with int arithmetic */
	static const sector_t sectors[] = {
		1ULL << 32, 256, 8, 1ULL << 40, 256, 0, 4096, (1ULL << 32) - 8,
	};
	/* expected: ascending; the two 256 keep their touch order (1, 4) */
	static const int expect[] = { 5, 2, 1, 4, 6, 7, 0, 3 };
	struct held h[ARRAY_SIZE(sectors)];
	struct held *p;
	LIST_HEAD(plug);
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(sectors); i++) {
		h[i].sector = sectors[i];
		h[i].touched = i;
		list_add_tail(&h[i].lru, &plug);
	}
	list_sort(NULL, &plug, held_cmp);
	i = 0;
	list_for_each_entry(p, &plug, lru) {
		KUNIT_ASSERT_LT(test, i, (int)ARRAY_SIZE(expect));
		KUNIT_EXPECT_EQ_MSG(test, expect[i], p->touched,
				    "position %d, sector %llu", i,
				    (unsigned long long)p->sector);
		i++;
	}
	KUNIT_EXPECT_EQ(test, (int)ARRAY_SIZE(expect), i);
}

static void plug_unplug_empty(struct kunit *test)
{
	LIST_HEAD(plug);

	/* an unplug with nothing held: sorting is a no-op */
	list_sort(NULL, &plug, held_cmp);
	KUNIT_EXPECT_TRUE(test, list_empty(&plug));
}

static struct kunit_case plug_kcases[] = {
	KUNIT_CASE(plug_action),
	KUNIT_CASE(plug_touches),
	KUNIT_CASE(plug_order_cmp),
	KUNIT_CASE(plug_unplug_order),
	KUNIT_CASE(plug_unplug_empty),
	{}
};

static struct kunit_suite plug_suite = {
	.name = "raid5x_plug",
	.test_cases = plug_kcases,
};

kunit_test_suite(plug_suite);
