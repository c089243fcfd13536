// SPDX-License-Identifier: GPL-2.0-or-later
/* Host inventory files: loading, validation, listing. */
#include "host/host.h"
#include "host/cmdtransport.h"
#include "host/hostkind.h"
#include "util/search.h"
#include "idle/cpuset.h"
#include "util/parse.h"
#include "util/str.h"
#include "util/jfields.h"
#include "util/jsonfile.h"
#include "util/template.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *hosts_dir(const struct il_paths *p)
{
	return p && p->hosts_dir ? p->hosts_dir : "hosts";
}

void il_host_release(struct il_host_cfg *h)
{
	IL_FREE_ALL(h->name, h->address, h->user, h->identity, h->known_hosts, h->cpus, h->path, h->ssh_config);
	il_boot_cfg_release(&h->boot);
	il_strlist_release(&h->cmds.exec);
	il_strlist_release(&h->cmds.push);
	il_strlist_release(&h->cmds.pull);
	il_lava_cfg_release(&h->lava);
	memset(h, 0, sizeof(*h));
}

static bool valid_name(const char *s)
{
	return il_str_name_ok(s, "-_.", 64);
}

/* "~/x" -> "$HOME/x" (home NULL: unchanged) */
static char *expand_home(const char *p, const char *home)
{
	struct il_buf b = IL_BUF_INIT;

	if (p[0] == '~' && p[1] == '/' && home) {
		if (il_buf_printf(&b, "%s%s", home, p + 1))
			return NULL;
		return il_buf_detach(&b);
	}
	return strdup(p);
}

static void defaults(struct il_host_cfg *h)
{
	h->connect_timeout_s = 10;
	h->command_timeout_s = 600;
	h->host_key_policy = IL_HOSTKEY_STRICT;
}

/* The keys a host file may have, in the order "unknown key" lists them. */
static const struct il_jfield fields[] = {
	IL_JF_AT("address", IL_JF_STRING, struct il_host_cfg, address),
	IL_JF_RANGE("port", IL_JF_INT, 1, 65535, struct il_host_cfg, port),
	IL_JF_AT("user", IL_JF_STRING, struct il_host_cfg, user),
	IL_JF("identity", IL_JF_STRING),    /* "~/" expanded */
	IL_JF("known_hosts", IL_JF_STRING), /* "~/" expanded */
	{ .key = "host_key_policy", .type = IL_JF_STRING, .what = "\"strict\" or \"accept-new\"" },
	IL_JF_AT("sudo", IL_JF_BOOL, struct il_host_cfg, sudo),
	IL_JF_AT("cpus", IL_JF_STRING, struct il_host_cfg, cpus),
	{ .key = "quiesce_s", .type = IL_JF_NUMBER, .ranged = true, .min = 0, .max = 3600, .what = "seconds from 0 to 3600",
	  .store = true, .off = offsetof(struct il_host_cfg, quiesce_s) },
	IL_JF_RANGE("connect_timeout_s", IL_JF_INT, 1, 3600, struct il_host_cfg, connect_timeout_s),
	IL_JF_RANGE("command_timeout_s", IL_JF_INT, 1, 7 * 86400, struct il_host_cfg, command_timeout_s),
	IL_JF("description", IL_JF_ANY),
	IL_JF("boot", IL_JF_ANY),        /* checked by il_boot_cfg_parse */
	IL_JF("power_cycle", IL_JF_ANY), /* likewise */
	{ .key = "transport", .type = IL_JF_OBJECT, .what = "an object with \"exec\" and \"push\" (argv templates)" },
	{ .key = "labvm", .type = IL_JF_STRING, .what = "a lab instance name (\"labvm\" or the NAME of 'lab up --name NAME')" },
	{ .key = "lava", .type = IL_JF_OBJECT, .what = "an object with \"url\", \"token_file\" and \"device_type\"" },
};

/* SSH's keys: a host file with "labvm" (they come from the running instance) or "transport" must not have them */
static const char *const ssh_keys[] = { "address", "port", "user", "identity", "known_hosts", "host_key_policy" };

static int without_ssh_keys(const json_t *j, const char *by, const char *why, const char *label, struct il_err *err)
{
	for (size_t i = 0; i < sizeof(ssh_keys) / sizeof(ssh_keys[0]); i++)
		if (json_object_get(j, ssh_keys[i]))
			return il_err_set(err, IL_EPARSE, "%s: %s: not with \"%s\" (%s)", label, ssh_keys[i], by, why);
	return 0;
}

static int path_field(const json_t *j, const char *key, const struct il_paths *p, char **out, struct il_err *err)
{
	const json_t *v = il_jfields_get(j, key);

	if (!v)
		return 0;
	free(*out);
	*out = expand_home(json_string_value(v), p ? p->home : NULL);
	return *out ? 0 : il_err_oom(err);
}

