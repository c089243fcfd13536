// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: parse + diff of a generated 512-CPU x 10-state dump (both
 * snapshots). Target < 20 ms. Prints the median and best of 30 runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "idle/diff.h"
#include "util/buf.h"

static void gen(struct il_buf *b, int phase)
{
	il_buf_printf(b, "/sys/devices/system/cpu/cpuidle/current_driver:intel_idle\n"
			 "/sys/devices/system/cpu/cpuidle/current_governor:menu\n"
			 "/sys/devices/system/cpu/cpuidle/available_governors:ladder menu teo\n"
			 "/sys/devices/system/cpu/online:0-511\n");
	for (int c = 0; c < 512; c++) {
		for (int k = 0; k < 10; k++) {
			static const char *const f[] = { "name", "desc", "latency", "residency", "disable", "power",
							 "default_status", "usage", "time", "above", "below", "rejected" };
			for (int i = 0; i < 12; i++) {
				il_buf_printf(b, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/%s:", c, k, f[i]);
				if (i == 0)
					il_buf_printf(b, "C%d\n", k);
				else if (i == 1)
					il_buf_printf(b, "MWAIT 0x%02x\n", k * 16);
				else if (i == 6)
					il_buf_adds(b, "enabled\n");
				else if (i == 2 || i == 3) /* one state table on every CPU, as on a real host */
					il_buf_printf(b, "%d\n", k * k * 10 * (i - 1));
				else if (i == 4 || i == 5)
					il_buf_adds(b, "0\n");
				else
					il_buf_printf(b, "%d\n", (c + 1) * (k + 3) * (i + 1) * 1000 + phase * (i + k + 1));
			}
		}
		il_buf_printf(b, "/sys/devices/system/cpu/cpu%d/topology/cluster_id:%d\n", c, c / 8);
	}
	il_buf_printf(b, "/proc/sys/kernel/random/boot_id:11111111-2222-3333-4444-555555555555\n"
			 "/proc/uptime:%d.00 1.00\n", 100 + phase);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	struct il_buf a = IL_BUF_INIT, b = IL_BUF_INIT;
	double t[30];
	struct il_err err = { 0 };

	gen(&a, 0);
	gen(&b, 1);
	for (int i = 0; i < 30; i++) {
		struct il_snapshot sa, sb;
		struct il_diff d;
		double t0 = now();

		if (il_snapshot_parse(&sa, a.p, a.len, "a", &err) || il_snapshot_parse(&sb, b.p, b.len, "b", &err) ||
		    il_diff_compute(&d, &sa, &sb, &err)) {
			fprintf(stderr, "bench: %s\n", err.msg);
			return 1;
		}
		t[i] = (now() - t0) * 1e3;
		il_diff_release(&d);
		il_snapshot_release(&sa);
		il_snapshot_release(&sb);
	}
	qsort(t, 30, sizeof(*t), cmpd);
	printf("bench idle: parse+diff of 512 CPUs x 10 states (2 x %.1f MiB dumps): median %.2f ms, best %.2f ms "
	       "(target < 20 ms)\n", a.len / 1048576.0, t[15], t[0]);
	il_buf_release(&a);
	il_buf_release(&b);
	return 0;
}
