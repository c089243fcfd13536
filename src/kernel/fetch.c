// SPDX-License-Identifier: GPL-2.0-or-later
/* public-inbox thread download (libcurl + zlib) with a Message-ID cache. */
#include "kernel/fetch.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <zlib.h>

#include "util/http.h"
#include "util/sha256.h"
#include "util/trust.h"

#define MAX_THREAD ((size_t)256 << 20)

static int gunzip(const struct il_buf *in, struct il_buf *out, const char *url, struct il_err *err)
{
	z_stream z;
	unsigned char chunk[65536];
	int zr;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return il_err_set(err, IL_ENOMEM, "zlib: cannot initialise");
	z.next_in = (unsigned char *)in->p;
	z.avail_in = (uInt)in->len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			inflateEnd(&z);
			if (zr == Z_BUF_ERROR)
				return il_err_set(err, IL_EPARSE, "%s: the gzip data is truncated (%zu bytes received)", url,
						  in->len);
			return il_err_set(err, IL_EPARSE, "%s: not gzip data (%s)", url, z.msg ? z.msg : "inflate failed");
		}
		if (il_buf_add(out, chunk, sizeof(chunk) - z.avail_out) || out->len > MAX_THREAD) {
			inflateEnd(&z);
			return il_err_set(err, IL_ETOOBIG, "%s: the thread is larger than %zu MiB", url, MAX_THREAD >> 20);
		}
	} while (zr != Z_STREAM_END);
	inflateEnd(&z);
	return 0;
}

/* Message-IDs are mail syntax; only characters safe in a URL path stay unescaped. */
static int url_of(struct il_buf *url, const char *server, const char *msgid)
{
	size_t n = strlen(msgid);
	int r = 0;

	if (n && msgid[0] == '<')
		msgid++, n--;
	if (n && msgid[n - 1] == '>')
		n--;
	r |= il_buf_adds(url, server);
	while (url->len && url->p[url->len - 1] == '/')
		url->p[--url->len] = 0;
	r |= il_buf_adds(url, "/all/");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)msgid[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~@+=", c))
			r |= il_buf_add(url, &msgid[i], 1);
		else
			r |= il_buf_printf(url, "%%%02X", c);
	}
	r |= il_buf_adds(url, "/t.mbox.gz");
	return r;
}

/*
 * Whether mbox holds a message whose Message-ID is id (n bytes, without
 * '<' '>'), the header's name in any case and its value perhaps folded onto
 * the next line: what a cached thread must hold to be the one it is filed as.
 */
static bool mbox_has_id(const char *mbox, size_t len, const char *id, size_t n)
{
	const char *p = mbox, *end = mbox + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *v;

		eol = eol ? eol : end;
		if ((size_t)(eol - p) > 11 && !strncasecmp(p, "message-id:", 11)) {
			v = p + 11;
			while (v < eol && (*v == ' ' || *v == '\t' || *v == '\r'))
				v++;
			if (v == eol && eol < end) { /* folded: the value on the next line */
				const char *e2 = memchr(eol + 1, '\n', (size_t)(end - eol - 1));

				v = eol + 1;
				eol = e2 ? e2 : end;
				while (v < eol && (*v == ' ' || *v == '\t'))
					v++;
			}
			if (v < eol && *v == '<')
				v++;
			if ((size_t)(eol - v) >= n && !memcmp(v, id, n) && (v + n == eol || strchr(">\r \t", v[n])))
				return true;
		}
		p = eol + 1;
	}
	return false;
}

int il_fetch_thread(const char *server, const char *msgid, const char *cache_dir, il_progress_fn progress,
		    void *progress_ctx, struct il_buf *out, struct il_err *err)
{
	struct il_buf url = IL_BUF_INIT, body = IL_BUF_INIT, mbox = IL_BUF_INIT, cpath = IL_BUF_INIT;
	struct il_http_req q = { .user_agent = "idlelab (public-inbox fetch)", .timeout_s = 120, .connect_timeout_s = 15,
				 .max_redirects = 5, .max_body = MAX_THREAD, .abort_over_max = true, .progress = progress,
				 .progress_ctx = progress_ctx };
	char hex[65], why[PATH_MAX + 80];
	long status = 0;
	int r = 0;

	if (!server || !*server || !msgid || !*msgid || strpbrk(msgid, " \t\r\n"))
		return il_err_set(err, IL_EINVAL, "a Message-ID and a server URL are needed (got '%s')", msgid ? msgid : "");
	if (url_of(&url, server, msgid))
		return il_err_oom(err);
	if (cache_dir) {
		struct stat st;
		struct il_sha256 h;

		if (il_sha256_init(&h))
			return il_err_oom(err);
		/* keyed by the bare id: "<x@y>" and "x@y" are the same message */
		il_sha256_update(&h, msgid + (msgid[0] == '<'), strlen(msgid) - (msgid[0] == '<') -
				 (strlen(msgid) > 1 && msgid[strlen(msgid) - 1] == '>'));
		il_sha256_final(&h, hex);
		il_buf_printf(&cpath, "%s/threads/%s.mbox", cache_dir, hex);
		/*
		 * a cached thread becomes the kernel root builds and boots: used only when only root or this
		 * user could have written it and it holds the message it is filed as, else fetched again
		 */
		if (!stat(cpath.p, &st) && il_trust_path(cpath.p, why, sizeof(why)) == 0) {
			size_t at = out->len;
			const char *bare = msgid + (msgid[0] == '<');
			size_t bn = strlen(bare) - (strlen(bare) && bare[strlen(bare) - 1] == '>');

			if ((r = il_buf_read_file(out, cpath.p, MAX_THREAD, err)))
				goto done;
			if (mbox_has_id(out->p + at, out->len - at, bare, bn))
				goto done;
			il_buf_truncate(out, at); /* not the thread it claims to be: fetched again */
		}
	}
	q.url = url.p;
	if ((r = il_http_perform(&q, &status, &body, err)))
		goto done;
	if (status == 404) {
		r = il_err_set(err, IL_ENOTFOUND, "%s: 404, the server has no message '%s'", url.p, msgid);
		goto done;
	}
	if (status != 200) {
		r = il_err_set(err, IL_EIO, "%s: HTTP status %ld", url.p, status);
		goto done;
	}
	if ((r = gunzip(&body, &mbox, url.p, err)))
		goto done;
	if (mbox.len < 5 || strncmp(mbox.p, "From ", 5)) {
		r = il_err_set(err, IL_EPARSE, "%s: the download is not an mbox", url.p);
		goto done;
	}
	if (cache_dir) {
		struct il_buf d = IL_BUF_INIT;

		il_buf_printf(&d, "%s", cache_dir);
		mkdir(d.p, 0755);
		il_buf_adds(&d, "/threads");
		mkdir(d.p, 0755);
		il_buf_release(&d);
		if ((r = il_buf_write_file_atomic(cpath.p, mbox.p, mbox.len, err)))
			goto done;
	}
	r = il_buf_add(out, mbox.p, mbox.len) ? il_err_oom(err) : 0;
done:
	il_buf_release(&url);
	il_buf_release(&body);
	il_buf_release(&mbox);
	il_buf_release(&cpath);
	return r;
}
