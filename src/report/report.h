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
#include "report/render.h"
#include "stats/compare.h"
#include "util/buf.h"

/* The formats; their names, extensions and renderers are one table in report.c. */
enum il_fmt { IL_FMT_TEXT, IL_FMT_MD, IL_FMT_CSV, IL_FMT_JSON, IL_FMT_HTML, IL_NFMT };

int il_report_fmt_parse(const char *s, enum il_fmt *out, struct il_err *err);
/* Name ("text", "md", ...) and file extension ("txt", "md", "csv", "json", "html"). */
const char *il_report_fmt_name(enum il_fmt f);
const char *il_report_fmt_ext(enum il_fmt f);

/* Render c in format f, appended to out. */
int il_report_render(const struct il_cmp *c, enum il_fmt f, struct il_buf *out, struct il_err *err);

/* What `idlelab tested-by` asks for. */
struct il_tb_opts {
	const char *as;   /* "Name <email>", or NULL for user.name/user.email from git config */
	bool force;       /* the trailer even where the rules say evidence only (the output says so and why) */
	bool full;        /* everything: the whole text report and command line, not the <= 60-line block */
	bool no_header;   /* without the rules and the platform (a later part of a reply that has said them) */
	bool no_trailer;  /* without the Tested-by line (an earlier part of a reply: the trailer goes once, last) */
};

/*
 * The Tested-by block: "host not quiet" first when the A/A pair differs,
 * then whether this is a Tested-by at all (the rules: a kernel under test
 * was measured, no host is the emulated lab; else "Evidence, not a
 * Tested-by" with the rules that failed), platform and environment,
 * kernels, governors, workloads, iterations, the key metrics, the verdict in
 * words, and the trailer once, at the end, when it is due (or forced).
 */
int il_testedby_report(const struct il_cmp *c, const struct il_tb_opts *o, struct il_buf *out, struct il_err *err);

#endif
