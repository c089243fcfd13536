/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `idlelab try` (docs/report.md "From a posted series to a reply"): a
 * posted series (a local mbox, a Message-ID or a lore URL) turned into a run
 * plan — the base and each cumulative patch (or the whole series) as kernel
 * variants, an A/A copy of the base, the governors the patches touch (one
 * table of paths), the default workloads for idle-governor changes (one
 * table) — and what a reply needs: which message it answers, the base used
 * and why, the sender's identity.
 */
#ifndef IL_WORKFLOW_TRY_H
#define IL_WORKFLOW_TRY_H
#include <stdbool.h>
#include <jansson.h>
#include "kernel/series.h"
#include "stats/compare.h"
#include "stats/datasplit.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/progress.h"
#include "util/strlist.h"

/* The public-inbox server a bare Message-ID is fetched from when none is given. */
#define IL_TRY_DEFAULT_SERVER "https://lore.kernel.org"

/* Where the series comes from (il_try_source). */
struct il_try_src {
	char *mbox;               /* a local mbox file, or NULL */
	char *message_id;         /* without <>, or NULL */
	char *server;             /* with message_id: the public-inbox server URL */
};
void il_try_src_release(struct il_try_src *s);

/*
 * arg: an existing file (an mbox), a lore-style URL (https://HOST/LIST/ID/...:
 * the server is https://HOST unless server is given), or a Message-ID (with
 * or without <>; server, else IL_TRY_DEFAULT_SERVER).
 */
int il_try_source(const char *arg, const char *server, struct il_try_src *out, struct il_err *err);

/*
 * Read or fetch the series (cache_dir: fetched threads, may be NULL) and
 * parse its newest version. Errors name the file, or the Message-ID and the
 * server ("cannot fetch <id> from SERVER: ...").
 */
int il_try_load(const struct il_try_src *src, const char *cache_dir, il_progress_fn progress, void *progress_ctx,
		struct il_series *out, struct il_err *err);

/*
 * The governors a series should be measured with, from the files its
 * patches touch (the table in try.c: governors/teo.c -> teo, menu.c -> menu,
 * ladder.c -> ladder, haltpoll -> haltpoll; cpuidle core files -> menu and
 * teo; anything else adds nothing), in a fixed order; a series touching none
 * of them gets menu and teo. Appended to out.
 */
int il_try_governors(const struct il_series *s, struct il_strlist *out);

/* The base: from the series' base-commit: trailer, else --base, else the repository's HEAD. */
enum il_try_base_from { IL_TRY_BASE_TRAILER, IL_TRY_BASE_OPTION, IL_TRY_BASE_HEAD };
struct il_try_base {
	char sha[41];
	enum il_try_base_from from;
	char *rev;                /* what was resolved ("v6.18-rc4", the trailer's SHA, "HEAD"); the caller frees */
};
/* Resolve it in repo_path; a revision the repository does not have is an error naming it and the repository. */
int il_try_base(const char *repo_path, const struct il_series *s, const char *base_opt, struct il_try_base *out,
		struct il_err *err);
/* "the series' base-commit: trailer", "--base", "the repository's HEAD" */
const char *il_try_base_from_name(enum il_try_base_from f);

/* The default workloads for an idle-governor change: one table in try.c, a workload name and its params each. */
struct il_try_wl {
	const char *workload;
	const char *params;       /* a JSON object's text */
	const char *why;          /* what it exercises (docs and --dry-run) */
};
extern const struct il_try_wl il_try_workloads[];
extern const size_t il_try_nworkloads;

struct il_try_req {
	const char *name;          /* the plan's name (NULL: "try") */
	const char *repo;          /* an absolute path */
	const char *origin;        /* where the base's tree came from ("Debian linux-source-6.12 (...)"), or NULL */
	const char *lineage;       /* the base's object directory (kernel/kplan.h: the lab kernel's name), or NULL */
	const char *host;          /* NULL: the plan's default */
	const struct il_try_src *src;
	int version;               /* the series' version to take (the newest parsed) */
	const struct il_strlist *governors; /* NULL or empty: il_try_governors */
	const struct il_strlist *workloads; /* NULL or empty: the default table */
	int iterations;            /* 0: 5; IL_TRY_ITER_AUTO: adaptive (il_try_plan) */
	bool whole;                /* base + the whole series instead of one variant per patch */
	const char *patches;       /* a prefix or selection ("1-2", b4's habit), or NULL: every patch */
	const json_t *build;       /* the plan's build section, or NULL */
};

/*
 * --iterations auto: the fixed run's 5 rounds are the first look, then every
 * 5 rounds on each kernel in turn up to 20, until every comparison of the
 * reply is decided or cannot be within 20 (alpha spent over the 4 looks).
 */
#define IL_TRY_ITER_AUTO (-1)
#define IL_TRY_AUTO_MIN 5
#define IL_TRY_AUTO_MAX 20

/*
 * The plan: kernels base (the base commit), patch-%d (cumulative) or
 * series (whole), base-aa (the base again, last, for the A/A check);
 * governors and workloads as asked or by default. The caller decrefs.
 */
int il_try_plan(const struct il_try_req *q, const struct il_series *s, const char *base_sha, json_t **out,
		struct il_err *err);

/*
 * The series' patches (patches: a selection as "1-2", NULL: all) applied to
 * base_sha of repo_path in turn, in memory, before anything is fetched or
 * built: IL_EINVAL naming each patch that does not apply, its file and hunk,
 * the base (commit, release) and a change the base already has
 * (kernel/repo.h); IL_EINVAL for a selection that is not of the series.
 */
int il_try_check(const char *repo_path, const char *base_sha, const struct il_series *s, const char *patches,
		 struct il_err *err);

/*
 * A try run compared as its question asks: each governor's kernels against
 * that governor on the base (stats/datasplit.h), its A/A copy beside, never
 * one governor against another; a run of one governor whole. parts[i].title
 * says what each compares. il_try_compare_release frees.
 */
struct il_try_compare {
	struct il_dataset ds;              /* the run */
	struct il_dataset_part *gov;       /* per governor (ngov), or NULL */
	size_t ngov, n;
	struct il_cmp *cmp;                /* [n]: one per governor, or the run's one */
	char **title;                      /* [n]: NULL for the run's one */
};
int il_try_compare(const char *run_dir, struct il_try_compare *out, struct il_err *err);
void il_try_compare_release(struct il_try_compare *t);
/*
 * The stop rule of a try run with adaptive iterations (run/engine.h's
 * judge): the comparisons its reply makes (each governor against itself on
 * the base) judged together by stats/compare.h's il_compare_judge.
 */
int il_try_run_decided(const char *run_dir, struct il_buf *why, struct il_err *err);

/* The message a reply answers: the cover letter when there is one with a Message-ID, else the last patch. Borrowed from s. */
struct il_try_answer {
	const char *message_id, *subject, *author_email; /* author_email: "" when unknown */
	const char *body;         /* the text the quoted line comes from */
	const struct il_strlist *references;
	const struct il_strlist *recipients; /* its To and Cc: the reply's Cc (reply-all) */
};
void il_try_answer_of(const struct il_series *s, struct il_try_answer *out);

/* First non-empty line of a mail body (a cover letter's first sentence), sanitized, into out. */
int il_try_first_line(const char *body, struct il_buf *out);

/* "Name <email>": as (checked) or user.name/user.email of repo_path's git config (repository, then global). */
int il_try_identity(const char *repo_path, const char *as, struct il_buf *out, struct il_err *err);

#endif
