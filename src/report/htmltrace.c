// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report's idle trace section (render.h, il_html_trace):
 * for a run with traced samples, per workload and idle state an inline SVG
 * plot of each variant's idle period durations side by side (log2 buckets
 * on x, the share of the state's periods on y), and the tick decisions
 * table. The numbers are tracesum.c's, the durations view's; a run without
 * traced samples gets no section (its absence says nothing was traced).
 */
#include "report/render.h"
#include "report/tracesum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plot's frame: a left margin for the y labels, room under the axis for the rotated bucket labels. */
#define X0 60.0
#define W 700.0
#define Y0 20.0
#define H 170.0
/* the legend: entries LEGEND_W apart, LEGEND_COLS a line (X0 + 4 x 170 + a label stays inside 800), lines LEGEND_LINE apart */
#define LEGEND_W 170.0
#define LEGEND_COLS 4
#define LEGEND_LINE 16

static void plot(struct il_buf *b, const struct il_dataset *ds, const char *g, const char *key,
		 const struct il_tsum *s, size_t k)
{
	size_t lo = IL_TSUM_NBUCKET, hi = 0, nv = 0, h = (size_t)(Y0 + H + 90), row = 0;
	double top = 0, slot, bar;
	char label[32];

	for (size_t v = 0; v < ds->nvar; v++)
		if (s[v].samples && s[v].st[k].periods > 0) {
			il_tracesum_span(s[v].st[k].hist, &lo, &hi);
			nv++;
			for (size_t x = 0; x < IL_TSUM_NBUCKET; x++)
				top = fmax(top, s[v].st[k].hist[x] / s[v].st[k].periods);
		}
	if (!nv)
		return; /* no variant has a complete period in this state: nothing to plot */
	/* the legend: four entries a line under the bucket labels (try makes six variants and more) */
	h += LEGEND_LINE * ((nv + LEGEND_COLS - 1) / LEGEND_COLS - 1);
	/* the y axis to the next 10% above the highest bar, so plots of one page read alike */
	top = fmin(1, ceil(top * 10) / 10);
	slot = W / (double)(hi - lo + 1);
	bar = slot * 0.8 / (double)nv;
	il_buf_adds(b, "<figure class=trace data-state=\"");
	il_report_html_esc(b, key);
	il_buf_adds(b, "\"><figcaption>");
	il_report_html_esc(b, g);
	il_buf_adds(b, ": idle period durations in ");
	il_report_html_esc(b, key);
	il_buf_printf(b, " <span class=u>(%% of the state's periods)</span></figcaption>"
			 "<svg width=800 height=%zu viewBox=\"0 0 800 %zu\" role=img>", h, h);
	il_buf_printf(b, "<line x1=%g y1=%g x2=%g y2=%g class=ax /><line x1=%g y1=%g x2=%g y2=%g class=ax />", X0,
		      Y0 + H, X0 + W, Y0 + H, X0, Y0, X0, Y0 + H);
	il_buf_printf(b, "<text x=%g y=%g class=t text-anchor=end>0%%</text><text x=%g y=%g class=t "
			 "text-anchor=end>%.0f%%</text>", X0 - 4, Y0 + H + 4, X0 - 4, Y0 + 4, top * 100);
	for (size_t x = lo; x <= hi; x++) {
		double cx = X0 + slot * ((double)(x - lo) + 0.5);

		il_buf_printf(b, "<text x=%.1f y=%g class=t text-anchor=end transform=\"rotate(-40 %.1f %g)\">%s</text>",
			      cx, Y0 + H + 14, cx, Y0 + H + 14, il_tracesum_bucket(label, sizeof(label), x));
	}
	for (size_t v = 0, i = 0; v < ds->nvar; v++) {
		const struct il_tsum_state *st = &s[v].st[k];

		if (!s[v].samples || !(st->periods > 0))
			continue;
		for (size_t x = lo; x <= hi; x++) {
			double share = st->hist[x] / st->periods, bh = share / top * H;

			if (!(st->hist[x] > 0))
				continue;
			il_buf_printf(b, "<rect x=%.1f y=%.1f width=%.1f height=%.1f fill=\"%s\"><title>",
				      X0 + slot * ((double)(x - lo) + 0.1) + bar * (double)i, Y0 + H - bh, bar, bh,
				      il_report_palette(v));
			il_report_html_esc(b, ds->var[v]);
			il_buf_printf(b, " %s: %.0f periods, %.1f%%</title></rect>", il_tracesum_bucket(label, sizeof(label), x),
				      st->hist[x], 100 * share);
		}
		/* the legend under the bucket labels, one entry per plotted variant, LEGEND_COLS a line */
		il_buf_printf(b, "<rect x=%g y=%g width=10 height=10 fill=\"%s\" /><text x=%g y=%g class=t>",
			      X0 + LEGEND_W * (double)(row % LEGEND_COLS), Y0 + H + 76 + LEGEND_LINE * (double)(row / LEGEND_COLS),
			      il_report_palette(v), X0 + LEGEND_W * (double)(row % LEGEND_COLS) + 14,
			      Y0 + H + 85 + LEGEND_LINE * (double)(row / LEGEND_COLS));
		il_report_html_esc(b, ds->var[v]);
		il_buf_adds(b, "</text>");
		row++, i++;
	}
	il_buf_adds(b, "</svg></figure>\n");
}

