// SPDX-License-Identifier: GPL-2.0-or-later
/* util: strict numbers, CPU lists, capped buffers, atomic files, errors. */
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
#include "util/str.h"
#include "util/template.h"

static void test_util__parse_numbers(void **state)
{
	uint64_t u;
	int64_t i;
	double d;

	(void)state;
	assert_int_equal(il_parse_u64(" 42\n", (size_t)-1, &u), 0);
	assert_int_equal(u, 42);
	assert_int_equal(il_parse_u64("18446744073709551615", (size_t)-1, &u), 0);
	assert_int_equal(u, UINT64_MAX);
	assert_int_equal(il_parse_u64("18446744073709551616", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("1 2", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("-1", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("12abc", 2, &u), 0);
	assert_int_equal(u, 12);
	assert_int_equal(il_parse_i64("-1", (size_t)-1, &i), 0);
	assert_int_equal(i, -1);
	assert_int_equal(il_parse_i64("-9223372036854775808", (size_t)-1, &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(il_parse_i64("9223372036854775808", (size_t)-1, &i), IL_EPARSE);
	assert_int_equal(il_parse_i64("- 1", (size_t)-1, &i), IL_EPARSE);
	assert_int_equal(il_parse_double("4.79", (size_t)-1, &d), 0);
	assert_int_equal(il_parse_double("nan", (size_t)-1, &d), IL_EPARSE);
	assert_int_equal(il_parse_double("1e999", (size_t)-1, &d), IL_EPARSE);
	assert_int_equal(il_parse_double("4.7x", (size_t)-1, &d), IL_EPARSE);
}

static void test_util__cpusets(void **state)
{
	struct il_cpuset s;
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_cpuset_parse(&s, "8,0-3,2,5-6\n", &err), 0);
	assert_int_equal(s.n, 7);
	assert_true(il_cpuset_has(&s, 5));
	assert_false(il_cpuset_has(&s, 4));
	assert_int_equal(il_cpuset_format(&s, &b), 0);
	assert_string_equal(il_buf_str(&b), "0-3,5-6,8");
	il_cpuset_release(&s);
	assert_int_equal(il_cpuset_parse(&s, "", &err), 0);
	assert_int_equal(s.n, 0);
	static const char *const bad[] = { "3-1", "a", "1,,2", "0-", "-1", "70000", "1-2-3" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (il_cpuset_parse(&s, bad[i], &err) != IL_EPARSE)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, bad[i]));
	}
	il_buf_release(&b);
}

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
	assert_int_equal(il_tpl_expand("--kernel={image},h={host};{{image}} a}b", il_tpl_value_list, &tv, &b, &err), 0);
	assert_string_equal(il_buf_str(&b), "--kernel=/b/Image,h=;{image} a}b");
	assert_int_equal(il_tpl_check_names("x{image}y{{", names, "h.json", "boot.argv[1]", &err), 0);
	assert_int_equal(il_tpl_check_names("{kernel}", names, "h.json", "boot.argv[1]", &err), IL_EPARSE);
	assert_string_equal(err.msg, "h.json: boot.argv[1]: '{kernel}': unknown placeholder '{kernel}' (known: {image} {host})");
	assert_int_equal(il_tpl_check_names("x{image", names, "h.json", "a", &err), IL_EPARSE);
	assert_string_equal(err.msg, "h.json: a: 'x{image': unclosed placeholder (write {{ for a literal brace)");
	assert_int_equal(il_tpl_check("{image}", tpl_count, seen, "l", "p", &err), 0);
	assert_int_equal(il_tpl_check("-i{image}", tpl_count, seen, "l", "p", &err), 0);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[0], 1);
	assert_true(il_tpl_is_plain("a}b"));
	assert_false(il_tpl_is_plain("{{"));
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
	assert_int_equal(il_write_file_atomic(path, "hello\n", 6, &err), 0);
	assert_int_equal(il_buf_read_file(&b, path, 0, &err), 0);
	assert_string_equal(il_buf_str(&b), "hello\n");
	il_buf_reset(&b);
	assert_int_equal(il_buf_read_file(&b, path, 3, &err), IL_ETOOBIG);
	assert_non_null(strstr(err.msg, "out.txt"));
	snprintf(path, sizeof(path), "%s/nodir/out.txt", dir);
	assert_int_equal(il_write_file_atomic(path, "x", 1, &err), IL_EIO);
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
		assert_int_equal(il_write_file_atomic(path, "new", 3, &err), 0);
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
	assert_int_equal(il_write_file_mode(path, "old 1\n", 6, 0644, &err), 0);
	umask(um);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	memset(big, 'x', sizeof(big));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(il_write_file_mode(path, big, sizeof(big), 0644, &err), IL_EIO);
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
	assert_string_equal(il_strerror(IL_EHOSTKEY), "host key verification failed");
	assert_string_equal(il_strerror(-999), "unknown error");
	assert_int_equal(il_err_set(NULL, IL_EIO, "x"), IL_EIO);
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
	assert_int_equal(il_exit_status(&ex), 3);
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

/* Each byte that does not start valid UTF-8 becomes U+FFFD; valid text is kept as it is. */
static void test_str__utf8_add(void **state)
{
	static const char *const cases[][2] = {
		{ "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80" },
		{ "a\xff" "b\xc3", "a\xef\xbf\xbd" "b\xef\xbf\xbd" },
		/* an overlong '/', a surrogate, past U+10FFFF: every byte of them */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_buf b = IL_BUF_INIT;

		assert_int_equal(il_utf8_add(&b, cases[i][0]), 0);
		assert_string_equal(il_buf_str(&b), cases[i][1]);
		il_buf_release(&b);
	}
}

static void test_str__names_and_dir_listing(void **state)
{
	struct il_strlist l = { 0 };
	struct il_err err = { 0 };
	char *dir = tu_tmpdir();

	(void)state;
	assert_true(il_name_ok("teo-2.x_y", "-_.", 64));
	assert_false(il_name_ok("", "-_.", 64));
	assert_false(il_name_ok("a b", "-_.", 64));
	assert_false(il_name_ok("menu;reboot", "-_.", 64));
	assert_false(il_name_ok("a+b", "-_.", 64));
	assert_true(il_name_ok("a+b", "+", 64));
	assert_false(il_name_ok("abcdefghijklmnop", "", 15));
	{
		char *p = il_strdup_printf("cpu%d idle %.3f s of %s", 3, 1.25, "1 s"), *e = il_strdup_printf("%s", "");

		assert_string_equal(p, "cpu3 idle 1.250 s of 1 s");
		assert_string_equal(e, "");
		free(p);
		free(e);
	}
	tu_write(dir, "/b.json", "{}");
	tu_write(dir, "/a.json", "{}");
	tu_write(dir, "/c.txt", "x");
	tu_write(dir, "/.json", "x");
	assert_int_equal(il_dir_names(&l, dir, ".json", &err), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "a");
	assert_string_equal(l.v[1], "b");
	il_strlist_release(&l);
	assert_int_equal(il_dir_names(&l, "/nonexistent-idlelab", ".json", &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "/nonexistent-idlelab"));
	tu_rmtree(dir);
	free(dir);
}

/* The one sanitizer: what a host, a repository or a server wrote never acts on a terminal. */
static void test_str__sanitize(void **state)
{
	char a[] = "ok\tx\033[2J\x9b\xc2\x9b\x7f\r\nend\xff\xc3\xa9";
	char b[] = "line\nnext";
	char c[] = "abc\xe2\x82"; /* a cut-short euro sign */
	char d[] = "z\xc2";
	char e[] = "\xe2\x82\xac";

	(void)state;
	/* ESC, a lone C1 byte, C1 U+009B in UTF-8, DEL, CR, an invalid byte: '?' each (the length stays); é stays */
	assert_string_equal(il_str_sanitize(a, false), "ok\tx?[2J??????end?\xc3\xa9");
	assert_string_equal(il_str_sanitize(b, true), "line\nnext");
	assert_string_equal(il_str_sanitize(b, false), "line?next");
	assert_null(il_str_sanitize(NULL, false));
	/* in pieces: a sequence cut by the end of a piece waits for the next one */
	assert_int_equal(il_str_sanitize_n(c, 5, false, true), 3);
	assert_int_equal(il_str_sanitize_n(c, 5, false, false), 5);
	assert_string_equal(c, "abc??");
	assert_int_equal(il_str_sanitize_n(d, 2, false, true), 1);
	assert_int_equal(il_str_sanitize_n(e, 3, false, true), 3);
	assert_string_equal(e, "\xe2\x82\xac");
	/* NUL inside a piece is a control byte */
	{
		char f[] = { 'a', 0, 'b' };

		assert_int_equal(il_str_sanitize_n(f, 3, false, false), 3);
		assert_memory_equal(f, "a?b", 3);
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
		cmocka_unit_test(test_str__sanitize),
		cmocka_unit_test(test_util__url_shown),
		cmocka_unit_test(test_str__names_and_dir_listing),
		cmocka_unit_test(test_util__parse_numbers),
		cmocka_unit_test(test_util__cpusets),
		cmocka_unit_test(test_util__buffer_cap),
		cmocka_unit_test(test_util__buffer_sticky_nomem),
		cmocka_unit_test(test_util__template),
		cmocka_unit_test(test_util__files),
		cmocka_unit_test(test_util__write_mode_failure_keeps_old),
		cmocka_unit_test(test_util__errors),
		cmocka_unit_test(test_util__proc),
		cmocka_unit_test(test_util__proc_capture),
		cmocka_unit_test(test_str__utf8_add),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
