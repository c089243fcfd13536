// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel build progress: compile lines counted, estimates kept in the cache. */
#include "kernel/kprogress.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/jsonfile.h"

/*
 * Files compiled per option set =y, measured on Debian's linux-source-6.1:
 * the arm64 lab config (allnoconfig + hosts/labvm/kernel.config) compiles
 * about 1.6 files per =y option. Only used until the cache has a build.
 */
#define DEFAULT_FILES_PER_YES 1.6

static char *estimates_path(const char *cache_dir)
{
	struct il_buf b = IL_BUF_INIT;

	il_buf_printf(&b, "%s/kernel-estimates.json", cache_dir);
	return il_buf_detach(&b);
}

static size_t count_yes(const char *cfg_path)
{
	struct il_buf b = IL_BUF_INIT;
	size_t n = 0;

	if (!il_buf_read_file(&b, cfg_path, (size_t)16 << 20, NULL))
		for (const char *s = b.p; (s = strstr(s, "=y\n")); s += 3)
			n++;
	il_buf_release(&b);
	return n;
}

void il_kprogress_init(struct il_kprogress *kp, const struct il_kvar *v, il_kbuild_cb cb, void *ctx, double t0,
		       const char *cache_dir, const char *cfg_path, const char *cfg_hex, bool incremental)
{
	char *path = estimates_path(cache_dir);
	json_t *all = path ? json_load_file(path, 0, NULL) : NULL, *e;
	double files = 0, yes = 0;
	const char *k;

	memset(kp, 0, sizeof(*kp));
	kp->v = v, kp->cb = cb, kp->ctx = ctx, kp->t0 = t0;
	kp->yes = count_yes(cfg_path);
	snprintf(kp->key, sizeof(kp->key), "%s/%.64s", v->cfg.arch, cfg_hex);
	kp->p.what = v->name;
	kp->p.unit = "files";
	kp->p.eta_s = -1;
	if (!incremental) {
		if ((e = json_object_get(all, kp->key)) && json_integer_value(json_object_get(e, "files")) > 0) {
			kp->p.total = (double)json_integer_value(json_object_get(e, "files"));
		} else {
			size_t alen = strlen(v->cfg.arch);

			json_object_foreach(all, k, e)
				if (!strncmp(k, v->cfg.arch, alen) && k[alen] == '/') {
					files += (double)json_integer_value(json_object_get(e, "files"));
					yes += (double)json_integer_value(json_object_get(e, "yes"));
				}
			kp->p.total = (double)kp->yes * (files > 0 && yes > 0 ? files / yes : DEFAULT_FILES_PER_YES);
		}
		kp->p.estimated = true;
	}
	json_decref(all);
	free(path);
}

static void report(struct il_kprogress *kp)
{
	if (!kp->cb)
		return;
	kp->p.done = (double)kp->files;
	kp->p.elapsed_s = il_clock_mono_s() - kp->t0;
	/* past the estimate: the estimate was low, say "unknown" rather than a wrong ETA */
	if (kp->p.total > 0 && kp->p.done >= kp->p.total)
		kp->p.total = 0;
	kp->p.eta_s = il_progress_eta(kp->p.done, kp->p.total, kp->p.elapsed_s);
	kp->cb(kp->v, IL_KB_COMPILING, &kp->p, kp->ctx);
}

/* kbuild's quiet lines: two spaces, a tag, spaces, a path; CC and AS compile a file. */
static bool compile_line(const char *l, size_t n)
{
	return n >= 5 && l[0] == ' ' && l[1] == ' ' &&
	       ((l[2] == 'C' && l[3] == 'C') || (l[2] == 'A' && l[3] == 'S')) && l[4] == ' ';
}

void il_kprogress_chunk(const char *data, size_t n, void *arg)
{
	struct il_kprogress *kp = arg;

	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			if (compile_line(kp->line, kp->len))
				kp->files++;
			kp->len = 0;
		} else if (kp->len < sizeof(kp->line)) {
			kp->line[kp->len++] = data[i];
		}
	}
}

void il_kprogress_tick(void *arg)
{
	report(arg);
}

void il_kprogress_end(struct il_kprogress *kp)
{
	kp->p.last = true;
	report(kp);
}

void il_kprogress_record(const struct il_kprogress *kp, const char *cache_dir)
{
	char *path = estimates_path(cache_dir);
	json_t *all = path ? json_load_file(path, 0, NULL) : NULL;
	char *text;

	if (!json_is_object(all)) {
		json_decref(all);
		all = json_object();
	}
	/* a count that could not be added is not written: the file keeps the others as they were */
	if (path && all && kp->files &&
	    !json_object_set_new(all, kp->key,
				 json_pack("{s:I,s:I}", "files", (json_int_t)kp->files, "yes", (json_int_t)kp->yes)) &&
	    (text = il_json_dumps(all, JSON_SORT_KEYS | JSON_INDENT(1)))) {
		il_buf_write_file_atomic(path, text, strlen(text), NULL);
		free(text);
	}
	json_decref(all);
	free(path);
}
