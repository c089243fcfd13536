/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where each sample of a run stands: final or not, attempts made, and
 * infrastructure failures among them (the retry budget) — kept by the
 * engine as samples run, and rebuilt from the journal on resume.
 */
#ifndef IL_RUN_TALLY_H
#define IL_RUN_TALLY_H
#include <stdbool.h>
#include <stddef.h>
#include "run/plan.h"

struct il_tally {
	size_t n, done;      /* samples planned, and final among them */
	bool *final;         /* per seq */
	int *attempts;       /* per seq: the highest attempt number journaled */
	int *failures;       /* per seq: infra_failed or invalid attempts */
	bool ended;          /* the journal has its run-end record */
	int stop_rounds;     /* an adaptive run's stop record: the rounds it ran (-1: none) */
};

/* Zeroed counts for n samples (release it). */
int il_tally_init(struct il_tally *t, size_t n, struct il_err *err);
void il_tally_release(struct il_tally *t);
/*
 * The retry policy, for every kind of host: an attempt ending in status
 * (retryable or not) counts an infra_failed or invalid attempt against
 * seq's budget of `retries`; returns whether the sample is now final (then
 * the caller journals it so and calls il_tally_final).
 */
bool il_tally_attempt(struct il_tally *t, size_t seq, const char *status, bool retryable, int retries);
/* Record an attempt's outcome; final marks the sample done. */
void il_tally_final(struct il_tally *t, size_t seq);
/*
 * After an adaptive run's stop record: the counted samples of the rounds it
 * did not run are done (never run; no record). Returns how many were not
 * final before.
 */
size_t il_tally_stop(struct il_tally *t, const struct il_spec *specs, int rounds);

/*
 * Read journal path (missing: nothing done) into t, checking that every
 * sample record matches the plan's matrix (specs) in variant and workload.
 * *torn: bytes of a torn last line (il_journal_each).
 */
int il_tally_scan(struct il_tally *t, const char *path, const struct il_plan *plan, const struct il_spec *specs,
		  size_t *torn, struct il_err *err);

#endif
