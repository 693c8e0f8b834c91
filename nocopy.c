// SPDX-License-Identifier: GPL-2.0
/*
 * nocopy.c - when a drained write may skip the copy into the stripe cache.
 *
 * raid5x computes parity from a page and sends the same page to a member.
 * If the page changed between the two, the member would hold data that the
 * parity does not cover: no error now, but a wrong block rebuilt from that
 * parity after another member fails.  A copy in the stripe cache cannot
 * change, so raid5x copies, unless the array page's one write bio carries a
 * page that cannot change either until the member writes are done:
 *
 *   - the page belongs to a page cache (not anonymous, not swap), and
 *   - it is under writeback, and its mapping has stable writes: the kernel
 *     makes every writer of the page wait until the writeback ends
 *     (folio_wait_stable in write_begin and page_mkwrite), and
 *   - that page cache is the array's own (its block device, or a file
 *     system whose device is the array or one of its partitions): its
 *     writeback is a write to this array, which ends only after raid5x
 *     completes the bio, and that is after the member writes.
 *
 * raid456's skip_copy takes every full page and is off by default: an
 * O_DIRECT writer, or a page cache without stable writes, can change the
 * page in flight.  Here such pages are copied; so are pages of a file
 * system on a device stacked on the array (LVM, dm-crypt), whose page
 * cache this test cannot tie to the array.
 *
 * Left open: a page of a file system on the array that is also the buffer
 * of an O_DIRECT write to the array's raw device, issued while the page is
 * under writeback and still in flight after the writeback ends.  That is a
 * raw write under a mounted file system, which corrupts the file system on
 * any RAID level.
 */
#include <linux/bio.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include "raid5x.h"
#include "nocopy.h"

/* The block device whose page cache @mapping is, or holds the file system. */
static struct block_device *mapping_bdev(struct address_space *mapping)
{
	struct inode *host = mapping->host;

	if (!host)
		return NULL;
	if (S_ISBLK(host->i_mode))
		return I_BDEV(host);
	return host->i_sb ? host->i_sb->s_bdev : NULL;
}

static bool page_stable(struct r5x_conf *conf, struct page *page)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;
	struct block_device *bdev;
	bool ok = false;

	if (!conf->mddev->gendisk || !folio_test_writeback(folio) ||
	    folio_test_anon(folio) || folio_test_swapcache(folio))
		return false;
	/*
	 * A writeback not ours can end now, and the inode go: inodes and
	 * super blocks are freed after an RCU grace period.
	 */
	rcu_read_lock();
	mapping = READ_ONCE(folio->mapping);
	if (mapping && r5x_mapping_stable(mapping)) {
		bdev = mapping_bdev(mapping);
		ok = bdev && bdev->bd_disk == conf->mddev->gendisk;
	}
	rcu_read_unlock();
	return ok && folio_test_writeback(folio);
}

/*
 * The page to write for @dev instead of a copy, or NULL (copy).  @dev has
 * drained writes; the page must be one bio's, whole and page-aligned.
 */
struct page *r5x_nocopy_page(struct r5x_conf *conf, struct r5x_dev *dev)
{
	struct r5x_bref *r = dev->written.head;
	struct bvec_iter it;
	struct bio_vec bv;
	struct bio *bio;

	if (!READ_ONCE(conf->tun.skip_copy) || !r || r->next)
		return NULL;
	bio = r->bio;
	if (bio->bi_iter.bi_sector > dev->lsector ||
	    bio_end_sector(bio) < dev->lsector + R5X_STRIPE_SECTORS)
		return NULL;
	it = bio->bi_iter;
	bio_advance_iter(bio, &it, (dev->lsector - bio->bi_iter.bi_sector) << 9);
	bv = bio_iter_iovec(bio, it);
	if (bv.bv_offset || bv.bv_len != R5X_STRIPE_SIZE)
		return NULL;
	return page_stable(conf, bv.bv_page) ? bv.bv_page : NULL;
}
