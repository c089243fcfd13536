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

#define now_s il_mono_s

static char *run_dir(const struct il_lab_opts *o, const struct il_lab_ref *l)
{
	return il_str_dup_printf("%s/lab/run/%s", o->cache_dir, l->name);
}

char *il_lab_run_dir(const struct il_lab_opts *o)
{
	struct il_lab_ref l = { 0 };
	char *d = il_lab_ref_open(&l, o, NULL) ? NULL : run_dir(o, &l);

	il_lab_ref_release(&l);
	return d;
}

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
	rd = run_dir(o, &l), pidfile = il_str_dup_printf("%s/qemu.pid", rd), sp = il_str_dup_printf("%s/state.json", rd);
	st = json_load_file(sp, 0, &je);
	pid = read_pid(pidfile);
	state = !st ? "stopped" : our_qemu(pid, pidfile) ? "running" : "crashed";
	tail = console_tail(rd, 15);
	host = il_lab_host_name(l.name);
	*out = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s}", "name", l.name, "host", host, "arch", l.A->name, "state",
			 state, "pid", st ? json_integer(pid) : json_null(), "port",
			 st ? json_incref(json_object_get(st, "port")) : json_null(), "run_dir", rd, "console_tail", tail);
	if (st) {
		json_object_set(*out, "image", json_object_get(st, "image"));
		if (json_object_get(st, "table"))
			json_object_set(*out, "table", json_object_get(st, "table"));
		if (json_object_get(st, "kernel"))
			json_object_set(*out, "kernel", json_object_get(st, "kernel"));
	}
	json_decref(st);
	il_lab_ref_release(&l), free(host), free(rd), free(pidfile), free(sp), free(tail);
	return 0;
}

