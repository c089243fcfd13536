// SPDX-License-Identifier: GPL-2.0-or-later
/* The boot and power_cycle sections: methods, parser, JSON form, templates (see bootcfg.h). */
#include "host/bootcfg.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/json.h"
#include "util/buf.h"
#include "util/http.h"
#include "util/jfields.h"
#include "util/template.h"
#include "util/str.h"

#define DEFAULT_TIMEOUT_S 300

/* What each method's configuration takes (executing it: the table in boot.c). */
static const struct method {
	const char *name;
	bool argv;        /* boot.argv required (and boot.back_argv allowed) */
	bool cmdline;     /* boot.cmdline allowed */
	bool initrd;      /* boot.initrd allowed */
	bool lab_only;    /* only in a host file with "labvm" */
} methods[IL_BOOT_N] = {
	[IL_BOOT_NONE] = { .name = "none" },
	[IL_BOOT_LABVM] = { .name = "labvm", .lab_only = true },
	[IL_BOOT_KEXEC] = { .name = "kexec", .cmdline = true, .initrd = true },
	[IL_BOOT_GRUB] = { .name = "grub-reboot", .initrd = true },
	[IL_BOOT_COMMAND] = { .name = "command", .argv = true },
};

/* placeholders a command template may use (boot.argv, boot.back_argv, power_cycle.argv) */
static const char *const placeholders[IL_PH_N + 1] = { /* NULL-terminated for util/template */
	[IL_PH_IMAGE] = "image", [IL_PH_MODULES] = "modules", [IL_PH_INITRD] = "initrd", [IL_PH_RELEASE] = "release",
	[IL_PH_HOST] = "host", [IL_PH_ADDRESS] = "address", [IL_PH_PORT] = "port",
};

const char *il_boot_method_name(enum il_boot_method m)
{
	return (unsigned)m < IL_BOOT_N ? methods[m].name : "?";
}

/* "\"a\", \"b\", \"c\"" (sep ", ") or "\"a\" or \"b\"" (sep " or ") of the methods whose flag at off is set */
static const char *method_list(char *buf, size_t size, size_t off, const char *sep)
{
	size_t n = 0;

	buf[0] = 0;
	for (int m = IL_BOOT_NONE + 1; m < IL_BOOT_N; m++)
		if (off == SIZE_MAX || *(const bool *)((const char *)&methods[m] + off))
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s\"%s\"", n ? sep : "", methods[m].name);
	return buf;
}

int il_boot_argv(const struct il_strlist *tpl, const char *const vals[IL_PH_N], char ***argv, struct il_err *err)
{
	struct il_tpl_vals tv = { placeholders, vals };

	return il_template_expand_argv(tpl->v, tpl->n, il_template_value_list, &tv, argv, err);
}

/* An argv template (a non-empty array of strings with known placeholders) at path.key into out. */
static int parse_argv(struct il_strlist *out, const json_t *obj, const char *key, const char *label, const char *path,
		      struct il_err *err)
{
	const json_t *v = il_jfields_get(obj, key), *a;
	char at[64], where[96];
	size_t i;

	if (!v)
		return 0;
	if (!json_array_size(v))
		return il_jfields_bad(err, label, path, key, "a non-empty array of strings (an argv, no shell)");
	json_array_foreach(v, i, a) {
		il_jfields_path(where, sizeof(where), il_jfields_path(at, sizeof(at), path, key, 0), NULL, i);
		if (!json_is_string(a))
			return il_jfields_bad(err, label, where, NULL, "a string");
		if (il_template_check_names(json_string_value(a), placeholders, label, where, err))
			return il_err_set(err, IL_EPARSE, "%s: %s: unknown or unclosed placeholder in '%s' (known: {image} "
					  "{modules} {initrd} {release} {host} {address} {port})", label, where,
					  json_string_value(a));
		if (il_strlist_push(out, json_string_value(a)))
			return il_err_oom(err);
	}
	return 0;
}

/* A remote directory idlelab writes into: absolute, plain characters, no "..". */
static bool remote_dir_ok(const char *s)
{
	return s[0] == '/' && s[1] && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") ==
		strlen(s) && !strstr(s, "..");
}

#define ARGV_WHAT "a non-empty array of strings (an argv, no shell)"

