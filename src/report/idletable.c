// SPDX-License-Identifier: GPL-2.0-or-later
/* Human tables for snapshots and diffs. */
#include "report/idletable.h"

#include <string.h>

#include "report/tracesum.h"

int il_idletable_diff_by_parse(const char *s, enum il_diff_by *out, struct il_err *err)
{
	if (!strcmp(s, "state"))
		*out = IL_BY_STATE;
	else if (!strcmp(s, "cpu"))
		*out = IL_BY_CPU;
	else if (!strcmp(s, "cluster"))
		*out = IL_BY_CLUSTER;
	else
		return il_err_set(err, IL_EINVAL, "--by '%s': expected state, cpu or cluster", s);
	return 0;
}

/* Append a right-aligned column holding v or "-". */
static int col_u(struct il_buf *b, int w, struct il_val v)
{
	if (!v.ok)
		return il_buf_printf(b, " %*s", w, "-");
	return il_buf_printf(b, " %*llu", w, (unsigned long long)v.v);
}

static int col_pct(struct il_buf *b, int w, bool ok, double frac)
{
	if (!ok)
		return il_buf_printf(b, " %*s", w, "-");
	return il_buf_printf(b, " %*.2f", w, frac * 100.0);
}

int il_idletable_snapshot(struct il_buf *b, const struct il_snapshot *s)
{
	struct il_buf tmp = IL_BUF_INIT;
	int r = 0;

	il_strlist_join(&s->available_governors, &tmp);
	r |= il_buf_printf(b, "host %s  driver %s  governor %s%s (available: %s)\n", s->host ? s->host : "?",
			   s->driver ? s->driver : "-", s->governor ? s->governor : "-",
			   s->governor_writable ? "" : " [read-only]", il_buf_str(&tmp));
	il_buf_reset(&tmp);
	if (s->has_online)
		il_cpuset_format(&s->online, &tmp);
	r |= il_buf_printf(b, "boot_id %s  uptime ", s->boot_id ? s->boot_id : "-");
	r |= s->has_uptime ? il_buf_printf(b, "%.2f s", s->uptime_s) : il_buf_adds(b, "-");
	r |= il_buf_adds(b, "  monotonic ");
	r |= s->has_mono ? il_buf_printf(b, "%.9f s", (double)s->mono_ns / 1e9) : il_buf_adds(b, "-");
	r |= il_buf_printf(b, "  online %s\n", s->has_online ? il_buf_str(&tmp) : "-");
	il_buf_release(&tmp);
	if (!il_snapshot_nstates(s)) {
		r |= il_buf_adds(b, "no idle states on this host\n");
		return r ? IL_ENOMEM : 0;
	}
	r |= il_buf_printf(b, "\n%4s %5s %-16s %8s %9s %7s %12s %15s %9s %9s %8s %6s\n", "cpu", "state", "name",
			   "latency", "residency", "disable", "usage", "time_us", "above", "below", "rejected",
			   "miss%");
	for (size_t i = 0; i < s->ncpus; i++) {
		const struct il_cpu *c = &s->cpus[i];

		for (size_t k = 0; k < c->nstates; k++) {
			const struct il_state *st = &c->states[k];
			bool mr = st->cnt[IL_C_ABOVE].ok && st->cnt[IL_C_BELOW].ok && st->cnt[IL_C_USAGE].v;
			double ratio = mr ? (double)(st->cnt[IL_C_ABOVE].v + st->cnt[IL_C_BELOW].v) /
						    (double)st->cnt[IL_C_USAGE].v : 0;

			r |= il_buf_printf(b, "%4d %5zu %-16.16s", c->cpu, k, st->name);
			r |= col_u(b, 8, st->info[IL_I_LATENCY]);
			r |= col_u(b, 9, st->info[IL_I_RESIDENCY]);
			r |= col_u(b, 7, st->info[IL_I_DISABLE]);
			r |= col_u(b, 12, st->cnt[IL_C_USAGE]);
			r |= col_u(b, 15, st->cnt[IL_C_TIME]);
			r |= col_u(b, 9, st->cnt[IL_C_ABOVE]);
			r |= col_u(b, 9, st->cnt[IL_C_BELOW]);
			r |= col_u(b, 8, st->cnt[IL_C_REJECTED]);
			r |= col_pct(b, 6, mr, ratio);
			r |= il_buf_adds(b, il_snapshot_state_is_poll(st) ? "  poll\n" : "\n");
		}
	}
	for (size_t i = 0; i < s->nzones; i++) {
		r |= il_buf_printf(b, "%senergy %s (%s):", i ? "" : "\n", s->zones[i].zone,
				   s->zones[i].name ? s->zones[i].name : "-");
		r |= col_u(b, 1, s->zones[i].energy_uj);
		r |= il_buf_adds(b, " uJ\n");
	}
	return r ? IL_ENOMEM : 0;
}

