/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An idle trace of this machine (`idlelab idle-stat --trace`): the runners'
 * own trace functions (runners/trace.sh: a tracefs instance of its own, the
 * events, the frame) run by local shells, with the markers written here, so
 * the frame is the one a host's sample sends and idle/trace.h reduces it.
 */
#ifndef IL_HOST_LOCALTRACE_H
#define IL_HOST_LOCALTRACE_H

#include "util/buf.h"
#include "util/err.h"

struct il_localtrace {
	char id[32];      /* the instance is idlelab-ID */
	char *inst;       /* its directory; NULL when none is held */
	char *tick, *events, *mounted; /* what tron decided, handed back to troff and trdel */
};

/* Make and start the instance (buffer_kb per CPU) and mark "pre". Errors say why (no tracefs, ...). */
int il_localtrace_start(struct il_localtrace *t, int buffer_kb, struct il_err *err);
/* Write idlelab-WHICH (begin, end) into the trace. */
int il_localtrace_mark(const struct il_localtrace *t, const char *which, struct il_err *err);
/* Mark "post", stop, read the frame into out, remove the instance. */
int il_localtrace_stop(struct il_localtrace *t, struct il_buf *out, struct il_err *err);
/* Remove the instance if it is still there (after an error) and free t's strings. */
void il_localtrace_release(struct il_localtrace *t);

#endif
