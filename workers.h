/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workers.h - who handles stripes: raid5xd and the worker threads.
 */
#ifndef RAID5X_WORKERS_H
#define RAID5X_WORKERS_H

#include "raid5x.h"

int r5x_workers_init(struct r5x_conf *conf);
void r5x_workers_stop(struct r5x_conf *conf);
int r5x_handle_ready(struct r5x_conf *conf, void *scratch, int budget);

#endif /* RAID5X_WORKERS_H */
