/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A LAVA host's configuration: the host file's "lava" section (docs/lava.md),
 * where the server is, which devices a job asks for, where images are
 * published, and how long jobs may wait and run. Read by host/host.c for
 * a host of kind lava; the REST calls (host/lava.h) and the run on a LAVA host
 * (run/lavarun.c) take it.
 */
#ifndef IL_HOST_LAVACFG_H
#define IL_HOST_LAVACFG_H

#include <jansson.h>

#include "util/err.h"
#include "util/paths.h"
#include "util/strlist.h"

struct il_lava_cfg {
	char *url;             /* the server's base URL, http or https, without a final '/' */
	char *token_file;      /* "~/" expanded */
	char *device_type;     /* the jobs' device_type */
	struct il_strlist tags;/* the jobs' device tags */
	int priority;          /* 0..100 ("low" 0, "medium" 50, "high" 100: LAVA's own values) */
	char *visibility;      /* "public" or "personal" */
	char *artifact_dir;    /* where idlelab copies kernels and ramdisks; NULL: none */
	char *artifact_url;    /* artifact_dir as the worker sees it (file:// or http(s)://); set with artifact_dir */
	int poll_s;            /* seconds between state polls, 1..600 */
	int queue_timeout_s;   /* how long a job may wait for a device */
	int job_timeout_s;     /* how long a job may run once started (idlelab cancels it then: an infra failure) */
	struct {
		char *kernel, *ramdisk, *dtb, *modules; /* local paths ("~/" expanded) or URLs; NULL: none */
	} images;              /* what a job deploys for the plan's running kernel; a built one replaces kernel/modules */
	char *job_template;    /* a LAVA job template (deploy and boot actions); NULL: the built-in one (run/lavajob.h) */
	int boards;            /* jobs of one kernel block at once, the block's samples dealt out (default 1) */
	char *bindir;          /* where the deployed image has idlelab's own workloads (default /usr/local/bin) */
};

/*
 * Read the "lava" object j (at JSON path path, in the file label names) into
 * out, with the defaults for what it leaves out. paths->home expands "~/".
 * Errors are "LABEL: lava.KEY: expected WHAT" (IL_EPARSE). out is released
 * on failure.
 */
int il_lava_cfg_parse(struct il_lava_cfg *out, const json_t *j, const char *label, const char *path,
		      const struct il_paths *paths, struct il_err *err);

/* The section as JSON for `host show` (the token file's path, never the token). The caller owns it; NULL: no memory left. */
json_t *il_lava_cfg_to_json(const struct il_lava_cfg *c);

void il_lava_cfg_release(struct il_lava_cfg *c);

#endif
