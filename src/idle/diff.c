// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot differences: structural checks, the interval and its clock,
 * validity, aggregation (states by name, latency and residency; clusters on
 * asymmetric hosts) and the derived idle metrics. What each counter means is
 * cpuidle_enter_state() in drivers/cpuidle/cpuidle.c (docs/formats.md).
 */
#include "idle/diff.h"
#include "util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/energy.h"
#include "idle/snapjson.h"

/* Idle time may exceed the interval by this much before the diff is invalid (reading the counters takes time). */
#define IL_IDLE_SLACK_US 2000
/* /proc/uptime's resolution: added to the slack when the interval comes from it. */
#define IL_UPTIME_RES_US 10000
/*
 * boottime - monotonic growth beyond this is a suspend: uptime's 10 ms steps, twice, plus the
 * time between reading the two clocks, which one grep keeps short on a quiet host but a loaded
 * one can stretch by tens of ms (measured: 31-73 ms with 100 fleet hosts on 2 cores). A real
 * suspend and resume takes longer than this, and suspend_stats counts it where the kernel has it.
 */
#define IL_SUSPEND_SLACK_S 0.100
/* Default min_sample_s by clock: 100 x the resolution of the clock, or so. */
#define IL_MIN_SAMPLE_MONO_S 0.1
#define IL_MIN_SAMPLE_UPTIME_S 1.0

/* ---- Counts ---- */

static void counts_zero(struct il_counts *c)
{
	for (int i = 0; i < IL_NCOUNTERS; i++)
		c->c[i] = c->poll[i] = (struct il_val){ 0, true };
}

static void counts_add(struct il_counts *dst, const struct il_counts *src)
{
	for (int i = 0; i < IL_NCOUNTERS; i++) {
		dst->c[i].ok = dst->c[i].ok && src->c[i].ok;
		dst->c[i].v += src->c[i].v;
		dst->poll[i].ok = dst->poll[i].ok && src->poll[i].ok;
		dst->poll[i].v += src->poll[i].v;
	}
}

bool il_counts_share(const struct il_counts *part, const struct il_counts *whole, enum il_counter c,
		     double *out)
{
	if (!part->c[c].ok || !whole->c[c].ok || !whole->c[c].v)
		return false;
	*out = (double)part->c[c].v / (double)whole->c[c].v;
	return true;
}

static struct il_val val_sub(struct il_val a, struct il_val b)
{
	return (struct il_val){ a.ok && b.ok ? a.v - b.v : 0, a.ok && b.ok };
}

/* 100 * part / whole, when both are known and whole is not 0. */
static bool pct(struct il_val part, struct il_val whole, double *out)
{
	if (!part.ok || !whole.ok || !whole.v)
		return false;
	*out = 100.0 * (double)part.v / (double)whole.v;
	return true;
}

void il_metrics_of(const struct il_counts *c, const struct il_diff *d, struct il_metrics *out)
{
	memset(out, 0, sizeof(*out));
	out->idles = c->c[IL_C_USAGE];
	out->aboves = c->c[IL_C_ABOVE];
	/* a poll state's below is its time limit running out, not a misprediction */
	out->belows = val_sub(c->c[IL_C_BELOW], c->poll[IL_C_BELOW]);
	out->poll_timeouts = c->poll[IL_C_BELOW];
	out->poll_usage = c->poll[IL_C_USAGE];
	out->time_us = c->c[IL_C_TIME];
	out->poll_time_us = c->poll[IL_C_TIME];
	out->sleep_time_us = val_sub(c->c[IL_C_TIME], c->poll[IL_C_TIME]);
	out->rejected = c->c[IL_C_REJECTED];
	out->idle_miss.ok = out->aboves.ok && out->belows.ok;
	out->idle_miss.v = out->idle_miss.ok ? out->aboves.v + out->belows.v : 0;
	if (out->idle_miss.ok && out->idles.ok && out->idles.v) {
		out->has_miss_ratio = true;
		out->miss_ratio = (double)out->idle_miss.v / (double)out->idles.v;
	}
	out->has_too_deep = pct(out->aboves, out->idles, &out->too_deep_pct);
	out->has_too_shallow = pct(out->belows, out->idles, &out->too_shallow_pct);
	out->has_miss_pct = pct(out->idle_miss, out->idles, &out->miss_pct);
	if (d && d->has_interval && d->interval_s > 0 && out->idles.ok) {
		out->has_rate = true;
		out->idles_per_s = (double)out->idles.v / d->interval_s;
	}
}

bool il_state_too_deep_pct(const struct il_diff_state *s, double *out)
{
	return pct(s->d.c[IL_C_ABOVE], s->d.c[IL_C_USAGE], out);
}

bool il_state_too_shallow_pct(const struct il_diff_state *s, double *out)
{
	return !s->poll && pct(s->d.c[IL_C_BELOW], s->d.c[IL_C_USAGE], out);
}

const char *il_clock_name(enum il_clock c)
{
	static const char *const names[] = { [IL_CLOCK_NONE] = NULL, [IL_CLOCK_MONOTONIC] = "monotonic",
					     [IL_CLOCK_UPTIME] = "uptime" };

	return names[c];
}

const char *il_energy_source_name(enum il_energy_source s)
{
	static const char *const names[] = { [IL_ENERGY_NONE] = NULL, [IL_ENERGY_POWERCAP] = "powercap",
					     [IL_ENERGY_HWMON] = "hwmon" };

	return names[s];
}

