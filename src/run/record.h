/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal's schema: every record kind and every field a kind may carry,
 * declared once (IL_RECORD_KINDS, IL_RECORD_FIELDS). Writers build records
 * with il_record_new/il_record_set (a field of another kind is refused), and the
 * readers (run/journalread.c for a run's results, the engine's resume scan)
 * check records with il_record_check against the same list — so adding a field is one line here
 * plus the writer's il_record_set, and journals with it are still read.
 * docs/formats.md describes the fields for users.
 */
#ifndef IL_RUN_RECORD_H
#define IL_RUN_RECORD_H
#include <stddef.h>
#include <jansson.h>
#include "util/err.h"

/* X(KIND, "type"): the record kinds, by their "type" value */
#define IL_RECORD_KINDS(X)                 \
	X(RUN_START, "run-start")           \
	X(HOST, "host")                     \
	X(SAMPLE, "sample")                 \
	X(BOOT, "boot")                     \
	X(RESTORED, "restored")             \
	X(INTERRUPTED, "interrupted")       \
	X(RESUME, "resume")                 \
	X(LAVA_JOB, "lava-job")             \
	X(STOP, "stop")                     \
	X(RUN_END, "run-end")

/*
 * X(KIND, FIELD, "key"): the fields of each kind, in the order writers set
 * them. ANY: a field every kind may carry ("type" itself, and "time", which
 * the engine adds to every record but samples).
 */
#define IL_RECORD_FIELDS(X)                          \
	X(ANY, TYPE, "type")                          \
	X(ANY, TIME, "time")                          \
	X(RUN_START, RUN_DIR, "run_dir")              \
	X(RUN_START, PLAN_NAME, "plan_name")          \
	X(RUN_START, SAMPLES, "samples")              \
	X(RUN_START, REFERENCE, "reference")          \
	X(RUN_START, VARIANTS, "variants")            \
	X(RUN_START, WORKLOADS, "workloads")          \
	X(RUN_START, ITERATIONS, "iterations")        \
	X(RUN_START, ADAPTIVE, "adaptive")            \
	X(RUN_START, WARMUP, "warmup")                \
	X(RUN_START, ORDER, "order")                  \
	X(RUN_START, PLAN, "plan")                    \
	X(RUN_START, KERNELS, "kernels")              \
	X(RUN_START, VERSION, "idlelab_version")      \
	X(HOST, HOST, "host")                         \
	X(HOST, FINGERPRINT, "fingerprint")           \
	X(HOST, KIND, "kind")                         \
	X(SAMPLE, SEQ, "seq")                         \
	X(SAMPLE, ATTEMPT, "attempt")                 \
	X(SAMPLE, FINAL, "final")                     \
	X(SAMPLE, STATUS, "status")                   \
	X(SAMPLE, REASON, "reason")                   \
	X(SAMPLE, HOST, "host")                       \
	X(SAMPLE, KERNEL, "kernel")                   \
	X(SAMPLE, VARIANT, "variant")                 \
	X(SAMPLE, GOVERNOR, "governor")               \
	X(SAMPLE, GOVERNOR_READ, "governor_read")     \
	X(SAMPLE, DISABLE, "disable")                 \
	X(SAMPLE, WORKLOAD, "workload")               \
	X(SAMPLE, WORKLOAD_NAME, "workload_name")     \
	X(SAMPLE, PARAMS, "params")                   \
	X(SAMPLE, ITERATION, "iteration")             \
	X(SAMPLE, WARMUP, "warmup")                   \
	X(SAMPLE, METRICS, "metrics")                 \
	X(SAMPLE, IDLE, "idle")                       \
	X(SAMPLE, NOTE, "note")                       \
	X(SAMPLE, INTERVAL_S, "interval_s")           \
	X(SAMPLE, KERNEL_RELEASE, "kernel_release")   \
	X(SAMPLE, MACHINE, "machine")                 \
	X(SAMPLE, BOOT_ID, "boot_id")                 \
	X(SAMPLE, DRIVER, "driver")                   \
	X(SAMPLE, EXIT_STATUS, "exit_status")         \
	X(SAMPLE, FINGERPRINT, "fingerprint")         \
	X(SAMPLE, OUTPUT, "output")                   \
	X(SAMPLE, ERRORS, "errors")                   \
	X(SAMPLE, STARTED, "started")                 \
	X(SAMPLE, ENDED, "ended")                     \
	X(SAMPLE, ELAPSED_S, "elapsed_s")             \
	X(SAMPLE, VERSION, "idlelab_version")         \
	X(SAMPLE, LAVA_JOB, "lava_job")               \
	X(SAMPLE, DEVICE, "device")                   \
	X(SAMPLE, TRACE_FILES, "trace_files")         \
	X(BOOT, HOST, "host")                         \
	X(BOOT, KERNEL, "kernel")                     \
	X(BOOT, RELEASE, "release")                   \
	X(BOOT, METHOD, "method")                     \
	X(BOOT, IMAGE, "image")                       \
	X(BOOT, OK, "ok")                             \
	X(BOOT, ERROR, "error")                       \
	X(BOOT, STARTED, "started")                   \
	X(BOOT, STEPS, "steps")                       \
	X(RESTORED, HOST, "host")                     \
	X(RESTORED, OK, "ok")                         \
	X(RESTORED, ERROR, "error")                   \
	X(INTERRUPTED, HOST, "host")                  \
	X(INTERRUPTED, NEXT_SEQ, "next_seq")          \
	X(LAVA_JOB, HOST, "host")                     \
	X(LAVA_JOB, KERNEL, "kernel")                 \
	X(LAVA_JOB, JOB, "job")                       \
	X(LAVA_JOB, URL, "url")                       \
	X(LAVA_JOB, SEQS, "seqs")                     \
	X(LAVA_JOB, ATTEMPTS, "attempts")             \
	X(LAVA_JOB, NONCES, "nonces")                 \
	X(RESUME, DONE, "done")                       \
	X(RESUME, PENDING, "pending")                 \
	X(RESUME, TORN_BYTES, "torn_bytes")           \
	X(STOP, ROUNDS, "rounds")                     \
	X(STOP, REASON, "reason")                     \
	X(STOP, WHY, "why")                           \
	X(STOP, SKIPPED, "skipped")                   \
	X(RUN_END, SAMPLES, "samples")

