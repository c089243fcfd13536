// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host file's "lava" section (host/lavacfg.h): a leaf parser, as
 * bootcfg.c is for "boot", read through one jfields table, with the checks
 * a table cannot make (URL schemes, the priority's names, what goes together).
 */
#include "host/lavacfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/jfields.h"
#include "util/str.h"

void il_lava_cfg_release(struct il_lava_cfg *c)
{
	IL_FREE_ALL(c->url, c->token_file, c->device_type, c->visibility, c->artifact_dir, c->artifact_url,
		    c->job_template, c->bindir, c->images.kernel, c->images.ramdisk, c->images.dtb, c->images.modules);
	il_strlist_release(&c->tags);
	memset(c, 0, sizeof(*c));
}

#define PRIORITY_WHAT "\"high\", \"medium\", \"low\" or an integer from 0 to 100"

/* The section's keys, in the order "unknown key" lists them. */
static const struct il_jfield cfg_fields[] = {
	{ .key = "url", .type = IL_JF_STRING, .required = true, .what = "the LAVA server's http:// or https:// URL",
	  .store = true, .off = offsetof(struct il_lava_cfg, url) },
	{ .key = "token_file", .type = IL_JF_STRING, .required = true,
	  .what = "the path of a file holding the API token" }, /* "~/" expanded */
	{ .key = "device_type", .type = IL_JF_STRING, .required = true, .what = "a LAVA device type",
	  .store = true, .off = offsetof(struct il_lava_cfg, device_type) },
	IL_JF_AT("tags", IL_JF_STRINGS, struct il_lava_cfg, tags),
	{ .key = "priority", .type = IL_JF_ANY, .what = PRIORITY_WHAT },
	{ .key = "visibility", .type = IL_JF_STRING, .what = "\"public\" or \"personal\"", .store = true,
	  .off = offsetof(struct il_lava_cfg, visibility) },
	{ .key = "artifact_dir", .type = IL_JF_STRING, .what = "a local directory" }, /* "~/" expanded */
	{ .key = "artifact_url", .type = IL_JF_STRING, .what = "a file://, http:// or https:// URL", .store = true,
	  .off = offsetof(struct il_lava_cfg, artifact_url) },
	IL_JF_RANGE("poll_s", IL_JF_INT, 1, 600, struct il_lava_cfg, poll_s),
	IL_JF_RANGE("queue_timeout_s", IL_JF_INT, 1, 30 * 86400, struct il_lava_cfg, queue_timeout_s),
	IL_JF_RANGE("job_timeout_s", IL_JF_INT, 1, 7 * 86400, struct il_lava_cfg, job_timeout_s),
	{ .key = "images", .type = IL_JF_OBJECT, .what = "an object: kernel, ramdisk, dtb, modules (paths or URLs)" },
	{ .key = "job_template", .type = IL_JF_STRING, .what = "the path of a LAVA job template (YAML)" }, /* "~/" expanded */
	IL_JF_RANGE("boards", IL_JF_INT, 1, 256, struct il_lava_cfg, boards),
	{ .key = "bindir", .type = IL_JF_STRING, .what = "an absolute directory (where the image has idlelab's workloads)",
	  .store = true, .off = offsetof(struct il_lava_cfg, bindir) },
};

/* "images": what a job deploys for the plan's running kernel (a built one replaces "kernel" and "modules") */
static const struct il_jfield image_fields[] = {
	{ .key = "kernel", .type = IL_JF_STRING, .what = "a kernel image: a local path or a file://, http:// or https:// URL" },
	{ .key = "ramdisk", .type = IL_JF_STRING, .what = "a ramdisk: a local path or a URL" },
	{ .key = "dtb", .type = IL_JF_STRING, .what = "a device tree blob: a local path or a URL" },
	{ .key = "modules", .type = IL_JF_STRING, .what = "a modules archive: a local path or a URL" },
};

/* LAVA's own names for its priorities (lava_scheduler_app.models.TestJob: LOW 0, MEDIUM 50, HIGH 100) */
static const struct {
	const char *name;
	int value;
} priorities[] = { { "low", 0 }, { "medium", 50 }, { "high", 100 } };

static bool has_scheme(const char *s, const char *const schemes[])
{
	for (size_t i = 0; schemes[i]; i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(s, schemes[i], n) && s[n] && !strpbrk(s, " \t\r\n"))
			return true;
	}
	return false;
}

/* "~/x" -> home's x, as inventory.c does for the host file's other paths */
static int home_path(const json_t *j, const char *key, const struct il_paths *paths, char **out, struct il_err *err)
{
	const char *p = json_string_value(il_jfields_get(j, key));

	if (!p)
		return 0;
	free(*out);
	if (p[0] == '~' && p[1] == '/' && paths && paths->home)
		*out = il_str_dup_printf("%s%s", paths->home, p + 1);
	else
		*out = strdup(p);
	return *out ? 0 : il_err_oom(err);
}

static int priority_of(const json_t *v, int *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 100) {
		*out = (int)json_integer_value(v);
		return 0;
	}
	for (size_t i = 0; json_is_string(v) && i < sizeof(priorities) / sizeof(priorities[0]); i++)
		if (!strcmp(json_string_value(v), priorities[i].name)) {
			*out = priorities[i].value;
			return 0;
		}
	return IL_EPARSE;
}

