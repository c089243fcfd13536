// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A diff as JSON: the documented diff schema (docs/formats.md, version 3),
 * whole or without the per-CPU breakdown. Split from diff.c as snapshotjson.c is
 * from snapshot.c: the schema changes for readers, the arithmetic for the kernel.
 */
#include "idle/diffjson.h"
#include "idle/cpuset.h"

#include <stdio.h>

#include "idle/snapshotjson.h"
#include "util/json.h"

static json_t *pct_json(bool ok, double v)
{
	return ok ? json_real(v) : json_null();
}

/* The metrics of c as keys of o (o may be NULL: then nothing is added). Nonzero: a key could not be added. */
static int metrics_json(json_t *o, const struct il_counts *c, const struct il_diff *d)
{
	struct il_metrics m;
	int bad = 0;

	il_metrics_of(c, d, &m);
	bad |= json_object_set_new(o, "idles", il_snapshot_json_val(m.idles));
	bad |= json_object_set_new(o, "aboves", il_snapshot_json_val(m.aboves));
	bad |= json_object_set_new(o, "belows", il_snapshot_json_val(m.belows));
	bad |= json_object_set_new(o, "idle_miss", il_snapshot_json_val(m.idle_miss));
	bad |= json_object_set_new(o, "miss_ratio", m.has_miss_ratio ? json_real(m.miss_ratio) : json_null());
	bad |= json_object_set_new(o, "time_us", il_snapshot_json_val(m.time_us));
	bad |= json_object_set_new(o, "rejected", il_snapshot_json_val(m.rejected));
	bad |= json_object_set_new(o, "idles_per_s", m.has_rate ? json_real(m.idles_per_s) : json_null());
	bad |= json_object_set_new(o, "too_deep_pct", pct_json(m.has_too_deep, m.too_deep_pct));
	bad |= json_object_set_new(o, "too_shallow_pct", pct_json(m.has_too_shallow, m.too_shallow_pct));
	bad |= json_object_set_new(o, "miss_pct", pct_json(m.has_miss_pct, m.miss_pct));
	bad |= json_object_set_new(o, "poll_usage", il_snapshot_json_val(m.poll_usage));
	bad |= json_object_set_new(o, "poll_belows", il_snapshot_json_val(m.poll_belows));
	bad |= json_object_set_new(o, "poll_time_us", il_snapshot_json_val(m.poll_time_us));
	bad |= json_object_set_new(o, "sleep_time_us", il_snapshot_json_val(m.sleep_time_us));
	return bad;
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

static json_t *state_json(const struct il_diff_state *s, const struct il_counts *whole)
{
	json_t *o = json_object();
	double sh = 0;
	int bad = !o;
	bool ok;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "key", il_json_str(s->key));
	bad |= json_object_set_new(o, "index", json_integer(s->index));
	bad |= json_object_set_new(o, "name", il_json_str(s->name));
	bad |= json_object_set_new(o, "latency_us", il_snapshot_json_val(s->latency_us));
	bad |= json_object_set_new(o, "residency_us", il_snapshot_json_val(s->residency_us));
	bad |= json_object_set_new(o, "poll", json_boolean(s->poll));
	for (int c = 0; c < IL_NCOUNTERS; c++)
		bad |= json_object_set_new(o, il_snapshot_counter_key(c), il_snapshot_json_val(s->d.c[c]));
	bad |= json_object_set_new(o, "usage_share",
				   il_metrics_counts_share(&s->d, whole, IL_C_USAGE, &sh) ? json_real(sh) : json_null());
	bad |= json_object_set_new(o, "time_share",
				   il_metrics_counts_share(&s->d, whole, IL_C_TIME, &sh) ? json_real(sh) : json_null());
	/* the pointer is filled before the value is read: one call per statement */
	ok = il_metrics_too_deep_pct(s, &sh);
	bad |= json_object_set_new(o, "too_deep_pct", pct_json(ok, sh));
	ok = il_metrics_too_shallow_pct(s, &sh);
	bad |= json_object_set_new(o, "too_shallow_pct", pct_json(ok, sh));
	bad |= json_object_set_new(o, "disabled_cpus", s->disabled.n ? cpus_json(&s->disabled) : json_null());
	return il_json_whole(o, bad);
}

static json_t *states_json(const struct il_diff_state *v, size_t n, const struct il_counts *whole)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; i < n && !bad; i++)
		bad |= json_array_append_new(a, state_json(&v[i], whole));
	return il_json_whole(a, bad);
}

