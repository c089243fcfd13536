/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan's samples on a LAVA host (docs/lava.md): the engine's loop over a
 * host's samples, for a host idlelab does not drive itself. Each kernel
 * block becomes one or more LAVA jobs (run/lavajob.h; at most the host's
 * "boards" at once, the block's samples dealt out between them), submitted
 * through the REST API (host/lava.h) and followed to the end; each job's
 * files come back from its log and its samples are judged and journaled
 * like any other (run/sample.h), with the job's id and device. A job that
 * ends Incomplete, times out in the queue or loses a sample's file makes
 * that sample an infrastructure failure (retried per the plan, never a
 * verdict); a Canceled job stops the run as interrupted. Every submitted
 * job is journaled ("lava-job") before it is followed, so a resumed run
 * follows it again instead of submitting it twice.
 */
#ifndef IL_RUN_LAVARUN_H
#define IL_RUN_LAVARUN_H
#include <stddef.h>
#include "util/buf.h"
#include "kernel/kplan.h"
#include "run/context.h"
#include "run/engine.h"
#include "run/tally.h"

struct il_lavarun {
	const struct il_run_ctx *c;
	const struct il_spec *specs;   /* the plan's matrix, in run order */
	struct il_tally *t;            /* updated as samples become final */
	const struct il_kvars *kv;     /* the plan's kernel variants */
	int host;                      /* index in plan->hosts */
	void (*emit)(void *ctx, struct il_run_event *ev); /* progress (done/total filled by the engine) */
	void *emit_ctx;
	size_t ran;                    /* samples made final here */
};

/* Run host lr->host's pending samples. 0, IL_EINTR (stopped or a job canceled) or an error. */
int il_lavarun_host(struct il_lavarun *lr, struct il_err *err);

/*
 * The jobs a run would submit first for host lr->host (`idlelab lava
 * jobdef`), each a YAML document after a "# what" comment, appended to out:
 * nothing is submitted, copied, built or journaled (lr->c needs its plan
 * and options only; lr->t a fresh tally). Images are named by the URLs a
 * run would publish them under.
 */
int il_lavarun_jobdefs(struct il_lavarun *lr, struct il_buf *out, struct il_err *err);

/* The same for every LAVA host of the plan at plan_path (o->host replaces its hosts, as for a run). */
int il_lavarun_jobdef_plan(const char *plan_path, const struct il_run_opts *o, struct il_buf *out,
			   struct il_err *err);

#endif