/* ---- Release ---- */

static void state_release(struct il_diff_state *s)
{
	IL_FREE_ALL(s->name, s->key);
	il_cpuset_release(&s->disabled);
}

static void states_release(struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		state_release(&v[i]);
	free(v);
}

static void clusters_release(struct il_diff *d)
{
	for (size_t i = 0; i < d->nclusters; i++) {
		states_release(d->clusters[i].states, d->clusters[i].nstates);
		il_cpuset_release(&d->clusters[i].cpus);
		free(d->clusters[i].label);
	}
	free(d->clusters);
	d->clusters = NULL;
	d->nclusters = 0;
}

void il_diff_release(struct il_diff *d)
{
	for (size_t i = 0; i < d->ncpus; i++)
		states_release(d->cpus[i].states, d->cpus[i].nstates);
	free(d->cpus);
	clusters_release(d);
	states_release(d->states, d->nstates);
	for (size_t i = 0; i < d->nzones; i++)
		IL_FREE_ALL(d->zones[i].zone, d->zones[i].name, d->zones[i].why);
	il_cpuset_release(&d->measured);
	il_strlist_release(&d->caveats);
	IL_FREE_ALL(d->zones, d->host, d->boot_id, d->governor_before, d->governor_after, d->driver, d->invalid);
	memset(d, 0, sizeof(*d));
}

/* ---- Small helpers ---- */

static bool streq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		*oom = true;
	return p;
}

static bool val_eq(struct il_val a, struct il_val b)
{
	return a.ok == b.ok && (!a.ok || a.v == b.v);
}

/* Add cpu to a set; CPUs arrive in increasing order, so the set stays sorted. */
static int cpuset_add(struct il_cpuset *s, int cpu)
{
	int *nv;

	if (s->n && s->cpu[s->n - 1] >= cpu)
		return 0;
	nv = realloc(s->cpu, (s->n + 1) * sizeof(*nv));
	if (!nv)
		return IL_ENOMEM;
	s->cpu = nv;
	s->cpu[s->n++] = cpu;
	return 0;
}

static int cpuset_union(struct il_cpuset *dst, const struct il_cpuset *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (!il_cpuset_has(dst, src->cpu[i]) && cpuset_add(dst, src->cpu[i]))
			return IL_ENOMEM;
	return 0;
}

/* A CPU list as text into a fixed buffer (for messages). */
static const char *cpus_text(const struct il_cpuset *s, char *buf, size_t n)
{
	struct il_buf b = IL_BUF_INIT;

	il_cpuset_format(s, &b);
	il_strlcpy(buf, il_buf_error(&b) ? "?" : il_buf_str(&b), n);
	il_buf_release(&b);
	return buf;
}

/* Add a caveat (s: il_strdup_printf's, owned; NULL: out of memory). */
static int caveat(struct il_diff *d, char *s)
{
	int r = !s || il_strlist_push(&d->caveats, s);

	free(s);
	return r ? IL_ENOMEM : 0;
}

/* The first reason a diff is not a valid measurement (s owned, as for caveat); later ones are dropped. */
static int invalid(struct il_diff *d, char *s)
{
	if (!s)
		return IL_ENOMEM;
	if (d->invalid)
		free(s);
	else
		d->invalid = s;
	return 0;
}

/* ---- Structural checks and per-CPU deltas ---- */

/* b - a for one CPU; a NULL: b's counters from zero (il_diff_lifetime). */
static int cpu_delta(struct il_diff_cpu *out, const struct il_cpu *a, const struct il_cpu *b, const char *host,
		     struct il_err *err)
{
	out->cpu = b->cpu;
	out->cluster = b->cluster_id;
	out->capacity = b->capacity;
	counts_zero(&out->total);
	if (a && a->nstates != b->nstates)
		return il_err_set(err, IL_EMISMATCH, "host '%s': cpu%d has %zu idle states before and %zu after",
				  host, a->cpu, a->nstates, b->nstates);
	out->states = calloc(b->nstates + 1, sizeof(*out->states));
	if (!out->states)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t k = 0; k < b->nstates; k++) {
		const struct il_state *sb = &b->states[k], *sa = a ? &a->states[k] : sb;
		struct il_diff_state *ds = &out->states[k];

		out->nstates = k + 1;
		ds->index = (int)k;
		if (!streq(sa->name, sb->name))
			return il_err_set(err, IL_EMISMATCH,
					  "host '%s': cpu%d state%zu changed name ('%s' before, '%s' after)", host,
					  a->cpu, k, sa->name ? sa->name : "?", sb->name ? sb->name : "?");
		ds->name = strdup(sa->name ? sa->name : "");
		if (!ds->name)
			return il_err_set(err, IL_ENOMEM, "out of memory");
		ds->latency_us = sb->info[IL_I_LATENCY];
		ds->residency_us = sb->info[IL_I_RESIDENCY];
		ds->poll = il_state_is_poll(sb);
		if (((sa->info[IL_I_DISABLE].ok && sa->info[IL_I_DISABLE].v) ||
		     (sb->info[IL_I_DISABLE].ok && sb->info[IL_I_DISABLE].v)) &&
		    cpuset_add(&ds->disabled, a->cpu))
			return il_err_set(err, IL_ENOMEM, "out of memory");
		for (int c = 0; c < IL_NCOUNTERS; c++) {
			const struct il_val zero = { 0, sb->cnt[c].ok };
			const struct il_val *va = a ? &sa->cnt[c] : &zero, *vb = &sb->cnt[c];

			if (va->ok != vb->ok)
				return il_err_set(err, IL_EMISMATCH,
						  "host '%s': cpu%d state%zu '%s': '%s' present in only the %s snapshot",
						  host, a->cpu, k, ds->name, il_counter_file(c),
						  va->ok ? "first" : "second");
			/*
			 * The counters live in the cpuidle device: a CPU taken offline and
			 * back (haltpoll unregisters and registers the device) starts from 0.
			 */
			if (va->ok && vb->v < va->v)
				return il_err_set(err, IL_EMISMATCH,
						  "host '%s': counters of cpu%d reset: the CPU was taken offline and back "
						  "(haltpoll re-registers the device): state%zu '%s' '%s' went from %llu to %llu",
						  host, a->cpu, k, ds->name, il_counter_file(c),
						  (unsigned long long)va->v, (unsigned long long)vb->v);
			ds->d.c[c].ok = ds->d.poll[c].ok = va->ok;
			ds->d.c[c].v = va->ok ? vb->v - va->v : 0;
			ds->d.poll[c].v = ds->poll ? ds->d.c[c].v : 0;
		}
		counts_add(&out->total, &ds->d);
	}
	return 0;
}

