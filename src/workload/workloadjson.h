/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload definition (workload/workload.h) read from its JSON and validated:
 * errors go through util/jfields ("LABEL: PATH: expected WHAT") and name the
 * file and the JSON path. The directory of definitions is a search path
 * (il_workload_dir).
 */
#ifndef IL_WORKLOAD_WORKLOADJSON_H
#define IL_WORKLOAD_WORKLOADJSON_H
#include <jansson.h>

#include "util/err.h"
#include "util/str.h"
#include "workload/workload.h"

/*
 * Load workloads/<name>.json from dir (il_workload_dir) into *out, which the
 * caller releases (il_workload_release) on success; on error *out holds
 * nothing. out->path: the file it came from.
 */
int il_workload_load(struct il_workload *out, const char *dir, const char *name, struct il_err *err);

/* The same from j (borrowed) already parsed; label names its source in errors. */
int il_workload_from_json(struct il_workload *out, const json_t *j, const char *name, const char *label,
		     struct il_err *err);

/* Definition names in dir, sorted, appended to out (the caller's). */
int il_workload_list(struct il_strlist *out, const char *dir, struct il_err *err);

#endif
