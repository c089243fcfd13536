// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The KCIDB v5.3 document (report/kcidb.h). What each field means for
 * cpuidle results is docs/export.md's; the schema's rules this code keeps:
 * no property is null (an unknown one is left out), ids are
 * "origin:local-id", a test's path is dot-separated [a-zA-Z0-9_-] parts, a
 * git_commit_hash is 40 hex digits, a repository URL is https, an
 * environment holds only compatible, comment and misc.
 */
#include "report/kcidb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stats/compare.h"
#include "stats/dataset.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/sha256.h"
#include "util/str.h"
#include "util/jsonfile.h"

struct kctx {
	const char *origin;
	json_t *checkouts, *builds, *tests, *issues, *incidents;
	json_t *seen;               /* ids added: a kernel of several runs is one checkout and one build */
};

bool il_kcidb_origin_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* Whether none of a, b, c is NULL (what json_object() gives when memory runs out). */
static bool made(const json_t *a, const json_t *b, const json_t *c)
{
	return a && b && c;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* "ORIGIN:KIND-HASH": the first 24 hex digits of sha256 over the parts, each ended by a NUL. NULL: memory. */
static char *make_id(const struct kctx *k, const char *kind, const char *const *parts, size_t n)
{
	struct il_sha256 h;
	char hex[65];

	if (il_sha256_init(&h))
		return NULL;
	il_sha256_update(&h, kind, strlen(kind) + 1);
	for (size_t i = 0; i < n; i++)
		il_sha256_update(&h, parts[i] ? parts[i] : "", strlen(parts[i] ? parts[i] : "") + 1);
	il_sha256_final(&h, hex);
	return il_str_dup_printf("%s:%s-%.24s", k->origin, kind, hex);
}

/* o into array a unless its id is there already (o is taken either way); -1 for memory. */
static int add_once(struct kctx *k, json_t *a, json_t *o)
{
	const char *id = str(o, "id");
	int r;

	if (!o || !id)
		return json_decref(o), -1;
	if (json_object_get(k->seen, id))
		return json_decref(o), 0;
	r = json_object_set_new(k->seen, id, json_true());
	return r || json_array_append_new(a, o) ? -1 : 0;
}

/* s set as key unless NULL or empty: the schema has no nulls. */
static int set_str(json_t *o, const char *key, const char *s)
{
	return s && *s ? json_object_set_new(o, key, json_string(s)) : 0;
}

static int set_num(json_t *o, const char *key, double v)
{
	return isfinite(v) ? json_object_set_new(o, key, json_real(v)) : 0;
}

static bool hex40(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n == 40;
}

/* A part of a test's path: [a-zA-Z0-9_-]+, anything else as '_'. */
static void path_part(struct il_buf *b, const char *s)
{
	if (!s || !*s)
		s = "_";
	for (; *s; s++)
		il_buf_printf(b, "%c", (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
					       *s == '-' || *s == '_' ? *s : '_');
}

/* "menu@patch-1" -> "menu": a variant's governor label (its kernel after the @ is the build's). */
static char *gov_label(const char *variant)
{
	const char *at = strrchr(variant, '@');

	return at ? il_str_ndup(variant, (size_t)(at - variant)) : strdup(variant);
}

/* ---- A run ---- */

struct run {
	const char *dir, *name;       /* the directory and its last component */
	const json_t *rs, *fps, *kinds;
	json_t *boots;                /* kernel name -> release, from the journal's boot records */
	const json_t *night;          /* the nightly record of this run, or NULL */
};

/* The releases the run booted, by kernel name. */
static int read_boots(struct run *u, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	char *path = il_str_dup_printf("%s/journal.jsonl", u->dir);
	const char *p, *end, *s;
	size_t n;
	int r;

	if (!path || !(u->boots = json_object()))
		return free(path), il_err_oom(err);
	r = il_buf_read_file(&b, path, (size_t)1 << 30, err);
	free(path);
	for (p = b.p, end = b.p + b.len; !r && il_str_next_line(&p, end, &s, &n);) {
		json_t *rec;

		if (n < 15 || !memmem(s, n, "\"type\":\"boot\"", 13))
			continue;
		rec = json_loadb(s, n, 0, NULL);
		if (json_is_string(json_object_get(rec, "kernel")) && json_is_string(json_object_get(rec, "release")) &&
		    json_is_true(json_object_get(rec, "ok")) &&
		    json_object_set(u->boots, str(rec, "kernel"), json_object_get(rec, "release")))
			r = il_err_oom(err);
		json_decref(rec);
	}
	il_buf_release(&b);
	return r;
}

/* The run-start record's kernel entry named name, or NULL (the host's running kernel). */
static const json_t *kernel_of(const struct run *u, const char *name)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(u->rs, "kernels"), i, e)
		if (name && str(e, "name") && !strcmp(str(e, "name"), name))
			return e;
	return NULL;
}

