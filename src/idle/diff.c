// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot differences: structural checks, the interval and its clock,
 * validity, and the aggregation of the measured CPUs (states grouped by
 * name, latency and residency: diffgroup.c; the clusters on asymmetric
 * hosts: cluster.c). What each counter means is cpuidle_enter_state() in
 * drivers/cpuidle/cpuidle.c (docs/formats.md). The derived metrics are
 * metrics.c's, the JSON diffjson.c's.
 */
#include "idle/diff.h"
#include "idle/cpuset.h"
#include "util/str.h"
#include "util/strlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/cluster.h"
#include "idle/diffgroup.h"
#include "idle/energy.h"

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

/* ---- Names ---- */

const char *il_diff_clock_name(enum il_clock c)
{
	static const char *const names[] = { [IL_CLOCK_NONE] = NULL, [IL_CLOCK_MONOTONIC] = "monotonic",
					     [IL_CLOCK_UPTIME] = "uptime" };

	return names[c];
}

const char *il_diff_energy_source_name(enum il_energy_source s)
{
	static const char *const names[] = { [IL_ENERGY_NONE] = NULL, [IL_ENERGY_POWERCAP] = "powercap",
					     [IL_ENERGY_HWMON] = "hwmon" };

	return names[s];
}

/* ---- Release ---- */

void il_diff_release(struct il_diff *d)
{
	for (size_t i = 0; i < d->ncpus; i++)
		il_diff_states_release(d->cpus[i].states, d->cpus[i].nstates);
	free(d->cpus);
	il_cluster_release(d);
	il_diff_states_release(d->states, d->nstates);
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

/* A CPU list as text into a fixed buffer (for messages). */
static const char *cpus_text(const struct il_cpuset *s, char *buf, size_t n)
{
	struct il_buf b = IL_BUF_INIT;

	il_cpuset_format(s, &b);
	il_str_lcpy(buf, il_buf_error(&b) ? "?" : il_buf_str(&b), n);
	il_buf_release(&b);
	return buf;
}

/* Add a caveat (s: il_str_dup_printf's, owned; NULL: memory ran out). */
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
	il_diff_counts_zero(&out->total);
	if (a && a->nstates != b->nstates)
		return il_err_set(err, IL_EMISMATCH, "host '%s': cpu%d has %zu idle states before and %zu after",
				  host, a->cpu, a->nstates, b->nstates);
	out->states = calloc(b->nstates + 1, sizeof(*out->states));
	if (!out->states)
		return il_err_oom(err);
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
			return il_err_oom(err);
		ds->latency_us = sb->info[IL_I_LATENCY];
		ds->residency_us = sb->info[IL_I_RESIDENCY];
		ds->poll = il_snapshot_state_is_poll(sb);
		if (((sa->info[IL_I_DISABLE].ok && sa->info[IL_I_DISABLE].v) ||
		     (sb->info[IL_I_DISABLE].ok && sb->info[IL_I_DISABLE].v)) &&
		    il_cpuset_append(&ds->disabled, b->cpu))
			return il_err_oom(err);
		for (int c = 0; c < IL_NCOUNTERS; c++) {
			const struct il_val zero = { 0, sb->cnt[c].ok };
			const struct il_val *va = a ? &sa->cnt[c] : &zero, *vb = &sb->cnt[c];

			if (va->ok != vb->ok)
				return il_err_set(err, IL_EMISMATCH,
						  "host '%s': cpu%d state%zu '%s': '%s' present in only the %s snapshot",
						  host, a->cpu, k, ds->name, il_snapshot_counter_file(c),
						  va->ok ? "first" : "second");
			/*
			 * The counters live in the cpuidle device: a CPU taken offline and
			 * back (haltpoll unregisters and registers the device) starts from 0.
			 */
			if (va->ok && vb->v < va->v)
				return il_err_set(err, IL_EMISMATCH,
						  "host '%s': counters of cpu%d reset: the CPU was taken offline and back "
						  "(haltpoll re-registers the device): state%zu '%s' '%s' went from %llu to %llu",
						  host, a->cpu, k, ds->name, il_snapshot_counter_file(c),
						  (unsigned long long)va->v, (unsigned long long)vb->v);
			ds->d.c[c].ok = ds->d.poll[c].ok = va->ok;
			ds->d.c[c].v = va->ok ? vb->v - va->v : 0;
			ds->d.poll[c].v = ds->poll ? ds->d.c[c].v : 0;
		}
		il_diff_counts_add(&out->total, &ds->d);
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
	return r ? il_err_oom(err) : 0;
}

/* ---- Aggregation ---- */

/*
 * Aggregate the measured CPUs into d->states (grouped, keyed) and d->total,
 * give each CPU's states their keys, and find the clusters when the host is
 * asymmetric (idle/cluster.c, which groups their states the same way).
 */
static int aggregate(struct il_diff *d)
{
	if (il_diff_group_cpus(d, NULL, &d->total, &d->states, &d->nstates) || il_diff_make_keys(d->states, d->nstates))
		return IL_ENOMEM;
	for (size_t i = 0; i < d->ncpus; i++)
		if (il_diff_key_from(d, d->cpus[i].states, d->cpus[i].nstates))
			return IL_ENOMEM;
	return il_cluster_detect(d);
}

/* ---- Caveats and validity ---- */

