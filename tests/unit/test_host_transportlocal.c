// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The local transport (host/transportlocal.c) on this machine, and what the
 * transports share (host/transport.c) through it: exit codes and streams,
 * stdin, sudo only when asked and configured, scripts, transfers checked by
 * SHA-256 (and a missing file named), the transfers' helpers (sha256sum,
 * rename, temporary names), and the held command.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "host/transport.h"
#include "util/buf.h"

static struct il_transport *open_local(struct il_host_cfg *h)
{
	struct il_err err = { 0 };
	struct il_transport *t = NULL;

	assert_int_equal(il_host_load(h, NULL, "local", &err), 0);
	assert_int_equal(h->kind, IL_HOST_LOCAL);
	if (il_transport_local_open(&t, h, &err))
		fail_msg("local open: %s", err.msg);
	assert_string_equal(t->auth, "local");
	assert_string_equal(t->label, "local");
	assert_int_equal(t->is_root, geteuid() == 0);
	return t;
}

static void test_local__exec_codes_streams_and_stdin(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *in[] = { "sh", "-c", "read x; echo \"got $x\"", NULL };
	char *sig[] = { "sh", "-c", "kill -TERM $$", NULL };
	struct il_exec_opts o = { .input = "nonce-123\n" };
	struct il_host_cfg h;
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t;

	(void)state;
	t = open_local(&h);
	assert_int_equal(il_transport_exec(t, argv, NULL, &res, &err), 0);
	assert_int_equal(res.exit_code, 3);
	assert_string_equal(il_buf_str(&res.out), "out\n");
	assert_string_equal(il_buf_str(&res.err), "err\n");
	assert_true(res.elapsed_s >= 0);
	il_transport_result_release(&res);
	assert_int_equal(il_transport_exec(t, in, &o, &res, &err), 0);
	assert_string_equal(il_buf_str(&res.out), "got nonce-123\n");
	il_transport_result_release(&res);
	/* a signal is no exit code */
	assert_int_equal(il_transport_exec(t, sig, NULL, &res, &err), 0);
	assert_int_equal(res.exit_code, -1);
	assert_int_equal(res.signal, 15);
	il_transport_result_release(&res);
	il_transport_free(t);
	il_host_release(&h);
}

static void test_local__sudo_only_when_configured_and_scripts(void **state)
{
	char *argv[] = { "sh", "-c", "echo \"$0\"", NULL };
	char *args[] = { "a b", "c", NULL };
	struct il_exec_opts priv = { .privileged = true };
	struct il_host_cfg h;
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t;

	(void)state;
	t = open_local(&h);
	/* privileged on a host without sudo: run as it is */
	assert_false(h.sudo);
	assert_int_equal(il_transport_exec(t, argv, &priv, &res, &err), 0);
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(il_buf_str(&res.out), "sh\n");
	il_transport_result_release(&res);
	/* a script gets its arguments as they are, $0 the name idlelab */
	assert_int_equal(il_transport_run_script(t, "echo \"$0|$1|$2|$#\"", args, NULL, &res, &err), 0);
	assert_string_equal(il_buf_str(&res.out), "idlelab|a b|c|2\n");
	il_transport_result_release(&res);
	/* the output cap: flagged, never more */
	{
		char *big[] = { "sh", "-c", "head -c 10000 /dev/zero", NULL };
		struct il_exec_opts cap = { .max_out = 100 };

		assert_int_equal(il_transport_exec(t, big, &cap, &res, &err), 0);
		assert_true(res.out.len <= 100);
		assert_true(res.out.truncated);
		il_transport_result_release(&res);
	}
	il_transport_free(t);
	il_host_release(&h);
}

