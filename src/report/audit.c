// SPDX-License-Identifier: GPL-2.0-or-later
/* The fleet audit report in text, JSON, CSV and HTML. */
#include "report/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/json.h"
#include "report/reportkit.h"
#include "util/jsonfile.h"

static const char *const fmt_names[IL_NAFMT] = {
	[IL_AFMT_TEXT] = "text",
	[IL_AFMT_JSON] = "json",
	[IL_AFMT_CSV] = "csv",
	[IL_AFMT_HTML] = "html",
};

static const char *fmt_name(int i)
{
	return fmt_names[i];
}

int il_audit_fmt_parse(const char *s, enum il_audit_fmt *out, struct il_err *err)
{
	int i, r = il_report_pick(s, fmt_name, IL_NAFMT, "format", &i, err);

	if (!r)
		*out = (enum il_audit_fmt)i;
	return r;
}

static const char *kname(enum il_audit_kind k)
{
	return il_audit_kind_info(k)->name;
}

static uint64_t res_total(const struct il_audit_res *res, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += res[i].time_us;
	return t;
}

/* "C6 80.1 %, C1 10.0 %" */
static void res_words(struct il_buf *b, const struct il_audit_res *res, size_t n)
{
	uint64_t t = res_total(res, n);

	if (!t) {
		il_buf_adds(b, "no idle time measured");
		return;
	}
	for (size_t i = 0; i < n; i++)
		il_buf_printf(b, "%s%s %.1f %%", i ? ", " : "", res[i].name, 100.0 * (double)res[i].time_us / (double)t);
}

static void miss_words(struct il_buf *b, const struct il_metrics *m)
{
	if (!m->idles.ok) {
		il_buf_adds(b, "no idle counts");
		return;
	}
	il_buf_printf(b, "%llu idle entries", (unsigned long long)m->idles.v);
	if (m->has_miss_pct)
		il_buf_printf(b, ", miss %.1f %% (too deep %.1f %%, too shallow %.1f %%)", m->miss_pct,
			      m->has_too_deep ? m->too_deep_pct : 0, m->has_too_shallow ? m->too_shallow_pct : 0);
}

/* ---- text ---- */

static void text(const struct il_audit_fleet *f, const struct il_audit_run *run, struct il_buf *b)
{
	bool hint[IL_NAK] = { false };

	il_buf_printf(b, "idlelab audit: %zu hosts, %zu audited, %zu unreached; window %.1f s, %zu in flight, %.1f s\n",
		      f->nhosts, f->reached, f->nhosts - f->reached, run->window_s, run->jobs, run->wall_s);
	il_buf_printf(b, "findings: %zu critical, %zu warning, %zu info\n", f->by_sev[IL_SEV_CRITICAL],
		      f->by_sev[IL_SEV_WARNING], f->by_sev[IL_SEV_INFO]);
	il_buf_printf(b, "fleet (%zu hosts measured): ", f->measured);
	miss_words(b, &f->m);
	il_buf_adds(b, "\n  residency: ");
	res_words(b, f->res, f->nres);
	il_buf_adds(b, "\n");
	if (f->ngroups) {
		il_buf_adds(b, "\nFindings\n");
		for (size_t i = 0; i < f->ngroups; i++) {
			const struct il_audit_group *g = &f->groups[i];
			struct il_buf hosts = IL_BUF_INIT;

			for (size_t k = 0; k < g->hosts.n; k++)
				il_buf_printf(&hosts, "%s%s", k ? " " : "", g->hosts.v[k]);
			il_buf_printf(b, "  %-8s %-22s %s (%zu): %s\n", il_audit_sev_name(g->sev), kname(g->kind), g->subject,
				      g->hosts.n, il_buf_str(&hosts));
			il_buf_carry(b, &hosts);
			il_buf_release(&hosts);
			hint[g->kind] = true;
		}
		il_buf_adds(b, "\nFix hints\n");
		for (int k = 0; k < IL_NAK; k++)
			if (hint[k])
				il_buf_printf(b, "  %s: %s\n", kname(k), il_audit_kind_info(k)->hint);
	} else
		il_buf_adds(b, "\nno findings\n");
	il_buf_adds(b, "\nHosts\n");
	for (size_t i = 0; i < f->nhosts; i++) {
		const struct il_audit_host *h = &f->hosts[i];

		if (!h->reached)
			il_buf_printf(b, "  %s: not audited\n", h->host);
		else {
			il_buf_printf(b, "  %s: kernel %s, driver %s, governor %s; ", h->host, h->kernel ? h->kernel : "?",
				      h->driver ? h->driver : "none", h->governor ? h->governor : "-");
			if (h->measured) {
				miss_words(b, &h->m);
				il_buf_adds(b, "; ");
				res_words(b, h->res, h->nres);
			} else
				il_buf_printf(b, "not measured: %s", h->not_measured ? h->not_measured : "?");
			il_buf_adds(b, "\n");
		}
		for (size_t k = 0; k < h->nfind; k++)
			il_buf_printf(b, "    %-8s %s: %s\n", il_audit_sev_name(h->find[k].sev), kname(h->find[k].kind),
				      h->find[k].evidence);
	}
}

