// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: a workload definition, then its default parameters, argv and bound metrics. */
#include "fuzz.h"
#include "util/strlist.h"
#include "workload/workload.h"
#include "workload/workloadjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size), *params = NULL;
	struct il_workload w;
	struct il_strlist argv = { 0 };
	struct il_err err = { 0 };
	int r;

	if (!j)
		return 0;
	r = il_workload_from_json(&w, j, "fuzz", "workloads/fuzz.json", &err);
	fuzz_check(r);
	if (!r) {
		if (!il_workload_params(&w, NULL, "fuzz", &params, &err)) {
			fuzz_check(il_workload_argv(&w, params, &argv, &err));
			fuzz_check(il_workload_bind_metrics(&w, params, "fuzz", &err));
			il_strlist_release(&argv);
			json_decref(params);
		}
		il_workload_release(&w);
	}
	json_decref(j);
	return 0;
}
