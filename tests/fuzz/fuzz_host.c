// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: a host file (hosts/NAME.json), its boot and power_cycle sections included. */
#include "fuzz.h"
#include "host/inventory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);
	struct il_host_cfg h;
	struct il_err err = { 0 };
	int r;

	if (!j)
		return 0;
	r = il_host_from_json(&h, j, "fuzz", "hosts/fuzz.json", NULL, &err);
	fuzz_check(r);
	if (!r) {
		json_decref(il_host_to_json(&h));
		il_host_release(&h);
	}
	json_decref(j);
	return 0;
}
