/* SPDX-License-Identifier: GPL-2.0 */
/*
 * delay_list.h - stripes that need pre-reads wait here; batched activation.
 */
#ifndef RAID5X_DELAY_LIST_H
#define RAID5X_DELAY_LIST_H

#include "raid5x.h"

/* Defaults of the policy knobs (sysfs.c validates their ranges). */
#define R5X_DEF_PREREAD_BATCH	32	/* stripes pre-reading at once */
#define R5X_DEF_SEQ_DELAY_MS	100	/* max wait of a sequential partial stripe */
#define R5X_DEF_STALL_GRACE_MS	4	/* a full stall waits this long for new writes */
#define R5X_DEF_STREAM_CONFIRM	2	/* continuations in a row before a stream is one */
#define R5X_WINDOW_SPAN		(HZ / 10)	/* how long a peak window is believed */
#define R5X_DEF_BYPASS		1	/* raid5's IO_THRESHOLD */
#define R5X_DEF_WAKE_BATCH_PCT	25	/* wake cache waiters per quarter freed */

void r5x_delay_init(struct r5x_conf *conf);
void r5x_delay_stop(struct r5x_conf *conf);
void r5x_delay_wake_by(struct r5x_conf *conf, unsigned long when);
bool r5x_note_write(struct r5x_conf *conf, sector_t start, sector_t end);
bool r5x_may_preread(struct r5x_conf *conf, struct r5x_stripe *sh);
void r5x_activate_delayed(struct r5x_conf *conf);
struct r5x_stripe *r5x_next_stripe(struct r5x_conf *conf);
void r5x_preread_done(struct r5x_conf *conf, struct r5x_stripe *sh);

/* A write bio of a sequential stream (r5x_note_write) touched @sh. */
static inline void r5x_mark_stream(struct r5x_stripe *sh, bool seq)
{
	assign_bit(R5X_STRIPE_SEQ, &sh->state, seq);
}

#endif /* RAID5X_DELAY_LIST_H */
