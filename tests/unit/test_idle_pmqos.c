// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PM QoS: the local dump of a fake /proc, /dev and sysfs tree, runners/pmqos.sh
 * on the same tree (both must parse to the same thing), and the parser's
 * refusals.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/runners.h"
#include "idle/pmqos.h"
#include "idle/sysfs.h"
#include "idle/cpuset.h"
#include "util/proc.h"

/* (tu_write ends every file with a newline.) A symlink at root+path to target, its directory made (with a dot file ls and the reader skip). */
static void link_at(const char *root, const char *path, const char *target)
{
	char p[600], keep[300];

	snprintf(keep, sizeof(keep), "%.*s/.keep", (int)(strrchr(path, '/') - path), path);
	tu_write(root, keep, "");
	snprintf(p, sizeof(p), "%s%s", root, path);
	assert_int_equal(symlink(target, p), 0);
}

/*
 * pid 100 holds the device twice (fds 3 and 4) and has /dev/null open;
 * pid 200 holds it once and its name has a quote, a backslash and a newline;
 * pid 300 holds something else; pid 400 has no fd directory. The device reads
 * back 100 us; cpu0 has no resume latency constraint, cpu1 "n/a", cpu2 50 us.
 */
static char *fake_tree(void)
{
	char *root = tu_tmpdir();
	int32_t v = 100;
	char dev[600];
	FILE *f;

	tu_write(root, "/proc/100/comm", "cyclictest");
	tu_write(root, "/proc/200/comm", "a\"b\\c\nd");
	tu_write(root, "/proc/300/comm", "sshd");
	tu_write(root, "/proc/400/comm", "kthread");
	tu_write(root, "/proc/uptime", "5.00 9.00");
	link_at(root, "/proc/100/fd/3", "/dev/cpu_dma_latency");
	link_at(root, "/proc/100/fd/4", "/dev/cpu_dma_latency");
	link_at(root, "/proc/100/fd/0", "/dev/null");
	link_at(root, "/proc/200/fd/7", "/dev/cpu_dma_latency");
	link_at(root, "/proc/300/fd/1", "/dev/cpu_dma_latency.bak");
	/* a holder in a chroot or another mount namespace than the reader's: the device by its longer path */
	tu_write(root, "/proc/500/comm", "chrooted");
	link_at(root, "/proc/500/fd/9", "/var/tmp/idlelab-fresh.x/root/dev/cpu_dma_latency");
	link_at(root, "/proc/500/fd/8", "/var/tmp/x/dev/cpu_dma_latency.old");
	tu_write(root, "/dev/.keep", "");
	snprintf(dev, sizeof(dev), "%s/dev/cpu_dma_latency", root);
	f = fopen(dev, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(&v, sizeof(v), 1, f), 1);
	fclose(f);
	tu_write(root, "/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us", "0");
	tu_write(root, "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us", "n/a");
	tu_write(root, "/sys/devices/system/cpu/cpu2/power/pm_qos_resume_latency_us", "50");
	tu_write(root, "/sys/devices/system/cpu/cpu3/online", "1");
	return root;
}

static void check_tree(const struct il_pmqos *q)
{
	assert_int_equal(q->nholders, 3);
	assert_int_equal(q->holders[0].pid, 100);
	assert_int_equal(q->holders[0].nfds, 2);
	assert_string_equal(q->holders[0].comm, "cyclictest");
	assert_int_equal(q->holders[1].pid, 200);
	assert_int_equal(q->holders[1].nfds, 1);
	assert_string_equal(q->holders[1].comm, "a\"b\\c\nd");
	assert_int_equal(q->holders[2].pid, 500);
	assert_int_equal(q->holders[2].nfds, 1);
	assert_string_equal(q->holders[2].comm, "chrooted");
	assert_int_equal(q->nrequests, 4);
	assert_int_equal(q->unreadable, 0);
	assert_true(q->has_cpu_latency);
	assert_int_equal(q->cpu_latency_us, 100);
	assert_int_equal(q->ncpus, 3);
	assert_int_equal(q->cpus[0].cpu, 0);
	assert_false(q->cpus[0].limited);
	assert_int_equal(q->cpus[1].cpu, 1);
	assert_true(q->cpus[1].limited);
	assert_int_equal(q->cpus[1].limit_us, 0);
	assert_true(q->cpus[2].limited);
	assert_int_equal(q->cpus[2].limit_us, 50);
}

