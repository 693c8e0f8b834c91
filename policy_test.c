// SPDX-License-Identifier: GPL-2.0
/*
 * policy_test.c - KUnit suite raid5x_policy: the rmw/rcw decision.
 *
 * Each case describes one stripe with a string, one letter per member:
 *   P parity (uptodate p, failed !), F overwritten, w partly written,
 *   u uptodate untouched, . untouched, x failed untouched,
 *   X failed and overwritten, y failed and partly written;
 * and the expected choice: method, reads (member indexes), rebuild.
 */
#include <kunit/test.h>
#include "policy.h"

struct policy_case {
	const char *stripe;
	bool rmw_allowed;
	const char *method;	/* "rmw", "rcw", "noparity" */
	unsigned long want;
	int compute;
};

static const struct policy_case policy_cases[] = {
	/* full stripe: nothing to read */
	{ "FFFP", true, "rcw", 0, -1 },
	/* one of three written: rmw 2 reads, rcw 2 reads -> tie, rcw */
	{ "F..P", true, "rcw", BIT(1) | BIT(2), -1 },
	/* one of four written: rmw 2 reads beat rcw 3 */
	{ "F...P", true, "rmw", BIT(0) | BIT(4), -1 },
	/* ... unless rmw is not allowed (array not yet resynced) */
	{ "F...P", false, "rcw", BIT(1) | BIT(2) | BIT(3), -1 },
	/* partial write also needs the old data for rcw */
	{ "wF.P", true, "rcw", BIT(0) | BIT(2), -1 },
	/* uptodate pages cost nothing */
	{ "Fuup", true, "rcw", 0, -1 },
	{ "Fu..p", true, "rmw", BIT(0), -1 },
	/* parity failed: only partial pages need their old data */
	{ "Fw.!", true, "noparity", BIT(1), -1 },
	{ "FF.!", true, "noparity", 0, -1 },
	/* failed untouched member: rcw needs it, rmw does not */
	{ "Fx.P", true, "rmw", BIT(0) | BIT(3), -1 },
	/* failed member wholly overwritten: rcw without it */
	{ "XF.P", true, "rcw", BIT(2), -1 },
	/* failed member partly written: read all others, then rebuild */
	{ "yF.P", true, "rcw", BIT(1) | BIT(2) | BIT(3), -1 },
	{ "yuup", true, "rcw", 0, 0 },
};

static void parse(const char *s, struct r5x_wstate *d, int *n, int *pd)
{
	int i;

	for (i = 0; s[i]; i++) {
		char c = s[i];

		d[i] = (struct r5x_wstate){};
		d[i].uptodate = c == 'u' || c == 'p';
		d[i].failed = c == 'x' || c == 'X' || c == 'y' || c == '!';
		d[i].written = c == 'F' || c == 'w' || c == 'X' || c == 'y';
		d[i].overwrite = c == 'F' || c == 'X';
		if (c == 'P' || c == 'p' || c == '!')
			*pd = i;
	}
	*n = i;
}

static void policy_desc(const struct policy_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s", c->stripe,
		 c->rmw_allowed ? "" : " (no rmw)");
}

KUNIT_ARRAY_PARAM(policy, policy_cases, policy_desc);

static void policy_choice(struct kunit *test)
{
	const struct policy_case *pc = test->param_value;
	struct r5x_wstate d[16];
	struct r5x_wchoice c;
	const char *method;
	int n, pd = -1;

	parse(pc->stripe, d, &n, &pd);
	KUNIT_ASSERT_GE(test, pd, 0);
	r5x_choose_write(d, n, pd, pc->rmw_allowed, &c);
	method = c.no_parity ? "noparity" : c.rmw ? "rmw" : "rcw";
	KUNIT_EXPECT_STREQ(test, pc->method, method);
	KUNIT_EXPECT_EQ(test, pc->want, c.want);
	KUNIT_EXPECT_EQ(test, pc->compute, c.compute);
}

/* read errors halve per whole hour without one; a burst keeps counting */
static void policy_read_error_decay(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 20, r5x_decay_read_errors(20, 0, 1000));
	KUNIT_EXPECT_EQ(test, 20, r5x_decay_read_errors(20, 1000, 1000));
	KUNIT_EXPECT_EQ(test, 20, r5x_decay_read_errors(20, 1000, 1000 + 3599));
	KUNIT_EXPECT_EQ(test, 10, r5x_decay_read_errors(20, 1000, 1000 + 3600));
	KUNIT_EXPECT_EQ(test, 5, r5x_decay_read_errors(20, 1000, 1000 + 7300));
	KUNIT_EXPECT_EQ(test, 0, r5x_decay_read_errors(20, 1000, 1000 + 31 * 3600));
	KUNIT_EXPECT_EQ(test, 0, r5x_decay_read_errors(1 << 30, 1, 1 + 3600LL * 100000));
	/* a clock that went back, a negative count: no change, never < 0 */
	KUNIT_EXPECT_EQ(test, 7, r5x_decay_read_errors(7, 5000, 4000));
	KUNIT_EXPECT_EQ(test, 0, r5x_decay_read_errors(-3, 1000, 9000));
}

static struct kunit_case policy_kcases[] = {
	KUNIT_CASE_PARAM(policy_choice, policy_gen_params),
	KUNIT_CASE(policy_read_error_decay),
	{}
};

static struct kunit_suite policy_suite = {
	.name = "raid5x_policy",
	.test_cases = policy_kcases,
};

kunit_test_suite(policy_suite);
