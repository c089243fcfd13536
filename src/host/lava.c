// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LAVA hosts: LAVA's REST API v0.2 through util/http.c, with each answer
 * parsed by a function of its own (the host file's "lava" section is
 * lavacfg.c's, the token and its connection lavatoken.c's). Whatever a
 * function returns through a pointer is the caller's (the _release
 * functions, free for submit's ids).
 */
#include "host/lava.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/lavalog.h"
#include "util/http.h"
#include "util/jfields.h"
#include "util/parse.h"
#include "util/str.h"
#include "util/jsonfile.h"

/* ---- names ---- */

static const char *const state_names[IL_LAVA_NSTATES] = {
	[IL_LAVA_SUBMITTED] = "Submitted", [IL_LAVA_SCHEDULING] = "Scheduling", [IL_LAVA_SCHEDULED] = "Scheduled",
	[IL_LAVA_RUNNING] = "Running",     [IL_LAVA_CANCELING] = "Canceling",   [IL_LAVA_FINISHED] = "Finished",
};
static const char *const health_names[IL_LAVA_NHEALTHS] = {
	[IL_LAVA_HEALTH_UNKNOWN] = "Unknown",
	[IL_LAVA_COMPLETE] = "Complete",
	[IL_LAVA_INCOMPLETE] = "Incomplete",
	[IL_LAVA_CANCELED] = "Canceled",
};
static const char *const result_names[IL_LAVA_NRESULTS] = {
	[IL_LAVA_PASS] = "pass",
	[IL_LAVA_FAIL] = "fail",
	[IL_LAVA_SKIP] = "skip",
	[IL_LAVA_UNKNOWN] = "unknown",
};

const char *il_lava_state_name(enum il_lava_state s)
{
	return (unsigned)s < IL_LAVA_NSTATES ? state_names[s] : "?";
}

const char *il_lava_health_name(enum il_lava_health h)
{
	return (unsigned)h < IL_LAVA_NHEALTHS ? health_names[h] : "?";
}

const char *il_lava_result_name(enum il_lava_result r)
{
	return (unsigned)r < IL_LAVA_NRESULTS ? result_names[r] : "?";
}

/* s's index in names[0..n), or -1 */
static int name_index(const char *s, const char *const names[], int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* ---- the answers ---- */

static int load_json(json_t **out, const char *body, size_t len, const char *label, struct il_err *err)
{
	json_error_t je;

	if (!(*out = json_loadb(body, len, 0, &je)))
		return il_err_set(err, IL_EPARSE, "%s: not a JSON answer: %s (line %d)", label, je.text, je.line);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return il_jfields_bad(err, label, NULL, NULL, "a JSON object");
	}
	return 0;
}

/* LAVA's words in body, c's token (c may be NULL) redacted before they are cut to size */
static char *message_of(const char *body, size_t len, const struct il_lava_conn *c)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *m = json_string_value(json_object_get(j, "message"));
	struct il_buf b = IL_BUF_INIT;
	char *s = NULL;

	if (!m)
		m = json_string_value(json_object_get(j, "detail"));
	if (m) {
		il_lava_redact(&b, m, strlen(m), c);
		/* LAVA's message quotes the job's YAML back at times: enough of it to say what is wrong */
		if (!il_buf_error(&b))
			s = il_str_ndup(il_buf_str(&b), strnlen(il_buf_str(&b), 300));
	}
	il_buf_release(&b);
	json_decref(j);
	return s ? il_str_sanitize(s, false) : NULL;
}

char *il_lava_parse_message(const char *body, size_t len)
{
	return message_of(body, len, NULL);
}

/* key's string value into *out; absent and null leave it NULL, another type is an error */
static int opt_string(const json_t *o, const char *key, char **out, const char *label, const char *path,
		      struct il_err *err)
{
	const json_t *v = json_object_get(o, key);

	free(*out);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return il_jfields_bad(err, label, path, key, "a string or null");
	return (*out = il_str_ndup(json_string_value(v), json_string_length(v))) ? 0
									       : il_err_oom(err);
}

