/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a JSON file given by a user or found in a directory (plans, host
 * and workload files): regular files only (a FIFO or device planted under a
 * .json name is refused, never waited on), at most 16 MiB, duplicate keys
 * refused, errors as "FILE:LINE:COL: what".
 */
#ifndef IL_UTIL_JSONFILE_H
#define IL_UTIL_JSONFILE_H
#include <jansson.h>
#include "util/err.h"

/* *out (caller decrefs). IL_ENOTFOUND: no such file; IL_EIO: unreadable or not a regular file; IL_EPARSE. */
int il_json_load(const char *path, json_t **out, struct il_err *err);

/*
 * DIR/NAME.json, the way idlelab keeps named configs (hosts/, workloads/);
 * dir may be a search path (util/search.h: the first DIR holding it wins).
 * *path (caller frees) names the file when it was loaded. A missing file is
 * IL_ENOTFOUND "KIND 'NAME': no NOUN 'PATH' (see 'idlelab KIND list')".
 */
int il_json_load_named(const char *dir, const char *name, const char *kind, const char *noun, json_t **out,
		       char **path, struct il_err *err);

#endif
