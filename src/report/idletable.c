// SPDX-License-Identifier: GPL-2.0-or-later
/* Human tables for snapshots and diffs. */
#include "report/idletable.h"

#include <string.h>

int il_diff_by_parse(const char *s, enum il_diff_by *out, struct il_err *err)
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

int il_fmt_snapshot(struct il_buf *b, const struct il_snapshot *s)
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
			r |= il_buf_adds(b, "\n");
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
	return r;
}

static int fmt_states(struct il_buf *b, const struct il_diff_state *v, size_t n, const struct il_counts *whole)
{
	int r = il_buf_printf(b, "%5s %-16s %10s %7s %14s %7s %9s %9s %8s\n", "state", "name", "usage", "usage%",
			      "time_us", "time%", "above", "below", "rejected");

	for (size_t i = 0; i < n; i++) {
		double us, ts;
		bool uok = il_counts_share(&v[i].d, whole, IL_C_USAGE, &us);
		bool tok = il_counts_share(&v[i].d, whole, IL_C_TIME, &ts);

		r |= il_buf_printf(b, "%5d %-16.16s", v[i].index, v[i].name);
		r |= col_u(b, 10, v[i].d.c[IL_C_USAGE]);
		r |= col_pct(b, 7, uok, us);
		r |= col_u(b, 14, v[i].d.c[IL_C_TIME]);
		r |= col_pct(b, 7, tok, ts);
		r |= col_u(b, 9, v[i].d.c[IL_C_ABOVE]);
		r |= col_u(b, 9, v[i].d.c[IL_C_BELOW]);
		r |= col_u(b, 8, v[i].d.c[IL_C_REJECTED]);
		r |= il_buf_adds(b, "\n");
	}
	return r;
}

static const char metrics_hdr[] = "     idles   idles/s    aboves    belows idle_miss miss_rat        time_us rejected\n";

int il_fmt_diff(struct il_buf *b, const struct il_diff *d, enum il_diff_by by)
{
	struct il_buf tmp = IL_BUF_INIT;
	int r = 0;

	r |= il_buf_printf(b, "host %s  driver %s  governor %s", d->host ? d->host : "?", d->driver ? d->driver : "-",
			   d->governor_after ? d->governor_after : "-");
	if (d->governor_before && d->governor_after && strcmp(d->governor_before, d->governor_after))
		r |= il_buf_printf(b, " (was %s at the first snapshot)", d->governor_before);
	r |= il_buf_adds(b, "\ninterval ");
	r |= d->has_interval ? il_buf_printf(b, "%.3f s", d->interval_s) : il_buf_adds(b, "-");
	r |= il_buf_printf(b, "  boot_id %s\n", d->boot_id_verified ? "unchanged" : "not recorded (unverified)");
	if (!d->nstates) {
		r |= il_buf_adds(b, "no idle states on this host: no idle counters to compare\n");
		return r ? IL_ENOMEM : 0;
	}
	r |= il_buf_printf(b, "\n%-10s%s%-10s", "", metrics_hdr, "all CPUs");
	r |= fmt_metrics_row(b, &d->total, d);
	r |= il_buf_adds(b, "\n");
	if (d->has_energy) {
		r |= il_buf_printf(b, "energy %.3f J", d->energy_j);
		if (d->has_interval && d->interval_s > 0)
			r |= il_buf_printf(b, ", mean %.3f W", d->energy_j / d->interval_s);
		r |= il_buf_adds(b, "\n");
	}
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
		for (size_t i = 0; i < d->nclusters; i++) {
			const struct il_diff_cluster *c = &d->clusters[i];

			il_buf_reset(&tmp);
			il_cpuset_format(&c->cpus, &tmp);
			if (c->cluster.ok)
				r |= il_buf_printf(b, "cluster %lld (cpus %s)\n", (long long)c->cluster.v, il_buf_str(&tmp));
			else
				r |= il_buf_printf(b, "no cluster id (cpus %s)\n", il_buf_str(&tmp));
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
