// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - read-modify-write or reconstruct-write.
 *
 * rmw reads the old contents of every written member and the old parity;
 * rcw reads every data member not wholly overwritten.  The one needing
 * fewer reads wins; a tie goes to rcw (as md raid5 does by default).  A
 * failed member whose old contents a method needs makes that method
 * impossible, except that rcw can first rebuild it from all the others.
 * When the parity member has failed there is no parity to keep: only
 * partially written members need their old contents.
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include "policy.h"

void r5x_choose_write(const struct r5x_wstate *d, int n, int pd,
		      bool rmw_allowed, struct r5x_wchoice *c)
{
	unsigned long rmw_want = 0, rcw_want = 0;
	bool rmw_ok = rmw_allowed, rcw_ok = true;
	int i, f = -1;

	c->compute = -1;
	c->no_parity = false;
	c->rmw = false;
	for (i = 0; i < n; i++)
		if (d[i].failed)
			f = i;
	if (f >= 0 && f == pd) {
		c->no_parity = true;
		c->want = 0;
		for (i = 0; i < n; i++)
			if (i != pd && d[i].written && !d[i].overwrite &&
			    !d[i].uptodate)
				c->want |= BIT(i);
		return;
	}
	for (i = 0; i < n; i++) {
		bool rmw_need = i == pd || d[i].written;
		bool rcw_need = i != pd && !d[i].overwrite;

		if (d[i].uptodate)
			continue;
		if (rmw_need) {
			if (d[i].failed)
				rmw_ok = false;
			else
				rmw_want |= BIT(i);
		}
		if (rcw_need) {
			if (d[i].failed)
				rcw_ok = false;
			else
				rcw_want |= BIT(i);
		}
	}
	if (!rcw_ok) {
		/* rebuild the failed member first: every other one is needed */
		rcw_want = 0;
		for (i = 0; i < n; i++)
			if (i != f && !d[i].uptodate && !d[i].failed)
				rcw_want |= BIT(i);
		if (!rcw_want)
			c->compute = f;
	}
	if (rmw_ok && hweight_long(rmw_want) < hweight_long(rcw_want)) {
		c->rmw = true;
		c->want = rmw_want;
		c->compute = -1;
	} else {
		c->want = rcw_want;
	}
}

/*
 * A member's read errors, @count of them, the last at @last (seconds, 0:
 * never), seen again at @now: the count halves for every whole hour
 * without an error, so a disk with a few latent sectors a month is never
 * failed for them, while a burst past md's max_read_errors still is.
 */
int r5x_decay_read_errors(int count, s64 last, s64 now)
{
	s64 hours;

	if (last <= 0 || now <= last || count <= 0)
		return max(count, 0);
	hours = (now - last) / 3600;
	return hours >= 31 ? 0 : count >> hours;
}