/* The host a run measured (one host a run), and its fingerprint. */
static const char *host_of(const struct run *u, const json_t **fp)
{
	const char *h;
	const json_t *v;

	json_object_foreach((json_t *)u->fps, h, v) {
		*fp = v;
		return h;
	}
	*fp = NULL;
	return str(json_object_get(u->rs, "plan"), "host");
}

/* The checkout and build of kernel name (NULL or unknown: the host's running kernel); *build_id (caller frees). */
static int kernel_objects(struct kctx *k, const struct run *u, const char *name, char **build_id)
{
	const json_t *ke = kernel_of(u, name), *fp, *plan_build = json_object_get(json_object_get(u->rs, "plan"), "build");
	const char *host = host_of(u, &fp), *commit = ke ? str(ke, "commit") : NULL;
	const char *release = name ? str(u->boots, name) : NULL;
	char *ck_id, *cfg = NULL;
	json_t *ck, *b, *misc;
	int bad = 0;

	if (!release)
		release = str(json_object_get(fp, "kernel"), "release");
	/* a built kernel by its commit and tree; the running kernel by its release on its host */
	ck_id = ke ? make_id(k, "checkout", (const char *[]){ str(ke, "repo"), commit, str(ke, "tree") }, 3)
		   : make_id(k, "checkout", (const char *[]){ "running", host, release }, 3);
	{
		/* a build is its tree, arch and configuration: the plan's build section, in one canonical form */
		char *how = plan_build ? il_json_dumps(plan_build, JSON_SORT_KEYS | JSON_COMPACT) : NULL;

		*build_id = ke ? make_id(k, "build", (const char *[]){ commit, str(ke, "tree"), str(ke, "arch"), how }, 4)
			       : make_id(k, "build", (const char *[]){ "running", host, release }, 3);
		free(how);
	}
	ck = json_object();
	misc = json_object();
	if (!ck_id || !*build_id || !ck || !misc) {
		free(ck_id);
		json_decref(ck), json_decref(misc);
		return -1;
	}
	bad |= json_object_set_new(ck, "id", json_string(ck_id));
	bad |= json_object_set_new(ck, "origin", json_string(k->origin));
	if (ke) {
		bad |= set_str(ck, "tree_name", str(ke, "lineage"));
		if (hex40(commit))
			bad |= json_object_set_new(ck, "git_commit_hash", json_string(commit));
		if (str(ke, "repo") && !strncmp(str(ke, "repo"), "https://", 8))
			bad |= set_str(ck, "git_repository_url", str(ke, "repo"));
		bad |= set_str(misc, "kernel", str(ke, "name"));
		bad |= set_str(misc, "commit", commit);
		bad |= set_str(misc, "repository", str(ke, "repo"));
		if (json_integer_value(json_object_get(ke, "patch")) > 0) {
			bad |= json_object_set(misc, "patch", json_object_get(ke, "patch"));
			bad |= set_str(misc, "subject", str(ke, "subject"));
		}
	} else {
		bad |= set_str(misc, "kernel", "the host's running kernel");
	}
	bad |= set_str(ck, "git_commit_name", release);
	bad |= set_str(ck, "start_time", str(u->rs, "time"));
	bad |= set_str(misc, "release", release);
	bad |= json_object_set_new(ck, "misc", misc);
	bad |= add_once(k, k->checkouts, ck);

	b = json_object();
	misc = json_object();
	if (!b || !misc) {
		free(ck_id);
		json_decref(b), json_decref(misc);
		return -1;
	}
	bad |= json_object_set_new(b, "id", json_string(*build_id));
	bad |= json_object_set_new(b, "origin", json_string(k->origin));
	bad |= json_object_set_new(b, "checkout_id", json_string(ck_id));
	bad |= set_str(b, "architecture", ke ? str(ke, "arch") : str(json_object_get(fp, "kernel"), "arch"));
	if (ke && json_is_object(plan_build)) {
		struct il_buf c = IL_BUF_INIT;
		const json_t *f;
		size_t i;

		il_buf_adds(&c, str(plan_build, "config") ? str(plan_build, "config") : "defconfig");
		json_array_foreach(json_object_get(plan_build, "config_fragments"), i, f)
			if (json_is_string(f))
				il_buf_printf(&c, "+%s", strrchr(json_string_value(f), '/') ? strrchr(json_string_value(f), '/') + 1
											: json_string_value(f));
		cfg = il_buf_detach(&c);
		bad |= set_str(b, "config_name", cfg);
		if (str(plan_build, "cross_compile")) {
			char *cc = il_str_dup_printf("%sgcc", str(plan_build, "cross_compile"));

			bad |= !cc || set_str(b, "compiler", cc);
			free(cc);
		}
	}
	/* built and booted: the measured kernel is there; the running one was not built here */
	if (ke)
		bad |= json_object_set_new(b, "status", json_string(release && str(u->boots, name) ? "PASS" : "DONE"));
	bad |= set_str(misc, "release", release);
	bad |= json_object_set_new(b, "misc", misc);
	bad |= add_once(k, k->builds, b);
	free(ck_id);
	free(cfg);
	return bad ? -1 : 0;
}

