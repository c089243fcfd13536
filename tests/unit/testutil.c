// SPDX-License-Identifier: GPL-2.0-or-later
/* Test helpers (see testutil.h). */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "util/buf.h"

const char *tu_fixture(const char *name)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/sysfs/%s", src ? src : ".", name);
	return path;
}

const char *tu_srcpath(const char *rel)
{
	static char path[4][4096];
	static unsigned next;
	const char *src = getenv("IL_SRCDIR");
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", src ? src : ".", rel);
	return p;
}

const char *tu_fixture_abs(const char *rel)
{
	static char path[4][4096];
	static unsigned next;
	char *p = path[next++ % 4];
	const char *base = tu_srcpath("tests/fixtures");

	if (!realpath(base, p))
		fail_msg("no fixtures at %s", base);
	snprintf(p + strlen(p), sizeof(path[0]) - strlen(p), "/%s", rel);
	return p;
}

char *tu_read(const char *path, size_t *len)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	if (il_buf_read_file(&b, path, 0, &err))
		fail_msg("%s", err.msg);
	if (len)
		*len = b.len;
	return il_buf_detach(&b);
}

char *tu_tmpdir(void)
{
	char *t = strdup("/tmp/idlelab-test-XXXXXX");

	assert_non_null(t);
	assert_non_null(mkdtemp(t));
	return t;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void tu_rmtree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
}

static void write_file(const char *root, const char *path, size_t plen, const char *val, size_t vlen, const char *mode)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%.*s", root, (int)plen, path);
	mkdirs(full);
	f = fopen(full, mode);
	if (!f)
		fail_msg("open %s: %s", full, strerror(errno));
	fwrite(val, 1, vlen, f);
	fputc('\n', f);
	fclose(f);
}

void tu_write(const char *root, const char *path, const char *text)
{
	write_file(root, path, strlen(path), text, strlen(text), "w");
}

void tu_write_raw(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

void tu_materialize(const char *dump_path, const char *root)
{
	char *text = tu_read(dump_path, NULL);
	char *line = text;

	while (*line) {
		char *nl = strchr(line, '\n'), *colon;
		char *from = line;

		if (!nl)
			fail_msg("%s: no final newline", dump_path);
		*nl = '\0';
		if (!strncmp(line, "/sys/class/powercap/", 20))
			from = strchr(line + 20, '/'); /* zone names contain ':' */
		colon = from ? strchr(from, ':') : NULL;
		if (!colon)
			fail_msg("%s: bad line '%s'", dump_path, line);
		write_file(root, line, (size_t)(colon - line), colon + 1, strlen(colon + 1), "a");
		line = nl + 1;
	}
	free(text);
}

void tu_parse_fixture(struct il_snapshot *out, const char *name)
{
	struct il_err err = { 0 };
	size_t len;
	char *text = tu_read(tu_fixture(name), &len);
	int r = il_snapshot_parse(out, text, len, name, &err);

	free(text);
	if (r)
		fail_msg("%s: %s", name, err.msg);
}

/* ---- sshd harness ---- */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

int tu_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t n = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &n))
		fail_msg("cannot find a free port");
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static int run_quiet(const char *cmd)
{
	int r = system(cmd);

	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

static bool port_open(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a));

	if (fd >= 0)
		close(fd);
	return ok;
}

static const char *spawn_sshd(struct tu_sshd *s)
{
	char cfg[300], log[300];

	snprintf(cfg, sizeof(cfg), "%s/sshd_config", s->dir);
	snprintf(log, sizeof(log), "%s/sshd.log", s->dir);
	s->pid = fork();
	if (s->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", cfg, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {
		int st;
		bool open = port_open(s->port);

		/* listening, and the listener is this sshd: one that could not bind the port exits */
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			return "sshd exited at start (see its log)";
		}
		if (open)
			return NULL;
		usleep(50000);
	}
	return "sshd did not start listening within 5 s";
}

