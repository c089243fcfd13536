/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Patch series from mail: the mails of an mbox (a file, or a public-inbox
 * thread; each read by kernel/patchmail.h) put in order by "[PATCH vN M/N]",
 * the cover letter and replies set aside, the highest version kept (or the
 * one asked for), checked complete, and trailers collected per patch,
 * including those given in replies.
 */
#ifndef IL_KERNEL_SERIES_H
#define IL_KERNEL_SERIES_H
#include <stdint.h>
#include <jansson.h>
#include "util/err.h"
#include "idle/cpuset.h"
#include "util/strlist.h"

struct il_patch {
	int version, index, total;  /* [PATCH v2 3/4]: 2, 3, 4 (no "vN": 1; no "M/N": 1/1) */
	char *subject;              /* without the [PATCH ...] prefix */
	char *author_name, *author_email;
	int64_t date;               /* seconds since the epoch */
	int tz_minutes;             /* the sender's UTC offset */
	char *message_id;
	char *message;              /* commit message: subject, blank line, body up to "---" */
	char *diff;                 /* the unified diff */
	struct il_strlist files;    /* files the diff touches */
	struct il_strlist trailers; /* "Reviewed-by: A <a@b>", in the patch and from replies */
	char *sent_subject;         /* the Subject as sent ("[PATCH v2 3/4] foo"), sanitized */
	struct il_strlist references; /* its References, oldest (the thread's root) first, without <> */
	struct il_strlist recipients; /* its To and Cc as sent ("Name <a@b>" or "a@b"), sanitized: what a reply-all Ccs */
};

struct il_series {
	int version;
	size_t n;
	struct il_patch *p;
	char *cover_subject;        /* NULL when there is no cover letter */
	/* the cover letter as sent (all NULL/empty when there is none): what a reply answers */
	char *cover_message_id, *cover_sent_subject, *cover_body, *cover_author_email;
	struct il_strlist cover_references; /* oldest (the thread's root) first, without <> */
	struct il_strlist cover_recipients; /* its To and Cc, as a patch's recipients */
	char *base_commit;          /* "base-commit: SHA" (git format-patch --base) of this version, or NULL */
	size_t messages, replies;   /* what the mbox held */
	struct il_strlist versions; /* versions seen, e.g. "1 2" */
};

/*
 * Parse an mbox. want_version 0 takes the highest version present. label names
 * the source in errors. Errors: no patches, a version with a missing patch
 * ("v2 has 3 of 4 patches: 2/4 is missing"), an asked-for version absent.
 */
int il_series_parse(const char *mbox, size_t len, int want_version, const char *label, struct il_series *out,
		    struct il_err *err);
void il_series_release(struct il_series *s);
/* s as JSON (the caller owns it); NULL when memory runs out. */
json_t *il_series_to_json(const struct il_series *s);

/* Parse a selection like "1-3,5" against n patches into a sorted 1-based list. */
int il_series_select(const char *spec, size_t n, struct il_cpuset *out, struct il_err *err);

#endif
