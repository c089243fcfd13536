// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hunks placed where git apply would place them (kernel/hunkfit.h): each
 * file's blob split into lines once, each hunk's preimage looked for from
 * its stated line outwards, the header rewritten to the line found.
 */
#include "kernel/hunkfit.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/str.h"

struct span {
	const char *s;
	size_t n;
};

/* A file of the tree as lines (without their newlines), borrowed from blob. */
struct image {
	git_blob *blob;
	struct span *line;
	size_t n;
};

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

static void image_release(struct image *im)
{
	git_blob_free(im->blob);
	free(im->line);
	memset(im, 0, sizeof(*im));
}

/* path's blob in tree as lines into im; 0 with im->blob NULL when the tree has no such file. IL_ENOMEM. */
static int image_load(git_repository *repo, git_tree *tree, const char *path, size_t pn, struct image *im)
{
	git_tree_entry *e = NULL;
	char *p = il_str_ndup(path, pn);
	const char *t, *end, *s;
	size_t n, cap = 0;

	image_release(im);
	if (!p)
		return IL_ENOMEM;
	if (git_tree_entry_bypath(&e, tree, p) < 0 || git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&im->blob, repo, git_tree_entry_id(e)) < 0)
		im->blob = NULL;
	git_tree_entry_free(e);
	free(p);
	if (!im->blob)
		return 0;
	t = git_blob_rawcontent(im->blob);
	end = t + git_blob_rawsize(im->blob);
	while (il_str_next_line(&t, end, &s, &n)) {
		if (im->n == cap) {
			struct span *nl = realloc(im->line, (cap = cap ? 2 * cap : 256) * sizeof(*nl));

			if (!nl)
				return IL_ENOMEM;
			im->line = nl;
		}
		im->line[im->n++] = (struct span){ s, n };
	}
	return 0;
}

/* "@@ -A[,N] +B[,M] @@rest", parsed; rest points into the line. */
struct header {
	unsigned long a, n, b, m;
	bool has_n, has_m;
	const char *rest;
	size_t restn;
};

static bool num(const char **p, const char *end, unsigned long *v)
{
	const char *q = *p;

	*v = 0;
	while (q < end && *q >= '0' && *q <= '9' && *v < 100000000UL)
		*v = *v * 10 + (unsigned long)(*q++ - '0');
	if (q == *p)
		return false;
	*p = q;
	return true;
}

static bool header_parse(const char *s, size_t len, struct header *h)
{
	const char *p = s + 4, *end = s + len;

	memset(h, 0, sizeof(*h));
	h->n = h->m = 1;
	if (!num(&p, end, &h->a))
		return false;
	if (p < end && *p == ',' && (++p, !(h->has_n = num(&p, end, &h->n))))
		return false;
	if (end - p < 2 || p[0] != ' ' || p[1] != '+')
		return false;
	p += 2;
	if (!num(&p, end, &h->b))
		return false;
	if (p < end && *p == ',' && (++p, !(h->has_m = num(&p, end, &h->m))))
		return false;
	if (end - p < 3 || memcmp(p, " @@", 3))
		return false;
	h->rest = p + 3;
	h->restn = (size_t)(end - h->rest);
	return true;
}

