/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host lease: a host borrowed for a run — its connection, probe
 * snapshot, private working directory and lock, the settings it had (to give
 * back), and the sysfs writes each governor config of the plan needs.
 */
#ifndef IL_RUN_LEASE_H
#define IL_RUN_LEASE_H
#include <limits.h>
#include <stdbool.h>
#include "host/hostfs.h"
#include "host/host.h"
#include "host/transport.h"
#include "idle/govctl.h"
#include "idle/snapshot.h"
#include "run/context.h"

struct il_lease {
	const char *name;
	struct il_host_cfg cfg;
	struct il_transport *t;
	struct il_hostfs hfs;
	struct il_sysfs_local lfs;
	struct il_sysfs *fs;
	const char *root;            /* sysfs root prefix for the runner ("" on real hosts) */
	char root_abs[PATH_MAX];     /* the local host's --sysfs-root, made absolute */
	struct il_snapshot snap;
	char *fp_file;               /* host-<name>.json */
	char *workdir;               /* "UID:PATH" of idlelab's private directory on the host (host/workdir.h) */
	char *bindir;                /* where the host finds idlelab's own workloads */
	struct il_idle_saved saved;
	bool borrowed;               /* settings saved and not yet restored */
	struct il_strlist *writes;   /* per plan governor config: path, value pairs */
	size_t ngov;
	double quiesce_s;
};

/*
 * Borrow host name for the run (h zeroed by the caller): connect, probe,
 * check the plan against it, lock it, save its settings, prepare the writes.
 * On failure h holds what was done so far: restore and release it as usual.
 */
int il_lease_take(struct il_lease *h, const struct il_run_ctx *c, const char *name, struct il_err *err);
/* Give the host its settings back (after stopping any sample left) and journal it; no-op when not borrowed. */
int il_lease_restore(struct il_lease *h, const struct il_run_ctx *c, struct il_err *err);
/* Close the connection (the host lock goes with it) and free h's contents. */
void il_lease_release(struct il_lease *h);
/*
 * Stop every process of the sample with this id (NULL: of every sample
 * recorded in the working directory) by a separate exec (runners/cancel.sh)
 * and check none is left; *n (may be NULL) is how many samples it stopped.
 */
int il_lease_cancel(struct il_lease *h, const char *id, int *n, struct il_err *err);

#endif
