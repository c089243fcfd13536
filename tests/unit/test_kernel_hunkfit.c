// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel/hunkfit: hunks found at an offset as git apply finds them. Each case
 * is a real git repository: the patch is `git diff` of a file's change, the
 * tree it is applied to has moved on (lines added or dropped above or between
 * the hunks, a copy of the context elsewhere, context changed), and git apply
 * itself is the oracle: whether it applies, and the file it makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kernel/hunkfit.h"
#include "kernel/repo.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/str.h"

#define FILE_PATH "drivers/cpuidle/governors/menu.c"

/* n lines "<tag> <i>" for i in [from, to) into b. */
static void lines(struct il_buf *b, const char *tag, int from, int to)
{
	for (int i = from; i < to; i++)
		il_buf_printf(b, "\t%s = %d;\n", tag, i);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/* text as dir's FILE_PATH, exactly (tu_write adds a newline). */
static void put(const char *dir, const struct il_buf *text)
{
	char *path = il_str_dup_printf("%s/%s", dir, FILE_PATH);
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f || fwrite(il_buf_str(text), 1, text->len, f) != text->len || fclose(f))
		fail_msg("cannot write %s", path ? path : FILE_PATH);
	free(path);
}

struct hcase {
	const char *name;
	struct il_buf orig, changed, tree;
	bool applies;	/* what git apply says (checked against it) */
	size_t moved;	/* hunks that il_hunkfit_place moves */
	long max_offset;
};

/*
 * The case in a fresh repository under dir: the patch orig -> changed from
 * git diff, applied to tree by git apply and by il_hunkfit_apply; both must
 * agree with c->applies and make the same file.
 */
static void run_case(const char *dir, struct hcase *c)
{
	char *repo_dir = il_str_dup_printf("%s/%s", dir, c->name), *patch = NULL, *want = NULL;
	struct il_buf placed = IL_BUF_INIT;
	struct il_err err = { 0 };
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	git_oid head;
	size_t plen, moved = 99;
	long off = -1;
	int r;

	assert_non_null(repo_dir);
	assert_int_equal(sh("mkdir -p %s/drivers/cpuidle/governors && cd %s && git -c init.defaultBranch=main init -q",
			    repo_dir, repo_dir), 0);
	put(repo_dir, &c->orig);
	assert_int_equal(sh("cd %s && git add -A && git -c user.name=T -c user.email=t@e.org commit -qm orig", repo_dir), 0);
	put(repo_dir, &c->changed);
	assert_int_equal(sh("cd %s && git diff > ../%s.diff && git checkout -q -- .", repo_dir, c->name), 0);
	put(repo_dir, &c->tree);
	assert_int_equal(sh("cd %s && git -c user.name=T -c user.email=t@e.org commit --allow-empty -qam tree", repo_dir), 0);
	/* the oracle */
	r = sh("cd %s && git apply ../%s.diff 2>/dev/null", repo_dir, c->name);
	if ((r == 0) != c->applies)
		fail_msg("%s: git apply %s, the case says it %s", c->name, r ? "fails" : "applies",
			 c->applies ? "applies" : "does not");
	if (!r) {
		char *path = il_str_dup_printf("%s/%s", repo_dir, FILE_PATH);

		want = tu_read(path, NULL);
		free(path);
	}
	{
		char *pp = il_str_dup_printf("%s/%s.diff", dir, c->name);

		patch = tu_read(pp, &plen);
		free(pp);
	}
	assert_int_equal(il_repo_open(&repo, repo_dir, &err), 0);
	assert_int_equal(il_repo_resolve(repo, "HEAD", &head, &err), 0);
	assert_int_equal(git_commit_lookup(&commit, repo, &head), 0);
	assert_int_equal(git_commit_tree(&tree, commit), 0);
	assert_int_equal(il_hunkfit_place(repo, tree, patch, plen, &placed, &moved, &off), 0);
	if (moved != c->moved || off != c->max_offset)
		fail_msg("%s: %zu hunks moved (largest offset %ld), want %zu (%ld):\n%s", c->name, moved, off, c->moved,
			 c->max_offset, il_buf_str(&placed));
	r = il_hunkfit_apply(repo, tree, patch, plen, &index);
	if (!c->applies) {
		assert_int_equal(r, IL_EINVAL);
		assert_non_null(strstr(git_error_last()->message, "did not apply"));
	} else {
		const git_index_entry *e;
		git_blob *blob = NULL;

		if (r)
			fail_msg("%s: does not apply: %s\n%s", c->name, git_error_last()->message, il_buf_str(&placed));
		assert_non_null(e = git_index_get_bypath(index, FILE_PATH, 0));
		assert_int_equal(git_blob_lookup(&blob, repo, &e->id), 0);
		assert_int_equal((size_t)git_blob_rawsize(blob), strlen(want));
		assert_memory_equal(git_blob_rawcontent(blob), want, strlen(want));
		git_blob_free(blob);
	}
	git_index_free(index);
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(repo);
	il_buf_release(&placed);
	free(patch), free(want), free(repo_dir);
}

static void hcase_release(struct hcase *c)
{
	il_buf_release(&c->orig);
	il_buf_release(&c->changed);
	il_buf_release(&c->tree);
}

/* orig a0..a39, changed with a10 and a30 made b: a patch of two hunks */
static void two_hunks(struct hcase *c)
{
	lines(&c->orig, "a", 0, 40);
	lines(&c->changed, "a", 0, 10), lines(&c->changed, "b", 10, 11), lines(&c->changed, "a", 11, 30);
	lines(&c->changed, "b", 30, 31), lines(&c->changed, "a", 31, 40);
}

