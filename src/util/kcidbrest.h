/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Submission to KernelCI's database through the kcidb-ng REST service: POST
 * /submit with "Authorization: Bearer TOKEN" and the JSON document, answered
 * 200 {"id": ..., "status": "ok"}; then GET /status?id=ID until it says
 * processed (or ready), failed, or the deadline passes. The service is given
 * as KCIDB_REST is: https://TOKEN@host[:port][/path] (plain http only to a
 * loopback address). The token goes into the header and nowhere else: every
 * message shows the URL without it.
 */
#ifndef IL_UTIL_KCIDBREST_H
#define IL_UTIL_KCIDBREST_H

#include "util/buf.h"
#include "util/err.h"

struct il_kcidb_rest {
	const char *url;          /* KCIDB_REST */
	long deadline_s;          /* the whole submission, retries and polling included; 0: 300 */
};

/*
 * Submit body; the service's submission id into id (appended). 5xx answers
 * and failed transfers are tried again, 1 s, 2 s, 4 s ... apart, within the
 * deadline; a 400 is the service refusing the document (its answer shown),
 * 401 or 403 the token (never shown); a submission not processed by the
 * deadline is IL_ETIMEOUT naming its id.
 */
int il_kcidbrest_submit(const struct il_kcidb_rest *o, const char *body, struct il_buf *id, struct il_err *err);

#endif