static int named(const json_t *o, const char *key, const char *const names[], int n, int *out, const char *label,
		 const char *path, struct il_err *err)
{
	const char *s = json_string_value(json_object_get(o, key));
	struct il_buf what = IL_BUF_INIT;
	int r;

	if ((*out = name_index(s, names, n)) >= 0)
		return 0;
	for (int i = 0; i < n; i++)
		il_buf_printf(&what, "%s%s", i ? ", " : "", names[i]);
	if (s) {
		char *shown = il_str_sanitize(il_str_ndup(s, strnlen(s, 64)), false);

		r = il_jfields_bad(err, label, path, key, "one of %s, not '%s'", il_buf_str(&what), shown ? shown : "");
		free(shown);
	} else
		r = il_jfields_bad(err, label, path, key, "one of %s", il_buf_str(&what));
	il_buf_release(&what);
	return r;
}

void il_lava_job_release(struct il_lava_job *j)
{
	IL_FREE_ALL(j->description, j->actual_device, j->failure_comment, j->submit_time, j->start_time, j->end_time);
	memset(j, 0, sizeof(*j));
}

int il_lava_parse_job(struct il_lava_job *out, const char *body, size_t len, const char *label, struct il_err *err)
{
	json_t *j;
	int r, st, he;

	memset(out, 0, sizeof(*out));
	if ((r = load_json(&j, body, len, label, err)))
		return r;
	if (!json_is_integer(json_object_get(j, "id")) || json_integer_value(json_object_get(j, "id")) <= 0) {
		r = il_jfields_bad(err, label, NULL, "id", "a job id (a positive integer)");
		goto out;
	}
	out->id = (long)json_integer_value(json_object_get(j, "id"));
	/* the job's "token" (the dispatcher's secret for it) is never copied */
	if ((r = named(j, "state", state_names, IL_LAVA_NSTATES, &st, label, NULL, err)) ||
	    (r = named(j, "health", health_names, IL_LAVA_NHEALTHS, &he, label, NULL, err)) ||
	    (r = opt_string(j, "description", &out->description, label, NULL, err)) ||
	    (r = opt_string(j, "actual_device", &out->actual_device, label, NULL, err)) ||
	    (r = opt_string(j, "failure_comment", &out->failure_comment, label, NULL, err)) ||
	    (r = opt_string(j, "submit_time", &out->submit_time, label, NULL, err)) ||
	    (r = opt_string(j, "start_time", &out->start_time, label, NULL, err)) ||
	    (r = opt_string(j, "end_time", &out->end_time, label, NULL, err)))
		goto out;
	out->state = (enum il_lava_state)st;
	out->health = (enum il_lava_health)he;
out:
	json_decref(j);
	if (r)
		il_lava_job_release(out);
	return r;
}

int il_lava_parse_submit(long **ids, size_t *n, const char *body, size_t len, const char *label, struct il_err *err)
{
	const json_t *a;
	json_t *j;
	int r;

	*ids = NULL;
	*n = 0;
	if ((r = load_json(&j, body, len, label, err)))
		return r;
	a = json_object_get(j, "job_ids");
	if (!json_is_array(a) || !json_array_size(a)) {
		r = il_jfields_bad(err, label, NULL, "job_ids", "a non-empty array of job ids");
		goto out;
	}
	if (!(*ids = calloc(json_array_size(a), sizeof(**ids)))) {
		r = il_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *v = json_array_get(a, i);
		char at[32];

		if (!json_is_integer(v) || json_integer_value(v) <= 0) {
			r = il_jfields_bad(err, label, il_jfields_path(at, sizeof(at), "job_ids", NULL, i), NULL,
				      "a job id (a positive integer)");
			free(*ids);
			*ids = NULL;
			goto out;
		}
		(*ids)[i] = (long)json_integer_value(v);
	}
	*n = json_array_size(a);
out:
	json_decref(j);
	return r;
}

void il_lava_tests_release(struct il_lava_tests *t)
{
	for (size_t i = 0; i < t->n; i++)
		IL_FREE_ALL(t->v[i].name, t->v[i].suite, t->v[i].unit);
	IL_FREE_ALL(t->v, t->error_type, t->error_msg);
	memset(t, 0, sizeof(*t));
}

