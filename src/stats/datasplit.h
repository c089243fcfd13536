/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's dataset split by governor: each governor's variants on their own,
 * that governor on the reference's kernel the reference, and its A/A partner
 * the same governor on the same commit booted again. What a patch's tester
 * asks (issue #39): a patched kernel against the same governor on the base,
 * never one governor against another, which the patch has nothing to do with.
 */
#ifndef IL_STATS_DATASPLIT_H
#define IL_STATS_DATASPLIT_H

#include "stats/dataset.h"
#include "util/err.h"

/* One governor's part of a run. */
struct il_dataset_part {
	char *governor;            /* the plan's governor label ("menu"); with its disabled states, "menu -C3" */
	struct il_dataset ds;      /* its variants, reference and A/A partner; the run's meta shared */
};

/*
 * Split src (a run directory's dataset, its run-start record in meta) into
 * *out[0..*n) (caller frees with il_datasplit_parts_release): one part per
 * governor (and disabled states) that was measured on the reference's kernel
 * and on at least one other. *n 0 when the run is no such run (one kernel,
 * or one governor): the caller compares it whole. IL_ENOMEM.
 */
int il_datasplit_by_governor(const struct il_dataset *src, struct il_dataset_part **out, size_t *n, struct il_err *err);
void il_datasplit_parts_release(struct il_dataset_part *p, size_t n);

#endif
