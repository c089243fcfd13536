// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Patch mail diffs into git's form (kernel/patchdiff.h). libgit2 parses only
 * git-style diffs, each file behind a "diff --git a/F b/F" line; git am
 * takes more, and maintainers send more: a plain unified diff is given the
 * "diff --git" line (and "new file mode" / "deleted file mode" for
 * /dev/null), quilt's and diff(1)'s own header lines are dropped.
 */
#include "kernel/patchdiff.h"
#include "util/str.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the lines of a text without their CR (a CRLF mail) */
static bool next_line(const char **p, const char *end, const char **s, size_t *n)
{
	if (!il_str_next_line(p, end, s, n))
		return false;
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	return true;
}

static bool has(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* A "--- X" line followed by "+++ Y" and "@@ -": a file's unified diff header; p is past the "---" line. */
static bool header_triple(const char *s, size_t n, const char *p, const char *end)
{
	const char *l;
	size_t ln;

	if (!has(s, n, "--- ") || !next_line(&p, end, &l, &ln) || !has(l, ln, "+++ "))
		return false;
	return next_line(&p, end, &l, &ln) && has(l, ln, "@@ -");
}

bool il_patchdiff_starts(const char *s, const char *end)
{
	const char *p = s, *l;
	size_t n, ln;

	if (!next_line(&p, end, &l, &n))
		return false;
	if (has(l, n, "diff --git "))
		return true;
	if (header_triple(l, n, p, end))
		return true;
	if (!has(l, n, "Index: ") && !(has(l, n, "diff -") && n > 6 && l[6] != '-'))
		return false;
	/* quilt's "Index:" and "===" lines, or diff(1)'s command line, then the triple within a few lines */
	for (int k = 0; k < 4 && next_line(&p, end, &l, &ln); k++)
		if (header_triple(l, ln, p, end))
			return true;
	return false;
}

/* ---- Hunks ---- */

/* "@@ -l[,s] +l[,s] @@": the old and new line counts (1 when a count is left out). */
static bool hunk_counts(const char *s, size_t n, long *old, long *new)
{
	const char *e = s + n, *q = s + 4;
	long v[2] = { 1, 1 };

	for (int side = 0; side < 2; side++) {
		if (side && (q >= e || *q++ != ' ' || q >= e || *q++ != '+'))
			return false;
		if (q >= e || !isdigit((unsigned char)*q))
			return false;
		while (q < e && isdigit((unsigned char)*q))
			q++;
		if (q < e && *q == ',') {
			q++;
			if (q >= e || !isdigit((unsigned char)*q))
				return false;
			v[side] = 0;
			while (q < e && isdigit((unsigned char)*q) && v[side] < 100000000)
				v[side] = v[side] * 10 + (*q++ - '0');
		}
	}
	*old = v[0];
	*new = v[1];
	return q < e && *q == ' ';
}

/* ---- Paths ---- */

/* The path of a "--- X" / "+++ X" line as git am takes it: up to a tab, the first component dropped. */
static char *plain_path(const char *s, size_t n, bool *devnull)
{
	const char *p = s + 4, *e = s + n, *tab = memchr(p, '\t', (size_t)(e - p)), *slash;

	if (tab)
		e = tab;
	while (e > p && e[-1] == ' ')
		e--;
	*devnull = (size_t)(e - p) == 9 && !memcmp(p, "/dev/null", 9);
	if (!*devnull && (slash = memchr(p, '/', (size_t)(e - p))) && slash + 1 < e)
		p = slash + 1;
	return il_str_ndup(p, (size_t)(e - p));
}

static int add_file(struct il_strlist *files, const char *f)
{
	return !f[0] || il_strlist_has(files, f) ? 0 : il_strlist_push(files, f);
}

/* "diff --git a/X b/Y": Y, from the last " b/" (a path may hold " b/" itself only in the rarest trees). */
static int git_file(struct il_strlist *files, const char *s, size_t n)
{
	const char *b = NULL;
	char *f;
	int r;

	for (const char *q = s; q + 3 <= s + n; q++)
		if (!memcmp(q, " b/", 3))
			b = q;
	if (!b)
		return 0;
	if (!(f = il_str_ndup(b + 3, (size_t)(s + n - b - 3))))
		return IL_ENOMEM;
	r = add_file(files, f);
	free(f);
	return r;
}

/* A plain diff's "--- X" and "+++ Y" as git's header of the file; its path into files. */
static int plain_header(struct il_buf *out, struct il_strlist *files, const char *a, size_t an, const char *b,
			size_t bn)
{
	bool anull, bnull;
	char *from = plain_path(a, an, &anull), *to = plain_path(b, bn, &bnull);
	const char *name;
	int r = IL_ENOMEM;

	if (from && to) {
		/* git apply -p1 names the file by its new path; a deletion by its old one */
		name = bnull ? from : to;
		il_buf_printf(out, "diff --git a/%s b/%s\n", name, name);
		if (anull)
			il_buf_adds(out, "new file mode 100644\n");
		if (bnull)
			il_buf_adds(out, "deleted file mode 100644\n");
		il_buf_printf(out, "--- %s%s\n+++ %s%s\n", anull ? "" : "a/", anull ? "/dev/null" : name, bnull ? "" : "b/",
			      bnull ? "/dev/null" : name);
		r = add_file(files, name);
	}
	free(from);
	free(to);
	return r;
}

int il_patchdiff_normalize(const char *raw, size_t len, struct il_buf *out, struct il_strlist *files)
{
	const char *p = raw, *end = raw + len, *s;
	size_t n;
	long old = 0, new = 0;
	bool hunk = false, git = false; /* in a hunk; in a file that had a "diff --git" line */
	int r = 0;

	while (!r && next_line(&p, end, &s, &n)) {
		if (hunk) {
			char c = n ? s[0] : ' ';

			if (c == '\\') {
				/* "\ No newline at end of file" belongs to the line before it */
				il_buf_add(out, s, n);
				il_buf_adds(out, "\n");
				continue;
			}
			if (c == ' ' || c == '-' || c == '+') {
				old -= c != '+';
				new -= c != '-';
				/* an empty context line (a mailer took its space) is a context line */
				if (n)
					il_buf_add(out, s, n);
				else
					il_buf_adds(out, " ");
				il_buf_adds(out, "\n");
				hunk = old > 0 || new > 0;
				continue;
			}
			hunk = false; /* the hunk ended short: the line is read as what follows a hunk */
		}
		if (has(s, n, "@@ -") && hunk_counts(s, n, &old, &new)) {
			il_buf_add(out, s, n);
			il_buf_adds(out, "\n");
			hunk = old > 0 || new > 0;
			continue;
		}
		if (n == 3 && !memcmp(s, "-- ", 3))
			break; /* the mail's signature */
		if (has(s, n, "diff --git ")) {
			git = true;
			il_buf_add(out, s, n);
			il_buf_adds(out, "\n");
			r = git_file(files, s, n);
			continue;
		}
		if (header_triple(s, n, p, end)) {
			const char *b;
			size_t bn;

			next_line(&p, end, &b, &bn);
			if (git) {
				/* git's own header lines of the file its "diff --git" began */
				il_buf_add(out, s, n);
				il_buf_printf(out, "\n%.*s\n", (int)bn, b);
			} else {
				r = plain_header(out, files, s, n, b, bn);
			}
			git = false;
			continue;
		}
		/* git's extended header lines (index, modes, renames, binary data) pass; diff(1)'s and quilt's do not */
		if (git) {
			il_buf_add(out, s, n);
			il_buf_adds(out, "\n");
		}
	}
	return r ? r : il_buf_ok(out) ? 0 : IL_ENOMEM;
}
