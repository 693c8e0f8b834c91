/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference raid5x depends on.
 *
 * raid5x is built for Debian's 6.1 kernel; md's personality API changed in
 * 6.14 (struct md_submodule_head).  Later kernels get their adapters here.
 */
#ifndef RAID5X_COMPAT_H
#define RAID5X_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#error "raid5x supports kernels 6.1 to 6.13 (md personality API of 6.1)"
#endif

#include "md.h"
#include "md-bitmap.h"

/*
 * Write-intent bitmap calls.  raid5x drives the bitmap through md's 6.1
 * functions; 6.12 moved them behind mddev->bitmap_ops with other arguments.
 * Until raid5x is tested there, it refuses bitmaps on those kernels.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define R5X_HAVE_BITMAP	1
static inline void r5x_bm_startwrite(struct mddev *mddev, sector_t s,
				     unsigned long n)
{
	md_bitmap_startwrite(mddev->bitmap, s, n, 0);
}

static inline void r5x_bm_endwrite(struct mddev *mddev, sector_t s,
				   unsigned long n, bool ok)
{
	md_bitmap_endwrite(mddev->bitmap, s, n, ok, 0);
}

static inline void r5x_bm_unplug(struct mddev *mddev)
{
	md_bitmap_unplug(mddev->bitmap);
}

/* Must [s, s + *n) be synced?  *n: how far the answer holds. */
static inline bool r5x_bm_start_sync(struct mddev *mddev, sector_t s,
				     sector_t *n, bool degraded)
{
	return md_bitmap_start_sync(mddev->bitmap, s, n, degraded);
}

static inline void r5x_bm_cond_end_sync(struct mddev *mddev, sector_t s)
{
	md_bitmap_cond_end_sync(mddev->bitmap, s, false);
}

/*
 * The sync pass ended: at its end, or aborted at @s (the chunk it was in
 * stays to be synced).  Either way the bitmap's sync state is closed.
 */
static inline void r5x_bm_close_sync(struct mddev *mddev, bool aborted,
				     sector_t s)
{
	sector_t n;

	if (aborted)
		md_bitmap_end_sync(mddev->bitmap, s, &n, 1);
	md_bitmap_close_sync(mddev->bitmap);
}
#else
#define R5X_HAVE_BITMAP	0
static inline void r5x_bm_startwrite(struct mddev *mddev, sector_t s,
				     unsigned long n)
{
}

static inline void r5x_bm_endwrite(struct mddev *mddev, sector_t s,
				   unsigned long n, bool ok)
{
}

static inline void r5x_bm_unplug(struct mddev *mddev)
{
}

static inline bool r5x_bm_start_sync(struct mddev *mddev, sector_t s,
				     sector_t *n, bool degraded)
{
	*n = 0;
	return true;
}

static inline void r5x_bm_cond_end_sync(struct mddev *mddev, sector_t s)
{
}

static inline void r5x_bm_close_sync(struct mddev *mddev, bool aborted,
				     sector_t s)
{
}
#endif

#endif /* RAID5X_COMPAT_H */
