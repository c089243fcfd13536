/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshot difference (after - before): whether it is a measurement at all
 * (structural errors: reboot, CPUs or state tables changed, counters reset)
 * and whether it is a valid one (suspend, idle time beyond the interval, too
 * short, too few idle entries), the interval from the monotonic clock, and
 * the idle metrics of the linux-pm threads over the measured CPUs: per state
 * grouped by (name, exit latency, target residency), per CPU, per cluster on
 * asymmetric hosts; poll states apart (their "below" is a poll timeout);
 * package energy and mean power. Every definition cites cpuidle.c
 * (cpuidle_enter_state) in docs/formats.md.
 */
#ifndef IL_IDLE_DIFF_H
#define IL_IDLE_DIFF_H

#include <jansson.h>

#include "idle/snapshot.h"

/*
 * Counter deltas; a value absent on any contributing CPU/state is absent in
 * the sum. poll[] is the part of c[] that comes from poll states (all of it
 * for a poll state, zeros for another).
 */
struct il_counts {
	struct il_val c[IL_NCOUNTERS];
	struct il_val poll[IL_NCOUNTERS];
};

/* One state, or a group of states over several CPUs with the same (name, latency, residency). */
struct il_diff_state {
	int index;                 /* the smallest index the state has on the CPUs grouped */
	char *name;
	char *key;                 /* unique among the diff's states: name, or name@<residency>us */
	struct il_val latency_us, residency_us;
	bool poll;                 /* il_snapshot_state_is_poll */
	struct il_counts d;
	struct il_cpuset disabled; /* CPUs where `disable` was set in either snapshot */
};

struct il_diff_cpu {
	int cpu;
	struct il_ival cluster;
	struct il_val capacity;
	struct il_counts total;
	size_t nstates;
	struct il_diff_state *states;
};

/* CPUs with the same (cluster_id, cpu_capacity), listed only on asymmetric hosts (il_diff.clusters). */
struct il_diff_cluster {
	struct il_ival cluster;   /* absent: CPUs without topology/cluster_id */
	struct il_val capacity;   /* absent: no cpu_capacity */
	char *label;              /* little/mid/big by capacity, else cluster<id> (or cpu<first CPU>) */
	struct il_cpuset cpus;
	struct il_counts total;
	size_t nstates;
	struct il_diff_state *states;
};

struct il_diff_zone {
	char *zone;               /* powercap zone directory (intel-rapl:0), or hwmonN/energyK */
	char *name;               /* the zone's name file, or the channel's label (else the device's name) */
	uint64_t energy_uj;       /* wrap-around already accounted for */
	bool counted;             /* part of energy_j */
	char *why;                /* why not counted; NULL when counted */
};

enum il_clock { IL_CLOCK_NONE, IL_CLOCK_MONOTONIC, IL_CLOCK_UPTIME };
enum il_energy_source { IL_ENERGY_NONE, IL_ENERGY_POWERCAP, IL_ENERGY_HWMON };

/* What a run's plan asks of a sample (docs/plan.md); NULL options: every CPU, no minimum. */
struct il_diff_opts {
	const struct il_cpuset *cpus; /* idle_cpus: metrics over these CPUs only; NULL: every CPU */
	double min_sample_s;          /* < 0: 0.1 s with the monotonic clock, 1 s with the uptime clock */
	uint64_t min_idles;           /* idle entries over the measured CPUs; 0: no minimum */
};

struct il_diff {
	char *host;
	char *boot_id;
	bool boot_id_verified;    /* both snapshots carried the same boot_id */
	bool has_interval;
	double interval_s;        /* from the monotonic clock, else /proc/uptime (clock says which) */
	enum il_clock clock;
	bool has_suspended;
	double suspended_s;       /* boottime delta - monotonic delta (>= 0), when both clocks are known */
	char *governor_before;
	char *governor_after;
	char *driver;
	struct il_cpuset measured;/* the CPUs the metrics cover */
	struct il_strlist caveats;/* human sentences: coarse clock, poll states, disabled states, ... */
	char *invalid;            /* NULL, or why this is not a valid measurement (sample status "invalid") */
	struct il_counts total;
	size_t nstates;
	struct il_diff_state *states;     /* grouped over the measured CPUs, by index then residency */
	size_t ncpus;
	struct il_diff_cpu *cpus;         /* the measured CPUs */
	size_t nclusters;
	struct il_diff_cluster *clusters; /* empty unless the host is asymmetric */
	size_t nzones;
	struct il_diff_zone *zones;       /* every zone and channel read, counted or not */
	enum il_energy_source energy_source;
	bool has_energy;          /* some zone is counted */
	double energy_j;          /* sum of the counted zones */
};

/* Derived metrics of one set of counts (definitions: docs/formats.md). */
struct il_metrics {
	struct il_val idles, aboves, belows, idle_miss, time_us, rejected;
	struct il_val poll_usage, poll_belows, poll_time_us, sleep_time_us;
	bool has_miss_ratio;
	double miss_ratio;
	bool has_rate;
	double idles_per_s;
	bool has_too_deep, has_too_shallow, has_miss_pct;
	double too_deep_pct, too_shallow_pct, miss_pct;
};

/*
 * out = after - before over every CPU, without minimums (il_diff_compute_opts
 * with NULL options).
 */
int il_diff_compute(struct il_diff *out, const struct il_snapshot *before, const struct il_snapshot *after,
		    struct il_err *err);

/*
 * out = after - before. Errors (IL_EMISMATCH) name host, CPU, state and file:
 * different boot_id, CPUs that came or went, changed state tables, counters
 * that went backwards (a CPU taken offline and back), an energy counter that
 * decreased without a known wrap range, an idle_cpus CPU the host lacks. A
 * diff that is computed but is not a valid measurement (suspend, idle time
 * beyond the interval, shorter than min_sample_s, fewer than min_idles idle
 * entries) returns 0 with out->invalid set. out is owned by the caller:
 * il_diff_release().
 */
int il_diff_compute_opts(struct il_diff *out, const struct il_snapshot *before, const struct il_snapshot *after,
			 const struct il_diff_opts *opts, struct il_err *err);
void il_diff_release(struct il_diff *d);

/*
 * The counters of one snapshot as they stand (since each CPU's cpuidle device
 * was registered, at boot or when the CPU came online), grouped as a diff's
 * are: states by (name, latency, residency), clusters on asymmetric hosts,
 * every CPU measured. No interval (no rates), no validity, no energy: what
 * an exporter of counters needs, with the diff's own keys and labels.
 * out is owned by the caller: il_diff_release().
 */
int il_diff_lifetime(struct il_diff *out, const struct il_snapshot *s, struct il_err *err);

void il_metrics_of(const struct il_counts *c, const struct il_diff *d, struct il_metrics *out);

/* Share of part in whole for one counter; false if either is absent or whole is 0. */
bool il_metrics_counts_share(const struct il_counts *part, const struct il_counts *whole, enum il_counter c,
		     double *out);

/* A state's too-deep % (100 * above / usage) and too-shallow % (100 * below / usage; never for a poll state). */
bool il_metrics_too_deep_pct(const struct il_diff_state *s, double *out);
bool il_metrics_too_shallow_pct(const struct il_diff_state *s, double *out);

/* "monotonic", "uptime" or NULL. */
const char *il_diff_clock_name(enum il_clock c);
/* "powercap", "hwmon" or NULL. */
const char *il_diff_energy_source_name(enum il_energy_source s);

#endif