static void test_local__transfers_and_their_helpers(void **state)
{
	char *dir = tu_tmpdir(), src[512], dst[512], back[512], moved[512], hex[65];
	struct il_buf tmp = IL_BUF_INIT, tmp2 = IL_BUF_INIT;
	struct il_host_cfg h;
	struct il_err err = { 0 };
	struct il_transport *t;
	char *text;

	(void)state;
	t = open_local(&h);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/dst", dir);
	snprintf(back, sizeof(back), "%s/back", dir);
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	tu_write(dir, "/src", "hello idle"); /* and its newline */
	assert_int_equal(t->upload(t, src, dst, &err), 0);
	assert_int_equal(t->download(t, dst, back, &err), 0);
	text = tu_read(back, NULL);
	assert_string_equal(text, "hello idle\n");
	free(text);
	/* sha256sum of "hello idle\n" on the host, then the file renamed into place */
	assert_int_equal(il_transport_sha256(t, dst, hex, &err), 0);
	assert_int_equal(strlen(hex), 64);
	assert_int_equal(strspn(hex, "0123456789abcdef"), 64);
	assert_int_equal(il_transport_rename(t, dst, moved, &err), 0);
	assert_int_not_equal(access(dst, F_OK), 0);
	assert_int_equal(access(moved, F_OK), 0);
	/* what fails names the host and the file */
	assert_int_equal(t->upload(t, "/nonexistent/idlelab-src", dst, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "host 'local': "));
	assert_int_equal(il_transport_sha256(t, "/nonexistent/idlelab-x", hex, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "sha256sum '/nonexistent/idlelab-x' failed"));
	assert_int_equal(il_transport_rename(t, "/nonexistent/a", moved, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "cannot rename '/nonexistent/a'"));
	/* temporary names: the remote's, then a nonce no one can guess, new each time */
	assert_int_equal(il_transport_tmpname(&tmp, "/x/f"), 0);
	assert_int_equal(il_transport_tmpname(&tmp2, "/x/f"), 0);
	assert_int_equal(strncmp(il_buf_str(&tmp), "/x/f.idlelab-tmp.", 17), 0);
	assert_int_equal(strlen(il_buf_str(&tmp)), 17 + 16);
	assert_string_not_equal(il_buf_str(&tmp), il_buf_str(&tmp2));
	il_buf_release(&tmp);
	il_buf_release(&tmp2);
	il_transport_free(t);
	il_host_release(&h);
	tu_rmtree(dir);
	free(dir);
}

static void test_local__hold(void **state)
{
	char *lock[] = { "sh", "-c", "echo held; cat > /dev/null", NULL };
	char *quick[] = { "sh", "-c", "echo done", NULL };
	struct il_buf first = IL_BUF_INIT;
	struct il_host_cfg h;
	struct il_err err = { 0 };
	struct il_transport *t;

	(void)state;
	t = open_local(&h);
	assert_int_equal(t->hold(t, lock, 5000, &first, &err), 0);
	assert_string_equal(il_buf_str(&first), "held\n");
	assert_true(t->hold_alive(t));
	t->hold_release(t);
	assert_false(t->hold_alive(t));
	il_buf_reset(&first);
	assert_int_equal(t->hold(t, quick, 5000, &first, &err), 0);
	assert_string_equal(il_buf_str(&first), "done\n");
	for (int i = 0; i < 50 && t->hold_alive(t); i++)
		usleep(100000); /* it ended (its first line may come before its end) */
	assert_false(t->hold_alive(t));
	/* freed while held: the held command ends with the transport */
	il_buf_reset(&first);
	assert_int_equal(t->hold(t, lock, 5000, &first, &err), 0);
	assert_true(t->hold_alive(t));
	il_buf_release(&first);
	il_transport_free(t);
	il_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local__exec_codes_streams_and_stdin),
		cmocka_unit_test(test_local__sudo_only_when_configured_and_scripts),
		cmocka_unit_test(test_local__transfers_and_their_helpers),
		cmocka_unit_test(test_local__hold),
	};

	return cmocka_run_group_tests_name("host_transportlocal", tests, NULL, NULL);
}
