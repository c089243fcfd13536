/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target-side scripts from runners/, embedded into the binary at build
 * time (src/host/embed.awk), so what runs on a host is always the reviewed
 * file. The same table shape holds other embedded scripts (lab/lab.c's).
 */
#ifndef IL_HOST_RUNNERS_H
#define IL_HOST_RUNNERS_H

struct il_runner_src {
	const char *name;   /* file name in runners/, e.g. "snapshot.sh" */
	const char *text;
};

extern const struct il_runner_src il_runner_srcs[];

/* The script text for a runners/ file name, or NULL. Borrowed (static). */
const char *il_runners_script(const char *name);

/* The text of file name in an embedded table (ending with { 0, 0 }), or NULL. Borrowed (static). */
const char *il_runners_embedded(const struct il_runner_src *table, const char *name);

#endif
