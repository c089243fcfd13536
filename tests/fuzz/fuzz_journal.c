// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a run's journal.jsonl as compare and report read it
 * (record kinds, fields, final records, a torn last line), then the
 * comparison and every table view over whatever it held.
 */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "report/views.h"
#include "stats/compare.h"
#include "stats/dataset.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path, *dir = fuzz_scratch("journal.jsonl", data, size, &path);
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };
	int r;

	(void)path;
	r = il_datajournal_add_run(&ds, dir, NULL, &err);
	fuzz_check(r);
	if (!r && ds.nvar) {
		o.resamples = 50;
		if (!il_compare(&c, &ds, &o, &err)) {
			/* every table view reads the samples' idle JSON as the journal has it */
			for (int v = 0; v < IL_NVIEW; v++) {
				struct il_vout out = { 0 };

				fuzz_check(il_views_build(&c, (enum il_view)v, &out));
				il_vtable_release(&out);
			}
			il_compare_release(&c);
		}
	}
	il_dataset_release(&ds);
	return 0;
}
