// SPDX-License-Identifier: GPL-2.0-or-later
/* Progress lines on stderr. */
#include "cli/cliprogress.h"
#include "cli/cli.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void il_cli_duration(double s, char *out, size_t n)
{
	if (s < 0)
		snprintf(out, n, "?");
	else if (s < 60)
		snprintf(out, n, "%ds", (int)s);
	else if (s < 3600)
		snprintf(out, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(out, n, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}

static void amount(double v, const char *unit, char *out, size_t n)
{
	if (strcmp(unit, "bytes"))
		snprintf(out, n, "%.0f", v);
	else if (v < 1024 * 1024)
		snprintf(out, n, "%.0f KiB", v / 1024);
	else
		snprintf(out, n, "%.1f MiB", v / (1024 * 1024));
}

void il_cli_progress(const struct il_progress *p, void *ctx)
{
	static double last_line_s = -1;
	bool tty = isatty(2);
	char done[32], total[40] = "", el[16], eta[24] = "";

	(void)ctx;
	if (!p->unit) {
		/* a step that starts: its name and the time so far */
		fprintf(stderr, "%s%s (%.1f s)\n", tty ? "\r\033[K" : "", p->what, p->elapsed_s);
		last_line_s = -1;
		return;
	}
	if (!tty && !p->last && last_line_s >= 0 && p->elapsed_s - last_line_s < IL_CLI_PROGRESS_EVERY_S &&
	    p->elapsed_s >= last_line_s)
		return;
	amount(p->done, p->unit, done, sizeof(done));
	if (p->total > 0) {
		char t[32];

		amount(p->total, p->unit, t, sizeof(t));
		snprintf(total, sizeof(total), " of %s%s", p->estimated ? "~" : "", t);
	}
	il_cli_duration(p->elapsed_s, el, sizeof(el));
	if (!p->last && p->eta_s >= 0) {
		char e[16];

		il_cli_duration(p->eta_s, e, sizeof(e));
		snprintf(eta, sizeof(eta), ", ETA %s", e);
	}
	fprintf(stderr, "%s%s: %s%s%s%s, %s%s%s", tty ? "\r\033[K" : "", p->what, done, total,
		strcmp(p->unit, "bytes") ? " " : "", strcmp(p->unit, "bytes") ? p->unit : "", el, eta,
		tty && !p->last ? "" : "\n");
	fflush(stderr);
	last_line_s = p->last ? -1 : p->elapsed_s;
}

volatile sig_atomic_t il_cli_stop;

static void on_signal(int sig)
{
	il_cli_stop = sig;
}

void il_cli_stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocking wait returns so the flag is seen at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void il_cli_run_event(const struct il_run_event *ev, void *ctx)
{
	struct il_cli_runprog *p = ctx;
	char eta[32] = "?";

	if (p->quiet && ev->kind != IL_EV_NOTE)
		return;
	if (ev->eta_s >= 0)
		snprintf(eta, sizeof(eta), "%dm%02ds", (int)(ev->eta_s / 60), (int)ev->eta_s % 60);
	switch (ev->kind) {
	case IL_EV_HOST:
		fprintf(stderr, "%shost %s: setting up (%zu of %zu samples done)\n", p->bar_shown ? "\n" : "", ev->host,
			ev->done, ev->total);
		p->bar_shown = false;
		break;
	case IL_EV_SAMPLE_START:
		if (p->tty) {
			int width = 30, fill = ev->total ? (int)(width * ev->done / ev->total) : 0;

			fprintf(stderr, "\r[%.*s%*s] %zu/%zu %-14.14s %-12.12s %s%-3d ETA %-8s", fill,
				"##############################", width - fill, "", ev->done + 1, ev->total, ev->variant,
				ev->workload, ev->warmup ? "w" : "#", ev->iteration, eta);
			p->bar_shown = true;
		}
		break;
	case IL_EV_SAMPLE_END:
		if (p->tty && !strcmp(ev->status, "ok"))
			break;
		il_cli_note(p->bar_shown ? "\n" : "", "sample %zu/%zu %s %s %s%d: %s%s%s\n", ev->seq + 1,
			ev->total, ev->variant, ev->workload, ev->warmup ? "warmup " : "iter ", ev->iteration, ev->status,
			ev->message ? ": " : "", ev->message ? ev->message : "");
		p->bar_shown = false;
		break;
	case IL_EV_NOTE:
		il_cli_note(p->bar_shown ? "\n" : "", "idlelab: %s\n", ev->message);
		p->bar_shown = false;
		break;
	}
}
