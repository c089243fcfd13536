/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LAVA job logs (GET /api/v0.2/jobs/N/logs/) and the YAML LAVA puts in its
 * JSON answers (a test's "metadata"), read with libyaml. A log is one YAML
 * sequence, one entry a line: - {"dt": ..., "lvl": ..., "msg": ...}, written
 * by PyYAML in double-quoted flow style, so it is YAML, not JSON (\x1b, \e,
 * \_, \N, \UXXXXXXXX escapes, "! " tags): libyaml reads it as LAVA wrote it.
 * Entries and their strings are borrowed for the callback only; JSON values
 * made here (il_lavalog_yaml_json) are the caller's to json_decref.
 */
#ifndef IL_HOST_LAVALOG_H
#define IL_HOST_LAVALOG_H

#include <stddef.h>

#include <jansson.h>

#include "util/buf.h"
#include "util/err.h"

/* A log entry's "lvl" (lava_common/log.py and the dispatcher's logger). */
enum il_lavalog_lvl {
	IL_LAVALOG_INFO,
	IL_LAVALOG_DEBUG,
	IL_LAVALOG_WARNING,
	IL_LAVALOG_ERROR,
	IL_LAVALOG_EXCEPTION,
	IL_LAVALOG_RESULTS,  /* msg is a mapping: case, definition, result, measurement, units, extra... */
	IL_LAVALOG_TARGET,   /* a line of the device's serial console */
	IL_LAVALOG_INPUT,    /* what LAVA typed on the console */
	IL_LAVALOG_FEEDBACK, /* another namespace's console */
	IL_LAVALOG_OTHER,    /* a level this table does not know: a newer LAVA's; lvl_name says which */
	IL_LAVALOG_NLVLS
};

/* The level's name as LAVA writes it ("target"); "other" for IL_LAVALOG_OTHER. */
const char *il_lavalog_lvl_name(enum il_lavalog_lvl l);

/* One entry, borrowed for the callback's duration. */
struct il_lavalog_entry {
	size_t line;             /* 1-based line of the text it starts on */
	const char *dt;          /* "2026-12-01T15:26:35.633759"; "" when absent */
	enum il_lavalog_lvl lvl;
	const char *lvl_name;    /* as written */
	const char *msg;         /* a scalar msg (may hold NUL bytes: msg_len), else NULL */
	size_t msg_len;
	const json_t *msg_json;  /* a mapping or sequence msg as JSON (scalars as strings), else NULL */
};

/* Called per entry in order; a non-zero return stops the parse and is returned (err is the callback's). */
typedef int (*il_lavalog_fn)(void *ctx, const struct il_lavalog_entry *e, struct il_err *err);

/*
 * Parse the log text[0..len) and call fn for each entry. An empty text (or
 * only blanks) is a log of no entries. Anything else that is not a sequence
 * of {dt, lvl, msg} mappings is IL_EPARSE "LABEL: line N: what" (truncated
 * text, garbage, invalid UTF-8, an entry without lvl or msg). Time and memory
 * are linear in len; nesting deeper than 64 is refused.
 */
int il_lavalog_parse(const char *text, size_t len, il_lavalog_fn fn, void *ctx, const char *label,
		     struct il_err *err);

/*
 * The device's serial console: the msg of every "target" entry, in order,
 * each followed by '\n', appended to out (capped as out is: IL_ETOOBIG).
 */
int il_lavalog_target_text(const char *text, size_t len, struct il_buf *out, const char *label, struct il_err *err);

/*
 * One YAML document (a test's "metadata") as JSON: mappings as objects (keys
 * as strings), sequences as arrays, every scalar a string (as PyYAML with
 * LAVA's loader would give for quoted text; "null" stays the string
 * "null"). An empty document is JSON null. *out is the caller's.
 */
int il_lavalog_yaml_json(const char *text, size_t len, json_t **out, const char *label, struct il_err *err);

#endif
