// SPDX-License-Identifier: GPL-2.0-or-later
/* Plan kernels → variants (commits). */
#include "kernel/kplan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel/fetch.h"
#include "kernel/repo.h"
#include "kernel/series.h"
#include "util/buf.h"
#include "util/str.h"

static void cfg_release(struct il_kbuild_cfg *c)
{
	free(c->arch), free(c->cross_compile), free(c->config);
	il_strlist_release(&c->fragments);
	il_strlist_release(&c->targets);
	il_strlist_release(&c->make_args);
	memset(c, 0, sizeof(*c));
}

void il_kplan_vars_release(struct il_kvars *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].name), free(k->v[i].repo_path), free(k->v[i].lineage), free(k->v[i].subject);
		free(k->v[i].origin);
		cfg_release(&k->v[i].cfg);
	}
	free(k->v);
	memset(k, 0, sizeof(*k));
}

/* p relative to dir (the caller frees); NULL when memory runs out. */
static char *path_rel(const char *dir, const char *p)
{
	if (p[0] == '/' || !dir || !*dir)
		return strdup(p);
	return il_str_dup_printf("%s/%s", dir, p);
}

static bool plain_name(const char *s)
{
	return il_str_name_ok(s, "-_.+%", 64);
}

/* Lay the build keys of plan_build, then of entry, over c (either may be NULL); then fill defaults. */
static int read_cfg(struct il_kbuild_cfg *c, const json_t *plan_build, const json_t *entry, const char *plan_dir,
		    const char *path, struct il_err *err)
{
	const json_t *srcs[2] = { plan_build, entry };
	struct utsname u;

	for (int s = 0; s < 2; s++) {
		const json_t *o = srcs[s], *v;
		const char *where = s ? path : "build";
		size_t i;

		if (!o)
			continue;
#define STR(key, field)                                                                                  \
	if ((v = json_object_get(o, key))) {                                                             \
		if (!json_is_string(v) || !json_string_length(v))                                         \
			return il_err_set(err, IL_EPARSE, "plan: %s.%s: expected a string", where, key);  \
		free(c->field);                                                                            \
		if (!(c->field = strdup(json_string_value(v))))                                            \
			return il_err_oom(err);                                                            \
	}
		STR("arch", arch)
		STR("cross_compile", cross_compile)
		STR("config", config)
#undef STR
#define LIST(key, field, rel)                                                                                    \
	if ((v = json_object_get(o, key))) {                                                                     \
		const json_t *e;                                                                                   \
		if (!json_is_array(v))                                                                             \
			return il_err_set(err, IL_EPARSE, "plan: %s.%s: expected an array of strings", where, key); \
		il_strlist_release(&c->field);                                                                     \
		json_array_foreach(v, i, e) {                                                                      \
			char *x;                                                                                   \
			if (!json_is_string(e))                                                                    \
				return il_err_set(err, IL_EPARSE, "plan: %s.%s[%zu]: expected a string", where, key, i); \
			x = rel ? path_rel(plan_dir, json_string_value(e)) : strdup(json_string_value(e));       \
			if (!x || il_strlist_push(&c->field, x)) {                                                 \
				free(x);                                                                           \
				return il_err_oom(err);                                                            \
			}                                                                                          \
			free(x);                                                                                   \
		}                                                                                                  \
	}
		LIST("config_fragments", fragments, 1)
		LIST("targets", targets, 0)
		LIST("make_args", make_args, 0)
#undef LIST
		if ((v = json_object_get(o, "jobs"))) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 1024)
				return il_err_set(err, IL_EPARSE, "plan: %s.jobs: expected an integer in 1..1024", where);
			c->jobs = (int)json_integer_value(v);
		}
	}
	for (size_t i = 0; i < c->make_args.n; i++)
		if (!strchr(c->make_args.v[i], '=') || c->make_args.v[i][0] == '-')
			return il_err_set(err, IL_EPARSE, "plan: make_args[%zu]: '%s' is not a VAR=value assignment", i,
					  c->make_args.v[i]);
	if (!c->arch) {
		uname(&u);
		c->arch = strdup(!strcmp(u.machine, "x86_64") ? "x86" : !strcmp(u.machine, "aarch64") ? "arm64" : u.machine);
	}
	if (!c->config)
		c->config = strdup("defconfig");
	else if (strchr(c->config, '/') || !strstr(c->config, "config")) {
		char *p = path_rel(plan_dir, c->config);

		free(c->config);
		c->config = p;
	}
	return c->arch && c->config ? 0 : il_err_oom(err);
}

