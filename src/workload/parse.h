/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Score parsers: turn a workload's saved output into named metric values.
 * One parser per output format (fio JSON, schbench, ebizzy, adrestia,
 * cyclictest, hackbench, perf bench sched pipe, pgbench, and idlelab's own
 * `key: value` workloads). A metric the definition promises but the output
 * lacks is an error naming the metric, never a silent 0.
 */
#ifndef IL_WORKLOAD_PARSE_H
#define IL_WORKLOAD_PARSE_H
#include <stdbool.h>
#include <jansson.h>
#include "util/err.h"
#include "workload/workload.h"

/* Whether a parser of that name exists. */
bool il_parse_exists(const char *name);
/* Names of all parsers, NULL-terminated (static). */
const char *const *il_parse_names(void);

/*
 * Parse output (len bytes) with the parser `name`: *out is a new object of
 * every value the parser recognised (caller owns). label names the output in
 * errors (a file, "sample 12 stdout").
 */
int il_parse_output(const char *name, const char *text, size_t len, const char *label, json_t **out,
		    struct il_err *err);

/* Parse with w's parser and keep exactly w's metrics (all must be present). */
int il_workload_parse(const struct il_workload *w, const char *text, size_t len, const char *label, json_t **out,
		      struct il_err *err);

#endif
