// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A diff's state groups: counter sums, states grouped over CPUs by (name,
 * exit latency, target residency), sorted, and keyed. Shared by the diff's
 * total (idle/diff.c) and its clusters' (idle/cluster.c).
 */
#include "idle/diffgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/cpuset.h"
#include "util/str.h"

void il_diff_counts_zero(struct il_counts *c)
{
	for (int i = 0; i < IL_NCOUNTERS; i++)
		c->c[i] = c->poll[i] = (struct il_val){ 0, true };
}

void il_diff_counts_add(struct il_counts *dst, const struct il_counts *src)
{
	for (int i = 0; i < IL_NCOUNTERS; i++) {
		dst->c[i].ok = dst->c[i].ok && src->c[i].ok;
		dst->c[i].v += src->c[i].v;
		dst->poll[i].ok = dst->poll[i].ok && src->poll[i].ok;
		dst->poll[i].v += src->poll[i].v;
	}
}

bool il_diff_val_eq(struct il_val a, struct il_val b)
{
	return a.ok == b.ok && (!a.ok || a.v == b.v);
}

bool il_diff_same_state(const struct il_diff_state *x, const struct il_diff_state *y)
{
	return !strcmp(x->name, y->name) && il_diff_val_eq(x->latency_us, y->latency_us) &&
	       il_diff_val_eq(x->residency_us, y->residency_us);
}

static void state_release(struct il_diff_state *s)
{
	IL_FREE_ALL(s->name, s->key);
	il_cpuset_release(&s->disabled);
}

void il_diff_states_release(struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		state_release(&v[i]);
	free(v);
}

static int cpuset_union(struct il_cpuset *dst, const struct il_cpuset *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (!il_cpuset_has(dst, src->cpu[i]) && il_cpuset_append(dst, src->cpu[i]))
			return IL_ENOMEM;
	return 0;
}

/* Add s into the list of groups v (by name, latency, residency). Nonzero: memory ran out. */
static int group_add(struct il_diff_state **v, size_t *n, const struct il_diff_state *s)
{
	struct il_diff_state *nv, *g;

	for (size_t i = 0; i < *n; i++) {
		g = &(*v)[i];
		if (il_diff_same_state(g, s)) {
			il_diff_counts_add(&g->d, &s->d);
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

int il_diff_group_cpus(const struct il_diff *d, const struct il_cpuset *only, struct il_counts *total,
		       struct il_diff_state **v, size_t *n)
{
	for (size_t i = 0; i < d->ncpus; i++) {
		const struct il_diff_cpu *cpu = &d->cpus[i];

		if (only && !il_cpuset_has(only, cpu->cpu))
			continue;
		il_diff_counts_add(total, &cpu->total);
		for (size_t k = 0; k < cpu->nstates; k++)
			if (group_add(v, n, &cpu->states[k]))
				return IL_ENOMEM;
	}
	if (*n) /* a cluster of CPUs without idle states has none */
		qsort(*v, *n, sizeof(**v), cmp_state);
	return 0;
}

int il_diff_make_keys(struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t same_name = 0, same_res = 0;
		char key[200];

		for (size_t k = 0; k < n; k++) {
			same_name += !strcmp(v[k].name, v[i].name);
			same_res += !strcmp(v[k].name, v[i].name) && il_diff_val_eq(v[k].residency_us, v[i].residency_us);
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

int il_diff_key_from(const struct il_diff *d, struct il_diff_state *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < d->nstates && !v[i].key; k++)
			if (il_diff_same_state(&v[i], &d->states[k]) && !(v[i].key = strdup(d->states[k].key)))
				return IL_ENOMEM;
	return 0;
}
