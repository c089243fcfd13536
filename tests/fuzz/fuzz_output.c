// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: every workload output parser (fio, schbench, ebizzy,
 * cyclictest, ...). The first byte picks the parser, the rest is the output.
 */
#include "fuzz.h"
#include "workload/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const *names = il_parse_names();
	size_t n = 0;
	json_t *out = NULL;
	struct il_err err = { 0 };

	if (!size)
		return 0;
	while (names[n])
		n++;
	fuzz_check(il_parse_output(names[data[0] % n], (const char *)data + 1, size - 1, "fuzz", &out, &err));
	json_decref(out);
	return 0;
}
