/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel difference raid5x depends on.
 *
 * raid5x builds for Debian's 6.1, 6.12 and 7.x kernels from one tree.  What
 * a kernel offers is read from its headers at build time by
 * scripts/kfeatures.sh into r5x_features.h (next to md.h, in MDINC): one
 * macro per API difference, never a version number, because Debian's
 * stable kernels carry backports.  Only this file reads those macros; the
 * rest of raid5x calls the r5x_* adapters below.
 *
 * Differences that change behaviour, not only spelling:
 *  - Write-intent bitmap.  On 6.1 raid5x marks the bitmap itself, per stripe
 *    (r5x_bm_startwrite/endwrite).  Where md core marks it around
 *    md_account_bio (R5X_BITMAP_BY_CORE: 6.12.y, 7.x), raid5x only maps an
 *    array range to member sectors (raid5x_bitmap_sector) and flushes the
 *    bits before a stripe's data writes; md core ends the write when the
 *    array bio completes.  A kernel with bitmap_ops but without core
 *    marking (6.12.0-6.12.x before the backport) gets no bitmap: raid5x
 *    refuses to run an array that has one.  7.x's lockless bitmap
 *    (llbitmap) tracks sync state per bit with its own calls
 *    (blocks_synced, skip_sync_blocks) that raid5x does not make: refused.
 *  - recovery_disabled (6.1, 6.12): when a rebuilt member's bad-block log
 *    is full, raid5x disables recovery as raid5 does.  7.x has no such
 *    field: md fails the member itself when it cannot log a bad block.
 *  - Registration (R5X_HAVE_SUBMODULE, 6.14+): personalities live in an
 *    xarray keyed by level, so raid5x cannot share level 5 with raid456:
 *    claim_raid5 is refused there (raid5x.c).
 */
#ifndef RAID5X_COMPAT_H
#define RAID5X_COMPAT_H

#if !__has_include("r5x_features.h")
#error "r5x_features.h missing: run scripts/kfeatures.sh KDIR MDINC (make does)"
#endif
#include "r5x_features.h"

#include <linux/bio.h>
#include <linux/timer.h>
#include <linux/raid/xor.h>
#include "md.h"
#include "md-bitmap.h"

/* ---- md core ----------------------------------------------------------- */

/* Last sector known in sync (md's recovery_cp, renamed resync_offset). */
#if R5X_HAVE_RESYNC_OFFSET
#define r5x_resync_offset(mddev)	((mddev)->resync_offset)
#else
#define r5x_resync_offset(mddev)	((mddev)->recovery_cp)
#endif

/* md_write_start: false when the array is suspending (6.1). */
static inline bool r5x_write_start(struct mddev *mddev, struct bio *bi)
{
#if R5X_WRITE_START_VOID
	md_write_start(mddev, bi);
	return true;
#else
	return md_write_start(mddev, bi);
#endif
}

static inline int r5x_init_writes_pending(struct mddev *mddev)
{
#if R5X_HAVE_WRITES_PENDING_INIT
	return mddev_init_writes_pending(mddev);
#else
	return 0;	/* md core sets it up before run */
#endif
}

/* One stripe of a sync pass is done; @ok false ends the pass. */
static inline void r5x_done_sync(struct mddev *mddev, int sectors, bool ok)
{
#if R5X_HAVE_SYNC_ERROR
	md_done_sync(mddev, sectors);
	if (!ok)
		md_sync_error(mddev);
#else
	md_done_sync(mddev, sectors, ok);
#endif
}

/*
 * Member I/O of a sync pass, so md does not count it as other I/O when it
 * decides whether the members are idle (is_mddev_idle) and throttles the
 * sync to speed_limit_min.  7.x compares the members' I/O with the array's
 * own instead and needs no accounting.
 */
static inline void r5x_sync_acct(struct block_device *bdev, int sectors)
{
#if R5X_HAVE_SYNC_ACCT
	md_sync_acct(bdev, sectors);
#endif
}

#if R5X_BADBLOCK_SECTOR_T
typedef sector_t r5x_bblen_t;
#else
typedef int r5x_bblen_t;
#endif

/* The sync_request method's parameters (6.11 added max_sector). */
#if R5X_SYNC_MAX_SECTOR
#define R5X_SYNC_REQUEST_ARGS(mddev, sector_nr, skipped)	\
	struct mddev *mddev, sector_t sector_nr, sector_t max_sector_unused, \
	int *skipped
