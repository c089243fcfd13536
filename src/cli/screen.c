// SPDX-License-Identifier: GPL-2.0-or-later
/* Standard output through the one sanitizer (see screen.h). */
#include "cli/screen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/str.h"

struct screen {
	char carry[4];   /* a UTF-8 sequence the last piece cut short */
	size_t ncarry;
};

static int write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static ssize_t screen_write(void *ctx, const char *buf, size_t n)
{
	struct screen *sc = ctx;
	size_t tot = sc->ncarry + n, done;
	char *t = malloc(tot ? tot : 1);

	if (!t)
		return -1;
	memcpy(t, sc->carry, sc->ncarry);
	memcpy(t + sc->ncarry, buf, n);
	done = il_str_sanitize_n(t, tot, true, true);
	if (write_all(t, done)) {
		free(t);
		return -1;
	}
	sc->ncarry = tot - done;
	memcpy(sc->carry, t + done, sc->ncarry);
	free(t);
	return (ssize_t)n;
}

static int screen_close(void *ctx)
{
	struct screen *sc = ctx;
	int r = 0;

	/* a sequence the output ended in the middle of: never valid */
	if (sc->ncarry) {
		il_str_sanitize_n(sc->carry, sc->ncarry, true, false);
		r = write_all(sc->carry, sc->ncarry);
	}
	free(sc);
	return r;
}

int il_cli_screen_open(void)
{
	cookie_io_functions_t io = { .write = screen_write, .close = screen_close };
	struct screen *sc = calloc(1, sizeof(*sc));
	FILE *f;

	if (!sc)
		return -1;
	if (!(f = fopencookie(sc, "w", io))) {
		free(sc);
		return -1;
	}
	/* buffered as stdout was: by line on a terminal (prompts and progress lines show), else by block */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	fflush(stdout);
	stdout = f;
	return 0;
}