static int col_pctv(struct il_buf *b, int w, bool ok, double pct)
{
	if (!ok)
		return il_buf_printf(b, " %*s", w, "-");
	return il_buf_printf(b, " %*.2f", w, pct);
}

static int fmt_metrics_row(struct il_buf *b, const struct il_counts *c, const struct il_diff *d)
{
	struct il_metrics m;
	int r = 0;

	il_metrics_of(c, d, &m);
	r |= col_u(b, 10, m.idles);
	r |= m.has_rate ? il_buf_printf(b, " %9.1f", m.idles_per_s) : il_buf_printf(b, " %9s", "-");
	r |= col_u(b, 9, m.aboves);
	r |= col_u(b, 9, m.belows);
	r |= col_u(b, 9, m.idle_miss);
	r |= m.has_miss_ratio ? il_buf_printf(b, " %8.4f", m.miss_ratio) : il_buf_printf(b, " %8s", "-");
	r |= col_u(b, 14, m.time_us);
	r |= col_u(b, 8, m.rejected);
	r |= col_pctv(b, 6, m.has_too_deep, m.too_deep_pct);
	r |= col_pctv(b, 6, m.has_too_shallow, m.too_shallow_pct);
	r |= col_pctv(b, 6, m.has_miss_pct, m.miss_pct);
	return r;
}

/* Poll states apart: their entries, their 'below' (part of belows) and spinning time, and the sleep time. */
static int fmt_poll(struct il_buf *b, const struct il_counts *c, const struct il_diff *d)
{
	struct il_metrics m;
	bool any = false;

	for (size_t i = 0; i < d->nstates; i++)
		any |= d->states[i].poll;
	if (!any)
		return 0;
	il_metrics_of(c, d, &m);
	return il_buf_adds(b, "poll states: entries") || col_u(b, 1, m.poll_usage) || il_buf_adds(b, ", below") ||
	       col_u(b, 1, m.poll_belows) || il_buf_adds(b, ", spinning") || col_u(b, 1, m.poll_time_us) ||
	       il_buf_adds(b, " us; sleeping") || col_u(b, 1, m.sleep_time_us) || il_buf_adds(b, " us\n");
}

static int fmt_states(struct il_buf *b, const struct il_diff_state *v, size_t n, const struct il_counts *whole)
{
	struct il_buf cpus = IL_BUF_INIT;
	int r = il_buf_printf(b, "%5s %-20s %7s %9s %10s %7s %14s %7s %9s %9s %6s %6s %8s\n", "state", "key", "latency",
			      "residency", "usage", "usage%", "time_us", "time%", "above", "below", "deep%", "shal%",
			      "rejected");

	for (size_t i = 0; i < n; i++) {
		double us, ts, dp = 0, sp = 0;
		bool uok = il_metrics_counts_share(&v[i].d, whole, IL_C_USAGE, &us);
		bool tok = il_metrics_counts_share(&v[i].d, whole, IL_C_TIME, &ts);
		bool dok = il_metrics_too_deep_pct(&v[i], &dp), sok = il_metrics_too_shallow_pct(&v[i], &sp);

		r |= il_buf_printf(b, "%5d %-20.20s", v[i].index, v[i].key ? v[i].key : v[i].name);
		r |= col_u(b, 7, v[i].latency_us);
		r |= col_u(b, 9, v[i].residency_us);
		r |= col_u(b, 10, v[i].d.c[IL_C_USAGE]);
		r |= col_pct(b, 7, uok, us);
		r |= col_u(b, 14, v[i].d.c[IL_C_TIME]);
		r |= col_pct(b, 7, tok, ts);
		r |= col_u(b, 9, v[i].d.c[IL_C_ABOVE]);
		r |= col_u(b, 9, v[i].d.c[IL_C_BELOW]);
		r |= col_pctv(b, 6, dok, dp);
		r |= col_pctv(b, 6, sok, sp);
		r |= col_u(b, 8, v[i].d.c[IL_C_REJECTED]);
		if (v[i].poll)
			r |= il_buf_adds(b, "  poll");
		if (v[i].disabled.n) {
			il_buf_reset(&cpus);
			il_cpuset_format(&v[i].disabled, &cpus);
			r |= il_buf_printf(b, "  disabled on %s", il_buf_str(&cpus));
		}
		r |= il_buf_adds(b, "\n");
	}
	il_buf_release(&cpus);
	return r;
}

