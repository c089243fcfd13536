// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Tested-by block for a reply on linux-pm: what was tested on what
 * (platform, environment, kernels, governors, workloads, iterations), the
 * key metrics, the verdict in words, and the trailer once, at the end
 * (identity from git config through libgit2, or --as). The trailer is only
 * given for a run that measured a commit or series under test on a host
 * that is not the emulated lab; otherwise the block is evidence, and says
 * which rule failed (--force gives the trailer anyway and says so).
 */
#include "report/report.h"

#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/environ.h"
#include "report/tracesum.h"
#include "util/jsonfile.h"

/* The short block's limit: a reply's evidence, not the report (--full has everything). */
#define IL_TB_MAX_LINES 60

static int check_as(const char *as, struct il_err *err)
{
	const char *lt = strchr(as, '<'), *at = lt ? strchr(lt, '@') : NULL, *gt = at ? strchr(at, '>') : NULL;

	if (!lt || lt == as || !at || !gt || gt[1] || strchr(as, '\n'))
		return il_err_set(err, IL_EINVAL, "--as: expected \"Name <email>\", got '%s'", as);
	return 0;
}

static int identity(const char *as, struct il_buf *out, struct il_err *err)
{
	git_config *cfg = NULL;
	git_buf name = { 0 }, mail = { 0 };
	int r = 0;

	if (as)
		return check_as(as, err) ? IL_EINVAL : il_buf_adds(out, as) ? il_err_oom(err) : 0;
	git_libgit2_init();
	if (git_config_open_default(&cfg) < 0 || git_config_get_string_buf(&name, cfg, "user.name") < 0 ||
	    git_config_get_string_buf(&mail, cfg, "user.email") < 0)
		r = il_err_set(err, IL_ENOTFOUND,
			       "no user.name/user.email in git config (%s): set them, or give --as \"Name <email>\"",
			       git_error_last() ? git_error_last()->message : "not found");
	else
		il_buf_printf(out, "%s <%s>", name.ptr, mail.ptr);
	git_buf_dispose(&name);
	git_buf_dispose(&mail);
	git_config_free(cfg);
	git_libgit2_shutdown();
	return r;
}

static const char *str(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? s : "?";
}

static size_t count_lines(const struct il_buf *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->p[i] == '\n';
	return n;
}

/* Whether variant v has any counted sample. */
static bool measured(const struct il_dataset *ds, int v)
{
	for (size_t m = 0; v >= 0 && m < ds->nmet; m++)
		if (ds->met[m].var[v].n)
			return true;
	return false;
}

/*
 * Why this run earns no Tested-by: one sentence per rule that failed, pushed
 * to why (empty: the trailer is due). A Tested-by vouches for a commit or
 * series on real hardware, so: (1) some kernel of the run is a commit under
 * test (not the host's running kernel) and has counted samples; (2) no host
 * is the emulated lab, by the journal's host kind (a journal without kinds
 * cannot tell, so it fails too); (3) no counted sample ran with the
 * governor bypassed (idle.governor_bypass: a CPU latency limit of 0).
 */
