/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parity.h - XOR parity over page-sized buffers (no bio, no mddev).
 */
#ifndef RAID5X_PARITY_H
#define RAID5X_PARITY_H

#include <linux/types.h>

/* dest ^= srcs[0] ^ ... ^ srcs[n-1] */
void r5x_xor_into(void *dest, void **srcs, int n, unsigned int len);
/* dest = srcs[0] ^ ... ^ srcs[n-1]; n >= 1; dest must not be a source */
void r5x_xor_set(void *dest, void **srcs, int n, unsigned int len);
/* true if srcs[0] ^ ... ^ srcs[n-1] == 0 (a stripe whose parity is right) */
bool r5x_xor_is_zero(void **srcs, int n, void *scratch, unsigned int len);

#endif /* RAID5X_PARITY_H */