/* What a dashboard shows of the host: environment.comment and misc (only those, and compatible, are allowed). */
static json_t *environment(const struct run *u)
{
	const json_t *fp, *ci, *e;
	const char *host = host_of(u, &fp), *kind = str(u->kinds, host ? host : "");
	json_t *env = json_object(), *misc = json_object(), *states = json_array();
	struct il_buf c = IL_BUF_INIT;
	size_t i;
	int bad = !made(env, misc, states);

	if (bad)
		return json_decref(env), json_decref(misc), json_decref(states), NULL;
	ci = json_object_get(fp, "cpuidle");
	/* "name" by "s" when there is one: "s*" would also leave it out when its string cannot be made */
	json_array_foreach(json_object_get(json_array_get(json_object_get(ci, "state_tables"), 0), "states"), i, e)
		bad |= json_array_append_new(states, str(e, "name") ?
			json_pack("{s:s,s:O*,s:O*}", "name", str(e, "name"), "latency_us", json_object_get(e, "latency_us"),
				  "residency_us", json_object_get(e, "residency_us")) :
			json_pack("{s:O*,s:O*}", "latency_us", json_object_get(e, "latency_us"), "residency_us",
				  json_object_get(e, "residency_us")));
	il_buf_printf(&c, "host %s (%s), cpuidle driver %s", host ? host : "?",
		      kind && !strcmp(kind, "lab") ? "idlelab's QEMU lab VM: every idle state is WFI or halt underneath" :
		      kind ? kind : "kind not recorded", str(ci, "driver") ? str(ci, "driver") : "none");
	bad |= set_str(env, "comment", il_buf_str(&c));
	bad |= set_str(misc, "host", host);
	bad |= set_str(misc, "host_kind", kind);
	bad |= set_str(misc, "driver", str(ci, "driver"));
	bad |= set_str(misc, "cpu_model", str(fp, "cpu_model"));
	bad |= set_str(misc, "cpus", str(fp, "online_cpus"));
	bad |= set_str(misc, "arch", str(json_object_get(fp, "kernel"), "arch"));
	if (json_is_boolean(json_object_get(json_object_get(fp, "virtualization"), "vm")))
		bad |= json_object_set(misc, "vm", json_object_get(json_object_get(fp, "virtualization"), "vm"));
	bad |= json_object_set_new(misc, "states", states);
	bad |= json_object_set_new(env, "misc", misc);
	il_buf_release(&c);
	return bad ? json_decref(env), NULL : env;
}

/* Whether "VARIANT|KEY" regressed in this run's nightly (its record's reported keys). */
static bool regressed(const struct run *u, const char *variant, const char *key)
{
	const json_t *e;
	size_t i, vn = strlen(variant);

	if (!u->night || strcmp(str(u->night, "verdict") ? str(u->night, "verdict") : "", "regression"))
		return false;
	json_array_foreach(json_object_get(u->night, "reported"), i, e) {
		const char *s = json_string_value(e);

		if (s && !strncmp(s, variant, vn) && s[vn] == '|' && !strcmp(s + vn + 1, key))
			return true;
	}
	return false;
}

