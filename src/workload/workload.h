/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workload definitions (workloads/<name>.json): an argv template with typed,
 * defaulted parameters, required binaries, the parser that reads the output
 * and the metrics it yields (unit, better higher or lower). argv elements
 * are util/template strings ("{name}" anywhere, "{{"/"}}" literal braces);
 * a string parameter must be a whole element, integers and numbers may be
 * pasted into text; {"if": PARAM, "then": [...], "else": [...]} (PARAM true,
 * a non-zero number or a non-empty string) and {"concat": [...]} remain.
 * Each element stays one argument, so a value can never become shell syntax
 * or a second argument. A metric may be a pattern, one per value of an
 * integer parameter ("lat_max_t{n}_us", "count": "threads"), which a plan
 * binds to its params. Reading one from its JSON is workload/workloadjson.h's;
 * this header has the definition and what is done with it.
 */
#ifndef IL_WORKLOAD_WORKLOAD_H
#define IL_WORKLOAD_WORKLOAD_H
#include <stdbool.h>
#include <jansson.h>
#include "util/strlist.h"

enum il_param_type { IL_PARAM_INT, IL_PARAM_NUM, IL_PARAM_STR, IL_PARAM_BOOL };

struct il_wl_param {
	char *name;
	enum il_param_type type;
	json_t *def;          /* default value (owned reference) */
	bool has_min, has_max;
	double min, max;
	struct il_strlist choices; /* strings: allowed values (empty: any without NUL) */
	char *help;
};

struct il_wl_metric {
	char *name;           /* a pattern "lat_max_t{n}_us" when count is set */
	char *unit;
	bool higher_better;
	char *help;
	char *count;          /* NULL, or the integer parameter giving how many: one metric per n in 0..count-1 */
};

/* At most this many metrics from one pattern (il_workload_bind_metrics). */
#define IL_WL_MAX_EACH 1024

struct il_workload {
	char *name;
	char *description;
	char *notes;           /* why the defaults are what they are (cyclictest and PM QoS, ...) */
	bool builtin;          /* built from workloads/src and uploaded by idlelab */
	json_t *argv;          /* the template (owned reference) */
	size_t nparams;
	struct il_wl_param *params;
	struct il_strlist requires;
	char *parser;
	size_t nmetrics;
	struct il_wl_metric *metrics;
	struct il_strlist key_metrics; /* the decision family's metrics (docs/workloads.md); default: il_workload_key_default */
	char *path;            /* the file it came from */
};

/*
 * The default key metrics of a workload that names none, and of a journal
 * older than key_metrics: its first metric (the score), and the idle
 * misses as a share and a count, and energy where the host has it.
 * idx is the metric's position among the workload's own metrics, or -1 for
 * an idle metric ("idle.miss_pct").
 */
bool il_workload_key_default(const char *metric, long idx);

/*
 * The definitions directory: dir if given, else "./workloads" (the search path: cli/clipaths.c). dir may be a
 * search path (util/search.h: the first directory holding a name wins). Borrowed.
 */
const char *il_workload_dir(const char *dir);

/* What w holds (a definition from workload/workloadjson.h), and w zeroed. */
void il_workload_release(struct il_workload *w);

/* w's metric or parameter of that name (borrowed from w), or NULL. */
const struct il_wl_metric *il_workload_metric(const struct il_workload *w, const char *name);
const struct il_wl_param *il_workload_param(const struct il_workload *w, const char *name);

/*
 * Check value v against parameter p: its type, range or choices; where names
 * v in errors (IL_EPARSE). Both a definition's defaults (workload/workloadjson.c)
 * and a plan's values go through it.
 */
int il_workload_value_check(const struct il_wl_param *p, const json_t *v, const char *where, struct il_err *err);

/*
 * Check overrides (an object, or NULL) against the parameters and fill in
 * defaults: *out is a new object with every parameter. path names the
 * overrides in errors ("workloads[2].params"): an unknown parameter, a wrong
 * type or a value out of range is an error naming path.param.
 */
int il_workload_params(const struct il_workload *w, const json_t *overrides, const char *path, json_t **out,
		       struct il_err *err);

/*
 * Check one parameter value: v for parameter name, where naming it in errors
 * ("workloads[1].matrix.device[2]"): an unknown parameter, a wrong type or a
 * value out of range.
 */
int il_workload_param_check(const struct il_workload *w, const char *name, const json_t *v, const char *where,
			    struct il_err *err);

/*
 * Replace each pattern metric ("lat_max_t{n}_us" with count "threads") by
 * the concrete metrics the resolved params give (lat_max_t0_us ...), so a
 * plan's workload and the journal declare every metric by name. path names
 * the params in errors ("workloads[0].params").
 */
int il_workload_bind_metrics(struct il_workload *w, const json_t *params, const char *path, struct il_err *err);

/* Whether key is one of pattern metric m's concrete names (m->name with digits for "{n}"). */
bool il_workload_metric_matches(const struct il_wl_metric *m, const char *key);

/* The argv for resolved params (from il_workload_params), appended to out. */
int il_workload_argv(const struct il_workload *w, const json_t *params, struct il_strlist *out, struct il_err *err);

/* The definition as JSON (for `workload show`). Caller owns the reference. */
json_t *il_workload_to_json(const struct il_workload *w);

#endif
