/* SPDX-License-Identifier: GPL-2.0 */
/*
 * write_track.h - array writes in flight, counted from submission to end.
 */
#ifndef RAID5X_WRITE_TRACK_H
#define RAID5X_WRITE_TRACK_H

struct bio;
struct r5x_conf;

int r5x_wtrack_init(void);
void r5x_wtrack_exit(void);
struct bio *r5x_track_write(struct r5x_conf *conf, struct bio *bi);

#endif /* RAID5X_WRITE_TRACK_H */
