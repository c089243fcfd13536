/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Option tables that drive both parsing and --help (git parse-options style).
 * Only src/cli/ uses this; it prints usage errors itself.
 */
#ifndef IL_CLI_OPT_H
#define IL_CLI_OPT_H

#include <stdio.h>

/*
 * IL_OPT_DOUBLE: a finite decimal number, the whole argument (0.05abc is a
 * usage error); IL_OPT_PERCENT the same with an optional "%" after it. Both
 * into a double the caller sets first to its default (NAN: "not given").
 */
enum il_opt_kind { IL_OPT_END, IL_OPT_FLAG, IL_OPT_STRING, IL_OPT_INT, IL_OPT_DOUBLE, IL_OPT_PERCENT, IL_OPT_NKINDS };

struct il_opt {
	enum il_opt_kind kind;
	char shortname;       /* 0: none */
	const char *longname;
	void *value;          /* bool *, const char **, long *, double * */
	const char *argh;     /* argument name in help, e.g. "DIR" */
	const char *help;
	/*
	 * For a command with actions (lab up|down|..., host list|show|check): the
	 * actions this option is for, "up" or "up,status"; NULL: every one. The
	 * parser refuses it with another action (git's per-subcommand options).
	 */
	const char *actions;
};

#define IL_OPT_BOOL(s, l, v, h) { IL_OPT_FLAG, (s), (l), (v), NULL, (h), NULL }
#define IL_OPT_STR(s, l, v, a, h) { IL_OPT_STRING, (s), (l), (v), (a), (h), NULL }
#define IL_OPT_NUM(s, l, v, a, h) { IL_OPT_INT, (s), (l), (v), (a), (h), NULL }
#define IL_OPT_DBL(s, l, v, a, h) { IL_OPT_DOUBLE, (s), (l), (v), (a), (h), NULL }
#define IL_OPT_PCT(s, l, v, a, h) { IL_OPT_PERCENT, (s), (l), (v), (a), (h), NULL }
#define IL_OPT_END_ { IL_OPT_END, 0, NULL, NULL, NULL, NULL, NULL }
/* the same, for the actions ACTS only ("up", "build,up") */
#define IL_OPT_BOOL_FOR(acts, s, l, v, h) { IL_OPT_FLAG, (s), (l), (v), NULL, (h), (acts) }
#define IL_OPT_STR_FOR(acts, s, l, v, a, h) { IL_OPT_STRING, (s), (l), (v), (a), (h), (acts) }
#define IL_OPT_NUM_FOR(acts, s, l, v, a, h) { IL_OPT_INT, (s), (l), (v), (a), (h), (acts) }

/* Outcome of il_opt_parse. */
enum { IL_OPT_OK = 0, IL_OPT_HELP = 1, IL_OPT_ERROR = 2 };

/*
 * Parse argv[1..argc) against opts. Positional arguments are moved to
 * argv[1..] in order and counted in *nargs; everything after "--" is
 * positional. --help prints usage to stdout (IL_OPT_HELP); an error prints
 * a message and usage to stderr (IL_OPT_ERROR: exit code 2). An option with
 * actions given while the first positional argument (the action) is another
 * is an error too.
 * usage: NULL-terminated lines ("idlelab snapshot [options]").
 */
int il_opt_parse(int argc, char **argv, const struct il_opt *opts, const char *const *usage, int *nargs);

/* Print usage lines and the option table. */
void il_opt_usage(FILE *f, const struct il_opt *opts, const char *const *usage);

/*
 * Print usage and opts as one line of JSON: {"usage": [LINE...], "options":
 * [{"long", "kind": "flag"|"string"|"int"|"number"|"percent", "short"?, "arg"?, "help", "actions"?}...]}.
 * il_opt_parse does it for the hidden option --dump-options (IL_OPT_HELP).
 * IL_ENOMEM (nothing printed) when memory ran out, else 0.
 */
int il_opt_dump(FILE *f, const struct il_opt *opts, const char *const *usage);

/* Print "error: MSG" and the usage to stderr; returns IL_OPT_ERROR (2). */
int il_opt_error(const struct il_opt *opts, const char *const *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
