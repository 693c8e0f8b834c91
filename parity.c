// SPDX-License-Identifier: GPL-2.0
/*
 * parity.c - XOR parity helpers on top of the kernel's xor_blocks(), which
 * picks the fastest XOR routine for the CPU at boot and takes at most
 * MAX_XOR_BLOCKS sources per call.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/raid/xor.h>
#include <linux/module.h>
#include "parity.h"

void r5x_xor_into(void *dest, void **srcs, int n, unsigned int len)
{
	while (n > 0) {
		int k = min(n, MAX_XOR_BLOCKS);

		xor_blocks(k, len, dest, srcs);
		srcs += k;
		n -= k;
	}
}

void r5x_xor_set(void *dest, void **srcs, int n, unsigned int len)
{
	memcpy(dest, srcs[0], len);
	r5x_xor_into(dest, srcs + 1, n - 1, len);
}

bool r5x_xor_is_zero(void **srcs, int n, void *scratch, unsigned int len)
{
	r5x_xor_set(scratch, srcs, n, len);
	return !memchr_inv(scratch, 0, len);
}
