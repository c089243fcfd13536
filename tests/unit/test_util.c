// SPDX-License-Identifier: GPL-2.0-or-later
/* util: capped buffers, atomic files, templates, errors, child processes, URLs as shown. */
#include "testutil.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/proc.h"
#include "util/http.h"
#include "util/template.h"

static void test_util__buffer_cap(void **state)
{
	struct il_buf b;

	(void)state;
	il_buf_init(&b, 8);
	assert_int_equal(il_buf_adds(&b, "12345"), 0);
	assert_false(b.truncated);
	assert_int_equal(il_buf_error(&b), 0);
	assert_int_equal(il_buf_printf(&b, "%s", "6789ab"), 0);
	assert_true(b.truncated);
	/* past the cap appends still return 0 (the cut is the caller's call); the buffer says IL_ETOOBIG */
	assert_int_equal(il_buf_adds(&b, "c"), 0);
	assert_false(il_buf_ok(&b));
	assert_int_equal(il_buf_error(&b), IL_ETOOBIG);
	assert_int_equal(b.len, 8);
	assert_string_equal(il_buf_str(&b), "12345678");
	il_buf_release(&b);
}

/* A failed append (memory) sticks: later appends do nothing and one check at the end sees it. */
static void test_util__buffer_sticky_nomem(void **state)
{
	struct il_buf b = IL_BUF_INIT;

	(void)state;
	assert_int_equal(il_buf_adds(&b, "ab"), 0);
	assert_true(il_buf_ok(&b));
	assert_int_equal(il_buf_error(&b), 0);
	/* more than can ever be allocated: the growth fails before anything is read */
	assert_int_equal(il_buf_add(&b, "x", (size_t)-1 / 2 + 2), IL_ENOMEM);
	assert_int_equal(il_buf_adds(&b, "cd"), IL_ENOMEM);
	assert_int_equal(il_buf_printf(&b, "%d", 1), IL_ENOMEM);
	assert_string_equal(il_buf_str(&b), "ab");
	assert_false(il_buf_ok(&b));
	assert_int_equal(il_buf_error(&b), IL_ENOMEM);
	il_buf_reset(&b);
	assert_true(il_buf_ok(&b));
	assert_int_equal(il_buf_adds(&b, "ef"), 0);
	assert_string_equal(il_buf_str(&b), "ef");
	assert_int_equal(il_buf_add(&b, "x", (size_t)-1 / 2 + 2), IL_ENOMEM);
	il_buf_release(&b);
	assert_int_equal(il_buf_error(&b), 0);
	il_buf_release(&b);
}

static int tpl_count(void *ctx, const char *s, const char *name, bool whole, struct il_err *err)
{
	(void)s, (void)err;
	((int *)ctx)[whole] += !strcmp(name, "image") ? 1 : 100;
	return 0;
}

/* One template syntax: {name} anywhere, {{ and }} literal braces, names checked when read. */
static void test_util__template(void **state)
{
	static const char *const names[] = { "image", "host", NULL };
	const char *vals[] = { "/b/Image", NULL };
	struct il_tpl_vals tv = { names, vals };
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	int seen[2] = { 0, 0 };

	(void)state;
	assert_int_equal(il_template_expand("--kernel={image},h={host};{{image}} a}b", il_template_value_list, &tv, &b, &err), 0);
	assert_string_equal(il_buf_str(&b), "--kernel=/b/Image,h=;{image} a}b");
	assert_int_equal(il_template_check_names("x{image}y{{", names, "h.json", "boot.argv[1]", &err), 0);
	assert_int_equal(il_template_check_names("{kernel}", names, "h.json", "boot.argv[1]", &err), IL_EPARSE);
	assert_string_equal(err.msg, "h.json: boot.argv[1]: '{kernel}': unknown placeholder '{kernel}' (known: {image} {host})");
	assert_int_equal(il_template_check_names("x{image", names, "h.json", "a", &err), IL_EPARSE);
	assert_string_equal(err.msg, "h.json: a: 'x{image': unclosed placeholder (write {{ for a literal brace)");
	assert_int_equal(il_template_check("{image}", tpl_count, seen, "l", "p", &err), 0);
	assert_int_equal(il_template_check("-i{image}", tpl_count, seen, "l", "p", &err), 0);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[0], 1);
	assert_true(il_template_is_plain("a}b"));
	assert_false(il_template_is_plain("{{"));
	il_buf_release(&b);
}

