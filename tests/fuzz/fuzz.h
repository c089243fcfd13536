/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every fuzz target shares: the libFuzzer entry point, and the rule
 * that a parser either accepts its input or refuses it with one of the
 * codes a bad input may give (never another error, a crash, a leak or a hang).
 */
#ifndef IL_FUZZ_H
#define IL_FUZZ_H
#include <stdint.h>
#include <stdlib.h>
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
