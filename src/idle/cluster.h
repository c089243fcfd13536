/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clusters of a diff (il_diff.clusters): CPUs with the same (cluster_id,
 * cpu_capacity), listed only on asymmetric hosts and labelled little/mid/big
 * by capacity, else cluster<id> or cpu<first CPU>. Part of the diff
 * (idle/diff.c calls it); split out because cluster detection is its own
 * concept, as energy.c's zone rules are.
 */
#ifndef IL_IDLE_CLUSTER_H
#define IL_IDLE_CLUSTER_H

#include "idle/diff.h"

/*
 * Group d's measured CPUs (d->cpus) into d->clusters, each with its
 * cluster, capacity, CPUs and label, when the groups are clusters worth
 * listing: at least two, differing in capacity or in their state tables (on
 * x86 cluster_id is the L2 group, and a symmetric VM's CPUs may each have
 * one). Otherwise d->clusters stays empty. The clusters' counts and states are
 * left for the caller to add (zeroed, none). 0 or IL_ENOMEM; on error what was
 * made is freed by il_diff_release.
 */
int il_cluster_detect(struct il_diff *d);

/* Free d->clusters, their states included, and leave none (il_diff_release calls it). */
void il_cluster_release(struct il_diff *d);

/*
 * ---- diff.c's helpers that cluster.c uses too ----
 * Defined in idle/diff.c; for idle/diff.c and idle/cluster.c only.
 */

/* Both absent, or both present and equal. */
bool il_diff_val_eq(struct il_val a, struct il_val b);
/* Same state for grouping: the same name, exit latency and target residency. */
bool il_diff_same_state(const struct il_diff_state *x, const struct il_diff_state *y);
/* Add cpu to a set kept sorted (CPUs arrive in increasing order; a repeat is ignored). IL_ENOMEM. */
int il_diff_cpuset_add(struct il_cpuset *s, int cpu);
/* Release n states and the array v. */
void il_diff_states_release(struct il_diff_state *v, size_t n);

#endif
