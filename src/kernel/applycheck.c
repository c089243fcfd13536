// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Why a patch does not apply (kernel/applycheck.h): the patch's reverse and
 * each of its files tried on the tree with libgit2 in memory (an index,
 * never a work tree), the lines it adds looked up in the tree's blobs.
 */
#include "kernel/applycheck.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/hunkfit.h"
#include "util/err.h"
#include "util/str.h"

static const char *gerr(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

/*
 * Whether text applies to tree; libgit2's reason appended to why when it does not. When memory runs
 * out, why fails (sticky) so that il_applycheck_explain says IL_ENOMEM, never a reason it did not find.
 */
static bool applies(git_repository *repo, git_tree *tree, const char *text, size_t len, struct il_buf *why)
{
	git_index *index = NULL;
	int r = il_hunkfit_apply(repo, tree, text, len, &index);

	if (r == IL_EINVAL)
		il_buf_adds(why, gerr());
	else if (r)
		why->nomem = true;
	git_index_free(index);
	return !r;
}

static bool has(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* "--- a/X" as "+++ b/X" and the other way round (the reverse's header lines); /dev/null stays. */
static void flip_header(struct il_buf *b, const char *s, size_t n, bool to_new)
{
	const char *path = s + 4;
	size_t pn = n - 4;

	il_buf_adds(b, to_new ? "+++ " : "--- ");
	if (pn > 2 && (has(path, pn, "a/") || has(path, pn, "b/"))) {
		il_buf_adds(b, to_new ? "b/" : "a/");
		path += 2, pn -= 2;
	}
	il_buf_add(b, path, pn);
	il_buf_adds(b, "\n");
}

/* The reverse of a git-form diff (git apply -R's): headers and hunk sides swapped, each +/- line flipped. */
static int reverse(const char *diff, struct il_buf *out)
{
	const char *p = diff, *end = diff + strlen(diff), *s, *pending = NULL;
	size_t n, pn = 0;
	bool header = false;

	while (il_str_next_line(&p, end, &s, &n)) {
		if (has(s, n, "diff --git ")) {
			header = true;
			il_buf_add(out, s, n);
			il_buf_adds(out, "\n");
		} else if (header && has(s, n, "--- ")) {
			pending = s, pn = n;
		} else if (header && has(s, n, "+++ ")) {
			flip_header(out, s, n, false);
			if (pending)
				flip_header(out, pending, pn, true);
			pending = NULL;
		} else if (header && has(s, n, "new file mode ")) {
			il_buf_printf(out, "deleted file mode %.*s\n", (int)(n - 14), s + 14);
		} else if (header && has(s, n, "deleted file mode ")) {
			il_buf_printf(out, "new file mode %.*s\n", (int)(n - 18), s + 18);
		} else if (has(s, n, "@@ -")) {
			/* "@@ -A +B @@ ctx" -> "@@ -B' +A' @@ ctx" with B' and A' the ranges without their signs */
			const char *a = s + 4, *sp = memchr(a, ' ', n - 4), *b, *e;

			header = false;
			if (!sp || sp + 2 >= s + n || sp[1] != '+' || !(e = memchr(sp + 2, ' ', (size_t)(s + n - sp - 2))))
				return IL_EPARSE;
			b = sp + 2;
			il_buf_printf(out, "@@ -%.*s +%.*s%.*s\n", (int)(e - b), b, (int)(sp - a), a, (int)(s + n - e), e);
		} else if (!header && n && (s[0] == '+' || s[0] == '-')) {
			il_buf_adds(out, s[0] == '+' ? "-" : "+");
			il_buf_add(out, s + 1, n - 1);
			il_buf_adds(out, "\n");
		} else if (!(header && has(s, n, "index "))) {
			il_buf_add(out, s, n);
			il_buf_adds(out, "\n");
		}
	}
	return il_buf_ok(out) ? 0 : IL_ENOMEM;
}

/* The blob of path in tree as text (NULL and 0 when it has none): borrowed until git_blob_free(*blob). */
static const char *blob_text(git_repository *repo, git_tree *tree, const char *path, git_blob **blob, size_t *len)
{
	git_tree_entry *e = NULL;

	*blob = NULL;
	*len = 0;
	if (git_tree_entry_bypath(&e, tree, path) < 0)
		return NULL;
	if (git_blob_lookup(blob, repo, git_tree_entry_id(e)) < 0)
		*blob = NULL;
	git_tree_entry_free(e);
	if (!*blob)
		return NULL;
	*len = (size_t)git_blob_rawsize(*blob);
	return git_blob_rawcontent(*blob);
}

/* Whether the line l (n bytes) is a whole line of text. */
static bool has_line(const char *text, size_t len, const char *l, size_t n)
{
	for (const char *q = text; q && q + n <= text + len;) {
		const char *hit = memmem(q, (size_t)(text + len - q), l, n);

		if (!hit)
			return false;
		if ((hit == text || hit[-1] == '\n') && (hit + n == text + len || hit[n] == '\n'))
			return true;
		q = hit + 1;
	}
	return false;
}

/* One file's section of a diff: [s, e), the path after " b/" on its "diff --git" line. */
struct section {
	const char *s, *e;
	char *path;
};

/* The diff's sections, one per "diff --git" line, into *out (caller frees each path and the array). */
static int sections(const char *diff, struct section **out, size_t *n)
{
	const char *p = diff;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while ((p = strstr(p, "diff --git ")) != NULL) {
		const char *eol = strchr(p, '\n'), *b = NULL, *next;
		struct section *ns;

		if (p != diff && p[-1] != '\n') {
			p++;
			continue;
		}
		if (!eol)
			eol = p + strlen(p);
		for (const char *q = p; q + 3 <= eol; q++)
			if (!memcmp(q, " b/", 3))
				b = q + 3;
		next = strstr(eol, "\ndiff --git ");
		if (*n == cap) {
			if (!(ns = realloc(*out, (cap = cap ? 2 * cap : 8) * sizeof(*ns))))
				return IL_ENOMEM;
			*out = ns;
		}
		(*out)[*n].s = p;
		(*out)[*n].e = next ? next + 1 : p + strlen(p);
		if (!((*out)[(*n)++].path = il_str_ndup(b ? b : "", b ? (size_t)(eol - b) : 0)))
			return IL_ENOMEM;
		p = (*out)[*n - 1].e;
	}
	return 0;
}

/*
 * Whether every line of substance that the section adds is already in its
 * file on tree (code lines of 8 or more characters: a lone brace proves
 * nothing, and a comment is what a later form rewords: seed 002's menu patch
 * is in 6.12.118 with its comment said otherwise); false for a section that
 * adds no such line or whose file the tree lacks.
 */
static bool adds_present(git_repository *repo, git_tree *tree, const struct section *x)
{
	git_blob *blob;
	size_t len, n, seen = 0;
	const char *text = blob_text(repo, tree, x->path, &blob, &len), *p = x->s, *s;
	bool all = text != NULL, hunk = false;

	while (all && il_str_next_line(&p, x->e, &s, &n)) {
		size_t k = 1;

		if (has(s, n, "@@ -"))
			hunk = true;
		if (!hunk || !n || s[0] != '+')
			continue;
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (n - k < 8 || (s[k] == '*' || (n - k >= 2 && s[k] == '/' && (s[k + 1] == '*' || s[k + 1] == '/'))))
			continue;
		seen++;
		all = has_line(text, len, s + 1, n - 1);
	}
	git_blob_free(blob);
	return all && seen;
}

int il_applycheck_explain(git_repository *repo, git_tree *tree, const char *diff, struct il_buf *why)
{
	struct il_buf rev = IL_BUF_INIT, scratch = IL_BUF_INIT; /* scratch: the reverse's reason, not said */
	struct section *x = NULL;
	size_t nx = 0, bad = 0, present = 0;
	int r;

	r = reverse(diff, &rev);
	if (!r && applies(repo, tree, rev.p, rev.len, &scratch)) {
		il_buf_adds(why, "its change is already in the base (its reverse applies)");
		goto out;
	}
	il_buf_carry(why, &scratch);
	if (r == IL_ENOMEM || (r = sections(diff, &x, &nx))) /* a reverse that does not parse: the files tell */
		goto out;
	for (size_t i = 0; i < nx; i++)
		present += adds_present(repo, tree, &x[i]);
	if (nx && present == nx) {
		il_buf_adds(why, "the lines it adds are already in the base (a later form of it?)");
		goto out;
	}
	for (size_t i = 0; i < nx; i++) {
		struct il_buf one = IL_BUF_INIT;

		if (!applies(repo, tree, x[i].s, (size_t)(x[i].e - x[i].s), &one)) {
			il_buf_printf(why, "%s%s: %s", bad++ ? "; " : "", x[i].path, il_buf_str(&one));
		}
		il_buf_carry(why, &one);
		il_buf_release(&one);
	}
	if (!bad)
		applies(repo, tree, diff, strlen(diff), why); /* each file alone applies: their sum does not */
out:
	for (size_t i = 0; i < nx; i++)
		free(x[i].path);
	free(x);
	il_buf_release(&rev);
	il_buf_release(&scratch);
	return r == IL_ENOMEM || !il_buf_ok(why) ? IL_ENOMEM : 0;
}

int il_applycheck_kernelversion(git_repository *repo, git_tree *tree, struct il_buf *out)
{
	static const char *const keys[] = { "VERSION", "PATCHLEVEL", "SUBLEVEL", "EXTRAVERSION" };
	char val[4][32] = { "", "", "", "" };
	git_blob *blob;
	size_t len, n;
	const char *text = blob_text(repo, tree, "Makefile", &blob, &len), *p = text, *s;

	for (int seen = 0; text && seen < 4 && il_str_next_line(&p, text + len, &s, &n);) {
		for (int k = 0; k < 4; k++) {
			size_t kl = strlen(keys[k]), i = kl;

			if (n <= kl || memcmp(s, keys[k], kl) || (s[kl] != ' ' && s[kl] != '='))
				continue;
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (i >= n || s[i] != '=')
				continue;
			for (i++; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
				;
			snprintf(val[k], sizeof(val[k]), "%.*s", (int)(n - i), s + i);
			seen++;
		}
	}
	git_blob_free(blob);
	if (val[0][0])
		il_buf_printf(out, "%s%s%s%s%s%s", val[0], val[1][0] ? "." : "", val[1], val[1][0] && val[2][0] ? "." : "",
			      val[1][0] ? val[2] : "", val[3]);
	return il_buf_ok(out) ? 0 : IL_ENOMEM;
}
