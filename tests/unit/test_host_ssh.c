// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ssh transport against a real OpenSSH sshd on 127.0.0.1 (started by the
 * test with generated keys): exec, capture, caps, timeouts, host keys, auth,
 * SFTP, lost connections, literal arguments, sysfs and probe over SSH.
 */
#include "testutil.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/hostfs.h"
#include "host/probe.h"
#include "host/transport.h"
#include "idle/govctl.h"
#include "util/sha256.h"

static struct tu_sshd sshd;
static const char *skip_reason;

static int group_setup(void **state)
{
	(void)state;
	skip_reason = tu_sshd_start(&sshd);
	if (skip_reason)
		print_message("sshd harness: %s\n", skip_reason);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tu_sshd_stop(&sshd);
	return 0;
}

static void cfg_init(struct il_host_cfg *h)
{
	memset(h, 0, sizeof(*h));
	h->name = (char *)"lab1";
	h->address = (char *)"127.0.0.1";
	h->port = sshd.port;
	h->user = (char *)"root";
	h->identity = sshd.client_key;
	h->known_hosts = sshd.known_hosts;
	h->host_key_policy = IL_HOSTKEY_STRICT;
	h->connect_timeout_s = 5;
	h->command_timeout_s = 30;
}

#define NEED_SSHD()                        \
	do {                               \
		if (skip_reason)           \
			TU_SKIP(skip_reason); \
	} while (0)

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static struct il_transport *open_ok(const struct il_host_cfg *h)
{
	struct il_transport *t = NULL;
	struct il_err err = { 0 };

	if (il_transport_open(&t, h, &err))
		fail_msg("%s", err.msg);
	return t;
}

/* Run argv over t: it must succeed with stdout out. */
static void exec_out(struct il_transport *t, char *const *argv, const char *out)
{
	struct il_exec_result res;
	struct il_err err = { 0 };

	assert_int_equal(il_transport_exec(t, argv, NULL, &res, &err), 0);
	assert_string_equal(il_buf_str(&res.out), out);
	il_transport_result_release(&res);
}

/* A connection to the test sshd as the default host (cfg_init); skips without sshd. The caller frees it. */
static struct il_transport *sshd_open(void)
{
	static struct il_host_cfg h;

	NEED_SSHD();
	cfg_init(&h);
	return open_ok(&h);
}

/*
 * Over sshd_open, run argv with o: il_transport_exec must return want. The
 * caller checks *res and releases it, and frees the returned transport.
 */
static struct il_transport *sshd_exec(char *const *argv, const struct il_exec_opts *o, int want,
				      struct il_exec_result *res, struct il_err *err)
{
	struct il_transport *t = sshd_open();

	assert_int_equal(il_transport_exec(t, argv, o, res, err), want);
	return t;
}

static void test_ssh__exec_exit_code_and_streams(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 7", NULL };
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t = sshd_exec(argv, NULL, 0, &res, &err);

	(void)state;
	assert_string_equal(t->auth, "publickey (identity file)");
	assert_int_equal(res.exit_code, 7);
	assert_string_equal(il_buf_str(&res.out), "out\n");
	assert_string_equal(il_buf_str(&res.err), "err\n");
	il_transport_result_release(&res);
	il_transport_free(t);
}

/* input reaches the command's stdin over the channel, then its end (a runner's nonce) */
static void test_ssh__input_on_stdin(void **state)
{
	char *argv[] = { "sh", "-c", "read -r n && echo \"got $n\" && cat", NULL };
	struct il_exec_opts o = { .input = "IL0123\n" };
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t = sshd_exec(argv, &o, 0, &res, &err);

	(void)state;
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(il_buf_str(&res.out), "got IL0123\n");
	il_transport_result_release(&res);
	il_transport_free(t);
}

static void test_ssh__metacharacters_arrive_literally(void **state)
{
	char *argv[] = { "printf", "<%s>\\n", "'; rm -rf /tmp/x; '", "$(id)", "a\nb", "`id`", "\\", "\"q\"", "*", "", NULL };
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t = sshd_exec(argv, NULL, 0, &res, &err);

	(void)state;
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(il_buf_str(&res.out), "<'; rm -rf /tmp/x; '>\n<$(id)>\n<a\nb>\n<`id`>\n<\\>\n<\"q\">\n<*>\n<>\n");
	il_transport_result_release(&res);
	il_transport_free(t);
}

static void test_ssh__output_cap(void **state)
{
	char *argv[] = { "sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x; echo done >&2", NULL };
	struct il_exec_opts o = { .max_out = 65536 };
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t = sshd_exec(argv, &o, 0, &res, &err);

	(void)state;
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(res.out.len, 65536);
	assert_true(res.out.truncated);
	assert_false(res.err.truncated);
	assert_string_equal(il_buf_str(&res.err), "done\n");
	il_transport_result_release(&res);
	il_transport_free(t);
}

