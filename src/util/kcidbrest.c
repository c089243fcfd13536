// SPDX-License-Identifier: GPL-2.0-or-later
/* The kcidb-ng REST submission (util/kcidbrest.h), over util/http.c's one libcurl setup. */
#include "util/kcidbrest.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/clock.h"
#include "util/http.h"
#include "util/str.h"
#include "util/strlist.h"

/* KCIDB_REST split: the base URL without the token (what is shown and requested) and the token. */
struct rest {
	char *base, *token;
};

static bool loopback(const char *host, size_t n)
{
	return (n == 9 && !strncasecmp(host, "localhost", 9)) || (n >= 4 && !strncmp(host, "127.", 4)) ||
	       (n == 5 && !strncmp(host, "[::1]", 5));
}

static int parse_url(const char *url, struct rest *r, struct il_err *err)
{
	const char *sch = url ? strstr(url, "://") : NULL, *auth, *at, *hp, *end, *colon;
	bool https;

	memset(r, 0, sizeof(*r));
	if (!url || !*url)
		return il_err_set(err, IL_EINVAL, "KCIDB_REST is not set: the service as https://TOKEN@host (docs/export.md)");
	if (!sch)
		return il_err_set(err, IL_EINVAL, "KCIDB_REST: expected https://TOKEN@host[:port][/path]");
	https = sch - url == 5 && !strncmp(url, "https", 5);
	if (!https && !(sch - url == 4 && !strncmp(url, "http", 4)))
		return il_err_set(err, IL_EINVAL, "KCIDB_REST: expected an https:// URL");
	auth = sch + 3;
	end = auth + strcspn(auth, "/?#");
	at = memchr(auth, '@', (size_t)(end - auth));
	if (!at || at == auth)
		return il_err_set(err, IL_EINVAL, "KCIDB_REST has no token: expected https://TOKEN@host (KernelCI gives "
				  "each submitter one)");
	hp = at + 1;
	/* the host without its port: plain http only to this machine */
	colon = *hp == '[' ? memchr(hp, ']', (size_t)(end - hp)) : memchr(hp, ':', (size_t)(end - hp));
	if (*hp == '[' && colon)
		colon++;
	if (!https && !loopback(hp, (size_t)((colon ? colon : end) - hp)))
		return il_err_set(err, IL_EINVAL, "KCIDB_REST: plain http only to a loopback address; the service is https");
	r->token = il_str_ndup(auth, (size_t)(at - auth));
	r->base = il_str_dup_printf("%.*s%.*s", (int)(auth - url), url, (int)strlen(hp), hp);
	if (!r->token || !r->base)
		return free(r->token), free(r->base), il_err_oom(err);
	while (strlen(r->base) > (size_t)(auth - url) && r->base[strlen(r->base) - 1] == '/')
		r->base[strlen(r->base) - 1] = 0;
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* One request: *status (0: none came), the answer in ans. A failed transfer is an error only for the caller to judge. */
static int request(const struct rest *r, const char *method, const char *path, const char *body, double left,
		   long *status, struct il_buf *ans, struct il_err *err)
{
	struct il_strlist hdr = { 0 };
	char *url = il_str_dup_printf("%s%s", r->base, path), *auth = il_str_dup_printf("Authorization: Bearer %s", r->token);
	struct il_http_req q = { .url = url, .url_shown = url, .method = method, .body = body, .headers = &hdr,
				 .user_agent = "idlelab", .timeout_s = left < 30 ? (long)left + 1 : 30,
				 .connect_timeout_s = 10, .max_body = 1 << 20 };
	int rc;

	if (!url || !auth || il_strlist_push(&hdr, auth) || il_strlist_push(&hdr, "Content-Type: application/json") ||
	    il_strlist_push(&hdr, "Accept: application/json"))
		rc = il_err_oom(err);
	else
		rc = il_http_perform(&q, status, ans, err);
	il_strlist_release(&hdr);
	free(url);
	free(auth);
	return rc;
}

int il_kcidbrest_submit(const struct il_kcidb_rest *o, const char *body, struct il_buf *id, struct il_err *err)
{
	double t0 = il_clock_mono_s(), limit = o->deadline_s > 0 ? (double)o->deadline_s : 300, wait = 1;
	struct il_buf ans = IL_BUF_INIT;
	struct rest r;
	char *qid = NULL;
	long status = 0;
	int rc;

	if ((rc = parse_url(o->url, &r, err)))
		return rc;
	/* the submission: a 5xx or a failed transfer is tried again while the deadline allows */
	for (;;) {
		struct il_err e = { 0 };
		double left = limit - (il_clock_mono_s() - t0);

		il_buf_reset(&ans);
		rc = request(&r, "POST", "/submit", body, left, &status, &ans, &e);
		if (!rc && status >= 200 && status < 300)
			break;
		if (!rc && status >= 400 && status < 500) {
			rc = status == 401 || status == 403 ?
				     il_err_set(err, IL_EAUTH, "%s/submit refused the token (HTTP %ld): ask KernelCI for a "
							       "submitter token, give it as https://TOKEN@host in KCIDB_REST",
						r.base, status) :
				     il_err_set(err, IL_EINVAL, "%s/submit refused the document (HTTP %ld): %.300s", r.base,
						status, il_buf_str(&ans));
			goto out;
		}
		left = limit - (il_clock_mono_s() - t0);
		if (left <= wait) {
			rc = rc ? il_err_set(err, e.code, "%s (the deadline of %.0f s passed)", e.msg, limit) :
				  il_err_set(err, IL_ETIMEOUT, "%s/submit answered HTTP %ld until the deadline of %.0f s passed",
					     r.base, status, limit);
			goto out;
		}
		sleep_s(wait);
		wait = wait * 2 < 30 ? wait * 2 : 30;
	}
	{
		json_t *a = json_loadb(ans.p ? ans.p : "", ans.len, 0, NULL);
		const char *s = json_string_value(json_object_get(a, "id"));

		if (!s || !*s || strlen(s) > 200) {
			json_decref(a);
			rc = il_err_set(err, IL_EPARSE, "%s/submit answered without a submission id: %.200s", r.base,
					il_buf_str(&ans));
			goto out;
		}
		qid = strdup(s);
		json_decref(a);
		if (!qid || il_buf_adds(id, qid)) {
			rc = il_err_oom(err);
			goto out;
		}
	}
	/* the processing: polled until it ends or the deadline passes */
	for (wait = 1;;) {
		struct il_err e = { 0 };
		double left = limit - (il_clock_mono_s() - t0);
		char *path = il_str_dup_printf("/status?id=%s", qid);
		json_t *a;
		const char *st;

		if (!path) {
			rc = il_err_oom(err);
			goto out;
		}
		il_buf_reset(&ans);
		rc = request(&r, "GET", path, NULL, left, &status, &ans, &e);
		free(path);
		a = !rc && status == 200 ? json_loadb(ans.p ? ans.p : "", ans.len, 0, NULL) : NULL;
		st = json_string_value(json_object_get(a, "status"));
		if (st && (!strcmp(st, "processed") || !strcmp(st, "ready"))) {
			json_decref(a);
			rc = 0;
			goto out;
		}
		if (st && !strcmp(st, "failed")) {
			rc = il_err_set(err, IL_EINVAL, "KCIDB could not process submission %s: %.300s", qid, il_buf_str(&ans));
			json_decref(a);
			goto out;
		}
		json_decref(a);
		if (!rc && (status == 401 || status == 403)) {
			rc = il_err_set(err, IL_EAUTH, "%s/status refused the token (HTTP %ld)", r.base, status);
			goto out;
		}
		left = limit - (il_clock_mono_s() - t0);
		if (left <= wait) {
			rc = il_err_set(err, IL_ETIMEOUT, "KCIDB took submission %s but had not processed it when the deadline "
					"of %.0f s passed (its last answer: %s)", qid, limit,
					st ? st : rc ? e.msg : "not a status");
			goto out;
		}
		sleep_s(wait);
		wait = wait * 2 < 10 ? wait * 2 : 10;
	}
out:
	il_buf_release(&ans);
	free(qid);
	free(r.base);
	free(r.token);
	return rc;
}
