// SPDX-License-Identifier: GPL-2.0-or-later
/* The plain-text report (mail, at most 100 columns) and the GitHub Markdown report. */
#include "report/render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/tracesum.h"

static const char *better_word(enum il_better b)
{
	return b == IL_BETTER_HIGHER ? "higher is better" : b == IL_BETTER_LOWER ? "lower is better" : "no direction";
}

/* One wrapped line of the header: pre, then text folded to the report's width. */
static void note(struct il_buf *b, const char *pre, const char *text)
{
	il_buf_adds(b, pre);
	il_report_wrap(b, text, 100 - strlen(pre), 2);
	il_buf_adds(b, "\n");
}

static void header(const struct il_cmp *c, struct il_buf *b, const char *pre)
{
	const struct il_dataset *ds = c->ds;
	struct il_buf w = IL_BUF_INIT;

	/* first, so nobody reads a finding before learning the host was not quiet */
	il_buf_adds(&w, "WARNING: ");
	if (il_compare_aa_warning(c, &w))
		note(b, pre, il_buf_str(&w));
	il_buf_reset(&w);
	il_buf_adds(&w, "WARNING: ");
	if (il_compare_bypass_warning(c, &w))
		note(b, pre, il_buf_str(&w));
	il_buf_carry(b, &w);
	il_buf_reset(&w);
	il_buf_printf(b, "%sidlelab compare: %s; reference %s; %zu samples counted, %zu not (warmup/failed)\n", pre,
		      ds->title ? ds->title : "(numbers)", ds->var[c->ref], ds->counted, ds->skipped);
	il_buf_printf(b, "%s%s two-sided, alpha %g%s; noise threshold max(%.1f%% floor, %g x ref. RSE)\n", pre,
		      c->o.test == IL_TEST_MWU ? "Mann-Whitney U" : "Welch t", c->alpha_look,
		      c->looks > 1 ? " a look" : "", c->o.floor_pct, c->o.k);
	if (c->o.holm)
		il_buf_printf(b, "%skey metrics [key]: p Holm-adjusted per variant (up to %zu); secondary: BH q-values, "
				 "exploratory\n", pre, c->family_max);
	else
		il_buf_printf(b, "%sp not adjusted for multiple comparisons\n", pre);
	if (il_report_stop_note(c, &w))
		note(b, pre, il_buf_str(&w));
	il_buf_carry(b, &w);
	il_buf_reset(&w);
	if (c->aa >= 0)
		il_buf_printf(b, "%sA/A pair %s / %s raises each metric's floor to the change it showed\n", pre,
			      ds->var[c->ref], ds->var[c->aa]);
	if (il_report_lab_caveat(ds))
		note(b, pre, il_report_lab_caveat(ds));
	if (il_tracesum_blind_note(ds, &w))
		note(b, pre, il_buf_str(&w));
	il_buf_carry(b, &w);
	il_buf_reset(&w);
	if (il_compare_dropped_note(c, &w))
		note(b, pre, il_buf_str(&w));
	il_buf_carry(b, &w);
	il_buf_release(&w);
}

static const char *cut(char *buf, size_t n, const char *s, size_t w)
{
	snprintf(buf, n, "%.*s", (int)w, s);
	return buf;
}

int il_report_text(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	char n1[32], n2[32], n3[32], n4[32], n5[32], t1[32], t2[32];

	header(c, b, "");
	il_buf_adds(b, "\n");
	if (ds->nrows && c->o.max_cv_pct > 0) {
		/* the raw per-sample counts would print exactly the scatter --max-cv left out */
		il_buf_adds(b, "(per-sample rows left out with --max-cv; --view iterations shows them)\n");
	} else if (ds->nrows) {
		il_buf_printf(b, "%-15s %-14s %4s %10s %10s %9s %7s %8s %8s\n", "test", "gov", "iter", "score", "idles",
			      "idle_miss", "ratio", "belows", "aboves");
		for (size_t i = 0; i < ds->nrows; i++) {
			const struct il_row *r = &ds->rows[i];
			char ratio[32];

			if (isfinite(r->ratio))
				snprintf(ratio, sizeof(ratio), "%.3f", r->ratio);
			else
				snprintf(ratio, sizeof(ratio), "-");
			il_buf_printf(b, "%-15s %-14s %4d %10s %10s %9s %7s %8s %8s\n", cut(t1, sizeof(t1), r->group, 15),
				      cut(t2, sizeof(t2), r->variant, 14), r->iteration, il_report_fmt_num(n1, 32, r->score),
				      il_report_fmt_num(n2, 32, r->idles), il_report_fmt_num(n3, 32, r->idle_miss), ratio,
				      il_report_fmt_num(n4, 32, r->belows), il_report_fmt_num(n5, 32, r->aboves));
		}
		il_buf_adds(b, "\n");
	}
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];

		il_buf_printf(b, "%s (%s%s%s)%s\n", m->key, m->unit, *m->unit ? ", " : "", better_word(m->better),
			      c->key[i] ? " [key]" : "");
		il_buf_printf(b, "  %-12s %4s %10s %6s %7s %7s %13s %6s  %s\n", "variant", "n", "mean", "cv", "change", "p",
			      "CI of ratio", "noise", "verdict");
		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_mres *x = il_compare_res(c, i, v);
			char cv[16], ch[16], p[16], ci[40], noise[16];

			snprintf(cv, sizeof(cv), isfinite(x->d.cv) ? "%.1f%%" : "-", x->d.cv * 100);
			snprintf(ch, sizeof(ch), isfinite(x->change_pct) ? "%+.1f%%" : "-", x->change_pct);
			snprintf(p, sizeof(p), isfinite(x->p) ? "%.4f" : "-", x->p);
			if (isfinite(x->ci_lo))
				snprintf(ci, sizeof(ci), "%.3f-%.3f", x->ci_lo, x->ci_hi);
			else
				snprintf(ci, sizeof(ci), "-");
			snprintf(noise, sizeof(noise), isfinite(x->threshold_pct) ? "%.1f%%" : "-", x->threshold_pct);
			il_buf_printf(b, "  %-12s %4zu %10s %6s %7s %7s %13s %6s  %s", cut(t1, 32, ds->var[v], 12), x->d.n,
				      il_report_fmt_num(n1, 32, x->d.mean), cv, ch, p, ci, noise, x->verdict);
			if (x->vk == IL_VERDICT_UNKNOWN && x->n_needed)
				il_buf_printf(b, " (n~%zu)", x->n_needed);
			if (!c->key[i] && il_decide_verdict_differs(x->vk))
				il_buf_adds(b, " (exploratory)");
			il_buf_adds(b, "\n");
		}
	}
	{
		struct il_buf s = IL_BUF_INIT;

		il_buf_adds(&s, "Verdict: ");
		il_compare_sentence(c, &s);
		il_buf_adds(b, "\n");
		il_report_wrap(b, il_buf_str(&s), 100, 2);
		il_buf_adds(b, "\n");
		il_buf_carry(b, &s);
		il_buf_release(&s);
	}
	return il_buf_error(b);
}

