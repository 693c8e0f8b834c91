// SPDX-License-Identifier: GPL-2.0
/*
 * geometry_test.c - KUnit suite raid5x_geometry.
 *
 * Two references independent of geometry.c's arithmetic:
 *  1. md's layout pictures for four members, written out literally;
 *  2. a procedural walk that fills each row the way the layout is described
 *     in words (place parity, then hand out the row's data chunks member by
 *     member), checked against r5x_map_sector() for many member counts,
 *     chunk sizes, layouts and offsets, together with the inverse mapping.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include "geometry.h"

/* Literal pictures, 4 members, rows 0-3: chunk number or -1 for parity. */
static const int pictures[R5X_NR_LAYOUTS][4][4] = {
	[R5X_LEFT_ASYMMETRIC] = { { 0, 1, 2, -1 }, { 3, 4, -1, 5 },
				  { 6, -1, 7, 8 }, { -1, 9, 10, 11 } },
	[R5X_RIGHT_ASYMMETRIC] = { { -1, 0, 1, 2 }, { 3, -1, 4, 5 },
				   { 6, 7, -1, 8 }, { 9, 10, 11, -1 } },
	[R5X_LEFT_SYMMETRIC] = { { 0, 1, 2, -1 }, { 4, 5, -1, 3 },
				 { 8, -1, 6, 7 }, { -1, 9, 10, 11 } },
	[R5X_RIGHT_SYMMETRIC] = { { -1, 0, 1, 2 }, { 5, -1, 3, 4 },
				  { 7, 8, -1, 6 }, { 9, 10, 11, -1 } },
	[R5X_PARITY_0] = { { -1, 0, 1, 2 }, { -1, 3, 4, 5 },
			   { -1, 6, 7, 8 }, { -1, 9, 10, 11 } },
	[R5X_PARITY_N] = { { 0, 1, 2, -1 }, { 3, 4, 5, -1 },
			   { 6, 7, 8, -1 }, { 9, 10, 11, -1 } },
};

static void geometry_pictures(struct kunit *test)
{
	const unsigned int chunk = 128;	/* 64 KiB */
	struct r5x_geom g;
	const char *why;
	int layout, row, disk;

	for (layout = 0; layout < R5X_NR_LAYOUTS; layout++) {
		KUNIT_ASSERT_EQ(test, 0, r5x_geom_init(&g, 4, chunk, layout, &why));
		for (row = 0; row < 4; row++) {
			for (disk = 0; disk < 4; disk++) {
				int c = pictures[layout][row][disk];
				struct r5x_loc loc;

				if (c < 0) {
					int pd = r5x_parity_disk(&g, (sector_t)row * chunk);

					KUNIT_EXPECT_EQ_MSG(test, disk, pd,
							    "layout %d row %d", layout, row);
					continue;
				}
				r5x_map_sector(&g, (sector_t)c * chunk + 5, &loc);
				KUNIT_EXPECT_EQ_MSG(test, disk, loc.disk,
						    "layout %d chunk %d", layout, c);
				KUNIT_EXPECT_EQ(test, (sector_t)row * chunk + 5,
						loc.msector);
			}
		}
	}
}

/*
 * Reference: member of data index @dd in row @row, from the words:
 * left-* parity starts on the last member and moves down, right-* starts on
 * the first and moves up; asymmetric fills members from 0 skipping parity;
 * symmetric starts after parity and wraps; parity-first/last are fixed.
 */
static int ref_member(int layout, int n, u64 row, int dd, int *pd)
{
	int rot = (int)(row % n), m, k;

	switch (layout) {
	case R5X_LEFT_ASYMMETRIC:
	case R5X_LEFT_SYMMETRIC:
		*pd = n - 1 - rot;
		break;
	case R5X_RIGHT_ASYMMETRIC:
	case R5X_RIGHT_SYMMETRIC:
		*pd = rot;
		break;
	case R5X_PARITY_0:
		*pd = 0;
		break;
	default:
		*pd = n - 1;
	}
	if (layout == R5X_LEFT_SYMMETRIC || layout == R5X_RIGHT_SYMMETRIC) {
		m = *pd;
		for (k = 0; k <= dd; k++)
			m = (m + 1) % n;
		return m;
	}
	for (m = 0, k = -1; m < n; m++) {
		if (m == *pd)
			continue;
		if (++k == dd)
			return m;
	}
	return -1;
}

