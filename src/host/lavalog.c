// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LAVA's YAML, read through libyaml's event parser: job logs entry by entry
 * (one pass, nothing kept but the entry being read, so a long log costs
 * time and memory linear in its size) and small documents as JSON. What
 * libyaml allocates is freed here; an entry's strings live until the
 * callback returns.
 */
#include "host/lavalog.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "util/str.h"

/* deeper than LAVA ever writes (results' "extra" is two levels); a bound so nesting cannot exhaust the stack */
#define MAX_DEPTH 64

static const char *const lvl_names[IL_LAVALOG_NLVLS] = {
	[IL_LAVALOG_INFO] = "info",
	[IL_LAVALOG_DEBUG] = "debug",
	[IL_LAVALOG_WARNING] = "warning",
	[IL_LAVALOG_ERROR] = "error",
	[IL_LAVALOG_EXCEPTION] = "exception",
	[IL_LAVALOG_RESULTS] = "results",
	[IL_LAVALOG_TARGET] = "target",
	[IL_LAVALOG_INPUT] = "input",
	[IL_LAVALOG_FEEDBACK] = "feedback",
	[IL_LAVALOG_OTHER] = "other",
};

const char *il_lavalog_lvl_name(enum il_lavalog_lvl l)
{
	return (unsigned)l < IL_LAVALOG_NLVLS ? lvl_names[l] : "?";
}

/* an unknown level is not an error: a newer dispatcher may log one, and the entry is still an entry */
static enum il_lavalog_lvl lvl_of(const char *s)
{
	for (int l = 0; l < IL_LAVALOG_OTHER; l++)
		if (!strcmp(s, lvl_names[l]))
			return (enum il_lavalog_lvl)l;
	return IL_LAVALOG_OTHER;
}

/* ---- the event stream ---- */

struct yp {
	yaml_parser_t p;
	yaml_event_t ev;
	bool have;              /* ev holds an event to delete */
	const unsigned char *text;
	size_t len;
	const char *label;
	struct il_err *err;
};

static void yp_open(struct yp *y, const char *text, size_t len, const char *label, struct il_err *err)
{
	memset(y, 0, sizeof(*y));
	yaml_parser_initialize(&y->p);
	yaml_parser_set_input_string(&y->p, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&y->p, YAML_UTF8_ENCODING);
	y->text = (const unsigned char *)text;
	y->len = len;
	y->label = label;
	y->err = err;
}

static void yp_close(struct yp *y)
{
	if (y->have)
		yaml_event_delete(&y->ev);
	yaml_parser_delete(&y->p);
}

/* the 1-based line of a byte offset (reader errors give an offset, not a line) */
static size_t line_at(const struct yp *y, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off && i < y->len; i++)
		line += y->text[i] == '\n';
	return line;
}

static int yp_fail(struct yp *y)
{
	const yaml_parser_t *p = &y->p;

	if (p->error == YAML_MEMORY_ERROR)
		return il_err_oom(y->err);
	if (p->error == YAML_READER_ERROR)
		return il_err_set(y->err, IL_EPARSE, "%s: line %zu: %s", y->label, line_at(y, p->problem_offset),
				  p->problem ? p->problem : "unreadable text");
	return il_err_set(y->err, IL_EPARSE, "%s: line %zu: %s%s%s", y->label, (size_t)p->problem_mark.line + 1,
			  p->problem ? p->problem : "not YAML", p->context ? " " : "", p->context ? p->context : "");
}

static int yp_next(struct yp *y)
{
	if (y->have)
		yaml_event_delete(&y->ev);
	y->have = false;
	if (!yaml_parser_parse(&y->p, &y->ev))
		return yp_fail(y);
	y->have = true;
	return 0;
}

static size_t yp_line(const struct yp *y)
{
	return (size_t)y->ev.start_mark.line + 1;
}

static int yp_bad(struct yp *y, const char *what)
{
	return il_err_set(y->err, IL_EPARSE, "%s: line %zu: expected %s", y->label, yp_line(y), what);
}

/* ---- nodes as JSON ---- */

