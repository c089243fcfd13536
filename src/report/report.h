/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reports of a comparison: plain text for linux-pm mail (at most 100
 * columns, per-iteration rows in the seeds' shape, then a summary), GitHub
 * Markdown, CSV (RFC 4180), JSON (docs/report.md) and one self-contained HTML
 * file with plots; and the Tested-by evidence block. All are rendered from
 * an il_cmp, which is built from journal.jsonl alone.
 */
#ifndef IL_REPORT_REPORT_H
#define IL_REPORT_REPORT_H
#include <jansson.h>
#include "stats/compare.h"
#include "util/buf.h"

enum il_fmt { IL_FMT_TEXT, IL_FMT_MD, IL_FMT_CSV, IL_FMT_JSON, IL_FMT_HTML, IL_NFMT };

int il_fmt_parse(const char *s, enum il_fmt *out, struct il_err *err);
/* File extension ("txt", "md", "csv", "json", "html"). */
const char *il_fmt_ext(enum il_fmt f);

/* Render c in format f, appended to out. */
int il_report_render(const struct il_cmp *c, enum il_fmt f, struct il_buf *out, struct il_err *err);

/* The JSON report (caller owns the reference). */
json_t *il_report_json(const struct il_cmp *c);

/*
 * The Tested-by evidence block: platform, kernels, governors, workloads,
 * iterations, the compact table, the verdict in words, and the trailer.
 * as: "Name <email>", or NULL for user.name/user.email from git config.
 */
int il_report_tested_by(const struct il_cmp *c, const char *as, struct il_buf *out, struct il_err *err);

/* Said in every report of a run on idlelab's QEMU lab host. */
#define IL_LAB_CAVEAT \
	"Measured on idlelab's QEMU lab host (arm64, TCG): governor decisions and idle counters are real; every idle " \
	"state is WFI underneath, so power and exit-latency differences are not."
bool il_report_on_lab(const struct il_dataset *ds);

/* Shared by the renderers: a number in at most ~10 characters, "-" for NaN. */
const char *il_fmt_num(char *buf, size_t n, double v);

/* Append text word-wrapped at width columns, continuation lines indented by indent spaces. */
int il_report_wrap(struct il_buf *out, const char *text, size_t width, size_t indent);

/* compact: means instead of every row, and only the metrics a reply needs. */
int il_report_text(const struct il_cmp *c, struct il_buf *out, bool compact);
int il_report_md(const struct il_cmp *c, struct il_buf *out);
int il_report_csv(const struct il_cmp *c, struct il_buf *out);
int il_report_html(const struct il_cmp *c, struct il_buf *out);

#endif
