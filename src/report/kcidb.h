/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Results as KernelCI's database takes them: one KCIDB v5.3 document
 * (kcidb-io's schema v05_03: checkouts, builds, tests, issues, incidents;
 * docs/export.md) from run directories and nightly directories. Each kernel
 * a checkout and a build; each variant's key metric (the decision family) a
 * test whose number is its mean, with what a dashboard reader needs in its
 * misc (n, stdev, the ratio's interval, the verdict, p, the reference, the
 * governor and the workload's parameters); a nightly's regression an issue
 * with an incident on each test it is present in. Ids are "ORIGIN:kind-HASH"
 * of what identifies the object (the run, the kernel's commit, the variant
 * and metric), so a second export of the same runs gives the same ids and
 * a second submission merges into the first.
 */
#ifndef IL_REPORT_KCIDB_H
#define IL_REPORT_KCIDB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* The document's schema version. */
#define IL_KCIDB_MAJOR 5
#define IL_KCIDB_MINOR 3

/* Whether name is a KCIDB origin: ^[a-z0-9_]+$. */
bool il_kcidb_origin_ok(const char *name);

/*
 * The document of dirs[0..n) (run directories, or nightly directories:
 * every run their nightly.jsonl lists) under origin into *out (caller
 * decrefs). Errors name the directory: not a run (no journal.jsonl, no
 * run-start record), no counted sample; IL_EINVAL for an origin that is
 * not one.
 */
int il_kcidb_document(const char *const *dirs, size_t n, const char *origin, json_t **out, struct il_err *err);

/*
 * The document of one nightly: its verdict record (a "nightly" record of
 * DIR/nightly.jsonl) and the run it names, as il_kcidb_document exports a
 * nightly directory's runs. What `idlelab nightly --kcidb` submits each night.
 */
int il_kcidb_night(const char *nightly_dir, const json_t *record, const char *origin, json_t **out, struct il_err *err);

#endif
