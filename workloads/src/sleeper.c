// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sleeper: sleep for durations drawn from a weighted mix ("-m 50:20,50:5000"
 * = half 20 us, half 5 ms) from a seeded generator. A bimodal mix is what
 * exercises teo's intercept/hit bookkeeping and menu's pattern detection:
 * the governor has to guess which of the two lengths comes next. Reports
 * the oversleep (wakeup latency) per sleep and the achieved sleep count.
 */
#include <getopt.h>
#include "wl.h"

#define MAXMIX 16
static const char *const usage = "[-d SECONDS] [-m WEIGHT:US,...] [-s SEED]";

int main(int argc, char **argv)
{
	double dur = 5, w[MAXMIX], us[MAXMIX], wsum = 0;
	const char *mix = "50:20,50:5000";
	uint64_t seed = 1, *lat;
	size_t nmix = 0, n = 0, cap = 1 << 16;
	int c;

	while ((c = getopt(argc, argv, "d:m:s:")) != -1) {
		switch (c) {
		case 'd': dur = wl_double(argv[0], "-d", optarg, 0.001, 86400); break;
		case 'm': mix = optarg; break;
		case 's': seed = (uint64_t)wl_long(argv[0], "-s", optarg, 1, 0x7fffffff); break;
		default: wl_usage_exit(argv[0], usage);
		}
	}
	if (optind != argc)
		wl_usage_exit(argv[0], usage);
	for (const char *p = mix; *p;) {
		char *end;

		if (nmix == MAXMIX)
			goto badmix;
		w[nmix] = strtod(p, &end);
		if (end == p || *end != ':' || !(w[nmix] > 0))
			goto badmix;
		p = end + 1;
		us[nmix] = strtod(p, &end);
		if (end == p || (*end && *end != ',') || !(us[nmix] >= 0 && us[nmix] <= 1e7))
			goto badmix;
		wsum += w[nmix++];
		p = *end ? end + 1 : end;
	}
	if (!nmix)
		goto badmix;
	lat = malloc(cap * sizeof(*lat));
	if (!lat)
		return 1;
	uint64_t start = wl_now_ns(), end_ns = start + (uint64_t)(dur * 1e9);
	while (wl_now_ns() < end_ns) {
		double r = (double)(wl_rand(&seed) >> 11) / 9007199254740992.0 * wsum;
		size_t k = 0;

		while (k + 1 < nmix && r >= w[k])
			r -= w[k++];
		uint64_t want = (uint64_t)(us[k] * 1e3), t0 = wl_now_ns();
		struct timespec ts = { (time_t)(want / 1000000000ull), (long)(want % 1000000000ull) };
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
		uint64_t slept = wl_now_ns() - t0;
		if (n == cap) {
			uint64_t *nl = realloc(lat, 2 * cap * sizeof(*lat));
			if (!nl)
				return 1;
			lat = nl;
			cap *= 2;
		}
		lat[n++] = slept > want ? slept - want : 0;
	}
	printf("sleeps: %zu\n", n);
	printf("sleeps_per_s: %.3f\n", (double)n / ((double)(wl_now_ns() - start) / 1e9));
	wl_print_lat("oversleep", lat, n);
	free(lat);
	return 0;
badmix:
	fprintf(stderr, "sleeper: -m: expected WEIGHT:US[,WEIGHT:US...] (weights > 0, at most %d), got '%s'\n", MAXMIX,
		mix);
	return 2;
}
