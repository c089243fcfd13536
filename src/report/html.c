// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report: one self-contained file (inline CSS and SVG, no network,
 * viewable offline) with a strip plot per metric (every sample as a dot, the
 * median as a bar, one row per variant) and stacked per-state residency bars;
 * a run with traced samples adds htmltrace.c's duration histograms.
 * Every string from a journal goes through il_report_html_esc().
 */
#include "report/render.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/tracesum.h"

/* A table cell of numbers: fmt with its values when ok, else "-". */
__attribute__((format(printf, 3, 4))) static void td_num(struct il_buf *b, bool ok, const char *fmt, ...)
{
	char cell[1024]; /* two %.3f of the largest doubles fit */
	va_list ap;

	if (!ok) {
		il_buf_adds(b, "<td>-</td>");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(cell, sizeof(cell), fmt, ap);
	va_end(ap);
	il_buf_printf(b, "<td>%s</td>", cell);
}

static void strip_plot(struct il_buf *b, const struct il_cmp *c, size_t i)
{
	const struct il_dataset *ds = c->ds;
	const struct il_mseries *m = &ds->met[c->met[i]];
	double lo = INFINITY, hi = -INFINITY;
	const double x0 = 130, w = 380;
	size_t h = 30 + 26 * ds->nvar;
	char n1[32], n2[32];

	for (size_t v = 0; v < ds->nvar; v++)
		for (size_t k = 0; k < m->var[v].n; k++)
			lo = fmin(lo, m->var[v].v[k]), hi = fmax(hi, m->var[v].v[k]);
	if (!isfinite(lo) || hi == lo)
		return; /* nothing to see: every sample of every variant is the same */
	il_report_svg_open(b, m->key, m->unit, h);
	il_buf_printf(b, "<line x1=%g y1=%zu x2=%g y2=%zu class=ax />", x0, h - 22, x0 + w, h - 22);
	il_buf_printf(b, "<text x=%g y=%zu class=t>%s</text><text x=%g y=%zu class=t text-anchor=end>%s</text>", x0, h - 6,
		      il_report_fmt_num(n1, 32, lo), x0 + w, h - 6, il_report_fmt_num(n2, 32, hi));
	for (size_t v = 0; v < ds->nvar; v++) {
		const struct il_mres *x = il_compare_res(c, i, v);
		double y = 18 + 26 * (double)v;

		il_buf_printf(b, "<text x=%g y=%g class=l text-anchor=end>", x0 - 8, y + 4);
		il_report_html_esc(b, ds->var[v]);
		il_buf_adds(b, "</text>");
		for (size_t k = 0; k < m->var[v].n; k++)
			il_buf_printf(b, "<circle cx=%.1f cy=%.1f r=3 fill=\"%s\" fill-opacity=0.55 />",
				      x0 + (m->var[v].v[k] - lo) / (hi - lo) * w, y + (double)(k % 5) * 1.5 - 3,
				      il_report_palette(v));
		if (isfinite(x->d.median))
			il_buf_printf(b, "<line x1=%.1f y1=%g x2=%.1f y2=%g class=med />",
				      x0 + (x->d.median - lo) / (hi - lo) * w, y - 9, x0 + (x->d.median - lo) / (hi - lo) * w,
				      y + 9);
		il_buf_printf(b, "<text x=%g y=%g class=\"v v%s\">", x0 + w + 10, y + 4,
			      !strcmp(x->verdict, "better") ? "b" : !strcmp(x->verdict, "worse") ? "w" : "n");
		il_report_html_esc(b, x->verdict);
		if (!c->key[i] && il_decide_verdict_differs(x->vk))
			il_buf_adds(b, "*"); /* exploratory: a secondary metric (the legend says so) */
		if (isfinite(x->change_pct))
			il_buf_printf(b, " %+.1f%%", x->change_pct);
		if (isfinite(x->p))
			il_buf_printf(b, " p=%.3g", x->p);
		il_buf_adds(b, "</text>");
	}
	il_buf_adds(b, "</svg></figure>\n");
}

static void residency(struct il_buf *b, const struct il_dataset *ds)
{
	for (size_t i = 0; i < ds->nres; i++) {
		const struct il_resid *r = &ds->res[i];
		bool first = true;
		size_t nstates = 0, row = 0;

		for (size_t k = 0; k < i && first; k++)
			first = strcmp(ds->res[k].group, r->group) != 0;
		if (!first)
			continue;
		/* states of this group, in first-seen order */
		for (size_t k = i; k < ds->nres; k++)
			if (!strcmp(ds->res[k].group, r->group) && !strcmp(ds->res[k].variant, r->variant))
				nstates++;
		il_buf_adds(b, "<figure><figcaption>idle time share per state: ");
		il_report_html_esc(b, r->group);
		il_buf_printf(b, "</figcaption><svg width=640 height=%zu role=img>", 30 + 22 * ds->nvar + 20);
		for (size_t v = 0; v < ds->nvar; v++) {
			double x = 130;
			size_t si = 0;
			bool any = false;

			for (size_t k = i; k < ds->nres; k++) {
				const struct il_resid *q = &ds->res[k];
				double wdt;

				if (strcmp(q->group, r->group) || strcmp(q->variant, ds->var[v]))
					continue;
				any = true;
				wdt = q->time_share / (double)q->n * 380;
				il_buf_printf(b, "<rect x=%.1f y=%zu width=%.1f height=16 fill=\"%s\"><title>", x, 10 + 22 * row,
					      wdt, il_report_palette(si++));
				il_report_html_esc(b, q->state);
				il_buf_printf(b, " %.1f%%</title></rect>", q->time_share / (double)q->n * 100);
				x += wdt;
			}
			if (!any)
				continue;
			il_buf_printf(b, "<text x=122 y=%zu class=l text-anchor=end>", 22 + 22 * row);
			il_report_html_esc(b, ds->var[v]);
			il_buf_adds(b, "</text>");
			row++;
		}
		for (size_t k = i, si = 0; k < ds->nres && si < nstates; k++) {
			const struct il_resid *q = &ds->res[k];

			if (strcmp(q->group, r->group) || strcmp(q->variant, r->variant))
				continue;
			il_buf_printf(b, "<rect x=%zu y=%zu width=10 height=10 fill=\"%s\" /><text x=%zu y=%zu class=t>",
				      130 + si * 110, 14 + 22 * row, il_report_palette(si), 144 + si * 110, 23 + 22 * row);
			il_report_html_esc(b, q->state);
			il_buf_adds(b, "</text>");
			si++;
		}
		il_buf_adds(b, "</svg></figure>\n");
	}
}

/* A paragraph of the text in t (escaped) between open and close; t is emptied for the next one. */
static void para(struct il_buf *b, const char *open, struct il_buf *t, const char *close)
{
	il_buf_adds(b, open);
	il_report_html_esc(b, il_buf_str(t));
	il_buf_adds(b, close);
	il_buf_carry(b, t);
	il_buf_reset(t);
}

int il_report_html(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	struct il_buf text = IL_BUF_INIT, s = IL_BUF_INIT;
	int r;

	il_report_html_begin(b, ds->title ? ds->title : "comparison");
	if (il_compare_aa_warning(c, &s))
		para(b, "<p class=worse><b>Warning:</b> ", &s, "</p>\n");
	if (il_compare_bypass_warning(c, &s))
		para(b, "<p class=worse><b>Warning:</b> ", &s, "</p>\n");
	if (il_compare_dropped_note(c, &s))
		para(b, "<p class=u>", &s, "</p>\n");
	il_compare_sentence(c, &s);
	para(b, "<p><b>Verdict:</b> ", &s, "</p>\n");
	il_buf_adds(b, "<p>Reference <b>");
	il_report_html_esc(b, ds->var[c->ref]);
	il_buf_printf(b, "</b>; %s two-sided, alpha %g%s; noise threshold max(%.1f%%, %g &times; reference RSE)%s; "
			 "key metrics (<b>bold</b>): p Holm-adjusted per variant; secondary: BH q-values, exploratory.</p>\n",
		      c->o.test == IL_TEST_MWU ? "Mann-Whitney U" : "Welch t", c->alpha_look, c->looks > 1 ? " a look" : "",
		      c->o.floor_pct, c->o.k, c->aa >= 0 ? ", floor raised per metric by the A/A pair" : "");
	if (il_report_stop_note(c, &s))
		para(b, "<p>", &s, "</p>\n");
	if (il_report_lab_caveat(ds)) {
		il_buf_adds(b, "<p><i>");
		il_report_html_esc(b, il_report_lab_caveat(ds));
		il_buf_adds(b, "</i></p>\n");
	}
	il_buf_reset(&s);
	if (il_tracesum_blind_note(ds, &s)) {
		il_buf_adds(b, "<p><i>");
		il_report_html_esc(b, il_buf_str(&s));
		il_buf_adds(b, "</i></p>\n");
	}
	il_buf_carry(b, &s);
	il_buf_reset(&s);
	il_buf_adds(b, "<h2>Key metrics: samples per variant</h2>\n");
	for (size_t i = 0; i < c->nmet; i++)
		if (c->key[i])
			strip_plot(b, c, i);
	il_buf_adds(b, "<h2>Secondary metrics (exploratory: BH q-values; a finding marked *)</h2>\n");
	for (size_t i = 0; i < c->nmet; i++)
		if (!c->key[i] && (ds->met[c->met[i]].better != IL_BETTER_NONE || !ds->met[c->met[i]].idle))
			strip_plot(b, c, i);
	if (ds->nres) {
		il_buf_adds(b, "<h2>Idle residency</h2>\n");
		residency(b, ds);
	}
	r = il_html_trace(ds, b);
	il_buf_adds(b, "<h2>Summary</h2>\n<table><tr><th>metric</th><th>variant</th><th>n</th><th>mean</th><th>CV</th>"
		       "<th>change</th><th>p</th><th>CI of ratio</th><th>noise</th><th>verdict</th></tr>\n");
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];

		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_mres *x = il_compare_res(c, i, v);
			char n1[32];

			il_buf_adds(b, c->key[i] ? "<tr class=key><td><b>" : "<tr><td>");
			il_report_html_esc(b, m->key);
			il_buf_adds(b, c->key[i] ? "</b></td><td>" : "</td><td>");
			il_report_html_esc(b, ds->var[v]);
			il_buf_printf(b, "</td><td>%zu</td><td>%s</td>", x->d.n, il_report_fmt_num(n1, 32, x->d.mean));
			td_num(b, isfinite(x->d.cv), "%.1f%%", x->d.cv * 100);
			td_num(b, isfinite(x->change_pct), "%+.1f%%", x->change_pct);
			td_num(b, isfinite(x->p), "%.4f", x->p);
			td_num(b, isfinite(x->ci_lo), "%.3f&ndash;%.3f", x->ci_lo, x->ci_hi);
			td_num(b, isfinite(x->threshold_pct), "%.1f%%", x->threshold_pct);
			il_buf_printf(b, "<td class=\"%s\" title=\"", !strcmp(x->verdict, "better") ? "better" :
								      !strcmp(x->verdict, "worse") ? "worse" : "");
			il_report_html_esc(b, x->why);
			il_buf_adds(b, "\">");
			il_report_html_esc(b, x->verdict);
			if (x->vk == IL_VERDICT_UNKNOWN && x->n_needed)
				il_buf_printf(b, " (n~%zu)", x->n_needed);
			if (!c->key[i] && il_decide_verdict_differs(x->vk))
				il_buf_adds(b, " (exploratory)");
			il_buf_adds(b, "</td></tr>\n");
		}
	}
	il_buf_adds(b, "</table>\n");
	il_report_text(c, &text);
	il_buf_adds(b, "<h2>Mailing-list text</h2>\n<pre>");
	il_report_html_esc(b, il_buf_str(&text));
	il_buf_carry(b, &text);
	il_buf_adds(b, "</pre>\n");
	il_report_html_end(b);
	il_buf_release(&text);
	il_buf_release(&s);
	return r ? r : il_buf_error(b);
}
