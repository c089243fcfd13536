/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One interface to run things on a host, three implementations: `local`
 * (this machine, fork/exec), `ssh` (libssh) and `command` (the host file's
 * argv templates: host/cmdtransport.h). Commands are argv vectors; the ssh
 * and command sides turn them into a command string with il_quote_argv
 * only. Which one a host gets is its il_host_kind (one table: host/hostkind.c).
 * The files stand in one order, each using only those below it:
 * host/transportopen.c (il_transport_open) -> host/hostkind.c (the table) ->
 * the kinds (host/ssh.c, host/cmdtransport.c, host/transportlocal.c) ->
 * host/transport.c (what they share: il_transport_exec, the transfers'
 * helpers, the held child).
 */
#ifndef IL_HOST_TRANSPORT_H
#define IL_HOST_TRANSPORT_H

#include <signal.h>
#include <stdbool.h>

#include "host/host.h"
#include "util/buf.h"
#include "util/proc.h"

struct il_exec_opts {
	int timeout_ms;      /* 0: the host's command_timeout_s */
	size_t max_out;      /* cap for stdout and for stderr each; 0: 16 MiB */
	bool privileged;     /* needs root: prefixed with `sudo -n` when the host says sudo and we are not root */
	const volatile sig_atomic_t *cancel; /* non-zero: stop the command (killed) and return IL_EINTR */
	/*
	 * NULL: nothing on the command's stdin. Else at most PIPE_BUF bytes written
	 * to it, then its end: what the command must get but not pass on to what
	 * it runs (a sample's frame nonce; argv and environment can be read from
	 * /proc by any process of the same user). A command transport's exec
	 * program must pass stdin through, as for the host lock.
	 */
	const char *input;
};

struct il_exec_result {
	int exit_code;       /* -1 when killed by a signal or unknown */
	int signal;          /* local: the terminating signal, else 0 */
	struct il_buf out;   /* out.truncated / err.truncated flag capped output */
	struct il_buf err;
	double elapsed_s;
};

void il_transport_result_release(struct il_exec_result *r);

struct il_transport {
	const struct il_host_cfg *cfg;  /* borrowed; must outlive the transport */
	const char *label;              /* host name for messages */
	char auth[64];                  /* how we authenticated ("publickey (file)", "local") */
	bool is_root;
	/* Run argv; a non-zero exit is not an error (see res->exit_code). IL_ETIMEOUT, IL_ESSH, ... otherwise. */
	int (*exec)(struct il_transport *t, char *const argv[], const struct il_exec_opts *o, struct il_exec_result *res,
		    struct il_err *err);
	/* Copy a file to/from the host: SHA-256 verified on both sides, written to a temp name and renamed. */
	int (*upload)(struct il_transport *t, const char *local, const char *remote, struct il_err *err);
	int (*download)(struct il_transport *t, const char *remote, const char *local, struct il_err *err);
	/*
	 * Start argv (no sudo) and keep it running until hold_release, at most
	 * one per transport (the host lock): *first gets its first line of
	 * output. A command that ends at once is not held (hold_alive false).
	 * A held command ends with its connection (idlelab gone, host rebooted).
	 */
	int (*hold)(struct il_transport *t, char *const argv[], int timeout_ms, struct il_buf *first, struct il_err *err);
	bool (*hold_alive)(struct il_transport *t);
	void (*hold_release)(struct il_transport *t);
	void (*free)(struct il_transport *t);
};

/* Connect (for ssh: connect, verify the host key, authenticate). Caller frees with il_transport_free. */
int il_transport_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err);
void il_transport_free(struct il_transport *t);

/*
 * Run argv, applying o->privileged (sudo prefix) and defaults; res is
 * initialised here and owned by the caller (on an error it is left empty).
 */
int il_transport_exec(struct il_transport *t, char *const argv[], const struct il_exec_opts *o,
		      struct il_exec_result *res, struct il_err *err);

/* Run an embedded runners/ script with `sh -c SCRIPT` (+ args) through il_transport_exec. */
int il_transport_run_script(struct il_transport *t, const char *script, char *const args[],
			    const struct il_exec_opts *o, struct il_exec_result *res, struct il_err *err);

/* The ssh implementation (host/ssh.c). */
int il_ssh_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err);
/* this machine, fork/exec (the built-in host `local`: host/transportlocal.c) */
int il_transport_local_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err);

/*
 * A transport whose held command is a child process here (local, command):
 * il_transport_proc_new allocates it with cfg, label, hold_alive,
 * hold_release and free set; the caller sets the rest.
 */
struct il_transport_proc {
	struct il_transport base;
	struct il_proc_held held;
};
struct il_transport_proc *il_transport_proc_new(const struct il_host_cfg *cfg);

/* Helpers the implementations share for their transfers. */

/* 16 random hex digits (getrandom; the clock and pid if it fails) into hex. */
void il_transport_nonce(char hex[17]);

/* "REMOTE.idlelab-tmp.<nonce>" appended to b: a name no one can guess and plant something at. */
int il_transport_tmpname(struct il_buf *b, const char *remote);

/* `sha256sum PATH` on the host: its 64 hex digits into hex. */
int il_transport_sha256(struct il_transport *t, const char *path, char hex[65], struct il_err *err);

/* `mv -f FROM TO` on the host (a temporary name into place). */
int il_transport_rename(struct il_transport *t, const char *from, const char *to, struct il_err *err);

#endif