/* a host file with "labvm": the lab's defaults; address, port and keys are filled by lab/labhost.c */
static int lab_linked(struct il_host_cfg *h, const json_t *j, const char *label, struct il_err *err)
{
	const char *lab = json_string_value(il_jfields_get(j, "labvm"));

	if (!il_str_name_ok(lab, "-_.", 64))
		return il_jfields_bad(err, label, NULL, "labvm", "%s", fields[IL_JF_COUNT(fields) - 2].what);
	if (without_ssh_keys(j, "labvm", "it comes from the lab instance", label, err))
		return IL_EPARSE;
	h->quiesce_s = 1;
	h->boot.method = IL_BOOT_LABVM;
	h->boot.timeout_s = 180;
	return (h->boot.lab = strdup(lab)) ? 0 : il_err_oom(err);
}

#define EXEC_WHAT "an argv template (array of strings) with {cmd}, the command as one sh string"
#define COPY_WHAT "an argv template (array of strings) with {src} and {dst}"

/* The "transport" section's keys (struct il_host_cmds). */
static const struct il_jfield cmd_fields[] = {
	{ .key = "exec", .type = IL_JF_STRINGS, .required = true, .what = EXEC_WHAT, .store = true,
	  .off = offsetof(struct il_host_cmds, exec) },
	{ .key = "push", .type = IL_JF_STRINGS, .required = true, .what = COPY_WHAT, .store = true,
	  .off = offsetof(struct il_host_cmds, push) },
	{ .key = "pull", .type = IL_JF_STRINGS, .what = COPY_WHAT, .store = true, .off = offsetof(struct il_host_cmds, pull) },
};

struct used {
	const char *const *names; /* il_cmdtransport_exec_names or il_cmdtransport_copy_names */
	bool seen[2];
};

static int mark_used(void *ctx, const char *s, const char *name, bool whole, struct il_err *err)
{
	struct used *u = ctx;

	(void)s, (void)whole, (void)err;
	for (size_t i = 0; u->names[i]; i++)
		u->seen[i] |= !strcmp(u->names[i], name);
	return 0;
}

/* One template of the section (tr's key, read into tpl): known placeholders only, and each of names somewhere. */
static int cmd_template(const struct il_strlist *tpl, const json_t *tr, const char *key, const char *const names[],
			const char *what, const char *label, struct il_err *err)
{
	struct used u = { names, { false } };
	char at[64], where[96];
	int r;

	if (!tpl->n && il_jfields_get(tr, key))
		return il_jfields_bad(err, label, "transport", key, "%s", what);
	il_jfields_path(at, sizeof(at), "transport", key, 0);
	for (size_t i = 0; i < tpl->n; i++) {
		il_jfields_path(where, sizeof(where), at, NULL, i);
		if ((r = il_template_check_names(tpl->v[i], names, label, where, err)) ||
		    (r = il_template_check(tpl->v[i], mark_used, &u, label, where, err)))
			return r;
	}
	for (size_t i = 0; tpl->n && names[i]; i++)
		if (!u.seen[i])
			return il_jfields_bad(err, label, "transport", key, "%s (no {%s} in it)", what, names[i]);
	return 0;
}

/* a host file with "lava": a device type of a LAVA server, reached by jobs, so nothing of SSH's or a transport's */
static int lava_host(struct il_host_cfg *h, const json_t *j, const char *label, const struct il_paths *paths,
		     struct il_err *err)
{
	int r;

	if (il_jfields_get(j, "transport"))
		return il_jfields_bad(err, label, NULL, "transport",
				 "no \"transport\" with \"lava\" (a LAVA host is reached through LAVA jobs, not commands)");
	if (il_jfields_get(j, "labvm"))
		return il_jfields_bad(err, label, NULL, "labvm", "no \"labvm\" with \"lava\" (a lab host is reached by SSH)");
	if ((r = without_ssh_keys(j, "lava", "a LAVA host is reached through LAVA jobs, not SSH", label, err)))
		return r;
	h->kind = IL_HOST_LAVA;
	return il_lava_cfg_parse(&h->lava, il_jfields_get(j, "lava"), label, "lava", paths, err);
}