static int rules(const struct il_cmp *c, struct il_strlist *why)
{
	const struct il_dataset *ds = c->ds;
	json_t *rs = json_object_get(ds->meta, "run_start"), *kinds = json_object_get(ds->meta, "host_kinds");
	json_t *e, *v, *fp;
	struct il_buf b = IL_BUF_INIT, names = IL_BUF_INIT;
	const char *host;
	size_t i, k, under = 0, with_samples = 0;
	int r = 0;

	json_array_foreach(json_object_get(rs, "kernels"), i, e) {
		if (json_is_true(json_object_get(e, "running")) || !json_is_string(json_object_get(e, "commit")))
			continue;
		under++;
		il_buf_printf(&names, "%s%s", under > 1 ? ", " : "", str(e, "name"));
		json_array_foreach(json_object_get(rs, "variants"), k, v)
			if (json_equal(json_object_get(v, "kernel"), json_object_get(e, "name")) &&
			    measured(ds, il_dataset_var(ds, str(v, "label"))))
				with_samples++;
	}
	if (!under) {
		json_object_foreach(json_object_get(ds->meta, "fingerprints"), host, fp)
			il_buf_printf(&b, "%s%s", b.len ? ", " : "", str(json_object_get(fp, "kernel"), "release"));
		il_buf_printf(&names, "no kernel under test: every sample ran on the host's own kernel (%s), which has "
				      "no commit id; a Tested-by is for a commit or a series - name it in the plan's "
				      "kernels (docs/kernels.md)",
			      b.len ? il_buf_str(&b) : "release not recorded");
		r |= il_strlist_push(why, il_buf_str(&names));
	} else if (!with_samples) {
		il_buf_reset(&b);
		il_buf_printf(&b, "the kernels under test (%s) have no counted sample: they did not build or boot, or "
				  "every sample failed",
			      il_buf_str(&names));
		r |= il_strlist_push(why, il_buf_str(&b));
	}
	json_object_foreach(json_object_get(ds->meta, "fingerprints"), host, fp) {
		const char *kind = json_string_value(json_object_get(kinds, host));

		il_buf_reset(&b);
		if (!kind)
			il_buf_printf(&b, "host %s: its kind is not recorded (a journal from before idlelab recorded it), so "
					  "it cannot be told apart from the emulated lab",
				      host);
		else if (!strcmp(kind, "lab"))
			il_buf_printf(&b, "host %s is idlelab's emulated lab VM (QEMU TCG): governor decisions and idle "
					  "counters are real, but %s - evidence of behaviour, not a test of the patch on "
					  "hardware",
				      host, il_report_lab_underneath(ds, host));
		else
			continue;
		r |= il_strlist_push(why, il_buf_str(&b));
	}
	/* (3) the governor was asked: a CPU latency limit of 0 bypasses it (menu.c returns state 0) */
	if (c->nbypass_all) {
		il_buf_reset(&b);
		il_buf_printf(&b, "the governor was bypassed in %zu counted sample%s (CPU latency limit 0: a process "
				  "held /dev/cpu_dma_latency at 0, e.g. cyclictest without --laptop, or a resume "
				  "latency limit of 0): menu returns state 0 without a prediction, so the governor "
				  "comparison there compares nothing - rerun without the latency request",
			      c->nbypass_all, c->nbypass_all > 1 ? "s" : "");
		r |= il_strlist_push(why, il_buf_str(&b));
	}
	il_buf_release(&b);
	il_buf_release(&names);
	return r ? IL_ENOMEM : 0;
}

/* The rules' verdict at the top: evidence only, or forced and why it would not have been given. */
static void rules_block(const struct il_strlist *why, bool force, struct il_buf *b)
{
	struct il_buf t = IL_BUF_INIT;

	if (!why->n)
		return;
	il_buf_adds(b, force ? "Forced (--force): a Tested-by, although otherwise this is evidence, not a Tested-by:\n" :
			       "Evidence, not a Tested-by:\n");
	for (size_t i = 0; i < why->n; i++) {
		il_buf_reset(&t);
		il_buf_printf(&t, "- %s", why->v[i]);
		il_buf_adds(b, "  ");
		il_report_wrap(b, il_buf_str(&t), 98, 4);
		il_buf_adds(b, "\n");
	}
	if (!force)
		il_buf_adds(b, "  (no trailer; 'idlelab tested-by --force' gives one anyway and says so)\n");
	il_buf_adds(b, "\n");
	il_buf_carry(b, &t);
	il_buf_release(&t);
}

