/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target side of a sample (runners/sample.sh): building its argument
 * vector and parsing its framed output. Frames carry byte counts, so a
 * workload's output can never be mistaken for a frame.
 */
#ifndef IL_RUN_RUNNER_H
#define IL_RUN_RUNNER_H
#include <stdbool.h>
#include "util/buf.h"
#include "util/strlist.h"

struct il_runner_args {
	const char *root;        /* sysfs root prefix ("" on real hosts) */
	double quiesce_s;
	const char *cpus;        /* canonical CPU list or NULL */
	const char *governor;    /* NULL: do not switch */
	int timeout_s;
	const char *workdir;     /* "UID:PATH" of idlelab's private directory on the host (host/workdir.h) */
	int trace_kb;            /* > 0: an idle trace (runners/trace.sh) with this ring buffer per CPU, in KiB */
	const struct il_strlist *writes; /* path, value, path, value, ... (validated by the caller) */
	const struct il_strlist *argv;   /* the workload */
};

/* The script text (snapshot.sh as snap() + sample.sh); caller frees. */
char *il_runner_sample_script(void);

/*
 * argv for the script: the sample's id first (its files on the host and
 * il_lease_cancel's handle; caller frees the list). The frames' nonce is not
 * in it: it goes on the script's stdin (il_runner_sample_input), since the
 * workload can read its runner's argv.
 */
int il_runner_sample_argv(struct il_strlist *out, const char *id, const struct il_runner_args *a);

/* The script's stdin for nonce ("NONCE\n") into buf of size n; false if it does not fit. */
bool il_runner_sample_input(char *buf, size_t n, const char *nonce);

struct il_runner_out {
	char *fail;              /* set when the runner gave up before measuring */
	char *release, *machine; /* uname -r, uname -m */
	struct il_buf pre, post, out, err;
	bool has_qos;            /* a PM QoS scan (runners/pmqos.sh) ran while the workload did */
	struct il_buf qos;       /* its dump (idle/pmqos.h) */
	bool has_trace;          /* the sample was traced (runners/trace.sh) */
	struct il_buf trace;     /* the trace frame (idle/trace.h) */
	bool has_status;
	int status;              /* workload exit status (128+sig when killed) */
	bool complete;           /* the end frame arrived */
};

/*
 * Parse text; errors name what is missing or malformed, a frame that comes
 * twice included (one output holds one sample). out is owned by the caller.
 * Complete frames are the runner's only with the runner's own exit status 0
 * as its transport saw it: the caller checks that (il_sample_judge).
 */
int il_runner_parse(const char *text, size_t len, const char *nonce, struct il_runner_out *out, struct il_err *err);
void il_runner_out_release(struct il_runner_out *o);

#endif
