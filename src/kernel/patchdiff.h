/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A patch mail's diff in the forms people send it, made into the one form
 * libgit2 parses and applies (git's): git format-patch's own ("diff --git"),
 * plain unified diffs ("--- a/F" and "+++ b/F" without a "diff --git" line:
 * what many maintainers' tools write), quilt's ("Index: F" and "===" lines,
 * paths like linux.orig/F), and diff -up / -Naur headers. Paths are taken as
 * git am takes them (-p1: the first component dropped), timestamps after a
 * tab dropped. Hunks are counted by their headers, so a removed line that
 * reads "--- x" is no file header, and the mail signature ("-- ") ends the
 * diff only outside a hunk.
 */
#ifndef IL_KERNEL_PATCHDIFF_H
#define IL_KERNEL_PATCHDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/strlist.h"

/*
 * Whether a diff starts at the line at s (text up to end): "diff --git ", a
 * "--- "/"+++ "/"@@ " triple, or an "Index: " or "diff -x" header that such
 * a triple follows within a few lines (as git mailinfo breaks a mail there).
 */
bool il_patchdiff_starts(const char *s, const char *end);

/*
 * The diff raw[0..len) (from its first line to the end of the mail) in git's
 * form into out, and each file it touches (the new path; the old one for a
 * deletion) into files, once. 0; IL_ENOMEM (out and files as far as they got).
 */
int il_patchdiff_normalize(const char *raw, size_t len, struct il_buf *out, struct il_strlist *files);

#endif