static json_t *zone_json(const struct il_diff_zone *z)
{
	json_t *o = json_object();
	int bad = !o;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "zone", il_json_str(z->zone));
	bad |= json_object_set_new(o, "name", il_json_str(z->name));
	bad |= json_object_set_new(o, "energy_uj", il_snapshot_json_val((struct il_val){ z->energy_uj, true }));
	bad |= json_object_set_new(o, "counted", json_boolean(z->counted));
	bad |= json_object_set_new(o, "why", il_json_str(z->why));
	return il_json_whole(o, bad);
}

static json_t *energy_json(const struct il_diff *d)
{
	json_t *e, *zs;
	int bad = 0;

	if (!d->nzones)
		return json_null();
	e = json_object();
	zs = json_array();
	if (!il_json_all((json_t *[]){ e, zs }, 2))
		return NULL;
	bad |= json_object_set_new(e, "joules", d->has_energy ? json_real(d->energy_j) : json_null());
	bad |= json_object_set_new(e, "watts", d->has_energy && d->has_interval && d->interval_s > 0 ?
						       json_real(d->energy_j / d->interval_s) : json_null());
	bad |= json_object_set_new(e, "source", il_json_str(il_diff_energy_source_name(d->energy_source)));
	for (size_t i = 0; i < d->nzones; i++)
		bad |= json_array_append_new(zs, zone_json(&d->zones[i]));
	bad |= json_object_set_new(e, "zones", zs);
	return il_json_whole(e, bad);
}

/* "not a valid measurement: WHY" first, then the caveats. */
static json_t *caveats_json(const struct il_diff *d)
{
	json_t *a = json_array();
	int bad = !a;

	if (!a)
		return NULL;
	if (d->invalid) {
		char s[700];

		snprintf(s, sizeof(s), "not a valid measurement: %s", d->invalid);
		bad |= json_array_append_new(a, il_json_str(s));
	}
	for (size_t i = 0; i < d->caveats.n; i++)
		bad |= json_array_append_new(a, il_json_str(d->caveats.v[i]));
	return il_json_whole(a, bad);
}

static json_t *cpu_json(const struct il_diff_cpu *cpu, const struct il_diff *d)
{
	json_t *c = json_object();
	int bad = !c;

	if (!c)
		return NULL;
	bad |= json_object_set_new(c, "cpu", json_integer(cpu->cpu));
	bad |= json_object_set_new(c, "cluster", il_snapshot_json_ival(cpu->cluster));
	bad |= json_object_set_new(c, "capacity", il_snapshot_json_val(cpu->capacity));
	bad |= metrics_json(c, &cpu->total, d);
	bad |= json_object_set_new(c, "states", states_json(cpu->states, cpu->nstates, &cpu->total));
	return il_json_whole(c, bad);
}

static json_t *cluster_json(const struct il_diff_cluster *cl, const struct il_diff *d)
{
	json_t *c = json_object();
	int bad = !c;

	if (!c)
		return NULL;
	bad |= json_object_set_new(c, "cluster", il_snapshot_json_ival(cl->cluster));
	bad |= json_object_set_new(c, "capacity", il_snapshot_json_val(cl->capacity));
	bad |= json_object_set_new(c, "label", il_json_str(cl->label));
	bad |= json_object_set_new(c, "cpus", cpus_json(&cl->cpus));
	bad |= metrics_json(c, &cl->total, d);
	bad |= json_object_set_new(c, "states", states_json(cl->states, cl->nstates, &cl->total));
	return il_json_whole(c, bad);
}

