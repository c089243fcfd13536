// SPDX-License-Identifier: GPL-2.0-or-later
/* The monotonic clock and the wall clock's ISO 8601 form. */
#include "util/clock.h"

#include <stdio.h>
#include <time.h>

double il_clock_mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void il_clock_iso_now(char *out, size_t n)
{
	char buf[32];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%03ldZ", buf, ts.tv_nsec / 1000000);
}
