/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state groups of a diff, for idle/diff.c and idle/cluster.c only:
 * counter sums, the states of several CPUs grouped by (name, exit latency,
 * target residency) and sorted shallow first, and the groups' unique keys.
 * The diff's total and its clusters' are built the same way from these;
 * they sit below both files so neither needs the other's.
 */
#ifndef IL_IDLE_DIFFGROUP_H
#define IL_IDLE_DIFFGROUP_H

#include "idle/diff.h"

/* Every counter 0 and present. */
void il_diff_counts_zero(struct il_counts *c);
/* dst += src; a counter absent in either is absent in dst. */
void il_diff_counts_add(struct il_counts *dst, const struct il_counts *src);

/* Both absent, or both present and equal. */
bool il_diff_val_eq(struct il_val a, struct il_val b);
/* Same state for grouping: the same name, exit latency and target residency. */
bool il_diff_same_state(const struct il_diff_state *x, const struct il_diff_state *y);
/* Release n states and the array v. */
void il_diff_states_release(struct il_diff_state *v, size_t n);

/*
 * Add the counts of d's CPUs (those in only, when it is not NULL) into total
 * and their states into the groups *v (*n of them; grown here, the caller
 * releases them with il_diff_states_release), then sort the groups shallow
 * first: by index, then residency, latency, name. The groups have no key yet.
 * IL_ENOMEM.
 */
int il_diff_group_cpus(const struct il_diff *d, const struct il_cpuset *only, struct il_counts *total,
		       struct il_diff_state **v, size_t *n);

/*
 * Unique keys for the diff's groups: the name, or name@<residency>us when
 * several groups share it (big.LITTLE cpu-sleep), name@<latency>-<residency>us
 * when that is not enough either, name#<n> when the values are absent. IL_ENOMEM.
 */
int il_diff_make_keys(struct il_diff_state *v, size_t n);

/* Give each of the n states v (a CPU's or a cluster's) the key of the diff-wide group it belongs to. IL_ENOMEM. */
int il_diff_key_from(const struct il_diff *d, struct il_diff_state *v, size_t n);

#endif