static int meta_string(const json_t *meta, const char *key, char **out, struct il_err *err)
{
	const char *s = json_string_value(json_object_get(meta, key));

	free(*out);
	*out = NULL;
	if (!s)
		return 0;
	return (*out = il_str_sanitize(strdup(s), false)) ? 0 : il_err_oom(err);
}

/* One element of "results" (at path at) into t; the "lava" suite's "job" case gives the job's error. */
static int one_test(struct il_lava_tests *out, const json_t *o, const char *label, const char *at, struct il_err *err)
{
	struct il_lava_test *t = &out->v[out->n];
	const json_t *m = json_object_get(o, "measurement");
	const char *meta = json_string_value(json_object_get(o, "metadata"));
	json_t *mj = NULL;
	char where[96];
	int r, res;

	memset(t, 0, sizeof(*t));
	out->n++;
	if (!json_is_object(o))
		return il_jfields_bad(err, label, at, NULL, "a test case object");
	if (!json_is_string(json_object_get(o, "name")) || !json_string_length(json_object_get(o, "name")))
		return il_jfields_bad(err, label, at, "name", "a test case name");
	if (!(t->name = il_str_sanitize(strdup(json_string_value(json_object_get(o, "name"))), false)))
		return il_err_oom(err);
	if ((r = named(o, "result", result_names, IL_LAVA_NRESULTS, &res, label, at, err)))
		return r;
	t->result = (enum il_lava_result)res;
	/* LAVA keeps a measurement as a decimal, and the API writes it as a string ("7.0000000000") */
	if (json_is_string(m)) {
		if (il_parse_double(json_string_value(m), (size_t)-1, &t->measurement) || !isfinite(t->measurement))
			return il_jfields_bad(err, label, at, "measurement", "a number or null");
		t->has_measurement = true;
	} else if (json_is_number(m)) {
		t->measurement = json_number_value(m);
		t->has_measurement = true;
	} else if (m && !json_is_null(m))
		return il_jfields_bad(err, label, at, "measurement", "a number or null");
	if ((r = opt_string(o, "unit", &t->unit, label, at, err)))
		return r;
	if (!t->unit && !(t->unit = strdup("")))
		return il_err_oom(err);
	il_str_sanitize(t->unit, false);
	if (!meta)
		return 0;
	/* "suite" is the suite's id; its name is the metadata's "definition" */
	if ((r = il_lavalog_yaml_json(meta, strlen(meta), &mj, il_jfields_path(where, sizeof(where), at, "metadata", 0), err)))
		return il_err_prefix(err, "%s: ", label);
	if ((r = meta_string(mj, "definition", &t->suite, err)))
		goto done;
	if (t->suite && !strcmp(t->suite, "lava") && !strcmp(t->name, "job") &&
	    (!(r = meta_string(mj, "error_type", &out->error_type, err))))
		r = meta_string(mj, "error_msg", &out->error_msg, err);
done:
	json_decref(mj);
	return r;
}

int il_lava_parse_tests(struct il_lava_tests *out, bool *more, const char *body, size_t len, const char *label,
			struct il_err *err)
{
	const json_t *a, *next;
	struct il_lava_test *v = NULL;
	json_t *j;
	int r;

	*more = false;
	if ((r = load_json(&j, body, len, label, err)))
		return r;
	a = json_object_get(j, "results");
	next = json_object_get(j, "next");
	if (!json_is_array(a)) {
		r = il_jfields_bad(err, label, NULL, "results", "an array of test cases");
		goto out;
	}
	if (next && !json_is_null(next) && !json_is_string(next)) {
		r = il_jfields_bad(err, label, NULL, "next", "a URL or null");
		goto out;
	}
	if (json_array_size(a) && !(v = realloc(out->v, (out->n + json_array_size(a)) * sizeof(*v)))) {
		r = il_err_oom(err);
		goto out;
	} else if (json_array_size(a))
		out->v = v;
	for (size_t i = 0; !r && i < json_array_size(a); i++) {
		char at[32];

		r = one_test(out, json_array_get(a, i), label, il_jfields_path(at, sizeof(at), "results", NULL, i), err);
	}
	*more = json_is_string(next);
out:
	json_decref(j);
	return r;
}

