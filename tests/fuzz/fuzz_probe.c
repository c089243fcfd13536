// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the audit's one-exec output (probe facts, a dump, the
 * marker line, a second dump) through il_probe_parse_window; whatever
 * parses is judged by the findings engine against the default policy.
 */
#include "fuzz.h"
#include "host/probe.h"
#include "workflow/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct il_snapshot a, b;
	struct il_audit_policy p;
	struct il_audit_host h;
	struct il_err err = { 0 };
	json_t *fp;
	int r = il_probe_parse_window((const char *)data, size, "fuzz", &fp, &a, &b, &err);

	fuzz_check(r);
	if (r)
		return 0;
	if (il_audit_policy_default(&p, &err))
		abort();
	if (il_audit_judge(&h, "fuzz", fp, &a, &b, &p, &err) || !h.reached)
		abort();
	il_audit_host_release(&h);
	il_audit_policy_release(&p);
	json_decref(fp);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	return 0;
}