/* orig a0..a39, changed with a20 made b: a patch of one hunk (its context a17..a23) */
static void one_hunk(struct hcase *c)
{
	lines(&c->orig, "a", 0, 40);
	lines(&c->changed, "a", 0, 20), lines(&c->changed, "b", 20, 21), lines(&c->changed, "a", 21, 40);
}

static void test_hunkfit__offsets_as_git_apply(void **state)
{
	char *dir = tu_tmpdir();
	struct hcase c[7] = {
		{ .name = "above", .applies = true, .moved = 2, .max_offset = 6 },
		{ .name = "fewer", .applies = true, .moved = 1, .max_offset = 4 },
		{ .name = "between", .applies = true, .moved = 2, .max_offset = 9 },
		{ .name = "same", .applies = true, .moved = 0, .max_offset = 0 },
		{ .name = "twice", .applies = true, .moved = 1, .max_offset = 5 },
		{ .name = "gone", .applies = false, .moved = 1, .max_offset = 6 },
		{ .name = "top", .applies = false, .moved = 0, .max_offset = 0 },
	};

	(void)state;
	il_repo_git_init();
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		il_buf_init(&c[i].orig, 0), il_buf_init(&c[i].changed, 0), il_buf_init(&c[i].tree, 0);
	/* above: 6 lines added at the top; both hunks (lines 10 and 30) found 6 lines down */
	two_hunks(&c[0]);
	lines(&c[0].tree, "new", 0, 6), lines(&c[0].tree, "a", 0, 40);
	/* fewer: 4 lines gone from the top; the hunk found 4 lines up */
	lines(&c[1].orig, "a", 0, 40);
	lines(&c[1].changed, "a", 0, 20), lines(&c[1].changed, "b", 20, 22), lines(&c[1].changed, "a", 22, 40);
	lines(&c[1].tree, "a", 4, 40);
	/* between: 6 above the first hunk, 3 more between the two: offsets 6 and 9 */
	two_hunks(&c[2]);
	lines(&c[2].tree, "new", 0, 6), lines(&c[2].tree, "a", 0, 20), lines(&c[2].tree, "mid", 0, 3);
	lines(&c[2].tree, "a", 20, 40);
	/* same: the tree is the patch's own base */
	one_hunk(&c[3]);
	lines(&c[3].tree, "a", 0, 40);
	/*
	 * twice: the context (a 17..23) is in the tree twice, 5 lines above and
	 * 5 below where the hunk says (line 18): git takes the one below
	 */
	one_hunk(&c[4]);
	lines(&c[4].tree, "x", 0, 12), lines(&c[4].tree, "a", 17, 24), lines(&c[4].tree, "y", 0, 3);
	lines(&c[4].tree, "a", 17, 24), lines(&c[4].tree, "z", 0, 20);
	/* gone: the first hunk moved by 6, the second's context changed in the tree: git refuses, so do we */
	two_hunks(&c[5]);
	lines(&c[5].tree, "new", 0, 6), lines(&c[5].tree, "a", 0, 29), lines(&c[5].tree, "edited", 29, 30);
	lines(&c[5].tree, "a", 30, 40);
	/* top: a hunk from line 1 must match at line 1 (git's match_beginning), though its lines are further down */
	lines(&c[6].orig, "a", 0, 20);
	lines(&c[6].changed, "b", 0, 1), lines(&c[6].changed, "a", 1, 20);
	lines(&c[6].tree, "new", 0, 2), lines(&c[6].tree, "a", 0, 20);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		run_case(dir, &c[i]);
		hcase_release(&c[i]);
	}
	il_repo_git_shutdown();
	tu_rmtree(dir);
	free(dir);
}

/* A new file, a file the tree lacks, a header libgit2 would refuse: copied as they are. */
static void test_hunkfit__copies_what_it_cannot_place(void **state)
{
	char *dir = tu_tmpdir();
	static const char diff[] = "diff --git a/new.c b/new.c\n"
				   "new file mode 100644\n"
				   "--- /dev/null\n"
				   "+++ b/new.c\n"
				   "@@ -0,0 +1,2 @@\n"
				   "+int x;\n"
				   "+int y;\n"
				   "diff --git a/absent.c b/absent.c\n"
				   "--- a/absent.c\n"
				   "+++ b/absent.c\n"
				   "@@ -3,3 +3,3 @@ void f(void)\n"
				   " a\n"
				   "-b\n"
				   "+c\n"
				   " d\n"
				   "@@ bogus @@\n"
				   "\\ No newline at end of file";
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_oid head;
	size_t moved = 99;
	long off = -1;
	char *rd = il_str_dup_printf("%s/r", dir);

	(void)state;
	il_repo_git_init();
	assert_int_equal(sh("mkdir %s && cd %s && git -c init.defaultBranch=main init -q && echo x > x.c && git add x.c && "
			    "git -c user.name=T -c user.email=t@e.org commit -qm x", rd, rd), 0);
	assert_int_equal(il_repo_open(&repo, rd, &err), 0);
	assert_int_equal(il_repo_resolve(repo, "HEAD", &head, &err), 0);
	assert_int_equal(git_commit_lookup(&commit, repo, &head), 0);
	assert_int_equal(git_commit_tree(&tree, commit), 0);
	assert_int_equal(il_hunkfit_place(repo, tree, diff, strlen(diff), &out, &moved, &off), 0);
	assert_string_equal(il_buf_str(&out), diff);
	assert_int_equal(moved, 0);
	assert_int_equal(off, 0);
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(repo);
	il_buf_release(&out);
	il_repo_git_shutdown();
	tu_rmtree(dir);
	free(dir), free(rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hunkfit__offsets_as_git_apply),
		cmocka_unit_test(test_hunkfit__copies_what_it_cannot_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
