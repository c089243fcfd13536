// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel tree a lab builds: parsing --tree, checking it is there, keeping it (see labtree.h). */
#include "lab/labtree.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab/lab.h"
#include "util/sha256.h"
#include "util/str.h"

void il_lab_tree_release(struct il_lab_tree *t)
{
	IL_FREE_ALL(t->spec, t->path, t->rev, t->tag, t->origin);
	memset(t, 0, sizeof(*t));
}

bool il_lab_tree_is_default(const char *spec)
{
	return !spec || !*spec || !strcmp(spec, IL_LAB_TREE_DEFAULT);
}

/* "6.1", "6.12": what Debian's linux-source-V packages are called by */
static bool debian_version(const char *s)
{
	const char *dot = strchr(s, '.');

	if (!dot || dot == s || !dot[1] || strlen(s) > 16)
		return false;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && p != dot)
			return false;
	return true;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* A tarball's name without its .tar.* ending; linux-source-V's is V. */
static char *tarball_tag(const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path, *t = strstr(b, ".tar");
	size_t n = t ? (size_t)(t - b) : strlen(b);
	char *tag;

	if (!strncmp(b, "linux-source-", 13) && n > 13)
		b += 13, n -= 13;
	if (!(tag = il_str_ndup(b, n > 40 ? 40 : n)))
		return NULL;
	for (char *p = tag; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			*p = '_';
	return tag;
}

int il_lab_tree_parse(struct il_lab_tree *out, const char *spec, struct il_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		spec = IL_LAB_TREE_DEFAULT;
	if (!(out->spec = strdup(spec)))
		return il_err_oom(err);
	if (debian_version(spec)) {
		out->kind = IL_LAB_TREE_DEBIAN;
		out->path = il_str_dup_printf("/usr/src/linux-source-%s.tar.xz", spec);
		out->tag = strdup(spec);
		out->origin = il_str_dup_printf("Debian linux-source-%s (/usr/src/linux-source-%s.tar.xz)", spec, spec);
	} else {
		char *dir = strdup(spec), *at = dir ? strrchr(dir, '@') : NULL, *abs;

		if (!dir)
			goto oom;
		/* DIR@REV, when DIR is a directory (a file may well have '@' in its name) */
		if (at && at != dir && at[1] && !is_file(spec)) {
			*at = 0;
			if (is_dir(dir) && !(out->rev = strdup(at + 1))) {
				free(dir);
				goto oom;
			}
			if (!out->rev)
				*at = '@';
		}
		if (!(abs = realpath(dir, NULL)) || (!is_dir(abs) && !is_file(abs))) {
			int r = il_err_set(err, IL_EINVAL, "--tree %s: expected a Debian linux-source version (6.1, 6.12), a "
					   "kernel tarball, or a git repository DIR[@REV]; %s is none", spec, dir);

			free(dir), free(abs);
			il_lab_tree_release(out);
			return r;
		}
		free(dir);
		out->path = abs;
		if (is_dir(abs)) {
			struct il_sha256 h;
			char hex[65];

			out->kind = IL_LAB_TREE_REPO;
			il_sha256_init(&h);
			il_sha256_update(&h, abs, strlen(abs) + 1);
			if (out->rev)
				il_sha256_update(&h, out->rev, strlen(out->rev));
			il_sha256_final(&h, hex);
			out->tag = il_str_dup_printf("tree-%.8s", hex);
			out->origin = il_str_dup_printf("the git repository %s at %s", abs, out->rev ? out->rev : "HEAD");
		} else {
			out->kind = IL_LAB_TREE_TARBALL;
			out->tag = tarball_tag(abs);
			out->origin = il_str_dup_printf("the tarball %s", abs);
		}
	}
	if (out->path && out->tag && out->origin)
		return 0;
oom:
	il_lab_tree_release(out);
	return il_err_oom(err);
}

int il_lab_tree_check(const struct il_lab_tree *t, struct il_err *err)
{
	if (t->kind == IL_LAB_TREE_DEBIAN && !is_file(t->path))
		return il_err_set(err, IL_ENOTFOUND, "the lab's tree %s: %s is missing: apt-get install linux-source-%s "
				  "(make deps installs 6.1 and 6.12)", t->spec, t->path, t->spec);
	if (t->kind == IL_LAB_TREE_TARBALL && !is_file(t->path))
		return il_err_set(err, IL_ENOTFOUND, "the lab's tree: the tarball %s is not there", t->path);
	if (t->kind == IL_LAB_TREE_REPO && !is_dir(t->path))
		return il_err_set(err, IL_ENOTFOUND, "the lab's tree: the repository %s is not there", t->path);
	return 0;
}

json_t *il_lab_tree_kernel_json(const struct il_lab_tree *t, const char *name)
{
	if (t->kind == IL_LAB_TREE_REPO)
		return json_pack("{s:s,s:s,s:s}", "name", name, "repo", t->path, "commit", t->rev ? t->rev : "HEAD");
	return json_pack("{s:s,s:s}", "name", name, "tarball", t->path);
}

int il_lab_tree_of(const char *cache_dir, const char *instance, json_t **out, struct il_err *err)
{
	struct il_lab_opts o = { .cache_dir = cache_dir, .name = instance };
	char *rd = il_lab_run_dir(&o), *sp = rd ? il_str_dup_printf("%s/state.json", rd) : NULL;
	json_error_t je;
	json_t *st;

	*out = NULL;
	if (!rd || !sp) {
		free(rd);
		return rd ? il_err_oom(err) : il_err_set(err, IL_EINVAL, "'%s' is not a lab instance name", instance);
	}
	st = json_load_file(sp, 0, &je);
	if (!st) {
		int r = il_err_set(err, IL_ENOTFOUND, "lab '%s' was never brought up with this cache (%s: %s): idlelab "
				   "lab up first", instance, sp, je.text);

		free(rd), free(sp);
		return r;
	}
	if (json_is_object(json_object_get(st, "kernel")))
		*out = json_incref(json_object_get(st, "kernel"));
	json_decref(st);
	free(rd), free(sp);
	return 0;
}
