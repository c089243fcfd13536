/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host probe: the "idle environment fingerprint" (kernel, CPUs, cpuidle
 * driver/governor/state tables, cpufreq policies, idle-relevant boot
 * options, the tick (HZ, NO_HZ from the kernel's config), PM QoS (resume
 * latency limits, /dev/cpu_dma_latency holders), virtualization, workload
 * tools) gathered in ONE remote exec: runners/probe.sh prints
 * "idlelab.KEY:VALUE" lines before the sysfs dump.
 */
#ifndef IL_HOST_PROBE_H
#define IL_HOST_PROBE_H

#include <jansson.h>

#include "host/transport.h"
#include "idle/snapshot.h"

/*
 * Run the probe on t; *out is the fingerprint JSON (caller owns the
 * reference); if snap is non-NULL it receives the cpuidle snapshot too.
 */
int il_probe_run(struct il_transport *t, json_t **out, struct il_snapshot *snap, struct il_err *err);

/*
 * The idle-relevant options of a kernel command line ({"nohz_full": "2-3",
 * "intel_idle.max_cstate": "1", ...}; words after "--" go to init and are
 * not looked at). New reference, or NULL on OOM.
 */
json_t *il_probe_cmdline_idle(const char *cmdline);

/* Parse probe output (facts + dump) into the fingerprint; exposed for tests. */
int il_probe_parse(const char *text, size_t len, const char *host, json_t **out, struct il_snapshot *snap,
		   struct il_err *err);

/*
 * An audit's one exec: the probe and a snapshot, then a second snapshot
 * window_s seconds later (runners/probe.sh, snapshot.sh, a marker line, sleep,
 * snapshot.sh). *out as il_probe_run; before and after are the two
 * snapshots (caller releases both). The command's time-out is the host's
 * command_timeout_s plus the window.
 */
int il_probe_window(struct il_transport *t, double window_s, json_t **out, struct il_snapshot *before,
		    struct il_snapshot *after, struct il_err *err);

/* The marker line between the two snapshots of il_probe_window's output. */
#define IL_PROBE_WINDOW_MARK "idlelab-second-snapshot"

/*
 * Parse il_probe_window's output: the part before the marker line as
 * il_probe_parse (fingerprint and before), the part after it as a dump
 * (after). Output without the marker is IL_EPARSE. Exposed for tests and fuzzing.
 */
int il_probe_parse_window(const char *text, size_t len, const char *host, json_t **out, struct il_snapshot *before,
			  struct il_snapshot *after, struct il_err *err);

#endif