static void test_pmqos__fake_tree(void **state)
{
	char *root = fake_tree();
	struct il_sysfs_local fs;
	struct il_err err = { 0 };
	struct il_pmqos q;

	(void)state;
	assert_int_equal(il_sysfs_local_init(&fs, root, &err), 0);
	assert_int_equal(il_sysfs_pmqos(&fs.ops, &q, &err), 0);
	check_tree(&q);
	il_pmqos_release(&q);
	tu_rmtree(root);
	free(root);
}

/* The script hosts run gives what the local reader gives, on the same tree. */
static void test_pmqos__runner_script_agrees(void **state)
{
	char *root = fake_tree();
	struct il_buf out = IL_BUF_INIT, errb = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct il_exit ex;
	struct il_pmqos q;
	char *argv[] = { (char *)"sh", (char *)"-c", NULL, (char *)"pmqos", root, NULL };
	struct il_buf script = IL_BUF_INIT;

	(void)state;
	assert_int_equal(il_buf_printf(&script, "R=$1\n%s", il_runners_script("pmqos.sh")), 0);
	argv[2] = script.p;
	assert_int_equal(il_proc_capture(argv, 10000, NULL, &out, &errb, &ex, &err), 0);
	assert_int_equal(ex.code, 0);
	assert_int_equal(il_pmqos_parse(&q, il_buf_str(&out), out.len, "pmqos.sh", &err), 0);
	check_tree(&q);
	il_pmqos_release(&q);
	il_buf_release(&out);
	il_buf_release(&errb);
	il_buf_release(&script);
	tu_rmtree(root);
	free(root);
}

static void want_error_n(const char *text, size_t len, const char *msg)
{
	struct il_err err = { 0 };
	struct il_pmqos q;

	assert_int_equal(il_pmqos_parse(&q, text, len, "t", &err), IL_EPARSE);
	if (!strstr(err.msg, msg))
		fail_msg("'%s' not in '%s'", msg, err.msg);
}

static void want_error(const char *text, const char *msg)
{
	want_error_n(text, strlen(text), msg);
}

static void test_pmqos__parse(void **state)
{
	static const char ok[] = "/tmp/proc/x/proc/12/fd/5:/dev/cpu_dma_latency\n"
				 "/proc/12/comm:x:y\n"
				 "/proc/12/fd/6:/dev/null\n"
				 "/proc/0/fd/1:/dev/cpu_dma_latency\n"
				 "/proc/self/status:whatever\n"
				 "/dev/cpu_dma_latency:  -5\n"
				 "/sys/devices/system/cpu/cpu7/power/pm_qos_resume_latency_us:2147483647\n"
				 "/sys/devices/system/cpu/cpu7/online:1\n";
	struct il_err err = { 0 };
	struct il_pmqos q;

	(void)state;
	assert_int_equal(il_pmqos_parse(&q, ok, strlen(ok), "t", &err), 0);
	/* a root prefix holding "/proc/" is skipped; pid 0, /dev/null and other files are no requests */
	assert_int_equal(q.nholders, 1);
	assert_int_equal(q.holders[0].pid, 12);
	assert_string_equal(q.holders[0].comm, "x:y");
	assert_int_equal(q.nrequests, 1);
	assert_int_equal(q.cpu_latency_us, -5);
	assert_int_equal(q.ncpus, 1);
	assert_true(q.cpus[0].limited);
	assert_int_equal(q.cpus[0].limit_us, 2147483647);
	il_pmqos_release(&q);
	assert_int_equal(il_pmqos_parse(&q, "", 0, "t", &err), 0);
	assert_int_equal(q.nholders + q.ncpus, 0);
	assert_false(q.has_cpu_latency);
	il_pmqos_release(&q);

	want_error("/proc/1/fd/3:/dev/cpu_dma_latency", "t line 1: no final newline");
	want_error("/proc/1/fd/3:/dev/cpu_dma_latency\n/proc/1/fd/3:/dev/cpu_dma_latency\n", "line 2: appears twice");
	want_error("/proc/9/comm:x\n", "line 1: the name of a process that holds no request");
	want_error("/dev/cpu_dma_latency:1\n/dev/cpu_dma_latency:1\n", "line 2: appears twice");
	want_error("/dev/cpu_dma_latency:2147483648\n", "expected a signed 32-bit number");
	want_error("/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us:-1\n", "expected a number of microseconds");
	want_error("/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us:0\n"
		   "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us:0\n",
		   "cpu1's pm_qos_resume_latency_us appears twice");
	want_error("idlelab.unreadable_processes:x\n", "expected a count");
	want_error("garbage\n", "line 1: expected 'path:value'");
	want_error("/proc/1/comm\n", "expected 'path:value'");
	want_error_n("/dev/cpu_dma_latency:1\0\n", 24, "NUL byte");
}

