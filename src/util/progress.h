/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress of a long step (a kernel build, a download): library code fills
 * an il_progress and hands it to a caller's function; the CLI prints it (one
 * updating line on a terminal, periodic lines otherwise). Library code never
 * prints.
 */
#ifndef IL_UTIL_PROGRESS_H
#define IL_UTIL_PROGRESS_H
#include <stdbool.h>
#include "util/clock.h"

struct il_progress {
	const char *what;   /* "kernel labvm-6.1", "fetch https://..." */
	const char *unit;   /* "files", "bytes"; NULL: a step starts (what + elapsed_s only) */
	double done;
	double total;       /* <= 0: unknown */
	bool estimated;     /* total is an estimate, not a count */
	double elapsed_s;
	double eta_s;       /* < 0: unknown */
	bool last;          /* the step has ended (print a final line) */
};

typedef void (*il_progress_fn)(const struct il_progress *p, void *ctx);

/* Remaining seconds at the rate so far; -1 when it cannot be told yet. */
double il_progress_eta(double done, double total, double elapsed_s);

#endif