static void test_ssh__command_timeout(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	char *again[] = { "echo", "still usable", NULL };
	struct il_exec_opts o = { .timeout_ms = 1000 };
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t;
	double t0;

	(void)state;
	t = sshd_open();
	t0 = now_s();
	assert_int_equal(il_transport_exec(t, argv, &o, &res, &err), IL_ETIMEOUT);
	assert_true(now_s() - t0 < 5);
	assert_non_null(strstr(err.msg, "timed out after 1.0 s"));
	il_transport_result_release(&res);
	exec_out(t, again, "still usable\n");
	il_transport_free(t);
}

static void test_ssh__wrong_key_is_an_auth_error(void **state)
{
	struct il_host_cfg h;
	struct il_transport *t = NULL;
	struct il_err err = { 0 };

	(void)state;
	NEED_SSHD();
	cfg_init(&h);
	h.identity = sshd.wrong_key;
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EAUTH);
	assert_non_null(strstr(err.msg, "public key authentication with"));
	assert_null(strstr(err.msg, "PRIVATE KEY")); /* never log secrets */
	h.identity = (char *)"/nonexistent/key";
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EAUTH);
	assert_non_null(strstr(err.msg, "cannot read identity file '/nonexistent/key'"));
	assert_null(t);
}

static void test_ssh__unknown_host_key(void **state)
{
	struct il_host_cfg h;
	struct il_transport *t = NULL;
	struct il_err err = { 0 };
	char kh[400];
	char *text;

	(void)state;
	NEED_SSHD();
	cfg_init(&h);
	snprintf(kh, sizeof(kh), "%s/kh-empty", sshd.dir);
	tu_write("", kh, "");
	h.known_hosts = kh;
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EHOSTKEY);
	assert_non_null(strstr(err.msg, "unknown host key"));
	assert_non_null(strstr(err.msg, "SHA256:"));
	assert_non_null(strstr(err.msg, "accept-new"));
	/* accept-new adds it ... */
	h.host_key_policy = IL_HOSTKEY_ACCEPT_NEW;
	t = open_ok(&h);
	il_transport_free(t);
	text = tu_read(kh, NULL);
	assert_non_null(strstr(text, "ssh-ed25519"));
	free(text);
	/* ... and strict accepts it from then on */
	h.host_key_policy = IL_HOSTKEY_STRICT;
	t = open_ok(&h);
	il_transport_free(t);
}

static void test_ssh__changed_host_key_refused_under_both_policies(void **state)
{
	struct il_host_cfg h;
	struct il_transport *t = NULL;
	struct il_err err = { 0 };
	char kh[400], line[800], cmd[600];
	char *other;

	(void)state;
	NEED_SSHD();
	cfg_init(&h);
	snprintf(cmd, sizeof(cmd), "cd '%s' && ssh-keygen -q -t ed25519 -N '' -f other", sshd.dir);
	assert_int_equal(system(cmd), 0);
	snprintf(kh, sizeof(kh), "%s/other.pub", sshd.dir);
	other = tu_read(kh, NULL);
	*strrchr(other, ' ') = '\0';
	snprintf(line, sizeof(line), "[127.0.0.1]:%d %s", sshd.port, other);
	free(other);
	snprintf(kh, sizeof(kh), "%s/kh-changed", sshd.dir);
	tu_write("", kh, line);
	h.known_hosts = kh;
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EHOSTKEY);
	assert_non_null(strstr(err.msg, "CHANGED"));
	assert_non_null(strstr(err.msg, "ssh-keygen -R"));
	h.host_key_policy = IL_HOSTKEY_ACCEPT_NEW;
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EHOSTKEY);
	assert_non_null(strstr(err.msg, "CHANGED"));
	assert_null(t);
}

static void test_ssh__connection_refused_and_silent_host(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct il_host_cfg h;
	struct il_transport *t = NULL;
	struct il_err err = { 0 };
	double t0;
	int fd;

	(void)state;
	cfg_init(&h);
	h.port = tu_free_port(); /* nothing listens there */
	h.connect_timeout_s = 2;
	t0 = now_s();
	assert_int_equal(il_transport_open(&t, &h, &err), IL_ECONNECT);
	assert_true(now_s() - t0 < 2.5);
	assert_non_null(strstr(err.msg, "cannot connect"));
	/* a host that accepts TCP but never speaks SSH: error within the connect timeout */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = htons((uint16_t)h.port);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	t0 = now_s();
	assert_int_not_equal(il_transport_open(&t, &h, &err), 0);
	assert_true(now_s() - t0 < h.connect_timeout_s + 2.0);
	assert_null(t);
	close(fd);
}

