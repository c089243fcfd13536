/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sysfs a command acts on: --sysfs-root DIR locally, or --host NAME. */
#ifndef IL_CLI_TARGET_H
#define IL_CLI_TARGET_H

#include "host/hostfs.h"
#include "host/host.h"
#include "idle/sysfs.h"

struct il_target {
	struct il_sysfs *fs;         /* what to use */
	struct il_sysfs_local local;
	struct il_hostfs remote;
	struct il_host_cfg cfg;
	struct il_transport *t;
};

/* host NULL: local sysfs under root. Else connect to the inventory host. */
int il_target_open(struct il_target *tg, const char *host, const char *root, const char *hosts_dir,
		   struct il_err *err);
void il_target_close(struct il_target *tg);

#endif
