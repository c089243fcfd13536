/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a JSON file given by a user or found in a directory (plans, host
 * and workload files): regular files only (a FIFO or device planted under a
 * .json name is refused, never waited on), at most 16 MiB, duplicate keys
 * refused, errors as "FILE:LINE:COL: what"; and writing JSON text into a
 * buffer that tells when any of it went missing.
 */
#ifndef IL_UTIL_JSONFILE_H
#define IL_UTIL_JSONFILE_H
#include <jansson.h>
#include "util/buf.h"
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

/*
 * Append j as JSON text (json_dumps's flags) to out. Returns 0, or
 * il_buf_error(out): json_dumps may hand back a document with a key missing
 * when an allocation fails (jansson 2.14's dump of an object key does not
 * check its write), out's sticky failure cannot be lost that way.
 */
int il_json_dump(struct il_buf *out, const json_t *j, size_t flags);

/*
 * json_dumps, whole or NULL (memory; j NULL): the one way idlelab turns JSON
 * into text (src/util/banned.h refuses json_dumps, for the reason above).
 * The caller frees.
 */
IL_MUST_CHECK char *il_json_dumps(const json_t *j, size_t flags);

#endif