/* One test: variant v's key metric i of the comparison c. */
static int one_test(struct kctx *k, const struct run *u, const struct il_cmp *c, size_t i, size_t v,
		    const char *build_id, const json_t *env, json_t *failed)
{
	const struct il_dataset *ds = c->ds;
	const struct il_mseries *m = &ds->met[c->met[i]];
	const struct il_mres *x = il_compare_res(c, i, v);
	const json_t *wl = json_object_get(json_object_get(u->rs, "workloads"), m->group);
	char *gov = gov_label(ds->var[v]), *id;
	struct il_buf path = IL_BUF_INIT;
	json_t *t = json_object(), *num = json_object(), *misc = json_object();
	const char *nv = u->night ? str(u->night, "verdict") : NULL;
	/* a nightly compared with its baseline (good or regression) makes a pass/fail claim; its first (baseline) does not */
	bool night = nv && (!strcmp(nv, "good") || !strcmp(nv, "regression")), reg = regressed(u, ds->var[v], m->key);
	int bad = !gov || !made(t, num, misc);

	id = make_id(k, "test", (const char *[]){ str(u->rs, "time"), u->name, ds->var[v], m->key }, 4);
	il_buf_adds(&path, "idlelab.");
	path_part(&path, m->group);
	for (const char *s = m->metric, *d; s; s = d ? d + 1 : NULL) {
		char *part = (d = strchr(s, '.')) ? il_str_ndup(s, (size_t)(d - s)) : strdup(s);

		il_buf_adds(&path, ".");
		path_part(&path, part);
		free(part);
	}
	il_buf_adds(&path, ".");
	path_part(&path, gov);
	bad |= !id || !il_buf_ok(&path);
	if (!bad) {
		bad |= json_object_set_new(t, "id", json_string(id));
		bad |= json_object_set_new(t, "origin", json_string(k->origin));
		bad |= json_object_set_new(t, "build_id", json_string(build_id));
		bad |= json_object_set_new(t, "path", json_string(il_buf_str(&path)));
		/* a nightly judges each key metric against its baseline: a pass/fail claim; a plain run measures */
		bad |= json_object_set_new(t, "status", json_string(!night ? "DONE" : reg ? "FAIL" : "PASS"));
		bad |= set_str(t, "start_time", str(u->rs, "time"));
		bad |= json_object_set_new(num, "value", json_real(x->d.mean));
		bad |= set_str(num, "unit", m->unit);
		bad |= json_object_set_new(t, "number", num);
		num = NULL;
		bad |= json_object_set_new(t, "environment", json_deep_copy(env));
		bad |= json_object_set_new(misc, "n", json_integer((json_int_t)x->d.n));
		bad |= set_num(misc, "stdev", x->d.stdev);
		bad |= set_num(misc, "change_pct", x->change_pct);
		bad |= set_num(misc, "p", x->p);
		bad |= set_num(misc, "ci_lo", x->ci_lo);
		bad |= set_num(misc, "ci_hi", x->ci_hi);
		bad |= set_num(misc, "threshold_pct", x->threshold_pct);
		bad |= set_str(misc, "verdict", x->verdict);
		bad |= set_str(misc, "why", x->why);
		bad |= set_str(misc, "better", il_dataset_better_name(m->better));
		bad |= set_str(misc, "reference", ds->var[c->ref]);
		if (c->aa >= 0)
			bad |= set_str(misc, "aa_partner", ds->var[c->aa]);
		bad |= set_str(misc, "variant", ds->var[v]);
		bad |= set_str(misc, "governor", gov);
		bad |= set_str(misc, "workload", str(wl, "workload") ? str(wl, "workload") : m->group);
		if (json_is_object(json_object_get(wl, "params")))
			bad |= json_object_set(misc, "params", json_object_get(wl, "params"));
		bad |= set_str(misc, "metric", m->key);
		bad |= set_str(misc, "run", u->name);
		if (u->night)
			bad |= set_str(misc, "nightly", nv);
		bad |= json_object_set_new(t, "misc", misc);
		misc = NULL;
		if (reg)
			bad |= json_array_append_new(failed, json_string(id));
		bad |= add_once(k, k->tests, t);
		t = NULL;
	}
	json_decref(t), json_decref(num), json_decref(misc);
	il_buf_release(&path);
	free(gov);
	free(id);
	return bad ? -1 : 0;
}

