// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bench helper: N idle snapshots (dump + parse) of one inventory host over
 * one transport, as the run engine does. Prints seconds per snapshot.
 *   sshsnap HOSTS_DIR HOST N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host/hostfs.h"

int main(int argc, char **argv)
{
	struct il_host_cfg h;
	struct il_transport *t;
	struct il_hostfs fs;
	struct il_err err = { 0 };
	struct timespec a, b;
	int n;

	if (argc != 4)
		return 2;
	n = atoi(argv[3]);
	if (il_host_load(&h, &(struct il_paths){ .hosts_dir = argv[1] }, argv[2], &err) || il_transport_open(&t, &h, &err)) {
		fprintf(stderr, "sshsnap: %s\n", err.msg);
		return 1;
	}
	il_hostfs_init(&fs, t);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		struct il_snapshot s;

		if (il_sysfs_snapshot(&fs.ops, &s, &err)) {
			fprintf(stderr, "sshsnap: %s\n", err.msg);
			return 1;
		}
		il_snapshot_release(&s);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n", ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9) / n);
	il_transport_free(t);
	il_host_release(&h);
	return 0;
}
