/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clusters of a diff (il_diff.clusters): CPUs with the same (cluster_id,
 * cpu_capacity), listed only on asymmetric hosts and labelled little/mid/big
 * by capacity, else cluster<id> or cpu<first CPU>. Part of the diff
 * (idle/diff.c calls it); split out because cluster detection is its own
 * concept, as energy.c's zone rules are. The state groups it shares with
 * the diff are idle/diffgroup.c's, below both.
 */
#ifndef IL_IDLE_CLUSTER_H
#define IL_IDLE_CLUSTER_H

#include "idle/diff.h"

/*
 * Group d's measured CPUs (d->cpus) into d->clusters, each with its
 * cluster, capacity, CPUs and label, when the groups are clusters worth
 * listing: at least two, differing in capacity or in their state tables (on
 * x86 cluster_id is the L2 group, and a symmetric VM's CPUs may each have
 * one), each with its counts and its states grouped as the diff's are
 * (idle/diffgroup.h), keyed from d->states (so those come first). Otherwise
 * d->clusters stays empty. 0 or IL_ENOMEM; on error what was made is freed
 * by il_diff_release.
 */
int il_cluster_detect(struct il_diff *d);

/* Free d->clusters, their states included, and leave none (il_diff_release calls it). */
void il_cluster_release(struct il_diff *d);

#endif
