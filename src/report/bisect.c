// SPDX-License-Identifier: GPL-2.0-or-later
/* A bisection's result as text: the answer, the endpoints, one row per step. */
#include "report/bisect.h"

#include <math.h>
#include <string.h>

#include "report/reportkit.h"

static double jnum(const json_t *o, const char *k)
{
	return json_is_number(json_object_get(o, k)) ? json_number_value(json_object_get(o, k)) : NAN;
}

int il_report_bisect(const struct il_bisect_result *r, struct il_buf *b)
{
	const char *key, *first = NULL;
	json_t *e;
	char n1[32], n2[32];
	struct il_buf line = IL_BUF_INIT;

	if (!strcmp(r->state, "found"))
		il_buf_printf(b, "idlelab bisect: first bad commit %.12s", r->first_bad);
	else if (!strcmp(r->state, "range"))
		il_buf_printf(b, "idlelab bisect: the first bad commit is one of %zu (skipped commits hide it):",
			      r->range.n);
	else
		il_buf_adds(b, "idlelab bisect: good and bad do not differ beyond noise on any chosen metric: nothing "
			       "to bisect");
	for (size_t i = 0; !strcmp(r->state, "found") && i < r->nsteps; i++)
		if (!strcmp(r->steps[i].commit, r->first_bad) && r->steps[i].subject)
			il_buf_printf(b, " %s", r->steps[i].subject);
	il_buf_adds(b, "\n");
	for (size_t i = 0; i < r->range.n; i++)
		il_buf_printf(b, "  %.12s\n", r->range.v[i]);
	il_buf_adds(b, "endpoints (median good -> bad, change, p, noise floor from the good A/A pair):\n");
	json_object_foreach(r->endpoints, key, e) {
		bool on = json_is_true(json_object_get(e, "bisected"));

		if (on && !first)
			first = key;
		il_buf_printf(b, "  %-34s %9s -> %-9s %+7.1f%%  p=%-7.2g floor %.1f%%  %s\n", key,
			      il_report_fmt_num(n1, sizeof(n1), jnum(e, "good_median")), il_report_fmt_num(n2, sizeof(n2), jnum(e, "bad_median")),
			      jnum(e, "change_pct"), jnum(e, "p"), jnum(e, "floor_pct"), on ? "bisected on" : "~ (not used)");
	}
	if (r->nsteps) {
		il_buf_printf(b, "steps (%s):\n", first ? first : "-");
		il_buf_printf(b, "  %-12s %3s %9s %8s %8s %7s %7s %-9s %s\n", "commit", "n", "median", "vs good", "vs bad",
			      "p good", "p bad", "verdict", "subject");
	}
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct il_bisect_step *s = &r->steps[i];
		json_t *m = first ? json_object_get(s->metrics, first) : NULL;

		il_buf_reset(&line);
		if (m)
			il_buf_printf(&line, "  %.12s %3zu %9s %+7.1f%% %+7.1f%% %7.2g %7.2g %-9s %s", s->commit, s->n,
				      il_report_fmt_num(n1, sizeof(n1), jnum(m, "median")), jnum(m, "change_vs_good_pct"),
				      jnum(m, "change_vs_bad_pct"), jnum(m, "p_good"), jnum(m, "p_bad"), s->verdict,
				      s->subject ? s->subject : "");
		else
			il_buf_printf(&line, "  %.12s %3zu %9s %8s %8s %7s %7s %-9s %s", s->commit, s->n, "-", "-", "-", "-",
				      "-", s->verdict, s->subject ? s->subject : "");
		if (line.len > 100)
			line.p[100] = 0, line.len = 100;
		il_buf_printf(b, "%s\n", line.p);
		/* the reason's first line: a build log or a console follows it in the journal */
		if (s->reason)
			il_buf_printf(b, "      %s: %.*s\n", s->verdict,
				      (int)(strcspn(s->reason, "\n") < 160 ? strcspn(s->reason, "\n") : 160), s->reason);
	}
	if (strcmp(r->state, "no-difference"))
		il_buf_printf(b, "chance the answer is wrong: <= %.2g%% (the decided steps' p against the side taken, "
				 "summed)%s; %zu samples\n",
			      r->p_wrong * 100, r->weak ? "; a weak step (undecided at the sample cap) took part" : "",
			      r->samples);
	if (r->confirm) {
		const struct il_bisect_step *c = r->confirm;
		const char *v = c->verdict;

		il_buf_printf(b, "confirmation: %.12s (the culprit reverted on bad), %zu samples: %s\n", c->commit, c->n,
			      !strcmp(v, "good") ? "like good: confirmed" :
			      !strcmp(v, "weak-good") ? "nearer good, not decided at the cap: weakly confirmed" :
			      !strcmp(v, "skip") ? "not measured (skip)" :
			      "still bad: NOT confirmed (another commit, or the culprit together with later ones)");
		if (c->reason)
			il_buf_printf(b, "      %.*s\n", (int)(strcspn(c->reason, "\n") < 160 ? strcspn(c->reason, "\n") : 160),
				      c->reason);
	} else if (r->confirm_note) {
		il_buf_printf(b, "confirmation: not measured: %s\n", r->confirm_note);
	}
	il_buf_release(&line);
	return 0;
}