static json_t *diff_json(const struct il_diff *d, bool per_cpu)
{
	json_t *o = json_object(), *cpus = json_array(), *cls = json_array(), *total = json_object();
	int bad = 0;

	if (!il_json_all((json_t *[]){ o, cpus, cls, total }, 4))
		return NULL;
	bad |= json_object_set_new(o, "host", il_json_str(d->host));
	bad |= json_object_set_new(o, "driver", il_json_str(d->driver));
	bad |= json_object_set_new(o, "governor_before", il_json_str(d->governor_before));
	bad |= json_object_set_new(o, "governor_after", il_json_str(d->governor_after));
	bad |= json_object_set_new(o, "boot_id", il_json_str(d->boot_id));
	bad |= json_object_set_new(o, "boot_id_verified", json_boolean(d->boot_id_verified));
	bad |= json_object_set_new(o, "interval_s", d->has_interval ? json_real(d->interval_s) : json_null());
	bad |= json_object_set_new(o, "clock", il_json_str(il_diff_clock_name(d->clock)));
	bad |= json_object_set_new(o, "suspended_s", d->has_suspended ? json_real(d->suspended_s) : json_null());
	bad |= json_object_set_new(o, "cpus_measured", cpus_json(&d->measured));
	bad |= json_object_set_new(o, "caveats", caveats_json(d));
	bad |= metrics_json(total, &d->total, d);
	bad |= json_object_set_new(o, "total", total);
	bad |= json_object_set_new(o, "states", states_json(d->states, d->nstates, &d->total));
	for (size_t i = 0; per_cpu && i < d->ncpus; i++)
		bad |= json_array_append_new(cpus, cpu_json(&d->cpus[i], d));
	if (per_cpu)
		bad |= json_object_set_new(o, "cpus", cpus);
	else
		json_decref(cpus);
	for (size_t i = 0; i < d->nclusters; i++)
		bad |= json_array_append_new(cls, cluster_json(&d->clusters[i], d));
	bad |= json_object_set_new(o, "clusters", cls);
	bad |= json_object_set_new(o, "energy", energy_json(d));
	return il_json_whole(o, bad);
}

json_t *il_diff_to_json(const struct il_diff *d)
{
	return diff_json(d, true);
}

json_t *il_diff_summary_json(const struct il_diff *d)
{
	return diff_json(d, false);
}

/* ---- Reading version 2 (poll belows apart) as version 3 ---- */

static json_t *ratio_of(const json_t *part, const json_t *whole, double scale)
{
	if (!json_is_integer(part) || !json_is_integer(whole) || !json_integer_value(whole))
		return json_null();
	return json_real(scale * (double)json_integer_value(part) / (double)json_integer_value(whole));
}

static int upgrade_scope(json_t *o)
{
	json_t *pt = json_object_get(o, "poll_timeouts"), *b = json_object_get(o, "belows");
	json_t *m = json_object_get(o, "idle_miss"), *n = json_object_get(o, "idles");
	json_int_t p;
	int bad = 0;

	if (!json_is_object(o) || !pt || json_object_get(o, "poll_belows"))
		return 0;
	bad |= json_object_set(o, "poll_belows", pt);
	p = json_integer_value(pt);
	if (json_is_integer(pt) && json_is_integer(b))
		bad |= json_object_set_new(o, "belows", json_integer(json_integer_value(b) + p));
	else
		bad |= json_object_set_new(o, "belows", json_null());
	if (json_is_integer(pt) && json_is_integer(m))
		bad |= json_object_set_new(o, "idle_miss", json_integer(json_integer_value(m) + p));
	else
		bad |= json_object_set_new(o, "idle_miss", json_null());
	json_object_del(o, "poll_timeouts");
	b = json_object_get(o, "belows"), m = json_object_get(o, "idle_miss");
	bad |= json_object_set_new(o, "miss_ratio", ratio_of(m, n, 1.0));
	bad |= json_object_set_new(o, "too_shallow_pct", ratio_of(b, n, 100.0));
	bad |= json_object_set_new(o, "miss_pct", ratio_of(m, n, 100.0));
	return bad ? -1 : 0;
}

static int upgrade_states(json_t *a)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e) {
		if (json_is_true(json_object_get(e, "poll")) && json_is_null(json_object_get(e, "too_shallow_pct")) &&
		    json_object_set_new(e, "too_shallow_pct",
					ratio_of(json_object_get(e, "below"), json_object_get(e, "usage"), 100.0)))
			return -1;
	}
	return 0;
}

int il_diff_json_upgrade(json_t *idle)
{
	json_t *t = json_object_get(idle, "total");
	size_t i;
	json_t *e;

	if (!json_is_object(t) || !json_object_get(t, "poll_timeouts"))
		return 0;
	if (upgrade_scope(t) || upgrade_states(json_object_get(idle, "states")))
		return -1;
	json_array_foreach(json_object_get(idle, "cpus"), i, e)
		if (upgrade_scope(e) || upgrade_states(json_object_get(e, "states")))
			return -1;
	json_array_foreach(json_object_get(idle, "clusters"), i, e)
		if (upgrade_scope(e) || upgrade_states(json_object_get(e, "states")))
			return -1;
	return 0;
}
