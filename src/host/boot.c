/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Booting built kernels on hosts (see boot.h). The remote half is
 * runners/boot.sh (install modules, kexec -l / GRUB one-shot entry, then the
 * reboot in the background so the exec returns); this file owns the
 * methods' steps (a table), the uploads, the waits and the verification;
 * their configuration is host/bootcfg.c.
 */
#include "host/boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/host.h"
#include "host/probe.h"
#include "host/runners.h"
#include "host/transport.h"
#include "host/workdir.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/http.h"
#include "util/proc.h"
#include "util/str.h"

#define now_s il_clock_mono_s

/* ---- steps ---- */

struct run {
	const struct il_host_cfg *cfg;
	const struct il_boot_opts *o;
	const struct il_boot_target *tgt;
	json_t *steps;
	double t0;
	struct il_host_cfg conn;     /* the settings of the open connection (a transport borrows them) */
	bool conn_owned;
	bool lost;                   /* a step could not be kept (no memory left): the boot's record is not whole */
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
	il_clock_iso_now(at, sizeof(at));
	if (json_array_append_new(b->steps, json_pack("{s:s,s:s,s:f,s:s}", "step", what, "at", at, "elapsed_s",
						      (double)(long)(el * 1000) / 1000, "detail", detail)))
		b->lost = true;
	if (b->o && b->o->cb)
		b->o->cb(what, detail, el, b->o->ctx);
}