static int command_transport(struct il_host_cfg *h, const json_t *j, const char *label, struct il_err *err)
{
	const json_t *tr = il_jfields_get(j, "transport");
	int r;

	if ((r = without_ssh_keys(j, "transport", "the transport's command reaches the host", label, err)))
		return r;
	if (il_jfields_get(j, "labvm"))
		return il_jfields_bad(err, label, NULL, "transport", "no \"transport\" in a lab host's file (lab hosts are SSH)");
	h->kind = IL_HOST_COMMAND;
	if ((r = il_jfields_read(tr, cmd_fields, IL_JF_COUNT(cmd_fields), &h->cmds, label, "transport", err)) ||
	    (r = cmd_template(&h->cmds.exec, tr, "exec", il_cmdtransport_exec_names, EXEC_WHAT, label, err)) ||
	    (r = cmd_template(&h->cmds.push, tr, "push", il_cmdtransport_copy_names, COPY_WHAT, label, err)) ||
	    (r = cmd_template(&h->cmds.pull, tr, "pull", il_cmdtransport_copy_names, COPY_WHAT, label, err)))
		return r;
	return 0;
}

int il_host_from_json(struct il_host_cfg *h, const json_t *j, const char *name, const char *label,
		      const struct il_paths *paths, struct il_err *err)
{
	const char *policy;
	int r;

	memset(h, 0, sizeof(*h));
	defaults(h);
	if (!json_is_object(j))
		return il_jfields_bad(err, label, NULL, NULL, "a host object");
	if ((r = il_jfields_check(j, fields, IL_JF_COUNT(fields), label, NULL, err)))
		return r;
	if (il_jfields_get(j, "lava") && (r = lava_host(h, j, label, paths, err)))
		goto fail;
	if (il_jfields_get(j, "transport") && (r = command_transport(h, j, label, err)))
		goto fail;
	if (il_jfields_get(j, "labvm") && (r = lab_linked(h, j, label, err)))
		goto fail;
	if (!(h->name = strdup(name)) || (paths && paths->ssh_config && !(h->ssh_config = strdup(paths->ssh_config)))) {
		r = il_err_oom(err);
		goto fail;
	}
	if ((r = il_jfields_read(j, fields, IL_JF_COUNT(fields), h, label, NULL, err)) ||
	    (r = path_field(j, "identity", paths, &h->identity, err)) ||
	    (r = path_field(j, "known_hosts", paths, &h->known_hosts, err)) ||
	    (r = il_boot_cfg_parse(&h->boot, il_jfields_get(j, "boot"), il_jfields_get(j, "power_cycle"), label, err)))
		goto fail;
	if (!h->address && !h->boot.lab && il_host_kinds[h->kind].address) {
		r = il_jfields_bad(err, label, NULL, "address", "a host name or IP address (required)");
		goto fail;
	}
	if ((policy = json_string_value(il_jfields_get(j, "host_key_policy")))) {
		if (!strcmp(policy, "strict"))
			h->host_key_policy = IL_HOSTKEY_STRICT;
		else if (!strcmp(policy, "accept-new"))
			h->host_key_policy = IL_HOSTKEY_ACCEPT_NEW;
		else {
			r = il_jfields_bad(err, label, NULL, "host_key_policy", "\"strict\" or \"accept-new\"");
			goto fail;
		}
	}
	if (h->cpus) {
		struct il_cpuset set;

		if ((r = il_cpuset_parse(&set, h->cpus, err))) {
			il_err_prefix(err, "%s: cpus: ", label);
			goto fail;
		}
		il_cpuset_release(&set);
	}
	if (!h->known_hosts && h->kind == IL_HOST_SSH && !h->boot.lab &&
	    !(h->known_hosts = expand_home("~/.ssh/known_hosts", paths ? paths->home : NULL))) {
		r = il_err_oom(err);
		goto fail;
	}
	return 0;
fail:
	il_host_release(h);
	return r;
}

int il_host_load(struct il_host_cfg *out, const struct il_paths *paths, const char *name, struct il_err *err)
{
	char *path;
	json_t *j;
	int r;

	memset(out, 0, sizeof(*out));
	if (!valid_name(name))
		return il_err_set(err, IL_EINVAL, "invalid host name '%s' (letters, digits, '.', '-', '_')", name);
	if (!strcmp(name, "local")) {
		defaults(out);
		out->kind = IL_HOST_LOCAL;
		out->name = strdup("local");
		out->address = strdup("localhost");
		return out->name && out->address ? 0 : il_err_oom(err);
	}
	/* the built-in lab hosts "labvm" and "labvm-NAME" without a file: lab/labhost.c */
	if ((r = il_json_load_named(hosts_dir(paths), name, "host", "inventory file", &j, &path, err)))
		return r;
	if (!(r = il_host_from_json(out, j, name, path, paths, err)))
		out->path = path;
	else
		free(path);
	json_decref(j);
	return r;
}

