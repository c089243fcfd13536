// SPDX-License-Identifier: GPL-2.0-or-later
/* Local child processes without a shell. */
#include "util/proc.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#include <sys/wait.h>

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

/* fork + execvp with a close-on-exec pipe that carries exec's errno back (works under valgrind too) */
int il_proc_run(char *const argv[], struct il_exit *out, struct il_err *err)
{
	struct sigaction ign = { 0 }, fwd = { 0 }, old_int, old_quit, old_term, old_hup;
	int pfd[2], st, e = 0, r = 0;
	ssize_t n;
	pid_t pid;

	out->code = -1;
	out->signal = 0;
	if (!argv || !argv[0])
		return il_err_set(err, IL_EINVAL, "no command given");
	if (pipe2(pfd, O_CLOEXEC))
		return il_err_set(err, IL_ECHILD, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
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
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		close(pfd[0]);
		execvp(argv[0], argv);
		e = errno;
		n = write(pfd[1], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		r = il_err_set(err, IL_ECHILD, "cannot run '%s': fork: %s", argv[0], strerror(errno));
		close(pfd[0]);
		goto restore;
	}
	forward_pid = pid;
	do
		n = read(pfd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			r = il_err_set(err, IL_ECHILD, "waiting for '%s': %s", argv[0], strerror(errno));
			goto restore;
		}
	}
	if (n == (ssize_t)sizeof(e)) {
		r = il_err_set(err, e == ENOENT ? IL_ENOTFOUND : IL_ECHILD, "cannot run '%s': %s", argv[0], strerror(e));
		goto restore;
	}
	if (WIFEXITED(st))
		out->code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		out->signal = WTERMSIG(st);
restore:
	forward_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return r;
}

int il_exit_status(const struct il_exit *e)
{
	return e->signal ? 128 + e->signal : e->code;
}

/* ---- Captured runs ---- */

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int il_proc_capture(char *const argv[], int timeout_ms, struct il_buf *out, struct il_buf *errb,
		    struct il_exit *ex, struct il_err *err)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, px[2] = { -1, -1 };
	double deadline = timeout_ms > 0 ? mono_ms() + timeout_ms : 0;
	bool timed_out = false;
	int st, e = 0, r = 0;
	pid_t pid;
	ssize_t n;

	ex->code = -1;
	ex->signal = 0;
	if (!argv || !argv[0])
		return il_err_set(err, IL_EINVAL, "no command given");
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(px, O_CLOEXEC)) {
		r = il_err_set(err, IL_ECHILD, "cannot run '%s': pipe: %s", argv[0], strerror(errno));
		goto cleanup;
	}
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], argv);
		e = errno;
		n = write(px[1], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	if (pid < 0) {
		r = il_err_set(err, IL_ECHILD, "cannot run '%s': fork: %s", argv[0], strerror(errno));
		goto cleanup;
	}
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	po[1] = pe[1] = px[1] = -1;
	for (int open_fds = 2; open_fds > 0;) {
		struct pollfd pf[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int wait = -1;
		char buf[65536];

		if (deadline) {
			double left = deadline - mono_ms();

			if (left <= 0) {
				timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			wait = (int)left + 1;
		}
		if (poll(pf, 2, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &pe[0] : &po[0];

			if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fd, buf, sizeof(buf));
			if (n > 0) {
				if (il_buf_add(i ? errb : out, buf, (size_t)n))
					r = il_err_set(err, IL_ENOMEM, "out of memory");
			} else if (n == 0 || errno != EINTR) {
				close(*fd);
				*fd = -1;
				open_fds--;
				pf[i].fd = -1;
			}
		}
	}
	do
		n = read(px[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		r = il_err_set(err, IL_ETIMEOUT, "'%s' timed out after %.1f s and was killed", argv[0], timeout_ms / 1e3);
		goto cleanup;
	}
	if (n == (ssize_t)sizeof(e)) {
		r = il_err_set(err, e == ENOENT ? IL_ENOTFOUND : IL_ECHILD, "cannot run '%s': %s", argv[0], strerror(e));
		goto cleanup;
	}
	if (WIFEXITED(st))
		ex->code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		ex->signal = WTERMSIG(st);
cleanup:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
		if (px[i] >= 0)
			close(px[i]);
	}
	return r;
}
