// SPDX-License-Identifier: GPL-2.0-or-later
/* A plan's history from the index: text, CSV, JSON and HTML (line plots), with each variant's change points. */
#include "report/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"
#include "util/jsonfile.h"

/* ---- What every format reads from the history object ---- */

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Whether metric m is shown: every one with all (or when only directionless idle metrics exist), else as html.c's plots. */
static bool shown(const json_t *hist, const json_t *m, bool all)
{
	size_t i;
	json_t *o;

	if (all || strcmp(str(m, "better"), "none") || !json_is_true(json_object_get(m, "idle")))
		return true;
	json_array_foreach(json_object_get(hist, "metrics"), i, o)
		if (strcmp(str(o, "better"), "none") || !json_is_true(json_object_get(o, "idle")))
			return false;
	return true;
}

/* "2026-12-01 09:20" from an ISO 8601 time. */
static const char *date(char *buf, size_t n, const char *iso)
{
	snprintf(buf, n, "%.10s %.5s", iso, strlen(iso) > 11 ? iso + 11 : "");
	return buf;
}

/* The object of run id in arr (hist's runs, a variant's points; NULL: none). */
static const json_t *by_run(const json_t *arr, const char *id)
{
	return il_jfields_find(arr, "run", id);
}

/* The run object of id in hist's runs (NULL: none). */
static const json_t *run_of(const json_t *hist, const char *id)
{
	return by_run(json_object_get(hist, "runs"), id);
}

/* "kernel/commit12", or "kernel/release" for a kernel without a commit (the running one), into buf. */
static const char *kernel_cell(char *buf, size_t n, const json_t *hist, const json_t *pt)
{
	const char *k = str(pt, "kernel"), *c = str(pt, "commit"), *rel = "";
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(run_of(hist, str(pt, "run")), "kernels"), i, e)
		if (!strcmp(str(e, "name"), k))
			rel = str(e, "release");
	if (*c)
		snprintf(buf, n, "%s/%.12s", k, c);
	else if (*rel)
		snprintf(buf, n, "%s/%s", k, rel);
	else
		snprintf(buf, n, "%s", k);
	return buf;
}

/*
 * Walk metric m run by run: for each run of hist (start order) call fn with
 * the point of every variant measured in it (variants in order; first: the
 * run's first). Points are in run start order too: one cursor per variant.
 */
typedef void (*point_fn)(struct il_buf *b, const json_t *hist, const json_t *m, const json_t *run, const json_t *var,
			 const json_t *pt, bool first);
static void each_point(struct il_buf *b, const json_t *hist, const json_t *m, point_fn fn)
{
	const json_t *vars = json_object_get(m, "variants");
	size_t nv = json_array_size(vars), *cur = calloc(nv + 1, sizeof(*cur)), i;
	json_t *run;

	if (!cur) {
		b->nomem = true; /* il_buf_error says memory ran out */
		return;
	}
	json_array_foreach(json_object_get(hist, "runs"), i, run) {
		bool first = true;

		for (size_t v = 0; v < nv; v++) {
			const json_t *var = json_array_get(vars, v), *pt = json_array_get(json_object_get(var, "points"), cur[v]);

			if (!pt || strcmp(str(pt, "run"), str(run, "run")))
				continue;
			cur[v]++;
			fn(b, hist, m, run, var, pt, first);
			first = false;
		}
	}
	free(cur);
}

/* A nightly's verdict in words ("regression, alerted"), or NULL for a run that is not a nightly. */
static const char *nightly_words(const json_t *run)
{
	const json_t *n = json_object_get(run, "nightly");
	const char *v = str(n, "verdict");

	if (!n || !*v)
		return NULL;
	if (!strcmp(v, "regression"))
		return json_is_true(json_object_get(n, "alerted")) ? "regression, alerted" :
		       json_is_true(json_object_get(n, "repeat")) ? "regression, reported before" : "regression, not sent";
	return v;
}

/* ---- Change points (text and HTML) ---- */

/*
 * Change point c of variant var in metric m, indented by indent, without a
 * newline: "[worse: ]change point: VARIANT since RUN (KERNEL/commit12):
 * BEFORE -> AFTER UNIT (+X.X%, p=0.004)", RUN the first run of the new
 * level. width > 0: a line that would be wider goes on two (the levels on
 * the second, indented further), and only a first line still too wide has
 * its variant, run and kernel cut, the longest first.
 */
