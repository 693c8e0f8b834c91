/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stripe_cache.h - the pool of stripes: allocation, hash lookup, references
 * and the lists a released stripe lands on (see LIST OWNERSHIP, raid5x.h).
 */
#ifndef RAID5X_STRIPE_CACHE_H
#define RAID5X_STRIPE_CACHE_H

#include "raid5x.h"

/* r5x_get_stripe() flags */
#define R5X_GS_NOBLOCK		1	/* return NULL instead of sleeping */
#define R5X_GS_NOQUIESCE	2	/* allowed while quiescing (sync, retries) */

int r5x_cache_init(struct r5x_conf *conf, int nr);
void r5x_cache_destroy(struct r5x_conf *conf);
int r5x_cache_resize(struct r5x_conf *conf, int nr);
void r5x_cache_shrink(struct r5x_conf *conf);

struct r5x_stripe *r5x_get_stripe(struct r5x_conf *conf, sector_t sector,
				  int flags);
void r5x_release_stripe(struct r5x_stripe *sh);
void __r5x_release_stripe(struct r5x_conf *conf, struct r5x_stripe *sh);
void r5x_drain_released(struct r5x_conf *conf);
bool r5x_stripe_bios_queued(struct r5x_stripe *sh, bool reads);
bool r5x_cache_busy_at(struct r5x_conf *conf, sector_t sector);
bool r5x_cache_forget(struct r5x_conf *conf, sector_t *pos, sector_t hi,
		      int budget);

/* Is member sector @sector inside a running discard's span?  Under lock. */
static inline bool r5x_fenced(struct r5x_conf *conf, sector_t sector)
{
	return sector < conf->fence_hi && sector >= conf->fence_lo;
}

bool r5x_lone_writer(struct r5x_conf *conf);
void r5x_wake_thread(struct r5x_conf *conf);
int r5x_wake_batch(struct r5x_conf *conf);

#endif /* RAID5X_STRIPE_CACHE_H */
