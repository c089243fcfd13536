// SPDX-License-Identifier: GPL-2.0-or-later
/* The monotonic clock. */
#include "util/clock.h"

#include <time.h>

double il_mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
