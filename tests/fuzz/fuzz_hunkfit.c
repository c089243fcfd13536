// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a diff's hunks placed on a tree (kernel/hunkfit). The
 * input is a file's text, a NUL byte, and a git-form diff: the file is the
 * tree's f.c (and g.c, the same text), in an in-memory repository made once,
 * so the diff's hunks ("--- a/f.c") are looked for in it at every offset.
 */
#include "fuzz.h"

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>
#include <string.h>

#include "kernel/hunkfit.h"

static git_repository *repo;
static git_odb_backend *pack;

static void setup(void)
{
	git_odb *odb = NULL;

	git_libgit2_init();
	if (git_odb_new(&odb) < 0 || git_mempack_new(&pack) < 0 || git_odb_add_backend(odb, pack, 1) < 0 ||
	    git_repository_wrap_odb(&repo, odb) < 0)
		abort();
	git_odb_free(odb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, 0, size), *text = (const char *)data;
	size_t tl = nul ? (size_t)(nul - text) : 0;
	git_treebuilder *tb = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	git_oid blob, tid;
	struct il_buf out = IL_BUF_INIT;
	int r;

	if (!repo)
		setup();
	if (!nul)
		return 0;
	if (git_blob_create_from_buffer(&blob, repo, text, tl) < 0 || git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, "f.c", &blob, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, "g.c", &blob, GIT_FILEMODE_BLOB) < 0 || git_treebuilder_write(&tid, tb) < 0 ||
	    git_tree_lookup(&tree, repo, &tid) < 0)
		abort();
	r = il_hunkfit_place(repo, tree, nul + 1, size - tl - 1, &out, NULL, NULL);
	fuzz_check(r);
	fuzz_check(il_hunkfit_apply(repo, tree, nul + 1, size - tl - 1, &index));
	git_index_free(index);
	il_buf_release(&out);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	git_mempack_reset(pack); /* each input's objects gone: memory stays flat */
	return 0;
}
