/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One sample on a leased host: run it (one exec of runners/sample.sh), judge
 * its outcome (also for a sample that came back from a LAVA job), and build
 * its journal record. Retrying is the engine's call.
 */
#ifndef IL_RUN_SAMPLE_H
#define IL_RUN_SAMPLE_H
#include <stdbool.h>
#include <jansson.h>
#include "idle/snapshot.h"
#include "run/context.h"
#include "run/lease.h"
#include "run/runner.h"

struct il_sample_result {
	const char *status;      /* ok, warmup, workload_failed, invalid, infra_failed, interrupted */
	bool retryable;          /* another attempt may succeed (infrastructure, not the workload) */
	char reason[600];        /* why it is not ok; "" when it is */
	json_t *metrics, *idle;  /* the workload's metrics and the idle summary (il_diff_summary_json), or NULL */
	char *note;              /* a caveat for the record, or NULL */
	struct il_runner_out ro;
	struct il_snapshot pre, post;
	bool have_snaps;
	double interval_s;
	bool has_interval;
};

/* A sample attempt's frame tag, or its id on the host: "IL" and 16 random hex digits. */
#define IL_SAMPLE_NONCE_LEN 19
void il_sample_nonce(char nonce[IL_SAMPLE_NONCE_LEN]);

/* Run spec s on h with the sample script (il_runner_sample_script). *oc is filled; release it. */
void il_sample_run(const struct il_run_ctx *c, struct il_lease *h, const char *script, const struct il_spec *s,
		   struct il_sample_result *oc);
void il_sample_result_release(struct il_sample_result *oc);

/*
 * Judge a sample from the runner's output (its frames for nonce), however
 * it came back: over a transport (il_sample_run) or armoured in a LAVA job's
 * log (run/lavarun.c). exit_code and stderr_text are the runner's own: frames
 * with an exit other than 0 are not taken (infra_failed), since the runner
 * prints them last and exits 0, and a workload that printed frames and
 * killed it would otherwise choose its own result. *oc (zeroed by the
 * caller) is filled as il_sample_run fills it.
 */
void il_sample_judge(const struct il_run_ctx *c, const struct il_spec *s, const char *nonce, const char *host,
		     const char *text, size_t len, int exit_code, const char *stderr_text, struct il_sample_result *oc);

/*
 * The journal record of one attempt: started (stolen) and t0 (il_clock_mono_s at
 * the start) time it; the workload's output is written to samples/ first.
 * Caller owns the record; NULL: memory ran out.
 */
json_t *il_sample_record(const struct il_run_ctx *c, const struct il_lease *h, const struct il_spec *s,
			 const char *variant, int attempt, bool final, const struct il_sample_result *oc, json_t *started,
			 double t0);
/* The final record of a sample that cannot run (its kernel did not build or boot): never data. */
json_t *il_sample_fail_record(const struct il_run_ctx *c, const char *host, const struct il_spec *s,
			      const char *variant, int attempt, const char *reason);

#endif
