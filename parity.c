// SPDX-License-Identifier: GPL-2.0
/*
 * parity.c - XOR parity helpers on top of the kernel's XOR routine (the
 * fastest for the CPU, picked at boot): xor_blocks() in MAX_XOR_BLOCKS
 * sources per call, or xor_gen() on 7.x; compat.h hides which.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/module.h>
#include "compat.h"
#include "parity.h"

void r5x_xor_into(void *dest, void **srcs, int n, unsigned int len)
{
	r5x_xor_gen(dest, srcs, n, len);
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
