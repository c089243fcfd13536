// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel/kartifacts: a build's outputs gathered from a made-up O= directory
 * (image, config, System.map, device trees, modules through a real make of
 * modules_install), the manifest with its /proc/version banner from the
 * generated headers, and the artifact directory replaced whole.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/kartifacts.h"

static bool exists(const char *dir, const char *rel)
{
	char p[900];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", dir, rel);
	return !stat(p, &st);
}

/* The names in the manifest's "files", space-separated, into out. */
static void files_of(const json_t *manifest, char *out, size_t n)
{
	const json_t *f = json_object_get(manifest, "files"), *e;
	size_t i;

	out[0] = 0;
	json_array_foreach(f, i, e)
		snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", json_string_value(e));
}

struct paths {
	char src[600], obj[600], art[700];
};

/* A build as kernel/build.c hands it over, of v, in dir's src/ and obj/, to artifacts/KEY. */
static struct il_kartifacts_build build_of(const struct il_kvar *v, const char *dir, struct paths *p,
					   struct il_buf *log)
{
	snprintf(p->src, sizeof(p->src), "%s/src", dir);
	snprintf(p->obj, sizeof(p->obj), "%s/obj", dir);
	snprintf(p->art, sizeof(p->art), "%s/artifacts/0123456789abcdef", dir);
	return (struct il_kartifacts_build){
		.v = v, .src = p->src, .obj = p->obj, .dir = p->art, .log = log, .commit_hex = "c0ffee", .tree_hex = "7ree",
		.key = "0123456789abcdef", .compiler = "gcc (test) 12", .cfg_hex = "cf6", .localversion = "-ilc0ffee",
		.incremental = true,
	};
}

static void test_kartifacts__everything(void **state)
{
	char *dir = tu_tmpdir(), names[800], *text;
	struct paths p;
	struct il_kvar v = { .name = (char *)"base" };
	struct il_buf log = IL_BUF_INIT;
	struct il_kbuild_res res = { .seconds = 2.5 };
	struct il_err err = { 0 };
	struct il_kartifacts_build b = build_of(&v, dir, &p, &log);
	const char *obj = p.obj, *art = p.art;
	json_t *m;

	(void)state;
	v.cfg.arch = (char *)"tiny";
	assert_int_equal(il_strlist_push(&v.cfg.targets, "Image"), 0);
	assert_int_equal(il_strlist_push(&v.cfg.targets, "dtbs"), 0);
	assert_int_equal(il_strlist_push(&res.config_skipped, "CONFIG_X=y (frag.config)"), 0);
	tu_write(dir, "/src/Makefile", "modules_install:\n\tmkdir -p $(INSTALL_MOD_PATH)/lib/modules\n"
		 "\techo ko > $(INSTALL_MOD_PATH)/lib/modules/teo.ko\n\t@echo installed the modules\n");
	tu_write(obj, "/arch/tiny/boot/Image", "the image");
	tu_write(obj, "/arch/tiny/boot/dts/board.dtb", "a tree");
	tu_write(obj, "/.config", "# a config\nCONFIG_MODULES=y\n");
	tu_write(obj, "/System.map", "ffff T start");
	tu_write(obj, "/include/config/kernel.release", "6.1.0-ilc0ffee\n");
	tu_write(obj, "/include/generated/utsrelease.h", "#define UTS_RELEASE \"6.1.0-ilc0ffee\"\n");
	tu_write(obj, "/include/generated/utsversion.h", "#define UTS_VERSION \"#1 SMP Sun Jan  1 00:00:00 UTC 2023\"\n");
	tu_write(obj, "/include/generated/compile.h", "#define LINUX_COMPILE_BY \"idlelab\"\n"
		 "#define LINUX_COMPILE_HOST \"idlelab\"\n#define LINUX_COMPILER \"gcc 12, GNU ld 2.40\"\n");
	/* what an earlier try left: both go */
	tu_write(art, ".tmp/stale", "old");
	tu_write(art, "/stale", "old");
	assert_int_equal(il_buf_adds(&log, "$ make ...\n  CC  kernel/fork.o\n"), 0);
	assert_int_equal(il_kartifacts_gather(&b, &res, &err), 0);
	assert_true(res.ok);
	assert_string_equal(res.dir, art);
	assert_string_equal(res.release, "6.1.0-ilc0ffee");
	m = res.manifest;
	files_of(m, names, sizeof(names));
	assert_string_equal(names, "Image config System.map dtbs.tar modules.tar build.log");
	assert_string_equal(json_string_value(json_object_get(m, "proc_version")),
			    "Linux version 6.1.0-ilc0ffee (idlelab@idlelab) (gcc 12, GNU ld 2.40) #1 SMP Sun Jan  1 00:00:00 UTC 2023");
	assert_string_equal(json_string_value(json_object_get(m, "name")), "base");
	assert_string_equal(json_string_value(json_object_get(m, "localversion")), "-ilc0ffee");
	assert_string_equal(json_string_value(json_object_get(m, "release")), "6.1.0-ilc0ffee");
	assert_true(json_real_value(json_object_get(m, "build_s")) == 2.5);
	assert_true(json_is_true(json_object_get(m, "incremental")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "config_skipped"), 0)),
			    "CONFIG_X=y (frag.config)");
	/* the directory: the files, the manifest as returned, the log with modules_install's; nothing else */
	assert_true(exists(art, "/Image") && exists(art, "/config") && exists(art, "/dtbs.tar"));
	assert_true(exists(art, "/modules.tar"));
	assert_false(exists(art, "/stale") || exists(art, ".tmp") || exists(art, "/modules-staging"));
	snprintf(names, sizeof(names), "%s/build.log", art);
	text = tu_read(names, NULL);
	assert_non_null(strstr(text, "  CC  kernel/fork.o\n"));
	assert_non_null(strstr(text, "installed the modules"));
	free(text);
	{
		json_error_t je;
		json_t *onfile;

		snprintf(names, sizeof(names), "%s/manifest.json", art);
		onfile = json_load_file(names, 0, &je);

		assert_true(json_equal(onfile, m));
		json_decref(onfile);
	}
	il_kernel_build_res_release(&res);
	il_strlist_release(&v.cfg.targets);
	il_buf_release(&log);
	tu_rmtree(dir);
	free(dir);
}

