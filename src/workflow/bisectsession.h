/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bisection's directory and the order of its steps, for `idlelab bisect`
 * (the command parses options and prints; this does the rest): a new
 * bisection gets DIR (refused when it exists), DIR/plan.json (the plan, its
 * paths made absolute) and DIR/bisect.json (what the command was given, the
 * workloads and hosts directories made absolute), then its endpoints
 * resolved, the commits between them and its options; a --resume or a
 * git bisect --step of DIR reads those files back and takes its options from
 * the setup record (workflow/bisectjournal.h, its one owner), so it needs
 * nothing else. A new bisection refused before its setup record was
 * journalled leaves nothing behind (il_bisect_session_discard).
 */
#ifndef IL_WORKFLOW_BISECTSESSION_H
#define IL_WORKFLOW_BISECTSESSION_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "run/engine.h"
#include "workflow/bisect.h"
#include "workflow/bisectrun.h"
#include "util/err.h"
#include "util/paths.h"

/* What the command was given (borrowed for the open only). */
struct il_bisect_session_in {
	const char *plan_path;      /* a new bisection's plan; NULL: go on with the one in dir */
	const char *dir;            /* resume or step: the bisection's directory; new: where (NULL: reports/<date>-bisect-<name>) */
	const char *good, *bad;     /* new: the endpoints, revisions of the plan's repository */
	const char *metric;         /* new: KEY[,KEY] to bisect on, or NULL (every metric with a direction) */
	const char *variant;        /* new: the plan's governors entry, or NULL (its only one) */
	bool first_parent;          /* new: follow only first parents */
	bool confirm;               /* also when the bisection did not begin with it (a step never) */
	size_t n0, max_n;           /* new: samples of a first round and a commit's cap; 0: the defaults */
	double alpha;               /* new: each decision's significance; NaN: 0.05 */
	/* given again: these win over the directories a bisection recorded when it began */
	bool keep_workloads, keep_hosts, keep_workload_bin;
};

/*
 * An open bisection. It points into itself (opts at good and bad, env at
 * run, m at env): it stays where il_bisect_session_open put it.
 */
struct il_bisect_session {
	char *dir;                  /* the bisection's directory (NULL until known) */
	bool made;                  /* a new bisection: DIR was not there when it was chosen */
	struct il_run_opts run;     /* the caller's, with the recorded directories on a resume */
	struct il_bisect_env env;
	struct il_bisect_opts opts;
	char good[41], bad[41];     /* the endpoints, 40 hex */
	struct il_bisect_measurer m;
	json_t *args;               /* DIR/bisect.json */
	json_t *setup;              /* resume or step: the setup record */
};

/*
 * Open the bisection in->plan_path begins, or the one in in->dir. run is
 * copied (its paths, progress, stop); paths (borrowed, its strings the
 * session's to replace) gets the recorded workloads and hosts directories on
 * a resume unless given again. s is the caller's: il_bisect_session_close,
 * also after a failure (s->dir, when set, names the directory).
 */
int il_bisect_session_open(struct il_bisect_session *s, const struct il_bisect_session_in *in, struct il_paths *paths,
			   const struct il_run_opts *run, struct il_err *err);

/* Bisect, or go on where the journal stopped (il_bisect_run); res as there. */
int il_bisect_session_run(struct il_bisect_session *s, struct il_bisect_result *res, struct il_err *err);

/* git bisect run's step: rev (NULL: HEAD) of the plan's repository as hex (41 bytes), classified into *st (il_bisect_classify). */
int il_bisect_session_step(struct il_bisect_session *s, const char *rev, char *hex, struct il_bisect_step *st,
			   struct il_err *err);

/* res as JSON with the bisection's "dir" (a new reference; NULL when memory ran out). */
json_t *il_bisect_session_json(const struct il_bisect_session *s, const struct il_bisect_result *res);

/*
 * A new bisection refused before its setup record (an endpoint that does
 * not resolve, a swapped range, too few samples): remove what it wrote and
 * DIR, so that neither the corrected command finds "DIR exists" nor a
 * --resume a directory with nothing to resume. Only the files the command
 * writes go, then DIR (rmdir keeps anything else). Whether DIR is gone;
 * false for a bisection this session did not begin or whose setup is
 * journalled (a --resume goes on with it).
 */
bool il_bisect_session_discard(struct il_bisect_session *s);

void il_bisect_session_close(struct il_bisect_session *s);

#endif