static void change_line(struct il_buf *b, const json_t *hist, const json_t *m, const json_t *var, const json_t *c,
			size_t indent, size_t width)
{
	const char *head = json_is_true(json_object_get(c, "worse")) ? "worse: change point: " : "change point: ";
	const char *unit = str(m, "unit"), *parts[3] = { str(var, "variant"), str(c, "run"), "" };
	const json_t *pt = by_run(json_object_get(var, "points"), str(c, "run"));
	char kc[80], tail[160], n1[32], n2[32];
	size_t w[3], frame = indent + strlen(head) + strlen(" since  ():");
	bool wrap;

	if (pt)
		parts[2] = kernel_cell(kc, sizeof(kc), hist, pt);
	snprintf(tail, sizeof(tail), "%s -> %s%s%.16s (%+.1f%%, p=%.2g)", il_report_fmt_num(n1, 32, num(c, "before")),
		 il_report_fmt_num(n2, 32, num(c, "after")), *unit ? " " : "", unit, num(c, "change_pct"), num(c, "p"));
	for (size_t i = 0; i < 3; i++)
		w[i] = strlen(parts[i]);
	/* the run and the commit are what a reader acts on: a second line rather than cut names */
	wrap = width && frame + w[0] + w[1] + w[2] + 1 + strlen(tail) > width;
	while (width && frame + w[0] + w[1] + w[2] + (wrap ? 0 : 1 + strlen(tail)) > width) {
		size_t j = w[0] >= w[1] && w[0] >= w[2] ? 0 : w[1] >= w[2] ? 1 : 2;

		if (w[j] <= 8)
			break; /* names no shorter than that: a line too long rather than one that says nothing */
		w[j]--;
	}
	il_buf_printf(b, "%*s%s%.*s since %.*s (%.*s):", (int)indent, "", head, (int)w[0], parts[0], (int)w[1], parts[1],
		      (int)w[2], parts[2]);
	if (wrap)
		il_buf_printf(b, "\n%*s%s", (int)indent + 4, "", tail);
	else
		il_buf_printf(b, " %s", tail);
}

/* change_line, whole, escaped for HTML. */
static void change_html(struct il_buf *b, const json_t *hist, const json_t *m, const json_t *var, const json_t *c)
{
	struct il_buf line = IL_BUF_INIT;

	change_line(&line, hist, m, var, c, 0, 0);
	il_report_html_esc(b, il_buf_str(&line));
	il_buf_carry(b, &line);
	il_buf_release(&line);
}

/* ---- Text ---- */

static void text_point(struct il_buf *b, const json_t *hist, const json_t *m, const json_t *run, const json_t *var,
		       const json_t *pt, bool first)
{
	char d[32], k[64], n1[32], n2[32], chg[32] = "";

	(void)m;
	if (first)
		il_buf_printf(b, "  %s  %.60s%s%s%s%s\n", date(d, sizeof(d), str(run, "started")), str(run, "run"),
			      json_is_true(json_object_get(run, "complete")) ? "" : "  (incomplete)",
			      nightly_words(run) ? "  (nightly: " : "", nightly_words(run) ?: "", nightly_words(run) ? ")" : "");
	if (isfinite(num(pt, "change_pct")))
		snprintf(chg, sizeof(chg), " %+8.1f%%", num(pt, "change_pct"));
	/* at most 6 + 20 + 2 + 30 + 2 + 10 + 3 + 10 + 11 = 94 columns */
	il_buf_printf(b, "      %-20.20s  %-30.30s  %10s ± %s%*s%s\n", str(var, "variant"), kernel_cell(k, sizeof(k), hist, pt),
		      il_report_fmt_num(n1, 32, num(pt, "mean")), il_report_fmt_num(n2, 32, num(pt, "stdev")),
		      *chg ? 10 - (int)strlen(il_report_fmt_num(n2, 32, num(pt, "stdev"))) : 0, "", chg);
}

static void history_text(const json_t *hist, bool all, struct il_buf *b)
{
	const json_t *runs = json_object_get(hist, "runs"), *m, *var, *c;
	size_t n = json_array_size(runs), i, v, k;
	char d1[32], d2[32];

	il_buf_printf(b, "idlelab history: plan %s%s%s, %zu run%s from %s to %s\n", str(hist, "plan"),
		      json_is_string(json_object_get(hist, "host")) ? " on host " : "", str(hist, "host"), n, n == 1 ? "" : "s",
		      date(d1, sizeof(d1), str(json_array_get(runs, 0), "started")),
		      date(d2, sizeof(d2), str(json_array_get(runs, n - 1), "started")));
	il_buf_adds(b, "per run and variant: kernel/commit, mean ± stdev, change of the mean since its previous run\n");
	json_array_foreach(json_object_get(hist, "metrics"), i, m) {
		const char *better = str(m, "better");

		if (!shown(hist, m, all))
			continue;
		il_buf_printf(b, "\n%s (%s%s%s)\n", str(m, "key"), str(m, "unit"), *str(m, "unit") ? ", " : "",
			      !strcmp(better, "higher") ? "higher is better" : !strcmp(better, "lower") ? "lower is better" :
													     "no direction");
		each_point(b, hist, m, text_point);
		json_array_foreach(json_object_get(m, "variants"), v, var)
			json_array_foreach(json_object_get(var, "changes"), k, c) {
				change_line(b, hist, m, var, c, 2, 100);
				il_buf_adds(b, "\n");
			}
	}
}

