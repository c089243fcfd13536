// SPDX-License-Identifier: GPL-2.0-or-later
/* A table view's tables and notes, and their text, Markdown, CSV and JSON forms. */
#include "report/vtable.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/reportkit.h"
#include "util/str.h"

struct il_vtab *il_vtable_table(struct il_vout *o, const char *name, const char *title)
{
	struct il_vtab **nt = realloc(o->tab, (o->ntab + 1) * sizeof(*nt)), *t = calloc(1, sizeof(*t));

	if (nt)
		o->tab = nt;
	if (!nt || !t || !(t->name = strdup(name)) || !(t->title = strdup(title))) {
		if (t)
			free(t->name);
		free(t);
		o->failed = true;
		return NULL;
	}
	o->tab[o->ntab++] = t;
	return t;
}

void il_vtable_col(struct il_vout *o, struct il_vtab *t, const char *name, enum il_vkind kind)
{
	char **nc;
	enum il_vkind *nk;

	if (!t || o->failed)
		return;
	if (t->nrow || !(nc = realloc(t->col, (t->ncol + 1) * sizeof(*nc)))) {
		o->failed = true;
		return;
	}
	t->col = nc;
	if (!(nk = realloc(t->kind, (t->ncol + 1) * sizeof(*nk))) || !(t->col[t->ncol] = strdup(name))) {
		if (nk)
			t->kind = nk;
		o->failed = true;
		return;
	}
	t->kind = nk;
	t->kind[t->ncol++] = kind;
}

void il_vtable_row(struct il_vout *o, struct il_vtab *t)
{
	struct il_vcell *nc;

	if (!t || o->failed)
		return;
	if (!(nc = realloc(t->cell, (t->nrow + 1) * t->ncol * sizeof(*nc)))) {
		o->failed = true;
		return;
	}
	t->cell = nc;
	for (size_t c = 0; c < t->ncol; c++)
		t->cell[t->nrow * t->ncol + c] = (struct il_vcell){ NULL, NAN };
	t->nrow++;
	t->cur = 0;
}

/* The next cell of the current row, or NULL (o failed, or the row is full: a builder's mistake). */
static struct il_vcell *next_cell(struct il_vout *o, struct il_vtab *t)
{
	if (!t || o->failed || !t->nrow || t->cur >= t->ncol) {
		o->failed = true;
		return NULL;
	}
	return &t->cell[(t->nrow - 1) * t->ncol + t->cur++];
}

void il_vtable_s(struct il_vout *o, struct il_vtab *t, const char *s)
{
	struct il_vcell *c = next_cell(o, t);

	if (c && s && !(c->s = strdup(s)))
		o->failed = true;
}

void il_vtable_n(struct il_vout *o, struct il_vtab *t, double v)
{
	struct il_vcell *c = next_cell(o, t);

	if (c)
		c->v = v;
}

void il_vtable_note(struct il_vout *o, const char *fmt, ...)
{
	char note[1024]; /* a sentence or two */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	if (il_strlist_push(&o->notes, note))
		o->failed = true;
}

int il_vtable_error(const struct il_vout *o)
{
	return o->failed ? IL_ENOMEM : 0;
}

void il_vtable_release(struct il_vout *o)
{
	for (size_t i = 0; i < o->ntab; i++) {
		struct il_vtab *t = o->tab[i];

		for (size_t c = 0; c < t->ncol; c++)
			free(t->col[c]);
		for (size_t k = 0; k < t->nrow * t->ncol; k++)
			free(t->cell[k].s);
		IL_FREE_ALL(t->name, t->title, t->col, t->kind, t->cell, t);
	}
	free(o->tab);
	il_strlist_release(&o->notes);
	memset(o, 0, sizeof(*o));
}

/* A cell as text and Markdown print it, into buf. */
static const char *cell_text(char *buf, size_t n, enum il_vkind k, const struct il_vcell *c)
{
	static const char *const fmt[] = {
		[IL_VK_COUNT] = "%.0f", [IL_VK_FIX3] = "%.3f", [IL_VK_FIX1] = "%.1f",
		[IL_VK_FIX2] = "%.2f",  [IL_VK_CHG0] = "%.0f", [IL_VK_CHG1] = "%+.1f",
	};

	if (k == IL_VK_TEXT)
		snprintf(buf, n, "%s", c->s ? c->s : "-");
	else if (!isfinite(c->v))
		snprintf(buf, n, "-");
	else if (k == IL_VK_NUM)
		il_report_fmt_num(buf, n, c->v);
	else
		snprintf(buf, n, fmt[k], c->v);
	return buf;
}

static void text_table(const struct il_vtab *t, struct il_buf *b)
{
	size_t *w = calloc(t->ncol ? t->ncol : 1, sizeof(*w));
	char cell[128];

	if (!w) {
		il_buf_printf(b, "(%s)\n", il_err_strerror(IL_ENOMEM));
		return;
	}
	for (size_t c = 0; c < t->ncol; c++) {
		w[c] = strlen(t->col[c]);
		for (size_t r = 0; r < t->nrow; r++) {
			size_t n = strlen(cell_text(cell, sizeof(cell), t->kind[c], &t->cell[r * t->ncol + c]));

			if (n > w[c])
				w[c] = n;
		}
	}
	for (size_t r = 0; r <= t->nrow; r++) {
		for (size_t c = 0; c < t->ncol; c++) {
			const char *s = r ? cell_text(cell, sizeof(cell), t->kind[c], &t->cell[(r - 1) * t->ncol + c]) :
					    t->col[c];
			int pad = (int)(w[c] - strlen(s));

			/* text columns left, numbers right; no trailing blanks */
			if (c)
				il_buf_adds(b, " ");
			if (t->kind[c] != IL_VK_TEXT)
				il_buf_printf(b, "%*s%s", pad, "", s);
			else
				il_buf_printf(b, "%s%*s", s, c + 1 < t->ncol ? pad : 0, "");
		}
		il_buf_adds(b, "\n");
	}
	free(w);
}

