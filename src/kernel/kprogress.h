/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress of a kernel build: files compiled, counted from kbuild's quiet
 * output ("  CC      kernel/fork.o") as make prints it, out of an estimate
 * from earlier full builds in the same cache (the same .config: that count;
 * another .config of the arch: files per enabled option times its options;
 * nothing yet: a measured default ratio). Every full build records its count.
 */
#ifndef IL_KERNEL_KPROGRESS_H
#define IL_KERNEL_KPROGRESS_H
#include <stdbool.h>
#include <stddef.h>
#include "kernel/build.h"
#include "util/progress.h"

struct il_kprogress {
	const struct il_kvar *v;
	il_kbuild_cb cb;
	void *ctx;
	double t0;             /* il_clock_mono_s() when the whole build started */
	size_t files;          /* compile lines seen */
	size_t yes;            /* options set =y in the .config */
	char key[96];          /* arch + .config hash: the estimate's key */
	struct il_progress p;  /* what cb gets */
	char line[24];         /* start of the current output line */
	size_t len;
};

/*
 * Set kp up for building v with the .config at cfg_path (cfg_hex its
 * SHA-256). An incremental build has no estimate (few files, unknown).
 */
void il_kprogress_init(struct il_kprogress *kp, const struct il_kvar *v, il_kbuild_cb cb, void *ctx, double t0,
		       const char *cache_dir, const char *cfg_path, const char *cfg_hex, bool incremental);

/* The il_proc_watch of the build's make (out_chunk, tick). */
void il_kprogress_chunk(const char *data, size_t n, void *kp);
void il_kprogress_tick(void *kp);
/* The compile step ended: a last report (p.last). */
void il_kprogress_end(struct il_kprogress *kp);

/* A full build ended well: remember its file count for the next estimate (best effort). */
void il_kprogress_record(const struct il_kprogress *kp, const char *cache_dir);

#endif