static int parse_power_cycle(struct il_power_cycle *pc, const json_t *j, const char *label, struct il_err *err)
{
	static const struct il_jfield fields[] = {
		{ .key = "argv", .type = IL_JF_ARRAY, .what = ARGV_WHAT },
		IL_JF_AT("url", IL_JF_STRING, struct il_power_cycle, url),
		IL_JF_AT("method", IL_JF_STRING, struct il_power_cycle, method),
		IL_JF_AT("body", IL_JF_STRING, struct il_power_cycle, body),
		{ .key = "headers", .type = IL_JF_ARRAY, .what = "an array of \"Name: value\" strings (with \"url\")" },
		IL_JF_RANGE("timeout_s", IL_JF_INT, 1, 3600, struct il_power_cycle, timeout_s),
		IL_JF_RANGE("wait_s", IL_JF_INT, 1, 86400, struct il_power_cycle, wait_s),
	};
	const json_t *v, *h;
	size_t i;
	int r;

	pc->timeout_s = 30;
	if ((r = il_jfields_read(j, fields, IL_JF_COUNT(fields), pc, label, "power_cycle", err)) ||
	    (r = parse_argv(&pc->argv, j, "argv", label, "power_cycle", err)))
		return r;
	if (!pc->argv.n == !pc->url)
		return il_jfields_bad(err, label, "power_cycle", NULL,
				 "exactly one of \"argv\" (a command) and \"url\" (an HTTP request)");
	if (pc->url && strncmp(pc->url, "http://", 7) && strncmp(pc->url, "https://", 8))
		return il_jfields_bad(err, label, "power_cycle", "url", "an http:// or https:// URL");
	if (pc->url && !(pc->url_shown = il_http_url_shown(pc->url)))
		return il_err_oom(err);
	if (pc->method && (!pc->url || !il_str_name_ok(pc->method, "", 16)))
		return il_jfields_bad(err, label, "power_cycle", "method", "an HTTP method (with \"url\")");
	if (!(v = il_jfields_get(j, "headers")))
		return 0;
	if (!pc->url)
		return il_jfields_bad(err, label, "power_cycle", "headers", "an array of \"Name: value\" strings (with \"url\")");
	json_array_foreach(v, i, h) {
		const char *s = json_is_string(h) ? json_string_value(h) : NULL;
		char where[64];

		if (!s || !strchr(s, ':') || strpbrk(s, "\r\n"))
			return il_jfields_bad(err, label, il_jfields_path(where, sizeof(where), "power_cycle.headers", NULL, i), NULL,
					 "a \"Name: value\" string on one line");
		if (il_strlist_push(&pc->headers, s))
			return il_err_oom(err);
	}
	return 0;
}

int il_boot_cfg_parse(struct il_boot_cfg *c, const json_t *boot, const json_t *pc, const char *label,
		      struct il_err *err)
{
	char names[128], with[96];
	const struct il_jfield fields[] = {
		{ .key = "method", .type = IL_JF_STRING, .required = true,
		  .what = method_list(names, sizeof(names), SIZE_MAX, ", ") },
		{ .key = "argv", .type = IL_JF_ARRAY, .what = ARGV_WHAT },
		{ .key = "back_argv", .type = IL_JF_ARRAY, .what = ARGV_WHAT },
		IL_JF_AT("cmdline", IL_JF_STRING, struct il_boot_cfg, cmdline),
		IL_JF_AT("initrd", IL_JF_STRING, struct il_boot_cfg, initrd),
		IL_JF_AT("remote_dir", IL_JF_STRING, struct il_boot_cfg, remote_dir),
		IL_JF_RANGE("timeout_s", IL_JF_INT, 5, 86400, struct il_boot_cfg, timeout_s),
	};
	char what[128];
	const struct method *m;
	const char *name;
	int r;