static int state_caveats(struct il_diff *d)
{
	char cpus[256];

	for (size_t i = 0; i < d->nstates; i++) {
		const struct il_diff_state *s = &d->states[i];

		if (s->poll &&
		    caveat(d, il_str_dup_printf("%s is a polling state: it spins until a wakeup or cpuidle_poll_time() "
					        "(cpuidle.c: the target residency of the first enabled deeper state of at "
					        "least 10 us, capped at TICK_NSEC/16, which is also the default; or the "
					        "governor's poll_limit_ns), so its time is spinning (poll_time_us), not sleep; its "
					        "'below' counts, as cpuidle_enter_state() counts them, are in belows and "
					        "shown apart as poll_belows (time-limit exits and long polls ended by a "
					        "wakeup alike: the kernel keeps no time-out counter)",
					        s->key)))
			return IL_ENOMEM;
		if (s->disabled.n &&
		    caveat(d, il_str_dup_printf("state %s disabled on cpus %s: the kernel counts 'above' only when a "
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
		r |= invalid(d, il_str_dup_printf("the host suspended during the sample (suspend_stats success %llu -> "
						  "%llu, fail %llu -> %llu)",
						  (unsigned long long)a->suspend_success.v,
						  (unsigned long long)b->suspend_success.v,
						  (unsigned long long)a->suspend_fail.v, (unsigned long long)b->suspend_fail.v));
	if (d->has_suspended && d->suspended_s > IL_SUSPEND_SLACK_S)
		r |= invalid(d, il_str_dup_printf("the host was suspended for %.3f s during the sample (boottime grew "
						  "%.3f s more than the monotonic clock)",
						  d->suspended_s, d->suspended_s));
	if (!d->nstates)
		return r; /* no idle metrics to protect */
	min_s = o->min_sample_s >= 0 ? o->min_sample_s :
		d->clock == IL_CLOCK_MONOTONIC ? IL_MIN_SAMPLE_MONO_S : IL_MIN_SAMPLE_UPTIME_S;
	if (min_s > 0 && !d->has_interval)
		r |= invalid(d, il_str_dup_printf("the interval is unknown (no /proc/timer_list or /proc/uptime in the "
						  "snapshots), min_sample_s %g s cannot be checked",
						  min_s));
	else if (d->has_interval && d->interval_s + 1e-9 < min_s) /* 1.00 s of uptime steps is 1 s */
		r |= invalid(d, il_str_dup_printf("the sample lasted %.3f s, less than min_sample_s %g s (%s clock)",
						  d->interval_s, min_s, il_diff_clock_name(d->clock)));
	for (size_t i = 0; d->has_interval && i < d->ncpus; i++) {
		const struct il_val t = d->cpus[i].total.c[IL_C_TIME];
		double slack = IL_IDLE_SLACK_US + (d->clock == IL_CLOCK_UPTIME ? IL_UPTIME_RES_US : 0);

		if (t.ok && (double)t.v > d->interval_s * 1e6 + slack)
			r |= invalid(d, il_str_dup_printf("idle time exceeds the interval: the clock or the counters are "
							  "wrong (cpu%d idle %.6f s in %.6f s, %.0f ms slack)",
							  d->cpus[i].cpu, (double)t.v / 1e6, d->interval_s, slack / 1000));
	}
	if (o->min_idles && d->total.c[IL_C_USAGE].v < o->min_idles)
		r |= invalid(d, il_str_dup_printf("too few idle entries: %llu on cpus %s, fewer than min_idles %llu",
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
		if ((!o->cpus || il_cpuset_has(o->cpus, d->cpus[i].cpu)) && il_cpuset_append(&d->measured, d->cpus[i].cpu))
			return il_err_oom(err);
	/* nothing below can fail: every entry is either kept once or released once */
	for (size_t i = 0; i < d->ncpus; i++) {
		if (!il_cpuset_has(&d->measured, d->cpus[i].cpu)) {
			il_diff_states_release(d->cpus[i].states, d->cpus[i].nstates);
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
		return il_err_oom(err);
	for (size_t i = 0; i < b->ncpus; i++) {
		out->ncpus = i + 1;
		if ((r = cpu_delta(&out->cpus[i], a ? &a->cpus[i] : NULL, &b->cpus[i], host, err)))
			return r;
	}
	if ((r = measure(out, o, host, err)))
		return r;
	if (aggregate(out) || state_caveats(out))
		return il_err_oom(err);
	return 0;
}

int il_diff_lifetime(struct il_diff *out, const struct il_snapshot *s, struct il_err *err)
{
	static const struct il_diff_opts every = { .cpus = NULL, .min_sample_s = 0, .min_idles = 0 };
	const char *host = s->host ? s->host : "?";
	bool oom = false;
	int r;

	memset(out, 0, sizeof(*out));
	il_diff_counts_zero(&out->total);
	out->host = dup_or_null(host, &oom);
	out->boot_id = dup_or_null(s->boot_id, &oom);
	out->governor_before = dup_or_null(s->governor, &oom);
	out->governor_after = dup_or_null(s->governor, &oom);
	out->driver = dup_or_null(s->driver, &oom);
	r = oom ? il_err_oom(err) : deltas(out, NULL, s, &every, host, err);
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
	il_diff_counts_zero(&out->total);
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
	if (o->cpus && caveat(out, il_str_dup_printf("idle metrics cover cpus %s only (idle_cpus)%s",
						     cpus_text(&out->measured, cpus, sizeof(cpus)),
						     out->nzones ? "; energy is the whole package's" : "")))
		goto oom;
	if (validity(out, a, b, o))
		goto oom;
	return 0;
oom:
	r = il_err_oom(err);
fail:
	il_diff_release(out);
	return r;
}