/* The node whose first event is y->ev, as JSON; on return y->ev is its last event. */
static int node_json(struct yp *y, int depth, json_t **out)
{
	json_t *v = NULL;
	int r = 0;

	*out = NULL;
	if (depth > MAX_DEPTH)
		return yp_bad(y, "nesting at most 64 deep");
	switch (y->ev.type) {
	case YAML_SCALAR_EVENT:
		/* libyaml hands out valid UTF-8 (escapes decoded); \0 is kept, jansson keeps the length */
		if (!(v = json_stringn((const char *)y->ev.data.scalar.value, y->ev.data.scalar.length)))
			return il_err_oom(y->err);
		break;
	case YAML_SEQUENCE_START_EVENT:
		if (!(v = json_array()))
			return il_err_oom(y->err);
		while (!(r = yp_next(y)) && y->ev.type != YAML_SEQUENCE_END_EVENT) {
			json_t *e;

			if ((r = node_json(y, depth + 1, &e)))
				break;
			if (json_array_append_new(v, e)) {
				r = il_err_oom(y->err);
				break;
			}
		}
		break;
	case YAML_MAPPING_START_EVENT:
		if (!(v = json_object()))
			return il_err_oom(y->err);
		while (!(r = yp_next(y)) && y->ev.type != YAML_MAPPING_END_EVENT) {
			char *key;
			json_t *e;

			if (y->ev.type != YAML_SCALAR_EVENT || strlen((const char *)y->ev.data.scalar.value) !=
								       y->ev.data.scalar.length) {
				r = yp_bad(y, "a text mapping key");
				break;
			}
			if (!(key = strdup((const char *)y->ev.data.scalar.value))) {
				r = il_err_oom(y->err);
				break;
			}
			if (!(r = yp_next(y)) && !(r = node_json(y, depth + 1, &e)) && json_object_set_new(v, key, e))
				r = il_err_oom(y->err);
			free(key);
			if (r)
				break;
		}
		break;
	case YAML_ALIAS_EVENT:
		/* PyYAML writes no anchors into LAVA's logs; refusing them rules out alias bombs */
		return yp_bad(y, "no alias (LAVA writes none)");
	default:
		return yp_bad(y, "a value");
	}
	if (r) {
		json_decref(v);
		return r;
	}
	*out = v;
	return 0;
}

/* After the document's node: its end, then the end of the stream. */
static int yp_finish(struct yp *y)
{
	int r;

	if ((r = yp_next(y)))
		return r;
	if (y->ev.type != YAML_DOCUMENT_END_EVENT)
		return yp_bad(y, "the end of the document");
	if ((r = yp_next(y)))
		return r;
	return y->ev.type == YAML_STREAM_END_EVENT ? 0 : yp_bad(y, "one YAML document");
}

int il_lavalog_yaml_json(const char *text, size_t len, json_t **out, const char *label, struct il_err *err)
{
	struct yp y;
	int r;

	*out = NULL;
	yp_open(&y, text, len, label, err);
	if ((r = yp_next(&y)) || (r = yp_next(&y)))
		goto out;
	if (y.ev.type == YAML_STREAM_END_EVENT) {
		*out = json_null();
		goto out;
	}
	if ((r = yp_next(&y)) || (r = node_json(&y, 0, out)) || (r = yp_finish(&y))) {
		json_decref(*out);
		*out = NULL;
	}
out:
	yp_close(&y);
	return r;
}

/* ---- logs ---- */

struct entry {
	char *dt, *lvl, *msg;
	size_t msg_len;
	json_t *msg_json;
};

static void entry_release(struct entry *e)
{
	IL_FREE_ALL(e->dt, e->lvl, e->msg);
	json_decref(e->msg_json);
	memset(e, 0, sizeof(*e));
}

static int scalar_copy(struct yp *y, char **out, size_t *n, const char *key)
{
	char buf[64];

	if (y->ev.type != YAML_SCALAR_EVENT) {
		snprintf(buf, sizeof(buf), "\"%s\" to be a string", key);
		return yp_bad(y, buf);
	}
	/* every byte, NULs too (a console line may hold one): msg_len says how many */
	free(*out);
	if (!(*out = malloc(y->ev.data.scalar.length + 1)))
		return il_err_oom(y->err);
	memcpy(*out, y->ev.data.scalar.value, y->ev.data.scalar.length);
	(*out)[y->ev.data.scalar.length] = '\0';
	if (n)
		*n = y->ev.data.scalar.length;
	return 0;
}

