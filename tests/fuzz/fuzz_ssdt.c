// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the x86_64 lab's idle tables (hosts/labvm-x86/idle-tables.json), and the SSDT made from each. */
#include "fuzz.h"
#include "lab/ssdt.h"

static int from_json(struct il_ssdt_tables *t, const json_t *j, struct il_err *err)
{
	int r = il_ssdt_tables_from_json(t, j, "fuzz", err);

	if (r)
		il_ssdt_tables_release(t);
	for (size_t i = 0; !r && i < t->n; i++) {
		struct il_buf b = IL_BUF_INIT;

		if (il_ssdt_asl(&t->v[i], 2, &b) || il_ssdt_cmdline(&t->v[i], &b))
			abort();
		il_buf_release(&b);
	}
	return r;
}

FUZZ_JSON_ROUNDTRIP(struct il_ssdt_tables, from_json, il_ssdt_tables_to_json, il_ssdt_tables_release)
