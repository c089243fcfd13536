/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every fuzz target shares: the libFuzzer entry point, and the rule
 * that a parser either accepts its input or refuses it with one of the
 * codes a bad input may give (never another error, a crash, a leak or a hang).
 */
#ifndef IL_FUZZ_H
#define IL_FUZZ_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <jansson.h>

#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort unless r is success or a refusal of bad input. */
static inline void fuzz_check(int r)
{
	if (r && r != IL_EPARSE && r != IL_ENOMEM && r != IL_EINVAL && r != IL_ENOTFOUND)
		abort();
}

/* The input as JSON, or NULL (not JSON: nothing to give the parser). Caller decrefs. */
static inline json_t *fuzz_json(const uint8_t *data, size_t size)
{
	return json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
}

/*
 * For a target that reads a file by name: the input written to NAME in a
 * private directory of this process (mkdtemp), made at the first call and
 * removed, with the file, when the process ends: no fuzz run leaves files
 * behind. Returns the directory; *path gets DIR/NAME. Aborts when the file
 * cannot be written (not a finding of the parser).
 */
struct fuzz_scratch_files {
	char dir[64], path[128];
};

static inline struct fuzz_scratch_files *fuzz_scratch_files(void)
{
	static struct fuzz_scratch_files s;

	return &s;
}

static inline void fuzz_scratch_remove(void)
{
	unlink(fuzz_scratch_files()->path);
	rmdir(fuzz_scratch_files()->dir);
}

static inline const char *fuzz_scratch(const char *name, const uint8_t *data, size_t size, const char **path)
{
	struct fuzz_scratch_files *s = fuzz_scratch_files();
	FILE *f;

	if (!*s->dir) {
		snprintf(s->dir, sizeof(s->dir), "/tmp/idlelab-fuzz.XXXXXX");
		if (!mkdtemp(s->dir))
			abort();
		snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, name);
		atexit(fuzz_scratch_remove);
	}
	if (!(f = fopen(s->path, "w")) || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	*path = s->path;
	return s->dir;
}

/*
 * The whole target for a JSON parser with a writer: r = FROM(&v, json,
 * &err) must pass fuzz_check, and what it accepts is written back with
 * TO_JSON and released with RELEASE.
 */
#define FUZZ_JSON_ROUNDTRIP(T, FROM, TO_JSON, RELEASE)               \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) \
	{                                                             \
		json_t *j = fuzz_json(data, size);                    \
		struct il_err err = { 0 };                            \
		T v;                                                  \
		int r;                                                \
                                                                      \
		if (!j)                                               \
			return 0;                                     \
		r = FROM(&v, j, &err);                                \
		fuzz_check(r);                                        \
		if (!r) {                                             \
			json_decref(TO_JSON(&v));                     \
			RELEASE(&v);                                  \
		}                                                     \
		json_decref(j);                                       \
		return 0;                                             \
	}

#endif
