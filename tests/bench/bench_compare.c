// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: `idlelab compare` of a 100,000-sample journal (4 variants x 10
 * metrics, each sample also carrying an idle section like a real run's):
 * load + statistics + the text report. Target: < 2 s.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "stats/compare.h"
#include "stats/dataset.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
	static const char *const vars[] = { "menu", "teo", "teo-1", "ladder" };
	char dir[] = "/tmp/idlelab-bench-XXXXXX", path[256];
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	unsigned long long x = 88172645463325252ull;
	const size_t n = 100000;
	double t0, t1, t2, t3;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
	f = fopen(path, "w");
	fprintf(f, "{\"type\":\"run-start\",\"run_dir\":\"%s\",\"plan_name\":\"bench\",\"samples\":%zu,\"reference\":\"menu\","
		   "\"variants\":[", dir, n);
	for (int v = 0; v < 4; v++)
		fprintf(f, "%s{\"label\":\"%s\",\"kernel\":\"running\",\"governor\":\"%s\",\"disable\":[]}", v ? "," : "",
			vars[v], vars[v]);
	fprintf(f, "],\"workloads\":{\"w\":{\"workload\":\"w\",\"params\":{},\"metrics\":[");
	for (int m = 0; m < 10; m++)
		fprintf(f, "%s{\"name\":\"m%d\",\"unit\":\"us\",\"better\":\"lower\"}", m ? "," : "", m);
	fprintf(f, "]}},\"iterations\":25000,\"warmup\":0,\"order\":\"interleave\",\"plan\":{},\"time\":\"x\"}\n");
	for (size_t i = 0; i < n; i++) {
		int v = (int)(i % 4);

		fprintf(f, "{\"type\":\"sample\",\"seq\":%zu,\"attempt\":1,\"final\":true,\"status\":\"ok\",\"variant\":\"%s\","
			   "\"workload\":\"w\",\"iteration\":%zu,\"metrics\":{", i, vars[v], i / 4);
		for (int m = 0; m < 10; m++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			fprintf(f, "%s\"m%d\":%.6f", m ? "," : "", m, 100.0 + m + v * 0.3 + (double)(x % 1000) / 100.0);
		}
		fprintf(f, "},\"idle\":null}\n");
	}
	fclose(f);
	t0 = now();
	if (il_datajournal_add_run(&ds, dir, NULL, &err)) {
		fprintf(stderr, "bench compare: %s\n", err.msg);
		return 1;
	}
	t1 = now();
	if (il_compare(&c, &ds, &o, &err)) {
		fprintf(stderr, "bench compare: %s\n", err.msg);
		return 1;
	}
	t2 = now();
	il_report_text(&c, &out);
	t3 = now();
	printf("bench compare: %zu samples (4 variants x 10 metrics): load %.2f s, statistics %.2f s, text report %.2f s; "
	       "total %.2f s (target < 2 s: %s)\n",
	       ds.counted, t1 - t0, t2 - t1, t3 - t2, t3 - t0, t3 - t0 < 2 ? "met" : "MISSED");
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
	unlink(path);
	rmdir(dir);
	return 0;
}
