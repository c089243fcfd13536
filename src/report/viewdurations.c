// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The durations view (views.h, `--view durations`): what a traced sample's
 * idle.trace tells that the counters cannot (issue #30): per
 * workload, state and variant the idle periods' durations and the misses'
 * offsets as log2 histograms summed over the variant's traced samples, and
 * the tick decisions per state. The sums are tracesum.c's, shared with the
 * HTML report's plots.
 */
#include "report/views.h"
#include "report/tracesum.h"
#include "report/viewkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables, each made when its first row comes (a run whose samples have no misses has no offsets table). */
struct dtabs {
	struct il_vtab *traced, *dur, *off, *tick;
};

static void traced_row(struct il_vout *o, struct dtabs *t, const struct il_dataset *ds, const char *g, size_t v,
		       const struct il_tsum *s)
{
	size_t n = 0;

	if (!t->traced) {
		t->traced = il_viewkit_tg_table(o, "traced", "traced samples: idle entries and tick decisions (mean per "
					     "traced sample)");
		il_vtable_col(o, t->traced, "n", IL_VK_COUNT);
		il_vtable_col(o, t->traced, "traced", IL_VK_COUNT);
		il_vtable_col(o, t->traced, "entries", IL_VK_COUNT);
		il_vtable_col(o, t->traced, "tick stopped %", IL_VK_FIX1);
		il_vtable_col(o, t->traced, "shallow stopped %", IL_VK_FIX1);
		il_vtable_col(o, t->traced, "mismatched", IL_VK_COUNT);
	}
	for (size_t x = 0; x < ds->nrows; x++)
		n += il_viewkit_row_is(&ds->rows[x], g, ds->var[v]);
	il_viewkit_tg_row(o, t->traced, g, ds->var[v]);
	il_vtable_n(o, t->traced, (double)n);
	il_vtable_n(o, t->traced, (double)s->samples);
	il_vtable_n(o, t->traced, il_viewkit_avg_get(&s->entries));
	il_vtable_n(o, t->traced, il_viewkit_avg_get(&s->stopped_pct));
	il_vtable_n(o, t->traced, il_viewkit_avg_get(&s->shallow_pct));
	il_vtable_n(o, t->traced, (double)s->mismatched);
}

/* The rows of one state's histogram h (of total) for one variant, over the buckets lo..hi. */
static void hist_rows(struct il_vout *o, struct il_vtab *t, const char *g, const char *var, const char *key,
		      const char *kind, const double *h, double total, size_t lo, size_t hi)
{
	for (size_t b = lo; b <= hi; b++) {
		char label[32];

		il_viewkit_tg_row(o, t, g, var);
		il_vtable_s(o, t, key);
		if (kind)
			il_vtable_s(o, t, kind);
		il_vtable_s(o, t, il_tracesum_bucket(label, sizeof(label), b));
		il_vtable_n(o, t, h[b]);
		il_vtable_n(o, t, total > 0 ? 100 * h[b] / total : NAN);
	}
}

/* One state's duration and offset histograms of every traced variant, over the buckets any of them reached. */
static void state_rows(struct il_vout *o, struct dtabs *t, const struct il_dataset *ds, const char *g, const char *key,
		       const struct il_tsum *s, size_t k)
{
	size_t lo = IL_TSUM_NBUCKET, hi = 0;

	for (size_t v = 0; v < ds->nvar; v++)
		if (s[v].samples)
			il_tracesum_span(s[v].st[k].hist, &lo, &hi);
	if (lo <= hi && !t->dur) {
		t->dur = il_viewkit_tg_table(o, "durations", "idle period durations per state (log2 buckets, summed over "
					  "the traced samples): periods and % of the state's periods");
		il_vtable_col(o, t->dur, "state", IL_VK_TEXT);
		il_vtable_col(o, t->dur, "duration", IL_VK_TEXT);
		il_vtable_col(o, t->dur, "periods", IL_VK_COUNT);
		il_vtable_col(o, t->dur, "%", IL_VK_FIX1);
	}
	for (size_t v = 0; lo <= hi && v < ds->nvar; v++)
		if (s[v].samples)
			hist_rows(o, t->dur, g, ds->var[v], key, NULL, s[v].st[k].hist, s[v].st[k].periods, lo, hi);
	for (int above = 1; above >= 0; above--) {
		lo = IL_TSUM_NBUCKET, hi = 0;
		for (size_t v = 0; v < ds->nvar; v++)
			if (s[v].samples)
				il_tracesum_span(above ? s[v].st[k].above : s[v].st[k].below, &lo, &hi);
		if (lo > hi)
			continue;
		if (!t->off) {
			t->off = il_viewkit_tg_table(o, "offsets", "how far off the misses were (log2 buckets, summed over "
						  "the traced samples): count and % of the state's misses of the kind");
			il_vtable_col(o, t->off, "state", IL_VK_TEXT);
			il_vtable_col(o, t->off, "miss", IL_VK_TEXT);
			il_vtable_col(o, t->off, "offset", IL_VK_TEXT);
			il_vtable_col(o, t->off, "count", IL_VK_COUNT);
			il_vtable_col(o, t->off, "%", IL_VK_FIX1);
		}
		for (size_t v = 0; v < ds->nvar; v++)
			if (s[v].samples)
				hist_rows(o, t->off, g, ds->var[v], key, above ? "above" : "below",
					  above ? s[v].st[k].above : s[v].st[k].below,
					  above ? s[v].st[k].aboves : s[v].st[k].belows, lo, hi);
	}
}

static void tick_rows(struct il_vout *o, struct dtabs *t, const char *g, const char *var, const struct il_view_keys *ks,
		      const struct il_tsum *s)
{
	if (!t->tick) {
		t->tick = il_viewkit_tg_table(o, "tick", "the tick when the idle periods began, per state (summed over "
					   "the traced samples)");
		il_vtable_col(o, t->tick, "state", IL_VK_TEXT);
		il_vtable_col(o, t->tick, "shallow", IL_VK_TEXT);
		il_vtable_col(o, t->tick, "stopped", IL_VK_COUNT);
		il_vtable_col(o, t->tick, "retained", IL_VK_COUNT);
		il_vtable_col(o, t->tick, "unknown", IL_VK_COUNT);
		il_vtable_col(o, t->tick, "stopped %", IL_VK_FIX1);
	}
	for (size_t k = 0; k < ks->k.n; k++) {
		const struct il_tsum_state *st = &s->st[k];
		bool known = isfinite(st->residency_us) && isfinite(s->tick_period_us);

		il_viewkit_tg_row(o, t->tick, g, var);
		il_vtable_s(o, t->tick, ks->k.v[k]);
		il_vtable_s(o, t->tick, !known ? "-" : st->residency_us < s->tick_period_us ? "yes" : "no");
		il_vtable_n(o, t->tick, st->stopped);
		il_vtable_n(o, t->tick, st->retained);
		il_vtable_n(o, t->tick, st->unknown);
		il_vtable_n(o, t->tick, st->stopped + st->retained > 0 ? 100 * st->stopped / (st->stopped + st->retained) :
									NAN);
	}
}

int il_viewdurations_build(const struct il_cmp *c, struct il_vout *o)
{
	const struct il_dataset *ds = c->ds;
	struct il_strlist g = { 0 };
	struct dtabs t = { 0 };
	size_t mismatched = 0;
	bool ticks = false;
	int r;

	if (!il_tracesum_any(ds)) {
		il_vtable_note(o, "no traced samples: no counted sample of this run has an idle trace (idle.trace in its "
			     "journal record, docs/formats.md), so there are no idle period durations or tick decisions "
			     "to show; the counters' views (states, misses) show what the counters tell");
		return 0;
	}
	r = il_viewkit_groups(ds, &g);
	for (size_t i = 0; !r && i < g.n; i++) {
		struct il_view_keys ks = { 0 };
		struct il_tsum *s = NULL;
		size_t traced = 0;

		if ((r = il_tracesum_keys(ds, g.v[i], &ks)) || !(s = calloc(ds->nvar, sizeof(*s)))) {
			r = IL_ENOMEM;
			goto next;
		}
		for (size_t v = 0; !r && v < ds->nvar; v++)
			r = il_tracesum_make(ds, g.v[i], ds->var[v], &ks, &s[v]);
		for (size_t v = 0; !r && v < ds->nvar; v++) {
			traced += s[v].samples;
			mismatched += s[v].mismatched;
			ticks |= s[v].tick_traced;
			if (s[v].samples)
				traced_row(o, &t, ds, g.v[i], v, &s[v]);
		}
		if (!r && !traced)
			il_vtable_note(o, "%s: no traced samples", g.v[i]);
		for (size_t k = 0; !r && traced && k < ks.k.n; k++)
			state_rows(o, &t, ds, g.v[i], ks.k.v[k], s, k);
		for (size_t v = 0; !r && v < ds->nvar; v++)
			if (s[v].samples)
				tick_rows(o, &t, g.v[i], ds->var[v], &ks, &s[v]);
next:
		for (size_t v = 0; s && v < ds->nvar; v++)
			il_tracesum_release(&s[v]);
		free(s);
		il_strlist_release(&ks.k);
	}
	if (!r) {
		il_vtable_note(o, "traced: the counted samples with an idle trace; entries: idle state exits in the trace's "
			     "window over the measured CPUs; tick stopped %% and shallow stopped %%: the mean over the "
			     "traced samples of each one's own (compare judges them as idle.trace.tick_stopped_pct and "
			     "idle.trace.tick_stopped_shallow_pct)");
		il_vtable_note(o, "durations: complete idle periods in the window (cpu_idle entry to exit), summed over the "
			     "variant's traced samples and measured CPUs; bucket k holds [2^(k-1), 2^k) us, in binary "
			     "units (1ms = 1024us, 1s = 1024ms); buckets no variant reached are left out; %%: of the "
			     "state's complete periods");
		if (t.off)
			il_vtable_note(o, "offsets: above (too deep) = the state's target residency - the period's "
				     "duration, below (too shallow) = the duration - the next enabled deeper state's target "
				     "residency, as cpuidle_enter_state() judges them (cpu_idle_miss events); %%: of the "
				     "state's misses of that kind");
		il_vtable_note(o, "tick: its state when each period began (timer:tick_stop, until the CPU left the idle "
			     "loop; or the decision traced before the period with the function tracer), unknown when not "
			     "seen; stopped %% = 100 x stopped / (stopped + retained); shallow: the state's target residency "
			     "is below the tick period (1e6 / HZ us)");
		if (!ticks)
			il_vtable_note(o, "the tick was not traced (no timer:tick_stop or sched:sched_switch event in "
				     "that kernel): every period's tick is unknown");
		{
			struct il_buf bn = IL_BUF_INIT;

			if (il_tracesum_blind_note(ds, &bn))
				il_vtable_note(o, "%s", il_buf_str(&bn));
			if (!il_buf_ok(&bn))
				r = IL_ENOMEM;
			il_buf_release(&bn);
		}
		if (mismatched)
			il_vtable_note(o, "%zu traced samples' counts disagree with the idle counters (check.mismatches in "
				     "the journal): their histograms are summed all the same", mismatched);
	}
	il_strlist_release(&g);
	return r;
}