/* A nightly regression: an issue, and an incident on each test it is present in. */
static int issue(struct kctx *k, const struct run *u, const json_t *failed)
{
	const json_t *e;
	size_t i;
	char *id = make_id(k, "issue", (const char *[]){ str(u->night, "plan"), str(u->night, "host"),
							 str(u->night, "commit") }, 3);
	char *subj = il_str_dup_printf("idlelab nightly %s on %s: regression at %.12s%s%s", str(u->night, "plan"),
				       str(u->night, "host"), str(u->night, "commit") ? str(u->night, "commit") : "?",
				       str(u->night, "subject") ? " " : "", str(u->night, "subject") ? str(u->night, "subject") : "");
	json_t *is = json_object(), *misc = json_object();
	int bad = !id || !subj || !made(is, misc, misc);

	if (!bad) {
		bad |= json_object_set_new(is, "id", json_string(id));
		bad |= json_object_set_new(is, "version", json_integer(1));
		bad |= json_object_set_new(is, "origin", json_string(k->origin));
		bad |= set_str(is, "report_subject", subj);
		bad |= set_str(is, "comment", str(u->night, "reason"));
		/* no culprit: a nightly says the range (baseline..tip) regressed; a bisection names the commit */
		bad |= set_str(misc, "commit", str(u->night, "commit"));
		bad |= set_str(misc, "baseline_commit", str(json_object_get(u->night, "baseline"), "commit"));
		bad |= set_str(misc, "run", u->name);
		bad |= json_object_set_new(is, "misc", misc);
		misc = NULL;
		bad |= add_once(k, k->issues, is);
		is = NULL;
	}
	json_array_foreach(failed, i, e) {
		char *iid = make_id(k, "incident", (const char *[]){ id, json_string_value(e) }, 2);

		bad |= !iid || add_once(k, k->incidents, json_pack("{s:s,s:s,s:s,s:i,s:s,s:b}", "id", iid, "origin", k->origin,
								    "issue_id", id, "issue_version", 1, "test_id",
								    json_string_value(e), "present", 1));
		free(iid);
	}
	json_decref(is), json_decref(misc);
	free(id), free(subj);
	return bad ? -1 : 0;
}

static int export_run(struct kctx *k, const char *dir, const json_t *night, struct il_err *err)
{
	struct il_cmp_opts co = IL_CMP_OPTS_INIT;
	struct il_dataset ds = { 0 };
	struct il_cmp c = { 0 };
	struct run u = { .dir = dir, .night = night };
	json_t *failed = json_array(), *env = NULL;
	char **builds = NULL;
	int r;

	u.name = strrchr(dir, '/') && strrchr(dir, '/')[1] ? strrchr(dir, '/') + 1 : dir;
	if ((r = il_datajournal_add_run(&ds, dir, NULL, err)) || (r = il_compare(&c, &ds, &co, err))) {
		il_err_prefix(err, "%s: ", dir);
		goto out;
	}
	u.rs = json_object_get(ds.meta, "run_start");
	u.fps = json_object_get(ds.meta, "fingerprints");
	u.kinds = json_object_get(ds.meta, "host_kinds");
	if ((r = read_boots(&u, err)))
		goto out;
	if (!failed || !(env = environment(&u)) || !(builds = calloc(ds.nvar, sizeof(*builds)))) {
		r = il_err_oom(err);
		goto out;
	}
	for (size_t v = 0; v < ds.nvar; v++) {
		const json_t *ve = NULL, *e;
		size_t j;

		json_array_foreach(json_object_get(u.rs, "variants"), j, e)
			if (str(e, "label") && !strcmp(str(e, "label"), ds.var[v]))
				ve = e;
		if (kernel_objects(k, &u, str(ve, "kernel"), &builds[v])) {
			r = il_err_oom(err);
			goto out;
		}
	}
	for (size_t i = 0; i < c.nmet; i++)
		for (size_t v = 0; c.key[i] && v < ds.nvar; v++)
			if (isfinite(il_compare_res(&c, i, v)->d.mean) && il_compare_res(&c, i, v)->d.n &&
			    one_test(k, &u, &c, i, v, builds[v], env, failed)) {
				r = il_err_oom(err);
				goto out;
			}
	if (json_array_size(failed) && issue(k, &u, failed))
		r = il_err_oom(err);
out:
	for (size_t v = 0; builds && v < ds.nvar; v++)
		free(builds[v]);
	free(builds);
	json_decref(failed), json_decref(env), json_decref(u.boots);
	il_compare_release(&c);
	il_dataset_release(&ds);
	return r;
}