static void what_and_where(const struct il_cmp *c, bool full, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	json_t *rs = json_object_get(ds->meta, "run_start"), *fps = json_object_get(ds->meta, "fingerprints"), *fp, *e;
	json_t *kinds = json_object_get(ds->meta, "host_kinds");
	struct il_buf line = IL_BUF_INIT;
	const char *host, *label;
	size_t i;

	json_object_foreach(fps, host, fp) {
		json_t *ci = json_object_get(fp, "cpuidle"), *k = json_object_get(fp, "kernel");

		il_buf_printf(b, "Platform: %s (%s), CPUs %s, host %s (%s)\n",
			      json_is_string(json_object_get(fp, "cpu_model")) ? str(fp, "cpu_model") : "CPU model not reported",
			      str(k, "arch"), str(fp, "online_cpus"), host,
			      json_is_string(json_object_get(kinds, host)) ? str(kinds, host) : "kind not recorded");
		if (!json_array_size(json_object_get(rs, "kernels")))
			il_buf_printf(b, "Kernel: %s (%s) - the running kernel, no commit id recorded\n", str(k, "release"),
				      str(k, "version"));
		il_buf_printf(b, "cpuidle: driver %s, states:", json_is_string(json_object_get(ci, "driver")) ?
								       str(ci, "driver") : "none");
		json_array_foreach(json_object_get(json_array_get(json_object_get(ci, "state_tables"), 0), "states"), i, e)
			il_buf_printf(b, " %s (%lld/%lld us)", str(e, "name"),
				      (long long)json_integer_value(json_object_get(e, "latency_us")),
				      (long long)json_integer_value(json_object_get(e, "residency_us")));
		il_buf_adds(b, "\n");
		il_environ_report(fp, full, b);
	}
	if (json_array_size(json_object_get(rs, "kernels"))) {
		json_t *rels = json_object_get(ds->meta, "kernel_releases");
		const char *said = NULL; /* the last origin named: a variant has its base's, said once */

		il_buf_adds(&line, "Kernels:");
		json_array_foreach(json_object_get(rs, "kernels"), i, e) {
			const char *name = str(e, "name"), *origin = json_string_value(json_object_get(e, "origin"));
			json_t *rel = json_object_get(rels, name);

			if (json_is_true(json_object_get(e, "running"))) {
				il_buf_printf(&line, "%s %s (the host's own%s%s)", i ? ";" : "", name, rel ? ", " : "",
					      rel ? json_string_value(rel) : "");
				continue;
			}
			/* "base (6.12.118-il23ba4d05, commit 23ba4d05f1d3, from Debian linux-source-6.12 (...))" */
			il_buf_printf(&line, "%s %s (%s%scommit %.12s", i ? ";" : "", name, rel ? json_string_value(rel) : "",
				      rel ? ", " : "", str(e, "commit"));
			if (origin && (!said || strcmp(said, origin)))
				il_buf_printf(&line, ", from %s", origin);
			if (origin)
				said = origin;
			if (json_is_string(json_object_get(e, "subject")))
				il_buf_printf(&line, ": %s", str(e, "subject"));
			il_buf_adds(&line, ")");
		}
		il_report_wrap(b, il_buf_str(&line), 100, 2);
		il_buf_adds(b, "\n");
		il_buf_carry(b, &line);
		il_buf_reset(&line);
	}
	il_buf_adds(&line, "Governors:");
	json_array_foreach(json_object_get(rs, "variants"), i, e) {
		json_t *d = json_object_get(e, "disable"), *x;
		const char *gov = json_is_string(json_object_get(e, "governor")) ? str(e, "governor") : NULL;
		size_t n = strcspn(str(e, "label"), "@"); /* "menu@teo-1": governor config "menu" on kernel teo-1 */
		bool other = gov && (strlen(gov) != n || strncmp(gov, str(e, "label"), n));
		bool paren = other || json_array_size(d);
		size_t k;

		il_buf_printf(&line, "%s %s", i ? "," : "", str(e, "label"));
		if (paren)
			il_buf_printf(&line, " (%s", other ? gov : "");
		json_array_foreach(d, k, x)
			il_buf_printf(&line, "%s%s disabled", k ? ", " : other ? "; " : "",
				      json_is_string(x) ? json_string_value(x) : "?");
		if (paren)
			il_buf_adds(&line, ")");
		if (!strcmp(str(e, "label"), ds->var[c->ref]))
			il_buf_adds(&line, " [reference]");
	}
	il_report_wrap(b, il_buf_str(&line), 100, 2);
	il_buf_carry(b, &line);
	il_buf_reset(&line);
	il_buf_adds(&line, "\nWorkloads:");
	i = 0;
	json_object_foreach(json_object_get(rs, "workloads"), label, e) {
		const char *pk;
		json_t *pv;
		bool first = true;

		il_buf_printf(&line, "%s %s", i++ ? ";" : "", label);
		if (strcmp(label, str(e, "workload")))
			il_buf_printf(&line, " (%s)", str(e, "workload"));
		json_object_foreach(json_object_get(e, "params"), pk, pv) {
			char *v = il_json_dumps(pv, JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));

			il_buf_printf(&line, "%s%s=%s", first ? ": " : " ", pk, v ? v : "?");
			first = false;
			free(v);
		}
	}
	il_report_wrap(b, il_buf_str(&line), 100, 2);
	il_buf_carry(b, &line);
	il_buf_release(&line);
	if (il_report_lab_caveat(ds)) {
		struct il_buf note = IL_BUF_INIT;

		il_buf_printf(&note, "Note: %s", il_report_lab_caveat(ds));
		il_buf_adds(b, "\n");
		il_report_wrap(b, il_buf_str(&note), 100, 2);
		il_buf_release(&note);
	}
	{
		struct il_buf note = IL_BUF_INIT;

		il_buf_adds(&note, "Note: ");
		if (il_tracesum_blind_note(ds, &note)) {
			il_buf_adds(b, "\n");
			il_report_wrap(b, il_buf_str(&note), 100, 2);
		}
		il_buf_carry(b, &note);
		il_buf_release(&note);
	}
	{
		/* an adaptive run: how far it went and why it stopped, not its maximum as if it were the count */
		struct il_buf it = IL_BUF_INIT;

		if (il_report_stop_note(c, &it))
			il_buf_printf(&line, "Iterations: %s; +%lld warmup, order %s; %zu samples counted", il_buf_str(&it),
				      (long long)json_integer_value(json_object_get(rs, "warmup")), str(rs, "order"),
				      ds->counted);
		else
			il_buf_printf(&line, "Iterations: %lld per variant and workload (+%lld warmup), order %s; %zu samples "
					     "counted",
				      (long long)json_integer_value(json_object_get(rs, "iterations")),
				      (long long)json_integer_value(json_object_get(rs, "warmup")), str(rs, "order"),
				      ds->counted);
		il_buf_carry(&line, &it);
		il_buf_release(&it);
		il_buf_adds(b, "\n");
		il_report_wrap(b, il_buf_str(&line), 100, 2);
		il_buf_adds(b, "\n\n");
		il_buf_carry(b, &line);
		il_buf_release(&line);
	}
}

