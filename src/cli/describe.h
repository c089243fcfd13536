/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idlelab described from its own tables: every command's il_opt table and
 * usage lines (what `help CMD` prints, taken by running the command with the
 * hidden --dump-options), the command table's summaries and each command's
 * hand-written description (src/cli/man/CMD.txt, embedded at build time)
 * become the man pages (idlelab(1), idlelab-CMD(1)) and the bash completion
 * (cli/complete.c). The Makefile makes both with the built binary, so none
 * of them is a list kept in sync by hand.
 */
#ifndef IL_CLI_DESCRIBE_H
#define IL_CLI_DESCRIBE_H
#include <jansson.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/err.h"

/*
 * Command c's table as JSON ({"usage": [...], "options": [...]}: il_opt_dump),
 * from c run with --dump-options in a child process (its tables point into
 * its own stack). *out: caller decrefs. IL_ECHILD, IL_EPARSE, IL_ENOMEM.
 */
int il_cli_describe(json_t **out, const struct il_cmd *c, struct il_err *err);

/*
 * Every command's of cmds (borrowed, NULL-name terminated: main.c's table), as
 * {"NAME": {"summary", "usage", "options"}, ...} in table order.
 */
int il_cli_describe_all(json_t **out, const struct il_cmd *cmds, struct il_err *err);

/*
 * The man page (roff) of command name of cmds (borrowed, as above), or of
 * idlelab itself (listing cmds) when name is NULL, appended to out.
 * IL_ENOTFOUND: no such command.
 */
int il_describe_man(struct il_buf *out, const struct il_cmd *cmds, const char *name, struct il_err *err);

/* The bash completion script (function _idlelab) of cmds (borrowed) appended to out (cli/complete.c). */
int il_complete_script(struct il_buf *out, const struct il_cmd *cmds, struct il_err *err);

/* The sub-actions of a command from its usage lines ("idlelab host list|show NAME": list show) into out. */
int il_describe_actions(struct il_strlist *out, const char *name, const json_t *usage);

#endif