static int check_cpu_sets(const struct il_snapshot *a, const struct il_snapshot *b, const char *host,
			  struct il_err *err)
{
	size_t i = 0, j = 0;

	while (i < a->ncpus || j < b->ncpus) {
		if (j >= b->ncpus || (i < a->ncpus && a->cpus[i].cpu < b->cpus[j].cpu))
			return il_err_set(err, IL_EMISMATCH,
					  "host '%s': cpu%d is in the first snapshot but not in the second (went offline?)",
					  host, a->cpus[i].cpu);
		if (i >= a->ncpus || b->cpus[j].cpu < a->cpus[i].cpu)
			return il_err_set(err, IL_EMISMATCH,
					  "host '%s': cpu%d is in the second snapshot but not in the first (came online?)",
					  host, b->cpus[j].cpu);
		i++;
		j++;
	}
	if (a->has_online && b->has_online) {
		for (size_t k = 0; k < a->online.n; k++)
			if (!il_cpuset_has(&b->online, a->online.cpu[k]))
				return il_err_set(err, IL_EMISMATCH, "host '%s': cpu%d went offline between snapshots",
						  host, a->online.cpu[k]);
		for (size_t k = 0; k < b->online.n; k++)
			if (!il_cpuset_has(&a->online, b->online.cpu[k]))
				return il_err_set(err, IL_EMISMATCH, "host '%s': cpu%d came online between snapshots",
						  host, b->online.cpu[k]);
	}
	return 0;
}

/* ---- The interval ---- */

static int interval(struct il_diff *d, const struct il_snapshot *a, const struct il_snapshot *b, const char *host,
		    struct il_err *err)
{
	int r;

	if (a->has_uptime && b->has_uptime && b->uptime_s < a->uptime_s)
		return il_err_set(err, IL_EMISMATCH, "host '%s': uptime went backwards (%.2f -> %.2f s)", host,
				  a->uptime_s, b->uptime_s);
	if (a->has_mono && b->has_mono) {
		if (b->mono_ns < a->mono_ns)
			return il_err_set(err, IL_EMISMATCH, "host '%s': the monotonic clock went backwards (%llu -> %llu ns)",
					  host, (unsigned long long)a->mono_ns, (unsigned long long)b->mono_ns);
		d->has_interval = true;
		d->clock = IL_CLOCK_MONOTONIC;
		d->interval_s = (double)(b->mono_ns - a->mono_ns) / 1e9;
		if (a->has_uptime && b->has_uptime) {
			/* boottime runs on during suspend (s2idle too), the monotonic clock does not */
			d->has_suspended = true;
			d->suspended_s = (b->uptime_s - a->uptime_s) - d->interval_s;
			if (d->suspended_s < IL_UPTIME_RES_US / 1e6)
				d->suspended_s = 0; /* within /proc/uptime's 10 ms steps: nothing to see */
		}
		return 0;
	}
	if (a->has_uptime && b->has_uptime) {
		d->has_interval = true;
		d->clock = IL_CLOCK_UPTIME;
		d->interval_s = b->uptime_s - a->uptime_s;
		r = caveat(d, strdup("coarse clock: the interval comes from /proc/uptime (10 ms steps, suspend "
				     "included); the host gave no CLOCK_MONOTONIC reading (/proc/timer_list is root-only)"));
	} else {
		r = caveat(d, strdup("no clock: the snapshots have neither /proc/timer_list nor /proc/uptime, so no "
				     "rates and no power"));
	}
	return r ? il_err_set(err, IL_ENOMEM, "out of memory") : 0;
}

/* ---- Aggregation ---- */

static bool same_state(const struct il_diff_state *x, const struct il_diff_state *y)
{
	return !strcmp(x->name, y->name) && val_eq(x->latency_us, y->latency_us) && val_eq(x->residency_us, y->residency_us);
}

