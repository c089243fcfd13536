/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshot difference (after - before) with validation, aggregation per
 * state, CPU and cluster, and the derived idle metrics the linux-pm threads
 * use: idles, aboves (too deep), belows (too shallow), idle_miss, miss_ratio,
 * usage_share/time_share, idles_per_s, energy and mean power.
 */
#ifndef IL_IDLE_DIFF_H
#define IL_IDLE_DIFF_H

#include <jansson.h>

#include "idle/snapshot.h"

/* Counter deltas; a value absent on any contributing CPU/state is absent in the sum. */
struct il_counts {
	struct il_val c[IL_NCOUNTERS];
};

/* Counter deltas of one state, or a state aggregated over several CPUs (key: index + name). */
struct il_diff_state {
	int index;
	char *name;
	struct il_counts d;
};

struct il_diff_cpu {
	int cpu;
	struct il_ival cluster;
	struct il_counts total;
	size_t nstates;
	struct il_diff_state *states;
};

struct il_diff_cluster {
	struct il_ival cluster;   /* absent: CPUs without topology/cluster_id */
	struct il_cpuset cpus;
	struct il_counts total;
	size_t nstates;
	struct il_diff_state *states;
};

struct il_diff_zone {
	char *zone;
	char *name;
	uint64_t energy_uj;       /* wrap-around already accounted for */
	bool top_level;           /* not a sub-zone of another listed zone (counted in the total) */
};

struct il_diff {
	char *host;
	char *boot_id;
	bool boot_id_verified;    /* both snapshots carried the same boot_id */
	bool has_interval;
	double interval_s;        /* from /proc/uptime */
	char *governor_before;
	char *governor_after;
	char *driver;
	struct il_counts total;
	size_t nstates;
	struct il_diff_state *states;     /* aggregated over all CPUs */
	size_t ncpus;
	struct il_diff_cpu *cpus;
	size_t nclusters;
	struct il_diff_cluster *clusters;
	size_t nzones;
	struct il_diff_zone *zones;
	bool has_energy;
	double energy_j;          /* sum of top-level zones */
};

/* Derived metrics of one set of counts. */
struct il_metrics {
	struct il_val idles, aboves, belows, idle_miss, time_us, rejected;
	bool has_miss_ratio;
	double miss_ratio;
	bool has_rate;
	double idles_per_s;
};

/*
 * out = after - before. Errors (IL_EMISMATCH) name host, CPU, state and file:
 * different boot_id, CPU present in one snapshot only, changed state tables,
 * a counter that decreased, an energy counter that decreased without a known
 * wrap range. out is owned by the caller: il_diff_release().
 */
int il_diff_compute(struct il_diff *out, const struct il_snapshot *before, const struct il_snapshot *after,
		    struct il_err *err);
void il_diff_release(struct il_diff *d);

void il_metrics_of(const struct il_counts *c, const struct il_diff *d, struct il_metrics *out);

/* Share of part in whole for one counter; false if either is absent or whole is 0. */
bool il_counts_share(const struct il_counts *part, const struct il_counts *whole, enum il_counter c,
		     double *out);

/* The documented diff JSON (docs/formats.md). Caller owns the reference. */
json_t *il_diff_to_json(const struct il_diff *d);
/* The same without the per-CPU breakdown (what a run journal keeps per sample). */
json_t *il_diff_summary_json(const struct il_diff *d);

#endif
