/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Booting built kernels on hosts (see boot.h). The remote half is
 * runners/boot.sh (install modules, kexec -l / GRUB one-shot entry, then the
 * reboot in the background so the exec returns); this file owns the
 * configuration, the uploads, the waits and the verification.
 */
#include "host/boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/inventory.h"
#include "host/lab.h"
#include "host/probe.h"
#include "host/runners.h"
#include "host/transport.h"
#include "host/workdir.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/http.h"
#include "util/proc.h"

#define DEFAULT_TIMEOUT_S 300

static const char *const method_names[] = { "none", "labvm", "kexec", "grub-reboot", "command" };

/* placeholders a command template may use (boot.argv, boot.back_argv, power_cycle.argv) */
static const char *const placeholders[] = { "image", "modules", "initrd", "release", "host", "address", "port", NULL };

const char *il_boot_method_name(enum il_boot_method m)
{
	return (unsigned)m < sizeof(method_names) / sizeof(method_names[0]) ? method_names[m] : "?";
}

#define now_s il_mono_s

static int bad(struct il_err *err, const char *label, const char *path, const char *expected)
{
	return il_err_set(err, IL_EPARSE, "%s: %s: expected %s", label, path, expected);
}

/*
 * Replace the placeholders of one template element s (vals in the order of
 * placeholders[]; NULL is "") and append the result to b; b NULL only checks.
 * `{{` is a literal brace. IL_EPARSE: an unknown placeholder or a `{` that
 * is never closed.
 */
static int substitute(const char *s, const char *const vals[], struct il_buf *b)
{
	while (*s) {
		const char *e, *v;
		size_t k = 0;

		if (s[0] != '{' || s[1] == '{') {
			if (b && il_buf_add(b, s, 1))
				return IL_ENOMEM;
			s += s[0] == '{' ? 2 : 1;
			continue;
		}
		if (!(e = strchr(s, '}')))
			return IL_EPARSE;
		while (placeholders[k] && ((size_t)(e - s - 1) != strlen(placeholders[k]) ||
					   strncmp(s + 1, placeholders[k], (size_t)(e - s - 1))))
			k++;
		if (!placeholders[k])
			return IL_EPARSE;
		v = vals && vals[k] ? vals[k] : "";
		if (b && il_buf_add(b, v, strlen(v)))
			return IL_ENOMEM;
		s = e + 1;
	}
	return 0;
}

static int check_template(const char *s, const char *label, const char *path, struct il_err *err)
{
	if (substitute(s, NULL, NULL))
		return il_err_set(err, IL_EPARSE, "%s: %s: unknown or unclosed placeholder in '%s' (known: {image} {modules} "
				  "{initrd} {release} {host} {address} {port})", label, path, s);
	return 0;
}

static int parse_argv(struct il_strlist *out, const json_t *v, const char *label, const char *path, struct il_err *err)
{
	size_t i;
	const json_t *a;
	char where[96];

	if (!json_is_array(v) || !json_array_size(v))
		return bad(err, label, path, "a non-empty array of strings (an argv, no shell)");
	json_array_foreach(v, i, a) {
		int r;

		snprintf(where, sizeof(where), "%s[%zu]", path, i);
		if (!json_is_string(a))
			return bad(err, label, where, "a string");
		if ((r = check_template(json_string_value(a), label, where, err)))
			return r;
		if (il_strlist_push(out, json_string_value(a)))
			return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	return 0;
}

static int get_str(const json_t *obj, const char *key, char **out, const char *label, const char *path,
		   struct il_err *err)
{
	const json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || !*json_string_value(v))
		return bad(err, label, path, "a non-empty string");
	return (*out = strdup(json_string_value(v))) ? 0 : il_err_set(err, IL_ENOMEM, "out of memory");
}

static int get_int(const json_t *obj, const char *key, int lo, int hi, int *out, const char *label, const char *path,
		   struct il_err *err)
{
	const json_t *v = json_object_get(obj, key);
	char exp[64];

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		snprintf(exp, sizeof(exp), "an integer from %d to %d", lo, hi);
		return bad(err, label, path, exp);
	}
	*out = (int)json_integer_value(v);
	return 0;
}

static int only_keys(const json_t *obj, const char *const keys[], const char *label, const char *section,
		     struct il_err *err)
{
	const char *k;
	const json_t *v;

