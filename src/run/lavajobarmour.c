// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A LAVA job's files read back from its console (run/lavajob.h:
 * il_lavajob_unarmour): the base64 blocks runners/lava-block.sh's il_attach
 * prints between "IDLELAB-BEGIN NAME SHA256 BYTES" and "IDLELAB-END NAME",
 * decoded and checked against the size and hash announced. The other half
 * of the job's format (writing it: run/lavajob.c).
 */
#include "run/lavajob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "util/sha256.h"

static bool b64_line(const char *l)
{
	if (!*l)
		return false;
	for (; *l; l++)
		if (!((*l >= 'A' && *l <= 'Z') || (*l >= 'a' && *l <= 'z') || (*l >= '0' && *l <= '9') || *l == '+' ||
		      *l == '/' || *l == '='))
			return false;
	return true;
}

/* Decode f's collected base64 (in f->data) in place and check it against the announced hash and size. */
static void finish_file(struct il_lavajob_file *f, const char *hash, unsigned long long bytes)
{
	size_t m = f->data.len, pad = 0;
	unsigned char *dec;
	struct il_sha256 h;
	char hex[65];
	int n;

	f->ok = false;
	if (il_buf_error(&f->data)) {
		snprintf(f->why, sizeof(f->why), "%s", il_err_strerror(IL_ENOMEM));
		return;
	}
	if (m % 4) {
		snprintf(f->why, sizeof(f->why), "%zu base64 characters, not a multiple of 4 (lost on the console?)", m);
		return;
	}
	while (pad < 2 && m > pad && f->data.p[m - 1 - pad] == '=')
		pad++;
	if (!(dec = malloc(m / 4 * 3 + 1))) {
		snprintf(f->why, sizeof(f->why), "%s", il_err_strerror(IL_ENOMEM));
		return;
	}
	n = m ? EVP_DecodeBlock(dec, (const unsigned char *)f->data.p, (int)m) : 0;
	if (n < 0) {
		free(dec);
		snprintf(f->why, sizeof(f->why), "not base64");
		return;
	}
	n -= (int)pad; /* EVP_DecodeBlock counts padding as zero bytes */
	il_buf_reset(&f->data);
	il_buf_add(&f->data, dec, (size_t)n);
	free(dec);
	if ((unsigned long long)n != bytes) {
		snprintf(f->why, sizeof(f->why), "%d bytes arrived, %llu were sent", n, bytes);
		return;
	}
	if (il_sha256_init(&h)) {
		snprintf(f->why, sizeof(f->why), "%s", il_err_strerror(IL_ENOMEM));
		return;
	}
	il_sha256_update(&h, f->data.p ? f->data.p : "", f->data.len);
	il_sha256_final(&h, hex);
	if (strcmp(hex, hash)) {
		snprintf(f->why, sizeof(f->why), "SHA-256 %.12s... differs from the one sent (%.12s...)", hex, hash);
		return;
	}
	f->ok = true;
}

int il_lavajob_unarmour(const char *const *lines, size_t nlines, struct il_lavajob_file **files, size_t *n,
			struct il_err *err)
{
	struct il_lavajob_file *v = NULL, *cur = NULL;
	size_t nv = 0;
	char hash[65] = "";
	unsigned long long bytes = 0;

	*files = NULL;
	*n = 0;
	for (size_t i = 0; i < nlines; i++) {
		const char *l = lines[i];
		char name[128], h[65];
		unsigned long long b;
		int used = 0;

		if (!strncmp(l, "IDLELAB-BEGIN ", 14) && sscanf(l + 14, "%127s %64[0-9a-f] %llu%n", name, h, &b, &used) == 3 &&
		    !l[14 + used] && strlen(h) == 64) {
			struct il_lavajob_file *nvp;

			if (cur)
				snprintf(cur->why, sizeof(cur->why), "cut short: the next file began before its end");
			if (!(nvp = realloc(v, (nv + 1) * sizeof(*v))))
				goto oom;
			v = nvp;
			cur = &v[nv++];
			memset(cur, 0, sizeof(*cur));
			if (!(cur->name = strdup(name)))
				goto oom;
			snprintf(hash, sizeof(hash), "%s", h);
			bytes = b;
			continue;
		}
		if (!cur)
			continue;
		if (!strncmp(l, "IDLELAB-END ", 12) && !strcmp(l + 12, cur->name)) {
			finish_file(cur, hash, bytes);
			cur = NULL;
		} else if (b64_line(l)) {
			il_buf_adds(&cur->data, l);
		}
	}
	/*
	 * two complete files of one name: something printed a block of its own (a workload can
	 * write to the console), so neither is trusted, rather than the first one winning
	 */
	for (size_t i = 0; i < nv; i++)
		for (size_t j = i + 1; v[i].ok && j < nv; j++)
			if (v[j].ok && !strcmp(v[i].name, v[j].name)) {
				v[i].ok = v[j].ok = false;
				snprintf(v[i].why, sizeof(v[i].why), "sent twice: another complete file of this name "
								    "came too, so neither is trusted");
				snprintf(v[j].why, sizeof(v[j].why), "%s", v[i].why);
			}
	for (size_t i = 0; i < nv; i++)
		if (!v[i].ok) {
			il_buf_reset(&v[i].data); /* never half a file */
			if (!v[i].why[0])
				snprintf(v[i].why, sizeof(v[i].why), "cut short: its end never came (the job stopped?)");
		}
	*files = v;
	*n = nv;
	return 0;
oom:
	il_lavajob_files_release(v, nv);
	return il_err_oom(err);
}

void il_lavajob_files_release(struct il_lavajob_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].name);
		il_buf_release(&files[i].data);
	}
	free(files);
}
