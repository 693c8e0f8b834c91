/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plug_policy.h - plug coalescing decisions, free of stripes and plugs.
 *
 * plug.c keeps the per-plug list; what it does with a stripe the submitter
 * is done with, and the order it releases them in at unplug, are decided
 * here, so KUnit (plug_policy_test.c, raid5x_plug) checks them.
 */
#ifndef RAID5X_PLUG_POLICY_H
#define RAID5X_PLUG_POLICY_H

#include <linux/types.h>

enum r5x_plug_action {
	R5X_PLUG_RELEASE,	/* no plug: drop the reference, raid5xd handles it */
	R5X_PLUG_HOLD,		/* keep it, with the reference, until the unplug */
	R5X_PLUG_DROP,		/* already held on a plug: drop this reference */
};

enum r5x_plug_action r5x_plug_action(bool plugged, bool on_plug);
int r5x_plug_order(sector_t a, sector_t b);

#endif /* RAID5X_PLUG_POLICY_H */