/* ---- the calls ---- */

#define JSON_MAX (16u << 20) /* a tests page of 1000 cases with their metadata is ~1 MiB */
#define LOG_MAX (256u << 20) /* a log's lines when the caller's buffer has no cap */

/* One request to the API path rel ("jobs/3/"); *shown is the URL for messages (the caller frees). */
static int call(const struct il_lava_conn *c, const char *method, const char *rel, const json_t *body, size_t max,
		bool abort_over_max, long *status, struct il_buf *out, char **shown, struct il_err *err)
{
	static char ctype[] = "Content-Type: application/json";
	char *url = il_str_dup_printf("%s/api/v0.2/%s", c->cfg->url, rel), *text = NULL;
	struct il_strlist headers = { .v = (char *[]){ c->auth, ctype }, .n = body ? 2 : 1 };
	int r;

	*shown = url ? il_http_url_shown(url) : NULL;
	if (!url || !*shown || (body && !(text = il_json_dumps(body, JSON_COMPACT)))) {
		r = il_err_oom(err);
		goto out;
	}
	r = il_http_perform(&(struct il_http_req){ .url = url, .url_shown = *shown, .method = method, .body = text,
						   .headers = &headers, .user_agent = c->user_agent,
						   .timeout_s = c->timeout_s, .connect_timeout_s = 15, .max_body = max,
						   .abort_over_max = abort_over_max },
			    status, out, err);
	if (!r)
		r = il_lava_scrub_body(c, out, err);
out:
	free(text);
	free(url);
	return r;
}

/* An answer that is not the call's success: its status and LAVA's words (never the token). */
static int http_fail(const struct il_lava_conn *c, const char *shown, long status, const struct il_buf *body,
		     struct il_err *err)
{
	char *m = message_of(il_buf_str(body), body->len, c);
	int code = status == 401 || status == 403 ? IL_EAUTH
		   : status == 404		  ? IL_ENOTFOUND
		   : status >= 400 && status < 500 ? IL_EINVAL
						   : IL_EIO;
	int r = il_err_set(err, code, "%s: HTTP %ld: %s", shown, status, m ? m : "not an answer of LAVA's API");

	free(m);
	return r;
}

static json_t *definition(const char *yaml)
{
	return json_pack("{s:s}", "definition", yaml);
}

int il_lava_validate(const struct il_lava_conn *c, const char *yaml, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *body = definition(yaml);
	char *shown = NULL, *m = NULL;
	long status = 0;
	int r;

	if (!body)
		return il_err_oom(err);
	if ((r = call(c, "POST", "jobs/validate/", body, JSON_MAX, true, &status, &b, &shown, err)))
		goto out;
	if (status != 200) {
		r = http_fail(c, shown, status, &b, err);
		goto out;
	}
	/* an invalid definition is a 200 too: only the message tells ("Job invalid: required key not provided") */
	m = message_of(il_buf_str(&b), b.len, c);
	if (!m || strcmp(m, "Job valid."))
		r = il_err_set(err, IL_EINVAL, "%s: %s", shown, m ? m : "not an answer of LAVA's API");
out:
	IL_FREE_ALL(m, shown);
	json_decref(body);
	il_buf_release(&b);
	return il_lava_scrub_err(c, r, err);
}

int il_lava_submit(const struct il_lava_conn *c, const char *yaml, long **ids, size_t *n, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *body = definition(yaml);
	char *shown = NULL;
	long status = 0;
	int r;

	*ids = NULL;
	*n = 0;
	if (!body)
		return il_err_oom(err);
	if (!(r = call(c, "POST", "jobs/", body, JSON_MAX, true, &status, &b, &shown, err)))
		r = status == 201 ? il_lava_parse_submit(ids, n, il_buf_str(&b), b.len, shown, err)
				  : http_fail(c, shown, status, &b, err);
	free(shown);
	json_decref(body);
	il_buf_release(&b);
	return il_lava_scrub_err(c, r, err);
}

