/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A table view's output as data: named tables of typed columns, and notes
 * (report/views.c builds one per view; this file renders it). Every format
 * carries the same cells: text (columns aligned, numbers right), GitHub
 * Markdown, CSV (RFC 4180: each table has its header row, and every row
 * starts with the table's name, so one file holds several tables; the
 * notes are a last table "notes") and JSON
 * (schema idlelab-view/1, docs/report.md). A column's kind says how text
 * and Markdown print its numbers; CSV and JSON carry them unrounded.
 *
 * Appending is failure-sticky, like il_buf: build freely, then check
 * il_vtable_error once. Everything is owned by the il_vout; il_vtable_release
 * frees it.
 */
#ifndef IL_REPORT_VTABLE_H
#define IL_REPORT_VTABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "util/buf.h"
#include "util/strlist.h"

enum il_vkind {
	IL_VK_TEXT,   /* a string */
	IL_VK_COUNT,  /* an integer-valued number: %.0f */
	IL_VK_NUM,    /* il_report_fmt_num: at most ~10 characters */
	IL_VK_FIX1,   /* %.1f: percentages, watts */
	IL_VK_FIX2,   /* %.2f: small percentages (miss rates) */
	IL_VK_FIX3,   /* %.3f: ratios, microseconds, seconds */
	IL_VK_CHG0,   /* %.0f of a signed change in percent, as the seed tables print it ("-0" included) */
	IL_VK_CHG1,   /* %+.1f: a signed change in percent */
};

struct il_vcell {
	char *s;      /* IL_VK_TEXT: the text (NULL: "-") */
	double v;     /* numbers: the value (NaN: "-" in text, empty in CSV, null in JSON) */
};

struct il_vtab {
	char *name;   /* short, for CSV rows and JSON ("iterations", "idle") */
	char *title;  /* one line above the table in text and Markdown */
	size_t ncol, nrow, cur;
	char **col;
	enum il_vkind *kind;
	struct il_vcell *cell; /* [nrow][ncol] */
};

struct il_vout {
	size_t ntab;
	struct il_vtab **tab;    /* each its own allocation: a table pointer stays valid as tables are added */
	struct il_strlist notes; /* sentences printed under the tables */
	bool failed;             /* an append failed for memory */
};

/* A new table at the end of o (NULL when memory ran out: o is then failed). */
struct il_vtab *il_vtable_table(struct il_vout *o, const char *name, const char *title);
/* Add a column (before the first row). */
void il_vtable_col(struct il_vout *o, struct il_vtab *t, const char *name, enum il_vkind kind);
/* Start a row: its cells are "-" until set; il_vtable_s/il_vtable_n fill them left to right. */
void il_vtable_row(struct il_vout *o, struct il_vtab *t);
void il_vtable_s(struct il_vout *o, struct il_vtab *t, const char *s);
void il_vtable_n(struct il_vout *o, struct il_vtab *t, double v);
void il_vtable_note(struct il_vout *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* IL_ENOMEM when an append failed, else 0. */
int il_vtable_error(const struct il_vout *o);
void il_vtable_release(struct il_vout *o);

/* The tables as aligned text (md: GitHub tables under "### title"), then the notes. */
int il_vtable_text(const struct il_vout *o, bool md, struct il_buf *out);
/* The tables as CSV: per table a header row "table,COL,...", then "NAME,CELL,..." rows; the notes as table "notes". */
int il_vtable_csv(const struct il_vout *o, struct il_buf *out);
/*
 * {"tables": [{name, title, columns: [{name, kind}], rows: [[...]]}], "notes": [...]}
 * (the caller owns it; NULL: memory ran out).
 */
json_t *il_vtable_json(const struct il_vout *o);

#endif