/* Whether the n preimage lines pre match the image at line index at. */
static bool match_at(const struct image *im, const struct span *pre, size_t n, size_t at)
{
	if (at + n > im->n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (pre[i].n != im->line[at + i].n || memcmp(pre[i].s, im->line[at + i].s, pre[i].n))
			return false;
	return true;
}

/*
 * Where (a line index) the preimage goes, as git apply's find_pos looks:
 * at want, then alternately below and above it (below first, as git does),
 * never before lo (the end of the file's previous hunk). A hunk from the
 * file's first line must match there, one without trailing context at the
 * file's end. false: nowhere.
 */
static bool find_pos(const struct image *im, const struct span *pre, size_t n, size_t want, size_t lo, bool at_start,
		     bool at_end, size_t *pos)
{
	size_t hi;

	if (n > im->n)
		return false;
	hi = im->n - n;
	if (at_start || at_end) {
		*pos = at_start ? 0 : hi;
		return (!at_start || !at_end || n == im->n) && *pos >= lo && match_at(im, pre, n, *pos);
	}
	if (lo > hi)
		return false;
	want = want < lo ? lo : want > hi ? hi : want;
	for (size_t d = 0; want >= lo + d || want + d <= hi; d++) {
		if (want + d <= hi && match_at(im, pre, n, want + d))
			return *pos = want + d, true;
		if (d && want >= lo + d && match_at(im, pre, n, want - d))
			return *pos = want - d, true;
	}
	return false;
}

/* The state of one walk over a diff. */
struct walk {
	git_repository *repo;
	git_tree *tree;
	struct il_buf *out;
	struct image im;
	struct span *pre;
	size_t npre, cap;
	size_t lo;	/* first line index the file's next hunk may use */
	long shift;	/* where the file's last hunk was found minus where it said */
	size_t moved;
	long max_offset;
};

static int pre_push(struct walk *w, const char *s, size_t n)
{
	if (w->npre == w->cap) {
		struct span *np = realloc(w->pre, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof(*np));

		if (!np)
			return IL_ENOMEM;
		w->pre = np;
	}
	w->pre[w->npre++] = (struct span){ s, n };
	return 0;
}

/*
 * The hunk whose header is h and whose body starts at *p: its lines up to
 * where its counts end read (*p moved past them), its header written placed.
 */
static int hunk(struct walk *w, const struct header *h, const char **p, const char *end)
{
	const char *body = *p, *s;
	unsigned long old = 0, new = 0;
	size_t n, trailing = 0, pos = 0;
	bool change = false, found = false;
	unsigned long a = h->a, b = h->b;
	int r;

	w->npre = 0;
	while ((old < h->n || new < h->m) && *p < end) {
		const char *save = *p;

		il_str_next_line(p, end, &s, &n);
		if (n && s[0] == '\\')
			continue;
		if (n && s[0] != ' ' && s[0] != '-' && s[0] != '+') {
			*p = save; /* a short hunk (a mangled count): libgit2 says so */
			break;
		}
		if (n && s[0] == '+') {
			new++, change = true, trailing = 0;
			continue;
		}
		if ((r = pre_push(w, n ? s + 1 : s, n ? n - 1 : 0)))
			return r;
		old++;
		if (!n || s[0] == ' ') {
			new++;
			trailing += change;
		} else {
			change = true, trailing = 0;
		}
	}
	if (w->im.blob && w->npre && h->a > 0) {
		long want = (long)h->a - 1 + w->shift;

		found = find_pos(&w->im, w->pre, w->npre, want < 0 ? 0 : (size_t)want, w->lo, h->a <= 1,
				 !trailing && change, &pos);
	}
	if (found) {
		long off = (long)pos - (long)(h->a - 1);

		a = (unsigned long)pos + 1;
		b = (unsigned long)((long)h->b + ((long)a - (long)h->a));
		w->shift = off;
		w->lo = pos + w->npre;
		if (off) {
			w->moved++;
			if (labs(off) > w->max_offset)
				w->max_offset = labs(off);
		}
	} else if (h->a > 0 && h->n == 0) {
		a = (unsigned long)((long)h->a + w->shift); /* a pure insertion goes where the shift puts it */
		b = (unsigned long)((long)h->b + w->shift);
	}
	il_buf_printf(w->out, "@@ -%lu", a);
	if (h->has_n)
		il_buf_printf(w->out, ",%lu", h->n);
	il_buf_printf(w->out, " +%lu", b);
	if (h->has_m)
		il_buf_printf(w->out, ",%lu", h->m);
	il_buf_adds(w->out, " @@");
	il_buf_add(w->out, h->rest, h->restn);
	il_buf_adds(w->out, "\n");
	il_buf_add(w->out, body, (size_t)(*p - body));
	return 0;
}

int il_hunkfit_place(git_repository *repo, git_tree *tree, const char *diff, size_t len, struct il_buf *out,
		     size_t *moved, long *max_offset)
{
	struct walk w = { .repo = repo, .tree = tree, .out = out };
	const char *p = diff, *end = diff + len, *s;
	size_t n;
	int r = 0;

	while (!r && il_str_next_line(&p, end, &s, &n)) {
		struct header h;

		if (starts(s, n, "diff --git ")) {
			image_release(&w.im);
			w.lo = 0, w.shift = 0;
		} else if (starts(s, n, "--- ")) {
			/* the old side's path: -p1 as kernel/patchdiff.c writes it; /dev/null has no image */
			const char *path = s + 4;
			size_t pn = n - 4;

			if (starts(path, pn, "a/"))
				r = image_load(repo, tree, path + 2, pn - 2, &w.im);
			else
				image_release(&w.im);
			w.lo = 0, w.shift = 0;
		} else if (starts(s, n, "@@ -") && header_parse(s, n, &h)) {
			r = hunk(&w, &h, &p, end);
			continue;
		}
		il_buf_add(out, s, n);
		if (s + n < end)
			il_buf_adds(out, "\n");
	}
	image_release(&w.im);
	free(w.pre);
	if (moved)
		*moved = w.moved;
	if (max_offset)
		*max_offset = w.max_offset;
	return r ? r : il_buf_ok(out) ? 0 : IL_ENOMEM;
}

int il_hunkfit_apply(git_repository *repo, git_tree *tree, const char *diff, size_t len, git_index **index)
{
	struct il_buf placed = IL_BUF_INIT;
	git_diff *d = NULL;
	int r = il_hunkfit_place(repo, tree, diff, len, &placed, NULL, NULL);

	*index = NULL;
	/* libgit2 1.5 reads past a line that holds a NUL byte (found by fuzz_hunkfit): no diff has one */
	if (!r && memchr(diff, 0, len)) {
		git_error_set_str(GIT_ERROR_PATCH, "the diff holds a NUL byte");
		r = IL_EINVAL;
	}
	if (!r && (git_diff_from_buffer(&d, il_buf_str(&placed), placed.len) < 0 || git_apply_to_tree(index, repo, tree, d, NULL) < 0))
		r = IL_EINVAL;
	git_diff_free(d);
	il_buf_release(&placed);
	return r;
}
