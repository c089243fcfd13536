// SPDX-License-Identifier: GPL-2.0-or-later
/* Snapshot differences: validation, aggregation and derived idle metrics. */
#include "idle/diff.h"
#include "util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/snapjson.h"

/* ---- Counts ---- */

static void counts_zero(struct il_counts *c)
{
	for (int i = 0; i < IL_NCOUNTERS; i++) {
		c->c[i].v = 0;
		c->c[i].ok = true;
	}
}

static void counts_add(struct il_counts *dst, const struct il_counts *src)
{
	for (int i = 0; i < IL_NCOUNTERS; i++) {
		dst->c[i].ok = dst->c[i].ok && src->c[i].ok;
		dst->c[i].v += src->c[i].v;
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

void il_metrics_of(const struct il_counts *c, const struct il_diff *d, struct il_metrics *out)
{
	memset(out, 0, sizeof(*out));
	out->idles = c->c[IL_C_USAGE];
	out->aboves = c->c[IL_C_ABOVE];
	out->belows = c->c[IL_C_BELOW];
	out->time_us = c->c[IL_C_TIME];
	out->rejected = c->c[IL_C_REJECTED];
	out->idle_miss.ok = out->aboves.ok && out->belows.ok;
	out->idle_miss.v = out->idle_miss.ok ? out->aboves.v + out->belows.v : 0;
	if (out->idle_miss.ok && out->idles.ok && out->idles.v) {
		out->has_miss_ratio = true;
		out->miss_ratio = (double)out->idle_miss.v / (double)out->idles.v;
	}
	if (d && d->has_interval && d->interval_s > 0 && out->idles.ok) {
		out->has_rate = true;
		out->idles_per_s = (double)out->idles.v / d->interval_s;
	}
}

/* ---- Release ---- */

static void states_release(struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void il_diff_release(struct il_diff *d)
{
	for (size_t i = 0; i < d->ncpus; i++)
		states_release(d->cpus[i].states, d->cpus[i].nstates);
	free(d->cpus);
	for (size_t i = 0; i < d->nclusters; i++) {
		states_release(d->clusters[i].states, d->clusters[i].nstates);
		il_cpuset_release(&d->clusters[i].cpus);
	}
	free(d->clusters);
	states_release(d->states, d->nstates);
	for (size_t i = 0; i < d->nzones; i++)
		IL_FREE_ALL(d->zones[i].zone, d->zones[i].name);
	IL_FREE_ALL(d->zones, d->host, d->boot_id, d->governor_before, d->governor_after, d->driver);
	memset(d, 0, sizeof(*d));
}

/* ---- Validation and per-CPU deltas ---- */

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

static int cpu_delta(struct il_diff_cpu *out, const struct il_cpu *a, const struct il_cpu *b, const char *host,
		     struct il_err *err)
{
	out->cpu = a->cpu;
	out->cluster = b->cluster_id;
	counts_zero(&out->total);
	if (a->nstates != b->nstates)
		return il_err_set(err, IL_EMISMATCH, "host '%s': cpu%d has %zu idle states before and %zu after",
				  host, a->cpu, a->nstates, b->nstates);
	out->states = calloc(a->nstates + 1, sizeof(*out->states));
	if (!out->states)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t k = 0; k < a->nstates; k++) {
		const struct il_state *sa = &a->states[k], *sb = &b->states[k];
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
		for (int c = 0; c < IL_NCOUNTERS; c++) {
			const struct il_val *va = &sa->cnt[c], *vb = &sb->cnt[c];

			if (va->ok != vb->ok)
				return il_err_set(err, IL_EMISMATCH,
						  "host '%s': cpu%d state%zu '%s': '%s' present in only the %s snapshot",
						  host, a->cpu, k, ds->name, il_counter_file(c),
						  va->ok ? "first" : "second");
			if (va->ok && vb->v < va->v)
				return il_err_set(err, IL_EMISMATCH,
						  "host '%s': cpu%d state%zu '%s': '%s' went backwards (%llu -> %llu)",
						  host, a->cpu, k, ds->name, il_counter_file(c),
						  (unsigned long long)va->v, (unsigned long long)vb->v);
			ds->d.c[c].ok = va->ok;
			ds->d.c[c].v = va->ok ? vb->v - va->v : 0;
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

/* ---- Aggregation ---- */

static int group_add(struct il_diff_state **v, size_t *n, const struct il_diff_state *s)
{
	struct il_diff_state *nv;

	for (size_t i = 0; i < *n; i++) {
		if ((*v)[i].index == s->index && !strcmp((*v)[i].name, s->name)) {
			counts_add(&(*v)[i].d, &s->d);
			return 0;
		}
	}
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return IL_ENOMEM;
	*v = nv;
	nv[*n].index = s->index;
	nv[*n].name = strdup(s->name);
	if (!nv[*n].name)
		return IL_ENOMEM;
	nv[*n].d = s->d;
	(*n)++;
	return 0;
}

static int cluster_for(struct il_diff *d, struct il_ival key, struct il_diff_cluster **out)
{
	struct il_diff_cluster *v;

	for (size_t i = 0; i < d->nclusters; i++) {
		struct il_diff_cluster *c = &d->clusters[i];

		if (c->cluster.ok == key.ok && (!key.ok || c->cluster.v == key.v)) {
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
	(*out)->cluster = key;
	counts_zero(&(*out)->total);
	return 0;
}

static int cluster_add_cpu(struct il_diff_cluster *c, const struct il_diff_cpu *cpu)
{
	int *nv = realloc(c->cpus.cpu, (c->cpus.n + 1) * sizeof(int));

	if (!nv)
		return IL_ENOMEM;
	c->cpus.cpu = nv;
	c->cpus.cpu[c->cpus.n++] = cpu->cpu; /* CPUs arrive in increasing order */
	counts_add(&c->total, &cpu->total);
	for (size_t k = 0; k < cpu->nstates; k++)
		if (group_add(&c->states, &c->nstates, &cpu->states[k]))
			return IL_ENOMEM;
	return 0;
}

static int energy_delta(struct il_diff *d, const struct il_snapshot *a, const struct il_snapshot *b,
			const char *host, struct il_err *err)
{
	if (!a->nzones && !b->nzones)
		return 0;
	d->zones = calloc(b->nzones + 1, sizeof(*d->zones));
	if (!d->zones)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t j = 0; j < b->nzones; j++) {
		const struct il_energy_zone *zb = &b->zones[j], *za = NULL;
		struct il_diff_zone *dz;
		uint64_t delta;

		for (size_t i = 0; i < a->nzones; i++)
			if (!strcmp(a->zones[i].zone, zb->zone))
				za = &a->zones[i];
		if (!za)
			return il_err_set(err, IL_EMISMATCH, "host '%s': powercap zone '%s' appeared between snapshots",
					  host, zb->zone);
		if (!za->energy_uj.ok || !zb->energy_uj.ok)
			continue; /* energy_uj unreadable (root only since 5.10): no energy figure */
		if (zb->energy_uj.v >= za->energy_uj.v) {
			delta = zb->energy_uj.v - za->energy_uj.v;
		} else if (zb->max_range_uj.ok && za->energy_uj.v <= zb->max_range_uj.v) {
			delta = zb->max_range_uj.v - za->energy_uj.v + zb->energy_uj.v;
		} else {
			return il_err_set(err, IL_EMISMATCH,
					  "host '%s': powercap zone '%s': 'energy_uj' went backwards (%llu -> %llu) "
					  "and max_energy_range_uj is unknown",
					  host, zb->zone, (unsigned long long)za->energy_uj.v,
					  (unsigned long long)zb->energy_uj.v);
		}
		dz = &d->zones[d->nzones++];
		dz->zone = strdup(zb->zone);
		dz->name = zb->name ? strdup(zb->name) : NULL;
		if (!dz->zone || (zb->name && !dz->name))
			return il_err_set(err, IL_ENOMEM, "out of memory");
		dz->energy_uj = delta;
	}
	if (a->nzones != b->nzones)
		return il_err_set(err, IL_EMISMATCH, "host '%s': a powercap zone disappeared between snapshots", host);
	/* intel-rapl:0:0 (core) is inside intel-rapl:0 (package): count parents only */
	for (size_t i = 0; i < d->nzones; i++) {
		d->zones[i].top_level = true;
		for (size_t k = 0; k < d->nzones; k++) {
			size_t n = strlen(d->zones[k].zone);

			if (k != i && !strncmp(d->zones[i].zone, d->zones[k].zone, n) && d->zones[i].zone[n] == ':')
				d->zones[i].top_level = false;
		}
		if (d->zones[i].top_level) {
			d->energy_j += (double)d->zones[i].energy_uj / 1e6;
			d->has_energy = true;
		}
	}
	return 0;
}

int il_diff_compute(struct il_diff *out, const struct il_snapshot *a, const struct il_snapshot *b,
		    struct il_err *err)
{
	const char *host = b->host ? b->host : "?";
	bool oom = false;
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
	if (a->has_uptime && b->has_uptime) {
		if (b->uptime_s < a->uptime_s) {
			r = il_err_set(err, IL_EMISMATCH, "host '%s': uptime went backwards (%.2f -> %.2f s)", host,
				       a->uptime_s, b->uptime_s);
			goto fail;
		}
		out->has_interval = true;
		out->interval_s = b->uptime_s - a->uptime_s;
	}
	out->cpus = calloc(a->ncpus + 1, sizeof(*out->cpus));
	if (!out->cpus)
		goto oom;
	for (size_t i = 0; i < a->ncpus; i++) {
		struct il_diff_cluster *cl;

		out->ncpus = i + 1;
		if ((r = cpu_delta(&out->cpus[i], &a->cpus[i], &b->cpus[i], host, err)))
			goto fail;
		counts_add(&out->total, &out->cpus[i].total);
		for (size_t k = 0; k < out->cpus[i].nstates; k++)
			if (group_add(&out->states, &out->nstates, &out->cpus[i].states[k]))
				goto oom;
		if (cluster_for(out, out->cpus[i].cluster, &cl) || cluster_add_cpu(cl, &out->cpus[i]))
			goto oom;
	}
	if ((r = energy_delta(out, a, b, host, err)))
		goto fail;
	return 0;
oom:
	r = il_err_set(err, IL_ENOMEM, "out of memory");
fail:
	il_diff_release(out);
	return r;
}

/* ---- JSON ---- */

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
	return o;
}

static json_t *states_json(const struct il_diff_state *v, size_t n, const struct il_counts *whole)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && a; i++) {
		json_t *o = json_object();
		double sh;

		json_object_set_new(o, "index", json_integer(v[i].index));
		json_object_set_new(o, "name", json_string(v[i].name));
		for (int c = 0; c < IL_NCOUNTERS; c++)
			json_object_set_new(o, il_counter_key(c), il_json_val(v[i].d.c[c]));
		json_object_set_new(o, "usage_share",
				    il_counts_share(&v[i].d, whole, IL_C_USAGE, &sh) ? json_real(sh) : json_null());
		json_object_set_new(o, "time_share",
				    il_counts_share(&v[i].d, whole, IL_C_TIME, &sh) ? json_real(sh) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *diff_json(const struct il_diff *d, bool per_cpu)
{
	json_t *o = json_object(), *cpus = json_array(), *cls = json_array();
	struct il_buf b = IL_BUF_INIT;

	if (!il_json_all((json_t *[]){ o, cpus, cls }, 3))
		return NULL;
	json_object_set_new(o, "host", il_json_str(d->host));
	json_object_set_new(o, "driver", il_json_str(d->driver));
	json_object_set_new(o, "governor_before", il_json_str(d->governor_before));
	json_object_set_new(o, "governor_after", il_json_str(d->governor_after));
	json_object_set_new(o, "boot_id", il_json_str(d->boot_id));
	json_object_set_new(o, "boot_id_verified", json_boolean(d->boot_id_verified));
	json_object_set_new(o, "interval_s", d->has_interval ? json_real(d->interval_s) : json_null());
	json_object_set_new(o, "total", metrics_json(json_object(), &d->total, d));
	json_object_set_new(o, "states", states_json(d->states, d->nstates, &d->total));
	for (size_t i = 0; per_cpu && i < d->ncpus; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "cpu", json_integer(d->cpus[i].cpu));
		json_object_set_new(c, "cluster", il_json_ival(d->cpus[i].cluster));
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

		il_buf_reset(&b);
		il_cpuset_format(&cl->cpus, &b);
		json_object_set_new(c, "cluster", il_json_ival(cl->cluster));
		json_object_set_new(c, "cpus", json_string(il_buf_str(&b)));
		metrics_json(c, &cl->total, d);
		json_object_set_new(c, "states", states_json(cl->states, cl->nstates, &cl->total));
		json_array_append_new(cls, c);
	}
	json_object_set_new(o, "clusters", cls);
	if (d->has_energy) {
		json_t *e = json_object(), *zs = json_array();

		json_object_set_new(e, "joules", json_real(d->energy_j));
		json_object_set_new(e, "watts", d->has_interval && d->interval_s > 0 ?
						  json_real(d->energy_j / d->interval_s) : json_null());
		for (size_t i = 0; i < d->nzones; i++) {
			json_t *z = json_object();

			json_object_set_new(z, "zone", json_string(d->zones[i].zone));
			json_object_set_new(z, "name", il_json_str(d->zones[i].name));
			json_object_set_new(z, "energy_uj", json_integer((json_int_t)d->zones[i].energy_uj));
			json_object_set_new(z, "top_level", json_boolean(d->zones[i].top_level));
			json_array_append_new(zs, z);
		}
		json_object_set_new(e, "zones", zs);
		json_object_set_new(o, "energy", e);
	} else {
		json_object_set_new(o, "energy", json_null());
	}
	il_buf_release(&b);
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