/* ---- CSV ---- */

static void csv_num(struct il_buf *b, double v)
{
	if (isfinite(v))
		il_buf_printf(b, ",%.10g", v);
	else
		il_buf_adds(b, ",");
}

static void csv_point(struct il_buf *b, const json_t *hist, const json_t *m, const json_t *run, const json_t *var,
		      const json_t *pt, bool first)
{
	const char *cells[] = { str(hist, "plan"), str(m, "key"), str(m, "workload"), str(m, "metric"), str(m, "unit"),
				str(m, "better"), json_is_true(json_object_get(m, "idle")) ? "1" : "0", str(var, "variant"),
				str(run, "run"), str(run, "started"),
				json_is_true(json_object_get(run, "complete")) ? "1" : "0", str(pt, "kernel"), str(pt, "commit"),
				str(pt, "governor") };

	(void)first;
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		if (i)
			il_buf_adds(b, ",");
		il_report_csv_field(b, cells[i]);
	}
	il_buf_printf(b, ",%lld", (long long)json_integer_value(json_object_get(pt, "n")));
	csv_num(b, num(pt, "mean")), csv_num(b, num(pt, "median")), csv_num(b, num(pt, "stdev")), csv_num(b, num(pt, "min")),
		csv_num(b, num(pt, "max")), csv_num(b, num(pt, "change_pct"));
	il_buf_adds(b, "\r\n");
}

static void history_csv(const json_t *hist, struct il_buf *b)
{
	size_t i;
	json_t *m;

	il_buf_adds(b, "plan,key,workload,metric,unit,better,idle,variant,run,started,complete,kernel,commit,governor,n,mean,"
		       "median,stdev,min,max,change_pct\r\n");
	json_array_foreach(json_object_get(hist, "metrics"), i, m)
		each_point(b, hist, m, csv_point);
}

/* ---- HTML ---- */

/* The plot's frame: x from X0 over W, one step per run; y from Y0 (top) over H. */
#define X0 70.0
#define W 540.0
#define Y0 14.0
#define H 150.0

static double run_x(const json_t *hist, const char *run)
{
	const json_t *runs = json_object_get(hist, "runs");
	size_t n = json_array_size(runs), i;
	json_t *r;

	json_array_foreach(runs, i, r)
		if (!strcmp(str(r, "run"), run))
			return n > 1 ? X0 + W * (double)i / (double)(n - 1) : X0 + W / 2;
	return X0;
}

/* A dashed vertical line at the run of each change point of m, in its variant's colour, labelled at the top. */
static void change_marks(struct il_buf *b, const json_t *hist, const json_t *m)
{
	const json_t *var, *c;
	size_t v, k, nth = 0;
	char pct[32];

	json_array_foreach(json_object_get(m, "variants"), v, var)
		json_array_foreach(json_object_get(var, "changes"), k, c) {
			double x = run_x(hist, str(c, "run"));
			bool right = x > X0 + W - 120; /* a label that would leave the plot goes left of its line */

			il_buf_printf(b, "<line x1=%.1f y1=%g x2=%.1f y2=%g stroke=\"%s\" stroke-width=1.5 stroke-dasharray=\"5 3\">"
					 "<title>", x, Y0, x, Y0 + H, il_report_palette(v));
			change_html(b, hist, m, var, c);
			snprintf(pct, sizeof(pct), "%+.1f%%", num(c, "change_pct"));
			il_buf_printf(b, "</title></line><text x=%.1f y=%g class=t%s>", right ? x - 3 : x + 3,
				      Y0 + 10 + 11.0 * (double)(nth++ % 12), right ? " text-anchor=end" : "");
			il_report_html_esc(b, str(var, "variant"));
			il_buf_printf(b, " %s%s</text>", pct, json_is_true(json_object_get(c, "worse")) ? " worse" : "");
		}
}

