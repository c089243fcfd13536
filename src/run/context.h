/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every stage of a run (host lease, sample, kernel stage) shares with
 * the engine: the run directory, its journal, the plan, the options, the
 * lock holder line, and a way to tell the user something. The engine owns
 * all of it; stages borrow the context for the length of a call.
 */
#ifndef IL_RUN_CONTEXT_H
#define IL_RUN_CONTEXT_H
#include <stdbool.h>
#include <jansson.h>
#include "run/engine.h"
#include "run/journal.h"
#include "run/plan.h"

struct il_run_ctx {
	const char *dir;                  /* the run directory, as it will be named */
	struct il_journal *j;
	const struct il_plan *plan;
	const struct il_run_opts *o;
	const char *holder;               /* the run lock's holder line (run/rundir.h): what a host lock records */
	void (*note)(void *note_ctx, const char *host, const char *msg);
	void *note_ctx;
};

/* Add "time" to rec, append it to the journal and drop the reference (rec NULL: memory ran out). */
int il_context_journal(const struct il_run_ctx *c, json_t *rec, struct il_err *err);
/* Tell the user something about host (printf-style; cut at 1 KiB). */
void il_context_note(const struct il_run_ctx *c, const char *host, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whether the user asked the run to stop (opts->stop). */
bool il_context_stopped(const struct il_run_ctx *c);
/* The wall-clock time now, as an ISO 8601 JSON string (new reference). */
json_t *il_context_time_json(void);

#endif
