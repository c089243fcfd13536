// SPDX-License-Identifier: GPL-2.0-or-later
/* The libcurl adapter: one setup, one error mapping (see http.h). */
#include "util/http.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

static char *shown(const char *url, bool hide_path)
{
	CURLU *h = curl_url();
	char *part = NULL, *out = NULL;

	if (h && !curl_url_set(h, CURLUPART_URL, url, 0)) {
		if (!curl_url_get(h, CURLUPART_PASSWORD, &part, 0) && part)
			curl_url_set(h, CURLUPART_PASSWORD, "***", 0);
		curl_free(part);
		part = NULL;
		if (!curl_url_get(h, CURLUPART_QUERY, &part, 0) && part)
			curl_url_set(h, CURLUPART_QUERY, "***", 0);
		curl_free(part);
		part = NULL;
		if (hide_path && !curl_url_get(h, CURLUPART_PATH, &part, 0) && part && strcmp(part, "/"))
			curl_url_set(h, CURLUPART_PATH, "/***", 0);
		curl_free(part);
		part = NULL;
		if (!curl_url_get(h, CURLUPART_URL, &part, 0))
			out = strdup(part);
		curl_free(part);
	}
	curl_url_cleanup(h);
	return out ? out : strdup("(a URL that libcurl cannot parse)");
}

char *il_http_url_shown(const char *url)
{
	return shown(url, false);
}

char *il_http_url_shown_nopath(const char *url)
{
	return shown(url, true);
}

struct sink {
	const struct il_http_req *q;
	struct il_buf *body;
	size_t got;
	bool over, accepted;
	struct il_progress p;
	double t0, next;
};

static size_t on_data(char *p, size_t sz, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = sz * n, room = s->q->max_body ? s->q->max_body - (s->got < s->q->max_body ? s->got : s->q->max_body)
						    : len;

	s->got += len;
	if (len > room) {
		s->over = true;
		if (s->q->abort_over_max)
			return 0; /* aborts the transfer */
	}
	if (il_buf_add(s->body, p, len < room ? len : room))
		return 0;
	return len;
}

static int on_xfer(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct sink *s = arg;
	double now = il_clock_mono_s();

	(void)ultotal, (void)ulnow;
	if (now < s->next)
		return 0;
	s->next = now + 0.25;
	s->p.done = (double)dlnow;
	s->p.total = (double)dltotal;
	s->p.elapsed_s = now - s->t0;
	s->p.eta_s = il_progress_eta(s->p.done, s->p.total, s->p.elapsed_s);
	s->q->progress(&s->p, s->q->progress_ctx);
	return 0;
}

/* A transfer over the cap, else the shared mapping. */
static int http_fail(const struct il_http_req *q, const struct sink *s, CURLcode cc, const char *cerr, struct il_err *err)
{
	const char *shown = q->url_shown ? q->url_shown : q->url;

	if (s->over && q->abort_over_max)
		return il_err_set(err, IL_ECONNECT, "%s: larger than %zu MiB", shown, q->max_body >> 20);
	return il_http_curl_fail(shown, cc, cerr, err);
}

int il_http_curl_fail(const char *shown, CURLcode cc, const char *ebuf, struct il_err *err)
{
	int code = cc == CURLE_OPERATION_TIMEDOUT ? IL_ETIMEOUT : cc == CURLE_LOGIN_DENIED ? IL_EAUTH : IL_ECONNECT;

	return il_err_set(err, code, "%s: %s", shown, ebuf && ebuf[0] ? ebuf : curl_easy_strerror(cc));
}

CURL *il_http_curl_open(const char *url, const char *protos, long timeout_s, long connect_timeout_s, char *ebuf,
		   struct il_err *err)
{
	CURL *c;

	ebuf[0] = 0;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!(c = curl_easy_init())) {
		il_err_set(err, IL_ENOMEM, "libcurl: cannot start");
		return NULL;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	if (connect_timeout_s)
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_timeout_s);
	if (timeout_s)
		curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, protos);
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, protos);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	return c;
}

/* A status line "HTTP/x 2xx ...": the server took the request; said at once (il_http_req.accepted). */
static size_t on_header(char *p, size_t sz, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = sz * n;

	if (!s->accepted && len > 9 && !memcmp(p, "HTTP/", 5)) {
		const char *sp = memchr(p, ' ', len);

		if (sp && (size_t)(sp - p) + 4 <= len && sp[1] == '2' && sp[2] >= '0' && sp[2] <= '9' && sp[3] >= '0' &&
		    sp[3] <= '9') {
			s->accepted = true;
			s->q->accepted(s->q->accepted_ctx);
		}
	}
	return len;
}

int il_http_perform(const struct il_http_req *q, long *status, struct il_buf *body, struct il_err *err)
{
	struct sink s = { .q = q, .body = body, .p = { .unit = "bytes", .eta_s = -1, .what = q->url_shown ? q->url_shown : q->url },
			  .t0 = il_clock_mono_s() };
	struct curl_slist *hl = NULL;
	char cerr[CURL_ERROR_SIZE] = "";
	const char *method = q->method ? q->method : "GET";
	CURLcode cc;
	CURL *c;
	int r = 0;

	*status = 0;
	if (!(c = il_http_curl_open(q->url, "http,https", q->timeout_s, q->connect_timeout_s, cerr, err)))
		return IL_ENOMEM;
	for (size_t i = 0; q->headers && i < q->headers->n; i++)
		hl = curl_slist_append(hl, q->headers->v[i]);
	if (q->method)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (q->body || !strcmp(method, "POST") || !strcmp(method, "PUT")) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body ? q->body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)(q->body ? strlen(q->body) : 0));
	}
	if (hl)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
	if (q->max_redirects) {
		curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(c, CURLOPT_MAXREDIRS, q->max_redirects);
	}
	if (q->user_agent)
		curl_easy_setopt(c, CURLOPT_USERAGENT, q->user_agent);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	if (q->accepted) {
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
	}
	if (q->progress) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_xfer);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, &s);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (q->progress) {
		s.p.done = (double)body->len;
		s.p.elapsed_s = il_clock_mono_s() - s.t0;
		s.p.last = true;
		q->progress(&s.p, q->progress_ctx);
	}
	if (cc != CURLE_OK)
		r = http_fail(q, &s, cc, cerr, err);
	curl_slist_free_all(hl);
	curl_easy_cleanup(c);
	return r;
}
