/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Search paths: directories joined by ':' as in PATH and XDG_DATA_DIRS, the
 * earlier ones shadowing the later ones. Named configs (hosts/NAME.json,
 * workloads/NAME.json) are found through one; a plain directory is a search
 * path of one. The CLI builds them (cli/clipaths.c); the library only reads them.
 */
#ifndef IL_UTIL_SEARCH_H
#define IL_UTIL_SEARCH_H
#include "util/err.h"
#include "util/strlist.h"

/* The separator between a search path's directories. */
#define IL_SEARCH_SEP ':'

/* The directories of search, in order, empty elements left out. out: il_strlist_release. IL_ENOMEM. */
int il_search_split(struct il_strlist *out, const char *search);

/*
 * The first DIR/FILE of search that exists (lstat), into *out (caller frees);
 * *out NULL when none does (returns 0). IL_ENOMEM.
 */
int il_search_find(char **out, const char *search, const char *file);

/*
 * The names of every DIR/NAME.SUFFIX file in search, NAME alone, sorted, each once
 * (the first directory's file is the one that counts; a name whose file root
 * may not trust, util/trust.h, is left out). Appended to out.
 * IL_ENOTFOUND "cannot open directory 'D'" when no directory of search can
 * be opened (one that cannot be, among others that can, is left out); IL_ENOMEM.
 */
int il_search_names(struct il_strlist *out, const char *search, const char *suffix, struct il_err *err);

#endif
