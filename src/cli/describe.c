// SPDX-License-Identifier: GPL-2.0-or-later
/* Commands described from their own tables, and their man pages (see describe.h). */
#include "cli/describe.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/runners.h"
#include "util/str.h"
#include "util/strlist.h"
#include "version.h"

/* src/cli/man/NAME.txt, embedded by src/host/embed.awk (build/gen/man_data.c) */
extern const struct il_runner_src il_man_srcs[];

/* ---- The tables, from the commands themselves ---- */

int il_cli_describe(json_t **out, const struct il_cmd *c, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	json_error_t je;
	int fd[2], st = 0;
	char chunk[4096];
	ssize_t n;
	pid_t pid;

	*out = NULL;
	fflush(stdout);
	if (pipe(fd))
		return il_err_set(err, IL_ECHILD, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return il_err_set(err, IL_ECHILD, "fork: %s", strerror(errno));
	}
	if (!pid) {
		char *argv[] = { (char *)c->name, (char *)"--dump-options", NULL };
		int rc;

		close(fd[0]);
		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(127);
		rc = c->fn(2, argv);
		fflush(stdout);
		_exit(rc);
	}
	close(fd[1]);
	while ((n = read(fd[0], chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			il_buf_add(&b, chunk, (size_t)n);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) || il_buf_error(&b))
		st = il_err_set(err, IL_ECHILD, "command '%s' did not describe its options", c->name);
	else if (!(*out = json_loadb(il_buf_str(&b), b.len, 0, &je)) || !json_is_object(*out))
		st = il_err_set(err, IL_EPARSE, "command '%s': its options: %s", c->name, je.text);
	il_buf_release(&b);
	if (st) {
		json_decref(*out);
		*out = NULL;
	}
	return st;
}

int il_cli_describe_all(json_t **out, const struct il_cmd *cmds, struct il_err *err)
{
	json_t *all = json_object();
	int r = all ? 0 : il_err_oom(err);

	for (const struct il_cmd *c = cmds; !r && c->name; c++) {
		json_t *d;

		if (!(r = il_cli_describe(&d, c, err))) {
			int bad = json_object_set_new(d, "summary", json_string(c->summary));

			/* all takes d even when this fails */
			if (json_object_set_new(all, c->name, d) || bad)
				r = il_err_oom(err);
		}
	}
	if (r)
		json_decref(all);
	*out = r ? NULL : all;
	return r;
}

int il_describe_actions(struct il_strlist *out, const char *name, const json_t *usage)
{
	size_t i, nl = strlen(name);
	json_t *u;

	/* "idlelab NAME a|b [c | d] ...": the words after the name, up to the first that is not an action */
	json_array_foreach(usage, i, u) {
		const char *s = json_string_value(u);

		if (strncmp(s, "idlelab ", 8) || strncmp(s + 8, name, nl) || s[8 + nl] != ' ')
			continue;
		for (s += 9 + nl; *s;) {
			size_t w = 0;

			while (*s == ' ' || *s == '[' || *s == '|')
				s++;
			while (islower((unsigned char)s[w]) || s[w] == '-')
				w++;
			if (!w || s[0] == '-' || (s[w] && !strchr(" |]", s[w])))
				break;
			{
				char *a = il_str_ndup(s, w);

				if (!a || (!il_strlist_has(out, a) && il_strlist_push(out, a)))
					return free(a), IL_ENOMEM;
				free(a);
			}
			s += w;
			while (*s == ' ')
				s++;
			if (*s != '|' && strncmp(s, "| ", 2))
				break;
		}
	}
	return 0;
}

/* ---- Man pages ---- */

/* text as roff: backslashes escaped, minus signs as \-, a leading . or ' kept literal */
static void roff(struct il_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!i && (s[i] == '.' || s[i] == '\''))
			il_buf_adds(b, "\\&");
		if (s[i] == '\\')
			il_buf_adds(b, "\\e");
		else if (s[i] == '-')
			il_buf_adds(b, "\\-");
		else
			il_buf_add(b, &s[i], 1);
	}
}

static void roffs(struct il_buf *b, const char *s)
{
	roff(b, s, strlen(s));
}

static void upper(struct il_buf *b, const char *s)
{
	for (; *s; s++)
		il_buf_printf(b, "%c", toupper((unsigned char)*s));
}

/*
 * A description file: paragraphs split by blank lines, "## TITLE" starting a
 * section of that title, lines indented by 4 spaces kept as they are
 * (examples), "- " starting an item.
 */
static void description(struct il_buf *b, const char *text)
{
	bool literal = false, para = false;

	il_buf_adds(b, ".SH DESCRIPTION\n");
	while (text && *text) {
		size_t n = strcspn(text, "\n");

		if (!strncmp(text, "    ", 4) && n > 4) {
			if (!literal)
				il_buf_adds(b, ".PP\n.RS 4\n.nf\n");
			literal = true;
			roff(b, text + 4, n - 4);
			il_buf_adds(b, "\n");
		} else {
			if (literal)
				il_buf_adds(b, ".fi\n.RE\n");
			literal = false;
			if (!n) {
				para = false;
			} else if (!strncmp(text, "## ", 3)) {
				il_buf_adds(b, ".SH ");
				il_buf_add(b, text + 3, n - 3);
				il_buf_adds(b, "\n");
				para = true;
			} else if (!strncmp(text, "- ", 2)) {
				il_buf_adds(b, ".IP \\(bu 2\n");
				roff(b, text + 2, n - 2);
				il_buf_adds(b, "\n");
				para = true;
			} else {
				if (!para)
					il_buf_adds(b, ".PP\n");
				para = true;
				roff(b, text, n);
				il_buf_adds(b, "\n");
			}
		}
		text += n + (text[n] == '\n');
	}
	if (literal)
		il_buf_adds(b, ".fi\n.RE\n");
}