int il_text_md(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	char n1[32], n2[32], n3[32], n4[32], n5[32], n6[32];

	il_buf_adds(b, "# idlelab comparison: ");
	il_report_md_cell(b, ds->title ? ds->title : "numbers");
	il_buf_adds(b, "\n\n");
	header(c, b, "> ");
	il_buf_adds(b, "\n**Verdict:** ");
	{
		struct il_buf s = IL_BUF_INIT;

		il_compare_sentence(c, &s);
		il_report_md_cell(b, il_buf_str(&s));
		il_buf_carry(b, &s);
		il_buf_release(&s);
	}
	il_buf_adds(b, "\n\n## Summary\n\n| metric | variant | n | mean | CV | change | p | CI of ratio | noise | verdict |\n"
		       "|---|---|---:|---:|---:|---:|---:|---|---:|---|\n");
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];

		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_mres *x = il_compare_res(c, i, v);

			il_buf_adds(b, "| ");
			il_report_md_cell(b, m->key);
			il_buf_adds(b, c->key[i] ? " [key] | " : " | ");
			il_report_md_cell(b, ds->var[v]);
			il_buf_printf(b, " | %zu | %s | %s | %s | %s | ", x->d.n, il_report_fmt_num(n1, 32, x->d.mean),
				      isfinite(x->d.cv) ? (snprintf(n2, 32, "%.1f%%", x->d.cv * 100), n2) : "-",
				      isfinite(x->change_pct) ? (snprintf(n3, 32, "%+.1f%%", x->change_pct), n3) : "-",
				      isfinite(x->p) ? (snprintf(n4, 32, "%.4f", x->p), n4) : "-");
			if (isfinite(x->ci_lo))
				il_buf_printf(b, "[%.3f, %.3f]", x->ci_lo, x->ci_hi);
			else
				il_buf_adds(b, "-");
			il_buf_printf(b, " | %s | ", isfinite(x->threshold_pct) ? (snprintf(n5, 32, "%.1f%%", x->threshold_pct), n5) : "-");
			il_report_md_cell(b, x->verdict);
			if (x->vk == IL_VERDICT_UNKNOWN && x->n_needed)
				il_buf_printf(b, " (n~%zu)", x->n_needed);
			if (!c->key[i] && il_decide_verdict_differs(x->vk))
				il_buf_adds(b, " (exploratory)");
			il_buf_adds(b, " |\n");
		}
	}
	if (ds->nrows) {
		il_buf_adds(b, "\n## Samples\n\n| test | gov | iter | score | idles | idle_miss | ratio | belows | aboves |\n"
			       "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
		for (size_t i = 0; i < ds->nrows; i++) {
			const struct il_row *r = &ds->rows[i];

			il_buf_adds(b, "| ");
			il_report_md_cell(b, r->group);
			il_buf_adds(b, " | ");
			il_report_md_cell(b, r->variant);
			il_buf_printf(b, " | %d | %s | %s | %s | %s | %s | %s |\n", r->iteration, il_report_fmt_num(n1, 32, r->score),
				      il_report_fmt_num(n2, 32, r->idles), il_report_fmt_num(n3, 32, r->idle_miss),
				      isfinite(r->ratio) ? (snprintf(n4, 32, "%.3f", r->ratio), n4) : "-",
				      il_report_fmt_num(n5, 32, r->belows), il_report_fmt_num(n6, 32, r->aboves));
		}
	}
	return il_buf_error(b);
}
