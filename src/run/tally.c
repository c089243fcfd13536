// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-sample standing of a run, and its rebuilding from the journal (resume). */
#include "run/tally.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/journal.h"
#include "run/record.h"

int il_tally_init(struct il_tally *t, size_t n, struct il_err *err)
{
	*t = (struct il_tally){ .n = n, .stop_rounds = -1 };
	t->final = calloc(n ? n : 1, sizeof(*t->final));
	t->attempts = calloc(n ? n : 1, sizeof(*t->attempts));
	t->failures = calloc(n ? n : 1, sizeof(*t->failures));
	if (!t->final || !t->attempts || !t->failures)
		return il_err_oom(err);
	return 0;
}

void il_tally_release(struct il_tally *t)
{
	free(t->final);
	free(t->attempts);
	free(t->failures);
	memset(t, 0, sizeof(*t));
}

void il_tally_final(struct il_tally *t, size_t seq)
{
	t->final[seq] = true;
	t->done++;
}

bool il_tally_attempt(struct il_tally *t, size_t seq, const char *status, bool retryable, int retries)
{
	bool done = !strcmp(status, "ok") || !strcmp(status, "warmup");

	if (!strcmp(status, "infra_failed") || !strcmp(status, "invalid"))
		t->failures[seq]++;
	/* an interrupted attempt runs again on resume whatever the budget */
	return strcmp(status, "interrupted") && (!retryable || done || t->failures[seq] > retries);
}

struct scan {
	struct il_tally *t;
	const struct il_plan *plan;
	const struct il_spec *specs;
	const char *path;
};

static int scan_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct scan *sc = ctx;
	struct il_tally *t = sc->t;
	enum il_rec_kind kind = il_record_kind_of(rec);
	json_int_t seq, attempt;
	const char *variant, *wl, *status, *want_wl;
	char *want;
	int rc = 0;

	if (kind == IL_REC_RUN_END)
		t->ended = true;
	if (kind == IL_REC_STOP) {
		json_t *n = json_object_get(rec, "rounds");

		if (!json_is_integer(n) || json_integer_value(n) < 0)
			return il_err_set(err, IL_EPARSE, "%s:%zu: stop record: rounds: expected a non-negative integer",
					  sc->path, line);
		t->stop_rounds = (int)json_integer_value(n);
	}
	if (kind != IL_REC_SAMPLE)
		return 0;
	if (json_unpack(rec, "{s:I,s:I,s:s,s:s,s:s}", "seq", &seq, "attempt", &attempt, "variant", &variant, "workload",
			&wl, "status", &status))
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample record lacks seq, attempt, variant, workload or status",
				  sc->path, line);
	if (seq < 0 || (size_t)seq >= t->n)
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample %lld is outside the plan's %zu samples", sc->path, line,
				  (long long)seq, t->n);
	want = il_plan_variant(sc->plan, &sc->specs[seq]);
	want_wl = sc->plan->wl[sc->specs[seq].wl].label;
	if (!want || strcmp(want, variant) || strcmp(want_wl, wl))
		rc = il_err_set(err, IL_EPARSE, "%s:%zu: sample %lld is %s/%s in the journal but %s/%s in plan.json",
				sc->path, line, (long long)seq, variant, wl, want ? want : "?", want_wl);
	free(want);
	if (rc)
		return rc;
	if (json_is_true(json_object_get(rec, "final"))) {
		if (t->final[seq])
			return il_err_set(err, IL_EPARSE, "%s:%zu: sample %lld has a second final record", sc->path, line,
					  (long long)seq);
		il_tally_final(t, (size_t)seq);
	}
	if (attempt > t->attempts[seq])
		t->attempts[seq] = (int)attempt;
	if (!strcmp(status, "infra_failed") || !strcmp(status, "invalid"))
		t->failures[seq]++;
	return 0;
}

int il_tally_scan(struct il_tally *t, const char *path, const struct il_plan *plan, const struct il_spec *specs,
		  size_t *torn, struct il_err *err)
{
	struct scan sc = { t, plan, specs, path };

	int r;

	*torn = 0;
	if (access(path, F_OK))
		return 0;
	if ((r = il_journal_each(path, scan_rec, &sc, torn, err)))
		return r;
	if (t->stop_rounds >= 0)
		il_tally_stop(t, specs, t->stop_rounds);
	return 0;
}

size_t il_tally_stop(struct il_tally *t, const struct il_spec *specs, int rounds)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (!specs[i].warmup && specs[i].iteration >= rounds && !t->final[i]) {
			il_tally_final(t, i);
			n++;
		}
	return n;
}
