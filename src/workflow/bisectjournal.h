/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bisection's journal, DIR/bisect.jsonl (workflow/bisect.h: its only
 * state): the records replayed into what is known of each commit, new
 * records appended (stamped with the time, fsync'd) and replayed alike; and
 * the setup record, of which this file is the one owner: made from the
 * options when a bisection begins, checked against them when it goes on,
 * read back and decoded into options by a resume or a git bisect step
 * (workflow/bisectsession.h).
 */
#ifndef IL_WORKFLOW_BISECTJOURNAL_H
#define IL_WORKFLOW_BISECTJOURNAL_H
#include <jansson.h>
#include "run/journal.h"
#include "workflow/bisect.h"
#include "util/err.h"

struct il_bisect_journal {
	struct il_journal j;
	json_t *commits;            /* {"COMMIT": {"rounds": [rec...], "verdict": rec}} */
	json_t *setup;              /* the setup record, or NULL */
};

/* Closed (il_bisect_journal_close) without having been opened. */
#define IL_BISECT_JOURNAL_INIT { .j = { .fd = -1 } }

/*
 * Open dir/bisect.jsonl (made when missing; a torn last line cut before it
 * is read) and replay its records. Close with il_bisect_journal_close, also
 * after a failure.
 */
int il_bisect_journal_open(struct il_bisect_journal *bj, const char *dir, struct il_err *err);
void il_bisect_journal_close(struct il_bisect_journal *bj);

/* What is known of commit: {"rounds": [...], "verdict": rec} (borrowed; made when new); NULL when memory ran out. */
json_t *il_bisect_journal_commit(struct il_bisect_journal *bj, const char *commit);

/* Append rec (taken, also on failure; NULL: memory ran out) with its "time", then replay it. */
int il_bisect_journal_append(struct il_bisect_journal *bj, json_t *rec, struct il_err *err);

/*
 * The journal's setup must be o's bisection (the same endpoints: IL_EINVAL
 * naming both pairs when it is another's); a journal without one gets o's.
 */
int il_bisect_journal_setup(struct il_bisect_journal *bj, const struct il_bisect_opts *o, struct il_err *err);

/* o's setup record: good, bad, commits, metrics, n0, max_n, alpha, floor_pct, k. A new reference; NULL when memory ran out. */
json_t *il_bisect_setup_json(const struct il_bisect_opts *o);

/* The setup record of the bisection in dir (IL_EPARSE when it has none); caller decrefs. */
int il_bisect_setup_read(const char *dir, json_t **setup, struct il_err *err);

/*
 * Decode setup into o: its commits and metrics appended, n0, max_n, alpha,
 * floor_pct and k set (the rest of o is left as it is); good and bad (41
 * bytes each) get the endpoints ("" when missing). IL_ENOMEM only.
 */
int il_bisect_setup_opts(const json_t *setup, struct il_bisect_opts *o, char *good, char *bad, struct il_err *err);

#endif