const char *tu_sshd_start(struct tu_sshd *s)
{
	char cmd[1024], path[400];
	FILE *f;
	char *dir;

	memset(s, 0, sizeof(*s));
	if (access("/usr/sbin/sshd", X_OK))
		return "/usr/sbin/sshd not installed (Debian openssh-server; run make deps)";
	if (geteuid() == 0)
		mkdir("/run/sshd", 0755); /* privilege separation directory */
	dir = tu_tmpdir();
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	free(dir);
	s->port = tu_free_port();
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && ssh-keygen -q -t ed25519 -N '' -f hostkey && ssh-keygen -q -t ed25519 -N '' -f client && "
		 "ssh-keygen -q -t ed25519 -N '' -f wrong && cp client.pub authorized_keys",
		 s->dir);
	if (run_quiet(cmd))
		return "ssh-keygen failed";
	snprintf(path, sizeof(path), "%s/sshd_config", s->dir);
	f = fopen(path, "w");
	fprintf(f,
		"Port %d\nListenAddress 127.0.0.1\nHostKey %s/hostkey\nPidFile %s/sshd.pid\n"
		"AuthorizedKeysFile %s/authorized_keys\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
		"KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin yes\n"
		"Subsystem sftp internal-sftp\nLogLevel ERROR\nMaxStartups 200\nMaxSessions 200\n",
		s->port, s->dir, s->dir, s->dir);
	fclose(f);
	snprintf(s->client_key, sizeof(s->client_key), "%s/client", s->dir);
	snprintf(s->wrong_key, sizeof(s->wrong_key), "%s/wrong", s->dir);
	snprintf(s->known_hosts, sizeof(s->known_hosts), "%s/known_hosts", s->dir);
	snprintf(path, sizeof(path), "%s/hostkey.pub", s->dir);
	{
		char *pub = tu_read(path, NULL);
		char *sp = strchr(pub, ' ');

		sp = sp ? strchr(sp + 1, ' ') : NULL; /* drop the comment */
		if (sp)
			*sp = '\0';
		snprintf(s->host_pub, sizeof(s->host_pub), "%s", pub);
		free(pub);
	}
	f = fopen(s->known_hosts, "w");
	fprintf(f, "[127.0.0.1]:%d %s\n", s->port, s->host_pub);
	fclose(f);
	return spawn_sshd(s);
}

const char *tu_sshd_restart(struct tu_sshd *s)
{
	return spawn_sshd(s);
}

/*
 * pid and every descendant (found through /proc/N/stat), parents first: if
 * the command died before its sshd, sshd would report a clean exit-signal
 * instead of a lost connection.
 */
