// SPDX-License-Identifier: GPL-2.0-or-later
/* The lab's instances: boot one (building the lab first: lab/labbuild.c), its state, its host, stop it. */
#include "lab/lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/transport.h"
#include "lab/labtool.h"
#include "lab/ssdt.h"
#include "util/buf.h"
#include "util/proc.h"
#include "util/str.h"
#include "util/jsonfile.h"

#define now_s il_clock_mono_s

static int free_port(void)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) && !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Our QEMU: alive and still the process we started (its command line names our pidfile). */
static bool our_qemu(pid_t pid, const char *pidfile)
{
	char path[64];
	struct il_buf cl = IL_BUF_INIT;
	bool ok = false;

	if (pid <= 0 || kill(pid, 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!il_buf_read_file(&cl, path, 1 << 20, NULL)) {
		for (size_t i = 0; i < cl.len; i++)
			if (!cl.p[i])
				cl.p[i] = ' ';
		ok = strstr(il_buf_str(&cl), "qemu-system-") && strstr(il_buf_str(&cl), pidfile);
	}
	il_buf_release(&cl);
	return ok;
}

static pid_t read_pid(const char *pidfile)
{
	struct il_buf b = IL_BUF_INIT;
	pid_t pid = -1;

	if (!il_buf_read_file(&b, pidfile, 64, NULL))
		pid = (pid_t)atoi(il_buf_str(&b));
	il_buf_release(&b);
	return pid;
}

static char *console_tail(const char *rd, int lines)
{
	char *path = il_str_dup_printf("%s/console.log", rd);
	struct il_buf b = IL_BUF_INIT;
	char *res;
	size_t i;

	il_buf_read_file(&b, path, (size_t)16 << 20, NULL);
	free(path);
	for (i = b.len; i > 0 && lines >= 0; i--)
		if (b.p[i - 1] == '\n' && i < b.len)
			lines--;
	res = strdup(b.len ? b.p + i : "");
	il_buf_release(&b);
	return res;
}

/* "idlelab lab up [--arch x86_64] [--name NAME]" for an instance; caller frees. */
static char *up_command(const char *instance)
{
	enum il_lab_arch a = il_lab_arch_of_instance(instance);
	const char *def = il_lab_archs[a].instance, *rest = instance + strlen(def);

	if (a == IL_LAB_ARM64)
		return il_str_dup_printf("idlelab lab up%s%s", strcmp(instance, def) ? " --name " : "", strcmp(instance, def) ? instance : "");
	return il_str_dup_printf("idlelab lab up --arch %s%s%s", il_lab_archs[a].name, *rest ? " --name " : "", *rest ? rest + 1 : "");
}

int il_lab_host(struct il_host_cfg *out, const char *cache_dir, const char *name, struct il_err *err)
{
	struct il_lab_opts o = { .cache_dir = cache_dir, .name = name };
	char *rd = il_lab_run_dir(&o), *sp = rd ? il_str_dup_printf("%s/state.json", rd) : NULL;
	json_error_t je;
	json_t *st = sp ? json_load_file(sp, 0, &je) : NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!rd) {
		r = il_err_set(err, IL_EINVAL, "lab host '%s': not a lab instance name", name);
		goto out;
	}
	if (!st) {
		char *up = up_command(name);

		r = il_err_set(err, IL_ENOTFOUND, "lab host '%s' is not running (start it with '%s')", name, up);
		free(up);
		goto out;
	}
	out->name = strdup(name);
	out->address = strdup("127.0.0.1");
	out->port = (int)json_integer_value(json_object_get(st, "port"));
	out->user = strdup("root");
	out->identity = strdup(json_string_value(json_object_get(st, "identity")) ?: "");
	out->known_hosts = strdup(json_string_value(json_object_get(st, "known_hosts")) ?: "");
	out->host_key_policy = IL_HOSTKEY_STRICT;
	out->connect_timeout_s = 10;
	out->command_timeout_s = 600;
	out->quiesce_s = 1;
	out->path = strdup(sp);
	out->boot.method = IL_BOOT_LABVM;
	out->boot.lab = strdup(name);
	out->boot.timeout_s = 180;
	json_decref(st);
out:
	free(rd), free(sp);
	return r;
}

