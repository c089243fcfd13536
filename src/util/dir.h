/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Directory listing: the names of a directory's files of one kind, sorted. */
#ifndef IL_UTIL_DIR_H
#define IL_UTIL_DIR_H

#include "util/err.h"
#include "util/strlist.h"

/* Names of the files "<name><suffix>" in dir, suffix stripped, sorted, appended to out. IL_ENOTFOUND if dir cannot be read. */
int il_dir_names(struct il_strlist *out, const char *dir, const char *suffix, struct il_err *err);

#endif
