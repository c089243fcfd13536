// SPDX-License-Identifier: GPL-2.0-or-later
/* LAVA job definitions for a kernel block of samples (run/lavajob.h). */
#include "run/lavajob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "host/quote.h"
#include "host/runners.h"
#include "run/runner.h"
#include "util/sha256.h"

const char *const il_lavajob_placeholders[] = { "kernel_url", "ramdisk_url", "dtb_url", "modules_url", NULL };

/*
 * The built-in template: the lab's own kernel, initramfs and device tree
 * (docs/lab.md) deployed to tmpfs and booted by LAVA's QEMU device type.
 * LAVA unpacks its test overlay into the (uncompressed newc) ramdisk itself;
 * the lab's init ends in an interactive busybox shell on ttyAMA0 whose
 * prompt is "/ # ", so there is no login to automate.
 */
static const char default_template[] =
	"device_type: qemu\n"
	"context:\n"
	"  arch: arm64\n"
	"timeouts:\n"
	"  action: {minutes: 10}\n"
	"  connection: {minutes: 2}\n"
	"actions:\n"
	"- deploy:\n"
	"    to: tmpfs\n"
	"    timeout: {minutes: 5}\n"
	"    images:\n"
	"      kernel:\n"
	"        url: '{idlelab.kernel_url}'\n"
	"        image_arg: -kernel {kernel} -append \"console=ttyAMA0 rdinit=/init panic=-1\"\n"
	"      ramdisk:\n"
	"        url: '{idlelab.ramdisk_url}'\n"
	"        image_arg: -initrd {ramdisk}\n"
	"        compression: gz\n"
	"        format: cpio.newc\n"
	"        overlays:\n"
	"          lava: true\n"
	"      dtb:\n"
	"        url: '{idlelab.dtb_url}'\n"
	"        image_arg: -dtb {dtb}\n"
	"- boot:\n"
	"    method: qemu\n"
	"    media: tmpfs\n"
	"    timeout: {minutes: 5}\n"
	"    prompts: ['/ # ']\n";

const char *il_lavajob_default_template(void)
{
	return default_template;
}

/* The keys idlelab sets itself: a template's own are replaced. */
static const char *const own_keys[] = { "job_name", "device_type", "priority", "visibility", "tags", NULL };

struct gen {
	const struct il_lavajob *j;
	yaml_document_t *src;
	yaml_document_t doc;
	const char *const *vals;        /* in the order of il_lavajob_placeholders */
	const char *label;
	struct il_err *err;
	int failed;
};

static int oom(struct gen *g)
{
	if (!g->failed)
		g->failed = il_err_oom(g->err);
	return 0;
}

static int scalar(struct gen *g, const char *s)
{
	int id = yaml_document_add_scalar(&g->doc, NULL, (yaml_char_t *)s, (int)strlen(s), YAML_ANY_SCALAR_STYLE);

	return id ? id : oom(g);
}

/* A number as YAML writes it: a plain scalar, so LAVA reads an integer. */
static int number(struct gen *g, long v)
{
	char b[32];
	int id;

	snprintf(b, sizeof(b), "%ld", v);
	id = yaml_document_add_scalar(&g->doc, NULL, (yaml_char_t *)b, (int)strlen(b), YAML_PLAIN_SCALAR_STYLE);
	return id ? id : oom(g);
}

static int mapping(struct gen *g, yaml_mapping_style_t style)
{
	int id = yaml_document_add_mapping(&g->doc, NULL, style);

	return id ? id : oom(g);
}

static int sequence(struct gen *g)
{
	int id = yaml_document_add_sequence(&g->doc, NULL, YAML_BLOCK_SEQUENCE_STYLE);

	return id ? id : oom(g);
}

static void pair(struct gen *g, int map, const char *key, int value)
{
	int k = g->failed ? 0 : scalar(g, key);

	if (!g->failed && value && !yaml_document_append_mapping_pair(&g->doc, map, k, value))
		oom(g);
}

