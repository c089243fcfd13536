// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a LAVA job log (GET /api/v0.2/jobs/N/logs/, YAML)
 * through il_lavalog_parse, every entry's fields touched, then the console
 * text; and the same bytes as a test's metadata YAML (il_lavalog_yaml_json).
 */
#include <string.h>

#include "fuzz.h"
#include "host/lavalog.h"

static int touch(void *ctx, const struct il_lavalog_entry *e, struct il_err *err)
{
	size_t *sum = ctx;

	(void)err;
	if ((unsigned)e->lvl >= IL_LAVALOG_NLVLS || !e->lvl_name || !e->dt || !e->msg == !e->msg_json)
		abort();
	*sum += strlen(e->dt) + strlen(e->lvl_name) + e->msg_len + (e->msg_json ? json_is_object(e->msg_json) : 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct il_buf console;
	struct il_err err = { 0 };
	size_t sum = 0;
	json_t *j;
	int r;

	fuzz_check(il_lavalog_parse((const char *)data, size, touch, &sum, "fuzz", &err));
	il_buf_init(&console, 1 << 20);
	r = il_lavalog_target_text((const char *)data, size, &console, "fuzz", &err);
	if (r != IL_ETOOBIG)
		fuzz_check(r);
	il_buf_release(&console);
	r = il_lavalog_yaml_json((const char *)data, size, &j, "fuzz", &err);
	fuzz_check(r);
	if (!r)
		json_decref(j);
	return 0;
}