int il_lab_status(const struct il_lab_opts *o, json_t **out, struct il_err *err)
{
	static const char *const kept[] = { "image", "table", "kernel" };
	struct il_lab_ref l = { 0 };
	char *rd, *pidfile, *sp, *tail, *host;
	json_error_t je;
	json_t *st;
	pid_t pid;
	const char *state;

	*out = NULL;
	int lr;

	if ((lr = il_lab_ref_open(&l, o, err)))
		return il_lab_ref_release(&l), lr;
	rd = il_lab_ref_dir(o, &l), pidfile = il_str_dup_printf("%s/qemu.pid", rd), sp = il_str_dup_printf("%s/state.json", rd);
	st = json_load_file(sp, 0, &je);
	pid = read_pid(pidfile);
	state = !st ? "stopped" : our_qemu(pid, pidfile) ? "running" : "crashed";
	tail = console_tail(rd, 15);
	host = il_lab_host_name(l.name);
	*out = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s}", "name", l.name, "host", host, "arch", l.A->name, "state",
			 state, "pid", st ? json_integer(pid) : json_null(), "port",
			 st ? json_incref(json_object_get(st, "port")) : json_null(), "run_dir", rd, "console_tail", tail);
	/* what the instance was brought up with, as its state.json says (each only when there) */
	for (size_t i = 0; *out && st && i < sizeof(kept) / sizeof(kept[0]); i++) {
		json_t *v = json_object_get(st, kept[i]);

		if (v && json_object_set(*out, kept[i], v))
			json_decref(*out), *out = NULL;
	}
	json_decref(st);
	il_lab_ref_release(&l), free(host), free(rd), free(pidfile), free(sp), free(tail);
	return *out ? 0 : il_err_oom(err);
}

int il_lab_down(const struct il_lab_opts *o, struct il_err *err)
{
	struct il_lab_ref l = { 0 };
	char *rd, *pidfile, *sp;
	pid_t pid;

	int lr;

	if ((lr = il_lab_ref_open(&l, o, err)))
		return il_lab_ref_release(&l), lr;
	rd = il_lab_ref_dir(o, &l), pidfile = il_str_dup_printf("%s/qemu.pid", rd), sp = il_str_dup_printf("%s/state.json", rd);
	pid = read_pid(pidfile);
	if (our_qemu(pid, pidfile)) {
		struct il_host_cfg cfg;
		struct il_transport *t = NULL;

		/* a clean poweroff first; QEMU exits with the guest (-no-reboot) */
		if (!il_lab_host(&cfg, o->cache_dir, l.name, NULL)) {
			cfg.connect_timeout_s = 3;
			if (!il_transport_open(&t, &cfg, NULL)) {
				char *av[] = { (char *)"poweroff", (char *)"-f", NULL };
				struct il_exec_opts eo = { .timeout_ms = 3000 };
				struct il_exec_result res;

				il_transport_exec(t, av, &eo, &res, NULL);
				il_transport_result_release(&res);
				il_transport_free(t);
			}
			il_host_release(&cfg);
		}
		for (int i = 0; i < 30 && our_qemu(pid, pidfile); i++)
			usleep(100000);
		if (our_qemu(pid, pidfile)) {
			kill(pid, SIGTERM);
			for (int i = 0; i < 30 && our_qemu(pid, pidfile); i++)
				usleep(100000);
			if (our_qemu(pid, pidfile))
				kill(pid, SIGKILL);
		}
	}
	unlink(sp);
	unlink(pidfile);
	il_lab_ref_release(&l), free(rd), free(pidfile), free(sp);
	return 0;
}

/* A lab coming up: what the steps of il_lab_up share. */
struct up {
	const struct il_lab_opts *o;
	il_lab_cb cb;
	void *ctx;
	struct il_lab_ref l;
	char *dir;             /* the build (il_lab_build) */
	char *rd, *pidfile, *console, *kh, *sp; /* the instance's run directory and its files */
	char *img;             /* the kernel image it boots */
	char *table;           /* x86_64: the idle table its firmware declares */
	struct il_buf append;  /* the kernel command line */
	int port, timeout;
	double t0, tboot;
};

static void up_release(struct up *u)
{
	il_buf_release(&u->append);
	il_lab_ref_release(&u->l);
	free(u->dir), free(u->rd), free(u->pidfile), free(u->console), free(u->kh), free(u->sp), free(u->img);
	free(u->table);
}