static bool finding(const struct il_cmp *c, size_t i)
{
	for (size_t v = 0; v < c->ds->nvar; v++)
		if ((int)v != c->aa && il_decide_verdict_differs(il_compare_res(c, i, v)->vk))
			return true;
	return false;
}

/* One key metric: a line naming it and the reference's mean, then one per other variant. */
static void key_metric(const struct il_cmp *c, size_t i, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	const struct il_mseries *m = &ds->met[c->met[i]];
	char n1[32], ch[16], p[16];

	il_buf_printf(b, "%s (%s%s%s): %s %s [reference]\n", m->key, m->unit, *m->unit ? ", " : "",
		      m->better == IL_BETTER_HIGHER ? "higher is better" :
		      m->better == IL_BETTER_LOWER  ? "lower is better" :
						      "no direction",
		      ds->var[c->ref], il_report_fmt_num(n1, sizeof(n1), il_compare_res(c, i, (size_t)c->ref)->d.mean));
	for (size_t v = 0; v < ds->nvar; v++) {
		const struct il_mres *x = il_compare_res(c, i, v);

		if ((int)v == c->ref)
			continue;
		snprintf(ch, sizeof(ch), isfinite(x->change_pct) ? "%+.1f%%" : "-", x->change_pct);
		snprintf(p, sizeof(p), isfinite(x->p) ? "p=%.2g" : "-", x->p);
		il_buf_printf(b, "  %-24.24s %10s %8s %9s  %s", ds->var[v], il_report_fmt_num(n1, sizeof(n1), x->d.mean), ch, p,
			      x->verdict);
		if (x->vk == IL_VERDICT_UNKNOWN && x->n_needed)
			il_buf_printf(b, " (n~%zu)", x->n_needed);
		il_buf_printf(b, "%s%s\n", !c->key[i] && il_decide_verdict_differs(x->vk) ? " (exploratory)" : "",
			      (int)v == c->aa ? " (A/A)" : "");
	}
}

/* One key metric in one (wrapped) line: "key (unit): ref 21.0 [reference]; ladder 50.1 +138.4% p=2.6e-14 worse; ...". */
static void key_metric_short(const struct il_cmp *c, size_t i, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	const struct il_mseries *m = &ds->met[c->met[i]];
	struct il_buf line = IL_BUF_INIT;
	char n1[32];

	il_buf_printf(&line, "%s (%s): %s %s [reference]", m->key, m->unit, ds->var[c->ref],
		      il_report_fmt_num(n1, sizeof(n1), il_compare_res(c, i, (size_t)c->ref)->d.mean));
	for (size_t v = 0; v < ds->nvar; v++) {
		const struct il_mres *x = il_compare_res(c, i, v);

		if ((int)v == c->ref)
			continue;
		il_buf_printf(&line, "; %s %s", ds->var[v], il_report_fmt_num(n1, sizeof(n1), x->d.mean));
		if (isfinite(x->change_pct))
			il_buf_printf(&line, " %+.1f%%", x->change_pct);
		if (isfinite(x->p))
			il_buf_printf(&line, " p=%.2g", x->p);
		il_buf_printf(&line, " %s%s", x->verdict, (int)v == c->aa ? " (A/A)" : "");
	}
	il_report_wrap(b, il_buf_str(&line), 100, 2);
	il_buf_adds(b, "\n");
	il_buf_carry(b, &line);
	il_buf_release(&line);
}

