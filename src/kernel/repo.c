// SPDX-License-Identifier: GPL-2.0-or-later
/* libgit2: trees, tarball import, series application, checkouts. */
#include "kernel/repo.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/applycheck.h"
#include "kernel/hunkfit.h"
#include "util/buf.h"
#include "util/proc.h"
#include "util/sha256.h"
#include "util/str.h"
#include "util/trust.h"

void il_repo_git_init(void)
{
	git_libgit2_init();
}

void il_repo_git_shutdown(void)
{
	git_libgit2_shutdown();
}

static const char *gerr(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

int il_repo_open(git_repository **out, const char *path, struct il_err *err)
{
	if (git_repository_open_ext(out, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return il_err_set(err, IL_ENOTFOUND, "'%s' is not a git repository: %s", path, gerr());
	return 0;
}

int il_repo_resolve(git_repository *repo, const char *rev, git_oid *out, struct il_err *err)
{
	git_object *obj = NULL;
	int r = 0;

	if (git_revparse_single(&obj, repo, rev) < 0)
		return il_err_set(err, IL_ENOTFOUND, "revision '%s' not found in %s: %s", rev,
				  git_repository_workdir(repo) ? git_repository_workdir(repo) : git_repository_path(repo),
				  gerr());
	{
		git_object *c = NULL;

		if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) < 0)
			r = il_err_set(err, IL_EINVAL, "revision '%s' is not a commit", rev);
		else
			git_oid_cpy(out, git_object_id(c));
		git_object_free(c);
	}
	git_object_free(obj);
	return r;
}

int il_repo_tree_of(git_repository *repo, const git_oid *commit, git_oid *tree, struct il_err *err)
{
	git_commit *c = NULL;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return il_err_set(err, IL_ENOTFOUND, "commit %s: %s", git_oid_tostr_s(commit), gerr());
	git_oid_cpy(tree, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

int il_repo_set_ref(git_repository *repo, const char *name, const git_oid *commit, struct il_err *err)
{
	struct il_buf ref = IL_BUF_INIT;
	git_reference *r = NULL;
	int rc = 0;

	if (il_buf_printf(&ref, "refs/idlelab/variants/%s", name))
		rc = il_err_oom(err);
	else if (git_reference_create(&r, repo, ref.p, commit, 1, "idlelab kernel prepare") < 0)
		rc = il_err_set(err, IL_EIO, "cannot write %s: %s", ref.p, gerr());
	git_reference_free(r);
	il_buf_release(&ref);
	return rc;
}

/*
 * Add every file under the work tree to the index, ignore rules or not: a
 * tarball's .gitignore files (Debian's ignores every top-level path) describe some other
 * repository, not what the tarball holds.
 */
static git_index *walk_index;
static size_t walk_root;
static int walk_rc;

static int add_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	if (type == FTW_D && ftw->level == 1 && !strcmp(path + ftw->base, ".git"))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F && type != FTW_SL)
		return FTW_CONTINUE;
	if (git_index_add_bypath(walk_index, path + walk_root) < 0) {
		walk_rc = -1;
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

static int add_tree(git_index *index, const char *dir)
{
	walk_index = index;
	walk_root = strlen(dir) + 1;
	walk_rc = 0;
	if (nftw(dir, add_one, 64, FTW_PHYS | FTW_ACTIONRETVAL) < 0)
		return -1;
	return walk_rc;
}

/* idlelab's committer: fixed, so a variant's commit id depends on its content only. */
static int committer(git_signature **out, int64_t when, int tz)
{
	return git_signature_new(out, "idlelab", "idlelab@localhost", (git_time_t)when, tz);
}

/*
 * The import's HEAD is its commit (detached), so the repository that the lab's tree names is one
 * that git log, git am or try --repo read as they are (an unborn HEAD made them see no commit).
 */
static int head_at_import(git_repository *repo, const git_oid *commit, const char *dir, struct il_err *err)
{
	if (git_repository_head_unborn(repo) != 1)
		return 0;
	if (git_repository_set_head_detached(repo, commit) < 0)
		return il_err_set(err, IL_EIO, "cannot point the HEAD of %s at its import: %s", dir, gerr());
	return 0;
}

/* Whether commit is the import of the tarball whose sha256 is hex (its message says "sha256 HEX"). */
static bool import_of(git_repository *repo, const git_oid *commit, const char *hex)
{
	git_commit *c = NULL;
	const char *msg, *at;
	bool ok;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return false;
	msg = git_commit_message(c);
	at = msg ? strstr(msg, "\nsha256 ") : NULL;
	ok = at && !strncmp(at + 8, hex, 64) && (at[72] == '\n' || at[72] == '\0');
	git_commit_free(c);
	return ok;
}

int il_repo_import_tarball(const char *tarball, const char *cache_dir, char **repo_path, git_oid *commit,
			   struct il_err *err)
{
	struct il_buf dir = IL_BUF_INIT, tmp = IL_BUF_INIT;
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid;
	char hex[65], why[PATH_MAX + 80];
	struct stat st;
	int r;

	*repo_path = NULL;
	if (stat(tarball, &st))
		return il_err_set(err, IL_ENOTFOUND, "tarball '%s': %s", tarball, strerror(errno));
	if ((r = il_sha256_file(tarball, hex, err)))
		return r;
	if (il_buf_printf(&dir, "%s/src", cache_dir)) {
		r = il_err_oom(err);
		goto done;
	}
	mkdir(cache_dir, 0755);
	mkdir(dir.p, 0755);
	if (il_buf_printf(&dir, "/%.16s", hex)) {
		r = il_err_oom(err);
		goto done;
	}
	/*
	 * cached: a tree root builds and boots, so only one that only root or this user could have
	 * written and whose import commit names this tarball's checksum; else imported again
	 */
	if (il_trust_path(dir.p, why, sizeof(why)) == 0 &&
	    !git_repository_open_ext(&repo, dir.p, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		git_reference *ref = NULL;

		if (!git_reference_lookup(&ref, repo, "refs/idlelab/import")) {
			git_oid_cpy(commit, git_reference_target(ref));
			git_reference_free(ref);
			if (import_of(repo, commit, hex)) {
				r = head_at_import(repo, commit, dir.p, err);
				goto done;
			}
		}
		git_repository_free(repo);
		repo = NULL;
	}
	/* unpack beside, then rename: an interrupted import never looks complete */
	if (il_buf_printf(&tmp, "%s.tmp", dir.p)) {
		r = il_err_oom(err);
		goto done;
	}
	{
		char *rm[] = { (char *)"rm", (char *)"-rf", tmp.p, NULL };
		char *mk[] = { (char *)"mkdir", (char *)"-p", tmp.p, NULL };
		char *tar[] = { (char *)"tar", (char *)"-x", (char *)"-a", (char *)"-f", (char *)tarball, (char *)"-C",
				tmp.p, (char *)"--strip-components=1", NULL };
		char *rm2[] = { (char *)"rm", (char *)"-rf", dir.p, NULL };
		struct il_buf o = IL_BUF_INIT, e = IL_BUF_INIT;
		struct il_exit ex;

		il_buf_init(&e, 4096);
		if ((r = il_proc_capture(rm, 0, NULL, &o, &e, &ex, err)) || (r = il_proc_capture(mk, 0, NULL, &o, &e, &ex, err)) ||
		    (r = il_proc_capture(tar, 0, NULL, &o, &e, &ex, err))) {
			il_buf_release(&o), il_buf_release(&e);
			goto done;
		}
		if (ex.code) {
			r = il_err_set(err, IL_EIO, "unpacking '%s' failed: %s", tarball, il_buf_str(&e));
			il_buf_release(&o), il_buf_release(&e);
			goto done;
		}
		il_proc_capture(rm2, 0, NULL, &o, &e, &ex, NULL);
		il_buf_release(&o), il_buf_release(&e);
	}
	if (rename(tmp.p, dir.p)) {
		r = il_err_set(err, IL_EIO, "cannot rename %s: %s", tmp.p, strerror(errno));
		goto done;
	}
	if (git_repository_init(&repo, dir.p, 0) < 0 || git_repository_index(&index, repo) < 0 ||
	    add_tree(index, dir.p) < 0 || git_index_write(index) < 0 ||
	    git_index_write_tree(&tree_oid, index) < 0 || git_tree_lookup(&tree, repo, &tree_oid) < 0 ||
	    committer(&sig, st.st_mtime, 0) < 0) {
		r = il_err_set(err, IL_EIO, "importing '%s' into %s: %s", tarball, dir.p, gerr());
		goto done;
	}
	{
		struct il_buf msg = IL_BUF_INIT;
		const char *base = strrchr(tarball, '/');

		if (il_buf_printf(&msg, "import %s\n\nsha256 %s\n", base ? base + 1 : tarball, hex))
			r = il_err_oom(err);
		else if (git_commit_create(commit, repo, NULL, sig, sig, "UTF-8", msg.p, tree, 0, NULL) < 0)
			r = il_err_set(err, IL_EIO, "committing the import of '%s': %s", tarball, gerr());
		il_buf_release(&msg);
		if (r)
			goto done;
	}
	{
		git_reference *ref = NULL;
		FILE *f;

		if (git_reference_create(&ref, repo, "refs/idlelab/import", commit, 1, "import") < 0) {
			r = il_err_set(err, IL_EIO, "cannot write refs/idlelab/import: %s", gerr());
			goto done;
		}
		git_reference_free(ref);
		if ((r = head_at_import(repo, commit, dir.p, err)))
			goto done;
		/* the work tree holds exactly this tree: builds check out from here */
		il_buf_reset(&tmp);
		if (!il_buf_printf(&tmp, "%s/.idlelab-tree", dir.p) && (f = fopen(tmp.p, "w"))) {
			fprintf(f, "%s\n", git_oid_tostr_s(&tree_oid));
			fclose(f);
		}
	}
done:
	if (!r && !(*repo_path = il_buf_detach(&dir)))
		r = il_err_oom(err);
	git_tree_free(tree);
	git_signature_free(sig);
	git_index_free(index);
	git_repository_free(repo);
	il_buf_release(&dir);
	il_buf_release(&tmp);
	return r;
}

/*
 * One problem of a series into probs: "patch K/N 'S' does not apply on base
 * SHA12 (RELEASE)[ + 1/N..]: WHY" (kernel/applycheck.h says why).
 */
static int apply_problem(git_repository *repo, git_tree *tree, const git_oid *base, const char *release,
			 const struct il_patch *p, const int *sel, size_t i, struct il_buf *probs)
{
	struct il_buf why = IL_BUF_INIT;
	int r = il_applycheck_explain(repo, tree, p->diff, &why);

	il_buf_printf(probs, "%spatch %d/%d '%s' does not apply on base %.12s%s%s%s", probs->len ? "\n  " : "", p->index,
		      p->total, p->subject, git_oid_tostr_s(base), *release ? " (" : "", release, *release ? ")" : "");
	for (size_t k = 0; k < i; k++)
		il_buf_printf(probs, "%s%d/%d", k ? "," : " + ", sel[k], p->total);
	il_buf_printf(probs, ": %s", il_buf_str(&why));
	il_buf_release(&why);
	return r;
}

int il_repo_apply_series(git_repository *repo, const git_oid *base, const struct il_series *s, const int *sel,
			 size_t nsel, git_oid *out, struct il_err *err)
{
	struct il_buf probs = IL_BUF_INIT, release = IL_BUF_INIT;
	git_commit *bc = NULL;
	git_tree *bt = NULL;
	git_oid cur;
	int r = 0;

	git_oid_cpy(&cur, base);
	for (size_t i = 0; !r && i < nsel; i++) {
		const struct il_patch *p = &s->p[sel[i] - 1];
		git_commit *parent = NULL;
		git_tree *tree = NULL, *newtree = NULL;
		git_diff *diff = NULL;
		git_index *index = NULL;
		git_signature *author = NULL, *comm = NULL;
		git_oid tree_oid;

		if (git_commit_lookup(&parent, repo, &cur) < 0 || git_commit_tree(&tree, parent) < 0) {
			r = il_err_set(err, IL_ENOTFOUND, "base commit %s: %s", git_oid_tostr_s(&cur), gerr());
		} else if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) < 0) {
			r = il_err_set(err, IL_EPARSE, "patch %d/%d '%s': its diff does not parse: %s", p->index, p->total,
				       p->subject, gerr());
		} else if ((r = il_hunkfit_apply(repo, tree, p->diff, strlen(p->diff), &index)) == IL_ENOMEM) {
			r = il_err_oom(err);
		} else if (r) {
			r = 0;
			/*
			 * said with the others, each checked on the tree the patches before it made (one that does not
			 * apply is left out), so that one try names every problem of the series
			 */
			if (!release.len && !bc && git_commit_lookup(&bc, repo, base) >= 0 && git_commit_tree(&bt, bc) >= 0)
				r = il_applycheck_kernelversion(repo, bt, &release);
			if (!r && apply_problem(repo, tree, base, il_buf_str(&release), p, sel, i, &probs))
				r = il_err_oom(err);
			git_oid_cpy(&out[i], &cur);
		} else if (git_index_write_tree_to(&tree_oid, index, repo) < 0 || git_tree_lookup(&newtree, repo, &tree_oid) < 0 ||
			   git_signature_new(&author, p->author_name[0] ? p->author_name : p->author_email,
					     p->author_email[0] ? p->author_email : "unknown", (git_time_t)p->date,
					     p->tz_minutes) < 0 ||
			   committer(&comm, p->date, p->tz_minutes) < 0 ||
			   git_commit_create(&out[i], repo, NULL, author, comm, "UTF-8", p->message, newtree, 1,
					     (const git_commit **)&parent) < 0) {
			r = il_err_set(err, IL_EIO, "patch %d/%d '%s': cannot commit: %s", p->index, p->total, p->subject,
				       gerr());
		} else {
			git_oid_cpy(&cur, &out[i]);
		}
		git_signature_free(author);
		git_signature_free(comm);
		git_index_free(index);
		git_diff_free(diff);
		git_tree_free(newtree);
		git_tree_free(tree);
		git_commit_free(parent);
	}
	if (!r && probs.len)
		r = il_err_set(err, IL_EINVAL, "%s", il_buf_str(&probs));
	git_tree_free(bt);
	git_commit_free(bc);
	il_buf_release(&probs);
	il_buf_release(&release);
	return r;
}

int il_repo_checkout_to(git_repository *repo, const git_oid *commit, const char *dir, struct il_err *err)
{
	git_checkout_options opts;
	struct il_buf mark = IL_BUF_INIT, have = IL_BUF_INIT;
	git_commit *c = NULL;
	git_tree *tree = NULL, *baseline = NULL;
	git_oid base_oid;
	struct il_err e2 = { 0 };
	int r = 0;

	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0) {
		r = il_err_set(err, IL_ENOTFOUND, "commit %s: %s", git_oid_tostr_s(commit), gerr());
		goto out;
	}
	mkdir(dir, 0755);
	if (il_buf_printf(&mark, "%s/.idlelab-tree", dir)) {
		r = il_err_oom(err);
		goto out;
	}
	if (!il_buf_read_file(&have, mark.p, 100, &e2) && have.len >= GIT_OID_HEXSZ &&
	    !git_oid_fromstrn(&base_oid, have.p, GIT_OID_HEXSZ)) {
		if (git_oid_equal(&base_oid, git_tree_id(tree)))
			goto out; /* already there */
		git_tree_lookup(&baseline, repo, &base_oid);
	}
	opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
	opts.target_directory = dir;
	opts.baseline = baseline;
	/* the old mark must go first: a checkout cut short must not look complete */
	unlink(mark.p);
	if (git_checkout_tree(repo, (git_object *)tree, &opts) < 0) {
		r = il_err_set(err, IL_EIO, "checking out %s into %s: %s", git_oid_tostr_s(commit), dir, gerr());
		goto out;
	}
	{
		char hex[GIT_OID_HEXSZ + 2];

		git_oid_tostr(hex, sizeof(hex), git_tree_id(tree));
		r = il_buf_write_file_atomic(mark.p, hex, strlen(hex), err);
	}
out:
	git_tree_free(baseline);
	git_tree_free(tree);
	git_commit_free(c);
	il_buf_release(&mark);
	il_buf_release(&have);
	return r;
}

int il_repo_range(git_repository *repo, const git_oid *good, const git_oid *bad, bool first_parent,
		  struct il_strlist *out, struct il_err *err)
{
	git_revwalk *w = NULL;
	git_oid id;
	char hex[GIT_OID_HEXSZ + 1];
	int r = 0, e;

	if (git_oid_equal(good, bad) || git_graph_descendant_of(repo, bad, good) != 1) {
		char g[GIT_OID_HEXSZ + 1];

		/* git_oid_tostr_s has one static buffer: two calls in one argument list print one id twice */
		git_oid_tostr(g, sizeof(g), good);
		return il_err_set(err, IL_EINVAL, "%.12s is not an ancestor of %.12s: a bisection needs good before bad", g,
				  git_oid_tostr_s(bad));
	}
	if (git_revwalk_new(&w, repo) < 0 || git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
	    (first_parent && git_revwalk_simplify_first_parent(w) < 0) || git_revwalk_push(w, bad) < 0 ||
	    git_revwalk_hide(w, good) < 0) {
		r = il_err_set(err, IL_EIO, "revwalk: %s", gerr());
		goto out;
	}
	/* all of it or an error: a range cut short would bisect the wrong commits */
	while (!(e = git_revwalk_next(&id, w)))
		if (il_strlist_push(out, git_oid_tostr(hex, sizeof(hex), &id))) {
			r = il_err_oom(err);
			goto out;
		}
	if (e != GIT_ITEROVER)
		r = il_err_set(err, IL_EIO, "revwalk: %s", gerr());
out:
	git_revwalk_free(w);
	return r;
}

char *il_repo_subject(git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	char *s = NULL;

	/* anyone who can commit writes it: shown and mailed, so never raw */
	if (!git_commit_lookup(&c, repo, commit) && git_commit_summary(c))
		s = il_str_sanitize(strdup(git_commit_summary(c)), false);
	git_commit_free(c);
	return s;
}

int il_repo_branch_tip(git_repository *repo, const char *remote, const char *branch, git_oid *out, struct il_err *err)
{
	const char *where = git_repository_workdir(repo) ? git_repository_workdir(repo) : git_repository_path(repo);
	struct il_buf ref = IL_BUF_INIT, spec = IL_BUF_INIT;
	git_remote *rm = NULL;
	int r = 0;

	if (remote) {
		git_fetch_options fo;
		char *specs[1];
		git_strarray sa = { specs, 1 };

		/* only this branch, into its remote-tracking ref: a nightly never touches the user's branches */
		il_buf_printf(&spec, "+refs/heads/%s:refs/remotes/%s/%s", branch, remote, branch);
		specs[0] = spec.p;
		if (git_remote_lookup(&rm, repo, remote) < 0) {
			r = il_err_set(err, IL_ENOTFOUND, "%s: no remote '%s': %s", where, remote, gerr());
			goto out;
		}
		git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
		fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
		if (git_remote_fetch(rm, &sa, &fo, "idlelab nightly") < 0) {
			r = il_err_set(err, IL_ECONNECT, "%s: cannot fetch %s from remote '%s' (%s): %s", where, branch,
				       remote, git_remote_url(rm) ? git_remote_url(rm) : "?", gerr());
			goto out;
		}
		/*
		 * The remote must still have it: a branch deleted upstream leaves its
		 * remote-tracking ref behind, which would be "unchanged" every night.
		 * The fetch's advertisement (kept after it disconnected) says.
		 */
		{
			const git_remote_head **heads = NULL;
			size_t nh = 0;
			bool found = false;

			il_buf_printf(&ref, "refs/heads/%s", branch);
			if (git_remote_ls(&heads, &nh, rm) < 0) {
				r = il_err_set(err, IL_ECONNECT, "%s: remote '%s' (%s): cannot list its branches: %s", where, remote,
					       git_remote_url(rm) ? git_remote_url(rm) : "?", gerr());
				goto out;
			}
			for (size_t i = 0; i < nh && !found; i++)
				found = ref.p && !strcmp(heads[i]->name, ref.p);
			if (!found) {
				struct il_buf tr = IL_BUF_INIT;
				char was[GIT_OID_HEXSZ + 1] = "";

				il_buf_printf(&tr, "refs/remotes/%s/%s", remote, branch);
				if (tr.p && !git_reference_name_to_id(out, repo, tr.p))
					git_oid_tostr(was, sizeof(was), out);
				r = il_err_set(err, IL_ENOTFOUND, "%s: no branch '%s' on remote '%s' (%s)%s%.12s%s", where, branch,
					       remote, git_remote_url(rm) ? git_remote_url(rm) : "?",
					       *was ? ": deleted there? (its remote-tracking ref, still at " : "", was,
					       *was ? ", is stale)" : "");
				il_buf_release(&tr);
				goto out;
			}
			il_buf_reset(&ref);
		}
		il_buf_printf(&ref, "refs/remotes/%s/%s", remote, branch);
	} else {
		il_buf_printf(&ref, "refs/heads/%s", branch);
	}
	if (il_buf_error(&ref) || il_buf_error(&spec)) {
		r = il_err_oom(err);
		goto out;
	}
	if (git_reference_name_to_id(out, repo, ref.p) < 0)
		r = il_err_set(err, IL_ENOTFOUND, "%s: no branch '%s'%s%s%s: %s", where, branch, remote ? " on remote '" : "",
			       remote ? remote : "", remote ? "'" : "", gerr());
out:
	git_remote_free(rm);
	il_buf_release(&ref), il_buf_release(&spec);
	return r;
}

int il_repo_revert_onto(git_repository *repo, const git_oid *culprit, const git_oid *onto, git_oid *out,
			struct il_err *err)
{
	git_commit *c = NULL, *o = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	git_oid tree_id;
	struct il_buf msg = IL_BUF_INIT, name = IL_BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	int r = 0;

	git_oid_tostr(hex, sizeof(hex), culprit);
	if (git_commit_lookup(&c, repo, culprit) < 0 || git_commit_lookup(&o, repo, onto) < 0) {
		r = il_err_set(err, IL_ENOTFOUND, "cannot revert %.12s: %s", hex, gerr());
		goto out;
	}
	if (git_revert_commit(&idx, repo, c, o, 0, NULL) < 0) {
		r = il_err_set(err, IL_EIO, "cannot revert %.12s: %s", hex, gerr());
		goto out;
	}
	if (git_index_has_conflicts(idx)) {
		const git_index_entry *anc, *ours, *theirs;
		git_index_conflict_iterator *it = NULL;
		struct il_buf paths = IL_BUF_INIT;

		if (!git_index_conflict_iterator_new(&it, idx))
			while (!git_index_conflict_next(&anc, &ours, &theirs, it) && paths.len < 300)
				il_buf_printf(&paths, "%s%s", paths.len ? ", " : "",
					      ours ? ours->path : theirs ? theirs->path : anc ? anc->path : "?");
		git_index_conflict_iterator_free(it);
		r = il_err_set(err, IL_EINVAL, "%.12s does not revert cleanly on %.12s (conflicts in %s)", hex,
			       git_oid_tostr_s(onto), il_buf_str(&paths));
		il_buf_release(&paths);
		goto out;
	}
	il_buf_printf(&msg, "Revert \"%s\"\n\nThis reverts commit %s.\n(made by idlelab bisect to confirm the culprit)\n",
		      git_commit_summary(c) ? git_commit_summary(c) : "", hex);
	il_buf_printf(&name, "refs/idlelab/confirm/%s", hex);
	if (il_buf_error(&msg) || il_buf_error(&name)) {
		r = il_err_oom(err);
		goto out;
	}
	if (git_index_write_tree_to(&tree_id, idx, repo) < 0 || git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_new(&sig, "idlelab", "idlelab@localhost", git_commit_time(o), 0) < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, "UTF-8", msg.p, tree, 1, (const git_commit **)&o) < 0 ||
	    git_reference_create(&ref, repo, name.p, out, 1, "idlelab bisect: confirmation") < 0)
		r = il_err_set(err, IL_EIO, "cannot write the revert of %.12s: %s", hex, gerr());
out:
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
	git_commit_free(c), git_commit_free(o);
	il_buf_release(&msg), il_buf_release(&name);
	return r;
}
