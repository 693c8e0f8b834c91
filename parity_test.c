// SPDX-License-Identifier: GPL-2.0
/*
 * parity_test.c - KUnit suite raid5x_parity.
 *
 * Checks r5x_xor_set/r5x_xor_into (which go through the kernel's optimised
 * xor_blocks, MAX_XOR_BLOCKS sources at a time) against a plain byte loop,
 * for every source count up to 32 members; rebuilds each block in turn from
 * the others; and checks that a planted one-byte corruption IS caught by
 * r5x_xor_is_zero, the test that check/repair relies on.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include "parity.h"

#define LEN	PAGE_SIZE
#define MAXN	32

struct bufs {
	void *b[MAXN + 2];
};

static void fill(struct kunit *test, struct bufs *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		s->b[i] = kunit_kmalloc(test, LEN, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s->b[i]);
		get_random_bytes(s->b[i], LEN);
	}
}

static void parity_matches_bytewise(struct kunit *test)
{
	struct bufs s;
	u8 *p = kunit_kmalloc(test, LEN, GFP_KERNEL);
	int n, i, j;

	KUNIT_ASSERT_NOT_NULL(test, p);
	fill(test, &s, MAXN);
	for (n = 1; n <= MAXN; n++) {
		r5x_xor_set(p, s.b, n, LEN);
		for (j = 0; j < LEN; j++) {
			u8 x = 0;

			for (i = 0; i < n; i++)
				x ^= ((u8 *)s.b[i])[j];
			if (p[j] != x) {
				KUNIT_FAIL(test, "%d sources: byte %d is %02x, want %02x",
					   n, j, p[j], x);
				return;
			}
		}
	}
}

static void parity_rebuilds_each_block(struct kunit *test)
{
	const int members = 6;
	struct bufs s;
	void *srcs[MAXN];
	void *out = kunit_kmalloc(test, LEN, GFP_KERNEL);
	int lost, i, k;

	KUNIT_ASSERT_NOT_NULL(test, out);
	fill(test, &s, members);
	/* member members-1 holds the parity of the others */
	r5x_xor_set(s.b[members - 1], s.b, members - 1, LEN);
	for (lost = 0; lost < members; lost++) {
		for (i = 0, k = 0; i < members; i++)
			if (i != lost)
				srcs[k++] = s.b[i];
		r5x_xor_set(out, srcs, members - 1, LEN);
		KUNIT_EXPECT_EQ_MSG(test, 0, memcmp(out, s.b[lost], LEN),
				    "block %d not rebuilt", lost);
	}
}

static void parity_detects_corruption(struct kunit *test)
{
	const int members = 5;
	struct bufs s;
	void *scratch = kunit_kmalloc(test, LEN, GFP_KERNEL);
	int victim;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	fill(test, &s, members);
	r5x_xor_set(s.b[members - 1], s.b, members - 1, LEN);
	KUNIT_EXPECT_TRUE(test, r5x_xor_is_zero(s.b, members, scratch, LEN));
	for (victim = 0; victim < members; victim++) {
		u8 *b = s.b[victim];
		int at = (victim * 977) % LEN;

		b[at] ^= 0x10;
		KUNIT_EXPECT_FALSE_MSG(test, r5x_xor_is_zero(s.b, members, scratch, LEN),
				       "flip in block %d byte %d not caught", victim, at);
		b[at] ^= 0x10;
	}
	/* r5x_xor_into twice is the identity (the rmw step) */
	memcpy(scratch, s.b[0], LEN);
	r5x_xor_into(scratch, s.b + 1, 3, LEN);
	r5x_xor_into(scratch, s.b + 1, 3, LEN);
	KUNIT_EXPECT_EQ(test, 0, memcmp(scratch, s.b[0], LEN));
}

static struct kunit_case parity_cases[] = {
	KUNIT_CASE(parity_matches_bytewise),
	KUNIT_CASE(parity_rebuilds_each_block),
	KUNIT_CASE(parity_detects_corruption),
	{}
};

static struct kunit_suite parity_suite = {
	.name = "raid5x_parity",
	.test_cases = parity_cases,
};

kunit_test_suite(parity_suite);