/* Add s into the list of groups v (by name, latency, residency). Nonzero: out of memory. */
static int group_add(struct il_diff_state **v, size_t *n, const struct il_diff_state *s)
{
	struct il_diff_state *nv, *g;

	for (size_t i = 0; i < *n; i++) {
		g = &(*v)[i];
		if (same_state(g, s)) {
			counts_add(&g->d, &s->d);
			if (s->index < g->index)
				g->index = s->index;
			g->poll |= s->poll;
			return cpuset_union(&g->disabled, &s->disabled);
		}
	}
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return IL_ENOMEM;
	*v = nv;
	g = &nv[(*n)++];
	*g = *s;
	g->key = NULL;
	g->disabled = (struct il_cpuset){ 0 };
	g->name = strdup(s->name);
	if (!g->name || cpuset_union(&g->disabled, &s->disabled))
		return IL_ENOMEM;
	return 0;
}

/* Shallow first: by index, then residency, latency, name. */
static int cmp_state(const void *pa, const void *pb)
{
	const struct il_diff_state *a = pa, *b = pb;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->residency_us.v != b->residency_us.v)
		return a->residency_us.v < b->residency_us.v ? -1 : 1;
	if (a->latency_us.v != b->latency_us.v)
		return a->latency_us.v < b->latency_us.v ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Unique keys for the diff's states: the name, or name@<residency>us when
 * several groups share it (big.LITTLE cpu-sleep), name@<latency>-<residency>us
 * when that is not enough either, name#<n> when the values are absent.
 */
static int make_keys(struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t same_name = 0, same_res = 0;
		char key[200];

		for (size_t k = 0; k < n; k++) {
			same_name += !strcmp(v[k].name, v[i].name);
			same_res += !strcmp(v[k].name, v[i].name) && val_eq(v[k].residency_us, v[i].residency_us);
		}
		if (same_name == 1)
			snprintf(key, sizeof(key), "%s", v[i].name);
		else if (v[i].residency_us.ok && same_res == 1)
			snprintf(key, sizeof(key), "%s@%lluus", v[i].name, (unsigned long long)v[i].residency_us.v);
		else if (v[i].residency_us.ok && v[i].latency_us.ok)
			snprintf(key, sizeof(key), "%s@%llu-%lluus", v[i].name, (unsigned long long)v[i].latency_us.v,
				 (unsigned long long)v[i].residency_us.v);
		else
			snprintf(key, sizeof(key), "%s#%zu", v[i].name, i);
		if (!(v[i].key = strdup(key)))
			return IL_ENOMEM;
	}
	return 0;
}

/* The key of the diff-wide group a state of a CPU or cluster belongs to. */
static int key_from(const struct il_diff *d, struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < d->nstates && !v[i].key; k++)
			if (same_state(&v[i], &d->states[k]) && !(v[i].key = strdup(d->states[k].key)))
				return IL_ENOMEM;
	return 0;
}

static int cluster_for(struct il_diff *d, const struct il_diff_cpu *cpu, struct il_diff_cluster **out)
{
	struct il_diff_cluster *v;

	for (size_t i = 0; i < d->nclusters; i++) {
		struct il_diff_cluster *c = &d->clusters[i];

		if (c->cluster.ok == cpu->cluster.ok && (!cpu->cluster.ok || c->cluster.v == cpu->cluster.v) &&
		    val_eq(c->capacity, cpu->capacity)) {
			*out = c;
			return 0;
		}
	}
	v = realloc(d->clusters, (d->nclusters + 1) * sizeof(*v));
	if (!v)
		return IL_ENOMEM;
	d->clusters = v;
	*out = &v[d->nclusters++];
	memset(*out, 0, sizeof(**out));
	(*out)->cluster = cpu->cluster;
	(*out)->capacity = cpu->capacity;
	counts_zero(&(*out)->total);
	return 0;
}

static int cluster_add_cpu(struct il_diff_cluster *c, const struct il_diff_cpu *cpu)
{
	if (cpuset_add(&c->cpus, cpu->cpu))
		return IL_ENOMEM;
	counts_add(&c->total, &cpu->total);
	for (size_t k = 0; k < cpu->nstates; k++)
		if (group_add(&c->states, &c->nstates, &cpu->states[k]))
			return IL_ENOMEM;
	return 0;
}

static bool same_table(const struct il_diff_cpu *x, const struct il_diff_cpu *y)
{
	if (x->nstates != y->nstates)
		return false;
	for (size_t k = 0; k < x->nstates; k++)
		if (!same_state(&x->states[k], &y->states[k]))
			return false;
	return true;
}

/*
 * Whether the groups of CPUs by (cluster_id, cpu_capacity) are clusters
 * worth listing: at least two, and their capacities or state tables differ.
 * On x86 cluster_id is the L2 group and a symmetric VM's CPUs may each have
 * one: those are not clusters of different CPUs.
 */
static bool asymmetric(const struct il_diff *d)
{
	if (d->nclusters < 2)
		return false;
	for (size_t i = 1; i < d->nclusters; i++)
		if (!val_eq(d->clusters[i].capacity, d->clusters[0].capacity))
			return true;
	for (size_t i = 1; i < d->ncpus; i++)
		if (!same_table(&d->cpus[i], &d->cpus[0]))
			return true;
	return false;
}

static int cmp_capacity(const void *pa, const void *pb)
{
	const struct il_diff_cluster *a = *(struct il_diff_cluster *const *)pa, *b = *(struct il_diff_cluster *const *)pb;

	return (a->capacity.v > b->capacity.v) - (a->capacity.v < b->capacity.v);
}

