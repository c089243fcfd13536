/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Access to a host's sysfs: read a file, write a file, produce the
 * `path:value` dumps (the snapshot's, PM QoS's). The local implementation works on a root directory
 * ("/" or a fixture tree); remote transports provide the same three calls,
 * so governor control and snapshots are written once.
 */
#ifndef IL_IDLE_SYSFS_H
#define IL_IDLE_SYSFS_H

#include "idle/pmqos.h"
#include "idle/snapshot.h"
#include "util/buf.h"

struct il_sysfs {
	const char *label; /* host name for messages */
	/* Read the file at the canonical path ("/sys/...") into out. */
	int (*read)(struct il_sysfs *fs, const char *path, struct il_buf *out, struct il_err *err);
	/* Write value (no newline) to the file at the canonical path. */
	int (*write)(struct il_sysfs *fs, const char *path, const char *value, struct il_err *err);
	/* The snapshot dump text (see il_snapshot_parse). */
	int (*dump)(struct il_sysfs *fs, struct il_buf *out, struct il_err *err);
	/* The PM QoS dump text (see il_pmqos_parse; idle/pmqos.h). */
	int (*pmqos)(struct il_sysfs *fs, struct il_buf *out, struct il_err *err);
};

struct il_sysfs_local {
	struct il_sysfs ops;
	char root[4096];
};

/* A local sysfs under root (NULL or "/" for this machine). Returns IL_EINVAL if root is too long. */
int il_sysfs_local_init(struct il_sysfs_local *fs, const char *root, struct il_err *err);

/* Dump and parse in one go, labelled with fs->label. */
int il_sysfs_snapshot(struct il_sysfs *fs, struct il_snapshot *out, struct il_err *err);
int il_sysfs_pmqos(struct il_sysfs *fs, struct il_pmqos *out, struct il_err *err);

#endif
