// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LAVA job definitions: read back with libyaml (structure, values that
 * survive any quoting), template errors, and the generated test steps run
 * by a real /bin/sh on this machine (lava-test-case as a shell function):
 * the scripts decode and pass their checksums, each sample comes back
 * base64-armoured with the runner's frames inside (reading a damaged
 * console back: test_run_lavajobarmour.c).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "idle/diff.h"
#include "run/lavajob.h"
#include "run/runner.h"
#include "util/proc.h"
#include "util/sha256.h"

struct doc {
	yaml_document_t d;
};

static void load(struct doc *d, const char *text)
{
	yaml_parser_t p;

	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&p, &d->d))
		fail_msg("rendered job is not YAML: %s\n%s", p.problem, text);
	yaml_parser_delete(&p);
}

/* The node at a path of keys (mapping) and "#N" (sequence index); NULL when absent. */
static yaml_node_t *at(struct doc *d, const char *path)
{
	yaml_node_t *n = yaml_document_get_root_node(&d->d);
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k && n; k = strtok_r(NULL, "/", &save)) {
		yaml_node_t *next = NULL;

		if (k[0] == '#' && n->type == YAML_SEQUENCE_NODE) {
			long i = atol(k + 1);

			if (n->data.sequence.items.start + i < n->data.sequence.items.top)
				next = yaml_document_get_node(&d->d, n->data.sequence.items.start[i]);
		} else if (n->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
				yaml_node_t *kn = yaml_document_get_node(&d->d, p->key);

				if (kn->type == YAML_SCALAR_NODE && !strcmp((char *)kn->data.scalar.value, k))
					next = yaml_document_get_node(&d->d, p->value);
			}
		}
		n = next;
	}
	return n;
}

static const char *str(struct doc *d, const char *path)
{
	yaml_node_t *n = at(d, path);

	if (!n || n->type != YAML_SCALAR_NODE)
		fail_msg("%s: no scalar", path);
	return (const char *)n->data.scalar.value;
}

