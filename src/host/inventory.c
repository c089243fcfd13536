// SPDX-License-Identifier: GPL-2.0-or-later
/* Host inventory files: loading, validation, listing. */
#include "host/inventory.h"
#include "host/lab.h"
#include "kernel/fetch.h"
#include "util/jsonfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *il_hosts_dir(const char *dir)
{
	const char *env = getenv("IDLELAB_HOSTS");

	if (dir && *dir)
		return dir;
	return env && *env ? env : "hosts";
}

void il_host_release(struct il_host_cfg *h)
{
	free(h->name);
	free(h->address);
	free(h->user);
	free(h->identity);
	free(h->known_hosts);
	free(h->cpus);
	free(h->path);
	il_boot_cfg_release(&h->boot);
	memset(h, 0, sizeof(*h));
}

static bool valid_name(const char *s)
{
	return il_name_ok(s, "-_.", 64);
}

/* "~/x" -> "$HOME/x" */
static char *expand_home(const char *p)
{
	const char *home = getenv("HOME");
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

static const char *const known_keys[] = { "address", "port", "user", "identity", "known_hosts", "host_key_policy",
					   "sudo", "cpus", "quiesce_s", "connect_timeout_s", "command_timeout_s",
					   "description", "boot", "power_cycle", "labvm", NULL };

static int bad(struct il_err *err, const char *label, const char *key, const char *expected)
{
	return il_err_set(err, IL_EPARSE, "%s: %s: expected %s", label, key, expected);
}

static int opt_str(const json_t *j, const char *key, const char *label, char **out, bool path, struct il_err *err)
{
	const json_t *v = json_object_get(j, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || !*json_string_value(v))
		return bad(err, label, key, "a non-empty string");
	*out = path ? expand_home(json_string_value(v)) : strdup(json_string_value(v));
	return *out ? 0 : il_err_set(err, IL_ENOMEM, "out of memory");
}

static int opt_int(const json_t *j, const char *key, const char *label, int lo, int hi, int *out, struct il_err *err)
{
	const json_t *v = json_object_get(j, key);
	char what[64];

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		snprintf(what, sizeof(what), "an integer from %d to %d", lo, hi);
		return bad(err, label, key, what);
	}
	*out = (int)json_integer_value(v);
	return 0;
}

int il_host_from_json(struct il_host_cfg *h, const json_t *j, const char *name, const char *label,
		      struct il_err *err)
{
	const char *key;
	const json_t *v;
	int r;

	memset(h, 0, sizeof(*h));
	defaults(h);
	if (!json_is_object(j))
		return bad(err, label, "(top level)", "a host object");
	json_object_foreach((json_t *)j, key, v) {
		bool known = false;

		for (size_t i = 0; known_keys[i]; i++)
			known = known || !strcmp(key, known_keys[i]);
		if (!known)
			return il_err_set(err, IL_EPARSE, "%s: %s: unknown key (known: address, port, user, identity, "
					  "known_hosts, host_key_policy, sudo, cpus, quiesce_s, connect_timeout_s, "
					  "command_timeout_s, description, boot, power_cycle, labvm)", label, key);
	}
	v = json_object_get(j, "labvm");
	if (v && !json_is_null(v)) {
		/* a lab instance with settings of its own: address, port and keys come from the running instance */
		static const char *const from_lab[] = { "address", "port", "user", "identity", "known_hosts",
							"host_key_policy", NULL };

		if (!json_is_string(v) || !il_name_ok(json_string_value(v), "-_.", 64))
			return bad(err, label, "labvm", "a lab instance name (\"labvm\" or the NAME of 'lab up --name NAME')");
		for (size_t i = 0; from_lab[i]; i++)
			if (json_object_get(j, from_lab[i]))
				return il_err_set(err, IL_EPARSE, "%s: %s: not with \"labvm\" (it comes from the lab instance)",
						  label, from_lab[i]);
		if ((r = il_lab_host(h, il_cache_dir(NULL), json_string_value(v), err)))
			return il_err_prefix(err, "%s: labvm: ", label);
		free(h->name);
		free(h->path);
		h->path = NULL;
		h->name = NULL;
	}
	if (!(h->name = strdup(name)))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if ((r = opt_str(j, "address", label, &h->address, false, err)) || (r = opt_str(j, "user", label, &h->user, false, err)) ||
	    (r = opt_str(j, "identity", label, &h->identity, true, err)) ||
	    (r = opt_str(j, "known_hosts", label, &h->known_hosts, true, err)) ||
	    (r = opt_str(j, "cpus", label, &h->cpus, false, err)) ||
	    (r = opt_int(j, "port", label, 1, 65535, &h->port, err)) ||
	    (r = opt_int(j, "connect_timeout_s", label, 1, 3600, &h->connect_timeout_s, err)) ||
	    (r = opt_int(j, "command_timeout_s", label, 1, 7 * 86400, &h->command_timeout_s, err)) ||
	    (r = il_boot_cfg_parse(&h->boot, json_object_get(j, "boot"), json_object_get(j, "power_cycle"), label, err)))
		goto fail;
	if (!h->address) {
		r = bad(err, label, "address", "a host name or IP address (required)");
		goto fail;
	}
	v = json_object_get(j, "host_key_policy");
	if (v && !json_is_null(v)) {
		if (json_is_string(v) && !strcmp(json_string_value(v), "strict"))
			h->host_key_policy = IL_HOSTKEY_STRICT;
		else if (json_is_string(v) && !strcmp(json_string_value(v), "accept-new"))
			h->host_key_policy = IL_HOSTKEY_ACCEPT_NEW;
		else {
			r = bad(err, label, "host_key_policy", "\"strict\" or \"accept-new\"");
			goto fail;
		}
	}
	v = json_object_get(j, "sudo");
	if (v && !json_is_null(v)) {
		if (!json_is_boolean(v)) {
			r = bad(err, label, "sudo", "true or false");
			goto fail;
		}
		h->sudo = json_is_true(v);
	}
	v = json_object_get(j, "quiesce_s");
	if (v && !json_is_null(v)) {
		if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 3600) {
			r = bad(err, label, "quiesce_s", "seconds from 0 to 3600");
			goto fail;
		}
		h->quiesce_s = json_number_value(v);
	}
	if (h->cpus) {
		struct il_cpuset set;

		if ((r = il_cpuset_parse(&set, h->cpus, err))) {
			il_err_prefix(err, "%s: cpus: ", label);
			goto fail;
		}
		il_cpuset_release(&set);
	}
	if (!h->known_hosts && !(h->known_hosts = expand_home("~/.ssh/known_hosts"))) {
		r = il_err_set(err, IL_ENOMEM, "out of memory");
		goto fail;
	}
	return 0;