static void test_ssh__sftp_roundtrip_10mib(void **state)
{
	struct il_host_cfg h;
	struct il_transport *t;
	struct il_err err = { 0 };
	char src[400], remote[400], back[400], a[65], b[65];
	unsigned int seed = 12345;
	FILE *f;

	(void)state;
	NEED_SSHD();
	cfg_init(&h);
	snprintf(src, sizeof(src), "%s/blob", sshd.dir);
	snprintf(remote, sizeof(remote), "%s/uploaded", sshd.dir);
	snprintf(back, sizeof(back), "%s/downloaded", sshd.dir);
	f = fopen(src, "w");
	for (int i = 0; i < 10 * 1024 * 1024 / 4; i++) {
		unsigned int v = rand_r(&seed);

		fwrite(&v, 4, 1, f);
	}
	fclose(f);
	t = open_ok(&h);
	if (t->upload(t, src, remote, &err) || t->download(t, remote, back, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(il_sha256_file(src, a, &err), 0);
	assert_int_equal(il_sha256_file(back, b, &err), 0);
	assert_string_equal(a, b);
	/* no temp files left behind */
	snprintf(src, sizeof(src), "ls '%s' | grep -q idlelab-tmp", sshd.dir);
	assert_int_not_equal(system(src), 0);
	/* errors name the file */
	assert_int_not_equal(t->download(t, "/nonexistent/x", back, &err), 0);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	il_transport_free(t);
}

/*
 * sshd (and the command's session) killed while the command runs: a lost
 * connection, said as one, well before the command would have ended; then the
 * transport reconnects by itself. The kill waits until the command has
 * started on the host (a file it makes), not a fixed delay: on a loaded CI
 * machine a delay could fire before the channel was open, which is another
 * failure (a refused reconnect) than the one this test is about.
 */
static void test_ssh__sshd_killed_mid_command_then_reconnect(void **state)
{
	char started[600], script[700];
	char *argv[] = { "sh", "-c", script, NULL };
	char *again[] = { "echo", "back", NULL };
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t;
	const char *why;
	double t0;
	pid_t killer, listener;

	(void)state;
	snprintf(started, sizeof(started), "%s/started", sshd.dir);
	snprintf(script, sizeof(script), "touch '%s' && exec sleep 60", started);
	t = sshd_open();
	listener = sshd.pid;
	killer = fork();
	if (killer == 0) {
		/* bounded: 30 s, then the kill comes anyway and the test says what it got */
		for (int i = 0; i < 3000 && access(started, F_OK); i++)
			usleep(10000);
		tu_sshd_kill(&sshd);
		_exit(0);
	}
	t0 = now_s();
	if (il_transport_exec(t, argv, NULL, &res, &err) != IL_ESSH)
		fail_msg("expected a lost connection, got exit %d, error '%s'", res.exit_code, err.msg);
	/* the command would run 60 s: the loss is seen long before */
	assert_true(now_s() - t0 < 45);
	if (!strstr(err.msg, "connection lost"))
		fail_msg("expected 'connection lost', got '%s'", err.msg);
	il_transport_result_release(&res);
	waitpid(killer, NULL, 0);
	sshd.pid = 0; /* killed by the child */
	/*
	 * the child could not reap sshd; it was our child: wait for it to be gone, so that its
	 * listening socket is closed before the new sshd binds the port (a SIGKILL sent is not a
	 * process gone: on a loaded machine the old listener still answered the restart's probe,
	 * the new sshd could not bind, and the reconnect was refused)
	 */
	waitpid(listener, NULL, 0);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	why = tu_sshd_restart(&sshd);
	if (why)
		fail_msg("%s", why);
	exec_out(t, again, "back\n");
	il_transport_free(t);
}

static void test_ssh__snapshot_and_governor_over_ssh(void **state)
{
	struct il_host_cfg h;
	struct il_transport *t;
	struct il_hostfs fs;
	struct il_sysfs_local lfs;
	struct il_snapshot remote, local;
	struct il_idle_saved saved;
	struct il_strlist govs = { 0 };
	struct il_err err = { 0 };

	(void)state;
	NEED_SSHD();
	cfg_init(&h);
	t = open_ok(&h);
	il_hostfs_init(&fs, t);
	if (il_sysfs_snapshot(&fs.ops, &remote, &err))
		fail_msg("%s", err.msg);
	il_sysfs_local_init(&lfs, "/", &err);
	assert_int_equal(il_sysfs_snapshot(&lfs.ops, &local, &err), 0);
	/* the same machine through both paths */
	assert_int_equal(remote.ncpus, local.ncpus);
	assert_int_equal(il_snapshot_nstates(&remote), il_snapshot_nstates(&local));
	if (local.boot_id)
		assert_string_equal(remote.boot_id, local.boot_id);
	assert_string_equal(remote.host, "lab1");
	/* invalid names never reach the host */
	assert_int_equal(il_govctl_set(&fs.ops, "x'; reboot; '", &err), local.available_governors.n ? IL_EINVAL : IL_EUNSUPPORTED);
	if (local.governor_writable && local.available_governors.n > 1 && !access(IL_CPUIDLE_DIR "/current_governor", W_OK)) {
		const char *other = NULL;

		assert_int_equal(il_govctl_save(&fs.ops, &saved, &err), 0);
		assert_int_equal(il_govctl_list(&fs.ops, &govs, &err), 0);
		for (size_t i = 0; i < govs.n; i++)
			if (strcmp(govs.v[i], saved.governor))
				other = govs.v[i];
		tu_gov_round_trip(&fs.ops, &lfs.ops, &saved, other);
		il_govctl_saved_release(&saved);
		il_strlist_release(&govs);
	} else {
		print_message("skipped: governor switch over ssh (governor not writable or only one governor)\n");
	}
	il_snapshot_release(&remote);
	il_snapshot_release(&local);
	il_transport_free(t);
}

static void test_ssh__probe_one_round_trip(void **state)
{
	struct il_host_cfg h;
	struct il_transport *t;
	struct il_err err = { 0 };
	json_t *j;
	char rel[256];
	FILE *p;

	(void)state;
	NEED_SSHD();
	cfg_init(&h);
	t = open_ok(&h);
	if (il_probe_run(t, &j, NULL, &err))
		fail_msg("%s", err.msg);
	p = popen("uname -r", "r");
	assert_non_null(fgets(rel, sizeof(rel), p));
	pclose(p);
	rel[strcspn(rel, "\n")] = '\0';
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "kernel"), "release")), rel);
	assert_string_equal(json_string_value(json_object_get(j, "transport")), "ssh");
	assert_true(json_is_true(json_object_get(j, "root")));
	assert_true(json_is_object(json_object_get(j, "cpuidle")));
	assert_true(json_is_object(json_object_get(j, "tools")));
	assert_true(json_is_object(json_object_get(j, "cmdline_idle")));
	json_decref(j);
	il_transport_free(t);
}