/* A nightly record's run: as written (the nightly writes its path), or in the nightly directory when relative. */
static char *run_path(const char *dir, const char *run)
{
	return run[0] == '/' ? strdup(run) : il_str_dup_printf("%s/%s", dir, run);
}

/* A nightly directory: each run its nightly.jsonl records a verdict for, with that record. */
static int export_nightly(struct kctx *k, const char *dir, const char *journal, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	const char *p, *end, *s;
	size_t n, runs = 0;
	int r = il_buf_read_file(&b, journal, (size_t)1 << 30, err);

	for (p = b.p, end = b.p + b.len; !r && il_str_next_line(&p, end, &s, &n);) {
		json_t *rec = json_loadb(s, n, 0, NULL);
		char *rd;

		if (!json_is_string(json_object_get(rec, "run")) || strcmp(str(rec, "type") ? str(rec, "type") : "", "nightly") ||
		    !strcmp(str(rec, "verdict") ? str(rec, "verdict") : "", "failed")) {
			json_decref(rec);
			continue;
		}
		if (!(rd = run_path(dir, str(rec, "run"))))
			r = il_err_oom(err);
		else
			r = export_run(k, rd, rec, err);
		runs += !r;
		free(rd);
		json_decref(rec);
	}
	il_buf_release(&b);
	if (!r && !runs)
		r = il_err_set(err, IL_ENOTFOUND, "%s: its nightly.jsonl records no measured night", journal);
	return r;
}

/* The context of one document: origin checked, its arrays made. */
static int kctx_init(struct kctx *k, const char *origin, struct il_err *err)
{
	*k = (struct kctx){ .origin = origin };
	if (!il_kcidb_origin_ok(origin))
		return il_err_set(err, IL_EINVAL, "origin '%s': expected lower-case letters, digits and '_' (KCIDB's "
				  "^[a-z0-9_]+$; KernelCI gives each submitter one)", origin ? origin : "");
	k->checkouts = json_array(), k->builds = json_array(), k->tests = json_array();
	k->issues = json_array(), k->incidents = json_array(), k->seen = json_object();
	return made(k->checkouts, k->builds, k->tests) && made(k->issues, k->incidents, k->seen) ? 0 : il_err_oom(err);
}

/* The document of what k gathered into *out (when r is 0), k released; r or IL_ENOMEM. */
static int kctx_finish(struct kctx *k, int r, json_t **out, struct il_err *err)
{
	*out = NULL;
	if (!r && !(*out = json_pack("{s:{s:i,s:i},s:O,s:O,s:O,s:O,s:O}", "version", "major", IL_KCIDB_MAJOR, "minor",
				     IL_KCIDB_MINOR, "checkouts", k->checkouts, "builds", k->builds, "tests", k->tests,
				     "issues", k->issues, "incidents", k->incidents)))
		r = il_err_oom(err);
	json_decref(k->checkouts), json_decref(k->builds), json_decref(k->tests);
	json_decref(k->issues), json_decref(k->incidents), json_decref(k->seen);
	return r;
}

int il_kcidb_night(const char *nightly_dir, const json_t *record, const char *origin, json_t **out, struct il_err *err)
{
	struct kctx k;
	char *rd = NULL;
	int r = kctx_init(&k, origin, err);

	if (!r && !json_is_string(json_object_get(record, "run")))
		r = il_err_set(err, IL_EINVAL, "%s: a nightly record without its run", nightly_dir);
	if (!r && !(rd = run_path(nightly_dir, str(record, "run"))))
		r = il_err_oom(err);
	if (!r)
		r = export_run(&k, rd, record, err);
	free(rd);
	return kctx_finish(&k, r, out, err);
}

int il_kcidb_document(const char *const *dirs, size_t n, const char *origin, json_t **out, struct il_err *err)
{
	struct kctx k;
	int r = kctx_init(&k, origin, err);

	*out = NULL;
	for (size_t i = 0; !r && i < n; i++) {
		char *nj = il_str_dup_printf("%s/nightly.jsonl", dirs[i]);
		struct stat st;

		if (!nj)
			r = il_err_oom(err);
		else if (!stat(nj, &st))
			r = export_nightly(&k, dirs[i], nj, err);
		else
			r = export_run(&k, dirs[i], NULL, err);
		free(nj);
	}
	return kctx_finish(&k, r, out, err);
}
