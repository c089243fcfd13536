// SPDX-License-Identifier: GPL-2.0-or-later
/* The run context: journaling and notes for every stage of a run. */
#include "run/context.h"
#include "util/clock.h"

#include <stdarg.h>
#include <stdio.h>

json_t *il_context_time_json(void)
{
	char buf[32];

	il_clock_iso_now(buf, sizeof(buf));
	return json_string(buf);
}

int il_context_journal(const struct il_run_ctx *c, json_t *rec, struct il_err *err)
{
	int rc;

	if (!rec)
		return il_err_oom(err);
	if (json_object_set_new(rec, "time", il_context_time_json()))
		rc = il_err_oom(err);
	else
		rc = il_journal_append(c->j, rec, err);
	json_decref(rec);
	return rc;
}

void il_context_note(const struct il_run_ctx *c, const char *host, const char *fmt, ...)
{
	char line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (c->note)
		c->note(c->note_ctx, host, line);
}

bool il_context_stopped(const struct il_run_ctx *c)
{
	return c->o->stop && *c->o->stop;
}