/* The governor bypassed: a CPU latency limit of 0, or a resume latency limit of 0 on a measured CPU. */
static void test_pmqos__bypassed(void **state)
{
	static const char held[] = "/proc/4242/fd/3:/dev/cpu_dma_latency\n/proc/4242/comm:cyclictest\n"
				   "/proc/77/fd/9:/dev/cpu_dma_latency\n/proc/77/comm:tuned\n/dev/cpu_dma_latency:0\n";
	static const char low[] = "/proc/4242/fd/3:/dev/cpu_dma_latency\n/proc/4242/comm:cyclictest\n"
				  "/dev/cpu_dma_latency:1\n";
	static const char unread[] = "/proc/4242/fd/3:/dev/cpu_dma_latency\n/proc/4242/comm:cyclictest\n";
	static const char resume[] = "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us:n/a\n"
				     "/sys/devices/system/cpu/cpu2/power/pm_qos_resume_latency_us:0\n"
				     "/sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us:n/a\n"
				     "/dev/cpu_dma_latency:2000000000\n";
	struct il_err err = { 0 };
	struct il_buf why = IL_BUF_INIT;
	struct il_cpuset only2 = { 0 }, only13 = { 0 };
	struct il_pmqos q;
	bool by = true;

	(void)state;
	assert_int_equal(il_cpuset_parse(&only2, "2", &err), 0);
	assert_int_equal(il_cpuset_parse(&only13, "1,3", &err), 0);
	assert_int_equal(il_pmqos_parse(&q, held, strlen(held), "t", &err), 0);
	assert_int_equal(il_pmqos_bypassed(&q, NULL, &by, &why), 0);
	assert_true(by);
	assert_non_null(strstr(il_buf_str(&why), "governor bypassed: CPU latency limit 0 us (held by PID 77/tuned, "
						 "PID 4242/cyclictest): "));
	assert_non_null(strstr(il_buf_str(&why), "menu returns state 0"));
	il_pmqos_release(&q);
	/* 1 us is a limit, not a bypass; an unreadable device (not root) is not taken for 0 */
	il_buf_reset(&why);
	assert_int_equal(il_pmqos_parse(&q, low, strlen(low), "t", &err), 0);
	assert_int_equal(il_pmqos_bypassed(&q, NULL, &by, &why), 0);
	assert_false(by);
	assert_int_equal(why.len, 0);
	il_pmqos_release(&q);
	assert_int_equal(il_pmqos_parse(&q, unread, strlen(unread), "t", &err), 0);
	assert_int_equal(il_pmqos_bypassed(&q, NULL, &by, NULL), 0);
	assert_false(by);
	il_pmqos_release(&q);
	/* a resume latency of "n/a" is a limit of 0 ("0" is none): only on the measured CPUs */
	assert_int_equal(il_pmqos_parse(&q, resume, strlen(resume), "t", &err), 0);
	assert_int_equal(il_pmqos_bypassed(&q, &only2, &by, &why), 0);
	assert_false(by);
	assert_int_equal(il_pmqos_bypassed(&q, &only13, &by, &why), 0);
	assert_true(by);
	assert_non_null(strstr(il_buf_str(&why), "governor bypassed: resume latency limit 0 us (n/a) on cpus 1,3: "));
	il_pmqos_release(&q);
	il_cpuset_release(&only2);
	il_cpuset_release(&only13);
	il_buf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmqos__fake_tree),
		cmocka_unit_test(test_pmqos__runner_script_agrees),
		cmocka_unit_test(test_pmqos__parse),
		cmocka_unit_test(test_pmqos__bypassed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
