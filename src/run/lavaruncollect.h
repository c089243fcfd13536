/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a LAVA host's run (run/lavarun.c: jobs built, submitted, journaled,
 * re-attached on resume) shares with collecting a finished job's samples
 * (run/lavaruncollect.c: the job's log read, its armoured files checked,
 * the device's fingerprint journaled, each sample judged and journaled like
 * any other). Internal to run/lavarun*.c.
 */
#ifndef IL_RUN_LAVARUNCOLLECT_H
#define IL_RUN_LAVARUNCOLLECT_H
#include "host/host.h"
#include "host/lava.h"
#include "run/lavafollow.h"
#include "run/lavarun.h"
#include "util/buf.h"
#include "util/str.h"

/* One LAVA host's part of a run (or of `lava jobdef`: dry), from setup to teardown. */
struct il_lavarun_state {
	struct il_lavarun *in;
	const struct il_plan *p;
	const char *host;
	struct il_host_cfg cfg;
	struct il_lava_conn conn;
	struct il_strlist union_dis;   /* every state name the plan disables */
	struct il_strlist fp_devices;  /* devices whose fingerprint is journaled */
	struct il_lavafollow_job *jobs;
	size_t njobs;
	struct il_buf *dry;            /* il_lavarun_jobdefs: the jobs are written here, never submitted */
	char **release;                /* per plan kernel: the release a built one boots as (checked per sample) */
};

/*
 * Journal the samples of job j, which has ended (or was given up on): each
 * one not yet final judged from its file in the job's log, or an
 * infrastructure failure saying why it did not come back; a job canceled in
 * LAVA journals its samples interrupted and returns IL_EINTR (the run stops).
 */
int il_lavarun_collect(struct il_lavarun_state *r, struct il_lavafollow_job *j, struct il_err *err);

#endif
