/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a comparison works on: per metric, the values of every variant, in
 * sample order. Built from a run's journal.jsonl (only final "ok" samples
 * count: warmups, failures, invalid and interrupted samples never do) or from
 * plain text files of numbers, one per line (like ministat). Also keeps the
 * per-iteration rows the mailing-list table shows and the mean residency per
 * state, and the run's metadata for the Tested-by block.
 */
#ifndef IL_STATS_DATASET_H
#define IL_STATS_DATASET_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "util/err.h"
#include "util/strlist.h"

enum il_better { IL_BETTER_NONE = 0, IL_BETTER_HIGHER = 1, IL_BETTER_LOWER = -1 };
/* "higher", "lower" or "none": the one spelling of a direction in journals, indexes and reports. */
const char *il_dataset_better_name(enum il_better b);

struct il_values {
	size_t n, cap;
	double *v;
	int *it;            /* iteration of each value (line number for files) */
};

struct il_mseries {
	char *key;          /* "pingpong.usec_per_loop", "pingpong.idle.miss_ratio", "value" */
	char *group;        /* workload label ("" for files) */
	char *metric;       /* "usec_per_loop", "idle.miss_ratio" */
	char *unit;
	enum il_better better;
	bool idle;          /* an idle-counter metric (not the workload's own) */
	bool key_metric;    /* in the decision family: its workload's key_metrics (stats/compare.h) */
	double abs_floor;   /* the absolute minimum change that can be a finding, in unit (0: none; stats/decide.h) */
	struct il_values *var; /* [nvar] */
};

/*
 * One counted sample: a row of the per-iteration table (the seeds' shape;
 * NaN where absent), and what the table views (report/views.c) compute
 * from: the sample's idle JSON and its workload's matrix, as the journal has
 * them (owned references, NULL when absent; docs/formats.md).
 */
struct il_row {
	char *group, *variant;
	int iteration;
	double score, idles, idle_miss, ratio, belows, aboves;
	json_t *idle;       /* the sample record's "idle": total, states, clusters, energy */
	json_t *matrix;     /* the run-start workload's "matrix": {"base", "params"}, or NULL */
};

/* Mean residency of one state for one workload and variant. */
struct il_resid {
	char *group, *variant, *state;
	double usage_share, time_share;
	size_t n;
};

struct il_dataset {
	char *title;
	size_t nvar;
	char **var;         /* variant labels, in plan order */
	char *reference;    /* the plan's reference, or the first variant */
	char *aa;           /* the A/A partner of the reference (same governor and states), or NULL */
	size_t nmet;
	struct il_mseries *met;
	size_t nrows;
	struct il_row *rows;
	size_t nres;
	struct il_resid *res;
	size_t counted, skipped;/* samples used / final samples not counted (warmup, failed, ...) */
	size_t looks;       /* an adaptive run's planned looks (max - min + 1 of its iterations); 0: a fixed run */
	size_t iter_max;    /* an adaptive run's maximum of rounds; 0: a fixed run */
	json_t *meta;       /* {"run_start": ..., "run_end": ... (when written), "stop": an adaptive run's stop
			       record, "fingerprints": {host: ...}, "host_kinds": {host: kind}, "kernel_releases":
			       {kernel: the release its first counted sample ran on}} or null */
};

/*
 * Add a run directory: everything comes from its journal.jsonl (the run-start
 * record gives variants, reference and metric directions). prefix (NULL or
 * "") is put before variant labels when several runs are compared.
 */
int il_datajournal_add_run(struct il_dataset *ds, const char *run_dir, const char *prefix, struct il_err *err);
/* Add a file of numbers as variant `name` (metric "value"; blank lines and # comments ignored). */
int il_dataset_add_file(struct il_dataset *ds, const char *path, const char *name, struct il_err *err);
void il_dataset_release(struct il_dataset *ds);

/* Give metrics from number files (which carry no direction) the direction b. */
void il_dataset_file_direction(struct il_dataset *ds, enum il_better b);

/*
 * Whether a metric (its full key and its metric part) is one of only: a full
 * key, its metric part or a last part of its key after a '.' (what
 * `--metric` takes); NULL or empty only: every metric is.
 */
bool il_dataset_metric_selected(const char *key, const char *metric, const struct il_strlist *only);

/*
 * Copy every metric's values of src's variant label into out as variant as
 * (added when new; metrics made on first sight with src's key, unit and
 * direction): one variant of two runs side by side, e.g. a nightly and its
 * baseline. IL_ENOTFOUND when src has no such variant, IL_ENOMEM.
 */
int il_dataset_pick(struct il_dataset *out, const struct il_dataset *src, const char *label, const char *as);

/*
 * Whether two run-start variants' kernels (their "kernel" values) are one
 * kernel: the same name, or two built kernels of the same commit (idlelab
 * try's base and its A/A copy base-aa: the same build, booted again).
 */
bool il_datajournal_same_kernel(const json_t *run_start, const json_t *a, const json_t *b);

/* The absolute floor of metric group.metric (an existing series; nothing when there is none). */
void il_dataset_set_floor(struct il_dataset *ds, const char *group, const char *metric, double abs_floor);

/* Index of a variant label, or -1. */
int il_dataset_var(const struct il_dataset *ds, const char *label);

/*
 * For the readers (number files here, journals in stats/datajournal.c): the
 * variant label's index, added with an empty series in every metric when new
 * (IL_ENOMEM, negative); and value v of iteration it into metric
 * group.metric of variant var, the metric made with unit, direction and
 * idle on first sight (IL_ENOMEM).
 */
int il_dataset_add_variant(struct il_dataset *ds, const char *label);
int il_dataset_add_value(struct il_dataset *ds, int var, const char *group, const char *metric, const char *unit,
			 enum il_better better, bool idle, double v, int it);

#endif
