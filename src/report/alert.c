// SPDX-License-Identifier: GPL-2.0-or-later
/* A regression alert: the input read through jfields, the lkp-style mail, the webhook JSON and its POST. */
#include "report/alert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/reportkit.h"
#include "util/buf.h"
#include "util/http.h"
#include "util/jfields.h"
#include "util/str.h"
#include "util/utf8.h"
#include "util/jsonfile.h"

#define LABEL "alert"
/* What a mail line may take (the table, the header paragraph): the lkp mails' width. */
#define WIDTH 100
/* The table's columns before the metric's name (see row()). */
#define FIXED 64

/* ---- The input ---- */

struct reg {
	const json_t *j;      /* first: a string's .off is never 0 (see read_obj) */
	const char *workload, *metric, *unit, *variant, *better;
	const char *kind, *since;  /* "jump" (NULL) or "drift"; a drift's first commit at the new level */
	double baseline_mean, baseline_stdev, mean, stdev, change_pct, p;
	int n_baseline, n;
	size_t idx;           /* in the input's regressions */
	double group_worst;   /* the largest |change_pct| of its workload: workloads are listed worst first */
	size_t group_first;   /* the workload's first index in the input: ties keep the input's order */
};

struct alert {
	const json_t *baseline, *regressions; /* first: a string's .off is never 0 (see read_obj) */
	const char *plan, *host, *branch, *commit, *subject, *run, *range, *reproduce, *bisect;
	const char *base_commit, *base_run;
	struct reg *regs;
	size_t n;
};

#define ONE_LINE "one line of text"
#define HEX40 "a commit id of 40 hexadecimal digits"
/* A string borrowed from the document at .off (read_obj), not stored by jfields: nothing to free on any path. */
#define STR(k, req, w, st, m) { .key = (k), .type = IL_JF_STRING, .required = (req), .what = (w), .off = offsetof(st, m) }
#define A_STR(k, req, w, m) STR(k, req, w, struct alert, m)
#define R_STR(k, req, w, m) STR(k, req, w, struct reg, m)
#define REQ_AT(k, t, st, m) { .key = (k), .type = (t), .required = true, .store = true, .off = offsetof(st, m) }
#define REQ_RANGE(k, t, lo, hi, w, m) \
	{ .key = (k), .type = (t), .required = true, .ranged = true, .min = (lo), .max = (hi), .what = (w), \
	  .store = true, .off = offsetof(struct reg, m) }

static const struct il_jfield top_fields[] = {
	A_STR("plan", true, NULL, plan), A_STR("host", true, NULL, host), A_STR("branch", true, NULL, branch),
	A_STR("commit", true, HEX40, commit), A_STR("subject", false, NULL, subject), A_STR("run", false, NULL, run),
	A_STR("range", true, "\"BASE..TIP\" (the baseline's and the tip's commit ids)", range),
	A_STR("reproduce", true, NULL, reproduce), A_STR("bisect", true, NULL, bisect),
	{ .key = "baseline", .type = IL_JF_OBJECT, .required = true, .what = "an object with \"commit\" (and \"run\")",
	  .store = true, .off = offsetof(struct alert, baseline) },
	{ .key = "regressions", .type = IL_JF_ARRAY, .required = true, .what = "a non-empty array of regressions",
	  .store = true, .off = offsetof(struct alert, regressions) },
};

static const struct il_jfield baseline_fields[] = {
	A_STR("commit", true, HEX40, base_commit),
	A_STR("run", false, NULL, base_run),
};

static const struct il_jfield reg_fields[] = {
	R_STR("workload", true, NULL, workload), R_STR("metric", true, NULL, metric), R_STR("variant", true, NULL, variant),
	R_STR("unit", false, NULL, unit), R_STR("better", true, "\"lower\" or \"higher\"", better),
	R_STR("kind", false, "\"jump\" or \"drift\"", kind),
	R_STR("since", false, "with kind \"drift\": a commit id (7 to 40 hexadecimal digits)", since),
	REQ_AT("baseline_mean", IL_JF_NUMBER, struct reg, baseline_mean),
	REQ_RANGE("baseline_stdev", IL_JF_NUMBER, 0, HUGE_VAL, "a number, 0 or more", baseline_stdev),
	REQ_AT("mean", IL_JF_NUMBER, struct reg, mean),
	REQ_RANGE("stdev", IL_JF_NUMBER, 0, HUGE_VAL, "a number, 0 or more", stdev),
	REQ_AT("change_pct", IL_JF_NUMBER, struct reg, change_pct),
	REQ_RANGE("p", IL_JF_NUMBER, 0, 1, NULL, p),
	REQ_RANGE("n_baseline", IL_JF_INT, 1, 1000000000, NULL, n_baseline),
	REQ_RANGE("n", IL_JF_INT, 1, 1000000000, NULL, n),
};

