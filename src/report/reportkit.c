// SPDX-License-Identifier: GPL-2.0-or-later
/* What every report renderer shares: number formatting, word wrapping, the lab caveat's condition. */
#include "report/reportkit.h"

#include "lab/labarch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *il_report_fmt_num(char *buf, size_t n, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (a == 0)
		snprintf(buf, n, "0");
	else if (a < 1e15 && v == floor(v))
		snprintf(buf, n, "%.0f", v);
	else if (a >= 1e5)
		snprintf(buf, n, "%.0f", v);
	else if (a >= 1)
		snprintf(buf, n, "%.*f", a >= 1e3 ? 1 : a >= 100 ? 2 : 3, v);
	else if (a >= 1e-3)
		snprintf(buf, n, "%.4f", v);
	else
		snprintf(buf, n, "%.3e", v);
	return buf;
}

void il_report_md_cell(struct il_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`' || *s == '<' || *s == '>' || *s == '[' ||
		    *s == ']')
			il_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			il_buf_adds(b, " ");
		else
			il_buf_add(b, s, 1);
	}
}

void il_report_csv_field(struct il_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		il_buf_adds(b, s);
		return;
	}
	il_buf_adds(b, "\"");
	for (; *s; s++) {
		if (*s == '"')
			il_buf_adds(b, "\"\"");
		else
			il_buf_add(b, s, 1);
	}
	il_buf_adds(b, "\"");
}

void il_report_html_esc(struct il_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': il_buf_adds(b, "&amp;"); break;
		case '<': il_buf_adds(b, "&lt;"); break;
		case '>': il_buf_adds(b, "&gt;"); break;
		case '"': il_buf_adds(b, "&quot;"); break;
		case '\'': il_buf_adds(b, "&#39;"); break;
		default: il_buf_add(b, s, 1);
		}
	}
}

const char *il_report_palette(size_t i)
{
	static const char *const palette[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
					       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };

	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void il_report_html_begin(struct il_buf *b, const char *title)
{
	il_buf_adds(b, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>idlelab: ");
	il_report_html_esc(b, title);
	il_buf_adds(b, "</title>\n<style>body{font:14px sans-serif;margin:2em;max-width:1000px}"
		       "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;"
		       "text-align:right}th{text-align:center}td:first-child,td:nth-child(2){text-align:left}.better{color:#1a7f37}"
		       ".worse{color:#cf222e}figure{margin:1em 0}figcaption{font-weight:bold}.u{font-weight:normal;"
		       "color:#666}.ax{stroke:#999}.med{stroke:#000;stroke-width:2}.t{font-size:11px;fill:#555}"
		       ".l{font-size:12px}.v{font-size:12px}.vb{fill:#1a7f37}.vw{fill:#cf222e}.vn{fill:#555}"
		       "pre{font-size:12px;background:#f6f8fa;padding:1em;overflow:auto}</style></head><body>\n<h1>");
	il_report_html_esc(b, title);
	il_buf_adds(b, "</h1>\n");
}

void il_report_html_end(struct il_buf *b)
{
	il_buf_adds(b, "<script>document.body.setAttribute('data-report-ok', '1');</script>\n</body></html>\n");
}

void il_report_svg_open(struct il_buf *b, const char *key, const char *unit, size_t h)
{
	il_buf_adds(b, "<figure><figcaption>");
	il_report_html_esc(b, key);
	il_buf_adds(b, " <span class=u>(");
	il_report_html_esc(b, unit);
	il_buf_printf(b, ")</span></figcaption><svg width=800 height=%zu viewBox=\"0 0 800 %zu\" role=img>", h, h);
}

int il_report_pick(const char *s, const char *(*name)(int i), int n, const char *what, int *out, struct il_err *err)
{
	char known[160] = "";

	for (int i = 0; i < n; i++)
		if (!strcmp(s, name(i))) {
			*out = i;
			return 0;
		}
	for (int i = 0; i < n; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", !i ? "" : i == n - 1 ? " or " : ", ",
			 name(i));
	return il_err_set(err, IL_EINVAL, "unknown %s '%s' (%s)", what, s, known);
}

int il_report_wrap(struct il_buf *b, const char *text, size_t width, size_t indent)
{
	size_t col = 0;
	int r = 0;

	while (*text) {
		const char *sp = strchr(text, ' ');
		size_t w = sp ? (size_t)(sp - text) : strlen(text);

		if (col && col + 1 + w > width) {
			r |= il_buf_printf(b, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col) {
			r |= il_buf_adds(b, " ");
			col++;
		}
		r |= il_buf_add(b, text, w);
		col += w;
		text += w;
		while (*text == ' ')
			text++;
	}
	return r;
}

/* The lab architecture of host (by its fingerprint's kernel.arch), arm64's when not recorded. */
static const struct il_lab_arch_info *lab_arch(const struct il_dataset *ds, const char *host)
{
	json_t *fp = json_object_get(json_object_get(ds->meta, "fingerprints"), host);
	const struct il_lab_arch_info *a =
		il_lab_arch_by_uname(json_string_value(json_object_get(json_object_get(fp, "kernel"), "arch")));

	return a ? a : &il_lab_archs[IL_LAB_ARM64];
}

const char *il_report_lab_caveat(const struct il_dataset *ds)
{
	const char *host;
	json_t *kind;

	json_object_foreach(json_object_get(ds->meta, "host_kinds"), host, kind)
		if (json_is_string(kind) && !strcmp(json_string_value(kind), "lab"))
			return lab_arch(ds, host)->caveat;
	return NULL;
}

const char *il_report_lab_underneath(const struct il_dataset *ds, const char *host)
{
	return lab_arch(ds, host)->underneath;
}

bool il_report_stop_note(const struct il_cmp *c, struct il_buf *b)
{
	const json_t *it = json_object_get(json_object_get(c->ds->meta, "run_start"), "adaptive");
	const json_t *stop = json_object_get(c->ds->meta, "stop");
	const char *reason = json_string_value(json_object_get(stop, "reason"));

	if (c->looks < 2)
		return false;
	il_buf_printf(b, "adaptive run (iterations %lld-%lld", (long long)json_integer_value(json_object_get(it, "min")),
		      (long long)json_integer_value(json_object_get(it, "max")));
	/* a stage of several kernels: each look after every kernel's block of step rounds */
	if (json_integer_value(json_object_get(it, "step")) > 1)
		il_buf_printf(b, " looked at every %lld", (long long)json_integer_value(json_object_get(it, "step")));
	il_buf_printf(b, ", alpha %g over %zu looks: %.3g a look): ", c->o.alpha, c->looks, c->alpha_look);
	if (!stop)
		il_buf_adds(b, "not stopped yet (interrupted, or still running)");
	else if (reason && !strcmp(reason, "decided"))
		il_buf_printf(b, "stopped after %lld rounds: every key comparison decided",
			      (long long)json_integer_value(json_object_get(stop, "rounds")));
	else if (reason && !strcmp(reason, "futile"))
		il_buf_printf(b, "stopped after %lld rounds: %s", (long long)json_integer_value(json_object_get(stop, "rounds")),
			      json_string_value(json_object_get(stop, "why")) ?: "the undecided comparisons need more than the maximum");
	else
		il_buf_printf(b, "ran the maximum of %lld rounds: %s", (long long)json_integer_value(json_object_get(stop, "rounds")),
			      json_string_value(json_object_get(stop, "why")) ?: "not every key comparison was decided");
	return true;
}