struct geom_case {
	int disks;
	unsigned int chunk_sectors;
};

static const struct geom_case geom_cases[] = {
	{ 3, 8 }, { 3, 128 }, { 4, 8 }, { 4, 1024 }, { 5, 16 }, { 6, 128 },
	{ 7, 64 }, { 8, 1024 }, { 12, 32 }, { 16, 128 }, { 16, 2048 }, { 32, 8 },
};

static void geom_case_desc(const struct geom_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%d members, %u KiB chunk",
		 c->disks, c->chunk_sectors / 2);
}

KUNIT_ARRAY_PARAM(geom, geom_cases, geom_case_desc);

static void geometry_reference(struct kunit *test)
{
	const struct geom_case *gc = test->param_value;
	const sector_t offsets[] = { 0, 1, 7, 8, 511 };
	struct r5x_geom g;
	const char *why;
	int layout;

	for (layout = 0; layout < R5X_NR_LAYOUTS; layout++) {
		u64 chunk;

		int err = r5x_geom_init(&g, gc->disks, gc->chunk_sectors,
					layout, &why);

		KUNIT_ASSERT_EQ(test, 0, err);
		for (chunk = 0; chunk < 3 * (u64)gc->disks * (gc->disks - 1); chunk++) {
			u64 row = chunk / (gc->disks - 1);
			int dd = chunk % (gc->disks - 1), pd, i;
			int want = ref_member(layout, gc->disks, row, dd, &pd);

			for (i = 0; i < ARRAY_SIZE(offsets); i++) {
				sector_t off = offsets[i] % gc->chunk_sectors;
				sector_t a = chunk * gc->chunk_sectors + off;
				struct r5x_loc loc;
				sector_t back;

				r5x_map_sector(&g, a, &loc);
				back = r5x_array_sector(&g, loc.msector, loc.disk,
							loc.pd_idx);
				/* first mismatch only: a wrong map fails everywhere */
				if (loc.disk != want || loc.pd_idx != pd ||
				    loc.msector != row * gc->chunk_sectors + off ||
				    back != a) {
					KUNIT_FAIL(test,
						   "layout %d sector %llu: disk %d/%d parity %d/%d member sector %llu/%llu inverse %llu",
						   layout, (u64)a, loc.disk, want,
						   loc.pd_idx, pd, (u64)loc.msector,
						   row * gc->chunk_sectors + off, (u64)back);
					return;
				}
			}
		}
	}
}

static void geometry_refuses(struct kunit *test)
{
	struct r5x_geom g;
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, -EINVAL, r5x_geom_init(&g, 2, 128, 2, &why));
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, -EINVAL, r5x_geom_init(&g, 4, 96, 2, &why));
	KUNIT_EXPECT_EQ(test, -EINVAL, r5x_geom_init(&g, 4, 4, 2, &why));
	KUNIT_EXPECT_EQ(test, -EINVAL, r5x_geom_init(&g, 4, 128, 6, &why));
	KUNIT_EXPECT_EQ(test, -EINVAL, r5x_geom_init(&g, 4, 128, -1, &why));
	KUNIT_EXPECT_EQ(test, 0, r5x_geom_init(&g, 32, 8, 5, &why));
}

static struct kunit_case geometry_cases[] = {
	KUNIT_CASE(geometry_pictures),
	KUNIT_CASE_PARAM(geometry_reference, geom_gen_params),
	KUNIT_CASE(geometry_refuses),
	{}
};

static struct kunit_suite geometry_suite = {
	.name = "raid5x_geometry",
	.test_cases = geometry_cases,
};

kunit_test_suite(geometry_suite);
