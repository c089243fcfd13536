/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel variants of a plan (docs/kernels.md): the "kernels" entries and
 * the plan-wide "build" settings, expanded into named variants, each a real
 * commit: a commit of a local repository, an imported source tarball, or a
 * base plus a patch series (cumulative: base+1, base+1..2, ...).
 */
#ifndef IL_KERNEL_KPLAN_H
#define IL_KERNEL_KPLAN_H
#include <stdbool.h>
#include <git2.h>
#include <jansson.h>
#include "util/err.h"
#include "util/strlist.h"

struct il_kbuild_cfg {
	char *arch;               /* ARCH= (default: this machine's) */
	char *cross_compile;      /* CROSS_COMPILE= prefix, or NULL */
	char *config;             /* a config target (defconfig, allnoconfig, ...) or a file */
	struct il_strlist fragments; /* config fragment files, merged in order */
	struct il_strlist targets;   /* make targets (default: the arch's boot image) */
	struct il_strlist make_args; /* extra VAR=value arguments */
	int jobs;
};

struct il_kvar {
	char *name;
	bool running;             /* the host's running kernel: nothing to build */
	char *repo_path;
	git_oid commit, tree;
	char *lineage;            /* variants of one lineage share one build directory, in order */
	int patch;                /* 0 for a base, k after patch k of its series */
	char *subject;            /* the last patch's subject, or NULL */
	char *origin;             /* where the tree came from (the plan's "origin"; a variant its base's), or NULL */
	struct il_kbuild_cfg cfg;
};

struct il_kvars {
	size_t n;
	struct il_kvar *v;
};

/*
 * Create every variant of plan's kernels (paths relative to plan_dir;
 * fetched threads and imported tarballs cached under cache_dir). Errors
 * name the JSON path ("kernels[2].series.mbox: ...").
 */
int il_kplan_prepare(const json_t *plan, const char *plan_dir, const char *cache_dir, struct il_kvars *out,
		       struct il_err *err);
void il_kplan_vars_release(struct il_kvars *k);
/* k as JSON (the caller owns it); NULL when memory runs out. */
json_t *il_kplan_vars_to_json(const struct il_kvars *k);

#endif