static const char *man_text(const char *name)
{
	char file[64];

	snprintf(file, sizeof(file), "%s.txt", name);
	return il_runners_embedded(il_man_srcs, file);
}

static void header(struct il_buf *b, const char *page, const char *summary)
{
	il_buf_adds(b, ".\\\" generated by 'idlelab help --man' from idlelab's option tables: do not edit\n.TH ");
	upper(b, page);
	il_buf_printf(b, " 1 \"\" \"idlelab %s\" \"idlelab Manual\"\n.SH NAME\n", IL_VERSION);
	roffs(b, page);
	il_buf_adds(b, " \\- ");
	roffs(b, summary);
	il_buf_adds(b, "\n");
}

static void options(struct il_buf *b, const json_t *d)
{
	json_t *o;
	size_t i;

	il_buf_adds(b, ".SH OPTIONS\n");
	json_array_foreach(json_object_get(d, "options"), i, o) {
		const char *sh = json_string_value(json_object_get(o, "short"));
		const char *arg = json_string_value(json_object_get(o, "arg"));

		il_buf_adds(b, ".TP\n");
		if (sh)
			il_buf_printf(b, "\\fB\\-%s\\fR, ", sh);
		il_buf_adds(b, "\\fB\\-\\-");
		roffs(b, json_string_value(json_object_get(o, "long")));
		il_buf_adds(b, "\\fR");
		if (arg) {
			il_buf_adds(b, " \\fI");
			roffs(b, arg);
			il_buf_adds(b, "\\fR");
		}
		il_buf_adds(b, "\n");
		roffs(b, json_string_value(json_object_get(o, "help")));
		il_buf_adds(b, "\n");
	}
	il_buf_adds(b, ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis help (idlelab help ");
	il_buf_adds(b, "COMMAND opens this page when it is installed)\n");
}

static int command_page(struct il_buf *b, const struct il_cmd *c, struct il_err *err)
{
	char page[64];
	json_t *d, *u;
	size_t i;
	int r;

	if ((r = il_cli_describe(&d, c, err)))
		return r;
	snprintf(page, sizeof(page), "idlelab-%s", c->name);
	header(b, page, c->summary);
	il_buf_adds(b, ".SH SYNOPSIS\n.nf\n");
	json_array_foreach(json_object_get(d, "usage"), i, u) {
		roffs(b, json_string_value(u));
		il_buf_adds(b, "\n");
	}
	il_buf_adds(b, ".fi\n");
	description(b, man_text(c->name));
	options(b, d);
	il_buf_adds(b, ".SH EXIT STATUS\n0 success, 1 failure, 2 usage error (and as above).\n");
	il_buf_adds(b, ".SH SEE ALSO\n\\fBidlelab\\fR(1), \\fBidlelab\\-paths\\fR(1)\n");
	json_decref(d);
	return 0;
}

static void main_page(struct il_buf *b, const struct il_cmd *cmds)
{
	header(b, "idlelab", "test and benchmark Linux cpuidle governors");
	il_buf_adds(b, ".SH SYNOPSIS\n.nf\nidlelab \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\nidlelab help \\fICOMMAND\\fR | "
		       "\\-\\-help | \\-\\-version\n.fi\n");
	description(b, man_text("idlelab"));
	il_buf_adds(b, ".SH COMMANDS\n");
	for (const struct il_cmd *c = cmds; c->name; c++) {
		il_buf_printf(b, ".TP\n\\fBidlelab\\-");
		roffs(b, c->name);
		il_buf_adds(b, "\\fR(1)\n");
		roffs(b, c->summary);
		il_buf_adds(b, "\n");
	}
	il_buf_adds(b, ".SH SEE ALSO\n");
	for (const struct il_cmd *c = cmds; c->name; c++) {
		il_buf_adds(b, "\\fBidlelab\\-");
		roffs(b, c->name);
		il_buf_adds(b, c[1].name ? "\\fR(1),\n" : "\\fR(1)\n");
	}
}

int il_describe_man(struct il_buf *out, const struct il_cmd *cmds, const char *name, struct il_err *err)
{
	int r;

	if (!name)
		main_page(out, cmds);
	else {
		const struct il_cmd *c = cmds;

		while (c->name && strcmp(c->name, name))
			c++;
		if (!c->name)
			return il_err_set(err, IL_ENOTFOUND, "'%s' is not a command", name);
		if ((r = command_page(out, c, err)))
			return r;
	}
	return il_buf_error(out) ? il_err_oom(err) : 0;
}