static void item(struct gen *g, int seq, int value)
{
	if (!g->failed && value && !yaml_document_append_sequence_item(&g->doc, seq, value))
		oom(g);
}

/* {minutes: N} */
static int minutes(struct gen *g, long m)
{
	int t = mapping(g, YAML_FLOW_MAPPING_STYLE);

	pair(g, t, "minutes", number(g, m < 1 ? 1 : m));
	return t;
}

/*
 * "{idlelab.NAME}" replaced by NAME's value; anything else, LAVA's own
 * "{kernel}" in an image_arg included, stays as written. An unknown
 * idlelab name is an error (a typo would otherwise reach LAVA as a URL).
 */
static int expand(struct gen *g, const char *s, size_t n, struct il_buf *b)
{
	static const char pre[] = "{idlelab.";
	const char *end = s + n;

	while (s < end) {
		const char *p = memmem(s, (size_t)(end - s), pre, sizeof(pre) - 1), *close;
		size_t k;

		if (!p) {
			il_buf_add(b, s, (size_t)(end - s));
			break;
		}
		il_buf_add(b, s, (size_t)(p - s));
		close = memchr(p, '}', (size_t)(end - p));
		for (k = 0; close && il_lavajob_placeholders[k]; k++)
			if ((size_t)(close - p) - (sizeof(pre) - 1) == strlen(il_lavajob_placeholders[k]) &&
			    !memcmp(p + sizeof(pre) - 1, il_lavajob_placeholders[k], strlen(il_lavajob_placeholders[k])))
				break;
		if (!close || !il_lavajob_placeholders[k]) {
			struct il_buf known = IL_BUF_INIT;

			for (size_t i = 0; il_lavajob_placeholders[i]; i++)
				il_buf_printf(&known, " {idlelab.%s}", il_lavajob_placeholders[i]);
			g->failed = il_err_set(g->err, IL_EPARSE, "%s: '%.*s': unknown placeholder (known:%s)", g->label,
					       close ? (int)(close - p + 1) : (int)(end - p), p, il_buf_str(&known));
			il_buf_release(&known);
			return g->failed;
		}
		il_buf_adds(b, g->vals[k] ? g->vals[k] : "");
		s = close + 1;
	}
	return 0;
}

/* The template's node id, copied into the new document with placeholders expanded in every scalar. */
static int copy(struct gen *g, int id)
{
	yaml_node_t *n = yaml_document_get_node(g->src, id);
	int out = 0;

	if (g->failed || !n)
		return 0;
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		struct il_buf b = IL_BUF_INIT;

		if (expand(g, (const char *)n->data.scalar.value, n->data.scalar.length, &b))
			;
		else if (il_buf_error(&b))
			oom(g);
		else if (!(out = yaml_document_add_scalar(&g->doc, n->tag, (yaml_char_t *)il_buf_str(&b), (int)b.len,
							  n->data.scalar.style)))
			oom(g);
		il_buf_release(&b);
		return out;
	}
	case YAML_SEQUENCE_NODE:
		if (!(out = yaml_document_add_sequence(&g->doc, n->tag, n->data.sequence.style)))
			return oom(g);
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
			item(g, out, copy(g, *i));
		return out;
	case YAML_MAPPING_NODE:
		if (!(out = yaml_document_add_mapping(&g->doc, n->tag, n->data.mapping.style)))
			return oom(g);
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			int k = copy(g, p->key), v = copy(g, p->value);

			if (!g->failed && !yaml_document_append_mapping_pair(&g->doc, out, k, v))
				oom(g);
		}
		return out;
	default:
		return 0;
	}
}

