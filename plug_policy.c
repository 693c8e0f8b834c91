// SPDX-License-Identifier: GPL-2.0
/*
 * plug_policy.c - what plug.c does with a stripe, and in which order.
 */
#include "plug_policy.h"

/*
 * The submitter is done with a stripe it queued work on.  Without a block
 * plug, raid5xd may take it now.  Under a plug it is held until the unplug,
 * so the rest of a sequential write reaches it before raid5xd looks at it;
 * one held reference suffices, so a stripe already on a plug (@on_plug, this
 * submitter's or another's) gives its extra reference back.
 */
enum r5x_plug_action r5x_plug_action(bool plugged, bool on_plug)
{
	if (!plugged)
		return R5X_PLUG_RELEASE;
	return on_plug ? R5X_PLUG_DROP : R5X_PLUG_HOLD;
}

/*
 * Unplug releases the held stripes in ascending sector order (a list_sort
 * comparison: negative, 0, positive), so raid5xd issues member writes in
 * order.  Compared, not subtracted: sectors do not fit an int.
 */
int r5x_plug_order(sector_t a, sector_t b)
{
	return a > b ? 1 : (a < b ? -1 : 0);
}