/* ---- JSON ---- */

/*
 * A report that cannot be built whole is an error, never one with a host or a finding left out:
 * every set and append is checked (il_json_whole), and text from hosts goes in through
 * il_json_str and il_json_set, so bytes that are not UTF-8 become U+FFFD where jansson would
 * refuse the string (and a hostile host would vanish from the host list).
 */

static json_t *res_json(const struct il_audit_res *res, size_t n)
{
	json_t *o = json_object();
	uint64_t t = res_total(res, n);
	int bad = !o;

	for (size_t i = 0; i < n; i++)
		bad |= il_json_set(o, res[i].name,
				json_pack("{s:I,s:o}", "time_us", (json_int_t)res[i].time_us, "share",
					  t ? json_real((double)res[i].time_us / (double)t) : json_null()));
	return il_json_whole(o, bad);
}

static json_t *pct_json(bool has, double v)
{
	return has ? json_real(v) : json_null();
}

static json_t *metrics_json(const struct il_metrics *m)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "idles", m->idles.ok ? json_integer((json_int_t)m->idles.v) : json_null(),
			 "miss_ratio", pct_json(m->has_miss_ratio, m->miss_ratio), "too_deep_pct",
			 pct_json(m->has_too_deep, m->too_deep_pct), "too_shallow_pct",
			 pct_json(m->has_too_shallow, m->too_shallow_pct), "idles_per_s", pct_json(m->has_rate, m->idles_per_s));
}

static json_t *group_json(const struct il_audit_group *g)
{
	json_t *hl = json_array();
	int bad = !hl;

	for (size_t k = 0; k < g->hosts.n; k++)
		bad |= json_array_append_new(hl, il_json_str(g->hosts.v[k]));
	return json_pack("{s:s,s:s,s:o,s:o,s:s}", "kind", kname(g->kind), "severity", il_audit_sev_name(g->sev), "subject",
			 il_json_str(g->subject), "hosts", il_json_whole(hl, bad), "hint", il_audit_kind_info(g->kind)->hint);
}

static json_t *host_json(const struct il_audit_host *h)
{
	json_t *fl = json_array();
	int bad = !fl;

	for (size_t k = 0; k < h->nfind; k++)
		bad |= json_array_append_new(fl, json_pack("{s:s,s:s,s:o,s:o}", "kind", kname(h->find[k].kind), "severity",
							   il_audit_sev_name(h->find[k].sev), "subject",
							   il_json_str(h->find[k].subject), "evidence",
							   il_json_str(h->find[k].evidence)));
	return json_pack("{s:o,s:b,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o}", "host", il_json_str(h->host), "audited",
			 h->reached, "error", il_json_str(h->error), "kernel", il_json_str(h->kernel), "driver",
			 il_json_str(h->driver), "governor", il_json_str(h->governor), "measured", h->measured,
			 "not_measured", il_json_str(h->not_measured), "interval_s",
			 h->measured ? json_real(h->interval_s) : json_null(), "idle", metrics_json(&h->m), "residency",
			 res_json(h->res, h->nres), "findings", il_json_whole(fl, bad));
}

/* The report as JSON, or NULL when any part of it could not be made. */
static json_t *to_json(const struct il_audit_fleet *f, const struct il_audit_run *run)
{
	json_t *o = json_object(), *groups = json_array(), *hosts = json_array(), *sev = json_object();
	int bad = !o;

	for (int s = 0; s < IL_NSEV; s++)
		bad |= json_object_set_new(sev, il_audit_sev_name(s), json_integer((json_int_t)f->by_sev[s]));
	bad |= json_object_set_new(o, "summary",
				   json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:o}", "hosts", (json_int_t)f->nhosts, "audited",
					     (json_int_t)f->reached, "unreached", (json_int_t)(f->nhosts - f->reached),
					     "measured", (json_int_t)f->measured, "findings", sev, "idle",
					     metrics_json(&f->m), "residency", res_json(f->res, f->nres)));
	for (size_t i = 0; i < f->ngroups; i++)
		bad |= json_array_append_new(groups, group_json(&f->groups[i]));
	bad |= json_object_set_new(o, "findings", groups);
	for (size_t i = 0; i < f->nhosts; i++)
		bad |= json_array_append_new(hosts, host_json(&f->hosts[i]));
	bad |= json_object_set_new(o, "hosts", hosts);
	bad |= json_object_set_new(o, "timing", json_pack("{s:f,s:I,s:f,s:f,s:f,s:f}", "window_s", run->window_s, "jobs",
							   (json_int_t)run->jobs, "wall_s", run->wall_s, "connect_s",
							   run->connect_s, "exec_s", run->exec_s, "judge_s", run->judge_s));
	return il_json_whole(o, bad);
}

