// SPDX-License-Identifier: GPL-2.0-or-later
/* The report formats: one table (name, file extension, renderer) and the dispatch through it. */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

static int render_text(const struct il_cmp *c, struct il_buf *out)
{
	return il_report_text(c, out);
}

static const struct {
	const char *name, *ext;
	int (*render)(const struct il_cmp *c, struct il_buf *out);
} formats[IL_NFMT] = {
	[IL_FMT_TEXT] = { "text", "txt", render_text },
	[IL_FMT_MD] = { "md", "md", il_text_md },
	[IL_FMT_CSV] = { "csv", "csv", il_report_csv },
	[IL_FMT_JSON] = { "json", "json", il_report_json_text },
	[IL_FMT_HTML] = { "html", "html", il_report_html },
};

static const char *fmt_name(int i)
{
	return formats[i].name;
}

int il_report_fmt_parse(const char *s, enum il_fmt *out, struct il_err *err)
{
	int i, r = il_report_pick(s, fmt_name, IL_NFMT, "format", &i, err);

	if (!r)
		*out = (enum il_fmt)i;
	return r;
}

const char *il_report_fmt_name(enum il_fmt f)
{
	return formats[f].name;
}

const char *il_report_fmt_ext(enum il_fmt f)
{
	return formats[f].ext;
}

int il_report_render(const struct il_cmp *c, enum il_fmt f, struct il_buf *out, struct il_err *err)
{
	int r = formats[f].render(c, out);

	return r ? il_err_set(err, r, "cannot render the %s report: %s", formats[f].name, il_err_strerror(r)) : 0;
}
