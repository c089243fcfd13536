// SPDX-License-Identifier: GPL-2.0-or-later
/* Local child processes without a shell. */
#include "util/proc.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <sys/wait.h>

/* fork + execvp with a close-on-exec pipe that carries exec's errno back (works under valgrind too) */
int il_proc_run(char *const argv[], struct il_exit *out, struct il_err *err)
{
	struct sigaction ign = { 0 }, old_int, old_quit;
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
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
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
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return r;
}

int il_exit_status(const struct il_exit *e)
{
	return e->signal ? 128 + e->signal : e->code;
}
