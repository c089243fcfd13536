/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Out-of-tree kernel builds with a cache. The artifact key is (tree id, final
 * .config, arch, compiler version, targets, make arguments); a hit builds
 * nothing. Variants of one lineage share a source checkout and an O=
 * directory, built in order, so each step after the first is incremental.
 * LOCALVERSION carries the variant's commit id, so a booted kernel can prove
 * which build it is (uname -r, /proc/version).
 */
#ifndef IL_KERNEL_BUILD_H
#define IL_KERNEL_BUILD_H
#include <stdbool.h>
#include <jansson.h>
#include "kernel/kplan.h"
#include "util/progress.h"

struct il_kbuild_res {
	bool cached;           /* the artifact was there: nothing built */
	bool ok;               /* false: the build failed, the variant is untestable */
	double seconds;
	char *dir;             /* artifact directory (ok) */
	char *release;         /* kernel release (uname -r of the built kernel) */
	char *log_tail;        /* last 40 log lines (failed builds) */
	json_t *manifest;
	/* fragment options the tree does not have, skipped (kernel/kconfig.h): "CONFIG_X=y (FRAGMENT)" */
	struct il_strlist config_skipped;
};

enum il_kbuild_step { IL_KB_CHECKOUT, IL_KB_CONFIG, IL_KB_BUILD, IL_KB_COMPILING, IL_KB_INSTALL, IL_KB_DONE };
/*
 * Steps as they start; IL_KB_COMPILING about every second while make runs
 * (p->done files compiled of p->total, an estimate; p->last when make ends).
 * p->elapsed_s is always the time since the build started.
 */
typedef void (*il_kbuild_cb)(const struct il_kvar *v, enum il_kbuild_step step, const struct il_progress *p,
			     void *ctx);

/* "checkout", "config", "build", "compiling", "artifacts", "done" */
const char *il_kernel_build_step_name(enum il_kbuild_step step);

/*
 * Build v. A failed compile is not an error of this call (res->ok false, the
 * log tail kept); errors are for what stops idlelab itself (no repository, a
 * config option that could not be set: the error names it).
 */
int il_kernel_build(const struct il_kvar *v, const char *cache_dir, il_kbuild_cb cb, void *ctx,
		    struct il_kbuild_res *res, struct il_err *err);
void il_kernel_build_res_release(struct il_kbuild_res *r);

/* Artifacts in the cache (manifests), as JSON: *out is the caller's (NULL after an error). */
int il_kernel_build_list(const char *cache_dir, json_t **out, struct il_err *err);

#endif