/* The change points of m as text under its plot (worse ones in the worse colour). */
static void change_list(struct il_buf *b, const json_t *hist, const json_t *m)
{
	const json_t *var, *c;
	size_t v, k;
	bool any = false;

	json_array_foreach(json_object_get(m, "variants"), v, var)
		json_array_foreach(json_object_get(var, "changes"), k, c) {
			il_buf_printf(b, "%s<li%s>", any ? "" : "<ul class=cp>",
				      json_is_true(json_object_get(c, "worse")) ? " class=worse" : "");
			change_html(b, hist, m, var, c);
			il_buf_adds(b, "</li>");
			any = true;
		}
	if (any)
		il_buf_adds(b, "</ul>");
}

static void line_plot(struct il_buf *b, const json_t *hist, const json_t *m)
{
	const json_t *vars = json_object_get(m, "variants"), *runs = json_object_get(hist, "runs"), *var, *pt;
	double lo = INFINITY, hi = -INFINITY;
	size_t nv = json_array_size(vars), h = (size_t)(Y0 + H + 40) + 16 * ((nv + 3) / 4), v, k;
	char n1[32], n2[32], d[32];

	json_array_foreach(vars, v, var)
		json_array_foreach(json_object_get(var, "points"), k, pt)
			if (isfinite(num(pt, "mean")))
				lo = fmin(lo, num(pt, "mean")), hi = fmax(hi, num(pt, "mean"));
	if (!isfinite(lo))
		return;
	if (hi == lo)
		lo -= fabs(lo) * 0.05 + 0.5, hi += fabs(hi) * 0.05 + 0.5; /* a flat line in the middle */
	il_report_svg_open(b, str(m, "key"), str(m, "unit"), h);
	il_buf_printf(b, "<line x1=%g y1=%g x2=%g y2=%g class=ax /><line x1=%g y1=%g x2=%g y2=%g class=ax />", X0, Y0 + H, X0 + W,
		      Y0 + H, X0, Y0, X0, Y0 + H);
	il_buf_printf(b, "<text x=%g y=%g class=t text-anchor=end>%s</text><text x=%g y=%g class=t text-anchor=end>%s</text>",
		      X0 - 4, Y0 + H, il_report_fmt_num(n1, 32, lo), X0 - 4, Y0 + 8, il_report_fmt_num(n2, 32, hi));
	il_buf_printf(b, "<text x=%g y=%g class=t>%s</text>", X0, Y0 + H + 14,
		      date(d, sizeof(d), str(json_array_get(runs, 0), "started")));
	if (json_array_size(runs) > 1)
		il_buf_printf(b, "<text x=%g y=%g class=t text-anchor=end>%s</text>", X0 + W, Y0 + H + 14,
			      date(d, sizeof(d), str(json_array_get(runs, json_array_size(runs) - 1), "started")));
	json_array_foreach(vars, v, var) {
		const char *color = il_report_palette(v);

		il_buf_printf(b, "<polyline fill=none stroke=\"%s\" stroke-width=1.5 points=\"", color);
		json_array_foreach(json_object_get(var, "points"), k, pt)
			if (isfinite(num(pt, "mean")))
				il_buf_printf(b, "%s%.1f,%.1f", k ? " " : "", run_x(hist, str(pt, "run")),
					      Y0 + H - (num(pt, "mean") - lo) / (hi - lo) * H);
		il_buf_adds(b, "\" />");
		json_array_foreach(json_object_get(var, "points"), k, pt) {
			const json_t *ng;
			char kc[64];

			if (!isfinite(num(pt, "mean")))
				continue;
			/* a nightly's regression: a red ring, filled when it was alerted */
			ng = json_object_get(run_of(hist, str(pt, "run")), "nightly");
			if (!strcmp(str(ng, "verdict"), "regression")) {
				bool alerted = json_is_true(json_object_get(ng, "alerted"));

				il_buf_printf(b, "<circle class=\"%s\" cx=%.1f cy=%.1f r=6 fill=\"%s\" stroke=\"#c00\" "
						 "stroke-width=2 />", alerted ? "alerted" : "regression", run_x(hist, str(pt, "run")),
					      Y0 + H - (num(pt, "mean") - lo) / (hi - lo) * H, alerted ? "#fcc" : "none");
			}
			il_buf_printf(b, "<circle cx=%.1f cy=%.1f r=3 fill=\"%s\"><title>", run_x(hist, str(pt, "run")),
				      Y0 + H - (num(pt, "mean") - lo) / (hi - lo) * H, color);
			il_report_html_esc(b, str(var, "variant"));
			il_buf_adds(b, " ");
			il_report_html_esc(b, str(pt, "run"));
			il_buf_adds(b, " ");
			il_report_html_esc(b, kernel_cell(kc, sizeof(kc), hist, pt));
			il_buf_printf(b, ": %s &plusmn; %s (n %lld)</title></circle>", il_report_fmt_num(n1, 32, num(pt, "mean")),
				      il_report_fmt_num(n2, 32, num(pt, "stdev")), (long long)json_integer_value(json_object_get(pt, "n")));
		}
		il_buf_printf(b, "<rect x=%g y=%g width=10 height=10 fill=\"%s\" /><text x=%g y=%g class=l>", X0 + 140.0 * (double)(v % 4),
			      Y0 + H + 24 + 16.0 * (double)(v / 4), color, X0 + 14 + 140.0 * (double)(v % 4),
			      Y0 + H + 33 + 16.0 * (double)(v / 4));
		il_report_html_esc(b, str(var, "variant"));
		il_buf_adds(b, "</text>");
	}
	change_marks(b, hist, m);
	il_buf_adds(b, "</svg>");
	change_list(b, hist, m);
	il_buf_adds(b, "</figure>\n");
}

