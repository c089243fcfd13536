// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays corpora through a fuzz target without libFuzzer, so every `make
 * check` (also under ASan+UBSan and valgrind) runs them: each file whole and
 * every prefix of it, as a truncated transfer would give.
 *   fuzz_NAME_replay [DIR...]
 * With no DIR: tests/fuzz/corpus/NAME (under $IL_SRCDIR, default .), and for
 * the dump parser the real sysfs captures in tests/fixtures/sysfs too.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/buf.h"

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

int main(int argc, char **argv)
{
	const char *src = getenv("IL_SRCDIR") ? getenv("IL_SRCDIR") : ".";
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int n = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (replay_dir(argv[i], &n))
				return 1;
	} else {
		char name[64], dir[4096];
		size_t len = strlen(base);

		if (strncmp(base, "fuzz_", 5) || len < 12 || strcmp(base + len - 7, "_replay")) {
			fprintf(stderr, "%s: name me fuzz_NAME_replay or give corpus directories\n", argv[0]);
			return 2;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(len - 12), base + 5);
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src, name);
		if (replay_dir(dir, &n))
			return 1;
		snprintf(dir, sizeof(dir), "%s/tests/fixtures/sysfs", src);
		if (!strcmp(name, "dump") && replay_dir(dir, &n))
			return 1;
	}
	printf("replayed %d inputs\n1 passed, 0 failed\n", n);
	return 0;
}
