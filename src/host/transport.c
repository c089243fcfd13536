// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every kind of transport shares (host/transport.h): running argv
 * through one (sudo, defaults), scripts, the transfers' helpers, the held
 * child process of local and command transports. The lowest file of the
 * transports: it calls the kinds only through a struct il_transport's
 * functions, never by name (they are opened by host/transportopen.c).
 */
#include "host/transport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/proc.h"

#define IL_DEFAULT_MAX_OUT (16u << 20)

void il_transport_result_release(struct il_exec_result *r)
{
	il_buf_release(&r->out);
	il_buf_release(&r->err);
}

int il_transport_exec(struct il_transport *t, char *const argv[], const struct il_exec_opts *o,
		      struct il_exec_result *res, struct il_err *err)
{
	struct il_exec_opts opts = o ? *o : (struct il_exec_opts){ 0 };
	char **av = NULL;
	size_t n = 0;
	double t0;
	int r;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	if (!opts.max_out)
		opts.max_out = IL_DEFAULT_MAX_OUT;
	if (!opts.timeout_ms)
		opts.timeout_ms = t->cfg->command_timeout_s * 1000;
	il_buf_init(&res->out, opts.max_out);
	il_buf_init(&res->err, opts.max_out);
	while (argv[n])
		n++;
	if (opts.privileged && !t->is_root && t->cfg->sudo) {
		av = calloc(n + 3, sizeof(*av));
		if (!av)
			return il_err_oom(err);
		av[0] = (char *)"sudo";
		av[1] = (char *)"-n";
		memcpy(av + 2, argv, n * sizeof(*av));
		argv = av;
	}
	t0 = il_clock_mono_s();
	r = t->exec(t, argv, &opts, res, err);
	res->elapsed_s = il_clock_mono_s() - t0;
	if (r)
		il_transport_result_release(res); /* what came before the failure: nobody reads it */
	free(av);
	return r;
}

int il_transport_run_script(struct il_transport *t, const char *script, char *const args[],
			    const struct il_exec_opts *o, struct il_exec_result *res, struct il_err *err)
{
	size_t nargs = 0, n = 4;
	char **argv;
	int r;

	while (args && args[nargs])
		nargs++;
	if (!(argv = calloc(nargs + 5, sizeof(*argv))))
		return il_err_oom(err);
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)script;
	argv[3] = (char *)"idlelab";
	for (size_t i = 0; i < nargs; i++)
		argv[n++] = args[i];
	r = il_transport_exec(t, argv, o, res, err);
	free(argv);
	return r;
}

void il_transport_nonce(char hex[17])
{
	unsigned char rnd[8];

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		uint64_t x = (uint64_t)(il_clock_mono_s() * 1e9) ^ ((uint64_t)getpid() << 40);

		memcpy(rnd, &x, sizeof(rnd));
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
}

int il_transport_tmpname(struct il_buf *b, const char *remote)
{
	char nonce[17];

	il_transport_nonce(nonce);
	return il_buf_printf(b, "%s.idlelab-tmp.%s", remote, nonce);
}

int il_transport_sha256(struct il_transport *t, const char *path, char hex[65], struct il_err *err)
{
	char *argv[] = { (char *)"sha256sum", (char *)path, NULL };
	struct il_exec_result res;
	int r = il_transport_exec(t, argv, NULL, &res, err);

	if (!r && (res.exit_code != 0 || res.out.len < 64 || strspn(res.out.p, "0123456789abcdef") < 64)) {
		r = il_err_set(err, IL_EIO, "host '%s': sha256sum '%s' failed: %s", t->label, path, il_buf_str(&res.err));
	} else if (!r) {
		memcpy(hex, res.out.p, 64);
		hex[64] = '\0';
	}
	il_transport_result_release(&res);
	return r;
}

int il_transport_rename(struct il_transport *t, const char *from, const char *to, struct il_err *err)
{
	char *mv[] = { (char *)"mv", (char *)"-f", (char *)from, (char *)to, NULL };
	struct il_exec_result res;
	int r = il_transport_exec(t, mv, NULL, &res, err);

	if (!r && res.exit_code)
		r = il_err_set(err, IL_EIO, "host '%s': cannot rename '%s' to '%s': %s", t->label, from, to,
			       il_buf_str(&res.err));
	il_transport_result_release(&res);
	return r;
}

static bool held_alive(struct il_transport *t)
{
	return il_proc_held_alive(&((struct il_transport_proc *)t)->held);
}

static void held_release(struct il_transport *t)
{
	il_proc_release(&((struct il_transport_proc *)t)->held);
}

static void held_free(struct il_transport *t)
{
	held_release(t);
	free(t);
}

struct il_transport_proc *il_transport_proc_new(const struct il_host_cfg *cfg)
{
	struct il_transport_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->held.in_fd = p->held.out_fd = -1;
	p->base.cfg = cfg;
	p->base.label = cfg->name;
	p->base.hold_alive = held_alive;
	p->base.hold_release = held_release;
	p->base.free = held_free;
	return p;
}

void il_transport_free(struct il_transport *t)
{
	if (t)
		t->free(t);
}