	c->timeout_s = c->timeout_s ? c->timeout_s : DEFAULT_TIMEOUT_S;
	if (boot && !json_is_null(boot)) {
		if ((r = il_jfields_check(boot, fields, IL_JF_COUNT(fields), label, "boot", err)))
			return r;
		name = json_string_value(il_jfields_get(boot, "method"));
		c->method = IL_BOOT_NONE;
		for (int i = IL_BOOT_NONE + 1; i < IL_BOOT_N; i++)
			if (!strcmp(name, methods[i].name))
				c->method = (enum il_boot_method)i;
		m = &methods[c->method];
		if (c->method == IL_BOOT_NONE)
			return il_jfields_bad(err, label, "boot", "method", "one of %s", names);
		if (m->lab_only && !c->lab)
			return il_jfields_bad(err, label, "boot", "method", "\"%s\" only on a lab host (a host file with \"labvm\")",
					 m->name);
		if ((r = parse_argv(&c->argv, boot, "argv", label, "boot", err)) ||
		    (r = parse_argv(&c->back_argv, boot, "back_argv", label, "boot", err)))
			return r;
		method_list(with, sizeof(with), offsetof(struct method, argv), " or ");
		if (m->argv != (c->argv.n > 0)) {
			snprintf(what, sizeof(what), c->argv.n ? "no argv unless the method is %s" : "the command's argv (method %s)",
				 with);
			return il_jfields_bad(err, label, "boot", "argv", "%s", what);
		}
		if (c->back_argv.n && !m->argv)
			return il_jfields_bad(err, label, "boot", "back_argv", "no back_argv unless the method is %s", with);
		if ((r = il_jfields_read(boot, fields, IL_JF_COUNT(fields), c, label, "boot", err)))
			return r;
		if (c->cmdline && !m->cmdline)
			return il_jfields_bad(err, label, "boot", "cmdline", "no cmdline unless the method is %s",
					 method_list(with, sizeof(with), offsetof(struct method, cmdline), " or "));
		if (c->cmdline && strpbrk(c->cmdline, "\n\r"))
			return il_jfields_bad(err, label, "boot", "cmdline", "a command line on one line");
		if (c->initrd && !m->initrd)
			return il_jfields_bad(err, label, "boot", "initrd", "no initrd unless the method is %s",
					 method_list(with, sizeof(with), offsetof(struct method, initrd), " or "));
		if (c->initrd && access(c->initrd, R_OK))
			return il_err_set(err, IL_ENOTFOUND, "%s: boot.initrd: cannot read '%s': %s", label, c->initrd,
					  strerror(errno));
		if (c->remote_dir && !remote_dir_ok(c->remote_dir))
			return il_jfields_bad(err, label, "boot", "remote_dir", "an absolute path of letters, digits, '/', '.', '_', "
					 "'-' without '..'");
	}
	if (pc && !json_is_null(pc)) {
		if ((r = parse_power_cycle(&c->power_cycle, pc, label, err)))
			return r;
		c->has_power_cycle = true;
	}
	return 0;
}

void il_boot_cfg_release(struct il_boot_cfg *c)
{
	il_strlist_release(&c->argv);
	il_strlist_release(&c->back_argv);
	free(c->cmdline);
	free(c->initrd);
	free(c->remote_dir);
	free(c->lab);
	il_strlist_release(&c->power_cycle.argv);
	il_strlist_release(&c->power_cycle.headers);
	free(c->power_cycle.url);
	free(c->power_cycle.url_shown);
	free(c->power_cycle.method);
	free(c->power_cycle.body);
	memset(c, 0, sizeof(*c));
}

json_t *il_boot_cfg_to_json(const struct il_boot_cfg *c)
{
	json_t *o = json_pack("{s:s,s:i,s:s}", "method", il_boot_method_name(c->method), "timeout_s", c->timeout_s,
			      "remote_dir", c->remote_dir ? c->remote_dir : "<idlelab's working directory>/boot");
	int bad = !o;

	if (c->lab)
		bad |= json_object_set_new(o, "lab", json_string(c->lab));
	if (c->argv.n)
		bad |= json_object_set_new(o, "argv", il_jfields_strlist_json(&c->argv));
	if (c->back_argv.n)
		bad |= json_object_set_new(o, "back_argv", il_jfields_strlist_json(&c->back_argv));
	if (c->cmdline)
		bad |= json_object_set_new(o, "cmdline", json_string(c->cmdline));
	if (c->initrd)
		bad |= json_object_set_new(o, "initrd", json_string(c->initrd));
	if (c->has_power_cycle) {
		const struct il_power_cycle *p = &c->power_cycle;
		/* only the request's shape: headers and bodies may carry credentials */
		json_t *pc = json_pack("{s:i,s:i}", "timeout_s", p->timeout_s, "wait_s", p->wait_s ? p->wait_s : c->timeout_s);

		if (p->url) {
			bad |= json_object_set_new(pc, "url", json_string(p->url_shown));
			bad |= json_object_set_new(pc, "method", json_string(p->method ? p->method : "POST"));
		}
		if (p->argv.n)
			bad |= json_object_set_new(pc, "argv", il_jfields_strlist_json(&p->argv));
		bad |= json_object_set_new(o, "power_cycle", pc);
	}
	return il_json_whole(o, bad);
}
