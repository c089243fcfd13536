/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the cmocka unit tests: fixture paths, temp directories, and
 * materialising a path:value dump into a real directory tree.
 */
#ifndef IL_TESTUTIL_H
#define IL_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "idle/govctl.h"
#include "idle/snapshot.h"

/* Path of a file in tests/fixtures/sysfs (IL_SRCDIR or "."); static buffer. */
const char *tu_fixture(const char *name);
/* Path of rel in the source tree (IL_SRCDIR or "."); one of four static buffers, used in turn. */
const char *tu_srcpath(const char *rel);
/* Absolute path of rel in tests/fixtures (for code that changes directory); four static buffers, in turn. */
const char *tu_fixture_abs(const char *rel);
/* Whole file, NUL-terminated, length in *len (may be NULL). Fails the test on error. */
char *tu_read(const char *path, size_t *len);
/* A new temp directory (caller frees the string and calls tu_rmtree). */
char *tu_tmpdir(void);
void tu_rmtree(const char *dir);
/* Write every path:value line of dump_path as a file under root. Fails the test on error. */
void tu_materialize(const char *dump_path, const char *root);
/* Write text to root+path, creating directories. */
void tu_write(const char *root, const char *path, const char *text);
/* text as dir/name, byte for byte (tu_write adds a newline: a journal's last line must be able to be torn). */
void tu_write_raw(const char *dir, const char *name, const char *text);

/*
 * A run's journal.jsonl in dir, as the engine writes it, for the decision
 * tests: variants vars[0..nv) (vars[0] the reference; with aa, vars[1] is its
 * A/A copy: the same governor), one workload "w" on host kind "ssh" whose
 * metrics mets[0..nm) are all "lower is better", key_metrics as the JSON
 * array keys (NULL: none declared), iterations its samples per variant,
 * round-robin; val(v, m, i, ctx) gives each value. iterations_json (NULL:
 * a fixed run) is the run-start's "adaptive" ({"min": 5, "max": 40}).
 */
void tu_journal(const char *dir, const char *const *vars, size_t nv, bool aa, const char *const *mets, size_t nm,
		const char *keys, int iterations, const char *iterations_json,
		double (*val)(size_t v, size_t m, int i, void *ctx), void *ctx);
/* How many times needle occurs in hay, without overlap. */
size_t tu_count(const char *hay, const char *needle);
/* Parse a fixture dump; fails the test if it does not parse. */
void tu_parse_fixture(struct il_snapshot *out, const char *name);

/*
 * The governor round trip on a real host: set other through fs and read it
 * back through check, then il_govctl_restore saved through fs and read its
 * governor back through check (fs and check may be the same).
 */
void tu_gov_round_trip(struct il_sysfs *fs, struct il_sysfs *check, const struct il_idle_saved *saved, const char *other);

/*
 * A test of one parsed fixture: cmocka runs fn with *state the struct
 * il_snapshot of tests/fixtures/sysfs/NAME (tu_parse_fixture), and releases
 * it afterwards.
 */
#define TU_SNAPSHOT_TEST(fn, name) \
	cmocka_unit_test_prestate_setup_teardown(fn, tu_snapshot_setup, tu_snapshot_teardown, (void *)(name))
int tu_snapshot_setup(void **state);
int tu_snapshot_teardown(void **state);

#define TU_SKIP(reason)                                   \
	do {                                              \
		print_message("skipped: %s\n", (reason)); \
		skip();                                   \
	} while (0)


/* ---- a real OpenSSH sshd on 127.0.0.1 (tests of the ssh transport) ---- */
#include <sys/types.h>

struct tu_sshd {
	char dir[256];        /* temp dir with keys, config, log */
	int port;
	pid_t pid;
	char client_key[300]; /* authorized */
	char wrong_key[300];  /* not authorized */
	char known_hosts[300];/* has the server's key for [127.0.0.1]:port */
	char host_pub[512];   /* "ssh-ed25519 AAAA..." */
};

/* Start sshd in a new temp dir at a free port. Returns NULL-free reason on failure (skip), NULL on success. */
const char *tu_sshd_start(struct tu_sshd *s);
/* Start again on the same port and keys (after tu_sshd_kill). */
const char *tu_sshd_restart(struct tu_sshd *s);
/* SIGKILL sshd and every process it forked (active sessions included). */
void tu_sshd_kill(struct tu_sshd *s);
/* Stop and remove the temp dir. */
void tu_sshd_stop(struct tu_sshd *s);
/* A free TCP port on 127.0.0.1. */
int tu_free_port(void);

/* ---- jansson out of memory ---- */

/*
 * jansson's n-th allocation (0: the first) fails, the others do not (a
 * build that goes on after a failure would show it: a part left out);
 * tu_json_oom_end restores the allocator and says whether it came to the
 * n-th. Callers try n = 0, 1, ... until a build never did, and check every
 * build is either an error or the whole result, never a part of it.
 */
void tu_json_oom(long n);
bool tu_json_oom_end(void);
/*
 * The step from one n to the next: 1, or $IL_TEST_OOM_STRIDE. Each try
 * rebuilds the whole result, so a loop over every allocation is quadratic;
 * under valgrind (make check's third pass, 50x slower: test_report's took
 * two minutes of CI alone) run-tests.sh sets 7, and the plain and ASan passes
 * still fail every allocation.
 */
long tu_oom_stride(void);
#endif