/* The instance, its files, and what refuses it before anything is built: running already, a table of another arch's. */
static int up_open(struct up *u, struct il_err *err)
{
	const struct il_lab_opts *o = u->o;
	struct il_lab_ref *l = &u->l;
	int r;

	if ((r = il_lab_ref_open(l, o, err)))
		return r;
	u->rd = il_lab_ref_dir(o, l);
	if (!u->rd || !(u->pidfile = il_str_dup_printf("%s/qemu.pid", u->rd)) ||
	    !(u->console = il_str_dup_printf("%s/console.log", u->rd)) || !(u->kh = il_str_dup_printf("%s/known_hosts", u->rd)) ||
	    !(u->sp = il_str_dup_printf("%s/state.json", u->rd)))
		return il_err_oom(err);
	if (our_qemu(read_pid(u->pidfile), u->pidfile))
		return il_err_set(err, IL_EINVAL, "lab '%s' is already running (pid %d): 'idlelab lab down --name %s' first",
				  l->name, (int)read_pid(u->pidfile), l->name);
	if (l->a != IL_LAB_X86_64 && o->table && strcmp(o->table, "default"))
		return il_err_set(err, IL_EINVAL, "lab '%s': --table is for the x86_64 lab; the %s lab's idle states are %s/%s",
				  l->name, l->A->name, l->A->hosts_dir, l->A->idle_file);
	return 0;
}

/* x86_64: the idle table's kernel arguments (lab/ssdt.h), from the tables the build kept. */
static int up_idle_table(struct up *u, struct il_err *err)
{
	char *kept = il_str_dup_printf("%s/idle-tables.json", u->dir);
	struct il_ssdt_tables t = { 0 };
	const struct il_ssdt_table *x;
	int r;

	u->table = strdup(u->o->table && *u->o->table ? u->o->table : "default");
	if (!kept || !u->table) {
		free(kept);
		return il_err_oom(err);
	}
	if (!(r = il_ssdt_tables_load(&t, kept, err)) && !(x = il_ssdt_find(&t, u->table))) {
		struct il_buf names = IL_BUF_INIT;

		for (size_t i = 0; i < t.n; i++)
			il_buf_printf(&names, "%s%s", i ? ", " : "", t.v[i].name);
		r = il_err_set(err, IL_EINVAL, "lab '%s': no idle table '%s' in %s/%s (tables: %s)", u->l.name, u->table,
			       u->l.A->hosts_dir, u->l.A->idle_file, il_buf_str(&names));
		il_buf_release(&names);
	} else if (!r) {
		il_buf_adds(&u->append, " ");
		r = il_ssdt_cmdline(x, &u->append);
	}
	il_ssdt_tables_release(&t);
	free(kept);
	return r;
}

/* The image to boot and the kernel command line. */
static int up_cmdline(struct up *u, struct il_err *err)
{
	const struct il_lab_arch_info *A = u->l.A;

	u->img = u->o->image ? strdup(u->o->image) : il_str_dup_printf("%s/%s", u->dir, A->target);
	if (!u->img)
		return il_err_oom(err);
	il_buf_printf(&u->append, "console=%s rdinit=/init panic=-1", A->console);
	return u->l.a == IL_LAB_X86_64 ? up_idle_table(u, err) : 0;
}

/* A fresh run directory, a free loopback port, and the build's pinned host key for exactly that port. */
static int up_known_hosts(struct up *u, struct il_err *err)
{
	char *m[] = { (char *)"mkdir", (char *)"-p", u->rd, NULL };
	char *hostpub = il_str_dup_printf("%s/host_key.pub", u->dir), *line = NULL;
	struct il_buf pub = IL_BUF_INIT;
	int r;

	if (!hostpub)
		return il_err_oom(err);
	if ((r = il_lab_tool(m, 0, "mkdir", err)))
		goto out;
	unlink(u->sp);
	unlink(u->console);
	if ((u->port = free_port()) < 0) {
		r = il_err_set(err, IL_EIO, "no free loopback port");
		goto out;
	}
	if ((r = il_buf_read_file(&pub, hostpub, 4096, err)))
		goto out;
	while (pub.len && pub.p[pub.len - 1] == '\n')
		pub.p[--pub.len] = 0;
	if (!(line = il_str_dup_printf("[127.0.0.1]:%d %s\n", u->port, pub.p)))
		r = il_err_oom(err);
	else
		r = il_buf_write_file_atomic(u->kh, line, strlen(line), err);
out:
	free(line);
	free(hostpub);
	il_buf_release(&pub);
	return r;
}

