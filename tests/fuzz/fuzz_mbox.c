// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: a patch series from an mbox (GMime), each version asked for. */
#include "fuzz.h"
#include "kernel/series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct il_series s;
	struct il_err err = { 0 };
	int r;

	for (int v = 0; v <= 2; v++) {
		r = il_series_parse((const char *)data, size, v, "fuzz.mbox", &s, &err);
		fuzz_check(r);
		if (!r) {
			json_decref(il_series_to_json(&s));
			il_series_release(&s);
		}
	}
	return 0;
}
