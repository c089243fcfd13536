/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The renderers, one file each (text.c: text and Markdown; csv.c; json.c;
 * html.c): each appends one report of an il_cmp to the caller's buffer and
 * returns il_buf_error of it (0, IL_ENOMEM or IL_ETOOBIG). report.c's format
 * table dispatches to them; they never call back into report.c.
 */
#ifndef IL_REPORT_RENDER_H
#define IL_REPORT_RENDER_H
#include <stdbool.h>
#include <jansson.h>
#include "report/reportkit.h"
#include "stats/compare.h"
#include "util/buf.h"

/* The mail-width text report: header, per-sample rows, a block per metric, the verdict. */
int il_report_text(const struct il_cmp *c, struct il_buf *out);
int il_text_md(const struct il_cmp *c, struct il_buf *out);
int il_report_csv(const struct il_cmp *c, struct il_buf *out);
int il_report_html(const struct il_cmp *c, struct il_buf *out);
/*
 * The HTML report's section of the traced samples (htmltrace.c): per state
 * the duration histograms' plot and the tick decisions table, appended to
 * out; nothing when no sample was traced. IL_ENOMEM (out's own failures are
 * its sticky error).
 */
int il_html_trace(const struct il_dataset *ds, struct il_buf *out);
/* The JSON report as an object (caller owns the reference), and as indented text appended to out. */
json_t *il_report_json(const struct il_cmp *c);
int il_report_json_text(const struct il_cmp *c, struct il_buf *out);

#endif
