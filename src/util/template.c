// SPDX-License-Identifier: GPL-2.0-or-later
/* Argv templates: "{name}" inline, "{{" and "}}" escapes, names checked when read and looked up when expanded. */
#include "util/template.h"

#include <stdlib.h>
#include <string.h>

/* One piece of a template: literal text (name false) or a placeholder's name, not NUL-terminated. */
typedef int (*piece_fn)(void *ctx, const char *text, size_t n, bool name);

/* Split s into pieces; IL_EPARSE for a "{" never closed or a name too long. */
static int walk(const char *s, piece_fn fn, void *ctx)
{
	const char *lit = s;
	int r;

	while (*s) {
		const char *e;

		if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
			if ((r = fn(ctx, lit, (size_t)(s + 1 - lit), false)))
				return r;
			lit = s += 2;
			continue;
		}
		if (s[0] != '{') {
			s++;
			continue;
		}
		if (s > lit && (r = fn(ctx, lit, (size_t)(s - lit), false)))
			return r;
		for (e = s + 1; *e && *e != '}' && *e != '{'; e++)
			;
		if (*e != '}' || (size_t)(e - s - 1) > IL_TPL_NAME_MAX)
			return IL_EPARSE;
		if ((r = fn(ctx, s + 1, (size_t)(e - s - 1), true)))
			return r;
		lit = s = e + 1;
	}
	return s > lit ? fn(ctx, lit, (size_t)(s - lit), false) : 0;
}

struct check_ctx {
	const char *s;
	il_tpl_name_fn check;
	void *ctx;
	struct il_err *err;
	int r;
};

static int check_piece(void *ctx, const char *text, size_t n, bool name)
{
	struct check_ctx *c = ctx;
	char buf[IL_TPL_NAME_MAX + 1];

	if (!name)
		return 0;
	memcpy(buf, text, n);
	buf[n] = '\0';
	/* whole: the piece spans the string but for its two braces */
	return c->r = c->check(c->ctx, c->s, buf, text == c->s + 1 && !text[n + 1], c->err);
}

int il_template_check(const char *s, il_tpl_name_fn check, void *ctx, const char *label, const char *path,
		 struct il_err *err)
{
	struct check_ctx c = { s, check, ctx, err, 0 };
	int r = walk(s, check_piece, &c);

	if (r && !c.r)
		return il_err_set(err, IL_EPARSE, "%s: %s: '%s': unclosed placeholder (write {{ for a literal brace)",
				  label, path, s);
	return r;
}

static int name_index(const char *const names[], const char *name)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

struct names_ctx {
	const char *const *names;
	const char *label, *path;
};

static int check_name(void *ctx, const char *s, const char *name, bool whole, struct il_err *err)
{
	struct names_ctx *c = ctx;
	struct il_buf known = IL_BUF_INIT;
	int r;

	(void)whole;
	if (name_index(c->names, name) >= 0)
		return 0;
	for (int i = 0; c->names[i]; i++)
		il_buf_printf(&known, "%s{%s}", i ? " " : "", c->names[i]);
	r = il_err_set(err, IL_EPARSE, "%s: %s: '%s': unknown placeholder '{%s}' (known: %s)", c->label, c->path, s,
		       name, il_buf_str(&known));
	il_buf_release(&known);
	return r;
}

int il_template_check_names(const char *s, const char *const names[], const char *label, const char *path,
		       struct il_err *err)
{
	struct names_ctx c = { names, label, path };

	return il_template_check(s, check_name, &c, label, path, err);
}

bool il_template_is_plain(const char *s)
{
	return !strchr(s, '{') && !strstr(s, "}}");
}

struct expand_ctx {
	il_tpl_value_fn value;
	void *ctx;
	struct il_buf *out;
	struct il_err *err;
	int r;
};

static int expand_piece(void *ctx, const char *text, size_t n, bool name)
{
	struct expand_ctx *c = ctx;
	char buf[IL_TPL_NAME_MAX + 1];

	if (!name) {
		il_buf_add(c->out, text, n);
		return 0;
	}
	memcpy(buf, text, n);
	buf[n] = '\0';
	return c->r = c->value(c->ctx, buf, c->out, c->err);
}

int il_template_expand(const char *s, il_tpl_value_fn value, void *ctx, struct il_buf *out, struct il_err *err)
{
	struct expand_ctx c = { value, ctx, out, err, 0 };
	int r = walk(s, expand_piece, &c);

	if (r && !c.r)
		return il_err_set(err, IL_EPARSE, "unclosed placeholder in '%s'", s);
	return r;
}

int il_template_expand_argv(char *const tpl[], size_t n, il_tpl_value_fn value, void *ctx, char ***argv,
		       struct il_err *err)
{
	struct il_buf all = IL_BUF_INIT; /* the expanded elements one after the other, each with its NUL */
	char **v, *s;
	int r = 0;

	*argv = NULL;
	for (size_t i = 0; i < n && !r; i++)
		if (!(r = il_template_expand(tpl[i], value, ctx, &all, err)) && il_buf_add(&all, "", 1))
			r = il_err_oom(err);
	if (!r && il_buf_error(&all))
		r = il_err_oom(err);
	if (!r && !(v = malloc((n + 1) * sizeof(*v) + all.len)))
		r = il_err_oom(err);
	if (!r) {
		s = (char *)(v + n + 1);
		if (all.len)
			memcpy(s, all.p, all.len);
		for (size_t i = 0; i < n; i++) {
			v[i] = s;
			s += strlen(s) + 1;
		}
		v[n] = NULL;
		*argv = v;
	}
	il_buf_release(&all);
	return r;
}

int il_template_value_list(void *ctx, const char *name, struct il_buf *out, struct il_err *err)
{
	const struct il_tpl_vals *v = ctx;
	int i = name_index(v->names, name);

	if (i < 0)
		return il_err_set(err, IL_EPARSE, "unknown placeholder '{%s}'", name);
	il_buf_adds(out, v->vals[i] ? v->vals[i] : "");
	return 0;
}
