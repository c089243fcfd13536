/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One idlelab run per host (runners/lock.sh): a flock(1) on the host, in
 * idlelab's working directory, held by a command that lives exactly as long
 * as this process's connection (il_transport hold). A second run gets an
 * error naming the holder; a dead holder or a reboot leaves no stale lock.
 */
#ifndef IL_HOST_HOSTLOCK_H
#define IL_HOST_HOSTLOCK_H
#include <stdbool.h>
#include "host/transport.h"
#include "util/err.h"

/*
 * Take the host's lock for holder (a description: "run DIR, pid N on HOST").
 * workdir is il_workdir_get's "UID:PATH". A host held by another run is
 * IL_EPERM: "host 'x' is in use by another idlelab run (HOLDER)".
 */
int il_host_lock(struct il_transport *t, const char *workdir, const char *holder, struct il_err *err);

/* Still held (the command and its connection live)? */
bool il_host_lock_held(struct il_transport *t);

/* Let go (no-op when not held). */
void il_host_unlock(struct il_transport *t);

#endif
