// SPDX-License-Identifier: GPL-2.0-or-later
/* SHA-256 through OpenSSL's EVP interface. */
#include "util/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int il_sha256_init(struct il_sha256 *h)
{
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(h->ctx);
		h->ctx = NULL;
		return IL_ENOMEM;
	}
	return 0;
}

void il_sha256_update(struct il_sha256 *h, const void *data, size_t n)
{
	EVP_DigestUpdate(h->ctx, data, n);
}

void il_sha256_final(struct il_sha256 *h, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	for (unsigned int i = 0; i < n && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
}

int il_sha256_file(const char *path, char hex[65], struct il_err *err)
{
	struct il_sha256 h;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return il_err_set(err, IL_EIO, "cannot open '%s': %s", path, strerror(errno));
	if (il_sha256_init(&h)) {
		close(fd);
		return il_err_oom(err);
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		il_sha256_update(&h, buf, (size_t)n);
	il_sha256_final(&h, hex);
	if (n < 0) {
		n = errno;
		close(fd);
		return il_err_set(err, IL_EIO, "cannot read '%s': %s", path, strerror((int)n));
	}
	close(fd);
	return 0;
}