/* One {dt, lvl, msg} mapping (y->ev its start) into e. */
static int entry_read(struct yp *y, struct entry *e)
{
	int r;

	while (!(r = yp_next(y)) && y->ev.type != YAML_MAPPING_END_EVENT) {
		char key[8] = "";
		json_t *skip = NULL;

		if (y->ev.type != YAML_SCALAR_EVENT)
			return yp_bad(y, "a key of a log entry (dt, lvl, msg)");
		il_str_lcpy(key, (const char *)y->ev.data.scalar.value, sizeof(key));
		if ((r = yp_next(y)))
			return r;
		if (!strcmp(key, "dt"))
			r = scalar_copy(y, &e->dt, NULL, "dt");
		else if (!strcmp(key, "lvl"))
			r = scalar_copy(y, &e->lvl, NULL, "lvl");
		else if (!strcmp(key, "msg") && y->ev.type == YAML_SCALAR_EVENT) {
			json_decref(e->msg_json);
			e->msg_json = NULL;
			r = scalar_copy(y, &e->msg, &e->msg_len, "msg");
		} else if (!strcmp(key, "msg")) {
			free(e->msg);
			e->msg = NULL;
			json_decref(e->msg_json);
			r = node_json(y, 1, &e->msg_json);
		} else {
			/* another key (a newer dispatcher's): read past it */
			r = node_json(y, 1, &skip);
			json_decref(skip);
		}
		if (r)
			return r;
	}
	return r;
}

int il_lavalog_parse(const char *text, size_t len, il_lavalog_fn fn, void *ctx, const char *label,
		     struct il_err *err)
{
	struct entry e = { 0 };
	struct yp y;
	int r;

	yp_open(&y, text, len, label, err);
	if ((r = yp_next(&y)) || (r = yp_next(&y)))
		goto out;
	if (y.ev.type == YAML_STREAM_END_EVENT)
		goto out; /* an empty log: the job has not logged yet */
	if ((r = yp_next(&y)))
		goto out;
	if (y.ev.type != YAML_SEQUENCE_START_EVENT) {
		r = yp_bad(&y, "a LAVA log (a sequence of {dt, lvl, msg} entries)");
		goto out;
	}
	while (!(r = yp_next(&y)) && y.ev.type != YAML_SEQUENCE_END_EVENT) {
		struct il_lavalog_entry pub;
		size_t line = yp_line(&y);

		if (y.ev.type != YAML_MAPPING_START_EVENT) {
			r = yp_bad(&y, "a log entry {dt, lvl, msg}");
			goto out;
		}
		if ((r = entry_read(&y, &e)))
			goto out;
		if (!e.lvl || (!e.msg && !e.msg_json)) {
			r = il_err_set(err, IL_EPARSE, "%s: line %zu: expected a log entry with \"lvl\" and \"msg\"", label,
				       line);
			goto out;
		}
		pub = (struct il_lavalog_entry){ .line = line, .dt = e.dt ? e.dt : "", .lvl = lvl_of(e.lvl),
						 .lvl_name = e.lvl, .msg = e.msg, .msg_len = e.msg_len,
						 .msg_json = e.msg_json };
		if ((r = fn(ctx, &pub, err)))
			goto out;
		entry_release(&e);
	}
	if (!r)
		r = yp_finish(&y);
out:
	entry_release(&e);
	yp_close(&y);
	return r;
}

static int add_target(void *ctx, const struct il_lavalog_entry *e, struct il_err *err)
{
	struct il_buf *out = ctx;

	(void)err;
	if (e->lvl != IL_LAVALOG_TARGET || !e->msg)
		return 0;
	il_buf_add(out, e->msg, e->msg_len);
	il_buf_add(out, "\n", 1);
	return 0;
}

int il_lavalog_target_text(const char *text, size_t len, struct il_buf *out, const char *label, struct il_err *err)
{
	int r = il_lavalog_parse(text, len, add_target, out, label, err);

	if (!r && (r = il_buf_error(out)))
		r == IL_ENOMEM ? il_err_oom(err) :
				 il_err_set(err, r, "%s: the console output is larger than %zu bytes", label, out->max);
	return r;
}
