/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run directory (reports/<run-id>/): the names of its files, declared
 * once; making it complete-or-absent (DIR.tmp.XXXXXX renamed to DIR); and the
 * lock that allows one writer at a time. docs/plan.md describes the files.
 */
#ifndef IL_RUN_RUNDIR_H
#define IL_RUN_RUNDIR_H
#include <stdbool.h>
#include <stddef.h>
#include "util/err.h"

enum il_rundir_file {
	IL_RUNDIR_PLAN,      /* plan.json: the plan as run (hosts resolved) */
	IL_RUNDIR_PLAN_DIR,  /* plan_dir: the directory the plan's relative paths point into */
	IL_RUNDIR_JOURNAL,   /* journal.jsonl: the records (run/record.h) */
	IL_RUNDIR_LOCK,      /* lock: flock'd by the run writing the directory */
	IL_RUNDIR_SAMPLES,   /* samples/: each attempt's workload output */
	IL_RUNDIR_NFILES
};

/* Files per host: the fingerprint (host-NAME.json) and the host's own settings (saved-NAME.json). */
enum il_rundir_hostfile { IL_RUNDIR_FINGERPRINT, IL_RUNDIR_SAVED };

const char *il_rundir_name(enum il_rundir_file f);
/* DIR/NAME (caller frees; NULL: memory ran out). */
char *il_rundir_path(const char *dir, enum il_rundir_file f);
char *il_rundir_join(const char *dir, const char *name);
/* "host-NAME.json" / "saved-NAME.json", or DIR/that (caller frees). */
char *il_rundir_host_name(enum il_rundir_hostfile f, const char *host);
char *il_rundir_host_path(const char *dir, enum il_rundir_hostfile f, const char *host);
/* A sample's files in samples/: the workload's output, and with keep_trace its raw trace and snapshot pair. */
enum il_rundir_sample_file {
	IL_RUNDIR_SAMPLE_OUT,    /* SEQ-ATTEMPT.out: the workload's stdout */
	IL_RUNDIR_SAMPLE_ERR,    /* SEQ-ATTEMPT.err: its stderr */
	IL_RUNDIR_SAMPLE_TRACE,  /* SEQ-ATTEMPT.trace: the trace frame (idle/trace.h) */
	IL_RUNDIR_SAMPLE_BEFORE, /* SEQ-ATTEMPT.before.json: the snapshot the window opened with */
	IL_RUNDIR_SAMPLE_AFTER,  /* SEQ-ATTEMPT.after.json: the one it closed with */
	IL_RUNDIR_SAMPLE_NFILES
};
/* "samples/SEQ-ATTEMPT.out" (or the file f's suffix) into buf. */
const char *il_rundir_sample_name(char *buf, size_t size, size_t seq, int attempt, enum il_rundir_sample_file f);
/* The plan directory recorded in dir (caller frees), or NULL when none was. */
char *il_rundir_plan_dir(const char *dir);

/*
 * The run directories in dir: names (not paths) of its entries that hold a
 * journal.jsonl, sorted, appended to out; hidden ones and directories
 * never committed (NAME.tmp.XXXXXX) left out. IL_ENOTFOUND naming dir when
 * it cannot be read.
 */
struct il_strlist;
int il_rundir_list(struct il_strlist *out, const char *dir, struct il_err *err);

/* reports/YYYYmmdd-HHMMSS-NAME (reports/ made if missing; caller frees). */
char *il_rundir_default(const char *plan_name);

/*
 * Make DIR.tmp.XXXXXX beside dir with samples/, plan.json (plan_text) and
 * plan_dir (the directory of plan_path); *tmp (caller frees) names it, also
 * on failure, when it exists. dir must not exist.
 */
int il_rundir_prepare(const char *dir, const char *plan_text, const char *plan_path, char **tmp, struct il_err *err);
/* Rename tmp to dir (never over another) and fsync the parent: the run directory now exists. */
int il_rundir_commit(const char *tmp, const char *dir, struct il_err *err);
/* Remove a prepared directory that was never committed. */
void il_rundir_discard(const char *tmp);

/*
 * One writer per run directory: an flock on DIR/lock held until unlock (or
 * this process ends), the holder written in the file for whoever finds it
 * taken ("run DIR, pid N on HOST, since TIME"). shown is the directory as
 * the user named it.
 */
struct il_rundir_lock {
	int fd;              /* -1: not held */
	char holder[512];    /* "run DIR, pid N on HOST": what a busy run or host lock says */
};
int il_rundir_lock(struct il_rundir_lock *l, const char *dir, const char *shown, struct il_err *err);
void il_rundir_unlock(struct il_rundir_lock *l);

#endif
