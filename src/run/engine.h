/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run engine: expand a plan, run every sample on its host (one remote
 * exec each), journal every sample (fsync'd) before the next starts, retry
 * infrastructure failures, resume an interrupted run exactly where it
 * stopped, and always give the host back its governor, state `disable` and
 * cpufreq settings. A run directory (reports/<run-id>/) holds plan.json,
 * journal.jsonl, host-<name>.json (fingerprints), saved-<name>.json (the
 * host's original settings) and samples/ (workload output).
 */
#ifndef IL_RUN_ENGINE_H
#define IL_RUN_ENGINE_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "util/buf.h"
#include "util/progress.h"
#include "util/err.h"
#include "util/paths.h"

enum il_run_ev { IL_EV_HOST, IL_EV_SAMPLE_START, IL_EV_SAMPLE_END, IL_EV_NOTE };

struct il_run_event {
	enum il_run_ev kind;
	size_t done, total;       /* samples finished (final records) and planned */
	size_t seq;
	const char *host, *variant, *workload;
	int iteration;
	bool warmup;
	const char *status;       /* IL_EV_SAMPLE_END: ok, warmup, workload_failed, invalid, infra_failed, interrupted */
	const char *message;      /* reason or note */
	double eta_s;             /* < 0: unknown */
};

typedef void (*il_run_cb)(const struct il_run_event *ev, void *ctx);

struct il_run_opts {
	const struct il_paths *paths;  /* hosts, cache, home, ssh config (resolved by cli/clipaths.c; borrowed); NULL: defaults */
	const char *workloads_dir;     /* NULL: il_workload_dir default */
	const char *workload_bin;      /* idlelab's own workload binaries: <dir>/<arch>/<name>; NULL: build/workloads
					  (the CLI sets --workload-bin, else $IDLELAB_WORKLOAD_BIN) */
	const char *host;              /* replaces the plan's host(s) (new runs only) */
	const char *sysfs_root;        /* the local host only: sysfs under this root (fixture trees) */
	const volatile sig_atomic_t *stop; /* set by a signal handler: abandon the sample, restore, IL_EINTR */
	il_run_cb cb;
	void *cb_ctx;
	il_progress_fn progress;       /* long steps inside a run (a kernel variant's compile), called with ctx NULL; NULL: none */
	/*
	 * An adaptive run's stop rule (iterations {"min", "max"}), asked after
	 * each complete round from min and at the end: the decision code lives
	 * in stats/, which run/ cannot reach, so the caller passes it
	 * (il_compare_run_decided). 1: every key comparison is decided; 2: the
	 * rest cannot be decided within the maximum (futile); 0: not yet (why
	 * says which are not); < 0: an error in err. NULL: an adaptive plan runs
	 * to its maximum.
	 */
	int (*judge)(void *ctx, const char *run_dir, struct il_buf *why, struct il_err *err);
	void *judge_ctx;
	int until_decided;             /* > 0 (new runs): a fixed plan becomes adaptive, from its iterations to this many */
};

/*
 * Start a run of the plan at plan_path in out_dir (NULL: reports/<date>-<name>).
 * *run_dir (caller frees) is set as soon as the directory exists, also on
 * failure. Returns IL_EINTR when stopped by opts->stop.
 */
int il_engine_start(const char *plan_path, const char *out_dir, const struct il_run_opts *o, char **run_dir,
		 struct il_err *err);
/* Continue the run in run_dir: samples already final are not run again. */
int il_engine_resume(const char *run_dir, const struct il_run_opts *o, struct il_err *err);

/*
 * A run directory's summary (plan name, hosts, planned samples, counts by
 * status) as JSON. cache_dir: the kernel stage's (struct il_paths.cache_dir).
 */
int il_run_summary(const char *run_dir, const char *workloads_dir, const char *cache_dir, json_t **out,
		   struct il_err *err);

#endif
