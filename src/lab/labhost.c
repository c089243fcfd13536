// SPDX-License-Identifier: GPL-2.0-or-later
/* Lab-linked hosts: loading them, and restarting an instance for il_boot_run (see labhost.h). */
#include "lab/labhost.h"

#include <stdlib.h>
#include <string.h>

#include "lab/lab.h"
#include "util/buf.h"
#include "util/str.h"

/* move the connection settings of the running instance into h (a host file with "labvm") */
static int from_instance(struct il_host_cfg *h, const char *cache_dir, struct il_err *err)
{
	struct il_host_cfg lab;
	int r;

	if ((r = il_lab_host(&lab, cache_dir, h->boot.lab, err))) {
		il_host_release(&lab);
		return il_err_prefix(err, "%s: labvm: ", h->path ? h->path : h->name);
	}
	h->address = lab.address, lab.address = NULL;
	h->port = lab.port;
	h->user = lab.user, lab.user = NULL;
	h->identity = lab.identity, lab.identity = NULL;
	h->known_hosts = lab.known_hosts, lab.known_hosts = NULL;
	h->host_key_policy = lab.host_key_policy;
	il_host_release(&lab);
	return 0;
}

int il_lab_host_load(struct il_host_cfg *out, const struct il_paths *paths, const char *name, struct il_err *err)
{
	const char *cache_dir = paths ? paths->cache_dir : NULL;
	int r = il_host_load(out, paths, name, err);

	/* the built-in lab host(s): "labvm", or "labvm-NAME" for instance NAME (labvm-x86, labvm-x86-NAME: x86_64) */
	if (r == IL_ENOTFOUND && il_lab_instance_of_host(name)) {
		if ((r = il_lab_host(out, cache_dir, il_lab_instance_of_host(name), err)))
			return r;
		if (paths && paths->ssh_config && !(out->ssh_config = strdup(paths->ssh_config)))
			r = il_err_oom(err);
	} else if (!r && out->boot.lab && !out->address) {
		r = from_instance(out, cache_dir, err);
	}
	if (r)
		il_host_release(out);
	return r;
}

const char *il_lab_host_kind(const struct il_host_cfg *h)
{
	/* boot.lab is set only by il_lab_host (built-in instances) and by a host file's "labvm" key */
	return h->boot.lab ? "lab" : il_host_kind_name(h->kind);
}

int il_lab_host_explain(const struct il_host_cfg *h, const char *cache_dir, int code, struct il_err *err)
{
	struct il_lab_opts lo = { .cache_dir = cache_dir, .name = h ? h->boot.lab : NULL };
	json_t *st = NULL;
	const char *tail;
	char was[sizeof(err->msg)];
	size_t i, end, n = 0;

	if (!err || !lo.name || il_lab_status(&lo, &st, NULL))
		return code;
	if (strcmp(json_string_value(json_object_get(st, "state")) ?: "", "crashed")) {
		json_decref(st);
		return code;
	}
	/* the console's last 4 non-empty lines: a panic's own line is among them */
	tail = json_string_value(json_object_get(st, "console_tail")) ?: "";
	for (end = strlen(tail); end > 0 && (tail[end - 1] == '\n' || tail[end - 1] == '\r'); end--)
		;
	for (i = end; i > 0; i--)
		if (tail[i - 1] == '\n' && tail[i] != '\n' && ++n == 4)
			break;
	il_str_lcpy(was, err->msg, sizeof(was));
	il_err_set(err, code, "%s; lab instance '%s' is not running: its QEMU exited (console's last lines:\n%.*s)", was,
		   lo.name, (int)(end - i), tail + i);
	json_decref(st);
	return code;
}

/* the instance keeps its size, idle table, source tree and kernel tree */
static int restart(const char *cache_dir, const char *name, const char *image, int timeout_s, struct il_err *err)
{
	struct il_lab_opts lo = { .cache_dir = cache_dir, .name = name, .image = image, .timeout_s = timeout_s };
	char *rd = il_lab_run_dir(&lo);
	struct il_buf sp = IL_BUF_INIT;
	json_t *st = NULL;
	json_error_t je;
	char *table = NULL, *source = NULL, *tree = NULL;
	int r;

	if (rd && !il_buf_printf(&sp, "%s/state.json", rd) && (st = json_load_file(sp.p, 0, &je))) {
		lo.cpus = (int)json_integer_value(json_object_get(st, "cpus"));
		lo.mem_mb = (int)json_integer_value(json_object_get(st, "mem_mb"));
		if (json_is_string(json_object_get(st, "table")))
			lo.table = table = strdup(json_string_value(json_object_get(st, "table")));
		if (json_is_string(json_object_get(st, "source")))
			lo.src_dir = source = strdup(json_string_value(json_object_get(st, "source")));
		if (json_is_string(json_object_get(json_object_get(st, "kernel"), "spec")))
			lo.tree = tree = strdup(json_string_value(json_object_get(json_object_get(st, "kernel"), "spec")));
		json_decref(st);
		st = NULL;
	}
	free(rd);
	il_buf_release(&sp);
	il_lab_down(&lo, NULL);
	r = il_lab_up(&lo, NULL, NULL, &st, err);
	json_decref(st);
	st = NULL;
	if (r && image && r != IL_EINTR) {
		/* the kernel did not come up: the instance comes back on its own, as a power cycle brings a machine back */
		struct il_err e2 = { 0 };
		char *was = strdup(err ? err->msg : "");

		lo.image = NULL;
		if (!il_lab_up(&lo, NULL, NULL, &st, &e2))
			il_err_set(err, r, "%s\n(lab '%s' is back on its own kernel)", was ? was : "", name);
		free(was);
		json_decref(st);
	}
	free(table), free(source), free(tree);
	return r;
}

const struct il_boot_lab il_lab_boot = { .host = il_lab_host, .restart = restart };
