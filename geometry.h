/* SPDX-License-Identifier: GPL-2.0 */
/*
 * geometry.h - RAID5 sector mapping, identical to md raid5's for level 5.
 *
 * Pure arithmetic on a struct r5x_geom: no bio, no mddev, so KUnit can test
 * every layout alone.  An array of @raid_disks members holds data in chunks
 * of @chunk_sectors; each stripe row (one chunk per member) has one parity
 * chunk at member pd_idx and data_disks = raid_disks - 1 data chunks.
 */
#ifndef RAID5X_GEOMETRY_H
#define RAID5X_GEOMETRY_H

#include <linux/types.h>

/* md's level-5 layouts (mdadm names in brackets) */
enum r5x_layout {
	R5X_LEFT_ASYMMETRIC = 0,	/* la */
	R5X_RIGHT_ASYMMETRIC = 1,	/* ra */
	R5X_LEFT_SYMMETRIC = 2,		/* ls, md's default */
	R5X_RIGHT_SYMMETRIC = 3,	/* rs */
	R5X_PARITY_0 = 4,		/* parity-first */
	R5X_PARITY_N = 5,		/* parity-last */
	R5X_NR_LAYOUTS
};

struct r5x_geom {
	int raid_disks;			/* members, parity included */
	int data_disks;			/* raid_disks - 1 */
	unsigned int chunk_sectors;	/* power of two, >= one page */
	int layout;			/* enum r5x_layout */
};

/* Where one array sector lives. */
struct r5x_loc {
	sector_t msector;	/* sector on the member (without data_offset) */
	int disk;		/* member holding the data */
	int pd_idx;		/* member holding the row's parity */
};

int r5x_geom_init(struct r5x_geom *g, int raid_disks, unsigned int chunk_sectors,
		  int layout, const char **why);
void r5x_map_sector(const struct r5x_geom *g, sector_t asector, struct r5x_loc *loc);
int r5x_parity_disk(const struct r5x_geom *g, sector_t msector);
int r5x_data_index(const struct r5x_geom *g, int disk, int pd_idx);
sector_t r5x_array_sector(const struct r5x_geom *g, sector_t msector, int disk, int pd_idx);
const char *r5x_layout_name(int layout);

#endif /* RAID5X_GEOMETRY_H */
