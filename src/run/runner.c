// SPDX-License-Identifier: GPL-2.0-or-later
/* Runner script composition and framed output parsing. */
#include "run/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/runners.h"
#include "util/parse.h"
#include "util/str.h"

char *il_runner_sample_script(void)
{
	struct il_buf b = IL_BUF_INIT;

	if (il_buf_printf(&b, "snap() {\n%s\n}\npmqos() {\n%s\n}\n%s\n%s\n%s", il_runners_script("snapshot.sh"),
			  il_runners_script("pmqos.sh"), il_runners_script("own.sh"), il_runners_script("trace.sh"),
			  il_runners_script("sample.sh")))
		il_buf_release(&b);
	return il_buf_detach(&b);
}

bool il_runner_sample_input(char *buf, size_t n, const char *nonce)
{
	return (size_t)snprintf(buf, n, "%s\n", nonce) < n;
}

int il_runner_sample_argv(struct il_strlist *out, const char *id, const struct il_runner_args *a)
{
	char q[64], to[32], nw[32], tk[32];
	size_t nwrites = a->writes ? a->writes->n : 0;
	int r = 0;

	snprintf(q, sizeof(q), "%g", a->quiesce_s > 0 ? a->quiesce_s : 0.0);
	snprintf(to, sizeof(to), "%d", a->timeout_s > 0 ? a->timeout_s : 0);
	snprintf(nw, sizeof(nw), "%zu", nwrites / 2);
	snprintf(tk, sizeof(tk), "%d", a->trace_kb > 0 ? a->trace_kb : 0);
	r |= il_strlist_push(out, id);
	r |= il_strlist_push(out, a->root ? a->root : "");
	r |= il_strlist_push(out, q);
	r |= il_strlist_push(out, a->cpus ? a->cpus : "");
	r |= il_strlist_push(out, a->governor ? a->governor : "");
	r |= il_strlist_push(out, to);
	r |= il_strlist_push(out, a->workdir ? a->workdir : "");
	r |= il_strlist_push(out, tk);
	r |= il_strlist_push(out, nw);
	for (size_t i = 0; i + 1 < nwrites; i += 2) {
		r |= il_strlist_push(out, a->writes->v[i]);
		r |= il_strlist_push(out, a->writes->v[i + 1]);
	}
	r |= il_strlist_push(out, "--");
	for (size_t i = 0; i < a->argv->n; i++)
		r |= il_strlist_push(out, a->argv->v[i]);
	return r ? IL_ENOMEM : 0;
}

void il_runner_out_release(struct il_runner_out *o)
{
	IL_FREE_ALL(o->fail, o->release, o->machine);
	il_buf_release(&o->pre);
	il_buf_release(&o->post);
	il_buf_release(&o->out);
	il_buf_release(&o->err);
	il_buf_release(&o->qos);
	il_buf_release(&o->trace);
	memset(o, 0, sizeof(*o));
}

int il_runner_parse(const char *text, size_t len, const char *nonce, struct il_runner_out *o, struct il_err *err)
{
	const char *p = text, *end = text + len;
	char tag[80];
	size_t tl;
	bool seen_uname = false, seen[6] = { false };

	memset(o, 0, sizeof(*o));
	tl = (size_t)snprintf(tag, sizeof(tag), "@@%s ", nonce);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *kw;
		size_t n;

		if (!nl)
			return il_err_set(err, IL_EPARSE, "runner output ends inside a frame header (connection lost?)");
		n = (size_t)(nl - p);
		if (n < tl || memcmp(p, tag, tl))
			return il_err_set(err, IL_EPARSE, "runner output: unexpected text '%.*s'", (int)(n > 80 ? 80 : n), p);
		kw = p + tl;
		n -= tl;
		p = nl + 1;
		if (n >= 5 && !memcmp(kw, "fail ", 5)) {
			o->fail = il_str_ndup(kw + 5, n - 5);
			return o->fail ? 0 : il_err_oom(err);
		} else if (n >= 6 && !memcmp(kw, "uname ", 6)) {
			const char *sp = memchr(kw + 6, ' ', n - 6);

			if (!sp)
				return il_err_set(err, IL_EPARSE, "runner output: malformed uname frame");
			if (seen_uname)
				return il_err_set(err, IL_EPARSE, "runner output: a second uname frame");
			seen_uname = true;
			o->release = il_str_ndup(kw + 6, (size_t)(sp - kw - 6));
			o->machine = il_str_ndup(sp + 1, (size_t)(kw + n - sp - 1));
		} else if (n >= 7 && !memcmp(kw, "status ", 7)) {
			int64_t st;

			if (il_parse_i64(kw + 7, n - 7, &st) || st < 0 || st > 255)
				return il_err_set(err, IL_EPARSE, "runner output: malformed status frame");
			if (o->has_status)
				return il_err_set(err, IL_EPARSE, "runner output: a second status frame");
			o->has_status = true;
			o->status = (int)st;
		} else if (n == 3 && !memcmp(kw, "end", 3)) {
			o->complete = true;
			if (p != end)
				return il_err_set(err, IL_EPARSE, "runner output: text after the end frame");
		} else {
			static const char *const names[] = { "pre ", "post ", "out ", "err ", "qos ", "trace " };
			struct il_buf *bufs[] = { &o->pre, &o->post, &o->out, &o->err, &o->qos, &o->trace };
			bool found = false;

			for (int i = 0; i < 6 && !found; i++) {
				size_t nl2 = strlen(names[i]);
				uint64_t bytes;

				if (n < nl2 || memcmp(kw, names[i], nl2))
					continue;
				found = true;
				if (seen[i])
					return il_err_set(err, IL_EPARSE, "runner output: a second %.*sframe", (int)nl2, names[i]);
				seen[i] = true;
				o->has_qos |= i == 4;
				o->has_trace |= i == 5;
				if (il_parse_u64(kw + nl2, n - nl2, &bytes))
					return il_err_set(err, IL_EPARSE, "runner output: malformed %.*sframe", (int)nl2, names[i]);
				if (bytes > (uint64_t)(end - p))
					return il_err_set(err, IL_EPARSE,
							  "runner output: %.*sframe announces %llu bytes, %zu arrived (truncated)",
							  (int)nl2, names[i], (unsigned long long)bytes, (size_t)(end - p));
				if (il_buf_add(bufs[i], p, (size_t)bytes))
					return il_err_oom(err);
				p += bytes;
			}
			if (!found)
				return il_err_set(err, IL_EPARSE, "runner output: unknown frame '%.*s'", (int)(n > 40 ? 40 : n), kw);
		}
	}
	if (!o->complete)
		return il_err_set(err, IL_EPARSE, "runner output ends before the end frame (connection lost or runner killed)");
	if (!o->has_status || !o->release)
		return il_err_set(err, IL_EPARSE, "runner output lacks the status or uname frame");
	return 0;
}
