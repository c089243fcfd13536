/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's journal read back as a run, for the readers of its results (a
 * comparison's dataset: stats/datajournal.c). Every record is checked
 * against the schema (run/record.h); there is one run-start record, before
 * any sample, with its workloads and labelled variants; each sample's final
 * record is checked against it: one final record per sample, the
 * run-start's parameters, and for an "ok" one its iteration and every metric
 * the run-start declares, a finite number. What is wrong stops the reading
 * with an error naming PATH:LINE (IL_EPARSE), and so does a torn last line
 * (the run killed while writing it): a result is never read from a journal
 * two runs wrote, nor from half of one. What the reader finds goes to the
 * caller's functions as run-level data; what it means (metric series,
 * verdicts) is the caller's.
 */
#ifndef IL_RUN_JOURNALREAD_H
#define IL_RUN_JOURNALREAD_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "run/record.h"
#include "util/err.h"

/* The run as far as it is read (borrowed: valid during a call back; a reader may take references). */
struct il_journal_run {
	const char *run_dir;
	const char *path;          /* the journal, as messages name it */
	json_t *run_start;         /* the run-start record; NULL before it */
	/* its "workloads": label -> {"workload", "params", "metrics": [{"name", "unit", "better"}], "key_metrics", "matrix"} */
	json_t *workloads;
	json_t *variants;          /* its "variants": [{"label" (a string), "kernel", "governor", "disable"}] */
	size_t start_line;         /* the run-start record's line */
};

/* A sample's final record, checked (borrowed: valid during the call back; a reader may take references). */
struct il_journal_sample {
	json_t *rec;
	size_t line;
	const char *variant, *workload, *status;
	bool ok;                   /* status "ok": the rest is there, checked */
	int iteration;             /* ok: its iteration */
	json_t *metrics;           /* ok: {"NAME": number}, a finite number for each of defs */
	json_t *wdef;              /* ok: the run-start's workloads[workload] */
	json_t *defs;              /* ok: wdef's "metrics", each "name" a string; the first is the score */
	json_t *idle;              /* ok: the record's "idle" object as the kernel counts (il_diff_json_upgrade); NULL: none */
};

/*
 * The caller's side, each function NULL or called in journal order;
 * non-zero from one stops the reading with that value.
 */
struct il_journal_reader {
	/* the run-start record, once (run->run_start, workloads and variants set) */
	int (*start)(const struct il_journal_run *run, void *ctx, struct il_err *err);
	/* a host, stop or run-end record (kind says which), wherever it is */
	int (*meta)(const struct il_journal_run *run, json_t *rec, enum il_rec_kind kind, void *ctx,
		    struct il_err *err);
	/* a sample's final record (a sample's other attempts never come here) */
	int (*sample)(const struct il_journal_run *run, const struct il_journal_sample *s, void *ctx,
		      struct il_err *err);
};

/*
 * Read run_dir's journal.jsonl through rd. 0 once the whole journal is read
 * and had a run-start record; IL_EPARSE naming PATH:LINE, IL_ENOMEM, or what
 * a function of rd returned.
 */
int il_journal_read_run(const char *run_dir, const struct il_journal_reader *rd, void *ctx, struct il_err *err);

#endif
