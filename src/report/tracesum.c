// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sums of the traced samples' idle.trace objects per workload and variant
 * (tracesum.h), and the histogram buckets' labels. The JSON is read as
 * docs/formats.md defines it; a field that is absent or of another type
 * adds nothing (a journal of another version is shown as far as it goes,
 * never refused here: the journal reader is where journals are judged).
 */
#include "report/tracesum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const json_t *trace_of(const struct il_row *r)
{
	const json_t *t = json_object_get(r->idle, "trace");

	return json_is_object(t) ? t : NULL;
}

bool il_tracesum_any(const struct il_dataset *ds)
{
	for (size_t i = 0; i < ds->nrows; i++)
		if (trace_of(&ds->rows[i]))
			return true;
	return false;
}

int il_tracesum_keys(const struct il_dataset *ds, const char *group, struct il_view_keys *ks)
{
	for (size_t i = 0; i < ds->nrows; i++)
		if (trace_of(&ds->rows[i]) && il_viewkit_row_is(&ds->rows[i], group, NULL) &&
		    il_viewkit_keys_add(ks, json_object_get(trace_of(&ds->rows[i]), "states")))
			return IL_ENOMEM;
	return 0;
}

/* Add the JSON array a of counts to h bucket by bucket (extra elements of a damaged array left out); its sum. */
static double add_hist(double *h, const json_t *a)
{
	const json_t *e;
	double sum = 0;
	size_t i;

	json_array_foreach(a, i, e) {
		if (i >= IL_TSUM_NBUCKET || !json_is_number(e))
			continue;
		h[i] += json_number_value(e);
		sum += json_number_value(e);
	}
	return sum;
}

/* The number at key in o, 0 when absent: a count that is not there added nothing. */
static double count(const json_t *o, const char *key)
{
	double v = il_viewkit_jnum(o, key);

	return isfinite(v) ? v : 0;
}

int il_tracesum_make(const struct il_dataset *ds, const char *group, const char *variant, const struct il_view_keys *ks,
		 struct il_tsum *out)
{
	if (!(out->st = calloc(ks->k.n + 1, sizeof(*out->st))))
		return IL_ENOMEM;
	out->tick_period_us = NAN;
	for (size_t k = 0; k < ks->k.n; k++)
		out->st[k].residency_us = NAN;
	for (size_t i = 0; i < ds->nrows; i++) {
		const json_t *t = trace_of(&ds->rows[i]), *e;
		size_t j;

		if (!t || !il_viewkit_row_is(&ds->rows[i], group, variant))
			continue;
		if (!out->samples++)
			out->tick_period_us = il_viewkit_jnum(t, "tick_period_us");
		out->mismatched += json_is_false(json_object_get(json_object_get(t, "check"), "ok"));
		out->tick_traced |= json_is_string(json_object_get(t, "tick_source"));
		il_viewkit_avg_add(&out->entries, il_viewkit_jnum(t, "entries"));
		il_viewkit_avg_add(&out->stopped_pct, il_viewkit_jnum(t, "tick_stopped_pct"));
		il_viewkit_avg_add(&out->shallow_pct, il_viewkit_jnum(t, "tick_stopped_shallow_pct"));
		json_array_foreach(json_object_get(t, "states"), j, e) {
			const char *key = il_viewkit_state_key(e);
			struct il_tsum_state *s = NULL;

			for (size_t k = 0; key && k < ks->k.n && !s; k++)
				if (!strcmp(ks->k.v[k], key))
					s = &out->st[k];
			if (!s)
				continue;
			if (isnan(s->residency_us))
				s->residency_us = il_viewkit_jnum(e, "residency_us");
			s->periods += add_hist(s->hist, json_object_get(e, "hist"));
			s->aboves += add_hist(s->above, json_object_get(e, "above_short_hist"));
			s->belows += add_hist(s->below, json_object_get(e, "below_long_hist"));
			s->stopped += count(e, "tick_stopped");
			s->retained += count(e, "tick_retained");
			s->unknown += count(e, "tick_unknown");
		}
	}
	return 0;
}

/* CPU numbers in the trace's blind_cpus, for the run's note: at most this many are named */
#define BLIND_MAX 64

bool il_tracesum_blind_note(const struct il_dataset *ds, struct il_buf *b)
{
	int cpu[BLIND_MAX];
	size_t hits[BLIND_MAX], n = 0, traced = 0, more = 0;

	for (size_t i = 0; i < ds->nrows; i++) {
		const json_t *t = trace_of(&ds->rows[i]), *e;
		size_t j;

		if (!t)
			continue;
		traced++;
		json_array_foreach(json_object_get(t, "blind_cpus"), j, e) {
			int c = (int)json_integer_value(json_object_get(e, "cpu"));
			size_t k = 0;

			while (k < n && cpu[k] != c)
				k++;
			if (k == n && n == BLIND_MAX) {
				more++;
				continue;
			}
			if (k == n) {
				cpu[n] = c;
				hits[n++] = 0;
			}
			hits[k]++;
		}
	}
	if (!n)
		return false;
	il_buf_printf(b, "tracing does not see the idle entries of CPU%s", n > 1 ? "s" : "");
	for (size_t k = 0; k < n; k++)
		il_buf_printf(b, "%s %d (%zu of %zu traced samples)", k ? "," : "", cpu[k], hits[k], traced);
	if (more)
		il_buf_printf(b, " and more");
	il_buf_printf(b, ": %s counters moved while the trace had none or fewer than half of %s exits, so the idle "
			 "trace figures leave %s out (idle.trace.blind_cpus); the samples are valid",
		      n > 1 ? "their" : "its", n > 1 ? "their" : "its", n > 1 ? "them" : "it");
	return true;
}

void il_tracesum_release(struct il_tsum *s)
{
	free(s->st);
	memset(s, 0, sizeof(*s));
}

void il_tracesum_span(const double *h, size_t *lo, size_t *hi)
{
	for (size_t k = 0; k < IL_TSUM_NBUCKET; k++)
		if (h[k] > 0) {
			*lo = k < *lo ? k : *lo;
			*hi = k > *hi ? k : *hi;
		}
}

/* 2^e us in the largest binary unit that keeps it whole: "512us", "1ms", "4s" */
static void bound(char *buf, size_t n, unsigned e, const char **unit)
{
	static const char *const units[] = { "us", "ms", "s" };
	unsigned u = e / 10 < 2 ? e / 10 : 2;

	snprintf(buf, n, "%lu", 1ul << (e - 10 * u));
	*unit = units[u];
}

const char *il_tracesum_bucket(char *buf, size_t n, size_t k)
{
	char a[16], b[16];
	const char *ua, *ub;

	if (k == 0) {
		snprintf(buf, n, "<1us");
		return buf;
	}
	if (k >= IL_TSUM_NBUCKET - 1) {
		bound(b, sizeof(b), IL_TSUM_NBUCKET - 2, &ub);
		snprintf(buf, n, ">=%s%s", b, ub);
		return buf;
	}
	bound(a, sizeof(a), (unsigned)k - 1, &ua);
	bound(b, sizeof(b), (unsigned)k, &ub);
	if (strcmp(ua, ub))
		snprintf(buf, n, "%s%s-%s%s", a, ua, b, ub);
	else
		snprintf(buf, n, "%s-%s%s", a, b, ub);
	return buf;
}
