// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: LAVA's JSON answers (a job, a page of its tests with
 * their metadata YAML, a submission, an error message) through the
 * il_lava_parse_* functions; whatever parses is released.
 */
#include "fuzz.h"
#include "host/lava.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct il_lava_job job;
	struct il_lava_tests tests = { 0 };
	struct il_err err = { 0 };
	bool more;
	long *ids;
	size_t n;
	int r;

	r = il_lava_parse_job(&job, text, size, "fuzz", &err);
	fuzz_check(r);
	if (!r) {
		if ((unsigned)job.state >= IL_LAVA_NSTATES || (unsigned)job.health >= IL_LAVA_NHEALTHS)
			abort();
		il_lava_job_release(&job);
	}
	fuzz_check(il_lava_parse_tests(&tests, &more, text, size, "fuzz", &err));
	for (size_t i = 0; i < tests.n; i++)
		if (tests.v[i].name && (unsigned)tests.v[i].result >= IL_LAVA_NRESULTS)
			abort();
	il_lava_tests_release(&tests);
	r = il_lava_parse_submit(&ids, &n, text, size, "fuzz", &err);
	fuzz_check(r);
	if (!r)
		free(ids);
	free(il_lava_parse_message(text, size));
	return 0;
}
