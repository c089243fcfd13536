// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A local idle trace through runners/trace.sh: tron and troff/trdel each in
 * a shell of their own (what tron decided comes back on its stdout and goes
 * to the next shell as arguments), the begin and end markers written here,
 * between the snapshots idle-stat takes itself.
 */
#include "host/localtrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "host/runners.h"
#include "util/proc.h"
#include "util/str.h"

/* Run the trace functions and then body with args; stdout into out. 0, or an error naming what failed. */
static int trace_sh(const char *body, char *const args[], size_t nargs, struct il_buf *out, struct il_err *err)
{
	char *script = il_str_dup_printf("%s\n%s", il_runners_script("trace.sh"), body);
	char *argv[12] = { (char *)"sh", (char *)"-c", script, (char *)"idlelab-trace" };
	struct il_buf eb = IL_BUF_INIT;
	struct il_exit ex = { 0 };
	int r;

	if (!script)
		return il_err_oom(err);
	for (size_t i = 0; i < nargs && i < 7; i++)
		argv[4 + i] = args[i];
	il_buf_init(&eb, 4096);
	r = il_proc_capture(argv, 60000, NULL, out, &eb, &ex, err);
	if (!r && (ex.code || ex.signal)) {
		const char *why = il_buf_str(out);

		r = il_err_set(err, IL_EIO, "idle trace: %.*s", (int)strcspn(*why ? why : il_buf_str(&eb), "\n"),
			       *why ? why : *il_buf_str(&eb) ? il_buf_str(&eb) : "the trace script failed");
	}
	il_buf_release(&eb);
	free(script);
	return r;
}

int il_localtrace_start(struct il_localtrace *t, int buffer_kb, struct il_err *err)
{
	unsigned char rnd[6];
	struct il_buf out = IL_BUF_INIT, kb = IL_BUF_INIT;
	char *args[2], *line, *save = NULL;
	char **fields[] = { &t->inst, &t->tick, &t->events, &t->mounted };
	int r;

	memset(t, 0, sizeof(*t));
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return il_err_set(err, IL_EIO, "idle trace: no random bytes for the instance's name");
	snprintf(t->id, sizeof(t->id), "local%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
	if (il_buf_printf(&kb, "%d", buffer_kb))
		return il_err_oom(err);
	args[0] = t->id, args[1] = kb.p;
	/* on failure tron's reason is its one line of output; the instance goes with it */
	r = trace_sh("tron \"$1\" \"$2\" || { trdel \"$1\"; exit 3; }; trmark pre && "
		     "printf '%s\\n%s\\n%s\\n%s\\n' \"$I\" \"$Tk\" \"$Te\" \"${Tm:-0}\"",
		     args, 2, &out, err);
	il_buf_release(&kb);
	for (size_t i = 0; !r && i < 4; i++) {
		line = strtok_r(i ? NULL : out.p, "\n", &save);
		if (!line)
			r = il_err_set(err, IL_EPARSE, "idle trace: the trace script said too little");
		else if (!(*fields[i] = strdup(line)))
			r = il_err_oom(err);
	}
	il_buf_release(&out);
	if (r)
		il_localtrace_release(t);
	return r;
}

int il_localtrace_mark(const struct il_localtrace *t, const char *which, struct il_err *err)
{
	char path[4200], text[64];
	int fd, n = snprintf(text, sizeof(text), "idlelab-%s\n", which);
	ssize_t w;

	snprintf(path, sizeof(path), "%s/trace_marker", t->inst);
	/* tracefs's own file: never created, never followed through a link */
	if ((fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return il_err_set(err, IL_EIO, "idle trace: cannot open %s: %s", path, strerror(errno));
	w = write(fd, text, (size_t)n);
	close(fd);
	if (w != n)
		return il_err_set(err, IL_EIO, "idle trace: cannot write the %s marker to %s", which, path);
	return 0;
}

int il_localtrace_stop(struct il_localtrace *t, struct il_buf *out, struct il_err *err)
{
	char *args[5] = { t->id, t->inst, t->tick, t->events, t->mounted };
	int r;

	r = trace_sh("I=$2 Tk=$3 Te=$4 Tm=$5; [ \"$Tm\" = 1 ] || Tm=; trmark post && troff; s=$?; trdel \"$1\"; exit $s",
		     args, 5, out, err);
	if (!r) {
		free(t->inst);
		t->inst = NULL;
	}
	return r;
}

void il_localtrace_release(struct il_localtrace *t)
{
	if (t->inst) {
		struct il_buf out = IL_BUF_INIT;
		struct il_err e = { 0 };
		char *args[2] = { t->id, t->mounted ? t->mounted : (char *)"0" };

		trace_sh("Tm=$2; [ \"$Tm\" = 1 ] || Tm=; trdel \"$1\"", args, 2, &out, &e);
		il_buf_release(&out);
	}
	IL_FREE_ALL(t->inst, t->tick, t->events, t->mounted);
	memset(t, 0, sizeof(*t));
}