/* ~/.ssh/config fills in what the host file leaves out (here: the real address and the port) */
static void test_ssh__ssh_config_is_honoured(void **state)
{
	char cfgpath[400], text[600];
	char *argv[] = { "echo", "via config", NULL };
	struct il_host_cfg h;
	struct il_transport *t;

	(void)state;
	NEED_SSHD();
	snprintf(cfgpath, sizeof(cfgpath), "%s/ssh_config", sshd.dir);
	snprintf(text, sizeof(text), "Host labalias\n  HostName 127.0.0.1\n  Port %d\n  User root\n", sshd.port);
	tu_write("", cfgpath, text);
	cfg_init(&h);
	h.address = (char *)"labalias";
	h.port = 0;
	h.user = NULL;
	/* known_hosts entries are for what we connect to: [127.0.0.1]:port */
	/* the host's ssh_config: $IDLELAB_SSH_CONFIG, resolved by the CLI (struct il_paths) */
	h.ssh_config = cfgpath;
	t = open_ok(&h);
	exec_out(t, argv, "via config\n");
	il_transport_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh__exec_exit_code_and_streams),
		cmocka_unit_test(test_ssh__input_on_stdin),
		cmocka_unit_test(test_ssh__metacharacters_arrive_literally),
		cmocka_unit_test(test_ssh__output_cap),
		cmocka_unit_test(test_ssh__command_timeout),
		cmocka_unit_test(test_ssh__wrong_key_is_an_auth_error),
		cmocka_unit_test(test_ssh__unknown_host_key),
		cmocka_unit_test(test_ssh__changed_host_key_refused_under_both_policies),
		cmocka_unit_test(test_ssh__connection_refused_and_silent_host),
		cmocka_unit_test(test_ssh__sftp_roundtrip_10mib),
		cmocka_unit_test(test_ssh__snapshot_and_governor_over_ssh),
		cmocka_unit_test(test_ssh__probe_one_round_trip),
		cmocka_unit_test(test_ssh__ssh_config_is_honoured),
		cmocka_unit_test(test_ssh__sshd_killed_mid_command_then_reconnect),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("host_ssh", tests, group_setup, group_teardown);
}