int il_lava_job_get(const struct il_lava_conn *c, long id, struct il_lava_job *out, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	char rel[64], *shown = NULL;
	long status = 0;
	int r;

	il_lava_job_release(out);
	snprintf(rel, sizeof(rel), "jobs/%ld/", id);
	if (!(r = call(c, "GET", rel, NULL, JSON_MAX, true, &status, &b, &shown, err)))
		r = status == 200 ? il_lava_parse_job(out, il_buf_str(&b), b.len, shown, err)
				  : http_fail(c, shown, status, &b, err);
	/* another job's state is no answer about this one */
	if (!r && out->id != id) {
		r = il_jfields_bad(err, shown, NULL, "id", "%ld, the job asked for, not %ld", id, out->id);
		il_lava_job_release(out);
	}
	free(shown);
	il_buf_release(&b);
	return il_lava_scrub_err(c, r, err);
}

int il_lava_job_cancel(const struct il_lava_conn *c, long id, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	char rel[64], *shown = NULL;
	long status = 0;
	int r;

	snprintf(rel, sizeof(rel), "jobs/%ld/cancel/", id);
	if (!(r = call(c, "GET", rel, NULL, JSON_MAX, true, &status, &b, &shown, err)) && status != 200)
		r = http_fail(c, shown, status, &b, err);
	free(shown);
	il_buf_release(&b);
	return il_lava_scrub_err(c, r, err);
}

int il_lava_job_logs(const struct il_lava_conn *c, long id, size_t start_line, struct il_buf *out,
		     struct il_err *err)
{
	size_t room = out->max ? (out->max > out->len ? out->max - out->len : 0) : LOG_MAX;
	struct il_buf b = IL_BUF_INIT;
	char rel[96], *shown = NULL;
	long status = 0;
	int r;

	snprintf(rel, sizeof(rel), "jobs/%ld/logs/?start=%zu", id, start_line);
	/* one byte over room tells a log that does not fit from one that just does */
	if ((r = call(c, "GET", rel, NULL, room + 1, false, &status, &b, &shown, err)))
		goto out;
	if (status == 404)
		goto out; /* no line at start_line (yet): see lava.h */
	if (status != 200) {
		r = http_fail(c, shown, status, &b, err);
		goto out;
	}
	if (b.len > room) {
		r = il_err_set(err, IL_ETOOBIG, "%s: the log is larger than %zu bytes", shown, room);
		goto out;
	}
	if ((r = il_buf_add(out, b.p, b.len)))
		il_err_oom(err);
out:
	free(shown);
	il_buf_release(&b);
	return il_lava_scrub_err(c, r, err);
}

int il_lava_job_tests(const struct il_lava_conn *c, long id, struct il_lava_tests *out, struct il_err *err)
{
	bool more = true;
	int r = 0;

	memset(out, 0, sizeof(*out));
	/* offset paging: "next" is an absolute URL in the server's own name, which a proxy in front may not answer */
	for (int page = 0; !r && more; page++) {
		struct il_buf b = IL_BUF_INIT;
		char rel[128], *shown = NULL;
		size_t had = out->n;
		long status = 0;

		snprintf(rel, sizeof(rel), "jobs/%ld/tests/?limit=1000&offset=%zu", id, out->n);
		if (!(r = call(c, "GET", rel, NULL, JSON_MAX, true, &status, &b, &shown, err)))
			r = status == 200 ? il_lava_parse_tests(out, &more, il_buf_str(&b), b.len, shown, err)
					  : http_fail(c, shown, status, &b, err);
		if (!r && more && (out->n == had || page >= 1000))
			r = il_err_set(err, IL_EPARSE, "%s: the pages of test cases do not end", shown);
		free(shown);
		il_buf_release(&b);
	}
	if (r)
		il_lava_tests_release(out);
	return il_lava_scrub_err(c, r, err);
}