enum il_rec_kind {
	IL_REC_ANY,
#define IL_REC_KIND_ENUM(kind, name) IL_REC_##kind,
	IL_RECORD_KINDS(IL_REC_KIND_ENUM)
#undef IL_REC_KIND_ENUM
	IL_REC_NKINDS
};

enum il_rec_field {
#define IL_REC_FIELD_ENUM(kind, field, key) IL_RF_##kind##_##field,
	IL_RECORD_FIELDS(IL_REC_FIELD_ENUM)
#undef IL_REC_FIELD_ENUM
	IL_RF_COUNT
};

/* The "type" value of a kind ("sample"). */
const char *il_record_kind_name(enum il_rec_kind k);
/* A record's kind from its "type"; IL_REC_ANY for a type this version does not know. */
enum il_rec_kind il_record_kind_of(const json_t *rec);

/* A new record {"type": ...} of kind k (caller owns; NULL: memory ran out). */
json_t *il_record_new(enum il_rec_kind k);
/*
 * Set field f of rec to v (the reference is stolen; v NULL sets nothing, as
 * json_object_set_new does). A field of another kind is a programming error:
 * IL_EINVAL, nothing set. il_record_set_copy takes a new reference instead.
 */
int il_record_set(json_t *rec, enum il_rec_field f, json_t *v);
int il_record_set_copy(json_t *rec, enum il_rec_field f, json_t *v);

struct il_plan;
struct il_kvars;
/*
 * The run-start record: the plan, the variants in order with what defines
 * them, and each workload's metrics with unit and direction, so reports can
 * be regenerated from journal.jsonl alone (caller owns; NULL: memory ran out).
 */
json_t *il_record_run_start(const struct il_plan *p, const char *run_dir, size_t samples, const struct il_kvars *kv);


/*
 * Check that every field of rec belongs to its kind ("PATH:LINE: unknown
 * field 'x' in a sample record (written by another idlelab version?)").
 * Records of kinds this version does not know pass: they are skipped by readers.
 */
int il_record_check(const json_t *rec, const char *path, size_t line, struct il_err *err);

#endif
