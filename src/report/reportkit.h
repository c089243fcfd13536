/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers every report renderer shares (report/reportkit.c): numbers in at most
 * ~10 characters, word wrapping, Markdown and CSV cells, and whether a dataset comes from the QEMU
 * lab host (then each report says il_report_lab_caveat). Nothing here allocates
 * except into the caller's il_buf.
 */
#ifndef IL_REPORT_REPORTKIT_H
#define IL_REPORT_REPORTKIT_H
#include <stdbool.h>
#include <stddef.h>
#include "stats/compare.h"
#include "stats/dataset.h"
#include "util/buf.h"

/*
 * What every report of a run on idlelab's QEMU lab host says (lab/labarch.h's
 * caveat of the lab host's architecture, by its fingerprint's kernel.arch;
 * arm64's when not recorded); NULL when no host record of the run says kind
 * "lab" (journals before the field have none).
 */
const char *il_report_lab_caveat(const struct il_dataset *ds);

/* The lab host's "every idle state is ... underneath" phrase for host (as il_report_lab_caveat). */
const char *il_report_lab_underneath(const struct il_dataset *ds, const char *host);

/*
 * An adaptive run's stop in words into b: "adaptive run (iterations 5-40,
 * alpha 0.05 over 36 looks): stopped after 7 rounds: every key comparison
 * decided" (or the maximum reached, or not stopped yet); false (b
 * untouched) when the run is not adaptive.
 */
bool il_report_stop_note(const struct il_cmp *c, struct il_buf *b);

/* A number in at most ~10 characters, "-" for NaN; written into buf, returned. */
const char *il_report_fmt_num(char *buf, size_t n, double v);

/* s as one GitHub Markdown table cell: markup characters escaped, newlines as spaces. */
void il_report_md_cell(struct il_buf *b, const char *s);
/* s as one CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF (quotes doubled). */
void il_report_csv_field(struct il_buf *b, const char *s);

/* ---- HTML (report/html.c, report/history.c) ---- */

/* s with &, <, >, " and ' as entities: every string from a journal or an index goes through it. */
void il_report_html_esc(struct il_buf *b, const char *s);
/* The i-th color of the plots' palette (ten, used in turn): "#4e79a7". */
const char *il_report_palette(size_t i);
/* A self-contained page's start (doctype, inline CSS, <body>) up to its <h1>title</h1>. */
void il_report_html_begin(struct il_buf *b, const char *title);
/* The page's end: the script that marks it loaded (data-report-ok, what the e2e checks in a browser), </html>. */
void il_report_html_end(struct il_buf *b);
/* A plot's start: <figure> with caption "KEY (UNIT)" and an <svg> 640 wide and h high (close with "</svg></figure>"). */
void il_report_svg_open(struct il_buf *b, const char *key, const char *unit, size_t h);

/*
 * The index of s among the n names name(0..n-1) in *out, or IL_EINVAL with
 * "unknown WHAT 's' (a, b or c)": how a format or a view is chosen by name.
 */
int il_report_pick(const char *s, const char *(*name)(int i), int n, const char *what, int *out, struct il_err *err);

/* Append text word-wrapped at width columns, continuation lines indented by indent spaces. */
int il_report_wrap(struct il_buf *out, const char *text, size_t width, size_t indent);

#endif
