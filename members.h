/* SPDX-License-Identifier: GPL-2.0 */
/*
 * members.h - member lookup and state (members.c).
 */
#ifndef RAID5X_MEMBERS_H
#define RAID5X_MEMBERS_H

#include "raid5x.h"

struct md_rdev *r5x_get_rdev(struct r5x_conf *conf, int disk, bool for_write);
struct md_rdev *r5x_get_repl(struct r5x_conf *conf, int disk);
bool r5x_disk_failed(struct r5x_conf *conf, int disk);
bool r5x_disk_faulty(struct r5x_conf *conf, int disk);
bool r5x_slot_writable(struct r5x_conf *conf, int disk);
unsigned long r5x_failed_at_mask(struct r5x_conf *conf, sector_t sector);
struct md_rdev *r5x_get_reader(struct r5x_conf *conf, int disk, sector_t sector);
bool r5x_may_wait_record(struct r5x_conf *conf);
bool r5x_failure_unrecorded(struct r5x_conf *conf);

#endif /* RAID5X_MEMBERS_H */
