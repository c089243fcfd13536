/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Printing il_progress on stderr: on a terminal one line rewritten in place,
 * otherwise a plain line every IL_CLI_PROGRESS_EVERY_S seconds and one at the
 * end, so a CI log shows that a long step moves without filling up.
 */
#ifndef IL_CLI_CLIPROGRESS_H
#define IL_CLI_CLIPROGRESS_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "run/engine.h"
#include "util/progress.h"

#define IL_CLI_PROGRESS_EVERY_S 15.0

/* An il_progress_fn; ctx is unused (NULL). Quiet commands simply pass no function. */
void il_cli_progress(const struct il_progress *p, void *ctx);

/* "1m05s" (or "?" for a negative time) into out. */
void il_cli_duration(double s, char *out, size_t n);

/* A run's sample events on stderr (a progress bar on a terminal); ctx: struct il_cli_runprog. */
struct il_cli_runprog {
	bool tty, quiet;
	bool bar_shown;
};
void il_cli_run_event(const struct il_run_event *ev, void *ctx);

/* Set by SIGINT, SIGTERM and SIGHUP once il_cli_stop_on_signals installed the handlers (il_run_opts.stop). */
extern volatile sig_atomic_t il_cli_stop;
void il_cli_stop_on_signals(void);

#endif