static int cfg_copy(struct il_kbuild_cfg *d, const struct il_kbuild_cfg *s, struct il_err *err)
{
	int bad = 0;

	memset(d, 0, sizeof(*d));
	d->arch = strdup(s->arch);
	d->cross_compile = s->cross_compile ? strdup(s->cross_compile) : NULL;
	d->config = strdup(s->config);
	d->jobs = s->jobs;
	for (size_t i = 0; i < s->fragments.n; i++)
		bad |= il_strlist_push(&d->fragments, s->fragments.v[i]);
	for (size_t i = 0; i < s->targets.n; i++)
		bad |= il_strlist_push(&d->targets, s->targets.v[i]);
	for (size_t i = 0; i < s->make_args.n; i++)
		bad |= il_strlist_push(&d->make_args, s->make_args.v[i]);
	return !bad && d->arch && d->config && (d->cross_compile || !s->cross_compile) ? 0 : il_err_oom(err);
}

static struct il_kvar *add(struct il_kvars *k, const char *name, struct il_err *err)
{
	struct il_kvar *nv = realloc(k->v, (k->n + 1) * sizeof(*nv));

	if (!nv) {
		il_err_oom(err);
		return NULL;
	}
	k->v = nv;
	memset(&k->v[k->n], 0, sizeof(k->v[0]));
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].name, name)) {
			il_err_set(err, IL_EPARSE, "plan: kernels: the name '%s' is used twice", name);
			return NULL;
		}
	if (!(k->v[k->n].name = strdup(name))) {
		il_err_oom(err);
		return NULL;
	}
	return &k->v[k->n++];
}

static const struct il_kvar *find(const struct il_kvars *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].name, name))
			return &k->v[i];
	return NULL;
}

/* "teo-%d" with 3 -> "teo-3"; a name without %d gets "-3" appended. NULL when memory runs out. */
static char *numbered(const char *pattern, int k)
{
	const char *pct = strstr(pattern, "%d");

	if (pct)
		return il_str_dup_printf("%.*s%d%s", (int)(pct - pattern), pattern, k, pct + 2);
	return il_str_dup_printf("%s-%d", pattern, k);
}

static int load_series(const json_t *sj, const char *plan_dir, const char *cache_dir, const char *path,
		       struct il_series *s, struct il_err *err)
{
	struct il_buf mbox = IL_BUF_INIT;
	const char *mb = json_string_value(json_object_get(sj, "mbox"));
	const char *id = json_string_value(json_object_get(sj, "message_id"));
	const char *server = json_string_value(json_object_get(sj, "server"));
	json_t *ver = json_object_get(sj, "version");
	char label[600];
	int r;

	if (!json_is_object(sj) || (!mb == !id))
		return il_err_set(err, IL_EPARSE, "plan: %s.series: expected {\"mbox\": FILE} or {\"message_id\": ID, "
				  "\"server\": URL}", path);
	if (ver && (!json_is_integer(ver) || json_integer_value(ver) < 1))
		return il_err_set(err, IL_EPARSE, "plan: %s.series.version: expected a positive integer", path);
	if (mb) {
		char *p = path_rel(plan_dir, mb);

		if (!p)
			return il_err_oom(err);
		snprintf(label, sizeof(label), "%s", p);
		r = il_buf_read_file(&mbox, p, (size_t)256 << 20, err);
		free(p);
	} else {
		if (!server)
			return il_err_set(err, IL_EPARSE, "plan: %s.series.server: the public-inbox server URL is needed "
					  "with message_id", path);
		snprintf(label, sizeof(label), "thread <%s>", id);
		r = il_fetch_thread(server, id, cache_dir, NULL, NULL, &mbox, err);
	}
	if (!r)
		r = il_series_parse(il_buf_str(&mbox), mbox.len, ver ? (int)json_integer_value(ver) : 0, label, s, err);
	il_buf_release(&mbox);
	if (r)
		il_err_prefix(err, "plan: %s.series: ", path);
	return r;
}

/*
 * The object directory a repo or tarball kernel builds in: its own name, or the plan's "lineage", that
 * of a kernel of the same tree built under another name (the lab's), so that its variants build
 * incrementally there. *out is the caller's. IL_EPARSE, IL_ENOMEM.
 */
