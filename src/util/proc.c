// SPDX-License-Identifier: GPL-2.0-or-later
/* Local child processes without a shell. */
#include "util/proc.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#include <sys/wait.h>

#include "util/clock.h"

/*
 * The child being waited for, for the SIGTERM/SIGHUP forwarder. A signal
 * handler can only reach it through a global; nothing else uses it.
 */
static volatile sig_atomic_t forward_pid;

static void forward_signal(int sig)
{
	if (forward_pid > 0)
		kill((pid_t)forward_pid, sig);
}

/* ---- Spawning ---- */

/*
 * fork + execvp. In the child: default signal dispositions, an optional new
 * process group, stdin/stdout/stderr replaced by the fds that are >= 0.
 * exec's errno comes back through a close-on-exec pipe (*errfd), so a
 * missing program is an error (also under valgrind, where posix_spawn
 * misreports it).
 */
static int spawn(char *const argv[], int in_fd, int out_fd, int err_fd, bool pgrp, pid_t *pid, int *errfd,
		 struct il_err *err)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	int px[2];

	if (!argv || !argv[0])
		return il_err_set(err, IL_EINVAL, "no command given");
	if (pipe2(px, O_CLOEXEC))
		return il_err_set(err, IL_ECHILD, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
	*pid = fork();
	if (*pid == 0) {
		int e;
		ssize_t n;

		for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
			signal(sigs[i], SIG_DFL);
		if (pgrp)
			setpgid(0, 0);
		if (in_fd >= 0)
			dup2(in_fd, 0);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		if (err_fd >= 0)
			dup2(err_fd, 2);
		execvp(argv[0], argv);
		e = errno;
		n = write(px[1], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	close(px[1]);
	if (*pid < 0) {
		close(px[0]);
		return il_err_set(err, IL_ECHILD, "cannot run '%s': fork: %s", argv[0], strerror(errno));
	}
	*errfd = px[0];
	return 0;
}

/* Collect exec's verdict and the exit status; closes errfd. */
static int finish(const char *name, pid_t pid, int errfd, struct il_exit *ex, struct il_err *err)
{
	int st, e = 0;
	ssize_t n;

	do
		n = read(errfd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(errfd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return il_err_set(err, IL_ECHILD, "waiting for '%s': %s", name, strerror(errno));
	if (n == (ssize_t)sizeof(e))
		return il_err_set(err, e == ENOENT ? IL_ENOTFOUND : IL_ECHILD, "cannot run '%s': %s", name, strerror(e));
	if (WIFEXITED(st))
		ex->code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		ex->signal = WTERMSIG(st);
	return 0;
}

int il_proc_run(char *const argv[], struct il_exit *out, struct il_err *err)
{
	struct sigaction ign = { 0 }, fwd = { 0 }, old_int, old_quit, old_term, old_hup;
	int errfd, r;
	pid_t pid;

	out->code = -1;
	out->signal = 0;
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	/* SIGTERM/SIGHUP end the child, not us: the caller still restores the host afterwards */
	fwd.sa_handler = forward_signal;
	sigemptyset(&fwd.sa_mask);
	forward_pid = 0;
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	r = spawn(argv, -1, -1, -1, false, &pid, &errfd, err);
	if (!r) {
		forward_pid = pid;
		r = finish(argv[0], pid, errfd, out, err);
	}
	forward_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return r;
}

int il_proc_exit_status(const struct il_exit *e)
{
	return e->signal ? 128 + e->signal : e->code;
}

/* ---- Captured runs ---- */

/* Close whichever ends of two pipes are still open (>= 0). */
static void close_pipes(const int a[2], const int b[2])
{
	for (int i = 0; i < 2; i++) {
		if (a[i] >= 0)
			close(a[i]);
		if (b[i] >= 0)
			close(b[i]);
	}
}

static double mono_ms(void)
{
	return il_clock_mono_s() * 1e3;
}

/*
 * The child's stdin: input in a pipe, then its end (at most PIPE_BUF bytes: written whole before
 * the child starts, never blocking), or /dev/null. *fd is its read end. Returns 0 or errno.
 */
static int stdin_fd(const char *input, int *fd)
{
	int p[2];
	size_t n;

	if (!input)
		return (*fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 ? errno : 0;
	if ((n = strlen(input)) > PIPE_BUF)
		return E2BIG;
	if (pipe2(p, O_CLOEXEC))
		return errno;
	if (write(p[1], input, n) != (ssize_t)n) {
		int e = errno ? errno : EIO;

		close(p[0]);
		close(p[1]);
		return e;
	}
	close(p[1]);
	*fd = p[0];
	return 0;
}

static int capture(char *const argv[], const char *input, int timeout_ms, const volatile sig_atomic_t *cancel,
		   const struct il_proc_watch *w, struct il_buf *out, struct il_buf *errb, struct il_exit *ex,
		   struct il_err *err)
{
	int tick_ms = w && w->tick ? (w->tick_ms > 0 ? w->tick_ms : 1000) : -1;
	double next_tick = tick_ms > 0 ? mono_ms() + tick_ms : 0;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	double deadline = timeout_ms > 0 ? mono_ms() + timeout_ms : 0;
	bool timed_out = false, cancelled = false;
	int in = -1, errfd = -1, r, e;
	pid_t pid;

	ex->code = -1;
	ex->signal = 0;
	e = pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) ? errno : stdin_fd(input, &in);
	if (e) {
		r = il_err_set(err, IL_ECHILD, "cannot run '%s': %s", argv && argv[0] ? argv[0] : "?", strerror(e));
		goto cleanup;
	}
	/* its own process group, so a timeout kills whatever it started too */
	r = spawn(argv, in, po[1], pe[1], true, &pid, &errfd, err);
	close(in);
	in = -1;
	if (r)
		goto cleanup;
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	for (int open_fds = 2; open_fds > 0;) {
		struct pollfd pf[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int wait = cancel ? 100 : -1;
		char buf[65536];

		if (next_tick) {
			double left = next_tick - mono_ms();

			if (left <= 0) {
				w->tick(w->ctx);
				next_tick = mono_ms() + tick_ms;
				left = tick_ms;
			}
			if (wait < 0 || left + 1 < wait)
				wait = (int)left + 1;
		}

		if (cancel && *cancel) {
			cancelled = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (deadline) {
			double left = deadline - mono_ms();

			if (left <= 0) {
				timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			if (wait < 0 || left + 1 < wait)
				wait = (int)left + 1;
		}
		if (poll(pf, 2, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &pe[0] : &po[0];
			ssize_t n;

			if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fd, buf, sizeof(buf));
			if (n > 0) {
				if (!i && w && w->out_chunk)
					w->out_chunk(buf, (size_t)n, w->ctx);
				if (il_buf_add(i ? errb : out, buf, (size_t)n))
					r = il_err_oom(err);
			} else if (n == 0 || errno != EINTR) {
				close(*fd);
				*fd = -1;
				open_fds--;
			}
		}
	}
	{
		int fr = finish(argv[0], pid, errfd, ex, err);

		if (fr)
			r = fr;
	}
	if (timed_out)
		r = il_err_set(err, IL_ETIMEOUT, "'%s' timed out after %.1f s and was killed", argv[0], timeout_ms / 1e3);
	else if (cancelled)
		r = il_err_set(err, IL_EINTR, "'%s' was stopped (interrupted)", argv[0]);
cleanup:
	close_pipes(po, pe);
	if (in >= 0)
		close(in);
	return r;
}

int il_proc_capture(char *const argv[], int timeout_ms, const volatile sig_atomic_t *cancel, struct il_buf *out,
		    struct il_buf *errb, struct il_exit *ex, struct il_err *err)
{
	return capture(argv, NULL, timeout_ms, cancel, NULL, out, errb, ex, err);
}

int il_proc_capture_in(char *const argv[], const char *input, int timeout_ms, const volatile sig_atomic_t *cancel,
		       struct il_buf *out, struct il_buf *errb, struct il_exit *ex, struct il_err *err)
{
	return capture(argv, input, timeout_ms, cancel, NULL, out, errb, ex, err);
}

int il_proc_capture_watch(char *const argv[], int timeout_ms, const volatile sig_atomic_t *cancel,
			  const struct il_proc_watch *w, struct il_buf *out, struct il_buf *errb, struct il_exit *ex,
			  struct il_err *err)
{
	return capture(argv, NULL, timeout_ms, cancel, w, out, errb, ex, err);
}

/* ---- Held children ---- */

int il_proc_hold(char *const argv[], int timeout_ms, struct il_proc_held *h, struct il_buf *first, struct il_err *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, errfd = -1, e = 0, r;
	double deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 30000);
	bool eof = false;
	ssize_t n;
	pid_t pid;

	h->pid = 0;
	h->in_fd = h->out_fd = -1;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		r = il_err_set(err, IL_ECHILD, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
		goto fail;
	}
	if ((r = spawn(argv, in[0], out[1], -1, true, &pid, &errfd, err)))
		goto fail;
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	do
		n = read(errfd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(errfd);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		r = il_err_set(err, e == ENOENT ? IL_ENOTFOUND : IL_ECHILD, "cannot run '%s': %s", argv[0], strerror(e));
		goto fail;
	}
	/* the first line, or the end */
	while (!memchr(first->p ? first->p : "", '\n', first->len) && !eof) {
		struct pollfd pf = { out[0], POLLIN, 0 };
		double left = deadline - mono_ms();
		char buf[512];

		if (left <= 0) {
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			r = il_err_set(err, IL_ETIMEOUT, "'%s' said nothing within %.0f s", argv[0], timeout_ms / 1e3);
			goto fail;
		}
		if (poll(&pf, 1, (int)left + 1) < 0 && errno != EINTR)
			break;
		if (pf.revents) {
			n = read(out[0], buf, sizeof(buf));
			if (n > 0)
				il_buf_add(first, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				eof = true;
		}
	}
	if (eof) {
		/* it ended at once: nothing to hold */
		close(in[1]);
		close(out[0]);
		waitpid(pid, NULL, 0);
		return 0;
	}
	h->pid = pid;
	h->in_fd = in[1];
	h->out_fd = out[0];
	return 0;
fail:
	close_pipes(in, out);
	return r;
}

static void held_close(struct il_proc_held *h)
{
	close(h->in_fd);
	close(h->out_fd);
	h->pid = 0;
	h->in_fd = h->out_fd = -1;
}

bool il_proc_held_alive(struct il_proc_held *h)
{
	if (h->pid <= 0)
		return false;
	if (waitpid(h->pid, NULL, WNOHANG) == 0)
		return true;
	held_close(h); /* it ended (and is reaped now) */
	return false;
}

void il_proc_release(struct il_proc_held *h)
{
	bool reaped = false;

	if (h->pid <= 0)
		return;
	close(h->in_fd); /* EOF: it ends by itself */
	h->in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (int i = 0; i < 50 && !reaped; i++) {
		pid_t w = waitpid(h->pid, NULL, WNOHANG);

		if (w == h->pid || w < 0)
			reaped = true;
		else
			usleep(100000);
	}
	if (!reaped) {
		kill(-h->pid, SIGKILL);
		waitpid(h->pid, NULL, 0);
	}
	held_close(h);
}
