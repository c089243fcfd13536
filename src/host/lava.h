/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LAVA hosts (Linaro's lab scheduler, REST API v0.2 as in LAVA 2023.01): the
 * API token file and the REST calls idlelab makes (validate, submit, a job's
 * state, its tests, its log, cancel), all through util/http.h; the host
 * file's "lava" section is host/lavacfg.h's. Each answer's parsing is a function of its own
 * (il_lava_parse_*), so it is tested on captured answers without a server.
 * struct il_lava_cfg, struct il_lava_job and struct il_lava_tests own their
 * strings (their _release); struct il_lava_conn owns the token and wipes it
 * on release. The token is never put in a message or an output, not even
 * when a server's answer carries it back.
 */
#ifndef IL_HOST_LAVA_H
#define IL_HOST_LAVA_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "host/lavacfg.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/paths.h"

/* ---- the token ---- */

/*
 * The API token in path: a regular file owned by the effective uid, neither
 * readable nor writable by group or others (as ssh wants of a private key:
 * "PATH: permissions 0644 are too open ..."); its first line, blanks around
 * it stripped, non-empty, printable ASCII without blanks. *tok is the
 * caller's to wipe and free. Errors name the file, never what is in it:
 * IL_ENOTFOUND, IL_EPERM (owner, mode), IL_EINVAL (not a regular file),
 * IL_EPARSE (content), IL_EIO.
 */
int il_lava_token_read(const char *path, char **tok, struct il_err *err);

/* ---- the REST API ---- */

/* A job's state and health (lava_scheduler_app.models.TestJob). */
enum il_lava_state {
	IL_LAVA_SUBMITTED,
	IL_LAVA_SCHEDULING,
	IL_LAVA_SCHEDULED,
	IL_LAVA_RUNNING,
	IL_LAVA_CANCELING,
	IL_LAVA_FINISHED,
	IL_LAVA_NSTATES
};
enum il_lava_health {
	IL_LAVA_HEALTH_UNKNOWN, /* LAVA's "Unknown": not finished yet */
	IL_LAVA_COMPLETE,
	IL_LAVA_INCOMPLETE,
	IL_LAVA_CANCELED,
	IL_LAVA_NHEALTHS
};
/* A test case's result (lava_results_app.models.TestCase). */
enum il_lava_result { IL_LAVA_PASS, IL_LAVA_FAIL, IL_LAVA_SKIP, IL_LAVA_UNKNOWN, IL_LAVA_NRESULTS };

/* The names LAVA's API uses ("Running", "Incomplete", "pass"). */
const char *il_lava_state_name(enum il_lava_state s);
const char *il_lava_health_name(enum il_lava_health h);
const char *il_lava_result_name(enum il_lava_result r);

/* A connection: the configuration (borrowed) and the token read from its file. */
struct il_lava_conn {
	const struct il_lava_cfg *cfg;
	char *auth;                /* the "Authorization: Token ..." header; wiped on release */
	const char *user_agent;
	long timeout_s;            /* each request (default 60) */
};

/* Read cfg's token file (il_lava_token_read) into c; cfg must outlive c. */
int il_lava_conn_open(struct il_lava_conn *c, const struct il_lava_cfg *cfg, struct il_err *err);
/* Wipe the token and free what c holds. */
void il_lava_conn_release(struct il_lava_conn *c);

/*
 * The token in what a server says (lavatoken.c): the calls below run every
 * answer's body through il_lava_scrub_body before anything parses it, and
 * their error through il_lava_scrub_err, so an answer that echoes the token
 * (an error page, a log) never puts it in a message, a log or the journal.
 * The token shows as "<token>".
 */
/* s[0..len) appended to out, c's token redacted (c may be NULL); il_buf_error(out) says whether it failed. */
void il_lava_redact(struct il_buf *out, const char *s, size_t len, const struct il_lava_conn *c);
/* b's every raw occurrence of c's token redacted: 0, or IL_ENOMEM with b as it was. */
int il_lava_scrub_body(const struct il_lava_conn *c, struct il_buf *b, struct il_err *err);
/* Returns r; when r is an error, c's token redacted from err's message (starred out without memory). */
int il_lava_scrub_err(const struct il_lava_conn *c, int r, struct il_err *err);

struct il_lava_job {
	long id;
	enum il_lava_state state;
	enum il_lava_health health;
	char *description;     /* the job's name; NULL when none */
	char *actual_device;   /* NULL until scheduled */
	char *failure_comment; /* NULL when none */
	char *submit_time, *start_time, *end_time; /* as LAVA writes them ("2026-12-01T15:26:31.943522Z"); NULL when not yet */
};
void il_lava_job_release(struct il_lava_job *j);

struct il_lava_test {
	char *name;
	char *suite;           /* the suite's name (the metadata's "definition": "lava", "0_NAME"); NULL when not said */
	enum il_lava_result result;
	bool has_measurement;
	double measurement;
	char *unit;            /* "" when none */
};

/* A job's test cases, and why the job failed when it did (the "lava" suite's "job" case). */
struct il_lava_tests {
	struct il_lava_test *v;
	size_t n;
	char *error_type;      /* "Infrastructure", "Job", "Test", "Bug", "Configuration", "LAVATimeout"...; NULL: none */
	char *error_msg;       /* NULL: none */
};
void il_lava_tests_release(struct il_lava_tests *t);

/*
 * The calls. Errors name the URL (il_http_url_shown), the HTTP status and
 * LAVA's "message" or "detail": IL_EAUTH (401, 403), IL_ENOTFOUND (404),
 * IL_EINVAL (another 4xx; a definition LAVA refuses), IL_EIO (5xx and
 * others), IL_EPARSE (an answer that is not what the API gives), and
 * il_http_perform's (IL_ECONNECT, IL_ETIMEOUT; each request within
 * c->timeout_s, which the caller may change between calls). The token is
 * redacted from each answer and each error (il_lava_scrub_body, _err).
 */
/* POST jobs/validate/: 0 when LAVA says "Job valid.", else IL_EINVAL with LAVA's message. */
int il_lava_validate(const struct il_lava_conn *c, const char *yaml, struct il_err *err);
/* POST jobs/: the new job ids (a multinode job has several) in *ids (the caller frees), *n of them. */
int il_lava_submit(const struct il_lava_conn *c, const char *yaml, long **ids, size_t *n, struct il_err *err);
/* GET jobs/ID/ into out (released first, so it may be reused between polls); another job's answer is IL_EPARSE. */
int il_lava_job_get(const struct il_lava_conn *c, long id, struct il_lava_job *out, struct il_err *err);
/* GET jobs/ID/cancel/. */
int il_lava_job_cancel(const struct il_lava_conn *c, long id, struct il_err *err);
/*
 * GET jobs/ID/logs/?start=START_LINE: the log's lines from start_line
 * (0-based) appended to out (the caller's cap; IL_ETOOBIG past it). LAVA
 * answers 404 when there is no line at start_line yet (or no log yet): that
 * is no lines, not an error, so polling from the last line seen works.
 */
int il_lava_job_logs(const struct il_lava_conn *c, long id, size_t start_line, struct il_buf *out,
		     struct il_err *err);
/* GET jobs/ID/tests/ (every page) into out. */
int il_lava_job_tests(const struct il_lava_conn *c, long id, struct il_lava_tests *out, struct il_err *err);

/*
 * The answers' parsers (label names the source in errors). An unknown state,
 * health or result is IL_EPARSE naming it: idlelab would rather stop than
 * take a new state of a newer LAVA for finished or not.
 */
int il_lava_parse_job(struct il_lava_job *out, const char *body, size_t len, const char *label, struct il_err *err);
int il_lava_parse_submit(long **ids, size_t *n, const char *body, size_t len, const char *label, struct il_err *err);
/* One page of jobs/ID/tests/, appended to out; *more: the API has a next page. */
int il_lava_parse_tests(struct il_lava_tests *out, bool *more, const char *body, size_t len, const char *label,
			struct il_err *err);
/* LAVA's words in an error answer ("message", else "detail"), sanitized; NULL when it has none. The caller frees. */
char *il_lava_parse_message(const char *body, size_t len);

#endif