static int lineage_of(const json_t *e, const char *name, const char *path, char **out, struct il_err *err)
{
	const json_t *l = json_object_get(e, "lineage");

	if (l && (!json_is_string(l) || !plain_name(json_string_value(l)) || strchr(json_string_value(l), '%')))
		return il_err_set(err, IL_EPARSE, "plan: %s.lineage: expected a name (letters, digits, -_.+)", path);
	if (!(*out = strdup(l ? json_string_value(l) : name)))
		return il_err_oom(err);
	return 0;
}

int il_kplan_prepare(const json_t *plan, const char *plan_dir, const char *cache_dir, struct il_kvars *out,
		       struct il_err *err)
{
	const json_t *ks = json_object_get(plan, "kernels"), *e, *build = json_object_get(plan, "build");
	size_t i;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (build && !json_is_object(build))
		return il_err_set(err, IL_EPARSE, "plan: build: expected an object");
	if (!json_is_array(ks) || !json_array_size(ks))
		return il_err_set(err, IL_EPARSE, "plan: kernels: expected a non-empty array");
	il_repo_git_init();
	json_array_foreach(ks, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *repo_p = json_string_value(json_object_get(e, "repo"));
		const char *commit = json_string_value(json_object_get(e, "commit"));
		const char *tarball = json_string_value(json_object_get(e, "tarball"));
		const char *base = json_string_value(json_object_get(e, "base"));
		char path[32];
		struct il_kvar *v;

		snprintf(path, sizeof(path), "kernels[%zu]", i);
		if (!json_is_object(e) || !name || !plain_name(name)) {
			r = il_err_set(err, IL_EPARSE, "plan: %s.name: expected a name (letters, digits, -_.+, %%d)", path);
			break;
		}
		if (!strcmp(name, "running")) {
			if (!(v = add(out, name, err))) {
				r = err && err->code ? err->code : IL_ENOMEM;
				break;
			}
			v->running = true;
			continue;
		}
		if (!!repo_p + !!tarball + !!base != 1) {
			r = il_err_set(err, IL_EPARSE, "plan: %s: give exactly one of \"repo\" (+ \"commit\"), \"tarball\" or "
				       "\"base\" (+ \"series\")", path);
			break;
		}
		if (repo_p || tarball) {
			git_repository *repo = NULL;

			if (!(v = add(out, name, err))) {
				r = err && err->code ? err->code : IL_ENOMEM;
				break;
			}
			if ((r = read_cfg(&v->cfg, build, e, plan_dir, path, err)))
				break;
			if ((r = lineage_of(e, name, path, &v->lineage, err)))
				break;
			/* where the tree came from, as the plan says it, else the tarball or repository it names */
			if (json_is_string(json_object_get(e, "origin")))
				v->origin = strdup(json_string_value(json_object_get(e, "origin")));
			else
				v->origin = il_str_dup_printf("the %s %s", tarball ? "tarball" : "git repository",
							      tarball ? tarball : repo_p);
			if (!v->lineage || !v->origin) {
				r = il_err_oom(err);
				break;
			}
			if (tarball) {
				char *tp = path_rel(plan_dir, tarball);

				r = tp ? il_repo_import_tarball(tp, cache_dir, &v->repo_path, &v->commit, err) : il_err_oom(err);
				free(tp);
			} else if (!(v->repo_path = path_rel(plan_dir, repo_p))) {
				r = il_err_oom(err);
			} else if (!(r = il_repo_open(&repo, v->repo_path, err))) {
				r = il_repo_resolve(repo, commit ? commit : "HEAD", &v->commit, err);
			}
			if (!r && (repo || !(r = il_repo_open(&repo, v->repo_path, err))) &&
			    !(r = il_repo_tree_of(repo, &v->commit, &v->tree, err)))
				r = il_repo_set_ref(repo, name, &v->commit, err);
			git_repository_free(repo);
			if (r) {
				il_err_prefix(err, "plan: %s: ", path);
				break;
			}
			continue;
		}
		{
			const struct il_kvar *b = find(out, base);
			json_t *cum = json_object_get(e, "cumulative");
			const char *sel_s = json_string_value(json_object_get(e, "patches"));
			struct il_series s = { 0 };
			struct il_cpuset sel = { 0 };
			struct il_kbuild_cfg bc = { 0 };
			git_repository *repo = NULL;
			git_oid *oids = NULL;
			int *idx = NULL;
			bool cumulative = !cum || json_is_true(cum);

			if (!b || b->running) {
				r = il_err_set(err, IL_EPARSE, "plan: %s.base: '%s' is not an earlier built kernel of the plan", path,
					       base);
				break;
			}
			if (cum && !json_is_boolean(cum)) {
				r = il_err_set(err, IL_EPARSE, "plan: %s.cumulative: expected true or false", path);
				break;
			}
			if ((r = load_series(json_object_get(e, "series"), plan_dir, cache_dir, path, &s, err)))
				break;
			if (sel_s)
				r = il_series_select(sel_s, s.n, &sel, err);
			else {
				char all[32];

				snprintf(all, sizeof(all), "1-%zu", s.n);
				r = il_cpuset_parse(&sel, all, err);
			}
			if (!r) {
				idx = calloc(sel.n, sizeof(*idx));
				oids = calloc(sel.n, sizeof(*oids));
				for (size_t k = 0; idx && k < sel.n; k++)
					idx[k] = sel.cpu[k];
			}
			if (!r && (!idx || !oids))
				r = il_err_oom(err);
			/* the base's build settings, with this entry's own keys on top */
			if (!r && !(r = cfg_copy(&bc, &b->cfg, err)))
				r = read_cfg(&bc, NULL, e, plan_dir, path, err);
			if (!r && !(r = il_repo_open(&repo, b->repo_path, err)))
				r = il_repo_apply_series(repo, &b->commit, &s, idx, sel.n, oids, err);
			for (size_t k = 0; !r && k < sel.n; k++) {
				char *vn;
				struct il_kvar *nv;
				const struct il_kvar *bb;

				if (!cumulative && k + 1 < sel.n)
					continue;
				vn = cumulative ? numbered(name, idx[k]) : strdup(name);
				if (!vn) {
					r = il_err_oom(err);
					break;
				}
				if (!(nv = add(out, vn, err))) {
					free(vn);
					r = err && err->code ? err->code : IL_ENOMEM;
					break;
				}
				free(vn);
				bb = find(out, base); /* add() may have moved it */
				nv->repo_path = strdup(bb->repo_path);
				nv->lineage = strdup(bb->lineage);
				nv->commit = oids[k];
				nv->patch = idx[k];
				nv->subject = strdup(s.p[idx[k] - 1].subject);
				nv->origin = bb->origin ? strdup(bb->origin) : NULL;
				if (!nv->repo_path || !nv->lineage || !nv->subject || (bb->origin && !nv->origin)) {
					r = il_err_oom(err);
					break;
				}
				if ((r = cfg_copy(&nv->cfg, &bc, err)) || (r = il_repo_tree_of(repo, &nv->commit, &nv->tree, err)) ||
				    (r = il_repo_set_ref(repo, nv->name, &nv->commit, err)))
					break;
			}
			if (r && r != IL_ENOMEM)
				il_err_prefix(err, "plan: %s: ", path);
			cfg_release(&bc);
			git_repository_free(repo);
			il_series_release(&s);
			il_cpuset_release(&sel);
			free(idx);
			free(oids);
			if (r)
				break;
		}
	}
	il_repo_git_shutdown();
	if (r)
		il_kplan_vars_release(out);
	return r;
}

json_t *il_kplan_vars_to_json(const struct il_kvars *k)
{
	json_t *a = json_array();

	for (size_t i = 0; i < k->n; i++) {
		const struct il_kvar *v = &k->v[i];
		char c[GIT_OID_HEXSZ + 1], t[GIT_OID_HEXSZ + 1];
		json_t *o;

		if (v->running) {
			o = json_pack("{s:s,s:b}", "name", v->name, "running", 1);
		} else {
			git_oid_tostr(c, sizeof(c), &v->commit);
			git_oid_tostr(t, sizeof(t), &v->tree);
			o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:o,s:s,s:s}", "name", v->name, "commit", c, "tree", t, "repo",
				      v->repo_path, "patch", v->patch, "subject", v->subject ? json_string(v->subject) : json_null(),
				      "lineage", v->lineage, "arch", v->cfg.arch);
			if (o && v->origin && json_object_set_new(o, "origin", json_string(v->origin))) {
				json_decref(o);
				o = NULL;
			}
		}
		/* json_array_append_new drops o when it fails, and fails for a NULL o or a */
		if (json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
