// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - raid5x's attributes in /sys/block/mdX/md/.
 *
 * Every tunable is one row of R5X_TUNABLES: name, field, range and help; the
 * same row gives its show and store.  A store parses a decimal integer,
 * rejects anything out of range with -EINVAL and then changes nothing.
 * Stores take md's reconfig mutex and check that raid5x still runs the
 * array, so a store racing with a personality change cannot touch a conf
 * that is not ours.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include "raid5x.h"
#include "stripe_cache.h"

const char *const r5x_counter_names[R5X_NR_COUNTERS] = {
#define R5X_COUNTER_NAME(name, help) #name,
	R5X_COUNTERS(R5X_COUNTER_NAME)
#undef R5X_COUNTER_NAME
};

/* Lock the array and return our conf, or NULL if raid5x is not running it. */
static struct r5x_conf *lock_conf(struct mddev *mddev, int *err)
{
	*err = mddev_lock(mddev);
	if (*err)
		return NULL;
	if (!r5x_is_ours(mddev) || !mddev->private) {
		mddev_unlock(mddev);
		*err = -ENODEV;
		return NULL;
	}
	return mddev->private;
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
 * See README "sysfs reference" for meanings and defaults.
 */
#define R5X_TUNABLES(X)							\
	X(preread_bypass_threshold, tun.preread_bypass_threshold, 0, -1) \
	X(preread_batch,            tun.preread_batch,            1, -1) \
	X(seq_delay_ms,             tun.seq_delay_ms,             0, 1000) \
	X(stall_grace_ms,           tun.stall_grace_ms,           0, 1000) \
	X(wake_batch_pct,           tun.wake_batch_pct,           1, 100)

#define R5X_TUNABLE_FNS(name, field, min, max)				\
static ssize_t name##_show(struct mddev *mddev, char *page)		\
{									\
	return show_int(mddev, page, offsetof(struct r5x_conf, field));	\
}									\
static ssize_t name##_store(struct mddev *mddev, const char *page, size_t len) \
{									\
	struct r5x_conf *conf;						\
	int err, v;							\
									\
	conf = lock_conf(mddev, &err);					\
	if (!conf)							\
		return err;						\
	err = parse_int(page, min, (max) < 0 ? conf->max_nr_stripes : (max), &v); \
	if (!err) {							\
		spin_lock_irq(&conf->lock);				\
		conf->field = v;					\
		spin_unlock_irq(&conf->lock);				\
		r5x_wake_thread(conf);					\
	}								\
	mddev_unlock(mddev);						\
	return err ?: len;						\
}									\
static struct md_sysfs_entry r5x_##name =				\
	__ATTR(name, 0644, name##_show, name##_store);
R5X_TUNABLES(R5X_TUNABLE_FNS)

static ssize_t stripe_cache_size_show(struct mddev *mddev, char *page)
{
	return show_int(mddev, page, offsetof(struct r5x_conf, max_nr_stripes));
}

static ssize_t stripe_cache_size_store(struct mddev *mddev, const char *page,
				       size_t len)
{
	struct r5x_conf *conf;
	int err, v;

	conf = lock_conf(mddev, &err);
	if (!conf)
		return err;
	err = parse_int(page, R5X_MIN_STRIPES, R5X_MAX_STRIPES, &v);
	if (!err)
		err = r5x_cache_resize(conf, v);
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5x_stripe_cache_size =
	__ATTR(stripe_cache_size, 0644, stripe_cache_size_show,
	       stripe_cache_size_store);

static ssize_t stripe_cache_active_show(struct mddev *mddev, char *page)
{
	return show_int(mddev, page, offsetof(struct r5x_conf, active_stripes));
}

static struct md_sysfs_entry r5x_stripe_cache_active =
	__ATTR(stripe_cache_active, 0444, stripe_cache_active_show, NULL);

/* "counters": one "name value" line per counter; any write resets all. */
static ssize_t counters_show(struct mddev *mddev, char *page)
{
	struct r5x_conf *conf;
	ssize_t n = 0;
	int i;

	spin_lock(&mddev->lock);
	conf = r5x_is_ours(mddev) ? mddev->private : NULL;
	for (i = 0; conf && i < R5X_NR_COUNTERS; i++)
		n += sysfs_emit_at(page, n, "%s %lld\n", r5x_counter_names[i],
				   (long long)atomic64_read(&conf->stats.v[i]));
	spin_unlock(&mddev->lock);
	return n;
}

static ssize_t counters_store(struct mddev *mddev, const char *page, size_t len)
{
	struct r5x_conf *conf;
	int err, i;

	if (!sysfs_streq(page, "0") && !sysfs_streq(page, "reset"))
		return -EINVAL;
	conf = lock_conf(mddev, &err);
	if (!conf)
		return err;
	for (i = 0; i < R5X_NR_COUNTERS; i++)
		atomic64_set(&conf->stats.v[i], 0);
	mddev_unlock(mddev);
	return len;
}

static struct md_sysfs_entry r5x_counters =
	__ATTR(raid5x_counters, 0644, counters_show, counters_store);

static struct attribute *r5x_attrs[] = {
	&r5x_stripe_cache_size.attr,
	&r5x_stripe_cache_active.attr,
#define R5X_TUNABLE_ATTR(name, field, min, max) &r5x_##name.attr,
	R5X_TUNABLES(R5X_TUNABLE_ATTR)
#undef R5X_TUNABLE_ATTR
	&r5x_counters.attr,
	NULL,
};

struct attribute_group r5x_attr_group = {
	.name = NULL,
	.attrs = r5x_attrs,
};
