/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cpuidle sysfs model: one point-in-time snapshot of a host's idle
 * driver, governor, per-CPU state tables and counters, boot_id, the two
 * clocks (CLOCK_MONOTONIC from /proc/timer_list, boottime from /proc/uptime),
 * suspend counts and energy counters (powercap zones, hwmon energy
 * channels). Every value records whether it was present: a file the kernel
 * does not have is absent, never 0.
 */
#ifndef IL_IDLE_SNAPSHOT_H
#define IL_IDLE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "idle/cpuset.h"
#include "util/strlist.h"

/* CPU numbers at or above this are refused by the parser and skipped by the local dump. */
#define IL_MAX_CPUS 65536

/* A value read from sysfs, or absent (ok == false). */
struct il_val {
	uint64_t v;
	bool ok;
};

struct il_ival {
	int64_t v;
	bool ok;
};

/*
 * Per-state counters: X(enum suffix, sysfs file, JSON key). Order is the
 * order of output columns.
 */
#define IL_COUNTERS(X)                     \
	X(USAGE, "usage", "usage")         \
	X(TIME, "time", "time_us")         \
	X(ABOVE, "above", "above")         \
	X(BELOW, "below", "below")         \
	X(REJECTED, "rejected", "rejected")

/* Per-state descriptive numbers: X(enum suffix, sysfs file, JSON key). */
#define IL_INFOS(X)                                 \
	X(LATENCY, "latency", "latency_us")         \
	X(RESIDENCY, "residency", "residency_us")   \
	X(DISABLE, "disable", "disable")            \
	X(POWER, "power", "power_mw")

enum il_counter {
#define IL_C_ENUM(e, file, key) IL_C_##e,
	IL_COUNTERS(IL_C_ENUM)
#undef IL_C_ENUM
	IL_NCOUNTERS
};

enum il_info {
#define IL_I_ENUM(e, file, key) IL_I_##e,
	IL_INFOS(IL_I_ENUM)
#undef IL_I_ENUM
	IL_NINFOS
};

/* sysfs file and JSON key of a counter / info field. */
const char *il_snapshot_counter_file(enum il_counter c);
const char *il_snapshot_counter_key(enum il_counter c);
const char *il_snapshot_info_file(enum il_info i);
const char *il_snapshot_info_key(enum il_info i);

struct il_state {
	int index;
	char *name;            /* NULL when absent */
	char *desc;
	char *default_status;  /* "enabled"/"disabled", NULL on kernels without it */
	struct il_val info[IL_NINFOS];
	struct il_val cnt[IL_NCOUNTERS];
};

struct il_cpu {
	int cpu;
	char *driver;              /* cpuN/cpuidle/driver/name, NULL when absent */
	struct il_ival cluster_id; /* may be -1 on arm64 without cluster info */
	struct il_ival core_id;
	struct il_ival package_id;
	struct il_val capacity;    /* cpu_capacity (arm64 asymmetric systems) */
	size_t nstates;
	struct il_state *states;   /* states[k].index == k */
};

struct il_energy_zone {
	char *zone;                /* directory name under /sys/class/powercap, e.g. intel-rapl:0 */
	char *name;                /* its "name" file, e.g. package-0; NULL when absent */
	struct il_val energy_uj;
	struct il_val max_range_uj;
};

/* One hwmon energy channel: /sys/class/hwmon/hwmonN/energyK_{input,label}. */
struct il_hwmon_chan {
	unsigned channel;          /* K */
	char *label;               /* energyK_label, NULL when absent */
	struct il_val energy_uj;   /* energyK_input, microjoules */
};

/* A hwmon device with energy channels (devices without any are not kept). */
struct il_hwmon {
	char *dev;                 /* directory name under /sys/class/hwmon, e.g. hwmon3 */
	char *name;                /* its "name" file, NULL when absent */
	size_t nchan;
	struct il_hwmon_chan *chan;/* sorted by channel */
};

struct il_snapshot {
	char *host;                /* label for messages ("local", a host name); owned */
	char *driver;              /* cpuidle/current_driver */
	char *governor;            /* cpuidle/current_governor (or _ro when only that exists) */
	char *governor_ro;
	bool governor_writable;    /* current_governor exists (kernel >= 5.x or cpuidle_sysfs_switch) */
	struct il_strlist available_governors;
	bool has_online;
	struct il_cpuset online;
	char *boot_id;
	bool has_uptime;
	double uptime_s;           /* /proc/uptime: boottime (suspend included), 10 ms resolution */
	bool has_mono;
	uint64_t mono_ns;          /* CLOCK_MONOTONIC (suspend excluded): /proc/timer_list "now at N nsecs" */
	struct il_val suspend_success; /* /sys/power/suspend_stats/success (s2idle included) */
	struct il_val suspend_fail;    /* /sys/power/suspend_stats/fail */
	size_t ncpus;
	struct il_cpu *cpus;       /* sorted by cpu number */
	size_t nzones;
	struct il_energy_zone *zones;
	size_t nhwmon;
	struct il_hwmon *hwmon;    /* sorted by dev */
};

/* Free everything a snapshot owns and zero it. */
void il_snapshot_release(struct il_snapshot *s);
/* Free what one CPU entry or one hwmon device owns (not the entry itself): for the parser's partial ones. */
void il_snapshot_cpu_release(struct il_cpu *c);
void il_snapshot_hwmon_release(struct il_hwmon *h);

/* The CPU entry for a CPU number, or NULL. Borrowed. */
const struct il_cpu *il_snapshot_cpu(const struct il_snapshot *s, int cpu);

/*
 * Whether a state is a polling state (CPUIDLE_FLAG_POLLING, which sysfs does
 * not show): "POLL" (x86, haltpoll) or "snooze" (pseries) at index 0, or a
 * desc containing "POLL" (poll_state.c: "CPUIDLE CORE POLL IDLE").
 */
bool il_snapshot_state_is_poll(const struct il_state *st);

/* Number of idle states summed over CPUs (0: the host has no idle states). */
size_t il_snapshot_nstates(const struct il_snapshot *s);

/*
 * Parse a text dump of `path:value` lines (what `grep -r . DIRS` prints) into
 * out (idle/snapshotparse.c). Paths may carry a prefix before /sys or /proc (a sysfs root). Lines
 * for files idlelab does not model are ignored. label names the source in
 * errors ("host 'x'", a file name). Malformed lines, non-numeric counters,
 * duplicates, a missing final newline (a truncated dump) and state tables
 * with gaps are errors with the line number.
 */
int il_snapshot_parse(struct il_snapshot *out, const char *text, size_t len, const char *label,
		      struct il_err *err);

/*
 * Produce the dump text for a (possibly fake) root directory: the same lines
 * `grep -r .` would print for the files idlelab models, with paths relative to
 * root (so they start with /sys or /proc). Unreadable files are left out.
 * The monotonic clock line "/proc/timer_list:now at N nsecs" comes from the
 * root's proc/timer_list when it has one (a fixture tree); for the real root
 * ("/" or NULL) it is clock_gettime(CLOCK_MONOTONIC), read right after the
 * idle counters (what the kernel's timer_list prints is ktime_get(), the same
 * clock), so reading the 0400 file is not needed (idle/sysdump.c).
 */
int il_sysdump_local(struct il_buf *out, const char *root, struct il_err *err);

#endif
