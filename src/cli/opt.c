// SPDX-License-Identifier: GPL-2.0-or-later
/* Table-driven option parsing and help output. */
#include "cli/opt.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/buf.h"
#include "util/parse.h"
#include "util/str.h"

void il_opt_usage(FILE *f, const struct il_opt *opts, const char *const *usage)
{
	for (size_t i = 0; usage && usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	if (opts && opts[0].kind != IL_OPT_END)
		fputc('\n', f);
	for (const struct il_opt *o = opts; o && o->kind != IL_OPT_END; o++) {
		char left[64];
		int n;

		n = snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->shortname ? "-" : "", o->shortname ? o->shortname : ' ',
			     o->shortname ? ", " : "  ", o->longname, o->argh ? " " : "", o->argh ? o->argh : "");
		if (!o->shortname)
			n = snprintf(left, sizeof(left), "    --%s%s%s", o->longname, o->argh ? " " : "",
				     o->argh ? o->argh : "");
		fprintf(f, "    %-28s %s\n", n > 0 ? left : "", o->help);
	}
}

/* json_dump_callback into an il_buf: its failure stays (jansson goes on past a key it could not write) */
static int dump_to_buf(const char *s, size_t n, void *b)
{
	return il_buf_add(b, s, n) ? -1 : 0;
}

int il_opt_dump(FILE *f, const struct il_opt *opts, const char *const *usage)
{
	static const char *const kinds[IL_OPT_NKINDS] = {
		[IL_OPT_FLAG] = "flag", [IL_OPT_STRING] = "string", [IL_OPT_INT] = "int",
		[IL_OPT_DOUBLE] = "number", [IL_OPT_PERCENT] = "percent",
	};
	json_t *j = json_object(), *u = json_array(), *o = json_array();
	struct il_buf b = IL_BUF_INIT;
	int bad = 0;

	/* each append_new or set_new takes its value even when it fails (a NULL container too) */
	for (size_t i = 0; usage && usage[i]; i++)
		bad |= json_array_append_new(u, json_string(usage[i]));
	/* not json_pack's "s*": it leaves a key out when its string cannot be made, as when it is NULL */
	for (const struct il_opt *p = opts; !bad && p && p->kind != IL_OPT_END; p++) {
		char sh[2] = { p->shortname, 0 };
		json_t *e = json_object();

		bad |= json_object_set_new(e, "long", json_string(p->longname));
		bad |= json_object_set_new(e, "kind", json_string(kinds[p->kind]));
		if (p->shortname)
			bad |= json_object_set_new(e, "short", json_string(sh));
		if (p->argh)
			bad |= json_object_set_new(e, "arg", json_string(p->argh));
		bad |= json_object_set_new(e, "help", json_string(p->help));
		if (p->actions)
			bad |= json_object_set_new(e, "actions", json_string(p->actions));
		bad |= json_array_append_new(o, e);
	}
	bad |= json_object_set_new(j, "usage", u);
	bad |= json_object_set_new(j, "options", o);
	if (!bad)
		bad = json_dump_callback(j, dump_to_buf, &b, JSON_COMPACT | JSON_PRESERVE_ORDER) || il_buf_adds(&b, "\n");
	if (!bad)
		fwrite(b.p, 1, b.len, f);
	il_buf_release(&b);
	json_decref(j);
	return bad ? IL_ENOMEM : 0;
}

int il_opt_error(const struct il_opt *opts, const char *const *usage, const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	il_opt_usage(stderr, opts, usage);
	return IL_OPT_ERROR;
}

static int set_value(const struct il_opt *o, const char *arg, const struct il_opt *opts, const char *const *usage)
{
	int64_t v;

	switch (o->kind) {
	case IL_OPT_STRING:
		*(const char **)o->value = arg;
		return IL_OPT_OK;
	case IL_OPT_INT:
		if (il_parse_i64(arg, (size_t)-1, &v))
			return il_opt_error(opts, usage, "option '--%s' expects a whole number, got '%s'", o->longname, arg);
		*(long *)o->value = (long)v;
		return IL_OPT_OK;
	case IL_OPT_DOUBLE:
	case IL_OPT_PERCENT: {
		size_t n = strlen(arg);
		double d;

		/* the whole argument is the number (a "%" after it for a percentage): 0.05abc is refused */
		if (o->kind == IL_OPT_PERCENT && n > 1 && arg[n - 1] == '%')
			n--;
		if (il_parse_double(arg, n, &d) || !isfinite(d))
			return il_opt_error(opts, usage, "option '--%s' expects a number%s, got '%s'", o->longname,
					    o->kind == IL_OPT_PERCENT ? " (a percentage, '%' optional)" : "", arg);
		*(double *)o->value = d;
		return IL_OPT_OK;
	}
	default:
		return IL_OPT_ERROR;
	}
}

