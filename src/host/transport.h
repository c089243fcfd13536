/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One interface to run things on a host, two implementations: `local` (this
 * machine, fork/exec) and `ssh` (libssh). Commands are argv vectors; the
 * ssh side turns them into a command string with il_sh_quote_argv only.
 */
#ifndef IL_HOST_TRANSPORT_H
#define IL_HOST_TRANSPORT_H

#include <signal.h>
#include <stdbool.h>

#include "host/inventory.h"
#include "util/buf.h"

struct il_exec_opts {
	int timeout_ms;      /* 0: the host's command_timeout_s */
	size_t max_out;      /* cap for stdout and for stderr each; 0: 16 MiB */
	bool privileged;     /* needs root: prefixed with `sudo -n` when the host says sudo and we are not root */
	const volatile sig_atomic_t *cancel; /* non-zero: stop the command (killed) and return IL_EINTR */
};

struct il_exec_result {
	int exit_code;       /* -1 when killed by a signal or unknown */
	int signal;          /* local: the terminating signal, else 0 */
	struct il_buf out;   /* out.truncated / err.truncated flag capped output */
	struct il_buf err;
	double elapsed_s;
};

void il_exec_result_release(struct il_exec_result *r);

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
 * initialised here and owned by the caller.
 */
int il_transport_exec(struct il_transport *t, char *const argv[], const struct il_exec_opts *o,
		      struct il_exec_result *res, struct il_err *err);

/* Run an embedded runners/ script with `sh -c SCRIPT` (+ args) through il_transport_exec. */
int il_transport_run_script(struct il_transport *t, const char *script, char *const args[],
			    const struct il_exec_opts *o, struct il_exec_result *res, struct il_err *err);

/* The ssh implementation (host/ssh.c). */
int il_ssh_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err);

#endif
