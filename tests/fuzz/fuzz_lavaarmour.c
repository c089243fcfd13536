// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: what idlelab reads of a LAVA job of its own making —
 * a job's console lines through il_lavajob_unarmour (files armoured in
 * base64 between IDLELAB-BEGIN and IDLELAB-END, checked by size and
 * SHA-256), and the same bytes as a host's job template through
 * il_lavajob_render (YAML in, YAML out, placeholders expanded).
 */
#include <string.h>

#include "fuzz.h"
#include "run/lavajob.h"
#include "util/strlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *save = NULL;
	struct il_strlist lines = { 0 }, argv = { 0 };
	struct il_lavajob_file *f = NULL;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	size_t n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	{
		char *copy = strdup(text);

		for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
			if (il_strlist_push(&lines, l))
				break; /* memory: what was read so far is still a console to parse */
		fuzz_check(il_lavajob_unarmour((const char *const *)lines.v, lines.n, &f, &n, &err));
		for (size_t i = 0; i < n; i++)
			if (f[i].ok && f[i].data.len && !f[i].data.p)
				abort();
		il_lavajob_files_release(f, n);
		free(copy);
	}
	if (il_strlist_push(&argv, "sleeper")) {
		il_strlist_release(&lines);
		free(text);
		return 0;
	}
	{
		struct il_lavajob_sample s = { .seq = 1, .nonce = "IL00", .case_name = "x", .argv = &argv };
		struct il_lavajob j = { .template_text = text, .template_label = "fuzz", .kernel_url = "file:///k",
					.samples = &s, .nsamples = 1 };

		fuzz_check(il_lavajob_render(&j, &out, &err));
	}
	il_buf_release(&out);
	il_strlist_release(&lines);
	il_strlist_release(&argv);
	free(text);
	return 0;
}