/* Before 6.0 UTS_VERSION was in compile.h; no generated headers, no banner; an image at the top of O=. */
static void test_kartifacts__older_trees(void **state)
{
	char *dir = tu_tmpdir(), names[800];
	struct paths p;
	struct il_kvar v = { .name = (char *)"old" };
	struct il_buf log = IL_BUF_INIT;
	struct il_kbuild_res res = { 0 };
	struct il_err err = { 0 };
	struct il_kartifacts_build b = build_of(&v, dir, &p, &log);
	const char *obj = p.obj, *art = p.art;

	(void)state;
	v.cfg.arch = (char *)"tiny";
	assert_int_equal(il_strlist_push(&v.cfg.targets, "vmlinux"), 0);
	tu_write(obj, "/vmlinux", "elf");
	tu_write(obj, "/.config", "CONFIG_SMP=y\n");
	tu_write(obj, "/include/generated/utsrelease.h", "#define UTS_RELEASE \"5.15.0\"\n");
	tu_write(obj, "/include/generated/compile.h", "#define UTS_VERSION \"#3 Mon\"\n#define LINUX_COMPILE_BY \"a\"\n"
		 "#define LINUX_COMPILE_HOST \"b\"\n#define LINUX_COMPILER \"gcc 9\"\n");
	assert_int_equal(il_kartifacts_gather(&b, &res, &err), 0);
	assert_string_equal(json_string_value(json_object_get(res.manifest, "proc_version")),
			    "Linux version 5.15.0 (a@b) (gcc 9) #3 Mon");
	assert_string_equal(res.dir, art);
	files_of(res.manifest, names, sizeof(names));
	assert_string_equal(names, "vmlinux config build.log");
	/* no kernel.release: an empty release in the manifest, none in the result */
	assert_null(res.release);
	assert_string_equal(json_string_value(json_object_get(res.manifest, "release")), "");
	il_kernel_build_res_release(&res);
	/* without the generated headers there is no banner to expect */
	snprintf(names, sizeof(names), "rm -rf %s/include", obj);
	assert_int_equal(system(names), 0);
	assert_int_equal(il_kartifacts_gather(&b, &res, &err), 0);
	assert_true(json_is_null(json_object_get(res.manifest, "proc_version")));
	il_kernel_build_res_release(&res);
	il_strlist_release(&v.cfg.targets);
	il_buf_release(&log);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kartifacts__everything),
		cmocka_unit_test(test_kartifacts__older_trees),
	};

	return cmocka_run_group_tests_name("kernel_kartifacts", tests, NULL, NULL);
}
