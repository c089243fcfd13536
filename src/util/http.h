/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one HTTP client (libcurl) idlelab uses: the public-inbox fetch
 * (kernel/fetch.c) and the power-cycle hook (host/boot.c). It owns the
 * libcurl setup every request shares: http and https only (also for
 * redirects), redirects only when the request allows them, timeouts, no
 * signals, the response body capped, and the one mapping of libcurl errors
 * to il_err codes (a time-out: IL_ETIMEOUT; anything else: IL_ECONNECT)
 * with the URL shown redacted. Proxies: http_proxy, https_proxy and no_proxy
 * from the environment are honoured by libcurl itself, as before. The mail
 * sender (util/mail.c) shares the setup and the error mapping through
 * il_http_curl_open and il_http_curl_fail, with SMTP as its protocols.
 */
#ifndef IL_UTIL_HTTP_H
#define IL_UTIL_HTTP_H
#include <stdbool.h>
#include <stddef.h>
#include <curl/curl.h>
#include "util/buf.h"
#include "util/err.h"
#include "util/progress.h"
#include "util/strlist.h"

struct il_http_req {
	const char *url;
	const char *url_shown;          /* what messages show (il_http_url_shown); NULL: url */
	const char *method;             /* NULL: GET */
	const char *body;               /* request body; NULL: none (POST and PUT send an empty one) */
	const struct il_strlist *headers; /* "Name: value" lines; NULL: none */
	const char *user_agent;
	long timeout_s;                 /* the whole request; 0: none */
	long connect_timeout_s;         /* 0: libcurl's default */
	long max_redirects;             /* 0: a redirect is not followed (its status is the answer) */
	size_t max_body;                /* response bytes kept (0: no limit) */
	bool abort_over_max;            /* past max_body: true aborts the transfer (an error), false drops the rest */
	il_progress_fn progress;        /* bytes received, about four times a second, and a last report; NULL: none */
	void *progress_ctx;
	/*
	 * Called once, the moment a 2xx status line arrives (before the rest of
	 * the answer): the server took the request. NULL: none.
	 */
	void (*accepted)(void *ctx);
	void *accepted_ctx;
};

/*
 * Make the request; *status is the HTTP status (0 when none came), body (the
 * caller's, appended to) gets the response up to q->max_body. A transfer
 * that fails is "URL_SHOWN: what libcurl says" (or "larger than N MiB" when
 * abort_over_max stopped it); an HTTP status is never an error here.
 */
int il_http_perform(const struct il_http_req *q, long *status, struct il_buf *body, struct il_err *err);

/*
 * A libcurl handle with the setup every idlelab transfer shares: url, only
 * the protocols in protos ("http,https", "smtp,smtps"; redirects too), no
 * signals (idlelab has its own handlers), the timeouts (0: none, libcurl's
 * default), libcurl's words for a failure in ebuf (CURL_ERROR_SIZE bytes).
 * NULL (err set) only when libcurl cannot start; the caller
 * curl_easy_cleanup()s it.
 */
CURL *il_http_curl_open(const char *url, const char *protos, long timeout_s, long connect_timeout_s, char *ebuf,
		   struct il_err *err);

/*
 * The one mapping of a failed transfer to an il_err: "SHOWN: libcurl's words"
 * with IL_ETIMEOUT for a time-out, IL_EAUTH for refused credentials, else
 * IL_ECONNECT. Returns the code.
 */
int il_http_curl_fail(const char *shown, CURLcode cc, const char *ebuf, struct il_err *err);

/*
 * The URL as it may be shown: a password in the userinfo and the query (PDU
 * APIs put tokens there) replaced by "***". Caller frees; NULL only when out
 * of memory.
 */
char *il_http_url_shown(const char *url);

/*
 * The same with the path hidden behind the same three stars too: webhooks (Slack, Discord,
 * Mattermost) carry their secret in the path. Caller frees.
 */
char *il_http_url_shown_nopath(const char *url);

#endif
