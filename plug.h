/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plug.h - hold stripes touched under the submitter's block plug.
 */
#ifndef RAID5X_PLUG_H
#define RAID5X_PLUG_H

#include "raid5x.h"

void r5x_release_or_plug(struct r5x_conf *conf, struct r5x_stripe *sh);

#endif /* RAID5X_PLUG_H */
