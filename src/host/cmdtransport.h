/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command transport: a host reached through programs run on this
 * machine, the host file's "transport" argv templates (adb, a container
 * shell, ssh(1), a serial console helper; struct il_host_cmds).
 *
 * exec runs the exec template with {cmd} = the argv idlelab wants to run,
 * quoted for POSIX sh (il_quote_argv), then a marker that prints the
 * command's exit status on stderr: the exit status of the transport's own
 * program is not the command's (adb before Android 7 exits 0 whatever the
 * command did), so the marker is the exit code, and an exec whose marker did
 * not come back did not run to its end (IL_ECONNECT, the program's status and
 * stderr said). The marker is cut off again: stdout and stderr are the
 * command's. Timeouts and cancelling kill this machine's program (its
 * process group, util/proc.h); what it started on the host may go on, as
 * over SSH (runners/cancel.sh stops samples by a separate exec).
 *
 * upload runs push to a random temporary name on the host, download runs
 * pull to a temporary name here (without pull: `cat FILE` through exec,
 * stdout kept byte for byte); both are checked with sha256sum on the host
 * before the rename. The host lock is a held child (il_proc_hold) running
 * the exec template. `sudo -n` as for SSH (il_transport_exec); is_root from
 * `id -u`.
 */
#ifndef IL_HOST_CMDTRANSPORT_H
#define IL_HOST_CMDTRANSPORT_H

#include <stdbool.h>

#include "host/transport.h"
#include "util/buf.h"

/*
 * The templates' placeholders (struct il_host_cmds), NULL-terminated: exec's
 * ({cmd}) and push's and pull's ({src} {dst}). Here, with the kind that
 * expands them, for the host file's parser (host/host.c) to check them
 * against: the parser is above the kinds, never the other way round.
 */
extern const char *const il_cmdtransport_exec_names[];
extern const char *const il_cmdtransport_copy_names[];

/*
 * Open a transport for cfg (kind IL_HOST_COMMAND): `id -u` runs through it
 * within connect_timeout_s (a program that is missing or a device that is
 * not there fails here, naming the host: IL_ECONNECT, IL_ENOTFOUND,
 * IL_ETIMEOUT; a host that answers with a failure is IL_EIO, with anything
 * but a numeric uid IL_EPARSE). Caller frees with il_transport_free.
 */
int il_cmdtransport_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err);

/*
 * The value of {cmd} for argv, appended to b: argv quoted for sh, then
 * `; printf '\nidlelab-rc:NONCE:%d\n' "$?" >&2` (nonce: letters and digits,
 * new for each exec). Returns 0 or IL_ENOMEM.
 */
int il_cmdtransport_command(struct il_buf *b, char *const argv[], const char *nonce);

/*
 * The argv exec runs for argv: cfg's exec template with {cmd} as
 * il_cmdtransport_command makes it for nonce (nonce NULL: argv quoted alone, no
 * marker: the held lock). *av is the caller's, freed with free().
 */
int il_cmdtransport_argv(const struct il_host_cfg *cfg, char *const argv[], const char *nonce, char ***av, struct il_err *err);

/*
 * The exit status the marker of nonce carries, looked for in errb, then in
 * out (a transport that merges stderr into stdout: adb before Android 7), a
 * "\r\n" from a terminal accepted: its line is cut out of the buffer and
 * *code set. False when neither has it.
 */
bool il_cmdtransport_status(struct il_buf *out, struct il_buf *errb, const char *nonce, int *code);

#endif
