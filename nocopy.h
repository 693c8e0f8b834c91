/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nocopy.h - writing a drained array page to the members from the bio's own
 * page, without a copy into the stripe cache (sysfs skip_copy, default 0).
 */
#ifndef RAID5X_NOCOPY_H
#define RAID5X_NOCOPY_H

struct r5x_conf;
struct r5x_dev;
struct page;

struct page *r5x_nocopy_page(struct r5x_conf *conf, struct r5x_dev *dev);

#endif /* RAID5X_NOCOPY_H */