static void test_util__files(void **state)
{
	char *dir = tu_tmpdir();
	char path[512];
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	assert_int_equal(il_buf_write_file_atomic(path, "hello\n", 6, &err), 0);
	assert_int_equal(il_buf_read_file(&b, path, 0, &err), 0);
	assert_string_equal(il_buf_str(&b), "hello\n");
	il_buf_reset(&b);
	assert_int_equal(il_buf_read_file(&b, path, 3, &err), IL_ETOOBIG);
	assert_non_null(strstr(err.msg, "out.txt"));
	snprintf(path, sizeof(path), "%s/nodir/out.txt", dir);
	assert_int_equal(il_buf_write_file_atomic(path, "x", 1, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "nodir"));
	/* a symlink planted at the old, predictable temporary name is never followed */
	{
		char victim[600], trap[700];
		struct stat st;
		mode_t um = umask(022);

		umask(um);
		snprintf(victim, sizeof(victim), "%s/victim", dir);
		tu_write(dir, "/victim", "precious");
		chmod(victim, 0600);
		snprintf(path, sizeof(path), "%s/out2.txt", dir);
		snprintf(trap, sizeof(trap), "%s.tmp.%ld", path, (long)getpid());
		assert_int_equal(symlink(victim, trap), 0);
		assert_int_equal(il_buf_write_file_atomic(path, "new", 3, &err), 0);
		il_buf_reset(&b);
		assert_int_equal(il_buf_read_file(&b, victim, 0, &err), 0);
		assert_string_equal(il_buf_str(&b), "precious\n");
		assert_int_equal(stat(victim, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0644 & ~um);
	}
	/* a FIFO where a file is expected: a clear error at once, not a hang */
	snprintf(path, sizeof(path), "%s/x.json", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	il_buf_reset(&b);
	assert_int_equal(il_buf_read_file(&b, path, 0, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "x.json': not a regular file"));
	il_buf_release(&b);
	tu_rmtree(dir);
	free(dir);
}

/* Names in dir (not . and ..), for "nothing was left behind". */
static size_t dir_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/*
 * A file another program reads whole (node_exporter's textfile collector):
 * exactly the mode asked whatever the umask, and a write that fails half way
 * (the file size limit: EFBIG) leaves the old file as it was and no
 * temporary file beside it.
 */
static void test_util__write_mode_failure_keeps_old(void **state)
{
	char *dir = tu_tmpdir(), path[512];
	static char big[1 << 16];
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct rlimit old, small;
	struct stat st;
	mode_t um = umask(077);

	(void)state;
	snprintf(path, sizeof(path), "%s/idlelab.prom", dir);
	assert_int_equal(il_buf_write_file_mode(path, "old 1\n", 6, 0644, &err), 0);
	umask(um);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	memset(big, 'x', sizeof(big));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(il_buf_write_file_mode(path, big, sizeof(big), 0644, &err), IL_EIO);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err.msg, "cannot write"));
	assert_non_null(strstr(err.msg, "idlelab.prom.tmp."));
	assert_int_equal(il_buf_read_file(&b, path, 0, &err), 0);
	assert_string_equal(il_buf_str(&b), "old 1\n");
	assert_int_equal(dir_entries(dir), 1);
	il_buf_release(&b);
	tu_rmtree(dir);
	free(dir);
}

static void test_util__errors(void **state)
{
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_err_set(&err, IL_EPARSE, "line %d", 3), IL_EPARSE);
	assert_int_equal(il_err_prefix(&err, "file '%s': ", "a"), IL_EPARSE);
	assert_string_equal(err.msg, "file 'a': line 3");
	assert_string_equal(il_err_strerror(IL_EHOSTKEY), "host key verification failed");
	assert_string_equal(il_err_strerror(-999), "unknown error");
	assert_int_equal(il_err_set(NULL, IL_EIO, "x"), IL_EIO);
	/* a prefix leaves what room is left to the old message, cut and terminated */
	{
		char longp[sizeof(err.msg) - 4];

		memset(longp, 'p', sizeof(longp) - 1);
		longp[sizeof(longp) - 1] = '\0';
		il_err_set(&err, IL_EIO, "abcdef");
		assert_int_equal(il_err_prefix(&err, "%s", longp), IL_EIO);
		assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
		assert_string_equal(err.msg + sizeof(longp) - 1, "abcd");
		/* a prefix longer than the message: nothing of the old one */
		il_err_set(&err, IL_EIO, "abcdef");
		assert_int_equal(il_err_prefix(&err, "%s%s", longp, longp), IL_EIO);
		assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
		assert_null(strchr(err.msg, 'a'));
	}
}