static void history_html(const json_t *hist, bool all, struct il_buf *b)
{
	struct il_buf title = IL_BUF_INIT;
	size_t i, k;
	json_t *m, *r, *e;

	il_buf_printf(&title, "history of %s%s%s", str(hist, "plan"), json_is_string(json_object_get(hist, "host")) ? " on " : "",
		      str(hist, "host"));
	il_report_html_begin(b, il_buf_str(&title));
	il_buf_carry(b, &title);
	il_buf_release(&title);
	il_buf_adds(b, "<p>The mean of each variant per run, in run start order (hover a point for its run, kernel and "
		       "stdev); a dashed line marks where a variant's level changed (a change point, listed under its plot).</p>\n");
	json_array_foreach(json_object_get(hist, "metrics"), i, m)
		if (shown(hist, m, all))
			line_plot(b, hist, m);
	il_buf_adds(b, "<h2>Runs</h2>\n<table><tr><th>run</th><th>started</th><th>hosts</th><th>kernels</th><th>samples</th>"
		       "<th>complete</th><th>nightly</th></tr>\n");
	json_array_foreach(json_object_get(hist, "runs"), i, r) {
		il_buf_adds(b, "<tr><td>");
		il_report_html_esc(b, str(r, "run"));
		il_buf_adds(b, "</td><td>");
		il_report_html_esc(b, str(r, "started"));
		il_buf_adds(b, "</td><td>");
		json_array_foreach(json_object_get(r, "hosts"), k, e) {
			il_buf_adds(b, k ? " " : "");
			il_report_html_esc(b, json_string_value(e) ? json_string_value(e) : "");
		}
		il_buf_adds(b, "</td><td>");
		json_array_foreach(json_object_get(r, "kernels"), k, e) {
			il_buf_adds(b, k ? " " : "");
			il_report_html_esc(b, str(e, "name"));
			if (*str(e, "commit"))
				il_buf_printf(b, "/%.12s", str(e, "commit"));
		}
		il_buf_printf(b, "</td><td>%lld</td><td>%s</td><td>%s</td></tr>\n",
			      (long long)json_integer_value(json_object_get(r, "counted")),
			      json_is_true(json_object_get(r, "complete")) ? "yes" : "no", nightly_words(r) ?: "");
	}
	il_buf_adds(b, "</table>\n");
	il_report_html_end(b);
}

/* ---- Dispatch ---- */

int il_report_history(const json_t *hist, enum il_fmt f, bool all, struct il_buf *out, struct il_err *err)
{
	char *s;
	int r;

	switch (f) {
	case IL_FMT_TEXT: history_text(hist, all, out); break;
	case IL_FMT_CSV: history_csv(hist, out); break;
	case IL_FMT_HTML: history_html(hist, all, out); break;
	case IL_FMT_JSON:
		if (!(s = il_json_dumps(hist, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))))
			return il_err_oom(err);
		il_buf_adds(out, s);
		il_buf_adds(out, "\n");
		free(s);
		break;
	default: return il_err_set(err, IL_EINVAL, "the history has no %s format (text, csv, json or html)", il_report_fmt_name(f));
	}
	r = il_buf_error(out);
	return r ? il_err_set(err, r, "cannot render the %s history: %s", il_report_fmt_name(f), il_err_strerror(r)) : 0;
}
