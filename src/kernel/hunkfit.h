/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where each hunk of a diff goes in the tree it is applied to, found as
 * `git apply` (and so `git am`) finds it: the hunk's preimage (its context
 * and removed lines) matched exactly, first at the line its header states
 * (moved by the offset the file's previous hunk was found at), then at the
 * nearest line above or below. A patch posted for a tree a few commits away
 * from the one it is tried on applies "at an offset"; libgit2 (1.5, as
 * Debian 12 ships it) only tries the stated line, so the diff's hunk headers
 * are rewritten to the lines found before libgit2 applies it. Like git apply
 * without -C, no context is dropped (no fuzz): a hunk whose preimage is
 * nowhere in the file keeps its header and fails as libgit2 says.
 */
#ifndef IL_KERNEL_HUNKFIT_H
#define IL_KERNEL_HUNKFIT_H

#include <git2.h>
#include <stddef.h>

#include "util/buf.h"

/*
 * The git-form diff[0..len) (kernel/patchdiff.h) with each hunk header
 * moved to where its preimage is in tree's file, into out; how many hunks
 * moved into *moved and the largest offset (in lines) into *max_offset
 * (either may be NULL). A file the tree lacks, a new file and a hunk that
 * matches nowhere are copied as they are. 0; IL_ENOMEM.
 */
int il_hunkfit_place(git_repository *repo, git_tree *tree, const char *diff, size_t len, struct il_buf *out,
		     size_t *moved, long *max_offset);

/*
 * diff[0..len) applied to tree in memory (git_apply_to_tree) after
 * il_hunkfit_place: the resulting index into *index (caller frees with
 * git_index_free). 0; IL_ENOMEM; IL_EINVAL when the diff holds a NUL byte
 * or libgit2 does not parse or apply it (git_error_last() says why).
 */
int il_hunkfit_apply(git_repository *repo, git_tree *tree, const char *diff, size_t len, git_index **index);

#endif
