// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel/build: cached incremental builds of a tiny kernel-like tree
 * (tests/fixtures/tinykernel) through every stage (checkout, config and its
 * check, key, cache, make with progress, artifacts), and a directory that
 * cannot be made named as such.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/build.h"
#include "kernel/kplan.h"

static char *make_tarball(const char *dir)
{
	char cmd[2048], *out = malloc(600);

	snprintf(out, 600, "%s/tiny.tar.gz", dir);
	snprintf(cmd, sizeof(cmd), "tar -czf %s -C %s tinykernel --transform s,^tinykernel,linux-tiny, --mtime=@1700000000 --owner=0 --group=0 --sort=name",
		 out, tu_fixture_abs(""));
	assert_int_equal(system(cmd), 0);
	return out;
}

struct steps {
	int n[IL_KB_DONE + 1];
	double files, total;  /* the last compile progress */
	bool last, estimated;
};

static void on_step(const struct il_kvar *v, enum il_kbuild_step st, const struct il_progress *p, void *ctx)
{
	struct steps *s = ctx;

	(void)v;
	s->n[st]++;
	if (st == IL_KB_COMPILING)
		s->files = p->done, s->total = p->total, s->last = p->last, s->estimated = p->estimated;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_build__variants_cached_incremental(void **state)
{
	char *dir = tu_tmpdir(), *tgz = make_tarball(dir), plan_s[4096], frag[700], cache[700];
	struct il_err err = { 0 };
	struct il_kvars kv;
	json_error_t je;
	json_t *plan;

	(void)state;
	snprintf(frag, sizeof(frag), "%s/frag.config", dir);
	tu_write(dir, "/frag.config", "CONFIG_CPU_IDLE_GOV_TEO=y\nCONFIG_CPU_IDLE_GOV_LADDER=y");
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(plan_s, sizeof(plan_s),
		 "{\"kernels\": [{\"name\": \"running\"},"
		 " {\"name\": \"base\", \"tarball\": \"%s\", \"arch\": \"tiny\", \"config\": \"defconfig\","
		 "  \"config_fragments\": [\"%s\"], \"targets\": [\"Image\"], \"jobs\": 1},"
		 " {\"name\": \"v2-%%d\", \"base\": \"base\", \"series\": {\"mbox\": \"%s\"}}]}",
		 tgz, frag, tu_fixture_abs("series/thread.mbox"));
	plan = json_loads(plan_s, 0, &je);
	assert_non_null(plan);
	if (il_kplan_prepare(plan, dir, cache, &kv, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kv.n, 5);
	assert_true(kv.v[0].running);
	assert_string_equal(kv.v[2].name, "v2-1");
	assert_string_equal(kv.v[4].name, "v2-3");
	assert_int_equal(kv.v[4].patch, 3);
	assert_string_equal(kv.v[4].lineage, "base");
	{
		struct steps st = { .n = { 0 } };
		const char *expect_cc[] = { NULL, "3", "1", "1", "1" };

		for (size_t i = 1; i < kv.n; i++) {
			struct il_kbuild_res res;
			char path[900], *log, *img, lv[32], hex[GIT_OID_HEXSZ + 1];

			assert_int_equal(il_kernel_build(&kv.v[i], cache, on_step, &st, &res, &err), 0);
			assert_true(res.ok);
			assert_false(res.cached);
			snprintf(path, sizeof(path), "%s/build.log", res.dir);
			log = tu_read(path, NULL);
			/* the first build compiles all three governors, each patch exactly the file it touches */
			assert_int_equal(count(log, "  CC  "), atoi(expect_cc[i]));
			/* progress counted the same files as make printed them, and ended with a last report */
			assert_true(st.last);
			assert_int_equal((int)st.files, atoi(expect_cc[i]));
			if (i == 1) {
				/* a full build in an empty cache: an estimate from the options set */
				assert_true(st.estimated);
				assert_true(st.total > 0);
			} else {
				assert_true(st.total == 0); /* incremental: no estimate */
			}
			st.last = false;
			free(log);
			git_oid_tostr(hex, sizeof(hex), &kv.v[i].commit);
			snprintf(lv, sizeof(lv), "6.1.0-il%.8s", hex);
			assert_string_equal(res.release, lv);
			snprintf(path, sizeof(path), "%s/Image", res.dir);
			img = tu_read(path, NULL);
			assert_non_null(strstr(img, lv));
			free(img);
			snprintf(path, sizeof(path), "%s/config", res.dir);
			img = tu_read(path, NULL);
			assert_non_null(strstr(img, "CONFIG_CPU_IDLE_GOV_TEO=y"));
			free(img);
			il_kernel_build_res_release(&res);
		}
		assert_int_equal(st.n[IL_KB_BUILD], 4);
		/* the full build's count is kept for the next estimate of this .config */
		{
			char path[900], *est;

			snprintf(path, sizeof(path), "%s/kernel-estimates.json", cache);
			est = tu_read(path, NULL);
			assert_non_null(strstr(est, "\"files\": 3"));
			free(est);
		}
		/* everything again: all cache hits */
		for (size_t i = 1; i < kv.n; i++) {
			struct il_kbuild_res res;

			assert_int_equal(il_kernel_build(&kv.v[i], cache, NULL, NULL, &res, &err), 0);
			assert_true(res.cached);
			il_kernel_build_res_release(&res);
		}
		{
			json_t *l;

			assert_int_equal(il_kernel_build_list(cache, &l, &err), 0);
			assert_int_equal(json_array_size(l), 4);
			json_decref(l);
		}
	}
	il_kplan_vars_release(&kv);
	json_decref(plan);
	/* an option the tree has but cannot set (its dependency is missing): an error naming it */
	tu_write(dir, "/frag.config", "CONFIG_CPU_IDLE_GOV_HALTPOLL=y");
	plan = json_loads(plan_s, 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), 0);
	{
		struct il_kbuild_res res;

		assert_int_equal(il_kernel_build(&kv.v[1], cache, NULL, NULL, &res, &err), IL_EINVAL);
		assert_non_null(strstr(err.msg, "CONFIG_CPU_IDLE_GOV_HALTPOLL=y is not set as asked"));
		assert_non_null(strstr(err.msg, "the tree has the option"));
		il_kernel_build_res_release(&res);
	}
	il_kplan_vars_release(&kv);
	json_decref(plan);
	/* an option the tree does not have: skipped and named, the build goes on (and says so cached too) */
	tu_write(dir, "/frag.config", "CONFIG_SMP=y\nCONFIG_INTEL_IDLE=y\n");
	for (int pass = 0; pass < 2; pass++) {
		struct il_kbuild_res res;

		plan = json_loads(plan_s, 0, &je);
		assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), 0);
		assert_int_equal(il_kernel_build(&kv.v[1], cache, NULL, NULL, &res, &err), 0);
		assert_true(res.ok);
		assert_int_equal(res.cached, pass == 1);
		assert_int_equal(res.config_skipped.n, 1);
		assert_non_null(strstr(res.config_skipped.v[0], "CONFIG_INTEL_IDLE=y ("));
		assert_non_null(strstr(res.config_skipped.v[0], "frag.config)"));
		if (!pass) {
			json_t *sk = json_object_get(res.manifest, "config_skipped");

			assert_int_equal(json_array_size(sk), 1);
		}
		il_kernel_build_res_release(&res);
		il_kplan_vars_release(&kv);
		json_decref(plan);
	}
	/* unless the fragment says the build cannot work without it */
	tu_write(dir, "/frag.config", "# idlelab-required: CONFIG_SMP CONFIG_INTEL_IDLE\nCONFIG_SMP=y\nCONFIG_INTEL_IDLE=y\n");
	plan = json_loads(plan_s, 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), 0);
	{
		struct il_kbuild_res res;

		assert_int_equal(il_kernel_build(&kv.v[1], cache, NULL, NULL, &res, &err), IL_EINVAL);
		assert_non_null(strstr(err.msg, "CONFIG_INTEL_IDLE is required"));
		assert_non_null(strstr(err.msg, "has no such option"));
		il_kernel_build_res_release(&res);
	}
	il_kplan_vars_release(&kv);
	json_decref(plan);
	/* a compiler that fails: the variant is untestable, the log tail kept */
	tu_write(dir, "/frag.config", "CONFIG_SMP=y");
	snprintf(plan_s, sizeof(plan_s),
		 "{\"kernels\": [{\"name\": \"broken\", \"tarball\": \"%s\", \"arch\": \"tiny\", \"targets\": [\"Image\"],"
		 " \"make_args\": [\"CC=false\"]}]}",
		 tgz);
	plan = json_loads(plan_s, 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), 0);
	{
		struct il_kbuild_res res;

		assert_int_equal(il_kernel_build(&kv.v[0], cache, NULL, NULL, &res, &err), 0);
		assert_false(res.ok);
		assert_non_null(res.log_tail);
		assert_non_null(strstr(res.log_tail, "Error"));
		il_kernel_build_res_release(&res);
	}
	il_kplan_vars_release(&kv);
	json_decref(plan);
	/* plan errors name the JSON path */
	plan = json_loads("{\"kernels\": [{\"name\": \"a\", \"base\": \"nope\", \"series\": {\"mbox\": \"x\"}}]}", 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "kernels[0].base: 'nope' is not an earlier built kernel"));
	json_decref(plan);
	plan = json_loads("{\"kernels\": [{\"name\": \"a\", \"repo\": \"/nonexistent\", \"tarball\": \"x\"}]}", 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "give exactly one of"));
	json_decref(plan);
	/* lineage: the same tree under another name (try's "base" on a lab's own build) builds in that one's object
	 * directory, so its variants are incremental there; a lineage that is no name is refused */
	tu_write(dir, "/frag.config", "CONFIG_SMP=y");
	snprintf(plan_s, sizeof(plan_s),
		 "{\"kernels\": [{\"name\": \"base2\", \"lineage\": \"base\", \"tarball\": \"%s\", \"arch\": \"tiny\","
		 " \"config\": \"defconfig\", \"config_fragments\": [\"%s\"], \"targets\": [\"Image\"], \"jobs\": 1},"
		 " {\"name\": \"w-%%d\", \"base\": \"base2\", \"series\": {\"mbox\": \"%s\"}, \"patches\": \"1\"}]}",
		 tgz, frag, tu_fixture_abs("series/thread.mbox"));
	plan = json_loads(plan_s, 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), 0);
	assert_string_equal(kv.v[0].lineage, "base");
	assert_string_equal(kv.v[1].lineage, "base");
	{
		struct il_kbuild_res res;

		assert_int_equal(il_kernel_build(&kv.v[1], cache, NULL, NULL, &res, &err), 0);
		assert_true(res.ok);
		assert_true(json_is_true(json_object_get(res.manifest, "incremental")));
		il_kernel_build_res_release(&res);
	}
	il_kplan_vars_release(&kv);
	json_decref(plan);
	plan = json_loads("{\"kernels\": [{\"name\": \"a\", \"lineage\": \"../x\", \"tarball\": \"x\"}]}", 0, &je);
	assert_int_equal(il_kplan_prepare(plan, dir, cache, &kv, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "kernels[0].lineage: expected a name"));
	json_decref(plan);
	free(tgz);
	tu_rmtree(dir);
	free(dir);
}

