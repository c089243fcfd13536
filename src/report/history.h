/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan's history (il_history_series's object, workflow/history.h) as text
 * (one block per metric, a row per run, a line per change point, at most 100
 * columns), CSV (a row per point), JSON (the object itself: docs/formats.md
 * "History JSON") or one self-contained HTML page with a line plot per metric
 * (change points as dashed lines, and their lines under the plot).
 */
#ifndef IL_REPORT_HISTORY_H
#define IL_REPORT_HISTORY_H
#include <stdbool.h>
#include <jansson.h>
#include "report/report.h"
#include "util/buf.h"

/*
 * Render hist in format f (text, csv, json or html; md is IL_EINVAL),
 * appended to out. all: every metric of hist; else text and HTML leave out
 * idle metrics without a direction (counts, shares: what compare's HTML
 * plots leave out too), unless no other metric is left.
 */
int il_report_history(const json_t *hist, enum il_fmt f, bool all, struct il_buf *out, struct il_err *err);

#endif
