/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan workload's parameter matrix (plan.json workloads[i].matrix,
 * docs/plan.md): {"filename": ["/dev/mmcblk1", "/dev/nvme0n1"]} runs the
 * entry once per value -- once per combination when several parameters are
 * given: the cross product, the first parameter varying slowest -- as
 * workloads labelled LABEL-PART[-PART...], where a value's PART is its text,
 * or its last path component for a value with '/' ("/dev/nvme0n1" ->
 * "fio-nvme0n1"). Each expanded workload's params carry its values, and the
 * run-start record keeps {"base": LABEL, "params": {name: value}} so that
 * reports print the matrix parameters as columns (report/views.c).
 * (Not to be confused with il_plan_matrix, the plan's samples in run order.)
 */
#ifndef IL_RUN_PMATRIX_H
#define IL_RUN_PMATRIX_H
#include <stddef.h>
#include <jansson.h>
#include "util/buf.h"
#include "util/err.h"
#include "workload/workload.h"

/* At most this many workloads from one entry's matrix. */
#define IL_PMATRIX_MAX 1000

/*
 * The number of combinations of matrix (NULL: no matrix, 1), checking its
 * shape: an object of non-empty arrays of strings and numbers. Errors name
 * "LABEL: workloads[ENTRY].matrix.NAME[K]".
 */
int il_pmatrix_count(const json_t *matrix, const char *label, size_t entry, size_t *n, struct il_err *err);

/*
 * Check every value of matrix against workload w (type, range, choices),
 * that none repeats, that its label part is a plain word, and that no
 * matrix parameter is also in params (the entry's "params", or NULL).
 */
int il_pmatrix_check(const json_t *matrix, const json_t *params, const struct il_workload *w, const char *label,
		     size_t entry, struct il_err *err);

/*
 * Combination k (0 <= k < il_pmatrix_count) of a checked matrix: *values a
 * new object {name: value} (the caller owns it), and "-PART..." appended to
 * suffix. Returns 0, or IL_ENOMEM.
 */
int il_pmatrix_combo(const json_t *matrix, size_t k, json_t **values, struct il_buf *suffix);

#endif