/* little/big (two groups) or little/mid/big (three) by distinct capacities, else cluster<id> or cpu<first>. */
static int label_clusters(struct il_diff *d)
{
	static const char *const by_cap[2][3] = { { "little", "big", NULL }, { "little", "mid", "big" } };
	struct il_diff_cluster *order[3];
	bool caps = d->nclusters == 2 || d->nclusters == 3;

	for (size_t i = 0; caps && i < d->nclusters; i++) {
		caps = d->clusters[i].capacity.ok;
		for (size_t k = 0; caps && k < i; k++)
			caps = d->clusters[k].capacity.v != d->clusters[i].capacity.v;
	}
	if (caps) {
		for (size_t i = 0; i < d->nclusters; i++)
			order[i] = &d->clusters[i];
		qsort(order, d->nclusters, sizeof(*order), cmp_capacity);
		for (size_t i = 0; i < d->nclusters; i++)
			if (!(order[i]->label = strdup(by_cap[d->nclusters - 2][i])))
				return IL_ENOMEM;
		return 0;
	}
	for (size_t i = 0; i < d->nclusters; i++) {
		struct il_diff_cluster *c = &d->clusters[i];
		char l[64];
		bool dup = false;

		snprintf(l, sizeof(l), "cluster%lld", (long long)c->cluster.v);
		for (size_t k = 0; k < i; k++)
			dup |= !strcmp(d->clusters[k].label, l);
		if (!c->cluster.ok || dup)
			snprintf(l, sizeof(l), "cpu%d", c->cpus.n ? c->cpus.cpu[0] : 0);
		if (!(c->label = strdup(l)))
			return IL_ENOMEM;
	}
	return 0;
}

/* Aggregate the measured CPUs into d->states and d->total, and clusters when the host is asymmetric. */
static int aggregate(struct il_diff *d)
{
	for (size_t i = 0; i < d->ncpus; i++) {
		struct il_diff_cluster *cl;

		counts_add(&d->total, &d->cpus[i].total);
		for (size_t k = 0; k < d->cpus[i].nstates; k++)
			if (group_add(&d->states, &d->nstates, &d->cpus[i].states[k]))
				return IL_ENOMEM;
		if (cluster_for(d, &d->cpus[i], &cl) || cluster_add_cpu(cl, &d->cpus[i]))
			return IL_ENOMEM;
	}
	if (d->nstates)
		qsort(d->states, d->nstates, sizeof(*d->states), cmp_state);
	if (make_keys(d->states, d->nstates))
		return IL_ENOMEM;
	for (size_t i = 0; i < d->ncpus; i++)
		if (key_from(d, d->cpus[i].states, d->cpus[i].nstates))
			return IL_ENOMEM;
	if (!asymmetric(d)) {
		clusters_release(d);
		return 0;
	}
	for (size_t i = 0; i < d->nclusters; i++) {
		struct il_diff_cluster *c = &d->clusters[i];

		if (c->nstates) /* a cluster of CPUs without idle states has none */
			qsort(c->states, c->nstates, sizeof(*c->states), cmp_state);
		if (key_from(d, c->states, c->nstates))
			return IL_ENOMEM;
	}
	return label_clusters(d);
}

/* ---- Caveats and validity ---- */

static int state_caveats(struct il_diff *d)
{
	char cpus[256];

	for (size_t i = 0; i < d->nstates; i++) {
		const struct il_diff_state *s = &d->states[i];

		if (s->poll &&
		    caveat(d, il_strdup_printf("%s is a polling state: it spins until a wakeup or cpuidle_poll_time() "
					       "(the smallest target residency of the enabled deeper states), so its "
					       "'below' counts are poll timeouts (poll_timeouts), not misses, and its time "
					       "is spinning (poll_time_us), not sleep",
					       s->key)))
			return IL_ENOMEM;
		if (s->disabled.n &&
		    caveat(d, il_strdup_printf("state %s disabled on cpus %s: the kernel counts 'above' only when a "
					       "shallower state is enabled and 'below' only against enabled deeper states "
					       "(cpuidle.c)",
					       s->key, cpus_text(&s->disabled, cpus, sizeof(cpus)))))
			return IL_ENOMEM;
	}
	return 0;
}

/*
 * Whether the diff is a valid measurement (docs/formats.md): no suspend
 * (suspend_stats counts s2idle too; boottime runs on in suspend while the
 * monotonic clock stops), and with idle states: the minimum length, per-CPU
 * idle time within the interval, the minimum idle entries.
 */