	json_object_foreach((json_t *)obj, k, v) {
		bool ok = false;
		struct il_buf known = IL_BUF_INIT;
		int r;

		for (size_t i = 0; keys[i]; i++)
			ok = ok || !strcmp(k, keys[i]);
		if (ok)
			continue;
		for (size_t i = 0; keys[i]; i++)
			il_buf_printf(&known, "%s%s", i ? ", " : "", keys[i]);
		r = il_err_set(err, IL_EPARSE, "%s: %s.%s: unknown key (known: %s)", label, section, k, il_buf_str(&known));
		il_buf_release(&known);
		return r;
	}
	return 0;
}

/* A remote directory idlelab writes into: absolute, plain characters, no "..". */
static bool remote_dir_ok(const char *s)
{
	return s[0] == '/' && s[1] && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") ==
		strlen(s) && !strstr(s, "..");
}

static int parse_power_cycle(struct il_power_cycle *pc, const json_t *j, const char *label, struct il_err *err)
{
	static const char *const keys[] = { "argv", "url", "method", "body", "headers", "timeout_s", "wait_s", NULL };
	const json_t *v;
	int r;

	if (!json_is_object(j))
		return bad(err, label, "power_cycle", "an object with \"argv\" (a command) or \"url\" (an HTTP request)");
	if ((r = only_keys(j, keys, label, "power_cycle", err)))
		return r;
	pc->timeout_s = 30;
	if ((v = json_object_get(j, "argv")) && (r = parse_argv(&pc->argv, v, label, "power_cycle.argv", err)))
		return r;
	if ((r = get_str(j, "url", &pc->url, label, "power_cycle.url", err)) ||
	    (r = get_str(j, "method", &pc->method, label, "power_cycle.method", err)) ||
	    (r = get_str(j, "body", &pc->body, label, "power_cycle.body", err)) ||
	    (r = get_int(j, "timeout_s", 1, 3600, &pc->timeout_s, label, "power_cycle.timeout_s", err)) ||
	    (r = get_int(j, "wait_s", 1, 86400, &pc->wait_s, label, "power_cycle.wait_s", err)))
		return r;
	if (!pc->argv.n == !pc->url)
		return bad(err, label, "power_cycle", "exactly one of \"argv\" (a command) and \"url\" (an HTTP request)");
	if (pc->url && strncmp(pc->url, "http://", 7) && strncmp(pc->url, "https://", 8))
		return bad(err, label, "power_cycle.url", "an http:// or https:// URL");
	if (pc->url && !(pc->url_shown = il_http_url_shown(pc->url)))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if (pc->method && (!pc->url || !il_name_ok(pc->method, "", 16)))
		return bad(err, label, "power_cycle.method", "an HTTP method (with \"url\")");
	if ((v = json_object_get(j, "headers"))) {
		size_t i;
		const json_t *h;

		if (!json_is_array(v) || !pc->url)
			return bad(err, label, "power_cycle.headers", "an array of \"Name: value\" strings (with \"url\")");
		json_array_foreach(v, i, h) {
			const char *s = json_is_string(h) ? json_string_value(h) : NULL;
			char where[64];

			snprintf(where, sizeof(where), "power_cycle.headers[%zu]", i);
			if (!s || !strchr(s, ':') || strpbrk(s, "\r\n"))
				return bad(err, label, where, "a \"Name: value\" string on one line");
			if (il_strlist_push(&pc->headers, s))
				return il_err_set(err, IL_ENOMEM, "out of memory");
		}
	}
	return 0;
}

int il_boot_cfg_parse(struct il_boot_cfg *c, const json_t *boot, const json_t *pc, const char *label,
		      struct il_err *err)
{
	static const char *const keys[] = { "method", "argv", "back_argv", "cmdline", "initrd", "remote_dir",
					    "timeout_s", NULL };
	const json_t *v;
	char *m = NULL;
	int r;

