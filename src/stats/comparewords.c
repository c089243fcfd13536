// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a comparison (stats/compare.h) says in words: the verdict sentence
 * from the key comparisons, the A/A pair's warning when the host was not
 * quiet, the samples whose governor was bypassed, and the metrics left out
 * for their noise. Each appends to the caller's buffer; none decides.
 */
#include "stats/compare.h"

#include <math.h>
#include <string.h>

bool il_compare_dropped_note(const struct il_cmp *c, struct il_buf *b)
{
	if (!c->ndropped)
		return false;
	il_buf_printf(b, "metrics left out, CV above %g%% (a metric of noise on this host):", c->o.max_cv_pct);
	for (size_t i = 0; i < c->ndropped; i++) {
		const struct il_cmp_dropped *d = &c->dropped[i];

		if (isfinite(d->cv))
			il_buf_printf(b, "%s %s (%s %.0f%%)", i ? "," : "", c->ds->met[d->met].key, c->ds->var[d->var],
				      d->cv * 100);
		else
			il_buf_printf(b, "%s %s (%s: mean 0)", i ? "," : "", c->ds->met[d->met].key, c->ds->var[d->var]);
	}
	return true;
}

int il_compare_sentence(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	size_t total = 0, differ = c->n[IL_VERDICT_BETTER] + c->n[IL_VERDICT_WORSE] + c->n[IL_VERDICT_CHANGED];
	size_t same = c->n[IL_VERDICT_SAME], unknown = c->n[IL_VERDICT_UNKNOWN], listed = 0;
	size_t differ2 = c->n2[IL_VERDICT_BETTER] + c->n2[IL_VERDICT_WORSE] + c->n2[IL_VERDICT_CHANGED], total2 = 0;

	for (int v = 0; v < IL_NVERDICTS; v++)
		total += c->n[v], total2 += c->n2[v];
	if (!total)
		il_buf_adds(b, "no key comparison could be made");
	else if (same == total)
		il_buf_printf(b, "no difference above noise in %zu of %zu key comparisons", same, total);
	else if (!differ)
		il_buf_printf(b, "no key metric shown to differ beyond noise (%zu key comparisons)", total);
	for (size_t i = 0; differ && i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];

		for (size_t v = 0; c->key[i] && v < ds->nvar; v++) {
			const struct il_mres *x = il_compare_res(c, i, v);

			if ((int)v == c->aa || (int)v == c->ref || !il_decide_verdict_differs(x->vk))
				continue;
			if (listed++ == 8) {
				il_buf_printf(b, "; and %zu more (see the table)", differ - 8);
				goto listed;
			}
			il_buf_printf(b, "%s%s %s on %s (%+.1f%%, p=%.2g)", listed > 1 ? "; " : "", ds->var[v], x->verdict,
				      m->key, x->change_pct, x->p);
		}
	}
listed:
	if (same && same < total)
		il_buf_printf(b, "; the same within noise: %zu of %zu", same, total);
	if (unknown) {
		il_buf_printf(b, "; unknown: %zu of %zu", unknown, total);
		if (c->n_needed_max)
			il_buf_printf(b, " (up to %zu samples per side would tell)", c->n_needed_max);
	}
	if (c->nunreliable)
		il_buf_printf(b, "; the A/A pair %s / %s differs on %zu key metric%s (host not quiet): %s floor raised to "
				 "the A/A floor, %zu comparison%s within it unreliable",
			      ds->var[c->ref], ds->var[c->aa], c->nunreliable, c->nunreliable > 1 ? "s" : "",
			      c->nunreliable > 1 ? "their" : "its", c->n[IL_VERDICT_UNRELIABLE],
			      c->n[IL_VERDICT_UNRELIABLE] == 1 ? "" : "s");
	if (c->nbypass_all)
		il_buf_printf(b, "; governor bypassed (CPU latency limit 0) in %zu sample%s: %zu idle metric comparison%s "
				 "marked bypassed, neither better nor worse (a governor comparison there compares nothing)",
			      c->nbypass_all, c->nbypass_all > 1 ? "s" : "", c->n[IL_VERDICT_BYPASSED] + c->n2[IL_VERDICT_BYPASSED],
			      c->n[IL_VERDICT_BYPASSED] + c->n2[IL_VERDICT_BYPASSED] == 1 ? "" : "s");
	if (total && c->o.holm)
		il_buf_printf(b, " [key metrics: p Holm-adjusted per variant over up to %zu, alpha %g%s]", c->family_max,
			      c->alpha_look, c->looks > 1 ? " a look" : "");
	else if (total)
		il_buf_adds(b, " [p not adjusted for multiple comparisons]");
	if (total2)
		il_buf_printf(b, "; secondary metrics (exploratory, BH q-values): %zu of %zu comparisons differ", differ2,
			      total2);
	if (c->naa_secondary)
		il_buf_printf(b, "; the A/A pair differs on %zu secondary metric%s (exploratory)", c->naa_secondary,
			      c->naa_secondary > 1 ? "s" : "");
	il_buf_adds(b, ".");
	return il_buf_error(b) ? IL_ENOMEM : 0;
}

bool il_compare_aa_warning(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	size_t listed = 0;

	if (!c->nunreliable)
		return false;
	il_buf_printf(b, "host not quiet: %s / %s differ on the key metric%s", ds->var[c->ref], ds->var[c->aa],
		      c->nunreliable > 1 ? "s" : "");
	for (size_t i = 0; i < c->nmet; i++) {
		if (!c->unreliable[i])
			continue;
		if (listed++ == 6) {
			il_buf_printf(b, " and %zu more", c->nunreliable - 6);
			break;
		}
		il_buf_printf(b, "%s %s (%+.1f%%, p=%.2g; A/A floor %.1f%%)", listed > 1 ? "," : "", ds->met[c->met[i]].key,
			      il_compare_res(c, i, (size_t)c->aa)->change_pct, il_compare_res(c, i, (size_t)c->aa)->p, c->aa_floor[i]);
	}
	il_buf_printf(b, ": %s noise floor is raised to the A/A floor; changes within it are unreliable, larger ones "
			 "keep their verdict", c->nunreliable > 1 ? "each one's" : "its");
	return true;
}

bool il_compare_bypass_warning(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	const char *why = NULL;
	size_t listed = 0;

	if (!c->nbypass_all)
		return false;
	for (size_t i = 0; i < ds->nrows && !why; i++)
		if (il_compare_row_bypassed(&ds->rows[i]))
			why = json_string_value(json_object_get(json_object_get(ds->rows[i].idle, "governor_bypass"), "why"));
	il_buf_adds(b, "governor bypassed in");
	for (size_t v = 0; v < ds->nvar; v++) {
		size_t n = 0;

		if (!c->nbypass[v])
			continue;
		for (size_t i = 0; i < ds->nrows; i++)
			n += !strcmp(ds->rows[i].variant, ds->var[v]);
		il_buf_printf(b, "%s %zu of %zu samples of %s", listed++ ? "," : "", c->nbypass[v], n, ds->var[v]);
	}
	il_buf_printf(b, " (%s); their idle metrics are marked bypassed, not better or worse",
		      why ? why : "CPU latency limit 0");
	return true;
}