static int validity(struct il_diff *d, const struct il_snapshot *a, const struct il_snapshot *b,
		    const struct il_diff_opts *o)
{
	double min_s;
	char cpus[256];
	int r = 0;

	if ((a->suspend_success.ok && b->suspend_success.ok && a->suspend_success.v != b->suspend_success.v) ||
	    (a->suspend_fail.ok && b->suspend_fail.ok && a->suspend_fail.v != b->suspend_fail.v))
		r |= invalid(d, il_strdup_printf("the host suspended during the sample (suspend_stats success %llu -> "
						 "%llu, fail %llu -> %llu)",
						 (unsigned long long)a->suspend_success.v,
						 (unsigned long long)b->suspend_success.v,
						 (unsigned long long)a->suspend_fail.v, (unsigned long long)b->suspend_fail.v));
	if (d->has_suspended && d->suspended_s > IL_SUSPEND_SLACK_S)
		r |= invalid(d, il_strdup_printf("the host was suspended for %.3f s during the sample (boottime grew "
						 "%.3f s more than the monotonic clock)",
						 d->suspended_s, d->suspended_s));
	if (!d->nstates)
		return r; /* no idle metrics to protect */
	min_s = o->min_sample_s >= 0 ? o->min_sample_s :
		d->clock == IL_CLOCK_MONOTONIC ? IL_MIN_SAMPLE_MONO_S : IL_MIN_SAMPLE_UPTIME_S;
	if (min_s > 0 && !d->has_interval)
		r |= invalid(d, il_strdup_printf("the interval is unknown (no /proc/timer_list or /proc/uptime in the "
						 "snapshots), min_sample_s %g s cannot be checked",
						 min_s));
	else if (d->has_interval && d->interval_s + 1e-9 < min_s) /* 1.00 s of uptime steps is 1 s */
		r |= invalid(d, il_strdup_printf("the sample lasted %.3f s, less than min_sample_s %g s (%s clock)",
						 d->interval_s, min_s, il_clock_name(d->clock)));
	for (size_t i = 0; d->has_interval && i < d->ncpus; i++) {
		const struct il_val t = d->cpus[i].total.c[IL_C_TIME];
		double slack = IL_IDLE_SLACK_US + (d->clock == IL_CLOCK_UPTIME ? IL_UPTIME_RES_US : 0);

		if (t.ok && (double)t.v > d->interval_s * 1e6 + slack)
			r |= invalid(d, il_strdup_printf("idle time exceeds the interval: the clock or the counters are "
							 "wrong (cpu%d idle %.6f s in %.6f s, %.0f ms slack)",
							 d->cpus[i].cpu, (double)t.v / 1e6, d->interval_s, slack / 1000));
	}
	if (o->min_idles && d->total.c[IL_C_USAGE].v < o->min_idles)
		r |= invalid(d, il_strdup_printf("too few idle entries: %llu on cpus %s, fewer than min_idles %llu",
						 (unsigned long long)d->total.c[IL_C_USAGE].v,
						 cpus_text(&d->measured, cpus, sizeof(cpus)), (unsigned long long)o->min_idles));
	return r;
}

/* ---- The diff ---- */

/* Keep the measured CPUs' deltas in d->cpus (all of them were computed, for the reset check). */
static int measure(struct il_diff *d, const struct il_diff_opts *o, const char *host, struct il_err *err)
{
	size_t n = 0;

	for (size_t i = 0; o->cpus && i < o->cpus->n; i++) {
		bool found = false;

		for (size_t k = 0; k < d->ncpus; k++)
			found |= d->cpus[k].cpu == o->cpus->cpu[i];
		if (!found)
			return il_err_set(err, IL_EMISMATCH, "host '%s': idle_cpus: cpu%d is not in the snapshots", host,
					  o->cpus->cpu[i]);
	}
	for (size_t i = 0; i < d->ncpus; i++)
		if ((!o->cpus || il_cpuset_has(o->cpus, d->cpus[i].cpu)) && cpuset_add(&d->measured, d->cpus[i].cpu))
			return il_err_set(err, IL_ENOMEM, "out of memory");
	/* nothing below can fail: every entry is either kept once or released once */
	for (size_t i = 0; i < d->ncpus; i++) {
		if (!il_cpuset_has(&d->measured, d->cpus[i].cpu)) {
			states_release(d->cpus[i].states, d->cpus[i].nstates);
			continue;
		}
		d->cpus[n++] = d->cpus[i];
	}
	d->ncpus = n;
	return 0;
}

/*
 * The per-CPU deltas of b - a (a NULL: b from zero), the measured CPUs kept,
 * aggregated by state and cluster, with the states' caveats.
 */
static int deltas(struct il_diff *out, const struct il_snapshot *a, const struct il_snapshot *b,
		  const struct il_diff_opts *o, const char *host, struct il_err *err)
{
	int r;

	out->cpus = calloc(b->ncpus + 1, sizeof(*out->cpus));
	if (!out->cpus)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t i = 0; i < b->ncpus; i++) {
		out->ncpus = i + 1;
		if ((r = cpu_delta(&out->cpus[i], a ? &a->cpus[i] : NULL, &b->cpus[i], host, err)))
			return r;
	}
	if ((r = measure(out, o, host, err)))
		return r;
	if (aggregate(out) || state_caveats(out))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	return 0;
}

int il_diff_lifetime(struct il_diff *out, const struct il_snapshot *s, struct il_err *err)
{
	static const struct il_diff_opts every = { .cpus = NULL, .min_sample_s = 0, .min_idles = 0 };
	const char *host = s->host ? s->host : "?";
	bool oom = false;
	int r;

	memset(out, 0, sizeof(*out));
	counts_zero(&out->total);
	out->host = dup_or_null(host, &oom);
	out->boot_id = dup_or_null(s->boot_id, &oom);
	out->governor_before = dup_or_null(s->governor, &oom);
	out->governor_after = dup_or_null(s->governor, &oom);
	out->driver = dup_or_null(s->driver, &oom);
	r = oom ? il_err_set(err, IL_ENOMEM, "out of memory") : deltas(out, NULL, s, &every, host, err);
	if (r)
		il_diff_release(out);
	return r;
}