#else
#define R5X_SYNC_REQUEST_ARGS(mddev, sector_nr, skipped)	\
	struct mddev *mddev, sector_t sector_nr, int *skipped
#endif

/*
 * Recovery disabled after a failed bad-block record (md's convention on
 * 6.1 and 6.12: a number the personality copies from the mddev).
 */
#if R5X_HAVE_RECOVERY_DISABLED
#define R5X_HAVE_RECOVERY_OFF	1
static inline int r5x_recovery_off_init(struct mddev *mddev)
{
	return mddev->recovery_disabled - 1;
}

static inline bool r5x_recovery_off(struct mddev *mddev, int mine)
{
	return mddev->recovery_disabled == mine;
}

static inline int r5x_recovery_off_now(struct mddev *mddev)
{
	return mddev->recovery_disabled;
}
#else
#define R5X_HAVE_RECOVERY_OFF	0
static inline int r5x_recovery_off_init(struct mddev *mddev)
{
	return 0;
}

static inline bool r5x_recovery_off(struct mddev *mddev, int mine)
{
	return false;
}

static inline int r5x_recovery_off_now(struct mddev *mddev)
{
	return 0;
}
#endif

/*
 * Personality registration.  Up to 6.13 md keeps a list and picks the
 * first personality registered for a level or name, so raid5x can also
 * answer for level 5 (claim_raid5) when loaded before raid456.  From 6.14
 * md keeps an xarray keyed by level: a second level 5 cannot be
 * registered while raid456 is, and would keep raid456 (and with it raid4
 * and raid6) from loading if registered first.
 */
#if R5X_HAVE_SUBMODULE
#define R5X_CAN_CLAIM_RAID5	0
#define R5X_PERS_HEAD(pname, plevel)					\
	.head = {							\
		.type	= MD_PERSONALITY,				\
		.id	= (plevel),					\
		.name	= (pname),					\
		.owner	= THIS_MODULE,					\
	}
#define r5x_register_pers(p)	register_md_submodule(&(p)->head)
#define r5x_unregister_pers(p)	unregister_md_submodule(&(p)->head)
#else
#define R5X_CAN_CLAIM_RAID5	1
#define R5X_PERS_HEAD(pname, plevel)					\
	.name	= (pname),						\
	.level	= (plevel),						\
	.owner	= THIS_MODULE
#define r5x_register_pers(p)	register_md_personality(p)
#define r5x_unregister_pers(p)	unregister_md_personality(p)
#endif

/* ---- block layer, timers, xor ------------------------------------------ */

static inline struct bio_vec *r5x_inline_vecs(struct bio *bio)
{
#if R5X_HAVE_BIO_INLINE_VECS_FN
	return bio_inline_vecs(bio);
#else
	return bio->bi_inline_vecs;
#endif
}

#if R5X_HAVE_TIMER_CONTAINER_OF
#define r5x_timer_container_of(var, t, field) timer_container_of(var, t, field)
#else
#define r5x_timer_container_of(var, t, field) from_timer(var, t, field)
#endif

/* dest ^= srcs[0] ^ ... ^ srcs[n - 1] */
static inline void r5x_xor_gen(void *dest, void **srcs, int n,
			       unsigned int len)
{
#if R5X_HAVE_XOR_GEN
	if (n > 0)
		xor_gen(dest, srcs, n, len);
#else
	while (n > 0) {
		int k = min(n, MAX_XOR_BLOCKS);

		xor_blocks(k, len, dest, srcs);
		srcs += k;
		n -= k;
	}
#endif
}

/*
 * The array's queue limits: I/O sizes @io_min/@io_opt (bytes), the
 * members' limits stacked, and neither discard nor write-zeroes (raid5x
 * fails both).  No limit splits bios: raid5x takes any size.  dm-raid
 * arrays (no gendisk) keep dm's.
 */
