/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The il_sysfs interface over a transport: snapshots, reads and governor
 * writes on any host, each one remote exec (a snapshot is one round trip).
 */
#ifndef IL_HOST_HOSTFS_H
#define IL_HOST_HOSTFS_H

#include "host/transport.h"
#include "idle/sysfs.h"

struct il_hostfs {
	struct il_sysfs ops;
	struct il_transport *t; /* borrowed */
};

void il_hostfs_init(struct il_hostfs *fs, struct il_transport *t);

#endif
