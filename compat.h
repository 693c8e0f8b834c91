/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference raid5x depends on.
 *
 * raid5x is built for Debian's 6.1 kernel; md's personality API changed in
 * 6.14 (struct md_submodule_head).  Later kernels get their adapters here.
 */
#ifndef RAID5X_COMPAT_H
#define RAID5X_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#error "raid5x supports kernels 6.1 to 6.13 (md personality API of 6.1)"
#endif

#include "md.h"

#endif /* RAID5X_COMPAT_H */
