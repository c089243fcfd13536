/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run journal (reports/<run>/journal.jsonl): one JSON record per line,
 * appended and fsync'd before the next sample starts, so a crash loses at
 * most the sample in flight. It is the source of truth every report is
 * regenerated from. Reading tolerates exactly one torn last line (a crash
 * during the append) and nothing else.
 */
#ifndef IL_RUN_JOURNAL_H
#define IL_RUN_JOURNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "util/err.h"

struct il_journal {
	int fd;
	char *path;
	size_t torn;   /* bytes of a torn last line il_journal_open cut off (0: none) */
};

/*
 * Open for appending (created if missing, never through a symbolic link; the
 * directory is fsync'd on creation). A torn last line (a crash or a full disk
 * during an append) is cut off first, its size in j->torn: appended after,
 * the next record would share its line and the journal would stop being
 * readable there. Every JSON-lines file idlelab appends to is written here.
 */
int il_journal_open(struct il_journal *j, const char *path, struct il_err *err);
/* Append rec as one line and fsync; a line written in part (ENOSPC) is taken back. */
int il_journal_append(struct il_journal *j, const json_t *rec, struct il_err *err);
/*
 * The same in two steps, for a record that must be written the instant
 * something happened (a delivery): il_journal_line serializes rec as the
 * line to append (newline included; the caller frees; NULL when out of
 * memory), il_journal_append_line writes it with one write(2) and fsyncs.
 */
char *il_journal_line(const json_t *rec);
int il_journal_append_line(struct il_journal *j, const char *line, struct il_err *err);
void il_journal_close(struct il_journal *j);

/*
 * Call fn for every record in order (line is 1-based). A line that is not a
 * JSON object with a string "type" is an error naming path:line, except a
 * last line without its newline, which is reported in *torn (bytes; may be
 * NULL) and skipped. fn returning non-zero stops the walk with that value.
 */
typedef int (*il_journal_fn)(json_t *rec, size_t line, void *ctx, struct il_err *err);
int il_journal_each(const char *path, il_journal_fn fn, void *ctx, size_t *torn, struct il_err *err);

/*
 * The reason of the first sample record of the journal at path that has one
 * (*reason, caller frees; NULL when none), and whether it says the kernel did
 * not build (the kernel stage's words, run/kstage.c): what a run that counted
 * nothing failed on.
 */
void il_journal_first_failure(const char *path, char **reason, bool *build);

#endif