static void md_table(const struct il_vtab *t, struct il_buf *b)
{
	char cell[128];

	il_buf_adds(b, "|");
	for (size_t c = 0; c < t->ncol; c++) {
		il_buf_adds(b, " ");
		il_report_md_cell(b, t->col[c]);
		il_buf_adds(b, " |");
	}
	il_buf_adds(b, "\n|");
	for (size_t c = 0; c < t->ncol; c++)
		il_buf_adds(b, t->kind[c] == IL_VK_TEXT ? "---|" : "---:|");
	il_buf_adds(b, "\n");
	for (size_t r = 0; r < t->nrow; r++) {
		il_buf_adds(b, "|");
		for (size_t c = 0; c < t->ncol; c++) {
			il_buf_adds(b, " ");
			il_report_md_cell(b, cell_text(cell, sizeof(cell), t->kind[c], &t->cell[r * t->ncol + c]));
			il_buf_adds(b, " |");
		}
		il_buf_adds(b, "\n");
	}
}

int il_vtable_text(const struct il_vout *o, bool md, struct il_buf *b)
{
	for (size_t i = 0; i < o->ntab; i++) {
		const struct il_vtab *t = o->tab[i];

		if (md) {
			il_buf_adds(b, "### ");
			il_report_md_cell(b, t->title);
			il_buf_adds(b, "\n\n");
			md_table(t, b);
		} else {
			il_buf_printf(b, "%s\n", t->title);
			text_table(t, b);
		}
		il_buf_adds(b, "\n");
	}
	for (size_t i = 0; i < o->notes.n; i++) {
		if (md) {
			il_buf_adds(b, "- ");
			il_report_md_cell(b, o->notes.v[i]);
		} else {
			il_buf_adds(b, "* ");
			il_report_wrap(b, o->notes.v[i], 98, 2);
		}
		il_buf_adds(b, "\n");
	}
	return il_buf_error(b);
}

int il_vtable_csv(const struct il_vout *o, struct il_buf *b)
{
	for (size_t i = 0; i < o->ntab; i++) {
		const struct il_vtab *t = o->tab[i];

		il_buf_adds(b, "table");
		for (size_t c = 0; c < t->ncol; c++) {
			il_buf_adds(b, ",");
			il_report_csv_field(b, t->col[c]);
		}
		il_buf_adds(b, "\r\n");
		for (size_t r = 0; r < t->nrow; r++) {
			il_report_csv_field(b, t->name);
			for (size_t c = 0; c < t->ncol; c++) {
				const struct il_vcell *x = &t->cell[r * t->ncol + c];

				il_buf_adds(b, ",");
				if (t->kind[c] == IL_VK_TEXT)
					il_report_csv_field(b, x->s ? x->s : "");
				else if (isfinite(x->v))
					il_buf_printf(b, "%.10g", x->v);
			}
			il_buf_adds(b, "\r\n");
		}
	}
	/* the notes too: "no clusters: ..." is the answer when there is no table */
	if (o->notes.n)
		il_buf_adds(b, "table,note\r\n");
	for (size_t i = 0; i < o->notes.n; i++) {
		il_buf_adds(b, "notes,");
		il_report_csv_field(b, o->notes.v[i]);
		il_buf_adds(b, "\r\n");
	}
	return il_buf_error(b);
}

/* Table t as {"name", "title", "columns": [{name, kind}], "rows": [[...]]}, or NULL when memory ran out. */
static json_t *vtab_json(const struct il_vtab *t)
{
	json_t *cols = json_array(), *rows = json_array();
	int bad = !cols || !rows;

	for (size_t c = 0; !bad && c < t->ncol; c++)
		bad |= json_array_append_new(cols, json_pack("{s:s,s:s}", "name", t->col[c], "kind",
							     t->kind[c] == IL_VK_TEXT ? "text" : "number"));
	for (size_t r = 0; !bad && r < t->nrow; r++) {
		json_t *row = json_array();

		/* append_new takes its value even when it fails (a NULL row too) */
		for (size_t c = 0; c < t->ncol; c++) {
			const struct il_vcell *x = &t->cell[r * t->ncol + c];

			if (t->kind[c] == IL_VK_TEXT)
				bad |= json_array_append_new(row, x->s ? json_string(x->s) : json_null());
			else
				bad |= json_array_append_new(row, isfinite(x->v) ? json_real(x->v) : json_null());
		}
		bad |= json_array_append_new(rows, row);
	}
	if (bad) {
		json_decref(cols), json_decref(rows);
		return NULL;
	}
	/* json_pack takes cols and rows (its "o"s) even when it fails */
	return json_pack("{s:s,s:s,s:o,s:o}", "name", t->name, "title", t->title, "columns", cols, "rows", rows);
}

json_t *il_vtable_json(const struct il_vout *o)
{
	json_t *j = json_object(), *tabs = json_array(), *notes = json_array();
	int bad = 0;

	/* each append_new or set_new takes its value even when it fails (a NULL container too) */
	for (size_t i = 0; !bad && i < o->ntab; i++)
		bad |= json_array_append_new(tabs, vtab_json(o->tab[i]));
	for (size_t i = 0; !bad && i < o->notes.n; i++)
		bad |= json_array_append_new(notes, json_string(o->notes.v[i]));
	bad |= json_object_set_new(j, "tables", tabs);
	bad |= json_object_set_new(j, "notes", notes);
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}
