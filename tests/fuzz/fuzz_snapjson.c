// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: snapshot JSON (`snapshot --json` files given to diff). */
#include "fuzz.h"
#include "idle/snapjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);
	struct il_snapshot s;
	struct il_err err = { 0 };
	int r;

	if (!j)
		return 0;
	r = il_snapshot_from_json(&s, j, "fuzz", &err);
	fuzz_check(r);
	if (!r) {
		json_decref(il_snapshot_to_json(&s));
		il_snapshot_release(&s);
	}
	json_decref(j);
	return 0;
}
