/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fetching a mail thread by Message-ID from a public-inbox server over HTTP
 * (libcurl): {server}/all/{message-id}/t.mbox.gz, gunzipped with zlib,
 * cached by Message-ID so a series is downloaded once.
 */
#ifndef IL_KERNEL_FETCH_H
#define IL_KERNEL_FETCH_H
#include "util/buf.h"
#include "util/err.h"
#include "util/progress.h"

/*
 * Append the thread's mbox to out. server is a base URL ("https://lore.kernel.org");
 * msgid with or without <>. cache_dir NULL: no cache. Errors name the URL:
 * HTTP status (404: no such message), a truncated or non-gzip body, not an mbox.
 * progress (may be NULL) sees the bytes received about four times a second.
 */
int il_fetch_thread(const char *server, const char *msgid, const char *cache_dir, il_progress_fn progress,
		    void *progress_ctx, struct il_buf *out, struct il_err *err);

#endif