/*
 * The key metrics within budget lines: every one of the decision family
 * (each workload's key_metrics, or --metric's), a block each, or a line each
 * when the blocks do not fit (the lines are shortened, never the family);
 * then the secondary metrics that differ (exploratory: BH q-values) as far
 * as the budget goes, and a line saying what --full adds.
 */
static void key_metrics(const struct il_cmp *c, size_t budget, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	size_t block = ds->nvar, used = 1, left = 0; /* a block: its name line and one per other variant */
	bool said = false;

	size_t nkey = 0;
	bool compact;

	for (size_t i = 0; i < c->nmet; i++)
		nkey += c->key[i];
	compact = used + nkey * block > budget;
	il_buf_adds(b, "Key metrics (the decision family; --full for every metric):\n");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < c->nmet; i++) {
			if (pass == 0 ? !c->key[i] : c->key[i] || !finding(c, i))
				continue;
			if (pass == 0 && compact) {
				key_metric_short(c, i, b);
				used += 2;
				continue;
			}
			if (used + block + 1 + (pass && !said) > budget) {
				left++;
				continue;
			}
			if (pass && !said) {
				il_buf_adds(b, "Secondary metrics that differ (exploratory: BH q-values, not the verdict):\n");
				used++;
				said = true;
			}
			key_metric(c, i, b);
			used += block;
		}
	if (left)
		il_buf_printf(b, "  ... %zu more metric%s: idlelab tested-by --full\n", left, left > 1 ? "s" : "");
}

int il_testedby_report(const struct il_cmp *c, const struct il_tb_opts *o, struct il_buf *b, struct il_err *err)
{
	const struct il_dataset *ds = c->ds;
	struct il_buf who = IL_BUF_INIT, head = IL_BUF_INIT, tail = IL_BUF_INIT, s = IL_BUF_INIT;
	struct il_strlist why = { 0 };
	bool trailer;
	int r;

	if (!json_object_get(ds->meta, "run_start"))
		return il_err_set(err, IL_EINVAL, "tested-by needs a run directory (a journal with a run-start record)");
	if (o->as && (r = check_as(o->as, err)))
		return r;
	if ((r = rules(c, &why))) {
		il_strlist_release(&why);
		return il_err_oom(err);
	}
	trailer = (!why.n || o->force) && !o->no_trailer;
	if (trailer && (r = identity(o->as, &who, err))) {
		il_strlist_release(&why);
		return r;
	}
	/* first: a host that was not quiet, then whether this is a Tested-by at all */
	il_buf_adds(&s, "WARNING: ");
	if (il_compare_aa_warning(c, &s)) {
		il_report_wrap(&head, il_buf_str(&s), 100, 2);
		il_buf_adds(&head, "\n\n");
	}
	il_buf_reset(&s);
	il_buf_adds(&s, "WARNING: ");
	if (il_compare_bypass_warning(c, &s)) {
		il_report_wrap(&head, il_buf_str(&s), 100, 2);
		il_buf_adds(&head, "\n\n");
	}
	il_buf_carry(&head, &s);
	if (!o->no_header) {
		rules_block(&why, o->force, &head);
		what_and_where(c, o->full, &head);
	}
	il_buf_reset(&s);
	il_buf_adds(&s, "Verdict: ");
	il_compare_sentence(c, &s);
	il_buf_adds(&tail, "\n");
	il_report_wrap(&tail, il_buf_str(&s), 100, 2);
	il_buf_adds(&tail, "\n");
	il_buf_carry(&tail, &s);
	/* the trailer once, at the very end: where a maintainer's tools pick it up */
	if (trailer)
		il_buf_printf(&tail, "\nTested-by: %s\n", il_buf_str(&who));
	il_buf_add(b, head.p ? head.p : "", head.len);
	if (o->full) {
		il_report_text(c, b);
		/* the text report ends with the verdict already */
		if (trailer)
			il_buf_printf(b, "\nTested-by: %s\n", il_buf_str(&who));
	} else {
		size_t fixed = count_lines(&head) + count_lines(&tail);

		key_metrics(c, fixed < IL_TB_MAX_LINES ? IL_TB_MAX_LINES - fixed : 0, b);
		il_buf_add(b, tail.p ? tail.p : "", tail.len);
	}
	il_buf_carry(b, &head);
	il_buf_carry(b, &tail);
	il_buf_release(&who);
	il_buf_release(&head);
	il_buf_release(&tail);
	il_buf_release(&s);
	il_strlist_release(&why);
	r = il_buf_error(b);
	return r == IL_ETOOBIG ? il_err_set(err, r, "report too large") : r ? il_err_oom(err) : 0;
}