/* A scalar key's text, or NULL. */
static const char *key_text(yaml_document_t *d, int id)
{
	yaml_node_t *n = yaml_document_get_node(d, id);

	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool is_own(const char *k)
{
	for (size_t i = 0; k && own_keys[i]; i++)
		if (!strcmp(k, own_keys[i]))
			return true;
	return false;
}

/* Test case names LAVA accepts: letters, digits, '.', '_' and '-'. */
static void case_name(struct il_buf *b, const struct il_lavajob_sample *s)
{
	const char *c = s->case_name && *s->case_name ? s->case_name : "sample";

	il_buf_printf(b, "s%zu-", s->seq);
	for (; *c; c++)
		il_buf_add(b, (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
					      *c == '.' || *c == '_' || *c == '-'
				      ? c
				      : "_",
			   1);
}

/* A script written on the target from base64, refused unless its SHA-256 is the one sent. */
static void put_script(struct il_buf *b, const char *name, const char *text)
{
	size_t n = strlen(text);
	unsigned char *enc = malloc(4 * ((n + 2) / 3) + 1);
	struct il_sha256 h;
	char hex[65];

	if (!enc || il_sha256_init(&h)) {
		free(enc);
		b->nomem = true;
		return;
	}
	il_sha256_update(&h, text, n);
	il_sha256_final(&h, hex);
	EVP_EncodeBlock(enc, (const unsigned char *)text, (int)n);
	il_buf_printf(b, "echo %s | base64 -d > \"$IL/%s\" && [ \"$(sha256sum < \"$IL/%s\" | cut -c1-64)\" = %s ] || "
			 "lava-test-raise idlelab-script-%s",
		      enc, name, name, hex, name);
	free(enc);
}

/* "a,b,c" */
static void joined(struct il_buf *b, const struct il_strlist *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		il_buf_printf(b, "%s%s", i ? "," : "", l->v[i]);
}

static int step(struct gen *g, int steps, struct il_buf *b)
{
	if (il_buf_error(b))
		return oom(g);
	item(g, steps, scalar(g, il_buf_str(b)));
	il_buf_reset(b);
	return 0;
}

/* il_sample SEQ NONCE CASE GOVERNOR DISABLE QUIESCE_S CPUS TIMEOUT_S -- ARGV..., every word quoted */
static void sample_step(struct il_buf *b, const struct il_lavajob_sample *s)
{
	struct il_buf cn = IL_BUF_INIT, dis = IL_BUF_INIT;
	char seq[32], q[32], to[32];
	size_t na = s->argv ? s->argv->n : 0;
	char **av = calloc(na + 11, sizeof(*av));

	if (!av) {
		b->nomem = true;
		return;
	}
	case_name(&cn, s);
	joined(&dis, s->disable);
	snprintf(seq, sizeof(seq), "%zu", s->seq);
	snprintf(q, sizeof(q), "%g", s->quiesce_s > 0 ? s->quiesce_s : 0.0);
	snprintf(to, sizeof(to), "%d", s->timeout_s > 0 ? s->timeout_s : 0);
	av[0] = (char *)"il_sample";
	av[1] = seq;
	av[2] = (char *)s->nonce;
	av[3] = (char *)il_buf_str(&cn);
	av[4] = (char *)(s->governor ? s->governor : "");
	av[5] = (char *)il_buf_str(&dis);
	av[6] = q;
	av[7] = (char *)(s->cpus ? s->cpus : "");
	av[8] = to;
	av[9] = (char *)"--";
	for (size_t i = 0; i < na; i++)
		av[10 + i] = s->argv->v[i];
	if (il_buf_error(&cn) || il_buf_error(&dis) || il_quote_shown(b, av))
		b->nomem = true;
	free(av);
	il_buf_release(&cn);
	il_buf_release(&dis);
}

/* The test action: scripts, il_begin, one il_sample per sample. Returns its node. */
static int test_action(struct gen *g, long test_min)
{
	const struct il_lavajob *j = g->j;
	struct il_buf b = IL_BUF_INIT;
	char *sample = il_runner_sample_script();
	int act = mapping(g, YAML_BLOCK_MAPPING_STYLE), test = mapping(g, YAML_BLOCK_MAPPING_STYLE);
	int defs = sequence(g), def = mapping(g, YAML_BLOCK_MAPPING_STYLE), repo = mapping(g, YAML_BLOCK_MAPPING_STYLE);
	int meta = mapping(g, YAML_BLOCK_MAPPING_STYLE), run = mapping(g, YAML_BLOCK_MAPPING_STYLE), steps = sequence(g);

	if (!sample)
		oom(g);
	pair(g, act, "test", test);
	pair(g, test, "timeout", minutes(g, test_min));
	pair(g, test, "definitions", defs);
	item(g, defs, def);
	pair(g, def, "from", scalar(g, "inline"));
	pair(g, def, "name", scalar(g, "idlelab"));
	pair(g, def, "path", scalar(g, "inline/idlelab.yaml"));
	pair(g, def, "repository", repo);
	pair(g, repo, "metadata", meta);
	pair(g, meta, "format", scalar(g, "Lava-Test Test Definition 1.0"));
	pair(g, meta, "name", scalar(g, "idlelab"));
	pair(g, meta, "description", scalar(g, "idlelab samples of one kernel block (runners/lava-block.sh)"));
	pair(g, repo, "run", run);
	pair(g, run, "steps", steps);
	/* a private directory of this job's own: never a fixed path in /tmp */
	il_buf_adds(&b, "IL=$(mktemp -d /tmp/idlelab.XXXXXX) || lava-test-raise idlelab-mktemp");
	step(g, steps, &b);
	if (sample) {
		struct il_buf probe = IL_BUF_INIT;

		put_script(&b, "block.sh", il_runners_script("lava-block.sh"));
		step(g, steps, &b);
		put_script(&b, "sample.sh", sample);
		step(g, steps, &b);
		il_buf_adds(&probe, il_runners_script("probe.sh"));
		il_buf_adds(&probe, il_runners_script("snapshot.sh"));
		if (il_buf_error(&probe))
			oom(g);
		else
			put_script(&b, "probe.sh", il_buf_str(&probe));
		il_buf_release(&probe);
		step(g, steps, &b);
	}
	{
		struct il_buf u = IL_BUF_INIT;
		char *av[2] = { NULL, NULL };

		joined(&u, j->disable_union);
		/* IL_UNION='a,b': quoted as one word after the '=' */
		il_buf_adds(&b, ". \"$IL/block.sh\" && IL_UNION=");
		av[0] = (char *)il_buf_str(&u);
		if (il_buf_error(&u) || il_quote_argv(&b, av))
			b.nomem = true;
		il_buf_adds(&b, " && il_begin || lava-test-raise idlelab-begin");
		il_buf_release(&u);
		step(g, steps, &b);
	}
	for (size_t i = 0; i < j->nsamples; i++) {
		sample_step(&b, &j->samples[i]);
		step(g, steps, &b);
	}
	il_buf_adds(&b, "rm -rf \"$IL\"");
	step(g, steps, &b);
	il_buf_release(&b);
	free(sample);
	return act;
}

static int emit_to_buf(void *data, unsigned char *buffer, size_t size)
{
	return il_buf_add((struct il_buf *)data, buffer, size) ? 0 : 1;
}

int il_lavajob_render(const struct il_lavajob *j, struct il_buf *out, struct il_err *err)
{
	const char *text = j->template_text ? j->template_text : default_template;
	const char *vals[] = { j->kernel_url, j->ramdisk_url, j->dtb_url, j->modules_url };
	struct gen g = { .j = j, .label = j->template_text ? (j->template_label ? j->template_label : "job template")
							   : "the built-in job template",
			 .err = err, .vals = vals };
	yaml_parser_t parser;
	yaml_document_t src;
	yaml_emitter_t em;
	yaml_node_t *root;
	int newroot = 0, actions = 0;
	long test_s = 120, test_min;

	if (!yaml_parser_initialize(&parser))
		return il_err_oom(err);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &src)) {
		int r = il_err_set(err, IL_EPARSE, "%s:%zu:%zu: %s", g.label, parser.problem_mark.line + 1,
				   parser.problem_mark.column + 1, parser.problem ? parser.problem : "not YAML");

		yaml_parser_delete(&parser);
		return r;
	}
	yaml_parser_delete(&parser);
	g.src = &src;
	root = yaml_document_get_root_node(&src);
	if (!root || root->type != YAML_MAPPING_NODE) {
		yaml_document_delete(&src);
		return il_err_set(err, IL_EPARSE, "%s: expected a mapping (a LAVA job definition) at the top", g.label);
	}
	if (!yaml_document_initialize(&g.doc, NULL, NULL, NULL, 0, 0)) {
		yaml_document_delete(&src);
		return il_err_oom(err);
	}
	for (size_t i = 0; i < j->nsamples; i++)
		test_s += (j->samples[i].timeout_s > 0 ? j->samples[i].timeout_s : 600) + (long)j->samples[i].quiesce_s + 30;
	test_min = (test_s + 59) / 60;
	newroot = mapping(&g, YAML_BLOCK_MAPPING_STYLE);
	pair(&g, newroot, "job_name", scalar(&g, j->job_name ? j->job_name : "idlelab"));
	pair(&g, newroot, "device_type", scalar(&g, j->device_type ? j->device_type : "qemu"));
	pair(&g, newroot, "priority", j->priority && *j->priority >= '0' && *j->priority <= '9'
					      ? number(&g, atol(j->priority))
					      : scalar(&g, j->priority ? j->priority : "medium"));
	pair(&g, newroot, "visibility", scalar(&g, j->visibility ? j->visibility : "public"));
	if (j->tags && j->tags->n) {
		int t = sequence(&g);

		for (size_t i = 0; i < j->tags->n; i++)
			item(&g, t, scalar(&g, j->tags->v[i]));
		pair(&g, newroot, "tags", t);
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !g.failed; p++) {
		const char *k = key_text(&src, p->key);
		yaml_node_t *v = yaml_document_get_node(&src, p->value);

		if (is_own(k))
			continue;
		if (k && !strcmp(k, "timeouts") && v && v->type == YAML_MAPPING_NODE) {
			/* the template's action and connection time-outs stay; the job's covers the samples */
			int t = mapping(&g, YAML_BLOCK_MAPPING_STYLE);

			pair(&g, t, "job", minutes(&g, test_min + 15));
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
				const char *tk = key_text(&src, q->key);

				if (tk && strcmp(tk, "job"))
					pair(&g, t, tk, copy(&g, q->value));
			}
			pair(&g, newroot, "timeouts", t);
			continue;
		}
		if (k && !strcmp(k, "actions")) {
			if (!v || v->type != YAML_SEQUENCE_NODE) {
				g.failed = il_err_set(err, IL_EPARSE, "%s: actions: expected a list of actions", g.label);
				break;
			}
			actions = copy(&g, p->value);
			item(&g, actions, test_action(&g, test_min));
			pair(&g, newroot, "actions", actions);
			continue;
		}
		pair(&g, newroot, k ? k : "?", copy(&g, p->value));
	}
	if (!g.failed && !actions)
		g.failed = il_err_set(err, IL_EPARSE, "%s: no actions: expected its deploy and boot actions", g.label);
	if (!g.failed && !yaml_document_get_node(&g.doc, newroot))
		oom(&g);
	yaml_document_delete(&src);
	if (g.failed) {
		yaml_document_delete(&g.doc);
		return g.failed;
	}
	if (!yaml_emitter_initialize(&em)) {
		yaml_document_delete(&g.doc);
		return il_err_oom(err);
	}
	yaml_emitter_set_output(&em, emit_to_buf, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	if (!yaml_emitter_open(&em) || !yaml_emitter_dump(&em, &g.doc) || !yaml_emitter_close(&em) ||
	    !yaml_emitter_flush(&em) || il_buf_error(out)) {
		int r = il_err_set(err, IL_ENOMEM, "YAML output: %s", em.problem ? em.problem : il_err_strerror(IL_ENOMEM));

		yaml_emitter_delete(&em);
		return r;
	}
	yaml_emitter_delete(&em);
	return 0;
}
