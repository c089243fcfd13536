// SPDX-License-Identifier: GPL-2.0-or-later
/* Progress arithmetic. */
#include "util/progress.h"


double il_progress_eta(double done, double total, double elapsed_s)
{
	if (done <= 0 || total <= 0 || elapsed_s < 1)
		return -1;
	if (done >= total)
		return 0;
	return elapsed_s / done * (total - done);
}
