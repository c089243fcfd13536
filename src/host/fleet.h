/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Many hosts at once: each host's transport opened, its audit probe run
 * (il_probe_window: one exec, fingerprint and two snapshots) and closed, at
 * most `jobs` hosts in flight, one thread per slot with a transport of its
 * own (libssh: ssh_init once, then a session per thread), each host bounded
 * by its own connect and command time-outs. What came back, or why not, is
 * kept per host for the caller to judge (workflow/audit.h).
 */
#ifndef IL_HOST_FLEET_H
#define IL_HOST_FLEET_H

#include <jansson.h>

#include "host/host.h"
#include "idle/snapshot.h"

struct il_fleet_item {
	const struct il_host_cfg *cfg; /* borrowed: set by the caller */
	int code;                      /* 0: fp, a and b are set; else the failure (IL_ECONNECT, ...) */
	char msg[512];
	json_t *fp;                    /* the fingerprint (owned) */
	struct il_snapshot a, b;       /* the two snapshots, window_s apart */
	double connect_s;              /* connect, host key, authentication */
	double exec_s;                 /* the one exec, window included, and its parse */
};

/* Called from the worker threads as each host ends (serialised by the collector). */
typedef void (*il_fleet_done_fn)(const struct il_fleet_item *it, size_t done, size_t n, void *arg);

struct il_fleet_opts {
	size_t jobs;          /* hosts in flight; 0: 64 */
	double window_s;      /* between the two snapshots */
	il_fleet_done_fn done;
	void *arg;
};

/*
 * Collect items[0..n) (each item's cfg set, the rest zero). A host's failure
 * is its item's code and msg, never this call's: that returns IL_ENOMEM or
 * IL_EIO (a thread could not be started) only.
 */
int il_fleet_collect(struct il_fleet_item *items, size_t n, const struct il_fleet_opts *o, struct il_err *err);

/* Free what an item owns (not its cfg). */
void il_fleet_item_release(struct il_fleet_item *it);

#endif