static inline int r5x_set_queue_limits(struct mddev *mddev,
				       unsigned int io_min, unsigned int io_opt)
{
	struct md_rdev *rdev;
#if R5X_HAVE_STACK_LIMITS
	struct queue_limits lim;
	int err;

	if (!mddev->gendisk)
		return 0;
	md_init_stacking_limits(&lim);
	lim.io_min = io_min;
	lim.io_opt = io_opt;
	err = mddev_stack_rdev_limits(mddev, &lim, 0);
	if (err)
		return err;
	rdev_for_each(rdev, mddev)
		queue_limits_stack_bdev(&lim, rdev->bdev, rdev->data_offset,
					mddev->gendisk->disk_name);
	lim.max_hw_discard_sectors = 0;
	lim.max_write_zeroes_sectors = 0;
#if R5X_HAVE_WZEROES_UNMAP
	lim.max_hw_wzeroes_unmap_sectors = 0;
#endif
	return queue_limits_set(mddev->gendisk->queue, &lim);
#else
	if (!mddev->queue)
		return 0;
	blk_queue_io_min(mddev->queue, io_min);
	blk_queue_io_opt(mddev->queue, io_opt);
	rdev_for_each(rdev, mddev)
		disk_stack_limits(mddev->gendisk, rdev->bdev,
				  rdev->data_offset << 9);
	blk_queue_max_discard_sectors(mddev->queue, 0);
	blk_queue_max_write_zeroes_sectors(mddev->queue, 0);
	return 0;
#endif
}

/* ---- write-intent bitmap ----------------------------------------------- */

#if !R5X_HAVE_BITMAP_OPS || R5X_BITMAP_BY_CORE
#define R5X_HAVE_BITMAP	1
#else
#define R5X_HAVE_BITMAP	0
#endif

/* Can raid5x drive the bitmap @mddev has?  NULL if so, else why not. */
static inline const char *r5x_bitmap_unsupported(struct mddev *mddev)
{
#if R5X_HAVE_LLBITMAP
	if (mddev->bitmap_id == ID_LLBITMAP)
		return "the lockless bitmap (llbitmap) is not supported by raid5x";
#endif
	if (!mddev->bitmap && !mddev->bitmap_info.file &&
	    !mddev->bitmap_info.offset)
		return NULL;
	if (!R5X_HAVE_BITMAP)
		return "this kernel's md bitmap API is not supported by raid5x";
	return NULL;
}

/* Array write of [s, s + n) on a stripe: mark (6.1; md core does later). */
static inline void r5x_bm_startwrite(struct mddev *mddev, sector_t s,
				     unsigned long n)
{
#if !R5X_HAVE_BITMAP_OPS
	md_bitmap_startwrite(mddev->bitmap, s, n, 0);
#endif
}

static inline void r5x_bm_endwrite(struct mddev *mddev, sector_t s,
				   unsigned long n, bool ok)
{
#if !R5X_HAVE_BITMAP_OPS
	md_bitmap_endwrite(mddev->bitmap, s, n, ok, 0);
#endif
}

/* Write the marked bits out before the data writes they cover. */
static inline void r5x_bm_unplug(struct mddev *mddev)
{
#if R5X_HAVE_BITMAP_OPS
	mddev->bitmap_ops->unplug(mddev, true);
#else
	md_bitmap_unplug(mddev->bitmap);
#endif
}

/* Must [s, s + *n) be synced?  *n: how far the answer holds. */
static inline bool r5x_bm_start_sync(struct mddev *mddev, sector_t s,
				     sector_t *n, bool degraded)
{
#if R5X_HAVE_BITMAP_OPS
	return mddev->bitmap_ops->start_sync(mddev, s, n, degraded);
#else
	return md_bitmap_start_sync(mddev->bitmap, s, n, degraded);
#endif
}

static inline void r5x_bm_cond_end_sync(struct mddev *mddev, sector_t s)
{
#if R5X_HAVE_BITMAP_OPS
	mddev->bitmap_ops->cond_end_sync(mddev, s, false);
#else
	md_bitmap_cond_end_sync(mddev->bitmap, s, false);
#endif
}

/*
 * The sync pass ended: at its end, or aborted at @s (the chunk it was in
 * stays to be synced).  Either way the bitmap's sync state is closed.
 */
static inline void r5x_bm_close_sync(struct mddev *mddev, bool aborted,
				     sector_t s)
{
	sector_t n;

#if R5X_HAVE_BITMAP_OPS
	if (aborted)
		mddev->bitmap_ops->end_sync(mddev, s, &n);
	mddev->bitmap_ops->close_sync(mddev);
#else
	if (aborted)
		md_bitmap_end_sync(mddev->bitmap, s, &n, 1);
	md_bitmap_close_sync(mddev->bitmap);
#endif
}

#endif /* RAID5X_COMPAT_H */