/* QEMU, daemonized: the lab's machine with the firmware's idle states, SSH forwarded to u->port. */
static int up_qemu(struct up *u, struct il_err *err)
{
	const struct il_lab_arch_info *A = u->l.A;
	bool x86 = u->l.a == IL_LAB_X86_64;
	char cpus[16], mem[16], *initrd = il_str_dup_printf("%s/initramfs.cpio.gz", u->dir);
	char *net = il_str_dup_printf("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22", u->port);
	char *ser = il_str_dup_printf("file:%s", u->console), *nic = il_str_dup_printf("%s,netdev=n0", A->nic);
	char *what = il_str_dup_printf("%s (apt-get install %s)", A->qemu, A->qemu_pkg);
	/* the firmware's idle states: arm64 a device tree, x86_64 the table's SSDT */
	char *fw = x86 ? il_str_dup_printf("file=%s/cst-%s.aml", u->dir, u->table) : il_str_dup_printf("%s/labvm.dtb", u->dir);
	char *av[] = { (char *)A->qemu, (char *)"-M", (char *)A->machine, (char *)"-cpu", (char *)A->cpu,
		       (char *)"-smp", cpus, (char *)"-m", mem, (char *)"-accel", (char *)"tcg,thread=multi",
		       (char *)"-kernel", u->img, (char *)"-initrd", initrd, (char *)(x86 ? "-acpitable" : "-dtb"), fw,
		       (char *)"-append", (char *)il_buf_str(&u->append), (char *)"-netdev", net, (char *)"-device", nic,
		       (char *)"-display", (char *)"none", (char *)"-monitor", (char *)"none", (char *)"-serial", ser,
		       (char *)"-no-reboot", (char *)"-daemonize", (char *)"-pidfile", u->pidfile, NULL };
	int r;

	snprintf(cpus, sizeof(cpus), "%d", il_lab_cpus(u->o));
	snprintf(mem, sizeof(mem), "%d", il_lab_mem(u->o));
	if (!initrd || !net || !ser || !nic || !what || !fw || il_buf_error(&u->append))
		r = il_err_oom(err);
	else
		r = il_lab_tool(av, 60000, what, err);
	free(initrd), free(net), free(ser), free(nic), free(what), free(fw);
	return r;
}

/*
 * The running instance's state.json (il_lab_host reads it), *state its
 * copy. The source tree it was built from goes in: a restart (a kernel
 * variant's boot) may come from any directory; so does the tree it runs
 * (labbuild.c's kernel.json): later boots and `try` take the same.
 */
static int up_state(struct up *u, json_t **state, struct il_err *err)
{
	const struct il_lab_opts *o = u->o;
	json_t *st = json_pack("{s:s,s:s,s:i,s:i,s:s,s:s,s:s,s:s,s:i}", "name", u->l.name, "arch", u->l.A->name, "port",
			       u->port, "pid", (int)read_pid(u->pidfile), "identity", "", "known_hosts", u->kh, "image",
			       u->img, "lab_dir", u->dir, "cpus", il_lab_cpus(o));
	char *id = il_str_dup_printf("%s/lab_key", u->dir), *srcabs = realpath(il_lab_src(o), NULL);
	char *kj = il_str_dup_printf("%s/kernel.json", u->dir), *txt = NULL;
	json_error_t je;
	json_t *k = kj ? json_load_file(kj, 0, &je) : NULL;
	int bad = !st || !id, r;

	bad |= json_object_set_new(st, "mem_mb", json_integer(il_lab_mem(o)));
	bad |= json_object_set_new(st, "source", json_string(srcabs ? srcabs : il_lab_src(o)));
	if (u->table)
		bad |= json_object_set_new(st, "table", json_string(u->table));
	if (json_is_object(k))
		bad |= json_object_set(st, "kernel", k);
	bad |= json_object_set_new(st, "identity", json_string(id));
	if (bad || !(txt = il_json_dumps(st, JSON_INDENT(2))))
		r = il_err_oom(err);
	else
		r = il_buf_write_file_atomic(u->sp, txt, strlen(txt), err);
	if (!r)
		*state = st, st = NULL;
	json_decref(st), json_decref(k);
	free(txt), free(id), free(srcabs), free(kj);
	return r;
}

