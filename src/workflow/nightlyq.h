/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The nightly's alert queue (docs/nightly.md "Alerts are owed until
 * delivered"): a regression's verdict record carries its alert input and the
 * destinations it is owed to; each delivery is a record of its own in
 * nightly.jsonl ("nightly-alert"). What is owed is what the verdicts promised
 * minus what was delivered: every nightly, whatever its own verdict, tries
 * the owed destinations again, and only those, until each is delivered.
 * Here too: journaling one delivery attempt (il_nightly_delivery_*,
 * declared in nightly.h with the result they belong to).
 */
#ifndef IL_WORKFLOW_NIGHTLYQ_H
#define IL_WORKFLOW_NIGHTLYQ_H
#include <stdbool.h>
#include <jansson.h>
#include "util/err.h"

/* Declared once: where a nightly's alert goes; names in the journal and the output. */
enum il_nightly_dest {
	IL_NIGHTLY_MAIL,
	IL_NIGHTLY_WEBHOOK,
	IL_NIGHTLY_KCIDB,        /* every measured night's results, to KernelCI's database (not only a regression) */
	IL_NIGHTLY_NDESTS
};
const char *il_nightly_dest_name(enum il_nightly_dest d);

/*
 * The alerts still owed by the records of one plan and host (past: their
 * nightly.jsonl records in order, "nightly" and "nightly-alert"), oldest
 * first: [{"run", "commit", "time", "alert" (a regression's), "record" (the
 * verdict record), "owed": [DEST...]}] with the destinations not delivered yet. A new reference the caller decrefs; NULL
 * only when memory ran out.
 */
json_t *il_nightlyq_owed(const json_t *past);

/* Whether the owed entry e (from il_nightlyq_owed) is still owed to d. */
bool il_nightlyq_owes(const json_t *e, enum il_nightly_dest d);

/*
 * The "nightly-alert" record of one delivery attempt of owed entry e to d for
 * plan and host: delivered, or not with why (NULL when delivered). A new
 * reference; NULL only when memory ran out.
 */
json_t *il_nightlyq_delivery(const char *plan, const char *host, const json_t *e, enum il_nightly_dest d, const char *why);

#endif
