/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every table view's builder (report/views.c) needs: numbers from a
 * sample's idle JSON, changes and means, the dataset's workload groups,
 * metrics and verdicts, the idle states' keys in index order, and tables
 * whose rows start with the workload and the variant. Kept apart from the
 * builders so a new view finds them in one place and adds only its shape.
 */
#ifndef IL_REPORT_VIEWKIT_H
#define IL_REPORT_VIEWKIT_H

#include <jansson.h>

#include "report/report.h"
#include "report/vtable.h"

/* The number at key in o, NaN when it is absent or not a number. */
double il_viewkit_jnum(const json_t *o, const char *key);

/* The change of v against ref in percent, as il_compare computes it (NaN when ref is 0 or absent). */
double il_viewkit_change(double v, double ref);

/* The mean of a series, NaN when it is empty. */
double il_viewkit_mean(const struct il_values *s);

/* A running mean of the values that exist (NaN and infinities are left out); zero-initialized. */
struct il_view_avg {
	double sum;
	size_t n;
};

void il_viewkit_avg_add(struct il_view_avg *a, double v);
/* The mean so far, NaN when nothing was added. */
double il_viewkit_avg_get(const struct il_view_avg *a);

/* The workload labels in order of their first counted sample (the plan's order), added to g. IL_ENOMEM. */
int il_viewkit_groups(const struct il_dataset *ds, struct il_strlist *g);

/* Whether row r is of workload group and of variant (NULL: any variant). */
bool il_viewkit_row_is(const struct il_row *r, const char *group, const char *variant);

/* Metric `metric` (a workload's own, not an idle one) of group g, or NULL; metric NULL: its first. */
const struct il_mseries *il_viewkit_metric(const struct il_dataset *ds, const char *g, const char *metric);

/* The score of group g: its workload's first metric (il_viewkit_metric with NULL). */
#define il_view_score(ds, g) il_viewkit_metric(ds, g, NULL)

/* Metric m's verdict for variant v in the comparison ("-" when --metric left m out). */
const char *il_viewkit_verdict(const struct il_cmp *c, const struct il_mseries *m, size_t v);

/* A matrix value as its column shows it, written into buf (n bytes) and returned. */
const char *il_viewkit_value_text(char *buf, size_t n, const json_t *v);

/* A state's label in the idle JSON: v2 "key", v1 "name"; NULL when it has neither. */
const char *il_viewkit_state_key(const json_t *st);

/* The state keys of states arrays, in index order (idx beside each key); zero-initialized, k released by the caller. */
struct il_view_keys {
	struct il_strlist k;
	int idx[256];
};

/* Add the keys of one states array not yet in ks, keeping the order (at most 256 keys). IL_ENOMEM. */
int il_viewkit_keys_add(struct il_view_keys *ks, const json_t *states);

/* The element of states whose key is k, or NULL. */
const json_t *il_viewkit_state_in(const json_t *states, const char *k);

/* A table whose rows start with the workload label and the variant: columns "test" and "gov". */
struct il_vtab *il_viewkit_tg_table(struct il_vout *o, const char *name, const char *title);
/* A new row of an il_viewkit_tg_table, its first cells filled. */
void il_viewkit_tg_row(struct il_vout *o, struct il_vtab *t, const char *group, const char *variant);

/* The latency and durations views' builders (viewlatency.c, viewdurations.c), rows of views.c's views[]. */
int il_viewlatency_build(const struct il_cmp *c, struct il_vout *o);
int il_viewdurations_build(const struct il_cmp *c, struct il_vout *o);

#endif
