/* SPDX-License-Identifier: GPL-2.0 */
/*
 * discard.h - array discards (TRIM), whole rows on every member (discard.c).
 */
#ifndef RAID5X_DISCARD_H
#define RAID5X_DISCARD_H

#include "raid5x.h"

extern bool r5x_discard_safely;

int r5x_discard_init(void);
void r5x_discard_exit(void);
void r5x_discard_conf_init(struct r5x_conf *conf);
void r5x_discard_conf_stop(struct r5x_conf *conf);
unsigned int r5x_discard_granularity(const struct r5x_geom *g);
void r5x_discard_queue(struct r5x_conf *conf, struct bio *bi);

#endif /* RAID5X_DISCARD_H */