/* The plan of the base of thread.mbox's series, from the tiny tree's tarball in dir, prepared with cache. */
static void prepare_base(const char *dir, const char *cache, struct il_kvars *kv)
{
	char *tgz = make_tarball(dir), plan_s[2048];
	struct il_err err = { 0 };
	json_error_t je;
	json_t *plan;

	snprintf(plan_s, sizeof(plan_s),
		 "{\"kernels\": [{\"name\": \"base\", \"tarball\": \"%s\", \"arch\": \"tiny\", \"targets\": [\"Image\"]},"
		 " {\"name\": \"v2-%%d\", \"base\": \"base\", \"series\": {\"mbox\": \"%s\"}, \"patches\": \"1\"}]}",
		 tgz, tu_fixture_abs("series/thread.mbox"));
	plan = json_loads(plan_s, 0, &je);
	assert_non_null(plan);
	if (il_kplan_prepare(plan, dir, cache, kv, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kv->n, 2);
	json_decref(plan);
	free(tgz);
}

/*
 * A directory the build cannot make (a regular file in its path) is an error
 * that names it, before anything is checked out or configured there: the
 * checkout for a repository outside the cache, O= for any.
 */
static void test_build__directory_not_made(void **state)
{
	char *dir = tu_tmpdir(), cache[700], blocked[700], want[800];
	struct il_err err = { 0 };
	struct il_kvars kv;
	struct il_kbuild_res res;

	(void)state;
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	prepare_base(dir, cache, &kv);
	/* the repository is in cache/, so with another cache its checkout goes to BLOCKED/work/... */
	tu_write(dir, "/file", "not a directory\n");
	snprintf(blocked, sizeof(blocked), "%s/file/cache", dir);
	assert_int_equal(il_kernel_build(&kv.v[0], blocked, NULL, NULL, &res, &err), IL_EIO);
	snprintf(want, sizeof(want), "cannot create directory '%s': ", blocked);
	assert_non_null(strstr(err.msg, want));
	assert_false(res.ok);
	il_kernel_build_res_release(&res);
	/* the imported tarball's own work tree is the source; O= (cache/obj/LINEAGE-ARCH) is blocked */
	tu_write(cache, "/obj", "");
	memset(&err, 0, sizeof(err));
	assert_int_equal(il_kernel_build(&kv.v[1], cache, NULL, NULL, &res, &err), IL_EIO);
	snprintf(want, sizeof(want), "cannot create directory '%s/obj/base-tiny': ", cache);
	assert_non_null(strstr(err.msg, want));
	il_kernel_build_res_release(&res);
	/* the way cleared, the same variant builds */
	snprintf(want, sizeof(want), "%s/obj", cache);
	assert_int_equal(unlink(want), 0);
	assert_int_equal(il_kernel_build(&kv.v[1], cache, NULL, NULL, &res, &err), 0);
	assert_true(res.ok);
	il_kernel_build_res_release(&res);
	il_kplan_vars_release(&kv);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build__variants_cached_incremental),
		cmocka_unit_test(test_build__directory_not_made),
	};

	return cmocka_run_group_tests_name("kernel_build", tests, NULL, NULL);
}