static void tick_table(struct il_buf *b, const struct il_dataset *ds, const char *g, const struct il_view_keys *ks,
		       const struct il_tsum *s)
{
	il_buf_adds(b, "<table class=tick><tr><th>workload</th><th>variant</th><th>state</th><th>shallow</th>"
		       "<th>stopped</th><th>retained</th><th>unknown</th><th>stopped %</th></tr>\n");
	for (size_t v = 0; v < ds->nvar; v++)
		for (size_t k = 0; s[v].samples && k < ks->k.n; k++) {
			const struct il_tsum_state *st = &s[v].st[k];
			bool known = isfinite(st->residency_us) && isfinite(s[v].tick_period_us);

			il_buf_adds(b, "<tr><td>");
			il_report_html_esc(b, g);
			il_buf_adds(b, "</td><td>");
			il_report_html_esc(b, ds->var[v]);
			il_buf_adds(b, "</td><td>");
			il_report_html_esc(b, ks->k.v[k]);
			il_buf_printf(b, "</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%.0f</td>",
				      !known ? "-" : st->residency_us < s[v].tick_period_us ? "yes" : "no", st->stopped,
				      st->retained, st->unknown);
			if (st->stopped + st->retained > 0)
				il_buf_printf(b, "<td>%.1f%%</td></tr>\n", 100 * st->stopped / (st->stopped + st->retained));
			else
				il_buf_adds(b, "<td>-</td></tr>\n");
		}
	il_buf_adds(b, "</table>\n");
}

int il_html_trace(const struct il_dataset *ds, struct il_buf *b)
{
	struct il_strlist g = { 0 };
	int r;

	if (!il_tracesum_any(ds))
		return 0;
	il_buf_adds(b, "<h2>Idle periods (traced samples)</h2>\n<p>Per state, each variant's complete idle periods "
		       "by duration (log2 buckets, 1ms = 1024us), summed over its traced samples; then the tick's "
		       "state when each period began (stopped % = 100 &times; stopped / (stopped + retained); shallow: "
		       "a target residency below the tick period). <code>--view durations</code> gives the numbers.</p>\n");
	r = il_viewkit_groups(ds, &g);
	for (size_t i = 0; !r && i < g.n; i++) {
		struct il_view_keys ks = { 0 };
		struct il_tsum *s = NULL;
		bool any = false;

		if ((r = il_tracesum_keys(ds, g.v[i], &ks)) || !(s = calloc(ds->nvar, sizeof(*s)))) {
			r = IL_ENOMEM;
			goto next;
		}
		for (size_t v = 0; !r && v < ds->nvar; v++) {
			r = il_tracesum_make(ds, g.v[i], ds->var[v], &ks, &s[v]);
			any |= s[v].samples > 0;
		}
		for (size_t k = 0; !r && any && k < ks.k.n; k++)
			plot(b, ds, g.v[i], ks.k.v[k], s, k);
		if (!r && any && ks.k.n)
			tick_table(b, ds, g.v[i], &ks, s);
next:
		for (size_t v = 0; s && v < ds->nvar; v++)
			il_tracesum_release(&s[v]);
		free(s);
		il_strlist_release(&ks.k);
	}
	il_strlist_release(&g);
	return r;
}