int il_diff_compute(struct il_diff *out, const struct il_snapshot *a, const struct il_snapshot *b,
		    struct il_err *err)
{
	return il_diff_compute_opts(out, a, b, NULL, err);
}

int il_diff_compute_opts(struct il_diff *out, const struct il_snapshot *a, const struct il_snapshot *b,
			 const struct il_diff_opts *opts, struct il_err *err)
{
	static const struct il_diff_opts none = { .cpus = NULL, .min_sample_s = 0, .min_idles = 0 };
	const struct il_diff_opts *o = opts ? opts : &none;
	const char *host = b->host ? b->host : "?";
	bool oom = false;
	char cpus[256];
	int r;

	memset(out, 0, sizeof(*out));
	counts_zero(&out->total);
	if (a->boot_id && b->boot_id && strcmp(a->boot_id, b->boot_id))
		return il_err_set(err, IL_EMISMATCH, "host '%s': boot_id changed (%s -> %s): the host rebooted between snapshots",
				  host, a->boot_id, b->boot_id);
	if (!a->boot_id != !b->boot_id)
		return il_err_set(err, IL_EMISMATCH, "host '%s': boot_id present in only the %s snapshot", host,
				  a->boot_id ? "first" : "second");
	if (!streq(a->driver, b->driver))
		return il_err_set(err, IL_EMISMATCH, "host '%s': cpuidle driver changed ('%s' -> '%s')", host,
				  a->driver ? a->driver : "none", b->driver ? b->driver : "none");
	if ((r = check_cpu_sets(a, b, host, err)))
		return r;
	out->host = dup_or_null(host, &oom);
	out->boot_id = dup_or_null(b->boot_id, &oom);
	out->boot_id_verified = a->boot_id != NULL;
	out->governor_before = dup_or_null(a->governor, &oom);
	out->governor_after = dup_or_null(b->governor, &oom);
	out->driver = dup_or_null(b->driver, &oom);
	if (oom)
		goto oom;
	if ((r = interval(out, a, b, host, err)) || (r = deltas(out, a, b, o, host, err)))
		goto fail;
	if ((r = il_energy_diff(out, a, b, host, err)))
		goto fail;
	if (o->cpus && caveat(out, il_strdup_printf("idle metrics cover cpus %s only (idle_cpus)%s",
						    cpus_text(&out->measured, cpus, sizeof(cpus)),
						    out->nzones ? "; energy is the whole package's" : "")))
		goto oom;
	if (validity(out, a, b, o))
		goto oom;
	return 0;
oom:
	r = il_err_set(err, IL_ENOMEM, "out of memory");
fail:
	il_diff_release(out);
	return r;
}

/* ---- JSON ---- */

static json_t *pct_json(bool ok, double v)
{
	return ok ? json_real(v) : json_null();
}

static json_t *metrics_json(json_t *o, const struct il_counts *c, const struct il_diff *d)
{
	struct il_metrics m;

	il_metrics_of(c, d, &m);
	json_object_set_new(o, "idles", il_json_val(m.idles));
	json_object_set_new(o, "aboves", il_json_val(m.aboves));
	json_object_set_new(o, "belows", il_json_val(m.belows));
	json_object_set_new(o, "idle_miss", il_json_val(m.idle_miss));
	json_object_set_new(o, "miss_ratio", m.has_miss_ratio ? json_real(m.miss_ratio) : json_null());
	json_object_set_new(o, "time_us", il_json_val(m.time_us));
	json_object_set_new(o, "rejected", il_json_val(m.rejected));
	json_object_set_new(o, "idles_per_s", m.has_rate ? json_real(m.idles_per_s) : json_null());
	json_object_set_new(o, "too_deep_pct", pct_json(m.has_too_deep, m.too_deep_pct));
	json_object_set_new(o, "too_shallow_pct", pct_json(m.has_too_shallow, m.too_shallow_pct));
	json_object_set_new(o, "miss_pct", pct_json(m.has_miss_pct, m.miss_pct));
	json_object_set_new(o, "poll_usage", il_json_val(m.poll_usage));
	json_object_set_new(o, "poll_timeouts", il_json_val(m.poll_timeouts));
	json_object_set_new(o, "poll_time_us", il_json_val(m.poll_time_us));
	json_object_set_new(o, "sleep_time_us", il_json_val(m.sleep_time_us));
	return o;
}

static json_t *cpus_json(const struct il_cpuset *s)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *j;

	il_cpuset_format(s, &b);
	j = il_buf_error(&b) ? NULL : json_string(il_buf_str(&b));
	il_buf_release(&b);
	return j;
}

