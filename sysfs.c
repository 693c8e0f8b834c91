// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - raid5x's attributes in /sys/block/mdX/md/.
 *
 * Every tunable is one row of R5X_TUNABLES: name, field, range and help; the
 * same row gives its show and store.  A store parses a decimal integer,
 * rejects anything out of range with -EINVAL and then changes nothing.
 * Stores take md's reconfig mutex and check that raid5x still runs the
 * array, so a store racing with a personality change cannot touch a conf
 * that is not ours.  The counters are files of their own in raid5x_stats/.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include "raid5x.h"
#include "stripe_cache.h"

/*
 * Lock the array and return our conf, or NULL if raid5x is not running it.
 * The store gives up its file's active reference while it waits for the
 * reconfig mutex (as md does for array_state "clear"): a level change
 * that moves the array to another personality removes r5x_attr_group
 * under that mutex (r5x_sysfs_del), and would otherwise wait for this
 * store while it waits for the mutex.  @kn is for unlock_conf().
 */
static struct r5x_conf *lock_conf(struct mddev *mddev,
				  const struct attribute *attr,
				  struct kernfs_node **kn, int *err)
{
	*kn = sysfs_break_active_protection(&mddev->kobj, attr);
	*err = mddev_lock(mddev);
	if (*err)
		goto fail;
	if (!r5x_is_ours(mddev) || !mddev->private) {
		mddev_unlock(mddev);
		*err = -ENODEV;
		goto fail;
	}
	return mddev->private;
fail:
	if (*kn)
		sysfs_unbreak_active_protection(*kn);
	return NULL;
}

static void unlock_conf(struct mddev *mddev, struct kernfs_node *kn)
{
	mddev_unlock(mddev);
	if (kn)
		sysfs_unbreak_active_protection(kn);
}