static int fmt_energy(struct il_buf *b, const struct il_diff *d)
{
	int r = 0;

	if (!d->nzones)
		return 0;
	if (d->has_energy) {
		r |= il_buf_printf(b, "energy %.3f J", d->energy_j);
		if (d->has_interval && d->interval_s > 0)
			r |= il_buf_printf(b, ", mean %.3f W", d->energy_j / d->interval_s);
		r |= il_buf_printf(b, " (%s)\n", il_diff_energy_source_name(d->energy_source));
	} else {
		r |= il_buf_adds(b, "energy: no package counter (none of these is counted)\n");
	}
	for (size_t i = 0; i < d->nzones; i++) {
		const struct il_diff_zone *z = &d->zones[i];

		r |= il_buf_printf(b, "  %-20s %-14s %14llu uJ  %s%s\n", z->zone, z->name ? z->name : "-",
				   (unsigned long long)z->energy_uj, z->counted ? "counted" : "not counted: ",
				   z->counted ? "" : z->why ? z->why : "?");
	}
	return r;
}

static const char metrics_hdr[] =
	"     idles   idles/s    aboves    belows idle_miss miss_rat        time_us rejected  deep%  shal%  miss%\n";

int il_idletable_diff(struct il_buf *b, const struct il_diff *d, enum il_diff_by by)
{
	struct il_buf tmp = IL_BUF_INIT;
	int r = 0;

	r |= il_buf_printf(b, "host %s  driver %s  governor %s", d->host ? d->host : "?", d->driver ? d->driver : "-",
			   d->governor_after ? d->governor_after : "-");
	if (d->governor_before && d->governor_after && strcmp(d->governor_before, d->governor_after))
		r |= il_buf_printf(b, " (was %s at the first snapshot)", d->governor_before);
	r |= il_buf_adds(b, "\ninterval ");
	r |= d->has_interval ? il_buf_printf(b, "%.3f s (%s clock)", d->interval_s, il_diff_clock_name(d->clock)) :
			       il_buf_adds(b, "-");
	if (d->has_suspended)
		r |= il_buf_printf(b, "  suspended %.3f s", d->suspended_s);
	r |= il_buf_printf(b, "  boot_id %s", d->boot_id_verified ? "unchanged" : "not recorded (unverified)");
	il_cpuset_format(&d->measured, &tmp);
	r |= il_buf_printf(b, "  cpus %s\n", d->measured.n ? il_buf_str(&tmp) : "-");
	if (d->invalid)
		r |= il_buf_printf(b, "NOT A VALID MEASUREMENT: %s\n", d->invalid);
	for (size_t i = 0; i < d->caveats.n; i++)
		r |= il_buf_printf(b, "caveat: %s\n", d->caveats.v[i]);
	if (!d->nstates) {
		r |= il_buf_adds(b, "no idle states on this host: no idle counters to compare\n");
		r |= fmt_energy(b, d);
		il_buf_release(&tmp);
		return r ? IL_ENOMEM : 0;
	}
	r |= il_buf_printf(b, "\n%-10s%s%-10s", "", metrics_hdr, "all CPUs");
	r |= fmt_metrics_row(b, &d->total, d);
	r |= il_buf_adds(b, "\n");
	r |= fmt_poll(b, &d->total, d);
	r |= fmt_energy(b, d);
	r |= il_buf_adds(b, "\n");
	switch (by) {
	case IL_BY_STATE:
		r |= fmt_states(b, d->states, d->nstates, &d->total);
		break;
	case IL_BY_CPU:
		r |= il_buf_printf(b, "%-10s%s", "cpu", metrics_hdr);
		for (size_t i = 0; i < d->ncpus; i++) {
			r |= il_buf_printf(b, "%-10d", d->cpus[i].cpu);
			r |= fmt_metrics_row(b, &d->cpus[i].total, d);
			r |= il_buf_adds(b, "\n");
		}
		break;
	case IL_BY_CLUSTER:
		if (!d->nclusters)
			r |= il_buf_adds(b, "no clusters: the measured CPUs have one capacity and one state table\n");
		for (size_t i = 0; i < d->nclusters; i++) {
			const struct il_diff_cluster *c = &d->clusters[i];

			il_buf_reset(&tmp);
			il_cpuset_format(&c->cpus, &tmp);
			r |= il_buf_printf(b, "cluster %s (", c->label);
			r |= c->cluster.ok ? il_buf_printf(b, "id %lld", (long long)c->cluster.v) : il_buf_adds(b, "no id");
			if (c->capacity.ok)
				r |= il_buf_printf(b, ", capacity %llu", (unsigned long long)c->capacity.v);
			r |= il_buf_printf(b, ", cpus %s)\n", il_buf_str(&tmp));
			r |= il_buf_printf(b, "%-10s%s%-10s", "", metrics_hdr, "cluster");
			r |= fmt_metrics_row(b, &c->total, d);
			r |= il_buf_adds(b, "\n");
			r |= fmt_states(b, c->states, c->nstates, &c->total);
			r |= il_buf_adds(b, "\n");
		}
		break;
	}
	il_buf_release(&tmp);
	return r ? IL_ENOMEM : 0;
}

