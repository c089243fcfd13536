// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cluster detection for a diff: the measured CPUs grouped by (cluster_id,
 * cpu_capacity), kept only when the groups really differ, named, and given
 * their counts and states as the diff's total is (idle/diffgroup.c). Part of
 * the diff; its own file because what makes CPUs a cluster is a question of
 * topology and naming, not of counters.
 */
#include "idle/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/cpuset.h"
#include "idle/diffgroup.h"

/* The group of cpu's (cluster_id, cpu_capacity) in d->clusters, added when it is the first of its kind. */
static int cluster_for(struct il_diff *d, const struct il_diff_cpu *cpu, struct il_diff_cluster **out)
{
	struct il_diff_cluster *v;

	for (size_t i = 0; i < d->nclusters; i++) {
		struct il_diff_cluster *c = &d->clusters[i];

		if (c->cluster.ok == cpu->cluster.ok && (!cpu->cluster.ok || c->cluster.v == cpu->cluster.v) &&
		    il_diff_val_eq(c->capacity, cpu->capacity)) {
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
	return 0;
}

static bool same_table(const struct il_diff_cpu *x, const struct il_diff_cpu *y)
{
	if (x->nstates != y->nstates)
		return false;
	for (size_t k = 0; k < x->nstates; k++)
		if (!il_diff_same_state(&x->states[k], &y->states[k]))
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
		if (!il_diff_val_eq(d->clusters[i].capacity, d->clusters[0].capacity))
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

void il_cluster_release(struct il_diff *d)
{
	for (size_t i = 0; i < d->nclusters; i++) {
		il_diff_states_release(d->clusters[i].states, d->clusters[i].nstates);
		il_cpuset_release(&d->clusters[i].cpus);
		free(d->clusters[i].label);
	}
	free(d->clusters);
	d->clusters = NULL;
	d->nclusters = 0;
}

int il_cluster_detect(struct il_diff *d)
{
	for (size_t i = 0; i < d->ncpus; i++) {
		struct il_diff_cluster *cl;

		if (cluster_for(d, &d->cpus[i], &cl) || il_cpuset_append(&cl->cpus, d->cpus[i].cpu))
			return IL_ENOMEM;
	}
	if (!asymmetric(d)) {
		il_cluster_release(d);
		return 0;
	}
	if (label_clusters(d))
		return IL_ENOMEM;
	for (size_t i = 0; i < d->nclusters; i++) {
		struct il_diff_cluster *c = &d->clusters[i];

		il_diff_counts_zero(&c->total);
		if (il_diff_group_cpus(d, &c->cpus, &c->total, &c->states, &c->nstates) ||
		    il_diff_key_from(d, c->states, c->nstates))
			return IL_ENOMEM;
	}
	return 0;
}