fail:
	il_host_release(h);
	return r;
}

int il_host_load(struct il_host_cfg *out, const char *dir, const char *name, struct il_err *err)
{
	struct il_buf path = IL_BUF_INIT;
	json_t *j;
	int r;

	memset(out, 0, sizeof(*out));
	if (!valid_name(name))
		return il_err_set(err, IL_EINVAL, "invalid host name '%s' (letters, digits, '.', '-', '_')", name);
	if (!strcmp(name, "local")) {
		defaults(out);
		out->local = true;
		out->name = strdup("local");
		out->address = strdup("localhost");
		return out->name && out->address ? 0 : il_err_set(err, IL_ENOMEM, "out of memory");
	}
	dir = il_hosts_dir(dir);
	if (il_buf_printf(&path, "%s/%s.json", dir, name))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if ((r = il_json_load(path.p, &j, err))) {
		/* the built-in lab host(s): "labvm", or "labvm-NAME" for other instances */
		if (r == IL_ENOTFOUND && (!strcmp(name, "labvm") || !strncmp(name, "labvm-", 6))) {
			il_buf_release(&path);
			return il_lab_host(out, il_cache_dir(NULL), strcmp(name, "labvm") ? name + 6 : name, err);
		}
		if (r == IL_ENOTFOUND)
			r = il_err_set(err, IL_ENOTFOUND, "host '%s': no inventory file '%s' (see 'idlelab host list')", name,
				       path.p);
		il_buf_release(&path);
		return r;
	}
	r = il_host_from_json(out, j, name, path.p, err);
	json_decref(j);
	if (!r)
		out->path = il_buf_detach(&path);
	il_buf_release(&path);
	return r;
}

int il_host_list(struct il_strlist *out, const char *dir, struct il_err *err)
{
	struct il_strlist files = { 0 };
	int r = 0;

	/* a missing inventory directory is an empty inventory */
	il_dir_names(&files, il_hosts_dir(dir), ".json", NULL);
	for (size_t i = 0; !r && i < files.n; i++)
		if (valid_name(files.v[i]) && strcmp(files.v[i], "local"))
			r = il_strlist_push(out, files.v[i]);
	il_strlist_release(&files);
	if (r || il_strlist_push(out, "local"))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	il_strlist_sort(out);
	return 0;
}

json_t *il_host_to_json(const struct il_host_cfg *h)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(h->name));
	json_object_set_new(o, "transport", json_string(h->local ? "local" : "ssh"));
	if (!h->local) {
		json_object_set_new(o, "address", json_string(h->address));
		json_object_set_new(o, "port", h->port ? json_integer(h->port) : json_null());
		json_object_set_new(o, "user", h->user ? json_string(h->user) : json_null());
		json_object_set_new(o, "identity", h->identity ? json_string(h->identity) : json_null());
		json_object_set_new(o, "known_hosts", json_string(h->known_hosts));
		json_object_set_new(o, "host_key_policy",
				    json_string(h->host_key_policy == IL_HOSTKEY_STRICT ? "strict" : "accept-new"));
		json_object_set_new(o, "sudo", json_boolean(h->sudo));
		json_object_set_new(o, "connect_timeout_s", json_integer(h->connect_timeout_s));
		json_object_set_new(o, "command_timeout_s", json_integer(h->command_timeout_s));
	}
	json_object_set_new(o, "cpus", h->cpus ? json_string(h->cpus) : json_null());
	json_object_set_new(o, "quiesce_s", json_real(h->quiesce_s));
	json_object_set_new(o, "file", h->path ? json_string(h->path) : json_null());
	json_object_set_new(o, "boot", il_boot_cfg_to_json(&h->boot));
	return o;
}