static json_t *states_json(const struct il_diff_state *v, size_t n, const struct il_counts *whole)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && a; i++) {
		json_t *o = json_object();
		double sh = 0;
		bool ok;

		json_object_set_new(o, "key", il_json_str(v[i].key));
		json_object_set_new(o, "index", json_integer(v[i].index));
		json_object_set_new(o, "name", json_string(v[i].name));
		json_object_set_new(o, "latency_us", il_json_val(v[i].latency_us));
		json_object_set_new(o, "residency_us", il_json_val(v[i].residency_us));
		json_object_set_new(o, "poll", json_boolean(v[i].poll));
		for (int c = 0; c < IL_NCOUNTERS; c++)
			json_object_set_new(o, il_counter_key(c), il_json_val(v[i].d.c[c]));
		json_object_set_new(o, "usage_share",
				    il_counts_share(&v[i].d, whole, IL_C_USAGE, &sh) ? json_real(sh) : json_null());
		json_object_set_new(o, "time_share",
				    il_counts_share(&v[i].d, whole, IL_C_TIME, &sh) ? json_real(sh) : json_null());
		/* the pointer is filled before the value is read: one call per statement */
		ok = il_state_too_deep_pct(&v[i], &sh);
		json_object_set_new(o, "too_deep_pct", pct_json(ok, sh));
		ok = il_state_too_shallow_pct(&v[i], &sh);
		json_object_set_new(o, "too_shallow_pct", pct_json(ok, sh));
		json_object_set_new(o, "disabled_cpus", v[i].disabled.n ? cpus_json(&v[i].disabled) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *energy_json(const struct il_diff *d)
{
	json_t *e, *zs;

	if (!d->nzones)
		return json_null();
	e = json_object();
	zs = json_array();
	if (!il_json_all((json_t *[]){ e, zs }, 2))
		return NULL;
	json_object_set_new(e, "joules", d->has_energy ? json_real(d->energy_j) : json_null());
	json_object_set_new(e, "watts", d->has_energy && d->has_interval && d->interval_s > 0 ?
					  json_real(d->energy_j / d->interval_s) : json_null());
	json_object_set_new(e, "source", il_json_str(il_energy_source_name(d->energy_source)));
	for (size_t i = 0; i < d->nzones; i++) {
		json_t *z = json_object();

		json_object_set_new(z, "zone", json_string(d->zones[i].zone));
		json_object_set_new(z, "name", il_json_str(d->zones[i].name));
		json_object_set_new(z, "energy_uj", il_json_val((struct il_val){ d->zones[i].energy_uj, true }));
		json_object_set_new(z, "counted", json_boolean(d->zones[i].counted));
		json_object_set_new(z, "why", il_json_str(d->zones[i].why));
		json_array_append_new(zs, z);
	}
	json_object_set_new(e, "zones", zs);
	return e;
}

static json_t *diff_json(const struct il_diff *d, bool per_cpu)
{
	json_t *o = json_object(), *cpus = json_array(), *cls = json_array(), *cav = json_array();

	if (!il_json_all((json_t *[]){ o, cpus, cls, cav }, 4))
		return NULL;
	json_object_set_new(o, "host", il_json_str(d->host));
	json_object_set_new(o, "driver", il_json_str(d->driver));
	json_object_set_new(o, "governor_before", il_json_str(d->governor_before));
	json_object_set_new(o, "governor_after", il_json_str(d->governor_after));
	json_object_set_new(o, "boot_id", il_json_str(d->boot_id));
	json_object_set_new(o, "boot_id_verified", json_boolean(d->boot_id_verified));
	json_object_set_new(o, "interval_s", d->has_interval ? json_real(d->interval_s) : json_null());
	json_object_set_new(o, "clock", il_json_str(il_clock_name(d->clock)));
	json_object_set_new(o, "suspended_s", d->has_suspended ? json_real(d->suspended_s) : json_null());
	json_object_set_new(o, "cpus_measured", cpus_json(&d->measured));
	if (d->invalid) {
		char s[700];

		snprintf(s, sizeof(s), "not a valid measurement: %s", d->invalid);
		json_array_append_new(cav, il_json_str(s));
	}
	for (size_t i = 0; i < d->caveats.n; i++)
		json_array_append_new(cav, il_json_str(d->caveats.v[i]));
	json_object_set_new(o, "caveats", cav);
	json_object_set_new(o, "total", metrics_json(json_object(), &d->total, d));
	json_object_set_new(o, "states", states_json(d->states, d->nstates, &d->total));
	for (size_t i = 0; per_cpu && i < d->ncpus; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "cpu", json_integer(d->cpus[i].cpu));
		json_object_set_new(c, "cluster", il_json_ival(d->cpus[i].cluster));
		json_object_set_new(c, "capacity", il_json_val(d->cpus[i].capacity));
		metrics_json(c, &d->cpus[i].total, d);
		json_object_set_new(c, "states", states_json(d->cpus[i].states, d->cpus[i].nstates, &d->cpus[i].total));
		json_array_append_new(cpus, c);
	}
	if (per_cpu)
		json_object_set_new(o, "cpus", cpus);
	else
		json_decref(cpus);
	for (size_t i = 0; i < d->nclusters; i++) {
		const struct il_diff_cluster *cl = &d->clusters[i];
		json_t *c = json_object();

		json_object_set_new(c, "cluster", il_json_ival(cl->cluster));
		json_object_set_new(c, "capacity", il_json_val(cl->capacity));
		json_object_set_new(c, "label", il_json_str(cl->label));
		json_object_set_new(c, "cpus", cpus_json(&cl->cpus));
		metrics_json(c, &cl->total, d);
		json_object_set_new(c, "states", states_json(cl->states, cl->nstates, &cl->total));
		json_array_append_new(cls, c);
	}
	json_object_set_new(o, "clusters", cls);
	json_object_set_new(o, "energy", energy_json(d));
	return o;
}

json_t *il_diff_to_json(const struct il_diff *d)
{
	return diff_json(d, true);
}

json_t *il_diff_summary_json(const struct il_diff *d)
{
	return diff_json(d, false);
}