/* ---- CSV ---- */

static void csv(const struct il_audit_fleet *f, struct il_buf *b)
{
	il_buf_adds(b, "host,audited,severity,kind,subject,evidence\r\n");
	for (size_t i = 0; i < f->nhosts; i++) {
		const struct il_audit_host *h = &f->hosts[i];

		for (size_t k = 0; k < h->nfind || (!k && !h->nfind); k++) {
			il_report_csv_field(b, h->host);
			il_buf_printf(b, ",%s,", h->reached ? "yes" : "no");
			if (h->nfind) {
				il_buf_printf(b, "%s,%s,", il_audit_sev_name(h->find[k].sev), kname(h->find[k].kind));
				il_report_csv_field(b, h->find[k].subject);
				il_buf_adds(b, ",");
				il_report_csv_field(b, h->find[k].evidence);
			} else
				il_buf_adds(b, ",,,");
			il_buf_adds(b, "\r\n");
		}
	}
}

/* ---- HTML ---- */

/* The fleet's state names in order, so a state has one colour in every bar. */
static size_t colour_of(const struct il_audit_fleet *f, const char *name)
{
	for (size_t i = 0; i < f->nres; i++)
		if (!strcmp(f->res[i].name, name))
			return i;
	return f->nres;
}

/* One stacked bar per measured host (and the fleet's first): the share of idle time in each state. */
static void residency_chart(const struct il_audit_fleet *f, struct il_buf *b)
{
	const double X0 = 140, W = 480, BH = 16, GAP = 6;
	size_t rows = 1 + f->measured, row = 0;
	size_t h = (size_t)(20 + rows * (BH + GAP) + 30);

	il_report_svg_open(b, "idle residency", "share of idle time by state", h);
	for (size_t i = 0; i <= f->nhosts; i++) {
		const struct il_audit_res *res = i ? f->hosts[i - 1].res : f->res;
		size_t n = i ? f->hosts[i - 1].nres : f->nres;
		uint64_t t = res_total(res, n);
		double x = X0, y = 10 + (double)row * (BH + GAP);

		if (i && !f->hosts[i - 1].measured)
			continue;
		il_buf_printf(b, "<text x=%g y=%g class=l text-anchor=end>", X0 - 6, y + BH - 4);
		il_report_html_esc(b, i ? f->hosts[i - 1].host : "fleet");
		il_buf_adds(b, "</text>");
		for (size_t k = 0; t && k < n; k++) {
			double w = W * (double)res[k].time_us / (double)t;

			il_buf_printf(b, "<rect class=bar x=%.1f y=%g width=%.1f height=%g fill=\"%s\"><title>", x, y, w, BH,
				      il_report_palette(colour_of(f, res[k].name)));
			il_report_html_esc(b, res[k].name);
			il_buf_printf(b, " %.1f %%</title></rect>", 100.0 * (double)res[k].time_us / (double)t);
			x += w;
		}
		if (!t)
			il_buf_printf(b, "<text x=%g y=%g class=t>no idle time measured</text>", X0, y + BH - 4);
		row++;
	}
	/* the legend */
	for (size_t k = 0; k < f->nres; k++) {
		double x = X0 + (double)k * 80, y = 10 + (double)rows * (BH + GAP) + 6;

		il_buf_printf(b, "<rect x=%g y=%g width=10 height=10 fill=\"%s\" /><text x=%g y=%g class=t>", x, y,
			      il_report_palette(k), x + 14, y + 9);
		il_report_html_esc(b, f->res[k].name);
		il_buf_adds(b, "</text>");
	}
	il_buf_adds(b, "</svg></figure>\n");
}

static void td(struct il_buf *b, const char *s)
{
	il_buf_adds(b, "<td>");
	il_report_html_esc(b, s ? s : "-");
	il_buf_adds(b, "</td>");
}

