// SPDX-License-Identifier: GPL-2.0
/*
 * write_track.c - array writes in flight: conf->writes_in_flight and
 * conf->write_bytes_in_flight, which the write policy reads (the writers'
 * window, a lone writer, a stall), kept from a write bio's submission to
 * its end.
 *
 * raid5x ends an array write with one bio_endio per stripe it touched and
 * one for its submission (__bi_remaining), so only the bio's end_io learns
 * when the last of them went.  The bio md hands over (md's accounting
 * clone, or the submitter's bio when the queue keeps no I/O statistics)
 * keeps its end_io and private, saved in a small record from a mempool;
 * raid5x's own end_io runs in their place, counts the write out, puts them
 * back and calls the saved end_io, as bio_endio would have (it has done
 * everything else already).  Nothing else reads a write bio's end_io or
 * private while raid5x holds it.
 *
 * Before 2026-12-07 the tracker was a bio cloned from each write
 * (bio_alloc_clone: a bio from a bioset and two blkcg associations per
 * write); the profile of buffered 2M writes on 7.2 found the flusher
 * spending 24 samples in bio_associate_blkg(_from_css) for it
 * (docs/reports/profile-buffered2m-7.2-2026-12-07.md).  The module
 * parameter write_clone=1 brings that path back, to compare.
 */
#include <linux/bio.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "raid5x.h"
#include "write_track.h"

static bool write_clone;
module_param(write_clone, bool, 0644);
MODULE_PARM_DESC(write_clone,
		 "count array writes in flight through a cloned bio per write (the path before 2026-12-07), instead of borrowing the write's end_io (default 0)");

/* The borrowed end_io of a write raid5x holds. */
struct r5x_wtrack {
	struct r5x_conf *conf;
	bio_end_io_t *end_io;
	void *private;
	unsigned int size;	/* bytes, as counted in write_bytes_in_flight */
};

static struct kmem_cache *wtrack_cache;
static mempool_t *wtrack_pool;

/* write_clone: a clone whose completion ends the original. */
struct r5x_wbio {
	struct r5x_conf *conf;
	struct bio *orig;
	unsigned int size;
	struct bio clone;	/* must be last: bioset front_pad */
};

static struct bio_set wbio_set;

static void count_in(struct r5x_conf *conf, unsigned int size)
{
	/* deep_write shares the counters' line, written here anyway */
	if (atomic_inc_return(&conf->writes_in_flight) > 1)
		WRITE_ONCE(conf->deep_write, jiffies);
	atomic64_add(size, &conf->write_bytes_in_flight);
}

static void count_out(struct r5x_conf *conf, unsigned int size)
{
	atomic64_sub(size, &conf->write_bytes_in_flight);
	atomic_dec(&conf->writes_in_flight);
}

static void write_end(struct bio *bi)
{
	struct r5x_wtrack *wt = bi->bi_private;

	count_out(wt->conf, wt->size);
	bi->bi_end_io = wt->end_io;
	bi->bi_private = wt->private;
	mempool_free(wt, wtrack_pool);
	if (bi->bi_end_io)
		bi->bi_end_io(bi);
}

static void write_clone_end(struct bio *clone)
{
	struct r5x_wbio *wb = container_of(clone, struct r5x_wbio, clone);
	struct bio *orig = wb->orig;

	if (clone->bi_status)
		orig->bi_status = clone->bi_status;
	count_out(wb->conf, wb->size);
	bio_put(clone);
	bio_endio(orig);
}

/*
 * Count write @bi in until its end; returns the bio to attach to the
 * stripes and end (@bi itself, or with write_clone its clone).
 */
struct bio *r5x_track_write(struct r5x_conf *conf, struct bio *bi)
{
	unsigned int size = bi->bi_iter.bi_size;

	if (unlikely(READ_ONCE(write_clone))) {
		struct bio *clone = bio_alloc_clone(bi->bi_bdev, bi, GFP_NOIO,
						    &wbio_set);
		struct r5x_wbio *wb = container_of(clone, struct r5x_wbio, clone);

		wb->conf = conf;
		wb->orig = bi;
		wb->size = size;
		clone->bi_end_io = write_clone_end;
		bi = clone;
	} else {
		struct r5x_wtrack *wt = mempool_alloc(wtrack_pool, GFP_NOIO);

		wt->conf = conf;
		wt->end_io = bi->bi_end_io;
		wt->private = bi->bi_private;
		wt->size = size;
		bi->bi_end_io = write_end;
		bi->bi_private = wt;
	}
	count_in(conf, size);
	return bi;
}

int r5x_wtrack_init(void)
{
	int err;

	wtrack_cache = KMEM_CACHE(r5x_wtrack, 0);
	if (!wtrack_cache)
		return -ENOMEM;
	wtrack_pool = mempool_create_slab_pool(BIO_POOL_SIZE, wtrack_cache);
	if (!wtrack_pool) {
		err = -ENOMEM;
		goto out_cache;
	}
	err = bioset_init(&wbio_set, BIO_POOL_SIZE,
			  offsetof(struct r5x_wbio, clone), 0);
	if (err)
		goto out_pool;
	return 0;
out_pool:
	mempool_destroy(wtrack_pool);
out_cache:
	kmem_cache_destroy(wtrack_cache);
	return err;
}

void r5x_wtrack_exit(void)
{
	bioset_exit(&wbio_set);
	mempool_destroy(wtrack_pool);
	kmem_cache_destroy(wtrack_cache);
}
