/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One validator for every JSON configuration idlelab reads (host files, boot
 * sections, plans, workload definitions, snapshots): a parser declares its
 * object's keys once, as a table of struct il_jfield, and il_jfields_read checks
 * the object against it (type, range, required, unknown keys listed from the
 * table) and stores the values. Every message has one shape:
 *
 *     LABEL: PATH: expected WHAT
 *
 * LABEL names the file (or "plan.json", "hosts/x.json"), PATH is the JSON path
 * of the value ("boot.timeout_s", "workloads[2].params.runtime", "(top level)").
 * Checks a table cannot express go through il_jfields_bad, so they read the same.
 */
#ifndef IL_UTIL_JFIELDS_H
#define IL_UTIL_JFIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "util/err.h"

enum il_jf_type {
	IL_JF_STRING,  /* a non-empty string without NUL bytes; stored as char * (strdup, the caller frees) */
	IL_JF_INT,     /* an integer in [min, max]; stored as int (the range must fit one) */
	IL_JF_INT64,   /* an integer in [min, max]; stored as long long */
	IL_JF_NUMBER,  /* a finite number in [min, max]; stored as double */
	IL_JF_BOOL,    /* true or false; stored as bool */
	IL_JF_STRINGS, /* an array of non-empty strings; stored as struct il_strlist (appended to) */
	IL_JF_OBJECT,  /* an object; stored as const json_t * (borrowed from the document) */
	IL_JF_ARRAY,   /* an array; stored as const json_t * (borrowed) */
	IL_JF_ANY,     /* any value, checked by the caller; stored as const json_t * (borrowed) */
};

struct il_jfield {
	const char *key;
	enum il_jf_type type;
	bool required;       /* absent (or null) is an error: "expected WHAT (required)" */
	bool ranged;         /* IL_JF_INT, IL_JF_INT64, IL_JF_NUMBER: check [min, max] */
	double min, max;
	const char *what;    /* what is expected, when the type's own words are not enough */
	bool store;          /* il_jfields_read stores the value at out + off */
	size_t off;
};

/* Field initialisers, so tables read as declarations. */
#define IL_JF(k, t) { .key = (k), .type = (t) }
#define IL_JF_AT(k, t, st, m) { .key = (k), .type = (t), .store = true, .off = offsetof(st, m) }
#define IL_JF_RANGE(k, t, lo, hi, st, m) \
	{ .key = (k), .type = (t), .ranged = true, .min = (lo), .max = (hi), .store = true, .off = offsetof(st, m) }
#define IL_JF_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/*
 * Check obj against table[0..n) and store the fields that have .store into out
 * (out may be NULL when none has). A null value counts as absent; absent
 * fields leave out untouched (set defaults first). path is obj's JSON path
 * ("" or NULL: the top level). A string stored over a previous one frees it.
 * On error nothing that was stored before the error is undone: release out as
 * usual.
 */
int il_jfields_read(const json_t *obj, const struct il_jfield *table, size_t n, void *out, const char *label,
	       const char *path, struct il_err *err);

/*
 * il_jfields_read where the format's documentation calls its keys something else
 * (plans and workload definitions say "field"): an unknown key is "LABEL:
 * PATH: unknown NOUN (known: ...)". il_jfields_read is noun "key".
 */
int il_jfields_read_as(const json_t *obj, const struct il_jfield *table, size_t n, void *out, const char *label,
		  const char *path, const char *noun, struct il_err *err);

/* The same checks without storing anything. */
int il_jfields_check(const json_t *obj, const struct il_jfield *table, size_t n, const char *label, const char *path,
		struct il_err *err);

/*
 * "LABEL: PATH.KEY: expected WHAT" (key NULL: PATH alone; PATH empty: KEY
 * alone; both empty: "(top level)"). Returns IL_EPARSE.
 */
int il_jfields_bad(struct il_err *err, const char *label, const char *path, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The JSON path of key (or of element idx when key is NULL) below path, into buf. */
const char *il_jfields_path(char *buf, size_t size, const char *path, const char *key, size_t idx);

/* The value of key when it is present and not null, else NULL. */
const json_t *il_jfields_get(const json_t *obj, const char *key);

/* The first object of array arr whose string member key is val; NULL: none (or arr no array). Borrowed. */
json_t *il_jfields_find(const json_t *arr, const char *key, const char *val);

struct il_strlist;

/* l as a JSON array of strings (what IL_JF_STRINGS reads); NULL when memory ran out. The caller owns it. */
json_t *il_jfields_strlist_json(const struct il_strlist *l);

/* v as a JSON number, null when it is not finite (JSON has no NaN); a new reference, NULL when memory ran out. */
json_t *il_jfields_num(double v);

#endif
