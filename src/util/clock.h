/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clocks: CLOCK_MONOTONIC in seconds, the one clock for durations and
 * deadlines, and the wall clock as an ISO 8601 UTC time for records.
 */
#ifndef IL_UTIL_CLOCK_H
#define IL_UTIL_CLOCK_H

#include <stddef.h>

double il_clock_mono_s(void);

/* The current UTC time as "YYYY-MM-DDTHH:MM:SS.mmmZ" in out (at least 32 bytes). */
void il_clock_iso_now(char *out, size_t n);

#endif
