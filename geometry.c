// SPDX-License-Identifier: GPL-2.0
/*
 * geometry.c - RAID5 sector mapping for md's six level-5 layouts.
 *
 * Row r (member sectors [r*chunk, (r+1)*chunk)) holds array chunks
 * r*data_disks .. r*data_disks + data_disks-1.  Parity position and the
 * order of the data chunks around it depend on the layout:
 *   left-*   parity walks from the last member down;  right-* walks up;
 *   *-asymmetric  data fills members 0.. skipping parity;
 *   *-symmetric   data starts on the member after parity, wrapping;
 *   parity-first / parity-last  fixed parity on member 0 / the last one.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include "geometry.h"

static const char *const layout_names[R5X_NR_LAYOUTS] = {
	"left-asymmetric", "right-asymmetric", "left-symmetric",
	"right-symmetric", "parity-first", "parity-last",
};

const char *r5x_layout_name(int layout)
{
	if (layout < 0 || layout >= R5X_NR_LAYOUTS)
		return "unknown";
	return layout_names[layout];
}

/* Validate and fill a geometry; on error *why says what is wrong. */
int r5x_geom_init(struct r5x_geom *g, int raid_disks, unsigned int chunk_sectors,
		  int layout, const char **why)
{
	if (raid_disks < 3 || raid_disks > 32) {
		*why = "member count must be 3 to 32";
		return -EINVAL;
	}
	if (!chunk_sectors || !is_power_of_2(chunk_sectors) ||
	    chunk_sectors < (PAGE_SIZE >> 9)) {
		*why = "chunk size must be a power of two of at least one page";
		return -EINVAL;
	}
	if (layout < 0 || layout >= R5X_NR_LAYOUTS) {
		*why = "layout is not one of md's level-5 layouts";
		return -EINVAL;
	}
	g->raid_disks = raid_disks;
	g->data_disks = raid_disks - 1;
	g->chunk_sectors = chunk_sectors;
	g->layout = layout;
	return 0;
}

/* Parity member of the row containing member sector @msector. */
int r5x_parity_disk(const struct r5x_geom *g, sector_t msector)
{
	u64 row = msector >> ilog2(g->chunk_sectors);
	int rot = (int)do_div(row, g->raid_disks);

	switch (g->layout) {
	case R5X_LEFT_ASYMMETRIC:
	case R5X_LEFT_SYMMETRIC:
		return g->data_disks - rot;
	case R5X_RIGHT_ASYMMETRIC:
	case R5X_RIGHT_SYMMETRIC:
		return rot;
	case R5X_PARITY_0:
		return 0;
	default:
		return g->data_disks;
	}
}

/* Member holding data index @dd (0..data_disks-1) of a row with parity @pd. */
static int data_disk(const struct r5x_geom *g, int dd, int pd)
{
	switch (g->layout) {
	case R5X_LEFT_ASYMMETRIC:
	case R5X_RIGHT_ASYMMETRIC:
		return dd >= pd ? dd + 1 : dd;
	case R5X_LEFT_SYMMETRIC:
	case R5X_RIGHT_SYMMETRIC:
		return (pd + 1 + dd) % g->raid_disks;
	case R5X_PARITY_0:
		return dd + 1;
	default:
		return dd;
	}
}

/* Inverse of data_disk(): data index of member @disk (not parity). */
int r5x_data_index(const struct r5x_geom *g, int disk, int pd)
{
	switch (g->layout) {
	case R5X_LEFT_ASYMMETRIC:
	case R5X_RIGHT_ASYMMETRIC:
		return disk > pd ? disk - 1 : disk;
	case R5X_LEFT_SYMMETRIC:
	case R5X_RIGHT_SYMMETRIC:
		return (disk - pd - 1 + g->raid_disks) % g->raid_disks;
	case R5X_PARITY_0:
		return disk - 1;
	default:
		return disk;
	}
}

void r5x_map_sector(const struct r5x_geom *g, sector_t asector, struct r5x_loc *loc)
{
	unsigned int shift = ilog2(g->chunk_sectors);
	u64 chunk = asector >> shift;
	sector_t offset = asector & (g->chunk_sectors - 1);
	int dd = (int)do_div(chunk, g->data_disks);	/* chunk is now the row */

	loc->msector = ((sector_t)chunk << shift) + offset;
	loc->pd_idx = r5x_parity_disk(g, loc->msector);
	loc->disk = data_disk(g, dd, loc->pd_idx);
}

/* Array sector stored at member sector @msector of data member @disk. */
sector_t r5x_array_sector(const struct r5x_geom *g, sector_t msector, int disk, int pd)
{
	unsigned int shift = ilog2(g->chunk_sectors);
	u64 row = msector >> shift;
	sector_t offset = msector & (g->chunk_sectors - 1);

	return ((row * g->data_disks + r5x_data_index(g, disk, pd)) << shift) + offset;
}