	c->timeout_s = c->timeout_s ? c->timeout_s : DEFAULT_TIMEOUT_S;
	if (boot && !json_is_null(boot)) {
		if (!json_is_object(boot))
			return bad(err, label, "boot", "an object");
		if ((r = only_keys(boot, keys, label, "boot", err)) || (r = get_str(boot, "method", &m, label, "boot.method", err)))
			return r;
		c->method = IL_BOOT_NONE;
		for (size_t i = 1; m && i < sizeof(method_names) / sizeof(method_names[0]); i++)
			if (!strcmp(m, method_names[i]))
				c->method = (enum il_boot_method)i;
		free(m);
		if (c->method == IL_BOOT_NONE)
			return bad(err, label, "boot.method", "one of \"labvm\", \"kexec\", \"grub-reboot\", \"command\"");
		if (c->method == IL_BOOT_LABVM && !c->lab)
			return bad(err, label, "boot.method", "\"labvm\" only on a lab host (a host file with \"labvm\")");
		if ((v = json_object_get(boot, "argv")) && (r = parse_argv(&c->argv, v, label, "boot.argv", err)))
			return r;
		if ((v = json_object_get(boot, "back_argv")) &&
		    (r = parse_argv(&c->back_argv, v, label, "boot.back_argv", err)))
			return r;
		if ((c->method == IL_BOOT_COMMAND) != (c->argv.n > 0))
			return bad(err, label, "boot.argv", c->argv.n ? "no argv unless the method is \"command\""
								       : "the command's argv (method \"command\")");
		if (c->back_argv.n && c->method != IL_BOOT_COMMAND)
			return bad(err, label, "boot.back_argv", "no back_argv unless the method is \"command\"");
		if ((r = get_str(boot, "cmdline", &c->cmdline, label, "boot.cmdline", err)) ||
		    (r = get_str(boot, "initrd", &c->initrd, label, "boot.initrd", err)) ||
		    (r = get_str(boot, "remote_dir", &c->remote_dir, label, "boot.remote_dir", err)) ||
		    (r = get_int(boot, "timeout_s", 5, 86400, &c->timeout_s, label, "boot.timeout_s", err)))
			return r;
		if (c->cmdline && c->method != IL_BOOT_KEXEC)
			return bad(err, label, "boot.cmdline", "no cmdline unless the method is \"kexec\"");
		if (c->cmdline && strpbrk(c->cmdline, "\n\r"))
			return bad(err, label, "boot.cmdline", "a command line on one line");
		if (c->initrd && c->method != IL_BOOT_KEXEC && c->method != IL_BOOT_GRUB)
			return bad(err, label, "boot.initrd", "no initrd unless the method is \"kexec\" or \"grub-reboot\"");
		if (c->initrd && access(c->initrd, R_OK))
			return il_err_set(err, IL_ENOTFOUND, "%s: boot.initrd: cannot read '%s': %s", label, c->initrd,
					  strerror(errno));
		if (c->remote_dir && !remote_dir_ok(c->remote_dir))
			return bad(err, label, "boot.remote_dir", "an absolute path of letters, digits, '/', '.', '_', '-' "
				   "without '..'");
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

static json_t *strlist_json(const struct il_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

json_t *il_boot_cfg_to_json(const struct il_boot_cfg *c)
{
	json_t *o = json_pack("{s:s,s:i,s:s}", "method", il_boot_method_name(c->method), "timeout_s", c->timeout_s,
			      "remote_dir", c->remote_dir ? c->remote_dir : "<idlelab's working directory>/boot");

	if (c->lab)
		json_object_set_new(o, "lab", json_string(c->lab));
	if (c->argv.n)
		json_object_set_new(o, "argv", strlist_json(&c->argv));
	if (c->back_argv.n)
		json_object_set_new(o, "back_argv", strlist_json(&c->back_argv));
	if (c->cmdline)
		json_object_set_new(o, "cmdline", json_string(c->cmdline));
	if (c->initrd)
		json_object_set_new(o, "initrd", json_string(c->initrd));
	if (c->has_power_cycle) {
		const struct il_power_cycle *p = &c->power_cycle;
		/* only the request's shape: headers and bodies may carry credentials */
		json_t *pc = json_pack("{s:i,s:i}", "timeout_s", p->timeout_s, "wait_s", p->wait_s ? p->wait_s : c->timeout_s);

		if (p->url) {
			json_object_set_new(pc, "url", json_string(p->url_shown));
			json_object_set_new(pc, "method", json_string(p->method ? p->method : "POST"));
		}
		if (p->argv.n)
			json_object_set_new(pc, "argv", strlist_json(&p->argv));
		json_object_set_new(o, "power_cycle", pc);
	}
	return o;
}

/* ---- steps ---- */

struct run {
	const struct il_host_cfg *cfg;
	const struct il_boot_opts *o;
	const struct il_boot_target *tgt;
	json_t *steps;
	double t0;
	struct il_host_cfg conn;     /* the settings of the open connection (a transport borrows them) */
	bool conn_owned;
};

static void step(struct run *b, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void step(struct run *b, const char *what, const char *fmt, ...)
{
	char at[32], detail[1024] = "";
	double el = now_s() - b->t0;
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	il_iso_now(at, sizeof(at));
	json_array_append_new(b->steps, json_pack("{s:s,s:s,s:f,s:s}", "step", what, "at", at, "elapsed_s",
						  (double)(long)(el * 1000) / 1000, "detail", detail));
	if (b->o && b->o->cb)
		b->o->cb(what, detail, el, b->o->ctx);
}

static bool cancelled(const struct il_boot_opts *o)
{
	return o && o->cancel && *o->cancel;
}

/* ---- templates ---- */

static int expand(const struct il_strlist *tpl, const char *const vals[], struct il_strlist *out, struct il_err *err)
{
	for (size_t i = 0; i < tpl->n; i++) {
		struct il_buf b = IL_BUF_INIT;
		int r = substitute(tpl->v[i], vals, &b);

		if (r == IL_EPARSE) /* checked when the file was read */
			r = il_err_set(err, IL_EPARSE, "unknown placeholder in '%s'", tpl->v[i]);
		else if (r || il_strlist_push(out, il_buf_str(&b)))
			r = il_err_set(err, IL_ENOMEM, "out of memory");
		il_buf_release(&b);
		if (r)
			return r;
	}
	return 0;
}

/* ---- connections ---- */

/*
 * Connect afresh (closing *t). The settings live in b->conn for as long as
 * the transport does; a lab instance's port may change between boots, and
 * waits use a short connect timeout.
 */
static int connect_now(struct run *b, struct il_transport **t, struct il_err *err)
{
	int r = 0;

	il_transport_free(*t);
	*t = NULL;
	if (b->conn_owned)
		il_host_release(&b->conn);
	b->conn_owned = false;
	if (b->cfg->boot.lab) {
		if (!(r = il_lab_host(&b->conn, b->o->cache_dir, b->cfg->boot.lab, err)))
			b->conn_owned = true, b->conn.connect_timeout_s = 5;
	} else {
		b->conn = *b->cfg;
		if (!b->conn.connect_timeout_s || b->conn.connect_timeout_s > 10)
			b->conn.connect_timeout_s = 10;
	}
	return r ? r : il_transport_open(t, &b->conn, err);
}

/* Run argv on the host; its stdout (first line, trimmed) into out when given. */
static int remote(struct il_transport *t, char *const argv[], bool privileged, int timeout_s, struct il_buf *out,
		  struct il_err *err)
{
	struct il_exec_opts eo = { timeout_s * 1000, 0, privileged, NULL };
	struct il_exec_result res = { 0 };
	int r = il_transport_exec(t, argv, &eo, &res, err);

	if (!r && res.exit_code) {
		const char *e = il_buf_str(&res.err);

		r = il_err_set(err, IL_ECHILD, "'%s' exited with %d%s%.*s", argv[0], res.exit_code, *e ? ": " : "",
			       (int)strcspn(e, "\n"), e);
	}
	if (!r && out)
		r = il_buf_add(out, il_buf_str(&res.out), res.out.len) ? il_err_set(err, IL_ENOMEM, "out of memory") : 0;
	il_exec_result_release(&res);
	return r;
}

static char *first_line(struct il_buf *b)
{
	char *s = (char *)il_buf_str(b);

	s[strcspn(s, "\n")] = 0;
	return s;
}

static int read_boot_id(struct il_transport *t, char *id, size_t n, struct il_err *err)
{
	char *av[] = { (char *)"cat", (char *)"/proc/sys/kernel/random/boot_id", NULL };
	struct il_buf b = IL_BUF_INIT;
	int r = remote(t, av, false, 15, &b, err);

	if (!r)
		il_strlcpy(id, first_line(&b), n);
	il_buf_release(&b);
	return r;
}

/*
 * Wait until the host answers with a boot_id other than old (old "" accepts
 * any) and the probe passes; *t is then the new connection.
 */
static int wait_boot(struct run *b, const char *old, int seconds, struct il_transport **t, struct il_err *err)
{
	double end = now_s() + seconds;
	bool down = false, same_logged = false;
	struct il_err last = { 0 };

	for (;;) {
		char id[64] = "";

		if (cancelled(b->o))
			return il_err_set(err, IL_EINTR, "interrupted while waiting for host '%s' to boot", b->cfg->name);
		il_err_clear(&last);
		if (!connect_now(b, t, &last) && !read_boot_id(*t, id, sizeof(id), &last)) {
			if (!*old || strcmp(id, old)) {
				json_t *fp = NULL;

				if (!il_probe_run(*t, &fp, NULL, &last)) {
					json_decref(fp);
					step(b, "up", "boot_id %s; SSH answers, probe passed", id);
					return 0;
				}
			} else if (!same_logged) {
				same_logged = true;
				step(b, "still-up", "the host still runs the old boot (boot_id %s)", id);
			}
		} else if (!down) {
			down = true;
			step(b, "down", "%s", last.msg);
		}
		il_transport_free(*t);
		*t = NULL;
		if (last.code == IL_EHOSTKEY)
			return il_err_set(err, IL_EHOSTKEY, "host '%s': %s", b->cfg->name, last.msg);
		if (now_s() > end)
			return il_err_set(err, IL_ETIMEOUT, "host '%s' did not come back with a new boot within %d s (last: %s)",
					  b->cfg->name, seconds, last.msg[0] ? last.msg : "the old boot still answered");
		usleep(down ? 500000 : 250000);
	}
}

/* ---- power cycle ---- */

static int http_hook(const struct il_power_cycle *pc, const char *host, char **detail, struct il_err *err)
{
	const char *method = pc->method ? pc->method : "POST";
	struct il_http_req q = { .url = pc->url, .url_shown = pc->url_shown, .method = method, .body = pc->body,
				 .headers = &pc->headers, .user_agent = "idlelab (power cycle)", .timeout_s = pc->timeout_s,
				 .max_body = 512 };
	struct il_buf resp = IL_BUF_INIT, d = IL_BUF_INIT;
	long code = 0;
	int r;

	if ((r = il_http_perform(&q, &code, &resp, err)))
		il_err_prefix(err, "host '%s': power-cycle request %s ", host, method);
	else if (code >= 400)
		r = il_err_set(err, IL_EIO, "host '%s': power-cycle request %s %s answered HTTP %ld: %.200s", host, method,
			       pc->url_shown, code, il_buf_str(&resp));
	else if (!il_buf_printf(&d, "%s %s: HTTP %ld", method, pc->url_shown, code))
		*detail = il_buf_detach(&d);
	il_buf_release(&d);
	il_buf_release(&resp);
	return r;
}

static int command_hook(const struct il_strlist *tpl, const char *const vals[], int timeout_s, const char *what,
			const struct il_boot_opts *o, char **detail, struct il_err *err)
{
	struct il_strlist av = { 0 };
	struct il_buf out = IL_BUF_INIT, er = IL_BUF_INIT, d = IL_BUF_INIT;
	struct il_exit ex = { 0 };
	char **argv = NULL;
	int r;

	if ((r = expand(tpl, vals, &av, err)))
		return r;
	if (!(argv = calloc(av.n + 1, sizeof(*argv)))) {
		il_strlist_release(&av);
		return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < av.n; i++)
		argv[i] = av.v[i];
	r = il_proc_capture(argv, timeout_s * 1000, o ? o->cancel : NULL, &out, &er, &ex, err);
	if (!r && il_exit_status(&ex)) {
		const char *e = il_buf_str(&er);

		r = il_err_set(err, IL_ECHILD, "%s command '%s' failed (exit %d)%s%.300s", what, argv[0], il_exit_status(&ex),
			       *e ? ": " : "", e);
	} else if (r) {
		il_err_prefix(err, "%s command '%s': ", what, argv[0]);
	} else if (detail && !il_buf_printf(&d, "%s exited 0", argv[0])) {
		*detail = il_buf_detach(&d);
	}
	il_buf_release(&d);
	il_buf_release(&out);
	il_buf_release(&er);
	free(argv);
	il_strlist_release(&av);
	return r;
}

static void target_vals(const struct il_host_cfg *cfg, const struct il_boot_target *tgt, const char *vals[7],
			char port[16])
{
	snprintf(port, 16, "%d", cfg->port ? cfg->port : 22);
	vals[0] = tgt ? tgt->image : NULL;
	vals[1] = tgt ? tgt->modules : NULL;
	vals[2] = cfg->boot.initrd;
	vals[3] = tgt ? tgt->release : NULL;
	vals[4] = cfg->name;
	vals[5] = cfg->address;
	vals[6] = port;
}

int il_boot_power_cycle(const struct il_boot_cfg *c, const char *host, const struct il_boot_opts *o, char **detail,
			struct il_err *err)
{
	*detail = NULL;
	if (!c->has_power_cycle)
		return il_err_set(err, IL_EUNSUPPORTED, "host '%s' has no power_cycle hook", host);
	if (c->power_cycle.url)
		return http_hook(&c->power_cycle, host, detail, err);
	{
		const char *vals[] = { NULL, NULL, c->initrd, NULL, host, NULL, NULL };

		return command_hook(&c->power_cycle.argv, vals, c->power_cycle.timeout_s, "power-cycle", o, detail, err);
	}
}

/* ---- deploy and trigger ---- */

static int upload(struct run *b, struct il_transport *t, const char *dir, const char *local, const char *name,
		  struct il_err *err)
{
	struct il_buf dst = IL_BUF_INIT;
	int r;

	if (il_buf_printf(&dst, "%s/%s", dir, name))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	r = t->upload(t, local, dst.p, err);
	if (!r)
		step(b, "upload", "%s -> %s", local, dst.p);
	else
		il_err_prefix(err, "host '%s': upload of %s: ", b->cfg->name, local);
	il_buf_release(&dst);
	return r;
}

/* kexec / grub-reboot: upload, then runners/boot.sh; the reboot starts a second later */
static int deploy_remote(struct run *b, struct il_transport *t, struct il_err *err)
{
	const struct il_boot_cfg *c = &b->cfg->boot;
	static const char *const subs[] = { "boot", NULL };
	char *script = il_workdir_script(il_runner_script("boot.sh")), *wd = NULL;
	struct il_exec_opts eo = { c->timeout_s * 1000, 0, true, b->o ? b->o->cancel : NULL };
	struct il_exec_result res = { 0 };
	struct il_buf dirb = IL_BUF_INIT, owned = IL_BUF_INIT;
	const char *dir;
	int r;

	/*
	 * Boot artifacts go in a directory of idlelab's own (host/workdir.h):
	 * <workdir>/boot, or boot.remote_dir made and checked the same way, and
	 * boot.sh checks it again as root before it installs anything from it.
	 */
	if (!script)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if ((r = il_workdir_get(t, subs, &wd, err)))
		goto out;
	if (c->remote_dir)
		il_buf_adds(&dirb, c->remote_dir);
	else
		il_buf_printf(&dirb, "%s/boot", il_workdir_path(wd));
	dir = il_buf_str(&dirb);
	if (il_buf_printf(&owned, "%.*s:%s", (int)(il_workdir_path(wd) - 1 - wd), wd, dir)) {
		r = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	{
		char *prep = il_workdir_script("own_fail() { echo \"$*\" >&2; exit 3; }\nown \"$1\"\n"
					       "rm -f \"$1/image\" \"$1/modules.tar\" \"$1/initrd\"");
		char *av[] = { (char *)"sh", (char *)"-c", prep, (char *)"sh", (char *)dir, NULL };

		r = prep ? remote(t, av, false, 60, NULL, err) : il_err_set(err, IL_ENOMEM, "out of memory");
		free(prep);
		if (r) {
			il_err_prefix(err, "host '%s': preparing %s: ", b->cfg->name, dir);
			goto out;
		}
	}
	if ((r = upload(b, t, dir, b->tgt->image, "image", err)) ||
	    (b->tgt->modules && (r = upload(b, t, dir, b->tgt->modules, "modules.tar", err))) ||
	    (c->initrd && (r = upload(b, t, dir, c->initrd, "initrd", err))))
		goto out;
	{
		char *args[] = { (char *)(c->method == IL_BOOT_KEXEC ? "kexec" : "grub"), owned.p,
				 (char *)b->tgt->release, (char *)(c->cmdline ? c->cmdline : ""), NULL };

		r = il_transport_run_script(t, script, args, &eo, &res, err);
	}
	if (!r) {
		const char *o = il_buf_str(&res.out), *f = strstr(o, "idlelab.boot_fail:");

		if (res.exit_code || f)
			r = il_err_set(err, IL_ECHILD, "host '%s': %s: %.*s%s%.300s", b->cfg->name,
				       c->method == IL_BOOT_KEXEC ? "kexec" : "grub-reboot", f ? (int)strcspn(f + 18, "\n") : 0,
				       f ? f + 18 : "", f ? "; " : "", il_buf_str(&res.err));
		else
			for (const char *l = o; (l = strstr(l, "idlelab.boot:")); l += 13)
				step(b, "remote", "%.*s", (int)strcspn(l + 13, "\n"), l + 13);
	}
out:
	il_exec_result_release(&res);
	il_buf_release(&dirb);
	il_buf_release(&owned);
	free(script);
	free(wd);
	return r;
}

static int reboot_host(struct run *b, struct il_transport *t, struct il_err *err)
{
	char *av[] = { (char *)"sh", (char *)"-c", (char *)"(sleep 1; sync; reboot) </dev/null >/dev/null 2>&1 &", NULL };
	int r = remote(t, av, true, 30, NULL, err);

	if (!r)
		step(b, "trigger", "reboot");
	return r;
}

static int lab_restart(struct run *b, const char *image, struct il_err *err)
{
	struct il_lab_opts lo = { .cache_dir = b->o->cache_dir, .name = b->cfg->boot.lab, .image = image,
				  .timeout_s = b->cfg->boot.timeout_s };
	char *rd = il_lab_run_dir(&lo);
	struct il_buf sp = IL_BUF_INIT;
	json_t *st = NULL;
	json_error_t je;
	int r;

	/* the instance keeps its size */
	if (rd && !il_buf_printf(&sp, "%s/state.json", rd) && (st = json_load_file(sp.p, 0, &je))) {
		lo.cpus = (int)json_integer_value(json_object_get(st, "cpus"));
		lo.mem_mb = (int)json_integer_value(json_object_get(st, "mem_mb"));
		json_decref(st);
		st = NULL;
	}
	free(rd);
	il_buf_release(&sp);
	il_lab_down(&lo, NULL);
	step(b, "trigger", "lab '%s' restarted with %s", b->cfg->boot.lab, image ? image : "its own kernel");
	r = il_lab_up(&lo, NULL, NULL, &st, err);
	json_decref(st);
	return r;
}

/* ---- verification ---- */

static int verify(struct run *b, struct il_transport *t, struct il_err *err)
{
	char *av[] = { (char *)"sh", (char *)"-c", (char *)"uname -r; head -n 1 /proc/version", NULL };
	struct il_buf out = IL_BUF_INIT;
	const struct il_boot_target *g = b->tgt;
	char *rel, *ver;
	int r;

	if ((r = remote(t, av, false, 30, &out, err)))
		return r;
	rel = (char *)il_buf_str(&out);
	ver = strchr(rel, '\n') ? strchr(rel, '\n') + 1 : (char *)"";
	rel[strcspn(rel, "\n")] = 0;
	ver[strcspn(ver, "\n")] = 0;
	if (g->release && strcmp(rel, g->release))
		r = il_err_set(err, IL_EMISMATCH, "host '%s' runs '%s' after booting %s%s%s, which is '%s'", b->cfg->name, rel,
			       g->image ? "kernel '" : "its own kernel", g->image ? g->name : "", g->image ? "'" : "", g->release);
	else if (g->proc_version && strcmp(ver, g->proc_version))
		r = il_err_set(err, IL_EMISMATCH, "host '%s' runs release '%s' but /proc/version is '%s', not the build's "
			       "'%s' (another build of the same release?)", b->cfg->name, rel, ver, g->proc_version);
	else
		step(b, "verified", "%s%s", ver, g->proc_version ? " (= the build's /proc/version)" : "");
	il_buf_release(&out);
	return r;
}

/* ---- the whole boot ---- */

/* *started: the host was told to go down (a failure after that is a host that did not come back) */
static int trigger(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	const struct il_boot_cfg *c = &b->cfg->boot;
	const char *vals[7];
	char port[16], *detail = NULL;
	int r;

	if (c->lab && (c->method == IL_BOOT_LABVM || !b->tgt->image)) {
		/* a lab instance goes back to its own kernel by a restart, whatever the method */
		il_transport_free(*t);
		*t = NULL;
		*started = true;
		return lab_restart(b, b->tgt->image, err);
	}
	if (c->method == IL_BOOT_COMMAND && (b->tgt->image || c->back_argv.n)) {
		target_vals(b->cfg, b->tgt, vals, port);
		r = command_hook(b->tgt->image ? &c->argv : &c->back_argv, vals, c->timeout_s, "boot", b->o, &detail, err);
		*started = !r;
		if (!r)
			step(b, "trigger", "%s", detail ? detail : "");
		free(detail);
		if (r)
			il_err_prefix(err, "host '%s': ", b->cfg->name);
		return r;
	}
	if (!*t && (r = connect_now(b, t, err)))
		return il_err_prefix(err, "host '%s': cannot reach it to boot: ", b->cfg->name);
	if (!b->tgt->image) {
		*started = !(r = reboot_host(b, *t, err));
		return r;
	}
	if ((r = deploy_remote(b, *t, err)))
		return r;
	*started = true;
	step(b, "trigger", "%s", c->method == IL_BOOT_KEXEC ? "kexec -e" : "reboot (one-shot GRUB entry)");
	return 0;
}

int il_boot_run(const struct il_host_cfg *cfg, const struct il_boot_target *tgt, const struct il_boot_opts *o,
		json_t **steps, struct il_err *err)
{
	struct il_boot_opts dflt = { 0 };
	struct run b = { cfg, o ? o : &dflt, tgt, json_array(), now_s(), { 0 }, false };
	struct il_transport *conn = NULL, **t = &conn;
	const struct il_boot_cfg *c = &cfg->boot;
	char old[64] = "", prev[sizeof(err->msg)];
	bool started = false;
	int r;

	*steps = b.steps;
	if (c->method == IL_BOOT_NONE) {
		r = il_err_set(err, IL_EUNSUPPORTED, "host '%s' has no boot method: add a \"boot\" section to %s (method "
			       "kexec, grub-reboot or command; see docs/hosts.md)", cfg->name, cfg->path ? cfg->path : "its host file");
		step(&b, "failed", "%s", err ? err->msg : "");
		return r;
	}
	step(&b, "start", "%s %s on host '%s' by %s", tgt->image ? "kernel" : "own kernel",
	     tgt->image ? tgt->name : (tgt->release ? tgt->release : "?"), cfg->name, il_boot_method_name(c->method));
	/* a boot that never happened (a refused kexec -l, a failed command) left the host on its own kernel */
	if (!tgt->image && tgt->release && !connect_now(&b, t, NULL)) {
		char *av[] = { (char *)"uname", (char *)"-r", NULL };
		struct il_buf rel = IL_BUF_INIT;

		if (!remote(*t, av, false, 15, &rel, NULL) && !strcmp(first_line(&rel), tgt->release)) {
			step(&b, "done", "already running its own kernel %s: no reboot", tgt->release);
			il_buf_release(&rel);
			r = 0;
			goto out;
		}
		il_buf_release(&rel);
	}
	/* the boot we leave, so that its return can be told from a reboot that never happened */
	if ((*t || !connect_now(&b, t, NULL)) && read_boot_id(*t, old, sizeof(old), NULL))
		old[0] = 0;
	r = trigger(&b, t, &started, err);
	il_transport_free(*t);
	*t = NULL;
	if (!r)
		r = wait_boot(&b, old, c->timeout_s, t, err);
	if (r && started && r != IL_EINTR && r != IL_EHOSTKEY) {
		struct il_err e2 = { 0 };
		char *detail = NULL;

		il_strlcpy(prev, err ? err->msg : "", sizeof(prev));
		step(&b, "not-up", "%s", prev);
		if (c->has_power_cycle) {
			if (il_boot_power_cycle(c, cfg->name, b.o, &detail, &e2)) {
				step(&b, "power-cycle-failed", "%s", e2.msg);
				il_err_set(err, r, "%s; the power-cycle hook failed: %s", prev, e2.msg);
			} else {
				int w = c->power_cycle.wait_s ? c->power_cycle.wait_s : c->timeout_s;

				step(&b, "power-cycle", "%s", detail ? detail : "");
				if (!(r = wait_boot(&b, old, w, t, &e2)))
					step(&b, "up-after-power-cycle", "the host came back after the power cycle");
				else
					il_err_set(err, r, "%s; power-cycled (%s), still not up after %d s more", prev,
						   detail ? detail : "", w);
			}
			free(detail);
		} else {
			il_err_set(err, r, "%s; no power_cycle hook configured for host '%s'", prev, cfg->name);
		}
	}
	if (!r)
		r = verify(&b, *t, err);
	step(&b, r ? "failed" : "done", "%s", r && err ? err->msg : "");
out:
	il_transport_free(*t);
	if (b.conn_owned)
		il_host_release(&b.conn);
	return r;
}
