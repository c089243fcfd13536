/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel build's artifacts: what a boot needs, gathered from make's O=
 * directory into the build's artifact directory in the cache (the image,
 * config, System.map, vmlinux.symvers, device trees, modules, the build log),
 * and the manifest that says what was built from what: commit, tree, key,
 * compiler, release, the /proc/version banner the kernel will print. A cache
 * hit (kernel/build.c) is an artifact directory with a manifest.
 */
#ifndef IL_KERNEL_KARTIFACTS_H
#define IL_KERNEL_KARTIFACTS_H
#include <stdbool.h>
#include "kernel/build.h"
#include "util/buf.h"

/* A build whose make went well, as its manifest tells it (all borrowed). */
struct il_kartifacts_build {
	const struct il_kvar *v;
	const char *src, *obj;      /* the source tree and make's O= directory */
	const char *dir;            /* the artifact directory to make */
	struct il_buf *log;         /* the build log: modules_install's is appended, all of it kept as build.log */
	const char *commit_hex, *tree_hex;
	const char *key;            /* the artifact key */
	const char *compiler;       /* the compiler's --version line */
	const char *cfg_hex;        /* SHA-256 of the final .config */
	const char *localversion;
	bool incremental;
};

/*
 * Gather b's artifacts in DIR.tmp, write the manifest (with res->seconds and
 * res->config_skipped) and the log there, then rename it to DIR in one step,
 * so that DIR is always whole. Sets res->release (NULL when the tree says
 * none), res->manifest, res->dir, and res->ok.
 */
int il_kartifacts_gather(const struct il_kartifacts_build *b, struct il_kbuild_res *res, struct il_err *err);

#endif