static void test_util__proc(void **state)
{
	char *const ok[] = { (char *)"sh", (char *)"-c", (char *)"exit 3", NULL };
	char *const missing[] = { (char *)"/nonexistent/idlelab-no-such-program", NULL };
	struct il_exit ex;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_proc_run(ok, &ex, &err), 0);
	assert_int_equal(ex.code, 3);
	assert_int_equal(il_proc_exit_status(&ex), 3);
	assert_int_equal(il_proc_run(missing, &ex, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "idlelab-no-such-program"));
}

static void test_util__proc_capture(void **state)
{
	char *const both[] = { (char *)"sh", (char *)"-c", (char *)"echo out; echo err >&2; exit 4", NULL };
	char *const slow[] = { (char *)"sh", (char *)"-c", (char *)"sleep 30 & sleep 30", NULL };
	char *const missing[] = { (char *)"idlelab-no-such-program", NULL };
	struct il_buf out = IL_BUF_INIT, errb = IL_BUF_INIT;
	struct il_exit ex;
	struct il_err err = { 0 };
	struct timespec a, b;

	(void)state;
	assert_int_equal(il_proc_capture(both, 5000, NULL, &out, &errb, &ex, &err), 0);
	assert_int_equal(ex.code, 4);
	assert_string_equal(il_buf_str(&out), "out\n");
	assert_string_equal(il_buf_str(&errb), "err\n");
	il_buf_reset(&out);
	il_buf_reset(&errb);
	/* the deadline kills the whole process group (the background sleep holds the pipes open) */
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(il_proc_capture(slow, 300, NULL, &out, &errb, &ex, &err), IL_ETIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < 3.0);
	assert_non_null(strstr(err.msg, "timed out after 0.3 s"));
	assert_int_equal(il_proc_capture(missing, 1000, NULL, &out, &errb, &ex, NULL), IL_ENOTFOUND);
	il_buf_release(&out);
	il_buf_release(&errb);
	/* input on stdin, then its end (what must not be in argv); at most PIPE_BUF bytes */
	{
		char *cat[] = { "cat", NULL };
		char big[PIPE_BUF + 2];

		assert_int_equal(il_proc_capture_in(cat, "IL0123\n", 5000, NULL, &out, &errb, &ex, &err), 0);
		assert_int_equal(ex.code, 0);
		assert_string_equal(il_buf_str(&out), "IL0123\n");
		il_buf_reset(&out);
		assert_int_equal(il_proc_capture_in(cat, NULL, 5000, NULL, &out, &errb, &ex, &err), 0);
		assert_int_equal(out.len, 0);
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		assert_int_equal(il_proc_capture_in(cat, big, 5000, NULL, &out, &errb, &ex, &err), IL_ECHILD);
		il_buf_release(&out);
		il_buf_release(&errb);
	}
}

/* URLs as shown: the password, the query and, for webhooks, the path hidden. */
static void test_util__url_shown(void **state)
{
	char *s;

	(void)state;
	s = il_http_url_shown("https://u:pw@hooks.example.org/services/T0/B0/secret?token=t");
	assert_string_equal(s, "https://u:***@hooks.example.org/services/T0/B0/secret?***");
	free(s);
	s = il_http_url_shown_nopath("https://u:pw@hooks.example.org/services/T0/B0/secret?token=t");
	assert_string_equal(s, "https://u:***@hooks.example.org/***?***");
	free(s);
	s = il_http_url_shown_nopath("http://127.0.0.1:8080/");
	assert_string_equal(s, "http://127.0.0.1:8080/");
	free(s);
	s = il_http_url_shown_nopath("not a url");
	assert_non_null(strstr(s, "cannot parse"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util__url_shown),
		cmocka_unit_test(test_util__buffer_cap),
		cmocka_unit_test(test_util__buffer_sticky_nomem),
		cmocka_unit_test(test_util__template),
		cmocka_unit_test(test_util__files),
		cmocka_unit_test(test_util__write_mode_failure_keeps_old),
		cmocka_unit_test(test_util__errors),
		cmocka_unit_test(test_util__proc),
		cmocka_unit_test(test_util__proc_capture),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
