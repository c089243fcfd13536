// SPDX-License-Identifier: GPL-2.0-or-later
/* Error code sentences and the il_err helpers. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *il_err_strerror(int code)
{
	switch (code) {
#define IL_ERR_CASE(name, value, text) \
	case value:                    \
		return text;
		IL_ERRORS(IL_ERR_CASE)
#undef IL_ERR_CASE
	}
	return "unknown error";
}

int il_err_set(struct il_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int il_err_prefix(struct il_err *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	size_t n, k;
	va_list ap;
	int w;

	if (!err)
		return IL_EINVAL;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	w = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = w < 0 ? 0 : (size_t)w < sizeof(err->msg) ? (size_t)w : sizeof(err->msg) - 1;
	/* the old message after the prefix, cut to fit; by hand, as err.c is the bottom of util and uses none of it */
	k = strnlen(old, sizeof(err->msg) - n - 1);
	memcpy(err->msg + n, old, k);
	err->msg[n + k] = '\0';
	return err->code;
}

void il_err_clear(struct il_err *err)
{
	if (!err)
		return;
	err->code = IL_OK;
	err->msg[0] = '\0';
}

int il_err_oom(struct il_err *err)
{
	return il_err_set(err, IL_ENOMEM, "%s", il_err_strerror(IL_ENOMEM));
}
