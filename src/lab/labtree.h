/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel tree a lab builds (lab build/up --tree SPEC): a Debian
 * linux-source version ("6.1", "6.12": /usr/src/linux-source-V.tar.xz), a
 * kernel tarball, or a git repository and revision (DIR or DIR@REV). What it
 * was is kept with the running instance (state.json "kernel"): its release,
 * the git repository its source is in (an imported tarball's in the kernel
 * cache) and that commit, so that `try` without --repo and every later boot
 * use the same tree, and a reply can say where the tree came from.
 */
#ifndef IL_LAB_LABTREE_H
#define IL_LAB_LABTREE_H
#include <stdbool.h>
#include <jansson.h>
#include "util/err.h"

/* The lab's default tree: Debian's linux-source package of this version. */
#define IL_LAB_TREE_DEFAULT "6.12"

enum il_lab_tree_kind { IL_LAB_TREE_DEBIAN, IL_LAB_TREE_TARBALL, IL_LAB_TREE_REPO };

struct il_lab_tree {
	enum il_lab_tree_kind kind;
	char *spec;    /* as given (the default when none was) */
	char *path;    /* DEBIAN, TARBALL: the tarball; REPO: the repository (absolute) */
	char *rev;     /* REPO: the revision; NULL: HEAD */
	char *tag;     /* in names (the kernel's, the lab build's directory): "6.12", "linux-6.13-rc1", "tree-1a2b3c4d" */
	char *origin;  /* for a reader: "Debian linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz)" */
};

/*
 * Parse SPEC (NULL or "": the default). IL_EINVAL names what SPEC was
 * expected to be; a Debian version whose package is not installed is no
 * error here (il_lab_tree_check says so when a build needs it). Release
 * with il_lab_tree_release.
 */
int il_lab_tree_parse(struct il_lab_tree *out, const char *spec, struct il_err *err);
void il_lab_tree_release(struct il_lab_tree *t);

/* Is the tree there to build? IL_ENOTFOUND with the package to install, or the path that is missing. */
int il_lab_tree_check(const struct il_lab_tree *t, struct il_err *err);

/* The plan's kernel entry that builds it: {"name": NAME, "tarball": ...} or {"name", "repo", "commit"}; caller owns. */
json_t *il_lab_tree_kernel_json(const struct il_lab_tree *t, const char *name);

/* True for a tree spec that is the default (NULL, "", IL_LAB_TREE_DEFAULT). */
bool il_lab_tree_is_default(const char *spec);

/*
 * The tree of a running lab instance, as its state.json keeps it: {"spec",
 * "origin", "name" (the lab kernel's), "release", "repo", "commit",
 * "config_skipped"}; *out is NULL (and 0 returned) for an instance brought up
 * before labs kept it. Caller owns.
 */
int il_lab_tree_of(const char *cache_dir, const char *instance, json_t **out, struct il_err *err);

#endif