static size_t len(struct doc *d, const char *path)
{
	yaml_node_t *n = at(d, path);

	if (!n || n->type != YAML_SEQUENCE_NODE)
		fail_msg("%s: no list", path);
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

#define STEPS "actions/#2/test/definitions/#0/repository/run/steps"

static void two_samples(struct il_lavajob *j, struct il_lavajob_sample s[2], struct il_strlist *argv,
			struct il_strlist *dis, struct il_strlist *uni, struct il_strlist *tags)
{
	memset(argv, 0, sizeof(*argv));
	memset(dis, 0, sizeof(*dis));
	memset(uni, 0, sizeof(*uni));
	memset(tags, 0, sizeof(*tags));
	assert_int_equal(0, il_strlist_push(argv, "echo"));
	assert_int_equal(0, il_strlist_push(argv, "it's a 'quoted'\nline: $(id)"));
	assert_int_equal(0, il_strlist_push(dis, "ret-deep"));
	assert_int_equal(0, il_strlist_push(uni, "ret-deep"));
	assert_int_equal(0, il_strlist_push(uni, "C6"));
	assert_int_equal(0, il_strlist_push(tags, "board: rk3399"));
	assert_int_equal(0, il_strlist_push(tags, "idle-states"));
	s[0] = (struct il_lavajob_sample){ .seq = 0, .nonce = "ILaaaa", .case_name = "menu/sleeper 2 s",
					   .governor = "menu", .argv = argv, .timeout_s = 30 };
	s[1] = (struct il_lavajob_sample){ .seq = 7, .nonce = "ILbbbb", .case_name = "teo", .governor = "teo",
					   .disable = dis, .quiesce_s = 0.5, .cpus = "0-1", .argv = argv };
	*j = (struct il_lavajob){ .job_name = "idlelab: plan \"x\" on lab", .device_type = "qemu", .tags = tags,
				  .kernel_url = "file:///srv/idlelab/k 1/Image", .ramdisk_url = "http://127.0.0.1/r.cpio.gz",
				  .dtb_url = "file:///d.dtb", .disable_union = uni, .samples = s, .nsamples = 2 };
}

static void release(struct il_strlist *a, struct il_strlist *b, struct il_strlist *c, struct il_strlist *d)
{
	il_strlist_release(a);
	il_strlist_release(b);
	il_strlist_release(c);
	il_strlist_release(d);
}

static void test_lavajob__structure(void **state)
{
	struct il_strlist argv, dis, uni, tags;
	struct il_lavajob_sample s[2];
	struct il_lavajob j;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct doc d;

	(void)state;
	two_samples(&j, s, &argv, &dis, &uni, &tags);
	if (il_lavajob_render(&j, &out, &err))
		fail_msg("%s", err.msg);
	load(&d, il_buf_str(&out));
	/* values with quotes, colons and spaces come back exactly: the emitter quoted them */
	assert_string_equal(str(&d, "job_name"), "idlelab: plan \"x\" on lab");
	assert_string_equal(str(&d, "device_type"), "qemu");
	assert_string_equal(str(&d, "priority"), "medium");
	assert_string_equal(str(&d, "visibility"), "public");
	assert_string_equal(str(&d, "tags/#0"), "board: rk3399");
	assert_string_equal(str(&d, "context/arch"), "arm64");
	assert_int_equal(len(&d, "actions"), 3);
	assert_string_equal(str(&d, "actions/#0/deploy/images/kernel/url"), "file:///srv/idlelab/k 1/Image");
	assert_string_equal(str(&d, "actions/#0/deploy/images/ramdisk/url"), "http://127.0.0.1/r.cpio.gz");
	assert_string_equal(str(&d, "actions/#0/deploy/images/ramdisk/format"), "cpio.newc");
	assert_string_equal(str(&d, "actions/#1/boot/prompts/#0"), "/ # ");
	/* 120 s + (30 + 30) + (600 + 0 + 30) = 810 s: 14 minutes for the samples, 15 more for the job */
	assert_string_equal(str(&d, "actions/#2/test/timeout/minutes"), "14");
	assert_string_equal(str(&d, "timeouts/job/minutes"), "29");
	assert_string_equal(str(&d, "timeouts/connection/minutes"), "2");
	/* mktemp, three scripts, il_begin, the two samples, rm */
	assert_int_equal(len(&d, STEPS), 8);
	assert_non_null(strstr(str(&d, STEPS "/#0"), "mktemp -d /tmp/idlelab.XXXXXX"));
	assert_string_equal(str(&d, STEPS "/#4"),
			    ". \"$IL/block.sh\" && IL_UNION='ret-deep,C6' && il_begin || lava-test-raise idlelab-begin");
	assert_string_equal(str(&d, STEPS "/#5"), "il_sample 0 ILaaaa s0-menu_sleeper_2_s menu '' 0 '' 30 "
						  "-- echo 'it'\\''s a '\\''quoted'\\''\nline: $(id)'");
	assert_string_equal(str(&d, STEPS "/#6"), "il_sample 7 ILbbbb s7-teo teo ret-deep 0.5 0-1 0 "
						  "-- echo 'it'\\''s a '\\''quoted'\\''\nline: $(id)'");
	yaml_document_delete(&d.d);
	/* a numeric priority stays a number */
	il_buf_reset(&out);
	j.priority = "80";
	assert_int_equal(il_lavajob_render(&j, &out, &err), 0);
	load(&d, il_buf_str(&out));
	assert_int_equal(at(&d, "priority")->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
	assert_string_equal(str(&d, "priority"), "80");
	yaml_document_delete(&d.d);
	il_buf_release(&out);
	release(&argv, &dis, &uni, &tags);
}

static void test_lavajob__template(void **state)
{
	static const struct {
		const char *tpl, *want;
	} bad[] = {
		{ "actions: [a, b", "board.yaml:2:1:" },
		{ "- deploy: {}\n", "board.yaml: expected a mapping (a LAVA job definition) at the top" },
		{ "device_type: x\n", "board.yaml: no actions" },
		{ "actions: {deploy: 1}\n", "board.yaml: actions: expected a list of actions" },
		{ "actions:\n- deploy: {images: {kernel: {url: '{idlelab.kernel_uri}'}}}\n",
		  "board.yaml: '{idlelab.kernel_uri}': unknown placeholder (known: {idlelab.kernel_url}" },
	};
	static const char good[] = "job_name: theirs\ndevice_type: theirs\ntimeouts:\n  job: {minutes: 1}\n"
				   "  action: {minutes: 7}\nmetadata: {owner: lab}\nactions:\n"
				   "- deploy: {to: tftp, kernel: {url: '{idlelab.kernel_url}', type: image}, "
				   "modules: {url: '{idlelab.modules_url}'}, image_arg: '-kernel {kernel}'}\n- boot: {method: u-boot, commands: ramdisk}\n";
	struct il_strlist argv, dis, uni, tags;
	struct il_lavajob_sample s[2];
	struct il_lavajob j;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct doc d;

	(void)state;
	two_samples(&j, s, &argv, &dis, &uni, &tags);
	j.template_label = "board.yaml";
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		j.template_text = bad[i].tpl;
		il_buf_reset(&out);
		if (il_lavajob_render(&j, &out, &err) != IL_EPARSE || !strstr(err.msg, bad[i].want))
			fail_msg("case %zu: '%s', wanted '%s'", i, err.msg, bad[i].want);
	}
	/* a board's own template: its deploy and boot kept, placeholders filled, our keys ours */
	j.template_text = good;
	j.modules_url = "http://127.0.0.1/m.tar.xz";
	il_buf_reset(&out);
	if (il_lavajob_render(&j, &out, &err))
		fail_msg("%s", err.msg);
	load(&d, il_buf_str(&out));
	assert_string_equal(str(&d, "job_name"), "idlelab: plan \"x\" on lab");
	assert_string_equal(str(&d, "device_type"), "qemu");
	assert_string_equal(str(&d, "metadata/owner"), "lab");
	assert_string_equal(str(&d, "timeouts/action/minutes"), "7");
	assert_string_equal(str(&d, "timeouts/job/minutes"), "29");
	assert_string_equal(str(&d, "actions/#0/deploy/to"), "tftp");
	assert_string_equal(str(&d, "actions/#0/deploy/kernel/url"), "file:///srv/idlelab/k 1/Image");
	assert_string_equal(str(&d, "actions/#0/deploy/modules/url"), "http://127.0.0.1/m.tar.xz");
	assert_string_equal(str(&d, "actions/#0/deploy/image_arg"), "-kernel {kernel}");
	assert_string_equal(str(&d, "actions/#1/boot/method"), "u-boot");
	assert_non_null(at(&d, "actions/#2/test"));
	yaml_document_delete(&d.d);
	il_buf_release(&out);
	release(&argv, &dis, &uni, &tags);
}

/* base64 text between IDLELAB-BEGIN NAME and IDLELAB-END NAME, decoded and checked against its line */
static char *attachment(const char *out, const char *name, size_t *n)
{
	char begin[128], end[128], hex[65], want[65];
	const char *b, *e;
	struct il_sha256 h;
	unsigned long bytes;
	size_t m = 0;
	char *dec, *enc;

	snprintf(begin, sizeof(begin), "IDLELAB-BEGIN %s ", name);
	snprintf(end, sizeof(end), "IDLELAB-END %s\n", name);
	if (!(b = strstr(out, begin)) || !(e = strstr(b, end)))
		fail_msg("no attachment %s in:\n%s", name, out);
	assert_int_equal(sscanf(b + strlen(begin), "%64s %lu", want, &bytes), 2);
	b = strchr(b, '\n') + 1;
	enc = calloc(1, (size_t)(e - b) + 1);
	dec = calloc(1, (size_t)(e - b) + 4);
	for (const char *p = b; p < e; p++)
		if (*p != '\n')
			enc[m++] = *p;
	*n = m ? (size_t)EVP_DecodeBlock((unsigned char *)dec, (unsigned char *)enc, (int)m) : 0;
	while (m && enc[m - 1] == '=') { /* EVP_DecodeBlock counts the padding as zero bytes */
		(*n)--;
		m--;
	}
	assert_int_equal(*n, bytes);
	assert_int_equal(il_sha256_init(&h), 0);
	il_sha256_update(&h, dec, *n);
	il_sha256_final(&h, hex);
	assert_string_equal(hex, want);
	free(enc);
	return dec;
}

#define GOV_FILE "/sys/devices/system/cpu/cpuidle/current_governor"

/* The generated steps, run by /bin/sh here as lava-test-runner would run them on the board. */
static void test_lavajob__steps_run(void **state)
{
	struct il_strlist argv, dis, uni, tags;
	struct il_lavajob_sample s[2];
	struct il_lavajob j;
	struct il_buf out = IL_BUF_INIT, script = IL_BUF_INIT, sout = IL_BUF_INIT, serr = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct il_exit ex;
	struct doc d;
	size_t n;
	char *a, *dir = tu_tmpdir(), pathenv[600];

	(void)state;
	two_samples(&j, s, &argv, &dis, &uni, &tags);
	s[1].cpus = NULL; /* taskset may be missing here */
	assert_int_equal(il_lavajob_render(&j, &out, &err), 0);
	load(&d, il_buf_str(&out));
	/* LAVA's helpers as this test's own commands, in a private directory put first on the steps' PATH */
	tu_write(dir, "/lava-test-case", "#!/bin/sh\necho \"LTC $*\"\n");
	tu_write(dir, "/lava-test-raise", "#!/bin/sh\necho \"RAISE $*\"\nexit 1\n");
	snprintf(pathenv, sizeof(pathenv), "PATH=%s:/usr/sbin:/usr/bin:/sbin:/bin", dir);
	{
		char f[600];

		snprintf(f, sizeof(f), "%s/lava-test-case", dir);
		chmod(f, 0755);
		snprintf(f, sizeof(f), "%s/lava-test-raise", dir);
		chmod(f, 0755);
	}
	for (size_t i = 0; i < len(&d, STEPS); i++) {
		char path[sizeof(STEPS) + 16];

		snprintf(path, sizeof(path), STEPS "/#%zu", i);
		il_buf_printf(&script, "%s\n", str(&d, path));
	}
	{
		/* -e -x as lava-test-runner runs them: its trace must not reach the armoured files, and
		 * nothing in the block may end the test by failing */
		char *av[] = { "env", pathenv, "sh", "-e", "-x", "-c", script.p, NULL };

		/*
		 * the block switches governors as it would on a board that is rebooted after
		 * the job; here it is this machine, so its governor is put back afterwards
		 */
		char gov[64] = "";
		FILE *g = fopen(GOV_FILE, "r");

		if (g && !fgets(gov, sizeof(gov), g))
			gov[0] = 0;
		if (g)
			fclose(g);
		assert_int_equal(il_proc_capture(av, 60000, NULL, &sout, &serr, &ex, &err), 0);
		if (gov[0] && (g = fopen(GOV_FILE, "w"))) {
			fputs(gov, g);
			fclose(g);
		}
	}
	if (ex.code || strstr(sout.p, "RAISE"))
		fail_msg("steps failed (exit %d):\n%s\n%s", ex.code, il_buf_str(&sout), il_buf_str(&serr));
	assert_non_null(strstr(sout.p, "IDLELAB-BEGIN probe "));
	assert_non_null(strstr(sout.p, "LTC s0-menu_sleeper_2_s --result "));
	assert_non_null(strstr(sout.p, "LTC s7-teo --result "));
	a = attachment(sout.p, "sample-0", &n);
	/* the runner's frames for this nonce, the workload's output inside them */
	assert_non_null(strstr(a, "@@ILaaaa "));
	/*
	 * and the sample's idle entries for LAVA's UI: the block's count must be
	 * idlelab's own of the same two snapshots, whatever idle states (or none)
	 * the machine running this test has
	 */
	{
		struct il_runner_out ro = { 0 };
		struct il_snapshot pre = { 0 }, post = { 0 };
		struct il_diff df = { 0 };
		char want[128];

		assert_int_equal(il_runner_parse(a, n, "ILaaaa", &ro, &err), 0);
		assert_int_equal(il_snapshot_parse(&pre, ro.pre.p, ro.pre.len, "pre", &err), 0);
		assert_int_equal(il_snapshot_parse(&post, ro.post.p, ro.post.len, "post", &err), 0);
		assert_int_equal(il_diff_compute(&df, &pre, &post, &err), 0);
		snprintf(want, sizeof(want), "LTC s0-menu_sleeper_2_s-idles --result pass --measurement %lld --units entries\n",
			 (long long)(df.total.c[IL_C_USAGE].ok ? df.total.c[IL_C_USAGE].v : 0));
		if (!strstr(sout.p, want))
			fail_msg("the block's idle entries are not idlelab's (%s):\n%s", want, il_buf_str(&sout));
		il_diff_release(&df);
		il_snapshot_release(&pre);
		il_snapshot_release(&post);
		il_runner_out_release(&ro);
	}
	a = (free(a), attachment(sout.p, "sample-7", &n));
	assert_non_null(strstr(a, "@@ILbbbb "));
	free(a);
	a = attachment(sout.p, "probe", &n);
	assert_non_null(strstr(a, "idlelab.uname_r:"));
	/* the reader idlelab uses agrees with this test's own, file by file */
	{
		struct il_strlist lines = { 0 };
		struct il_lavajob_file *f;
		size_t nf;
		char *save = NULL, *copy = strdup(sout.p);

		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			assert_int_equal(0, il_strlist_push(&lines, l));
		assert_int_equal(il_lavajob_unarmour((const char *const *)lines.v, lines.n, &f, &nf, &err), 0);
		assert_int_equal(nf, 5); /* probe, sample-0 and its .err, sample-7 and its .err */
		assert_string_equal(f[0].name, "probe");
		assert_true(f[0].ok);
		assert_int_equal(f[0].data.len, n);
		assert_memory_equal(f[0].data.p, a, n);
		assert_string_equal(f[3].name, "sample-7");
		assert_true(f[3].ok && f[4].ok);
		il_lavajob_files_release(f, nf);
		il_strlist_release(&lines);
		free(copy);
	}
	free(a);
	yaml_document_delete(&d.d);
	il_buf_release(&out);
	il_buf_release(&script);
	il_buf_release(&sout);
	il_buf_release(&serr);
	release(&argv, &dis, &uni, &tags);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lavajob__structure),
		cmocka_unit_test(test_lavajob__template),
		cmocka_unit_test(test_lavajob__steps_run),
	};

	return cmocka_run_group_tests_name("run_lavajob", tests, NULL, NULL);
}