int il_host_list(struct il_strlist *out, const struct il_paths *paths, struct il_err *err)
{
	struct il_strlist files = { 0 };
	int r = 0;

	/* a missing inventory directory is an empty inventory */
	il_search_names(&files, hosts_dir(paths), ".json", NULL);
	for (size_t i = 0; !r && i < files.n; i++)
		if (valid_name(files.v[i]) && strcmp(files.v[i], "local"))
			r = il_strlist_push(out, files.v[i]);
	il_strlist_release(&files);
	if (r || il_strlist_push(out, "local"))
		return il_err_oom(err);
	il_strlist_sort(out);
	return 0;
}

int il_host_from_spec(struct il_host_cfg *out, const char *spec, const char *label, const struct il_paths *paths,
		      struct il_err *err)
{
	const char *at = strchr(spec, '@'), *h = at ? at + 1 : spec, *colon;
	char *user = at ? il_str_ndup(spec, (size_t)(at - spec)) : NULL, *addr;
	json_t *j = json_object();
	int r, port = 0;

	memset(out, 0, sizeof(*out));
	if (*h == '[' && strchr(h, ']')) {
		const char *close = strchr(h, ']');

		addr = il_str_ndup(h + 1, (size_t)(close - h - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		/* a bare IPv6 address (two colons or more) has no port: "[::1]:2222" is how to give one */
		colon = strchr(h, ':') == strrchr(h, ':') ? strchr(h, ':') : NULL;
		addr = il_str_ndup(h, colon ? (size_t)(colon - h) : strlen(h));
	}
	if (colon) {
		uint64_t v;

		if (il_parse_u64(colon + 1, (size_t)-1, &v) || !v || v > 65535) {
			r = il_err_set(err, IL_EPARSE, "%s: '%s': expected [user@]host[:port] (port 1 to 65535)", label, spec);
			goto out;
		}
		port = (int)v;
	}
	if (!j || !addr || (at && !user)) {
		r = il_err_oom(err);
		goto out;
	}
	if (!*addr || (at && !*user) || strpbrk(addr, " \t@/")) {
		r = il_err_set(err, IL_EPARSE, "%s: '%s': expected [user@]host[:port]", label, spec);
		goto out;
	}
	if (json_object_set_new(j, "address", json_string(addr)) ||
	    (user && json_object_set_new(j, "user", json_string(user))) ||
	    (port && json_object_set_new(j, "port", json_integer(port))))
		r = il_err_oom(err);
	else
		r = il_host_from_json(out, j, spec, label, paths, err);
out:
	json_decref(j);
	free(user);
	free(addr);
	return r;
}

bool il_host_ssh_alias(const struct il_paths *paths, const char *name)
{
	struct il_buf text = IL_BUF_INIT, path = IL_BUF_INIT;
	bool found = false;

	if (paths && paths->ssh_config)
		il_buf_adds(&path, paths->ssh_config);
	else if (paths && paths->home)
		il_buf_printf(&path, "%s/.ssh/config", paths->home);
	if (!path.len || il_buf_read_file(&text, il_buf_str(&path), 4 << 20, NULL))
		goto out;
	for (const char *p = il_buf_str(&text); *p && !found;) {
		size_t n = strcspn(p, "\n");
		char *line = il_str_ndup(p, n);
		struct il_strlist w = { 0 };

		if (line) {
			for (char *c = line; *c; c++)
				if (*c == '=' || *c == '\t')
					*c = ' ';
			/* no memory left for its words: the line is passed over, as one that could not be read */
			if (il_strlist_split(&w, line))
				il_strlist_release(&w);
		}
		if (w.n >= 2 && !strcasecmp(w.v[0], "Host"))
			for (size_t i = 1; i < w.n && !found; i++)
				found = !strpbrk(w.v[i], "*?!") && !strcmp(w.v[i], name);
		il_strlist_release(&w);
		free(line);
		p += n + (p[n] == '\n');
	}
out:
	il_buf_release(&text);
	il_buf_release(&path);
	return found;
}

int il_host_list_file(struct il_strlist *out, const char *path, struct il_err *err)
{
	struct il_buf text = IL_BUF_INIT;
	int r;

	if ((r = il_buf_read_file(&text, path, 16 << 20, err)))
		return r;
	for (const char *p = il_buf_str(&text); *p && !r;) {
		size_t n = strcspn(p, "\n");
		char *line = il_str_ndup(p, n);
		struct il_strlist w = { 0 };

		if (!line || il_strlist_split(&w, line))
			r = il_err_oom(err);
		else if (w.n && w.v[0][0] != '#') {
			if (w.n > 1 && w.v[1][0] != '#')
				r = il_err_set(err, IL_EPARSE, "%s: '%s': expected one [user@]host[:port] a line", path, line);
			else
				r = il_strlist_push(out, w.v[0]) ? il_err_oom(err) : 0;
		}
		il_strlist_release(&w);
		free(line);
		p += n + (p[n] == '\n');
	}
	il_buf_release(&text);
	return r;
}
