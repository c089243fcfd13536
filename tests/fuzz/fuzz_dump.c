// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the dump parser (`make fuzz`): any input must either
 * parse or fail with IL_EPARSE/IL_ENOMEM, and a parsed snapshot must diff
 * cleanly against itself and encode to JSON.
 */
#include "fuzz.h"
#include "idle/diff.h"
#include "idle/diffjson.h"
#include "idle/snapshotjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct il_snapshot s;
	struct il_diff d;
	struct il_err err = { 0 };
	int r = il_snapshot_parse(&s, (const char *)data, size, "fuzz", &err);

	if (r) {
		if (r != IL_EPARSE && r != IL_ENOMEM)
			abort();
		return 0;
	}
	/* a snapshot against itself is always comparable, valid (no minimums asked) and shows no activity */
	if (il_diff_compute(&d, &s, &s, &err) || d.invalid || (d.total.c[IL_C_USAGE].ok && d.total.c[IL_C_USAGE].v))
		abort();
	json_decref(il_diff_to_json(&d));
	il_diff_release(&d);
	json_decref(il_snapshot_to_json(&s));
	il_snapshot_release(&s);
	return 0;
}
