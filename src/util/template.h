/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one template syntax of idlelab's argv templates (workload argv, boot
 * and power-cycle commands): "{name}" anywhere in a string stands for name's
 * value, "{{" and "}}" are a literal brace, a lone "}" is itself. A template
 * is one argv element and stays one: values are pasted as text, never split
 * or re-read. Names are checked when the template is read (il_template_check, or
 * il_template_check_names for a fixed list) and looked up through a callback when
 * it is expanded. Nothing here allocates except into the caller's il_buf.
 */
#ifndef IL_UTIL_TEMPLATE_H
#define IL_UTIL_TEMPLATE_H
#include <stdbool.h>
#include <stddef.h>
#include "util/buf.h"
#include "util/err.h"

/* The longest placeholder name. */
#define IL_TPL_NAME_MAX 63

/*
 * Checks one placeholder of s: whole is true when s is exactly "{name}".
 * Returns 0, or an error it set in err (the caller's words: "unknown
 * parameter", ...).
 */
typedef int (*il_tpl_name_fn)(void *ctx, const char *s, const char *name, bool whole, struct il_err *err);

/* Appends name's value to out; returns 0 or an error it set in err. */
typedef int (*il_tpl_value_fn)(void *ctx, const char *name, struct il_buf *out, struct il_err *err);

/*
 * Check template s: every placeholder goes through check. A "{" never closed
 * (or a name longer than IL_TPL_NAME_MAX) is "LABEL: PATH: 'S': unclosed
 * placeholder (write {{ for a literal brace)".
 */
int il_template_check(const char *s, il_tpl_name_fn check, void *ctx, const char *label, const char *path,
		 struct il_err *err);

/*
 * Check s against a fixed NULL-terminated list of names: an unknown one is
 * "LABEL: PATH: 'S': unknown placeholder '{x}' (known: {a} {b} ...)".
 */
int il_template_check_names(const char *s, const char *const names[], const char *label, const char *path,
		       struct il_err *err);

/* Whether s has a placeholder (or an escaped brace): a plain string expands to itself. */
bool il_template_is_plain(const char *s);

/*
 * Expand s, appended to out: each placeholder's value from value. s is
 * expected checked; an unclosed "{" here is IL_EPARSE naming s. The result's
 * memory errors are out's (il_buf_error).
 */
int il_template_expand(const char *s, il_tpl_value_fn value, void *ctx, struct il_buf *out, struct il_err *err);

/*
 * Expand each of the n templates of tpl into one element of a new
 * NULL-terminated argv (an element stays one, never split): *argv is a
 * single allocation, pointers and strings, the caller frees it with free().
 */
int il_template_expand_argv(char *const tpl[], size_t n, il_tpl_value_fn value, void *ctx, char ***argv,
		       struct il_err *err);

/* il_tpl_value_fn for a fixed list: ctx is a struct il_tpl_vals; a NULL value is "". */
struct il_tpl_vals {
	const char *const *names; /* NULL-terminated */
	const char *const *vals;  /* in the order of names */
};
int il_template_value_list(void *ctx, const char *name, struct il_buf *out, struct il_err *err);

#endif
