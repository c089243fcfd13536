/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Following submitted LAVA jobs to their end (docs/lava.md): each job polled
 * every poll_s, given up on and canceled past its deadline (queue_timeout_s
 * until it runs, job_timeout_s after, whether the server answers or not),
 * every job still going canceled when the user stops the run. The jobs are
 * run/lavarun.c's: it submits them, journals them and collects their samples.
 */
#ifndef IL_RUN_LAVAFOLLOW_H
#define IL_RUN_LAVAFOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "host/lava.h"
#include "run/context.h"
#include "run/sample.h"

/* One sample in a job. */
struct il_lavafollow_sample {
	size_t seq;
	int attempt;
	char nonce[IL_SAMPLE_NONCE_LEN];
};

/* One submitted job, followed to its end. */
struct il_lavafollow_job {
	long id;
	int kernel;
	struct il_lavafollow_sample *s;
	size_t n;
	double submitted;           /* il_clock_mono_s(), for the queue time-out */
	double running;             /* il_clock_mono_s() when first seen running, for job_timeout_s; 0: not yet */
	double failing;             /* il_clock_mono_s() of the first failed poll in a row; 0: the last poll was answered */
	struct il_lava_job st;
	bool done;                  /* finished, or given up on */
	char why[600];              /* set when idlelab itself gave up on it (past its deadline) */
};

/*
 * Poll every job of jobs[njobs] through conn until each has finished or is
 * given up on (done, with why), noting on c what a reader of the run should
 * know (host names the host). IL_EINTR (jobs canceled) when the user stops
 * the run, IL_EPARSE when the server answers something that is not LAVA's
 * (the jobs are left to a resume: what else the server says cannot be
 * trusted either).
 */
int il_lavafollow_jobs(const struct il_run_ctx *c, const char *host, struct il_lava_conn *conn,
		       const struct il_lava_cfg *lc, struct il_lavafollow_job *jobs, size_t njobs, struct il_err *err);

#endif