static const char *sval(const json_t *o, const char *key)
{
	return json_string_value(il_jfields_get(o, key));
}

/*
 * il_jfields_read o into out, then point each string field at its value in the
 * document (fields with an .off), each checked to be one line: it lands in a
 * mail header, a table cell or a shell line.
 */
static int read_obj(const json_t *o, const struct il_jfield *t, size_t n, void *out, const char *path, struct il_err *err)
{
	int r = il_jfields_read(o, t, n, out, LABEL, path, err);

	for (size_t i = 0; !r && i < n; i++) {
		const char *s = t[i].type == IL_JF_STRING ? sval(o, t[i].key) : NULL;

		for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				return il_jfields_bad(err, LABEL, path, t[i].key, "%s", ONE_LINE);
		if (t[i].type == IL_JF_STRING && t[i].off)
			*(const char **)((char *)out + t[i].off) = s;
	}
	return r;
}

static bool hex_ok(const char *s, size_t min, size_t max)
{
	size_t n = strspn(s, "0123456789abcdef");

	return !s[n] && n >= min && n <= max;
}

/* "BASE..TIP": abbreviations of the baseline's commit and of the tip's. */
static bool range_ok(const struct alert *a)
{
	const char *dots = strstr(a->range, "..");
	size_t nb = dots ? (size_t)(dots - a->range) : 0;
	char base[41];

	if (!dots || nb < 7 || nb > 40 || dots[2] == '.')
		return false;
	snprintf(base, sizeof(base), "%.*s", (int)nb, a->range);
	return hex_ok(base, 7, 40) && hex_ok(dots + 2, 7, 40) && !strncmp(a->base_commit, base, nb) &&
	       !strncmp(a->commit, dots + 2, strlen(dots + 2));
}

