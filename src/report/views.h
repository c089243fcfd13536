/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table views: the seed threads' own tables, reproduced from a run's journal
 * (`idlelab compare|report --view NAME`, docs/report.md "Views"). One view
 * per table shape, declared once in views[] (views.c):
 *
 *   iterations  per-iteration rows with %change vs the reference's first
 *               counted iteration of the same workload; a matrix workload's
 *               parameters as the first columns (Loehle's fio and schbench)
 *   states      per variant: mean score, change vs the reference, each idle
 *               state's usage %, package watts (Smythies' ping-pong)
 *   clusters    per variant and cluster: residency per state, too deep % and
 *               too shallow % (the Pixel 6 reply)
 *   misses      the workload's metrics with change, then Total/Above/Below
 *               usage and Above %/Below %/miss % (the pgbench patch)
 *   latency     cyclictest's average and maximum, and the maximum per thread
 *               (the nohz_full cyclictest reply)
 *   durations   per state, from the traced samples' idle.trace: the idle
 *               periods' durations and the misses' offsets as log2
 *               histograms, and the tick decisions (issue #30); a note when
 *               no sample was traced
 *
 * A view is built as data (report/vtable.h) from the dataset's rows (each
 * sample's idle JSON) and metric series, then rendered as text, Markdown,
 * CSV or JSON; HTML has no views.
 */
#ifndef IL_REPORT_VIEWS_H
#define IL_REPORT_VIEWS_H
#include "report/report.h"
#include "report/vtable.h"

enum il_view {
	IL_VIEW_ITERATIONS,
	IL_VIEW_STATES,
	IL_VIEW_CLUSTERS,
	IL_VIEW_MISSES,
	IL_VIEW_LATENCY,
	IL_VIEW_DURATIONS,
	IL_NVIEW
};

/* "iterations", ...; IL_EINVAL naming the views otherwise. */
int il_views_parse(const char *s, enum il_view *out, struct il_err *err);
const char *il_views_name(enum il_view v);

/* The view's tables and notes into out (zeroed by the caller; il_vtable_release frees). */
int il_views_build(const struct il_cmp *c, enum il_view v, struct il_vout *out);

/* View v of c in format f, appended to out; html is refused with a message naming the formats. */
int il_views_report(const struct il_cmp *c, enum il_view v, enum il_fmt f, struct il_buf *out, struct il_err *err);

#endif
