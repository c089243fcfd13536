// SPDX-License-Identifier: GPL-2.0-or-later
/* What every report renderer shares: number formatting, word wrapping, the lab caveat's condition. */
#include "report/common.h"

#include "lab/labarch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *il_fmt_num(char *buf, size_t n, double v)
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
