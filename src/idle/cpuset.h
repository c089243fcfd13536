/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU sets in the kernel's CPU list syntax ("0-3,8": sysfs cpulist files,
 * idle_cpus in a plan, --cpus): parsed strictly, tested, formatted back.
 */
#ifndef IL_IDLE_CPUSET_H
#define IL_IDLE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* A sorted, duplicate-free set of CPU numbers (owned: il_cpuset_release frees it). */
struct il_cpuset {
	int *cpu;
	size_t n;
};

/*
 * Parse kernel CPU list syntax ("0-3,5,7-9", blanks and a final newline
 * allowed; "" is the empty set). Errors say what was wrong in which text.
 */
int il_cpuset_parse(struct il_cpuset *out, const char *s, struct il_err *err);
bool il_cpuset_has(const struct il_cpuset *set, int cpu);
/*
 * Add cpu to a set being built in increasing order (CPUs walked in a
 * snapshot's order): a cpu not above the set's last is ignored, so a repeat
 * is harmless. 0 or IL_ENOMEM.
 */
int il_cpuset_append(struct il_cpuset *set, int cpu);
/* Format back in canonical list syntax into b. */
int il_cpuset_format(const struct il_cpuset *set, struct il_buf *b);
void il_cpuset_release(struct il_cpuset *set);

#endif
