/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - the write method decision, free of bios and stripes.
 *
 * Given each member's state in one stripe, decide between read-modify-write
 * and reconstruct-write and which members must be read first; and how a
 * member's count of read errors ages.  Pure, so KUnit (policy_test.c)
 * checks it over many cases.
 */
#ifndef RAID5X_POLICY_H
#define RAID5X_POLICY_H

#include <linux/types.h>

/* One member's state as the write decision sees it. */
struct r5x_wstate {
	bool uptodate;	/* its page holds current contents */
	bool failed;	/* cannot be read (missing, faulty, read error) */
	bool written;	/* array writes are queued on it */
	bool overwrite;	/* ... and they cover the whole page */
};

struct r5x_wchoice {
	bool rmw;		/* read-modify-write (else reconstruct-write) */
	bool no_parity;		/* parity member failed: write data only */
	int compute;		/* failed member to rebuild before writing, or -1 */
	unsigned long want;	/* members to read before writing */
};

void r5x_choose_write(const struct r5x_wstate *d, int n, int pd,
		      bool rmw_allowed, struct r5x_wchoice *c);

int r5x_decay_read_errors(int count, s64 last, s64 now);

#endif /* RAID5X_POLICY_H */
