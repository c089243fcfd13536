/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why a patch does not apply to a tree, in words a kernel developer acts on
 * before anything is built: each file of the patch that does not apply, with
 * libgit2's reason (the hunk), or that the tree already has the patch's
 * change (its reverse applies), or every line it adds (a later form of it,
 * as a stable tree carries a fix backported in its final shape). And the
 * tree's release as `make kernelversion` prints it, from its Makefile.
 */
#ifndef IL_KERNEL_APPLYCHECK_H
#define IL_KERNEL_APPLYCHECK_H

#include <git2.h>

#include "util/buf.h"

/*
 * Append to why what is wrong with diff (git form, kernel/patchdiff.h) on
 * tree: "already in the base (its reverse applies)", "the lines it adds are
 * already in the base (a later form of it?)", or per file
 * "drivers/x.c: <libgit2's reason>" joined by "; ". IL_ENOMEM.
 */
int il_applycheck_explain(git_repository *repo, git_tree *tree, const char *diff, struct il_buf *why);

/* "6.12.118" from the tree's top Makefile (VERSION, PATCHLEVEL, SUBLEVEL, EXTRAVERSION); "" without one. */
int il_applycheck_kernelversion(git_repository *repo, git_tree *tree, struct il_buf *out);

#endif
