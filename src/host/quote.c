// SPDX-License-Identifier: GPL-2.0-or-later
/* Shell quoting of argv vectors for remote execution. */
#include "host/quote.h"

#include <string.h>

int il_sh_quote_argv(struct il_buf *b, char *const argv[])
{
	for (size_t i = 0; argv[i]; i++) {
		const char *p = argv[i];

		if ((i && il_buf_add(b, " ", 1)) || il_buf_add(b, "'", 1))
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
		if (il_buf_add(b, "'", 1))
			return IL_ENOMEM;
	}
	return 0;
}
