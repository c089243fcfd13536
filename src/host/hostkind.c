// SPDX-License-Identifier: GPL-2.0-or-later
/* What differs per kind of host, declared once (host/hostkind.h). */
#include "host/hostkind.h"

#include "host/cmdtransport.h"
#include "host/transport.h"
#include "util/json.h"
#include "util/jfields.h"

/* a LAVA host runs LAVA jobs (host/lava.h); a command on it has no way there, so the open says why */
static int lava_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err)
{
	*out = NULL;
	return il_err_set(err, IL_EUNSUPPORTED, "host '%s' is a LAVA host: it is reached through LAVA jobs, not commands",
			  cfg->name);
}

/* Where each kind of host is, for `host list` and `host show`. */
static void where_ssh(const struct il_host_cfg *h, struct il_buf *out)
{
	il_buf_printf(out, "%s%s%s:%d", h->user ? h->user : "", h->user ? "@" : "", h->address ? h->address : "?",
		      h->port ? h->port : 22);
}

static void where_local(const struct il_host_cfg *h, struct il_buf *out)
{
	(void)h;
	il_buf_adds(out, "this machine (no SSH)");
}

static void where_command(const struct il_host_cfg *h, struct il_buf *out)
{
	il_buf_adds(out, "command: ");
	il_strlist_join(&h->cmds.exec, out);
}

static void where_lava(const struct il_host_cfg *h, struct il_buf *out)
{
	il_buf_printf(out, "LAVA %s device type %s", h->lava.url, h->lava.device_type);
}

/*
 * What only this kind of host has, in `host show --json`: -1 when a field
 * could not be added (no memory left). A lab host's address and known_hosts
 * are not there before the instance fills them in: left out, not null.
 */
static int json_ssh(const struct il_host_cfg *h, json_t *o)
{
	int bad = 0;

	if (h->address)
		bad |= json_object_set_new(o, "address", json_string(h->address));
	bad |= json_object_set_new(o, "port", h->port ? json_integer(h->port) : json_null());
	bad |= json_object_set_new(o, "user", h->user ? json_string(h->user) : json_null());
	bad |= json_object_set_new(o, "identity", h->identity ? json_string(h->identity) : json_null());
	if (h->known_hosts)
		bad |= json_object_set_new(o, "known_hosts", json_string(h->known_hosts));
	bad |= json_object_set_new(o, "host_key_policy",
				   json_string(h->host_key_policy == IL_HOSTKEY_STRICT ? "strict" : "accept-new"));
	return bad ? -1 : 0;
}

static int json_command(const struct il_host_cfg *h, json_t *o)
{
	json_t *c = json_object();
	int bad = 0;

	bad |= json_object_set_new(c, "exec", il_jfields_strlist_json(&h->cmds.exec));
	bad |= json_object_set_new(c, "push", il_jfields_strlist_json(&h->cmds.push));
	bad |= json_object_set_new(c, "pull", h->cmds.pull.n ? il_jfields_strlist_json(&h->cmds.pull) : json_null());
	if (bad)
		json_decref(c), c = NULL;
	return json_object_set_new(o, "commands", c) ? -1 : 0;
}

static int json_lava(const struct il_host_cfg *h, json_t *o)
{
	return json_object_set_new(o, "lava", il_lava_cfg_to_json(&h->lava)) ? -1 : 0;
}

/* The kinds of host, declared once. */
const struct il_host_kind_info il_host_kinds[IL_HOST_NKINDS] = {
	[IL_HOST_SSH] = { .name = "ssh", .commands = true, .remote = true, .address = true,
			  .open = il_ssh_open, .where = where_ssh, .to_json = json_ssh },
	[IL_HOST_LOCAL] = { .name = "local", .commands = true, .open = il_transport_local_open, .where = where_local },
	[IL_HOST_COMMAND] = { .name = "command", .commands = true, .remote = true,
			      .open = il_cmdtransport_open, .where = where_command, .to_json = json_command },
	[IL_HOST_LAVA] = { .name = "lava", .remote = true, .open = lava_open, .where = where_lava, .to_json = json_lava },
};

const char *il_host_kind_name(enum il_host_kind k)
{
	return (unsigned)k < IL_HOST_NKINDS ? il_host_kinds[k].name : "?";
}

int il_host_where(const struct il_host_cfg *h, struct il_buf *out)
{
	il_host_kinds[h->kind].where(h, out);
	return il_buf_error(out);
}

json_t *il_host_to_json(const struct il_host_cfg *h)
{
	const struct il_host_kind_info *k = &il_host_kinds[h->kind];
	json_t *o = json_object();
	int bad = !o;

	bad |= json_object_set_new(o, "name", json_string(h->name));
	bad |= json_object_set_new(o, "transport", json_string(k->name));
	if (k->to_json && !bad)
		bad |= k->to_json(h, o);
	if (k->remote) {
		bad |= json_object_set_new(o, "sudo", json_boolean(h->sudo));
		bad |= json_object_set_new(o, "connect_timeout_s", json_integer(h->connect_timeout_s));
		bad |= json_object_set_new(o, "command_timeout_s", json_integer(h->command_timeout_s));
	}
	bad |= json_object_set_new(o, "cpus", h->cpus ? json_string(h->cpus) : json_null());
	bad |= json_object_set_new(o, "quiesce_s", json_real(h->quiesce_s));
	bad |= json_object_set_new(o, "file", h->path ? json_string(h->path) : json_null());
	bad |= json_object_set_new(o, "boot", il_boot_cfg_to_json(&h->boot));
	return il_json_whole(o, bad);
}
