/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one clock for durations and deadlines: CLOCK_MONOTONIC, in seconds. */
#ifndef IL_UTIL_CLOCK_H
#define IL_UTIL_CLOCK_H

double il_mono_s(void);

#endif
