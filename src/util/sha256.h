/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 (OpenSSL libcrypto) for transfer checksums. */
#ifndef IL_UTIL_SHA256_H
#define IL_UTIL_SHA256_H

#include <stddef.h>

#include "util/err.h"

struct il_sha256 {
	void *ctx;
};

int il_sha256_init(struct il_sha256 *h);
void il_sha256_update(struct il_sha256 *h, const void *data, size_t n);
/* Finish into hex (65 bytes with NUL) and free the context. */
void il_sha256_final(struct il_sha256 *h, char hex[65]);
/* Checksum of a whole file. */
int il_sha256_file(const char *path, char hex[65], struct il_err *err);

#endif
