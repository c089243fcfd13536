/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host probe: the "idle environment fingerprint" (kernel, CPUs, cpuidle
 * driver/governor/state tables, cpufreq, idle-relevant boot options, PM QoS,
 * virtualization, workload tools) gathered in ONE remote exec.
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

/* Parse probe output (facts + dump) into the fingerprint; exposed for tests. */
int il_probe_parse(const char *text, size_t len, const char *host, json_t **out, struct il_snapshot *snap,
		   struct il_err *err);

#endif
