/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running a local child process from an argv vector (never through a shell).
 */
#ifndef IL_UTIL_PROC_H
#define IL_UTIL_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/buf.h"
#include "util/err.h"

/* How a child ended. */
struct il_exit {
	int code;      /* exit code, or -1 if killed */
	int signal;    /* terminating signal, or 0 */
};

/*
 * Run argv (argv[0] looked up in PATH), inheriting stdio, and wait for it.
 * SIGINT and SIGQUIT are ignored in the caller while the child runs (as
 * time(1) does), and SIGTERM/SIGHUP are forwarded to the child, so Ctrl-C or
 * a kill ends the child and the caller can still clean up (restore the
 * host's governor). IL_ENOTFOUND if the program cannot be started.
 */
int il_proc_run(char *const argv[], struct il_exit *out, struct il_err *err);

/* Shell-style status: code, or 128 + signal. */
int il_proc_exit_status(const struct il_exit *e);

/*
 * Run argv with stdin from /dev/null, capturing stdout and stderr into out
 * and errb (each capped by their own max; the rest is drained and dropped,
 * truncated flagged). timeout_ms > 0 kills the child's process group and
 * returns IL_ETIMEOUT; *cancel becoming non-zero (a signal handler's flag;
 * may be NULL) kills it too and returns IL_EINTR.
 */
int il_proc_capture(char *const argv[], int timeout_ms, const volatile sig_atomic_t *cancel, struct il_buf *out,
		    struct il_buf *errb, struct il_exit *ex, struct il_err *err);

/*
 * il_proc_capture with input (at most PIPE_BUF bytes) on the child's stdin,
 * then its end, instead of /dev/null: what must reach the child without
 * being in its argv or environment, which its own children could read
 * (/proc/PID/cmdline). Longer input is IL_ECHILD (E2BIG).
 */
int il_proc_capture_in(char *const argv[], const char *input, int timeout_ms, const volatile sig_atomic_t *cancel,
		       struct il_buf *out, struct il_buf *errb, struct il_exit *ex, struct il_err *err);

/*
 * Watching a captured child while it runs: out_chunk sees every piece of
 * stdout as it arrives (before it is added to out), tick is called about
 * every tick_ms (default 1000) whatever the child prints. Either may be NULL.
 */
struct il_proc_watch {
	void (*out_chunk)(const char *data, size_t n, void *ctx);
	void (*tick)(void *ctx);
	void *ctx;
	int tick_ms;
};

/* il_proc_capture with a watcher (NULL: none). */
int il_proc_capture_watch(char *const argv[], int timeout_ms, const volatile sig_atomic_t *cancel,
			  const struct il_proc_watch *w, struct il_buf *out, struct il_buf *errb, struct il_exit *ex,
			  struct il_err *err);

/*
 * A child kept running until released (a lock holder): started with a pipe
 * on stdin and stdout in its own process group; il_proc_hold returns once
 * it printed its first line (into first) or ended. Releasing closes its
 * stdin (it is expected to exit on EOF), waits a little, then kills its group.
 */
struct il_proc_held {
	pid_t pid;        /* 0: nothing held (the child ended) */
	int in_fd, out_fd;
};

int il_proc_hold(char *const argv[], int timeout_ms, struct il_proc_held *h, struct il_buf *first, struct il_err *err);
bool il_proc_held_alive(struct il_proc_held *h);
void il_proc_release(struct il_proc_held *h);

#endif
