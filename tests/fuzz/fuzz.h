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

#endif