static bool cancelled(const struct il_boot_opts *o)
{
	return o && o->cancel && *o->cancel;
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
		if (!b->o->lab)
			return il_err_set(err, IL_EUNSUPPORTED, "host '%s' is lab instance '%s': booting it needs the lab "
					  "(il_boot_opts.lab)", b->cfg->name, b->cfg->boot.lab);
		if (!(r = b->o->lab->host(&b->conn, b->o->cache_dir, b->cfg->boot.lab, err))) {
			b->conn_owned = true, b->conn.connect_timeout_s = 5;
			if (b->cfg->ssh_config && !(b->conn.ssh_config = strdup(b->cfg->ssh_config)))
				r = il_err_oom(err);
		}
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
	struct il_exec_opts eo = { .timeout_ms = timeout_s * 1000, .privileged = privileged };
	struct il_exec_result res = { 0 };
	int r = il_transport_exec(t, argv, &eo, &res, err);

	if (!r && res.exit_code) {
		const char *e = il_buf_str(&res.err);

		r = il_err_set(err, IL_ECHILD, "'%s' exited with %d%s%.*s", argv[0], res.exit_code, *e ? ": " : "",
			       (int)strcspn(e, "\n"), e);
	}
	if (!r && out)
		r = il_buf_add(out, il_buf_str(&res.out), res.out.len) ? il_err_oom(err) : 0;
	il_transport_result_release(&res);
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
		il_str_lcpy(id, first_line(&b), n);
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

static int command_hook(const struct il_strlist *tpl, const char *const vals[IL_PH_N], int timeout_s, const char *what,
			const struct il_boot_opts *o, char **detail, struct il_err *err)
{
	struct il_buf out = IL_BUF_INIT, er = IL_BUF_INIT, d = IL_BUF_INIT;
	struct il_exit ex = { 0 };
	char **argv = NULL;
	int r;

	if ((r = il_boot_argv(tpl, vals, &argv, err)))
		return r;
	r = il_proc_capture(argv, timeout_s * 1000, o ? o->cancel : NULL, &out, &er, &ex, err);
	if (!r && il_proc_exit_status(&ex)) {
		const char *e = il_buf_str(&er);

		r = il_err_set(err, IL_ECHILD, "%s command '%s' failed (exit %d)%s%.300s", what, argv[0], il_proc_exit_status(&ex),
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
	return r;
}

static void target_vals(const struct il_host_cfg *cfg, const struct il_boot_target *tgt, const char *vals[IL_PH_N],
			char port[16])
{
	snprintf(port, 16, "%d", cfg->port ? cfg->port : 22);
	vals[IL_PH_IMAGE] = tgt ? tgt->image : NULL;
	vals[IL_PH_MODULES] = tgt ? tgt->modules : NULL;
	vals[IL_PH_INITRD] = cfg->boot.initrd;
	vals[IL_PH_RELEASE] = tgt ? tgt->release : NULL;
	vals[IL_PH_HOST] = cfg->name;
	vals[IL_PH_ADDRESS] = cfg->address;
	vals[IL_PH_PORT] = port;
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
		const char *vals[IL_PH_N] = { [IL_PH_INITRD] = c->initrd, [IL_PH_HOST] = host };

		return command_hook(&c->power_cycle.argv, vals, c->power_cycle.timeout_s, "power-cycle", o, detail, err);
	}
}

/* ---- deploy and trigger ---- */

/* *started: the host was told to go down (a failure after that is a host that did not come back) */
typedef int (*trigger_fn)(struct run *b, struct il_transport **t, bool *started, struct il_err *err);

/* What booting by each method does (its configuration: the table in bootcfg.c); the table is below. */
struct method_ops {
	trigger_fn boot;           /* into b->tgt->image */
	trigger_fn back;           /* back to the host's own kernel */
	const char *script_mode;   /* runners/boot.sh's first argument */
	const char *trigger_step;  /* the trigger step's detail */
};
static const struct method_ops methods[IL_BOOT_N];

static int upload(struct run *b, struct il_transport *t, const char *dir, const char *local, const char *name,
		  struct il_err *err)
{
	struct il_buf dst = IL_BUF_INIT;
	int r;

	if (il_buf_printf(&dst, "%s/%s", dir, name))
		return il_err_oom(err);
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
	char *script = il_workdir_script(il_runners_script("boot.sh")), *wd = NULL;
	struct il_exec_opts eo = { .timeout_ms = c->timeout_s * 1000, .privileged = true,
				   .cancel = b->o ? b->o->cancel : NULL };
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
		return il_err_oom(err);
	if ((r = il_workdir_get(t, subs, &wd, err)))
		goto out;
	if (c->remote_dir)
		il_buf_adds(&dirb, c->remote_dir);
	else
		il_buf_printf(&dirb, "%s/boot", il_workdir_path(wd));
	dir = il_buf_str(&dirb);
	if (il_buf_printf(&owned, "%.*s:%s", (int)(il_workdir_path(wd) - 1 - wd), wd, dir)) {
		r = il_err_oom(err);
		goto out;
	}
	{
		char *prep = il_workdir_script("own_fail() { echo \"$*\" >&2; exit 3; }\nown \"$1\"\n"
					       "rm -f \"$1/image\" \"$1/modules.tar\" \"$1/initrd\"");
		char *av[] = { (char *)"sh", (char *)"-c", prep, (char *)"sh", (char *)dir, NULL };

		r = prep ? remote(t, av, false, 60, NULL, err) : il_err_oom(err);
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
		char *args[] = { (char *)methods[c->method].script_mode, owned.p,
				 (char *)b->tgt->release, (char *)(c->cmdline ? c->cmdline : ""), NULL };

		r = il_transport_run_script(t, script, args, &eo, &res, err);
	}
	if (!r) {
		const char *o = il_buf_str(&res.out), *f = strstr(o, "idlelab.boot_fail:");

		if (res.exit_code || f)
			r = il_err_set(err, IL_ECHILD, "host '%s': %s: %.*s%s%.300s", b->cfg->name,
				       il_boot_method_name(c->method), f ? (int)strcspn(f + 18, "\n") : 0,
				       f ? f + 18 : "", f ? "; " : "", il_buf_str(&res.err));
		else
			for (const char *l = o; (l = strstr(l, "idlelab.boot:")); l += 13)
				step(b, "remote", "%.*s", (int)strcspn(l + 13, "\n"), l + 13);
	}
out:
	il_transport_result_release(&res);
	il_buf_release(&dirb);
	il_buf_release(&owned);
	free(script);
	free(wd);
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

static int reboot_host(struct run *b, struct il_transport *t, struct il_err *err)
{
	char *av[] = { (char *)"sh", (char *)"-c", (char *)"(sleep 1; sync; reboot) </dev/null >/dev/null 2>&1 &", NULL };
	int r = remote(t, av, true, 30, NULL, err);

	if (!r)
		step(b, "trigger", "reboot");
	return r;
}

/* ---- the boot methods: each one's way into the target kernel and back to the host's own ---- */


/* a lab instance: a restart with the image (or its own kernel) */
static int lab_restart(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	const struct il_boot_cfg *c = &b->cfg->boot;

	if (!b->o->lab)
		return il_err_set(err, IL_EUNSUPPORTED, "host '%s' is lab instance '%s': booting it needs the lab "
				  "(il_boot_opts.lab)", b->cfg->name, c->lab);
	il_transport_free(*t);
	*t = NULL;
	*started = true;
	step(b, "trigger", "lab '%s' restarted with %s", c->lab, b->tgt->image ? b->tgt->image : "its own kernel");
	return b->o->lab->restart(b->o->cache_dir, c->lab, b->tgt->image, c->timeout_s, err);
}

/* the user's command: boot.argv, or boot.back_argv back to the own kernel */
static int run_command(struct run *b, const struct il_strlist *tpl, bool *started, struct il_err *err)
{
	const char *vals[IL_PH_N];
	char port[16], *detail = NULL;
	int r;

	target_vals(b->cfg, b->tgt, vals, port);
	r = command_hook(tpl, vals, b->cfg->boot.timeout_s, "boot", b->o, &detail, err);
	*started = !r;
	if (!r)
		step(b, "trigger", "%s", detail ? detail : "");
	free(detail);
	if (r)
		il_err_prefix(err, "host '%s': ", b->cfg->name);
	return r;
}

static int connected(struct run *b, struct il_transport **t, struct il_err *err)
{
	if (!*t && connect_now(b, t, err))
		return il_err_prefix(err, "host '%s': cannot reach it to boot: ", b->cfg->name);
	return 0;
}

static int command_boot(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	(void)t;
	return run_command(b, &b->cfg->boot.argv, started, err);
}

/* kexec, grub-reboot: upload, then runners/boot.sh; the reboot starts a second later */
static int remote_boot(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	int r;

	if ((r = connected(b, t, err)) || (r = deploy_remote(b, *t, err)))
		return r;
	*started = true;
	step(b, "trigger", "%s", methods[b->cfg->boot.method].trigger_step);
	return 0;
}

/* back to the host's own kernel: a plain reboot */
static int reboot_back(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	int r;

	if ((r = connected(b, t, err)))
		return r;
	*started = !(r = reboot_host(b, *t, err));
	return r;
}

static int command_back(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	if (!b->cfg->boot.back_argv.n)
		return reboot_back(b, t, started, err);
	return run_command(b, &b->cfg->boot.back_argv, started, err);
}

static const struct method_ops methods[IL_BOOT_N] = {
	[IL_BOOT_NONE] = { 0 },
	[IL_BOOT_LABVM] = { .boot = lab_restart, .back = lab_restart },
	[IL_BOOT_KEXEC] = { .boot = remote_boot, .back = reboot_back, .script_mode = "kexec", .trigger_step = "kexec -e" },
	[IL_BOOT_GRUB] = { .boot = remote_boot, .back = reboot_back, .script_mode = "grub",
			   .trigger_step = "reboot (one-shot GRUB entry)" },
	[IL_BOOT_COMMAND] = { .boot = command_boot, .back = command_back },
};

static int trigger(struct run *b, struct il_transport **t, bool *started, struct il_err *err)
{
	const struct method_ops *m = &methods[b->cfg->boot.method];

	/* a lab instance goes back to its own kernel by a restart, whatever the method */
	if (b->cfg->boot.lab && !b->tgt->image)
		return lab_restart(b, t, started, err);
	return (b->tgt->image ? m->boot : m->back)(b, t, started, err);
}

int il_boot_run(const struct il_host_cfg *cfg, const struct il_boot_target *tgt, const struct il_boot_opts *o,
		json_t **steps, struct il_err *err)
{
	struct il_boot_opts dflt = { 0 };
	struct run b = { cfg, o ? o : &dflt, tgt, json_array(), now_s(), { 0 }, false, false };
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

		il_str_lcpy(prev, err ? err->msg : "", sizeof(prev));
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
	return !r && b.lost ? il_err_oom(err) : r;
}
