// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Following a run's submitted LAVA jobs to their end (run/lavafollow.h):
 * polling, the queue and job time-outs, cancels, and the user's stop. Apart
 * from run/lavarun.c, which submits the jobs and collects their samples,
 * because when to give up on a server or a job is its own policy.
 */
#include "run/lavafollow.h"

#include <stdio.h>
#include <time.h>

#include "util/clock.h"

/* What every step of following needs (il_lavafollow_jobs' arguments). */
struct fl {
	const struct il_run_ctx *c;
	const char *host;
	struct il_lava_conn *conn; /* its time-out shortened for a poll or a cancel, then put back */
	const struct il_lava_cfg *lc;
	struct il_lavafollow_job *jobs;
	size_t njobs;
};

static bool sleep_or_stop(const struct fl *fl, int seconds)
{
	for (int i = 0; i < seconds * 10; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (il_context_stopped(fl->c))
			return true;
		nanosleep(&ts, NULL);
	}
	return il_context_stopped(fl->c);
}

/*
 * A cancel when idlelab gives up on a job or the user stops the run: one
 * bounded try (a server that stopped answering must not hold the run for
 * the request's full time-out per job), its failure a note.
 */
#define CANCEL_TIMEOUT_S 15

static void cancel(const struct fl *fl, const struct il_lavafollow_job *j)
{
	long was = fl->conn->timeout_s;
	struct il_err e = { 0 };

	if (fl->conn->timeout_s > CANCEL_TIMEOUT_S)
		fl->conn->timeout_s = CANCEL_TIMEOUT_S;
	if (il_lava_job_cancel(fl->conn, j->id, &e))
		il_context_note(fl->c, fl->host, "LAVA job %ld: cancel: %s", j->id, e.msg);
	fl->conn->timeout_s = was;
}

/*
 * When idlelab gives up on j (il_clock_mono_s()), 0 for never: queue_timeout_s
 * after its submission until it is seen running, job_timeout_s after that.
 * Every poll counts against it, answered or not: a server that stopped
 * answering (or answers errors) must not keep an unattended run forever.
 */
static double deadline(const struct il_lavafollow_job *j, const struct il_lava_cfg *lc)
{
	if (j->running)
		return lc->job_timeout_s > 0 ? j->running + lc->job_timeout_s : 0;
	return lc->queue_timeout_s > 0 ? j->submitted + lc->queue_timeout_s : 0;
}

/* j past its deadline at now: canceled, its samples infrastructure failures (j->why); last: the last poll's error */
static void give_up(const struct fl *fl, struct il_lavafollow_job *j, double now, const char *last)
{
	const struct il_lava_cfg *lc = fl->lc;
	const char *key = j->running ? "job_timeout_s" : "queue_timeout_s";
	int limit = j->running ? lc->job_timeout_s : lc->queue_timeout_s;

	if (last)
		snprintf(j->why, sizeof(j->why), "LAVA job %ld: no usable answer from the server for %.0f s, past its %s (%d s): "
			 "canceled; the last poll: %.400s", j->id, now - j->failing, key, limit, last);
	else if (j->running)
		snprintf(j->why, sizeof(j->why), "LAVA job %ld ran more than %d s (job_timeout_s): canceled", j->id,
			 limit);
	else
		snprintf(j->why, sizeof(j->why), "LAVA job %ld waited more than %d s for a %s device (queue_timeout_s): "
			 "canceled", j->id, limit, lc->device_type);
	cancel(fl, j);
	j->done = true;
}

/* One poll of j, its request never running past the deadline dl (0: none) by more than a second. */
static int poll_job(const struct fl *fl, struct il_lavafollow_job *j, double dl, struct il_err *e)
{
	long was = fl->conn->timeout_s;
	int rc;

	if (dl > 0) {
		double left = dl - il_clock_mono_s();

		fl->conn->timeout_s = left < 1 ? 1 : left < (double)was ? (long)left + 1 : was;
	}
	rc = il_lava_job_get(fl->conn, j->id, &j->st, e);
	fl->conn->timeout_s = was;
	return rc;
}

int il_lavafollow_jobs(const struct il_run_ctx *c, const char *host, struct il_lava_conn *conn,
		       const struct il_lava_cfg *lc, struct il_lavafollow_job *jobs, size_t njobs, struct il_err *err)
{
	const struct fl fls = { .c = c, .host = host, .conn = conn, .lc = lc, .jobs = jobs, .njobs = njobs };
	const struct fl *fl = &fls;

	for (;;) {
		size_t left = 0;

		for (size_t i = 0; i < fl->njobs; i++) {
			struct il_lavafollow_job *j = &fl->jobs[i];
			enum il_lava_state was = j->st.state;
			double dl = deadline(j, lc), asked = il_clock_mono_s(), now;
			struct il_err e = { 0 };
			int rc;

			if (j->done)
				continue;
			rc = poll_job(fl, j, dl, &e);
			now = il_clock_mono_s();
			if (rc == IL_EPARSE)
				return il_err_set(err, IL_EPARSE, "LAVA job %ld: the server's answer is not LAVA's, the run stops "
						  "(the job is left in LAVA; 'idlelab run --resume' follows it again): %s",
						  j->id, e.msg);
			if (rc) {
				/* the server may be restarting: a note, and the next poll, until the deadline */
				if (!j->failing)
					j->failing = asked;
				il_context_note(fl->c, fl->host, "LAVA job %ld: %s", j->id, e.msg);
				if (dl > 0 && now > dl)
					give_up(fl, j, now, e.msg);
				else
					left++;
				continue;
			}
			j->failing = 0;
			if (j->st.state != was && j->st.state != IL_LAVA_FINISHED)
				il_context_note(fl->c, fl->host, "LAVA job %ld: %s%s%s", j->id, il_lava_state_name(j->st.state),
					    j->st.actual_device ? " on " : "", j->st.actual_device ? j->st.actual_device : "");
			if (j->st.state == IL_LAVA_FINISHED) {
				j->done = true;
				continue;
			}
			if (j->st.state == IL_LAVA_RUNNING && !j->running)
				j->running = now;
			dl = deadline(j, lc);
			if (dl > 0 && now > dl) {
				give_up(fl, j, now, NULL);
				continue;
			}
			left++;
		}
		if (!left)
			return 0;
		if (sleep_or_stop(fl, lc->poll_s)) {
			for (size_t i = 0; i < fl->njobs; i++)
				if (!fl->jobs[i].done)
					cancel(fl, &fl->jobs[i]);
			return il_err_set(err, IL_EINTR, "stopped: LAVA jobs canceled");
		}
	}
}
