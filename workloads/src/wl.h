/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared bits of idlelab's own workloads (pingpong, periodic, sleeper):
 * strict option values, a monotonic clock, latency summaries printed as the
 * `key: value` lines the `idlelab-kv` parser reads. Header-only so that each
 * workload stays one static binary built from one .c file.
 */
#ifndef IL_WL_H
#define IL_WL_H
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t wl_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline void wl_usage_exit(const char *prog, const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", prog, usage);
	exit(2);
}

/* A whole number in [min, max] or exit 2 naming the option. */
static inline long wl_long(const char *prog, const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: expected an integer in [%ld, %ld], got '%s'\n", prog, opt, min, max, s);
		exit(2);
	}
	return v;
}

static inline double wl_double(const char *prog, const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max)) {
		fprintf(stderr, "%s: %s: expected a number in [%g, %g], got '%s'\n", prog, opt, min, max, s);
		exit(2);
	}
	return v;
}

static inline int wl_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n). */
static inline double wl_pct(const uint64_t *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100.0 * (double)n + 0.999999);

	if (!n)
		return 0;
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return (double)v[k - 1];
}

/* Print "<prefix>_{avg,p50,p99,max}_us" for latencies in ns; sorts v. */
static inline void wl_print_lat(const char *prefix, uint64_t *v, size_t n)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), wl_cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	printf("%s_avg_us: %.3f\n", prefix, n ? sum / (double)n / 1e3 : 0.0);
	printf("%s_p50_us: %.3f\n", prefix, wl_pct(v, n, 50) / 1e3);
	printf("%s_p99_us: %.3f\n", prefix, wl_pct(v, n, 99) / 1e3);
	printf("%s_max_us: %.3f\n", prefix, n ? (double)v[n - 1] / 1e3 : 0.0);
}

/* xorshift64*: a small seeded generator so a sleep mix is reproducible. */
static inline uint64_t wl_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

#endif
