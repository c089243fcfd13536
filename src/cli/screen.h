/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What reaches the operator: standard output passes through the one
 * sanitizer (il_str_sanitize_n) on its way out, whoever printed it, so a
 * commit subject, a host's governor or driver name or a server's words can
 * never act on a terminal. Error messages go through il_cli_fail, which
 * sanitizes the same way; progress (standard error) is idlelab's own.
 */
#ifndef IL_CLI_SCREEN_H
#define IL_CLI_SCREEN_H

/* Replace stdout by the sanitizing stream over file descriptor 1 (once, at start); 0, or -1 when it cannot be made (stdout stays). */
int il_cli_screen_open(void);

#endif
