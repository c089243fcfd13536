/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PM QoS limits that keep CPUs out of deep idle states
 * (Documentation/admin-guide/pm/cpuidle.rst, "Power Management Quality of
 * Service for CPUs"): the processes holding /dev/cpu_dma_latency open (each
 * open file is one CPU latency request, kernel/power/qos.c), the effective
 * CPU latency limit that file reads back, and each CPU's
 * power/pm_qos_resume_latency_us. Read as a `path:value` dump, like the
 * snapshot: made locally from a (possibly fake) root by il_pmqos_dump_local,
 * remotely by runners/pmqos.sh, parsed by il_pmqos_parse.
 */
#ifndef IL_IDLE_PMQOS_H
#define IL_IDLE_PMQOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

struct il_cpuset;

/* What the kernel reads back when nobody asks for less (PM_QOS_CPU_LATENCY_DEFAULT_VALUE, 2000 s). */
#define IL_PMQOS_CPU_LATENCY_DEFAULT_US 2000000000ll

/* A process with /dev/cpu_dma_latency open. */
struct il_pmqos_holder {
	int pid;
	char *comm;          /* /proc/PID/comm (a name may hold any byte but NUL); NULL when unreadable */
	unsigned nfds;       /* its open files on the device: one request each */
};

/*
 * A CPU's power/pm_qos_resume_latency_us (drivers/base/power/sysfs.c): "0"
 * is no constraint, "n/a" is no latency accepted at all (limit 0), N is N us.
 */
struct il_pmqos_resume {
	int cpu;
	bool limited;        /* false: no constraint */
	uint64_t limit_us;   /* when limited: 0 for "n/a" */
};

struct il_pmqos {
	size_t nholders;
	struct il_pmqos_holder *holders; /* sorted by pid */
	size_t nrequests;                /* open files on /dev/cpu_dma_latency over every holder */
	uint64_t unreadable;             /* processes whose /proc/PID/fd (or a link in it) could not be read */
	bool has_cpu_latency;            /* /dev/cpu_dma_latency could be read (root only) */
	int64_t cpu_latency_us;          /* the effective limit: the smallest request, else the default */
	size_t ncpus;
	struct il_pmqos_resume *cpus;    /* sorted by cpu; only CPUs with the file */
};

/*
 * The dump for a root ("/" or NULL: this machine; else a fixture tree):
 * "/proc/PID/fd/N:/dev/cpu_dma_latency" for each open file on the device
 * (fd links read with readlink), then "/proc/PID/comm:NAME" for each holder
 * (a name with a newline gives two lines, as grep would), the line
 * "idlelab.unreadable_processes:N", "/dev/cpu_dma_latency:N" (the s32 it
 * reads, in decimal) when readable, and each CPU's
 * "/sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us:VALUE".
 * /proc is read before the device is opened, so idlelab is never its own
 * holder. The caller owns out.
 */
int il_pmqos_dump_local(struct il_buf *out, const char *root, struct il_err *err);

/*
 * Parse a dump (il_pmqos_dump_local's or runners/pmqos.sh's) into out; paths
 * may carry a root prefix before /proc, /sys or /dev. Lines for other files
 * are ignored. Malformed lines, bad numbers, a missing final newline and
 * duplicates are IL_EPARSE errors naming label and line. out is owned by
 * the caller: il_pmqos_release().
 */
int il_pmqos_parse(struct il_pmqos *out, const char *text, size_t len, const char *label, struct il_err *err);

void il_pmqos_release(struct il_pmqos *q);

/*
 * Whether q bypasses the governor: the effective CPU latency limit is 0 (a
 * process holds /dev/cpu_dma_latency at 0: cyclictest without --laptop), or
 * a CPU of cpus (NULL: any CPU) has a resume latency limit of 0 ("n/a"). The
 * governors' latency requirement (cpuidle_governor_latency_req(), the smaller
 * of the two) is then 0, and menu returns state 0 without predicting anything
 * (drivers/cpuidle/governors/menu.c, menu_select()): a governor comparison
 * under it compares nothing. An unreadable device (not root) is not taken
 * for 0. When bypassed and why is not NULL, why gets the caveat, e.g.
 * "governor bypassed: CPU latency limit 0 us (held by PID 4242/cyclictest)".
 * 0, or IL_ENOMEM (why's memory).
 */
int il_pmqos_bypassed(const struct il_pmqos *q, const struct il_cpuset *cpus, bool *out, struct il_buf *why);

#endif