static void kill_tree(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t kids[256];
	size_t n = 0;

	while (d && (de = readdir(d)) && n < 256) {
		char path[300], buf[512];
		FILE *f;
		int child, ppid;

		child = atoi(de->d_name);
		if (child <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", child);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			char *rp = strrchr(buf, ')');

			if (rp && sscanf(rp + 2, "%*c %d", &ppid) == 1 && ppid == pid)
				kids[n++] = child;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	kill(pid, SIGKILL);
	for (size_t i = 0; i < n; i++)
		kill_tree(kids[i]);
}

void tu_sshd_kill(struct tu_sshd *s)
{
	if (s->pid > 0) {
		kill_tree(s->pid);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

void tu_sshd_stop(struct tu_sshd *s)
{
	tu_sshd_kill(s);
	if (s->dir[0])
		tu_rmtree(s->dir);
	s->dir[0] = '\0';
}

void tu_gov_round_trip(struct il_sysfs *fs, struct il_sysfs *check, const struct il_idle_saved *saved, const char *other)
{
	struct il_err err = { 0 };
	char *now = NULL;

	assert_int_equal(il_govctl_set(fs, other, &err), 0);
	assert_int_equal(il_govctl_get(check, &now, &err), 0);
	assert_string_equal(now, other);
	free(now);
	assert_int_equal(il_govctl_restore(fs, saved, &err), 0);
	assert_int_equal(il_govctl_get(check, &now, &err), 0);
	assert_string_equal(now, saved->governor);
	free(now);
}

int tu_snapshot_setup(void **state)
{
	struct il_snapshot *s = malloc(sizeof(*s));

	assert_non_null(s);
	tu_parse_fixture(s, *state);
	*state = s;
	return 0;
}

int tu_snapshot_teardown(void **state)
{
	il_snapshot_release(*state);
	free(*state);
	return 0;
}

void tu_journal(const char *dir, const char *const *vars, size_t nv, bool aa, const char *const *mets, size_t nm,
		const char *keys, int iterations, const char *iterations_json,
		double (*val)(size_t v, size_t m, int i, void *ctx), void *ctx)
{
	struct il_buf j = IL_BUF_INIT;
	char path[4096];
	FILE *f;
	int seq = 0;

	il_buf_printf(&j, "{\"type\":\"run-start\",\"plan_name\":\"decide\",\"reference\":\"%s\",\"variants\":[", vars[0]);
	for (size_t v = 0; v < nv; v++)
		il_buf_printf(&j, "%s{\"label\":\"%s\",\"kernel\":\"running\",\"governor\":\"%s%zu\",\"disable\":[]}",
			      v ? "," : "", vars[v], "g", aa && v == 1 ? (size_t)0 : v);
	il_buf_adds(&j, "],\"workloads\":{\"w\":{\"workload\":\"w\",\"params\":{},\"metrics\":[");
	for (size_t m = 0; m < nm; m++)
		il_buf_printf(&j, "%s{\"name\":\"%s\",\"unit\":\"us\",\"better\":\"lower\"}", m ? "," : "", mets[m]);
	il_buf_adds(&j, "]");
	if (keys)
		il_buf_printf(&j, ",\"key_metrics\":%s", keys);
	il_buf_printf(&j, "}},\"iterations\":%d", iterations);
	if (iterations_json)
		il_buf_printf(&j, ",\"adaptive\":%s", iterations_json);
	il_buf_adds(&j, ",\"warmup\":0,\"order\":\"interleave\"}\n"
			"{\"type\":\"host\",\"host\":\"h\",\"kind\":\"ssh\",\"fingerprint\":{}}\n");
	for (int i = 0; i < iterations; i++)
		for (size_t v = 0; v < nv; v++) {
			il_buf_printf(&j, "{\"type\":\"sample\",\"seq\":%d,\"final\":true,\"status\":\"ok\","
					  "\"variant\":\"%s\",\"workload\":\"w\",\"iteration\":%d,\"metrics\":{",
				      seq++, vars[v], i);
			for (size_t m = 0; m < nm; m++)
				il_buf_printf(&j, "%s\"%s\":%.17g", m ? "," : "", mets[m], val(v, m, i, ctx));
			il_buf_adds(&j, "}}\n");
		}
	snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(j.p, 1, j.len, f), j.len);
	assert_int_equal(fclose(f), 0);
	il_buf_release(&j);
}

/* ---- jansson out of memory ---- */

static long oom_left = -1;
static bool oom_hit;

static void *oom_malloc(size_t n)
{
	if (oom_left >= 0 && oom_left-- == 0) {
		oom_hit = true;
		return NULL;
	}
	return malloc(n);
}

void tu_json_oom(long n)
{
	oom_left = n;
	oom_hit = false;
	json_set_alloc_funcs(oom_malloc, free);
}

bool tu_json_oom_end(void)
{
	json_set_alloc_funcs(malloc, free);
	oom_left = -1;
	return oom_hit;
}

long tu_oom_stride(void)
{
	const char *s = getenv("IL_TEST_OOM_STRIDE");
	long v = s ? strtol(s, NULL, 10) : 1;

	return v > 0 ? v : 1;
}

size_t tu_count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}