/* init's banner first: an SSH probe before the guest network is up can hang in slirp. */
static int up_wait_console(struct up *u, struct il_err *err)
{
	for (double end = now_s() + u->timeout;;) {
		char *tail = console_tail(u->rd, 200);
		bool ready = tail && strstr(tail, "LABVM-READY") != NULL;
		int r = 0;

		if (!ready && !our_qemu(read_pid(u->pidfile), u->pidfile))
			r = il_err_set(err, IL_ECHILD, "lab '%s': QEMU exited while booting; console:\n%s", u->l.name,
				       tail ? tail : "");
		free(tail);
		if (ready || r)
			return r;
		if (now_s() > end) {
			char *t = console_tail(u->rd, 20);

			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': no LABVM-READY on the console after %d s (wrong kernel "
				       "image?); console:\n%s", u->l.name, u->timeout, t ? t : "");
			free(t);
			return r;
		}
		usleep(100000);
	}
}

/* One `true` over SSH, as a run would connect: whether it answered (e2 says why not). */
static bool up_ssh_once(struct up *u, struct il_err *e2)
{
	struct il_host_cfg cfg;
	struct il_transport *t = NULL;
	bool ok = false;

	if (!il_lab_host(&cfg, u->o->cache_dir, u->l.name, e2)) {
		cfg.connect_timeout_s = 5;
		if (!il_transport_open(&t, &cfg, e2)) {
			char *av[] = { (char *)"true", NULL };
			struct il_exec_result res;

			ok = !il_transport_exec(t, av, NULL, &res, e2) && !res.exit_code;
			il_transport_result_release(&res);
			il_transport_free(t);
		}
		il_host_release(&cfg);
	}
	return ok;
}

static int up_wait_ssh(struct up *u, struct il_err *err)
{
	for (double end = now_s() + u->timeout;;) {
		struct il_err e2 = { 0 };

		if (up_ssh_once(u, &e2))
			return 0;
		if (e2.code == IL_EHOSTKEY)
			return il_err_set(err, IL_EHOSTKEY, "lab '%s': %s", u->l.name, e2.msg);
		if (now_s() > end || !our_qemu(read_pid(u->pidfile), u->pidfile))
			return il_err_set(err, IL_ETIMEOUT, "lab '%s': SSH did not answer within %d s: %s", u->l.name,
					  u->timeout, e2.msg);
		usleep(300000);
	}
}

/* Booted: how long it took, from the start and (what a boot costs once the build is cached) from QEMU's start. */
static int up_timings(struct up *u, json_t *state, struct il_err *err)
{
	double now = now_s();

	if (json_object_set_new(state, "ssh_ready_s", json_real(now - u->t0)) ||
	    json_object_set_new(state, "boot_to_ssh_s", json_real(now - u->tboot)))
		return il_err_oom(err);
	return 0;
}

int il_lab_up(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, json_t **state, struct il_err *err)
{
	struct up u = { .o = o, .cb = cb, .ctx = ctx, .append = IL_BUF_INIT, .t0 = now_s(),
			.timeout = o->timeout_s > 0 ? o->timeout_s : 180 };
	int r;

	*state = NULL;
	if (!(r = up_open(&u, err)) && !(r = il_lab_build(o, cb, ctx, &u.dir, err)) && !(r = up_cmdline(&u, err)) &&
	    !(r = up_known_hosts(&u, err))) {
		il_lab_step(cb, ctx, "booting", u.t0);
		u.tboot = now_s();
		if (!(r = up_qemu(&u, err)))
			r = up_state(&u, state, err);
	}
	if (!r && ((r = up_wait_console(&u, err)) || (r = up_wait_ssh(&u, err)) || (r = up_timings(&u, *state, err)))) {
		/* it came up but not all the way: stopped, never left half running */
		json_decref(*state);
		*state = NULL;
		il_lab_down(o, NULL);
	}
	if (!r)
		il_lab_step(cb, ctx, "ssh ready", u.t0);
	up_release(&u);
	return r;
}