static void html(const struct il_audit_fleet *f, const struct il_audit_run *run, struct il_buf *b)
{
	struct il_buf t = IL_BUF_INIT;

	il_report_html_begin(b, "fleet idle audit");
	il_buf_adds(b, "<h2>Summary</h2>\n<table id=summary>");
	il_buf_printf(b, "<tr><td>hosts</td><td>%zu</td></tr><tr><td>audited</td><td>%zu</td></tr>"
		      "<tr><td>unreached</td><td>%zu</td></tr><tr><td>measured</td><td>%zu</td></tr>",
		      f->nhosts, f->reached, f->nhosts - f->reached, f->measured);
	for (int s = IL_NSEV - 1; s >= 0; s--)
		il_buf_printf(b, "<tr><td>%s findings</td><td>%zu</td></tr>", il_audit_sev_name(s), f->by_sev[s]);
	miss_words(&t, &f->m);
	il_buf_adds(b, "<tr><td>fleet idle</td>");
	td(b, il_buf_str(&t));
	il_buf_printf(b, "</tr><tr><td>window</td><td>%.1f s, %zu in flight, %.1f s in all</td></tr></table>\n",
		      run->window_s, run->jobs, run->wall_s);
	residency_chart(f, b);
	il_buf_adds(b, "<h2>Findings</h2>\n<table id=findings><tr><th>severity</th><th>kind</th><th>subject</th>"
		       "<th>hosts</th><th>fix</th></tr>\n");
	for (size_t i = 0; i < f->ngroups; i++) {
		const struct il_audit_group *g = &f->groups[i];

		il_buf_reset(&t);
		for (size_t k = 0; k < g->hosts.n; k++)
			il_buf_printf(&t, "%s%s", k ? " " : "", g->hosts.v[k]);
		il_buf_printf(b, "<tr class=\"finding %s\" data-kind=\"%s\">", il_audit_sev_name(g->sev), kname(g->kind));
		td(b, il_audit_sev_name(g->sev));
		td(b, kname(g->kind));
		td(b, g->subject);
		td(b, il_buf_str(&t));
		td(b, il_audit_kind_info(g->kind)->hint);
		il_buf_adds(b, "</tr>\n");
	}
	il_buf_adds(b, "</table>\n<h2>Hosts</h2>\n<table id=hosts><tr><th>host</th><th>kernel</th><th>driver</th>"
		       "<th>governor</th><th>idle</th><th>findings</th></tr>\n");
	for (size_t i = 0; i < f->nhosts; i++) {
		const struct il_audit_host *h = &f->hosts[i];

		il_buf_adds(b, "<tr class=host>");
		td(b, h->host);
		td(b, h->kernel);
		td(b, h->driver);
		td(b, h->governor);
		il_buf_reset(&t);
		if (h->measured)
			miss_words(&t, &h->m);
		else
			il_buf_adds(&t, h->reached ? (h->not_measured ? h->not_measured : "not measured") : "not audited");
		td(b, il_buf_str(&t));
		il_buf_reset(&t);
		for (size_t k = 0; k < h->nfind; k++)
			il_buf_printf(&t, "%s%s %s: %s", k ? "; " : "", il_audit_sev_name(h->find[k].sev), kname(h->find[k].kind),
				      h->find[k].evidence);
		td(b, h->nfind ? il_buf_str(&t) : "none");
		il_buf_adds(b, "</tr>\n");
	}
	il_buf_adds(b, "</table>\n");
	il_buf_release(&t);
	il_report_html_end(b);
}

int il_report_audit(const struct il_audit_fleet *f, const struct il_audit_run *run, enum il_audit_fmt fmt,
		    struct il_buf *out, struct il_err *err)
{
	switch (fmt) {
	case IL_AFMT_TEXT:
		text(f, run, out);
		break;
	case IL_AFMT_CSV:
		csv(f, out);
		break;
	case IL_AFMT_HTML:
		html(f, run, out);
		break;
	case IL_AFMT_JSON: {
		json_t *j = to_json(f, run);
		/* only memory fails a build (host text is made UTF-8): the whole report or an error */
		int r = j ? il_json_dump(out, j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : IL_ENOMEM;

		json_decref(j);
		if (r == IL_ENOMEM)
			return il_err_oom(err);
		il_buf_adds(out, "\n");
		break;
	}
	default:
		return il_err_set(err, IL_EINVAL, "unknown audit format %d", (int)fmt);
	}
	return il_buf_error(out) == IL_ENOMEM ? il_err_oom(err) :
	       il_buf_error(out) ? il_err_set(err, il_buf_error(out), "the audit report is larger than its buffer") : 0;
}