/* The bucket holding the median of histogram h (JSON array), or SIZE_MAX for an empty one. */
static size_t median_bucket(const json_t *h)
{
	json_int_t total = 0, run = 0;
	const json_t *v;
	size_t i;

	json_array_foreach(h, i, v)
		total += json_integer_value(v);
	json_array_foreach(h, i, v) {
		run += json_integer_value(v);
		if (total && 2 * run >= total)
			return i;
	}
	return SIZE_MAX;
}

static int tick_pct(struct il_buf *b, const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? il_buf_printf(b, "%.1f%%", json_number_value(v)) : il_buf_adds(b, "-");
}

int il_idletable_trace(struct il_buf *b, const json_t *t)
{
	const json_t *st, *chk = json_object_get(t, "check"), *mm, *v;
	const char *src = json_string_value(json_object_get(t, "tick_source"));
	size_t i;
	int r = 0;

	r |= il_buf_printf(b, "\nidle trace: %lld idle entries in %.3f s of window; tick %s",
			   (long long)json_integer_value(json_object_get(t, "entries")),
			   json_number_value(json_object_get(t, "window_s")), src ? src : "not traced");
	if (json_is_integer(json_object_get(t, "hz")))
		r |= il_buf_printf(b, " (HZ %lld)", (long long)json_integer_value(json_object_get(t, "hz")));
	r |= il_buf_adds(b, ": stopped at ");
	r |= tick_pct(b, t, "tick_stopped_pct");
	r |= il_buf_adds(b, " of the entries whose tick state is known, in a shallow state ");
	r |= tick_pct(b, t, "tick_stopped_shallow_pct");
	r |= il_buf_printf(b, "\n%-14s %9s %-11s %8s %8s %8s\n", "state", "entries", "median", "aboves", "belows",
			   "stopped");
	json_array_foreach(json_object_get(t, "states"), i, st) {
		char lab[32];
		size_t m = median_bucket(json_object_get(st, "hist"));
		const json_t *ts = json_object_get(st, "tick_stopped"), *tr = json_object_get(st, "tick_retained");
		json_int_t known = json_integer_value(ts) + json_integer_value(tr);

		r |= il_buf_printf(b, "%-14.14s %9lld %-11s %8lld %8lld ", json_string_value(json_object_get(st, "key")),
				   (long long)json_integer_value(json_object_get(st, "entries")),
				   m == SIZE_MAX ? "-" : il_tracesum_bucket(lab, sizeof(lab), m),
				   (long long)json_integer_value(json_object_get(st, "aboves")),
				   (long long)json_integer_value(json_object_get(st, "belows")));
		r |= json_is_integer(ts) && known ? il_buf_printf(b, "%7.1f%%\n", 100.0 * (double)json_integer_value(ts) / (double)known)
						  : il_buf_printf(b, "%8s\n", "-");
	}
	json_array_foreach(json_object_get(t, "caveats"), i, v)
		r |= il_buf_printf(b, "caveat: %s%s\n", json_string_value(v),
				   !strncmp(json_string_value(v), "tracing does not see CPU", 24) ? ": its trace figures are left out" : "");
	if (json_array_size(json_object_get(t, "blind_cpus"))) {
		r |= il_buf_adds(b, "the trace's figures cover CPU");
		json_array_foreach(json_object_get(t, "traced_cpus"), i, v)
			r |= il_buf_printf(b, "%s %lld", i ? "," : "", (long long)json_integer_value(v));
		r |= il_buf_adds(b, json_array_size(json_object_get(t, "traced_cpus")) ? "\n" : " none\n");
	}
	mm = json_object_get(chk, "mismatches");
	if (json_is_true(json_object_get(chk, "ok")))
		r |= il_buf_adds(b, "the trace agrees with the counters (docs/formats.md \"idle.trace\")\n");
	json_array_foreach(mm, i, v)
		r |= il_buf_printf(b, "the trace disagrees with the counters: %s\n", json_string_value(v));
	json_array_foreach(json_object_get(chk, "notes"), i, v)
		r |= il_buf_printf(b, "the trace and the counters differ as the kernel explains: %s\n", json_string_value(v));
	return r ? IL_ENOMEM : 0;
}