int il_lava_cfg_parse(struct il_lava_cfg *c, const json_t *j, const char *label, const char *path,
		      const struct il_paths *paths, struct il_err *err)
{
	static const char *const web[] = { "http://", "https://", NULL };
	static const char *const artifact[] = { "file:///", "http://", "https://", NULL };
	const json_t *v;
	int r;

	memset(c, 0, sizeof(*c));
	c->priority = 50;
	c->poll_s = 5;
	c->queue_timeout_s = 86400;
	c->job_timeout_s = 3600;
	if (!json_is_object(j)) {
		r = il_jfields_bad(err, label, path, NULL, "an object with \"url\", \"token_file\" and \"device_type\"");
		goto fail;
	}
	if ((r = il_jfields_read(j, cfg_fields, IL_JF_COUNT(cfg_fields), c, label, path, err)) ||
	    (r = home_path(j, "token_file", paths, &c->token_file, err)) ||
	    (r = home_path(j, "artifact_dir", paths, &c->artifact_dir, err)) ||
	    (r = home_path(j, "job_template", paths, &c->job_template, err)))
		goto fail;
	if ((v = il_jfields_get(j, "images"))) {
		char ipath[128];

		snprintf(ipath, sizeof(ipath), "%s.images", path && *path ? path : "lava");
		if ((r = il_jfields_read(v, image_fields, IL_JF_COUNT(image_fields), NULL, label, ipath, err)) ||
		    (r = home_path(v, "kernel", paths, &c->images.kernel, err)) ||
		    (r = home_path(v, "ramdisk", paths, &c->images.ramdisk, err)) ||
		    (r = home_path(v, "dtb", paths, &c->images.dtb, err)) ||
		    (r = home_path(v, "modules", paths, &c->images.modules, err)))
			goto fail;
	}
	if (!c->boards)
		c->boards = 1;
	if (!c->bindir && !(c->bindir = strdup("/usr/local/bin"))) {
		r = il_err_oom(err);
		goto fail;
	}
	if (c->bindir[0] != '/') {
		r = il_jfields_bad(err, label, path, "bindir", "an absolute directory, not '%s'", c->bindir);
		goto fail;
	}
	if (!has_scheme(c->url, web)) {
		r = il_jfields_bad(err, label, path, "url", "%s, not '%s'", cfg_fields[0].what, c->url);
		goto fail;
	}
	/* the API paths are appended with their own '/' */
	for (size_t n = strlen(c->url); n > 0 && c->url[n - 1] == '/'; n--)
		c->url[n - 1] = '\0';
	if ((v = il_jfields_get(j, "priority")) && priority_of(v, &c->priority)) {
		r = il_jfields_bad(err, label, path, "priority", PRIORITY_WHAT);
		goto fail;
	}
	if (!c->visibility && !(c->visibility = strdup("public"))) {
		r = il_err_oom(err);
		goto fail;
	}
	/* a group visibility names groups of the server's; idlelab's results are for everyone or the submitter */
	if (strcmp(c->visibility, "public") && strcmp(c->visibility, "personal")) {
		r = il_jfields_bad(err, label, path, "visibility", "\"public\" or \"personal\"");
		goto fail;
	}
	if (c->artifact_dir && !c->artifact_url) {
		r = il_jfields_bad(err, label, path, "artifact_url",
			      "the URL under which LAVA's worker sees artifact_dir (required with artifact_dir)");
		goto fail;
	}
	if (c->artifact_url && !c->artifact_dir) {
		r = il_jfields_bad(err, label, path, "artifact_dir", "the local directory artifact_url serves (required with artifact_url)");
		goto fail;
	}
	if (c->artifact_url && !has_scheme(c->artifact_url, artifact)) {
		r = il_jfields_bad(err, label, path, "artifact_url", "a file:///, http:// or https:// URL, not '%s'", c->artifact_url);
		goto fail;
	}
	return 0;
fail:
	il_lava_cfg_release(c);
	return r;
}

json_t *il_lava_cfg_to_json(const struct il_lava_cfg *c)
{
	json_t *o = json_object();
	int bad = !o;

	bad |= json_object_set_new(o, "url", json_string(c->url));
	bad |= json_object_set_new(o, "token_file", json_string(c->token_file));
	bad |= json_object_set_new(o, "device_type", json_string(c->device_type));
	bad |= json_object_set_new(o, "tags", il_jfields_strlist_json(&c->tags));
	bad |= json_object_set_new(o, "priority", json_integer(c->priority));
	bad |= json_object_set_new(o, "visibility", json_string(c->visibility));
	bad |= json_object_set_new(o, "artifact_dir", c->artifact_dir ? json_string(c->artifact_dir) : json_null());
	bad |= json_object_set_new(o, "artifact_url", c->artifact_url ? json_string(c->artifact_url) : json_null());
	bad |= json_object_set_new(o, "poll_s", json_integer(c->poll_s));
	bad |= json_object_set_new(o, "queue_timeout_s", json_integer(c->queue_timeout_s));
	bad |= json_object_set_new(o, "job_timeout_s", json_integer(c->job_timeout_s));
	bad |= json_object_set_new(o, "images", json_pack("{s:o?,s:o?,s:o?,s:o?}", "kernel", il_json_str(c->images.kernel),
							  "ramdisk", il_json_str(c->images.ramdisk), "dtb",
							  il_json_str(c->images.dtb), "modules", il_json_str(c->images.modules)));
	bad |= json_object_set_new(o, "job_template", il_json_str(c->job_template));
	bad |= json_object_set_new(o, "boards", json_integer(c->boards));
	bad |= json_object_set_new(o, "bindir", json_string(c->bindir));
	return il_json_whole(o, bad);
}
