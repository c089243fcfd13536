// SPDX-License-Identifier: GPL-2.0-or-later
/* Shell quoting of argv vectors for remote execution. */
#include "host/quote.h"

#include <stdbool.h>
#include <string.h>

/* p single-quoted ('\'' for a quote) */
static int quote_one(struct il_buf *b, const char *p)
{
	if (il_buf_add(b, "'", 1))
		return IL_ENOMEM;
	while (*p) {
		const char *q = strchr(p, '\'');
		size_t n = q ? (size_t)(q - p) : strlen(p);

		if (il_buf_add(b, p, n))
			return IL_ENOMEM;
		p += n;
		if (*p == '\'') {
			if (il_buf_adds(b, "'\\''"))
				return IL_ENOMEM;
			p++;
		}
	}
	return il_buf_add(b, "'", 1) ? IL_ENOMEM : 0;
}

int il_quote_argv(struct il_buf *b, char *const argv[])
{
	for (size_t i = 0; argv[i]; i++)
		if ((i && il_buf_add(b, " ", 1)) || quote_one(b, argv[i]))
			return IL_ENOMEM;
	return 0;
}

int il_quote_shown(struct il_buf *b, char *const argv[])
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,%";

	for (size_t i = 0; argv[i]; i++) {
		bool bare = *argv[i] && !argv[i][strspn(argv[i], safe)];

		if ((i && il_buf_add(b, " ", 1)) || (bare ? il_buf_adds(b, argv[i]) : quote_one(b, argv[i])))
			return IL_ENOMEM;
	}
	return 0;
}
