/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel source trees with libgit2: resolving commits, importing a source
 * tarball as a commit (cached by the tarball's checksum), applying a patch
 * series as one real commit per patch (author, date and message from the
 * mail, a fixed committer, so the ids are stable), and checking a commit out
 * into a build directory touching only the files that differ from what is
 * there (so make rebuilds only what a patch changed).
 */
#ifndef IL_KERNEL_REPO_H
#define IL_KERNEL_REPO_H
#include <stdbool.h>
#include <git2.h>
#include "kernel/series.h"
#include "util/err.h"
#include "util/strlist.h"

/* libgit2 reference counting for the process (init/shutdown pairs). */
void il_repo_git_init(void);
void il_repo_git_shutdown(void);

/* Open a repository at path (error names it). */
int il_repo_open(git_repository **out, const char *path, struct il_err *err);
/* Resolve a revision ("v6.1", "HEAD~2", an id) to a commit. */
int il_repo_resolve(git_repository *repo, const char *rev, git_oid *out, struct il_err *err);

/*
 * Import a .tar(.xz|.gz) source tarball into cache_dir/src/<sha256[:16]>/ (a
 * repository whose work tree is the unpacked source, one top directory
 * stripped) unless already there; *repo_path (caller frees) and the import
 * commit are returned.
 */
int il_repo_import_tarball(const char *tarball, const char *cache_dir, char **repo_path, git_oid *commit,
			   struct il_err *err);

/*
 * Apply patches sel[0..nsel) (1-based indices into s) on top of base, one
 * commit each; out[i] receives the commit after patch sel[i]. Patches that
 * do not apply are one IL_EINVAL naming each, a line a patch (number,
 * subject, the base's commit and release, and why: per file libgit2's
 * reason with the hunk, or that the base already has its change: see
 * kernel/applycheck.h), every later patch still checked on what the ones
 * before it made; nothing is left half-applied (commits are only objects
 * until refs are written by the caller).
 */
int il_repo_apply_series(git_repository *repo, const git_oid *base, const struct il_series *s, const int *sel,
			 size_t nsel, git_oid *out, struct il_err *err);

/* Point refs/idlelab/variants/<name> at commit (keeps it from being pruned). */
int il_repo_set_ref(git_repository *repo, const char *name, const git_oid *commit, struct il_err *err);

/* The tree of a commit. */
int il_repo_tree_of(git_repository *repo, const git_oid *commit, git_oid *tree, struct il_err *err);

/*
 * Make dir hold exactly commit's tree. dir/.idlelab-tree records what is
 * checked out; only files that differ from it are written.
 */
int il_repo_checkout_to(git_repository *repo, const git_oid *commit, const char *dir, struct il_err *err);

/*
 * The commits of good..bad (reachable from bad, not from good), oldest first,
 * as 40-hex strings appended to out: topological order; first_parent follows
 * only first parents (exact for merge-heavy history). IL_EINVAL unless good
 * is a proper ancestor of bad; IL_ENOMEM rather than a range cut short.
 */
int il_repo_range(git_repository *repo, const git_oid *good, const git_oid *bad, bool first_parent,
		  struct il_strlist *out, struct il_err *err);

/*
 * The tip of branch: with remote NULL, the local refs/heads/BRANCH; else
 * BRANCH is fetched from remote (a remote configured in repo) into
 * refs/remotes/REMOTE/BRANCH first (forced, as `git fetch REMOTE BRANCH`
 * would), and that is the tip. Errors name the repository, remote and
 * branch: IL_ENOTFOUND (no such remote or branch), IL_ECONNECT (the fetch).
 */
int il_repo_branch_tip(git_repository *repo, const char *remote, const char *branch, git_oid *out, struct il_err *err);

/*
 * A commit with culprit reverted on top of onto (git revert's tree and
 * message), written to the object database and kept by the reference
 * refs/idlelab/confirm/<culprit's 40 hex>; its author and committer
 * "idlelab <idlelab@localhost>" at onto's commit time, so the same inputs give
 * the same commit (a resumed bisection measures it once). IL_EINVAL when
 * it does not revert cleanly (conflicts), naming the paths.
 */
int il_repo_revert_onto(git_repository *repo, const git_oid *culprit, const git_oid *onto, git_oid *out,
			struct il_err *err);

/* A commit's subject line, sanitized (il_str_sanitize: it is shown and mailed), or NULL. Caller frees. */
char *il_repo_subject(git_repository *repo, const git_oid *commit);

#endif