int il_lab_down(const struct il_lab_opts *o, struct il_err *err)
{
	struct il_lab_ref l = { 0 };
	char *rd, *pidfile, *sp;
	pid_t pid;

	int lr;

	if ((lr = il_lab_ref_open(&l, o, err)))
		return il_lab_ref_release(&l), lr;
	rd = run_dir(o, &l), pidfile = il_str_dup_printf("%s/qemu.pid", rd), sp = il_str_dup_printf("%s/state.json", rd);
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
				il_exec_result_release(&res);
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

int il_lab_up(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, json_t **state, struct il_err *err)
{
	double t0 = now_s(), tboot = 0;
	struct il_lab_ref l = { 0 };
	char *dir = NULL, *rd = NULL, *pidfile = NULL, *console = NULL, *kh = NULL, *sp = NULL, *img = NULL;
	char *hostpub = NULL, *table = NULL;
	int port, r, timeout = o->timeout_s > 0 ? o->timeout_s : 180;
	struct il_buf pub = IL_BUF_INIT, append = IL_BUF_INIT;

	*state = NULL;
	if ((r = il_lab_ref_open(&l, o, err)))
		goto out;
	rd = run_dir(o, &l), pidfile = il_str_dup_printf("%s/qemu.pid", rd), console = il_str_dup_printf("%s/console.log", rd);
	kh = il_str_dup_printf("%s/known_hosts", rd), sp = il_str_dup_printf("%s/state.json", rd);
	if (our_qemu(read_pid(pidfile), pidfile)) {
		r = il_err_set(err, IL_EINVAL, "lab '%s' is already running (pid %d): 'idlelab lab down --name %s' first",
			       l.name, (int)read_pid(pidfile), l.name);
		goto out;
	}
	if (l.a != IL_LAB_X86_64 && o->table && strcmp(o->table, "default")) {
		r = il_err_set(err, IL_EINVAL, "lab '%s': --table is for the x86_64 lab; the %s lab's idle states are %s/%s",
			       l.name, l.A->name, l.A->hosts_dir, l.A->idle_file);
		goto out;
	}
	if ((r = il_lab_build(o, cb, ctx, &dir, err)))
		goto out;
	img = o->image ? strdup(o->image) : il_str_dup_printf("%s/%s", dir, l.A->target);
	il_buf_printf(&append, "console=%s rdinit=/init panic=-1", l.A->console);
	if (l.a == IL_LAB_X86_64) {
		char *kept = il_str_dup_printf("%s/idle-tables.json", dir);
		struct il_ssdt_tables t = { 0 };
		const struct il_ssdt_table *x;

		table = strdup(o->table && *o->table ? o->table : "default");
		if (!(r = il_ssdt_tables_load(&t, kept, err)) && !(x = il_ssdt_find(&t, table))) {
			struct il_buf names = IL_BUF_INIT;

			for (size_t i = 0; i < t.n; i++)
				il_buf_printf(&names, "%s%s", i ? ", " : "", t.v[i].name);
			r = il_err_set(err, IL_EINVAL, "lab '%s': no idle table '%s' in %s/%s (tables: %s)", l.name, table,
				       l.A->hosts_dir, l.A->idle_file, il_buf_str(&names));
			il_buf_release(&names);
		} else if (!r) {
			il_buf_adds(&append, " ");
			r = il_ssdt_cmdline(x, &append);
		}
		il_ssdt_tables_release(&t);
		free(kept);
		if (r)
			goto out;
	}
	hostpub = il_str_dup_printf("%s/host_key.pub", dir);
	{
		char *m[] = { (char *)"mkdir", (char *)"-p", rd, NULL };

		if ((r = il_lab_tool(m, 0, "mkdir", err)))
			goto out;
	}
	unlink(sp);
	unlink(console);
	if ((port = free_port()) < 0) {
		r = il_err_set(err, IL_EIO, "no free loopback port");
		goto out;
	}
	/* the pinned host key, for exactly this port */
	if ((r = il_buf_read_file(&pub, hostpub, 4096, err)))
		goto out;
	while (pub.len && pub.p[pub.len - 1] == '\n')
		pub.p[--pub.len] = 0;
	{
		char *line = il_str_dup_printf("[127.0.0.1]:%d %s\n", port, pub.p);

		r = il_write_file_atomic(kh, line, strlen(line), err);
		free(line);
		if (r)
			goto out;
	}
	il_lab_step(cb, ctx, "booting", t0);
	tboot = now_s();
	{
		char cpus[16], mem[16], *initrd = il_str_dup_printf("%s/initramfs.cpio.gz", dir);
		char *net = il_str_dup_printf("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22", port), *ser = il_str_dup_printf("file:%s", console);
		char *nic = il_str_dup_printf("%s,netdev=n0", l.A->nic), *what = il_str_dup_printf("%s (apt-get install %s)", l.A->qemu, l.A->qemu_pkg);
		/* the firmware's idle states: arm64 a device tree, x86_64 the table's SSDT */
		char *fw = l.a == IL_LAB_X86_64 ? il_str_dup_printf("file=%s/cst-%s.aml", dir, table) : il_str_dup_printf("%s/labvm.dtb", dir);
		char *av[] = { (char *)l.A->qemu, (char *)"-M", (char *)l.A->machine, (char *)"-cpu", (char *)l.A->cpu,
			       (char *)"-smp", cpus, (char *)"-m", mem, (char *)"-accel", (char *)"tcg,thread=multi",
			       (char *)"-kernel", img, (char *)"-initrd", initrd,
			       (char *)(l.a == IL_LAB_X86_64 ? "-acpitable" : "-dtb"), fw, (char *)"-append",
			       (char *)il_buf_str(&append), (char *)"-netdev", net, (char *)"-device", nic, (char *)"-display",
			       (char *)"none", (char *)"-monitor", (char *)"none", (char *)"-serial", ser, (char *)"-no-reboot",
			       (char *)"-daemonize", (char *)"-pidfile", pidfile, NULL };

		snprintf(cpus, sizeof(cpus), "%d", il_lab_cpus(o));
		snprintf(mem, sizeof(mem), "%d", il_lab_mem(o));
		r = il_lab_tool(av, 60000, what, err);
		free(initrd), free(net), free(ser), free(nic), free(what), free(fw);
		if (r)
			goto out;
	}
	{
		json_t *st = json_pack("{s:s,s:s,s:i,s:i,s:s,s:s,s:s,s:s,s:i}", "name", l.name, "arch", l.A->name, "port",
				       port, "pid", (int)read_pid(pidfile), "identity", "", "known_hosts", kh, "image", img,
				       "lab_dir", dir, "cpus", il_lab_cpus(o));
		char *id = il_str_dup_printf("%s/lab_key", dir), *txt;

		json_object_set_new(st, "mem_mb", json_integer(il_lab_mem(o)));
		/* the source tree it was built from: a restart (a kernel variant's boot) may come from any directory */
		{
			char *srcabs = realpath(il_lab_src(o), NULL);

			json_object_set_new(st, "source", json_string(srcabs ? srcabs : il_lab_src(o)));
			free(srcabs);
		}
		if (table)
			json_object_set_new(st, "table", json_string(table));
		/* the tree it runs (labbuild.c's kernel.json): later boots and `try` take the same */
		{
			char *kj = il_str_dup_printf("%s/kernel.json", dir);
			json_error_t je;
			json_t *k = kj ? json_load_file(kj, 0, &je) : NULL;

			if (json_is_object(k))
				json_object_set(st, "kernel", k);
			json_decref(k);
			free(kj);
		}
		json_object_set_new(st, "identity", json_string(id));
		txt = json_dumps(st, JSON_INDENT(2));
		r = il_write_file_atomic(sp, txt, strlen(txt), err);
		free(txt), free(id);
		if (r) {
			json_decref(st);
			goto out;
		}
		*state = st;
	}
	/* init's banner first: an SSH probe before the guest network is up can hang in slirp */
	for (double end = now_s() + timeout;;) {
		char *tail = console_tail(rd, 200);
		bool ready = strstr(tail, "LABVM-READY") != NULL;

		if (!ready && !our_qemu(read_pid(pidfile), pidfile)) {
			r = il_err_set(err, IL_ECHILD, "lab '%s': QEMU exited while booting; console:\n%s", l.name, tail);
			free(tail);
			goto fail;
		}
		free(tail);
		if (ready)
			break;
		if (now_s() > end) {
			char *t = console_tail(rd, 20);

			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': no LABVM-READY on the console after %d s (wrong kernel "
				       "image?); console:\n%s", l.name, timeout, t);
			free(t);
			goto fail;
		}
		usleep(100000);
	}
	for (double end = now_s() + timeout;;) {
		struct il_host_cfg cfg;
		struct il_transport *t = NULL;
		struct il_err e2 = { 0 };
		int ok = 0;

		if (!il_lab_host(&cfg, o->cache_dir, l.name, &e2)) {
			cfg.connect_timeout_s = 5;
			if (!il_transport_open(&t, &cfg, &e2)) {
				char *av[] = { (char *)"true", NULL };
				struct il_exec_result res;

				ok = !il_transport_exec(t, av, NULL, &res, &e2) && !res.exit_code;
				il_exec_result_release(&res);
				il_transport_free(t);
			}
			il_host_release(&cfg);
		}
		if (ok)
			break;
		if (e2.code == IL_EHOSTKEY) {
			r = il_err_set(err, IL_EHOSTKEY, "lab '%s': %s", l.name, e2.msg);
			goto fail;
		}
		if (now_s() > end || !our_qemu(read_pid(pidfile), pidfile)) {
			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': SSH did not answer within %d s: %s", l.name, timeout,
				       e2.msg);
			goto fail;
		}
		usleep(300000);
	}
	json_object_set_new(*state, "ssh_ready_s", json_real(now_s() - t0));
	/* from QEMU's start: what a boot costs once the build is cached */
	json_object_set_new(*state, "boot_to_ssh_s", json_real(now_s() - tboot));
	il_lab_step(cb, ctx, "ssh ready", t0);
	goto out;
fail:
	json_decref(*state);
	*state = NULL;
	il_lab_down(o, NULL);
out:
	il_buf_release(&pub);
	il_buf_release(&append);
	il_lab_ref_release(&l), free(table);
	free(dir), free(rd), free(pidfile), free(console), free(kh), free(sp), free(img), free(hostpub);
	return r;
}