static int by_rank(const void *x, const void *y)
{
	const struct reg *a = x, *b = y;

	if (a->group_worst != b->group_worst)
		return a->group_worst > b->group_worst ? -1 : 1;
	if (a->group_first != b->group_first)
		return a->group_first < b->group_first ? -1 : 1;
	if (fabs(a->change_pct) != fabs(b->change_pct))
		return fabs(a->change_pct) > fabs(b->change_pct) ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int read_reg(struct reg *g, const json_t *o, size_t i, struct il_err *err)
{
	char path[64];
	int r;

	il_jfields_path(path, sizeof(path), "regressions", NULL, i);
	if (!json_is_object(o))
		return il_jfields_bad(err, LABEL, path, NULL, "a regression object");
	*g = (struct reg){ .j = o, .idx = i };
	if ((r = read_obj(o, reg_fields, IL_JF_COUNT(reg_fields), g, path, err)))
		return r;
	if (strcmp(g->better, "lower") && strcmp(g->better, "higher"))
		return il_jfields_bad(err, LABEL, path, "better", "%s", reg_fields[4].what);
	if (g->kind && strcmp(g->kind, "jump") && strcmp(g->kind, "drift"))
		return il_jfields_bad(err, LABEL, path, "kind", "%s", reg_fields[5].what);
	if (g->kind && !strcmp(g->kind, "jump"))
		g->kind = NULL;
	if (g->kind ? !g->since || !hex_ok(g->since, 7, 40) : g->since != NULL)
		return il_jfields_bad(err, LABEL, path, "since", "%s", reg_fields[6].what);
	/* a regression moves against "better": the nightly's sign convention checked, not trusted */
	if (!strcmp(g->better, "lower") ? g->change_pct <= 0 : g->change_pct >= 0)
		return il_jfields_bad(err, LABEL, path, "change_pct", "a change for the worse (better is '%s': %s 0)",
				 g->better, !strcmp(g->better, "lower") ? "above" : "below");
	return 0;
}

static int read_alert(struct alert *a, const json_t *in, struct il_err *err)
{
	const json_t *o;
	size_t i;
	int r;

	if (!json_is_object(in))
		return il_jfields_bad(err, LABEL, NULL, NULL, "an object");
	if ((r = read_obj(in, top_fields, IL_JF_COUNT(top_fields), a, NULL, err)) ||
	    (r = read_obj(a->baseline, baseline_fields, IL_JF_COUNT(baseline_fields), a, "baseline", err)))
		return r;
	if (!hex_ok(a->commit, 40, 40))
		return il_jfields_bad(err, LABEL, NULL, "commit", HEX40);
	if (!hex_ok(a->base_commit, 40, 40))
		return il_jfields_bad(err, LABEL, "baseline", "commit", HEX40);
	if (!range_ok(a))
		return il_jfields_bad(err, LABEL, NULL, "range", "\"BASE..TIP\" with BASE baseline.commit and TIP commit "
				 "(7 to 40 hexadecimal digits each)");
	if (!(a->n = json_array_size(a->regressions)))
		return il_jfields_bad(err, LABEL, NULL, "regressions", "%s", top_fields[10].what);
	if (!(a->regs = calloc(a->n, sizeof(*a->regs))))
		return il_err_oom(err);
	json_array_foreach(a->regressions, i, o)
		if ((r = read_reg(&a->regs[i], o, i, err)))
			return r;
	for (i = 0; i < a->n; i++) {
		struct reg *g = &a->regs[i];

		g->group_first = i;
		for (size_t k = 0; k < a->n; k++)
			if (!strcmp(a->regs[k].workload, g->workload)) {
				g->group_worst = fmax(g->group_worst, fabs(a->regs[k].change_pct));
				if (k < g->group_first)
					g->group_first = k;
			}
	}
	qsort(a->regs, a->n, sizeof(*a->regs), by_rank);
	return 0;
}

/* ---- The mail ---- */

/* Columns of UTF-8 text s (one per character: the table's text is not East Asian wide). */
static size_t columns(const char *s, size_t len)
{
	size_t c = 0;

	for (size_t i = 0; i < len; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* A change in at most 9 columns: "+12.7%", "+1.2e+05%". */
static const char *fmt_change(char *buf, size_t n, double v)
{
	if (snprintf(buf, n, "%+.1f%%", v) > 9)
		snprintf(buf, n, "%+.2g%%", v);
	return buf;
}

/* "±  2%" (5 columns): the relative standard deviation; "    -" when the mean is 0. */
static const char *fmt_sd(char *buf, size_t n, double sd, double mean)
{
	double pct = mean != 0 ? 100 * sd / fabs(mean) : NAN;

	if (isnan(pct))
		snprintf(buf, n, "    -");
	else
		snprintf(buf, n, "±%3.0f%%", fmin(pct, 999));
	return buf;
}

static int table(struct il_buf *b, const struct alert *a, size_t from, size_t to)
{
	char n1[32], n2[32], s1[16], s2[16], ch[32], p[32], n[32];
	struct il_buf label = IL_BUF_INIT;
	size_t room;
	int r;

	r = il_buf_printf(b, "\nworkload: %s\n\n", a->regs[from].workload);
	r |= il_buf_printf(b, "%16.12s  %9s  %18.12s\n", a->base_commit, "", a->commit);
	r |= il_buf_printf(b, "%.16s  %.9s  %.18s\n", "------------------", "------------------", "------------------");
	r |= il_buf_printf(b, "%16s  %9s  %18s  %8s  %7s  %s\n", "mean  stdev", "%change", "mean  stdev", "p", "n", "metric");
	for (size_t i = from; i < to; i++) {
		const struct reg *g = &a->regs[i];

		il_buf_reset(&label);
		il_buf_printf(&label, "%s (%s%s%s)", g->metric, g->variant, g->unit ? ", " : "", g->unit ? g->unit : "");
		if (g->kind)
			il_buf_printf(&label, " drift since %.12s", g->since);
		snprintf(n, sizeof(n), "%d/%d", g->n_baseline, g->n);
		snprintf(p, sizeof(p), "%.2g", g->p);
		/* FIXED columns: 10 + 1 + 5, 2 + 9, 2 + 10 + 1 + 5, 2 + 8, 2 + 7, 2 */
		r |= il_buf_printf(b, "%10s %s  %9s  %10s %s  %8s  %7s  ", il_report_fmt_num(n1, sizeof(n1), g->baseline_mean),
				   fmt_sd(s1, sizeof(s1), g->baseline_stdev, g->baseline_mean),
				   fmt_change(ch, sizeof(ch), g->change_pct), il_report_fmt_num(n2, sizeof(n2), g->mean),
				   fmt_sd(s2, sizeof(s2), g->stdev, g->mean), p, n);
		/* a name too long for the row goes on a line of its own, cut at the width */
		room = WIDTH - FIXED;
		if (columns(label.p, label.len) > room) {
			r |= il_buf_adds(b, "\n    ");
			room = WIDTH - 4;
		}
		while (label.len && columns(label.p, label.len) > room) {
			do
				label.len--;
			while (label.len && ((unsigned char)label.p[label.len] & 0xc0) == 0x80);
			label.p[label.len] = 0;
		}
		r |= il_buf_printf(b, "%s\n", label.p);
	}
	r |= il_buf_carry(b, &label);
	il_buf_release(&label);
	return r;
}

static int mail_body(struct il_buf *b, const struct alert *a)
{
	size_t nwl = 0;
	int r;

	for (size_t i = 0; i < a->n; i++)
		nwl += !i || strcmp(a->regs[i].workload, a->regs[i - 1].workload);
	r = il_buf_adds(b, "Hello,\n\n");
	{
		struct il_buf t = IL_BUF_INIT;

		il_buf_printf(&t, "idlelab's nightly run of plan '%s' on host '%s' found %zu regression%s beyond noise "
				  "in %zu workload%s on branch '%s', commit %.12s, against the last good nightly (commit "
				  "%.12s).", a->plan, a->host, a->n, a->n == 1 ? "" : "s", nwl, nwl == 1 ? "" : "s",
			      a->branch, a->commit, a->base_commit);
		r |= il_buf_carry(b, &t) | il_report_wrap(b, il_buf_str(&t), WIDTH, 0);
		il_buf_release(&t);
	}
	r |= il_buf_printf(b, "\n\nplan:     %s\nhost:     %s\nbranch:   %s\n", a->plan, a->host, a->branch);
	{
		struct il_buf t = IL_BUF_INIT;

		/* the label's blanks kept: il_report_wrap would fold them into one */
		il_buf_adds(&t, a->commit);
		if (a->subject)
			il_buf_printf(&t, " (\"%s\")", a->subject);
		r |= il_buf_adds(b, "commit:   ");
		r |= il_buf_carry(b, &t) | il_report_wrap(b, il_buf_str(&t), WIDTH - 10, 10);
		il_buf_release(&t);
	}
	r |= il_buf_printf(b, "\nbaseline: %s", a->base_commit);
	/* a long run id (a nightly's names its plan and commit) goes on a line of its own */
	if (a->base_run)
		r |= il_buf_printf(b, "%s(run %s)", 10 + 40 + 6 + strlen(a->base_run) + 1 > WIDTH ? "\n          " : " ",
				   a->base_run);
	r |= il_buf_adds(b, "\n");
	if (a->run)
		r |= il_buf_printf(b, "run:      %s\n", a->run);
	for (size_t i = 0, j; i < a->n; i = j) {
		for (j = i + 1; j < a->n && !strcmp(a->regs[j].workload, a->regs[i].workload);)
			j++;
		r |= table(b, a, i, j);
	}
	r |= il_buf_adds(b, "\nmean  stdev: the mean of the samples and their standard deviation in % of it; p: the\n"
			    "comparison's p-value; n: samples, baseline/tip.\n");
	for (size_t i = 0; i < a->n; i++)
		if (a->regs[i].kind) {
			r |= il_buf_adds(b, "drift: a change point over the last nightlies (docs/nightly.md): means of the\n"
					    "nightlies before and since the commit named, their stdev, and nightlies counted.\n");
			break;
		}
	r |= il_buf_printf(b, "\ncommit range:\n  %s\n", a->range);
	r |= il_buf_printf(b, "\nto reproduce:\n  %s\n", a->reproduce);
	r |= il_buf_printf(b, "\nto bisect (suggested):\n  %s\n", a->bisect);
	r |= il_buf_adds(b, "\n-- \nidlelab nightly (docs/alerts.md)\n");
	return r;
}

/* ---- The webhook ---- */

static json_t *webhook_json(const struct alert *a, const char *subject, const char *body)
{
	json_t *w = json_object(), *regs = json_array(), *base = json_object();
	int r = !w || !regs || !base;

	r |= json_object_set_new(w, "schema", json_string("idlelab-alert/1"));
	r |= json_object_set_new(w, "subject", json_string(subject));
	r |= json_object_set_new(w, "plan", json_string(a->plan));
	r |= json_object_set_new(w, "host", json_string(a->host));
	r |= json_object_set_new(w, "branch", json_string(a->branch));
	r |= json_object_set_new(w, "commit", json_string(a->commit));
	if (a->subject)
		r |= json_object_set_new(w, "commit_subject", json_string(a->subject));
	r |= json_object_set_new(base, "commit", json_string(a->base_commit));
	if (a->base_run)
		r |= json_object_set_new(base, "run", json_string(a->base_run));
	r |= json_object_set(w, "baseline", base);
	if (a->run)
		r |= json_object_set_new(w, "run", json_string(a->run));
	r |= json_object_set_new(w, "range", json_string(a->range));
	for (size_t i = 0; i < a->n; i++)
		r |= json_array_append_new(regs, json_deep_copy(a->regs[i].j));
	r |= json_object_set(w, "regressions", regs);
	r |= json_object_set_new(w, "reproduce", json_string(a->reproduce));
	r |= json_object_set_new(w, "bisect", json_string(a->bisect));
	r |= json_object_set_new(w, "text", json_string(body));
	json_decref(regs);
	json_decref(base);
	if (r) {
		json_decref(w);
		return NULL;
	}
	return w;
}

/*
 * The tip's subject is written by whoever can commit to the branch: it must
 * never keep the alert from going out. Made one line of printable text
 * (il_str_sanitize, tabs too) cut to SUBJECT_MAX bytes on a character
 * boundary with "...", in a copy of in (a new reference; in itself when there
 * is no subject; NULL when memory ran out).
 */
#define SUBJECT_MAX 200
static json_t *tame_subject(const json_t *in)
{
	const char *s = json_is_object(in) ? json_string_value(json_object_get(in, "subject")) : NULL;
	json_t *c;
	char *t;
	size_t n = 0;

	if (!s)
		return json_incref((json_t *)in);
	/* room for the "..." */
	if (!(t = malloc(strlen(s) + 4)) || !(c = json_copy((json_t *)in))) {
		free(t);
		return NULL;
	}
	memcpy(t, s, strlen(s) + 1);
	for (char *p = t; *p; p++)
		if (*p == '\t')
			*p = ' ';
	il_str_sanitize(t, false);
	while (t[n] && n + il_utf8_len((const unsigned char *)t + n) <= SUBJECT_MAX)
		n += il_utf8_len((const unsigned char *)t + n);
	if (t[n])
		memcpy(t + n, "...", 4);
	if (json_object_set_new(c, "subject", json_string(t))) {
		json_decref(c);
		c = NULL;
	}
	free(t);
	return c;
}

/*
 * What SMTP takes whatever the names are (`alert send` reads anyone's JSON):
 * the mail's subject cut to SUBJECT_LINE_MAX bytes on a character boundary
 * ("..."), and a body line over MAIL_LINE_MAX bytes (a name or a path that
 * long) split at a character boundary. The mail can always be sent.
 */
#define SUBJECT_LINE_MAX 400
#define MAIL_LINE_MAX 998
static void cut_subject(struct il_buf *s)
{
	size_t n = 0;

	if (s->len <= SUBJECT_LINE_MAX || !s->p)
		return;
	while (n + il_utf8_len((const unsigned char *)s->p + n) <= SUBJECT_LINE_MAX - 3)
		n += il_utf8_len((const unsigned char *)s->p + n);
	s->len = n;
	s->p[n] = 0;
	il_buf_adds(s, "...");
}

static void split_long_lines(struct il_buf *b)
{
	struct il_buf out = IL_BUF_INIT;
	const char *p = b->p, *end = b->p ? b->p + b->len : NULL, *line;
	size_t n;
	bool long_line = false;

	for (const char *q = p; p && il_str_next_line(&q, end, &line, &n);)
		long_line |= n > MAIL_LINE_MAX - 1;
	if (!long_line)
		return;
	while (p < end) {
		size_t col = 0;

		while (p < end && *p != '\n') {
			size_t k = il_utf8_len((const unsigned char *)p);

			if (!k)
				k = 1;
			if (col + k > MAIL_LINE_MAX - 1) {
				il_buf_adds(&out, "\n");
				col = 0;
			}
			il_buf_add(&out, p, k);
			col += k;
			p += k;
		}
		if (p < end) {
			il_buf_adds(&out, "\n");
			p++;
		}
	}
	if (il_buf_error(&out)) {
		b->nomem = true;
	} else {
		il_buf_release(b);
		*b = out;
		return;
	}
	il_buf_release(&out);
}

int il_alert_compose(const json_t *in0, char **subject, char **body, json_t **webhook, struct il_err *err)
{
	struct alert a = { 0 };
	struct il_buf s = IL_BUF_INIT, t = IL_BUF_INIT;
	json_t *w = NULL, *in = tame_subject(in0);
	char ch[32];
	int r;

	if (!in)
		return il_err_oom(err);
	if ((r = read_alert(&a, in, err)))
		goto cleanup;
	il_buf_printf(&s, "idlelab: %s regression of %s.%s (%s)", fmt_change(ch, sizeof(ch), a.regs[0].change_pct),
		      a.regs[0].workload, a.regs[0].metric, a.regs[0].variant);
	if (a.n > 1)
		il_buf_printf(&s, " and %zu more", a.n - 1);
	il_buf_printf(&s, " on %s %.12s", a.branch, a.commit);
	mail_body(&t, &a);
	cut_subject(&s);
	split_long_lines(&t);
	if ((r = il_buf_error(&s)) || (r = il_buf_error(&t)) ||
	    (webhook && !(w = webhook_json(&a, il_buf_str(&s), il_buf_str(&t))))) {
		r = il_err_oom(err);
		goto cleanup;
	}
	if (subject)
		*subject = il_buf_detach(&s);
	if (body)
		*body = il_buf_detach(&t);
	if (webhook)
		*webhook = w, w = NULL;
	if ((subject && !*subject) || (body && !*body)) {
		if (subject)
			free(*subject), *subject = NULL;
		if (body)
			free(*body), *body = NULL;
		if (webhook)
			json_decref(*webhook), *webhook = NULL;
		r = il_err_oom(err);
	}
cleanup:
	json_decref(w);
	json_decref(in);
	free(a.regs);
	il_buf_release(&s);
	il_buf_release(&t);
	return r;
}

int il_alert_post_webhook(const char *url, const json_t *json, const struct il_strlist *headers,
			  void (*accepted)(void *ctx), void *ctx, struct il_err *err)
{
	struct il_strlist hl = { 0 };
	struct il_buf resp = IL_BUF_INIT;
	char *shown = il_http_url_shown_nopath(url), *text = il_json_dumps(json, JSON_COMPACT | JSON_PRESERVE_ORDER);
	struct il_http_req q = { .url = url, .url_shown = shown, .method = "POST", .body = text, .headers = &hl,
				 .user_agent = "idlelab (alert)", .timeout_s = 60, .connect_timeout_s = 15, .max_body = 512,
				 .accepted = accepted, .accepted_ctx = ctx };
	long status = 0;
	int r = 0;

	if (!shown || !text || il_strlist_push(&hl, "Content-Type: application/json")) {
		r = il_err_oom(err);
		goto cleanup;
	}
	for (size_t i = 0; headers && i < headers->n; i++)
		if (il_strlist_push(&hl, headers->v[i])) {
			r = il_err_oom(err);
			goto cleanup;
		}
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		r = il_err_set(err, IL_EINVAL, "webhook %s: expected an http:// or https:// URL", shown);
		goto cleanup;
	}
	if ((r = il_http_perform(&q, &status, &resp, err)))
		il_err_prefix(err, "webhook ");
	else if (status < 200 || status > 299)
		r = il_err_set(err, IL_EIO, "webhook %s: answered HTTP %ld", shown, status);
cleanup:
	il_strlist_release(&hl);
	il_buf_release(&resp);
	free(text);
	free(shown);
	return r;
}
