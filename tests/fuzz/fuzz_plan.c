// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: plan.json (with the shipped workload definitions), and its sample matrix. */
#include "fuzz.h"
#include "run/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);
	struct il_plan p;
	struct il_spec *specs = NULL;
	struct il_err err = { 0 };
	size_t n = 0;
	int r;

	if (!j)
		return 0;
	r = il_plan_from_json(&p, j, getenv("IL_WORKLOADS") ? getenv("IL_WORKLOADS") : "workloads", "fuzz", &err);
	fuzz_check(r);
	if (!r) {
		fuzz_check(il_plan_matrix(&p, &specs, &n, &err));
		free(specs);
		il_plan_release(&p);
	}
	json_decref(j);
	return 0;
}