static int parse_int(const char *page, int min, int max, int *val)
{
	int v;

	if (kstrtoint(page, 10, &v) || v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

static ssize_t show_int(struct mddev *mddev, char *page, size_t off)
{
	struct r5x_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = r5x_is_ours(mddev) ? mddev->private : NULL;
	if (conf)
		ret = sysfs_emit(page, "%d\n", *(int *)((char *)conf + off));
	spin_unlock(&mddev->lock);
	return ret;
}

/*
 * Tunables: X(name, field in struct r5x_conf, min, max (-1: stripe_cache_size))
 * Meanings and defaults: docs/sysfs.md.
 */
#define R5X_TUNABLES(X)							\
	X(preread_bypass_threshold, tun.preread_bypass_threshold, 0, -1) \
	X(preread_batch,            tun.preread_batch,            1, -1) \
	X(seq_delay_ms,             tun.seq_delay_ms,             0, 1000) \
	X(stall_grace_ms,           tun.stall_grace_ms,           0, 1000) \
	X(stream_confirm,           tun.stream_confirm,           1, 8) \
	X(wake_batch_pct,           tun.wake_batch_pct,           1, 100) \
	X(worker_threads,           tun.worker_threads,           0, R5X_MAX_WORKERS) \
	X(solo_worker,              tun.solo_worker,              0, R5X_SOLO_EXCLUSIVE)

#define R5X_TUNABLE_FNS(name, field, min, max)				\
static struct md_sysfs_entry r5x_##name;				\
static ssize_t name##_show(struct mddev *mddev, char *page)		\
{									\
	return show_int(mddev, page, offsetof(struct r5x_conf, field));	\
}									\
static ssize_t name##_store(struct mddev *mddev, const char *page, size_t len) \
{									\
	struct r5x_conf *conf;						\
	struct kernfs_node *kn;						\
	int err, v;							\
									\
	conf = lock_conf(mddev, &r5x_##name.attr, &kn, &err);		\
	if (!conf)							\
		return err;						\
	err = parse_int(page, min, (max) < 0 ? conf->max_nr_stripes : (max), &v); \
	if (!err) {							\
		spin_lock_irq(&conf->lock);				\
		conf->field = v;					\
		spin_unlock_irq(&conf->lock);				\
		r5x_wake_thread(conf);					\
	}								\
	unlock_conf(mddev, kn);						\
	return err ?: len;						\
}									\
static struct md_sysfs_entry r5x_##name =				\
	__ATTR(name, 0644, name##_show, name##_store);
R5X_TUNABLES(R5X_TUNABLE_FNS)

static ssize_t stripe_cache_size_show(struct mddev *mddev, char *page)
{
	return show_int(mddev, page, offsetof(struct r5x_conf, max_nr_stripes));
}

static struct md_sysfs_entry r5x_stripe_cache_size;

static ssize_t stripe_cache_size_store(struct mddev *mddev, const char *page,
				       size_t len)
{
	struct r5x_conf *conf;
	struct kernfs_node *kn;
	int err, v;

	conf = lock_conf(mddev, &r5x_stripe_cache_size.attr, &kn, &err);
	if (!conf)
		return err;
	err = parse_int(page, R5X_MIN_STRIPES, R5X_MAX_STRIPES, &v);
	if (!err)
		err = r5x_cache_resize(conf, v);
	unlock_conf(mddev, kn);
	return err ?: len;
}

static struct md_sysfs_entry r5x_stripe_cache_size =
	__ATTR(stripe_cache_size, 0644, stripe_cache_size_show,
	       stripe_cache_size_store);

static ssize_t skip_copy_show(struct mddev *mddev, char *page)
{
	return show_int(mddev, page, offsetof(struct r5x_conf, tun.skip_copy));
}

static struct md_sysfs_entry r5x_skip_copy;

/* 0 or 1; the array asks for stable writes while it is 1 (nocopy.c) */
static ssize_t skip_copy_store(struct mddev *mddev, const char *page,
			       size_t len)
{
	struct r5x_conf *conf;
	struct kernfs_node *kn;
	int err, v;

	conf = lock_conf(mddev, &r5x_skip_copy.attr, &kn, &err);
	if (!conf)
		return err;
	err = parse_int(page, 0, 1, &v);
	if (!err && v != conf->tun.skip_copy) {
		WRITE_ONCE(conf->tun.skip_copy, v);
		r5x_set_stable_writes(mddev, v);
	}
	unlock_conf(mddev, kn);
	return err ?: len;
}

static struct md_sysfs_entry r5x_skip_copy =
	__ATTR(skip_copy, 0644, skip_copy_show, skip_copy_store);

static ssize_t stripe_cache_active_show(struct mddev *mddev, char *page)
{
	return show_int(mddev, page, offsetof(struct r5x_conf, active_stripes));
}

static struct md_sysfs_entry r5x_stripe_cache_active =
	__ATTR(stripe_cache_active, 0444, stripe_cache_active_show, NULL);

/*
 * Stripes allocated (conf->nr_stripes): stripe_cache_size once a grow has
 * returned and a shrink's lazy part (raid5xd frees stripes as they go
 * idle) is over; between the two, the pool there is.
 */
static ssize_t stripe_cache_allocated_show(struct mddev *mddev, char *page)
{
	struct r5x_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = r5x_is_ours(mddev) ? mddev->private : NULL;
	if (conf)
		ret = sysfs_emit(page, "%d\n", READ_ONCE(conf->nr_stripes));
	spin_unlock(&mddev->lock);
	return ret;
}

static struct md_sysfs_entry r5x_stripe_cache_allocated =
	__ATTR(stripe_cache_allocated, 0444, stripe_cache_allocated_show, NULL);

/*
 * raid5x_stats/: one read-only file per counter (R5X_COUNTERS), and a
 * write-only "reset" that zeroes them all (it notes the sums, under
 * mddev->lock: the CPUs' copies go on counting).  Neither takes md's reconfig
 * mutex (mddev->lock keeps the conf alive, as for show_int()), so the
 * group can be removed under that mutex when raid5x lets go of the array.
 */
static u64 counter_sum(struct r5x_conf *conf, int i)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(conf->stats, cpu)->v[i]);
	return sum;
}

static ssize_t show_counter(struct mddev *mddev, char *page, int i)
{
	struct r5x_conf *conf;
	ssize_t ret = -ENODEV;

	spin_lock(&mddev->lock);
	conf = r5x_is_ours(mddev) ? mddev->private : NULL;
	if (conf)
		ret = sysfs_emit(page, "%lld\n", (long long)
				 (counter_sum(conf, i) - conf->stats_base[i]));
	spin_unlock(&mddev->lock);
	return ret;
}

#define R5X_STAT_FNS(name, help)					\
static ssize_t stat_##name##_show(struct mddev *mddev, char *page)	\
{									\
	return show_counter(mddev, page, R5X_C_##name);			\
}									\
static struct md_sysfs_entry r5x_stat_##name =				\
	__ATTR(name, 0444, stat_##name##_show, NULL);
R5X_COUNTERS(R5X_STAT_FNS)
#undef R5X_STAT_FNS

static ssize_t reset_store(struct mddev *mddev, const char *page, size_t len)
{
	struct r5x_conf *conf;
	int i;

	if (!sysfs_streq(page, "1"))
		return -EINVAL;
	spin_lock(&mddev->lock);
	conf = r5x_is_ours(mddev) ? mddev->private : NULL;
	for (i = 0; conf && i < R5X_NR_COUNTERS; i++)
		conf->stats_base[i] = counter_sum(conf, i);
	spin_unlock(&mddev->lock);
	return conf ? len : -ENODEV;
}

static struct md_sysfs_entry r5x_stats_reset = __ATTR_WO(reset);

static struct attribute *r5x_stats_attrs[] = {
#define R5X_STAT_ATTR(name, help) &r5x_stat_##name.attr,
	R5X_COUNTERS(R5X_STAT_ATTR)
#undef R5X_STAT_ATTR
	&r5x_stats_reset.attr,
	NULL,
};

static const struct attribute_group r5x_stats_group = {
	.name = "raid5x_stats",
	.attrs = r5x_stats_attrs,
};

static struct attribute *r5x_attrs[] = {
	&r5x_stripe_cache_size.attr,
	&r5x_stripe_cache_active.attr,
	&r5x_stripe_cache_allocated.attr,
	&r5x_skip_copy.attr,
#define R5X_TUNABLE_ATTR(name, field, min, max) &r5x_##name.attr,
	R5X_TUNABLES(R5X_TUNABLE_ATTR)
#undef R5X_TUNABLE_ATTR
	NULL,
};

struct attribute_group r5x_attr_group = {
	.name = NULL,
	.attrs = r5x_attrs,
};

/*
 * r5x_sysfs_add - give a running array raid5x's attributes (from ->run).
 *
 * md removes a personality's group only after dropping the reconfig mutex
 * (mddev->to_remove, one group): r5x_attr_group goes that way, and is kept
 * if raid5x runs the array again before md got to it.  raid5x_stats/ is
 * created here and removed by r5x_sysfs_del() directly, since none of its
 * files takes the reconfig mutex.
 */
int r5x_sysfs_add(struct mddev *mddev)
{
	int err;

	if (!mddev->kobj.sd)
		return 0;
	if (mddev->to_remove == &r5x_attr_group) {
		mddev->to_remove = NULL;
	} else {
		err = sysfs_create_group(&mddev->kobj, &r5x_attr_group);
		if (err)
			return err;
	}
	return sysfs_create_group(&mddev->kobj, &r5x_stats_group);
}

/*
 * r5x_sysfs_del - take them away again (from ->free, reconfig mutex held).
 *
 * When the array stops, r5x_attr_group goes the way md removes a
 * personality's group (to_remove).  When a level change hands the array to
 * another personality (mddev->pers is already the new one), that one's
 * run() comes before md's deferred removal: raid456's group has our
 * attribute names and could not be created, leaving raid456 without
 * stripe_cache_size until the array is assembled again.  So the group goes
 * now; our stores do not hold their file while they wait for the mutex
 * (lock_conf), so this cannot wait for one of them.
 */
void r5x_sysfs_del(struct mddev *mddev)
{
	struct kernfs_node *kn = NULL;

	if (mddev->kobj.sd)
		kn = sysfs_get_dirent(mddev->kobj.sd, r5x_stats_group.name);
	if (kn) {	/* absent if r5x_sysfs_add() failed */
		sysfs_put(kn);
		sysfs_remove_group(&mddev->kobj, &r5x_stats_group);
	}
	if (mddev->pers && !r5x_is_ours(mddev) && mddev->kobj.sd) {
		if (mddev->to_remove == &r5x_attr_group)
			mddev->to_remove = NULL;
		sysfs_remove_group(&mddev->kobj, &r5x_attr_group);
		return;
	}
	mddev->to_remove = &r5x_attr_group;
}
