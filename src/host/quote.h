/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place where an argv vector becomes a shell command string (git's
 * sq_quote_argv): every element is single-quoted, so metacharacters,
 * newlines and quotes arrive literally as one argument each.
 */
#ifndef IL_HOST_QUOTE_H
#define IL_HOST_QUOTE_H

#include "util/buf.h"

/* Append argv (NULL-terminated) to b as a POSIX sh command line. Returns 0 or IL_ENOMEM. */
int il_quote_argv(struct il_buf *b, char *const argv[]);

/*
 * The same for a command shown to a person (a mail's reproduce line, a
 * hint): words of only letters, digits and /._-+=:@,% stay bare, the others
 * are quoted as above; pasted into a shell it is the same argv.
 */
int il_quote_shown(struct il_buf *b, char *const argv[]);

#endif
