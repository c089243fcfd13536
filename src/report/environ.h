/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The environment a run's idle numbers depend on, disclosed from a host
 * fingerprint (host/probe.c, as the journal's host record carries it): VM or
 * not and by what evidence, the idle-relevant boot options, cpufreq, the tick
 * (HZ, NO_HZ), and PM QoS (processes holding /dev/cpu_dma_latency, CPUs with
 * a resume latency limit). A fingerprint from an older idlelab lacks some of
 * these: those say "not recorded", never a guess.
 */
#ifndef IL_REPORT_ENVIRON_H
#define IL_REPORT_ENVIRON_H
#include <jansson.h>
#include "util/buf.h"

/*
 * Append one line per item ("VM: yes (cpuinfo hypervisor flag; ...)",
 * "Idle boot options: ...", "cpufreq: ...", "Tick: ...", "PM QoS: ..."),
 * each word-wrapped at 100 columns. full: the whole kernel command line too.
 * Returns il_buf_error(out).
 */
int il_environ_report(const json_t *fp, bool full, struct il_buf *out);

#endif
