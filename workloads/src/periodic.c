// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * periodic: wake up at a fixed rate (absolute-time clock_nanosleep, optional
 * random jitter per period) and report how late each wakeup was. A timer
 * workload is what a governor sees from audio, polling drivers and ticks:
 * the next wakeup is predictable, so misses here are governor errors.
 */
#include <getopt.h>
#include "wl.h"

static const char *const usage = "[-f HZ] [-d SECONDS] [-j JITTER_US] [-s SEED]";

int main(int argc, char **argv)
{
	double hz = 100, dur = 5, jitter_us = 0;
	uint64_t seed = 1, *lat;
	size_t n = 0, cap;
	struct timespec next;
	int c;

	while ((c = getopt(argc, argv, "f:d:j:s:")) != -1) {
		switch (c) {
		case 'f': hz = wl_double(argv[0], "-f", optarg, 0.1, 100000); break;
		case 'd': dur = wl_double(argv[0], "-d", optarg, 0.001, 86400); break;
		case 'j': jitter_us = wl_double(argv[0], "-j", optarg, 0, 1e7); break;
		case 's': seed = (uint64_t)wl_long(argv[0], "-s", optarg, 1, 0x7fffffff); break;
		default: wl_usage_exit(argv[0], usage);
		}
	}
	if (optind != argc)
		wl_usage_exit(argv[0], usage);
	cap = (size_t)(hz * dur) + 2;
	lat = calloc(cap, sizeof(*lat));
	if (!lat) {
		fprintf(stderr, "periodic: out of memory\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	uint64_t period_ns = (uint64_t)(1e9 / hz), start = wl_now_ns(), end = start + (uint64_t)(dur * 1e9);
	uint64_t target = (uint64_t)next.tv_sec * 1000000000ull + (uint64_t)next.tv_nsec;
	while (n < cap) {
		uint64_t j = jitter_us > 0 ? wl_rand(&seed) % (uint64_t)(jitter_us * 1e3 + 1) : 0;
		uint64_t t = target + period_ns + j, now;

		target += period_ns;
		if (t > end)
			break;
		next.tv_sec = (time_t)(t / 1000000000ull);
		next.tv_nsec = (long)(t % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		now = wl_now_ns();
		lat[n++] = now > t ? now - t : 0;
	}
	printf("hz: %g\n", hz);
	printf("wakeups: %zu\n", n);
	printf("elapsed_s: %.6f\n", (double)(wl_now_ns() - start) / 1e9);
	wl_print_lat("wakeup_lat", lat, n);
	free(lat);
	return 0;
}
