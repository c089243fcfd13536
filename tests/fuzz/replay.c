// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays the fuzz corpus (and the sysfs fixtures) through the fuzz target
 * without libFuzzer, so every `make check` (also under ASan) runs them.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_dir(const char *dir, int *n)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "cannot open %s\n", dir);
		return 1;
	}
	while ((de = readdir(d))) {
		char path[4096];
		struct il_buf b = IL_BUF_INIT;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (il_buf_read_file(&b, path, 0, NULL) == 0) {
			/* every prefix of the input, as a truncated transfer would give */
			for (size_t cut = 0; cut <= b.len; cut += 1 + b.len / 64)
				LLVMFuzzerTestOneInput((const uint8_t *)il_buf_str(&b), cut);
			LLVMFuzzerTestOneInput((const uint8_t *)il_buf_str(&b), b.len);
			(*n)++;
		}
		il_buf_release(&b);
	}
	closedir(d);
	return 0;
}

int main(void)
{
	const char *src = getenv("IL_SRCDIR");
	char a[4096], b[4096];
	int n = 0;

	snprintf(a, sizeof(a), "%s/tests/fuzz/corpus", src ? src : ".");
	snprintf(b, sizeof(b), "%s/tests/fixtures/sysfs", src ? src : ".");
	if (replay_dir(a, &n) || replay_dir(b, &n))
		return 1;
	printf("replayed %d inputs\n1 passed, 0 failed\n", n);
	return 0;
}