/* Whether the comma-separated list acts names action. */
static bool for_action(const char *acts, const char *action)
{
	size_t n = strlen(action);

	for (const char *p = acts; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, action, n))
			return true;
	return false;
}

/* "--table is for 'idlelab lab up', not 'lab down'": the command's name is usage[0]'s second word */
static int wrong_action(const struct il_opt *o, const char *action, const struct il_opt *opts,
			const char *const *usage)
{
	const char *cmd = usage && usage[0] ? strchr(usage[0], ' ') : NULL;
	int n = cmd ? (int)strcspn(cmd + 1, " ") : 0;
	char list[128];
	size_t k = 0;

	/* "up,status" as "up|status" */
	for (const char *p = o->actions; *p && k + 1 < sizeof(list); p++)
		list[k++] = *p == ',' ? '|' : *p;
	list[k] = 0;
	return il_opt_error(opts, usage, "option '--%s' is for '%.*s %s', not '%.*s %s'", o->longname, n, cmd ? cmd + 1 : "",
			    list, n, cmd ? cmd + 1 : "", action);
}

int il_opt_parse(int argc, char **argv, const struct il_opt *opts, const char *const *usage, int *nargs)
{
	const struct il_opt *given[32];
	int out = 1, ngiven = 0;
	bool rest = false;

	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		const struct il_opt *o = NULL;
		const char *inl = NULL;

		if (rest || a[0] != '-' || !a[1]) {
			argv[out++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			rest = true;
			continue;
		}
		/* hidden: the table itself, for the man pages and the completion made from it (cli/describe.c) */
		if (!strcmp(a, "--dump-options")) {
			if (il_opt_dump(stdout, opts, usage)) {
				fprintf(stderr, "error: %s\n", il_err_strerror(IL_ENOMEM));
				return IL_OPT_ERROR;
			}
			return IL_OPT_HELP;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			il_opt_usage(stdout, opts, usage);
			return IL_OPT_HELP;
		}
		if (a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);

			for (const struct il_opt *p = opts; p->kind != IL_OPT_END; p++)
				if (strlen(p->longname) == n && !strncmp(p->longname, name, n))
					o = p;
			if (!o)
				return il_opt_error(opts, usage, "unknown option '--%.*s'", (int)n, name);
			inl = eq ? eq + 1 : NULL;
		} else {
			for (const struct il_opt *p = opts; p->kind != IL_OPT_END; p++)
				if (p->shortname && p->shortname == a[1])
					o = p;
			if (!o)
				return il_opt_error(opts, usage, "unknown option '-%c'", a[1]);
			inl = a[2] ? a + 2 : NULL;
		}
		if (o->actions && ngiven < (int)(sizeof(given) / sizeof(given[0])))
			given[ngiven++] = o;
		if (o->kind == IL_OPT_FLAG) {
			if (inl)
				return il_opt_error(opts, usage, "option '--%s' takes no value", o->longname);
			*(bool *)o->value = true;
			continue;
		}
		if (!inl) {
			if (i + 1 >= argc)
				return il_opt_error(opts, usage, "option '--%s' requires a value", o->longname);
			inl = argv[++i];
		}
		if (set_value(o, inl, opts, usage))
			return IL_OPT_ERROR;
	}
	/* the action is the first positional argument; none: the command says what is missing */
	for (int i = 0; out > 1 && i < ngiven; i++)
		if (!for_action(given[i]->actions, argv[1]))
			return wrong_action(given[i], argv[1], opts, usage);
	*nargs = out - 1;
	return IL_OPT_OK;
}
