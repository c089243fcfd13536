// SPDX-License-Identifier: GPL-2.0-or-later
/* Progress arithmetic and the monotonic clock. */
#include "util/progress.h"

#include <time.h>

double il_progress_eta(double done, double total, double elapsed_s)
{
	if (done <= 0 || total <= 0 || elapsed_s < 1)
		return -1;
	if (done >= total)
		return 0;
	return elapsed_s / done * (total - done);
}

double il_mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
