// SPDX-License-Identifier: GPL-2.0-or-later
/* Many hosts' audit probes in parallel: a pool of threads, a transport each. */
#include "host/fleet.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libssh/libssh.h>

#include "host/probe.h"
#include "host/transport.h"
#include "util/clock.h"

struct pool {
	struct il_fleet_item *items;
	size_t n, next, done;
	const struct il_fleet_opts *o;
	pthread_mutex_t lock;
};

static void one(struct il_fleet_item *it, double window_s)
{
	struct il_transport *t = NULL;
	struct il_err err = { 0 };
	double t0 = il_clock_mono_s(), t1;

	it->code = il_transport_open(&t, it->cfg, &err);
	t1 = il_clock_mono_s();
	it->connect_s = t1 - t0;
	if (!it->code) {
		it->code = il_probe_window(t, window_s, &it->fp, &it->a, &it->b, &err);
		it->exec_s = il_clock_mono_s() - t1;
	}
	if (it->code)
		snprintf(it->msg, sizeof(it->msg), "%s", err.msg[0] ? err.msg : il_err_strerror(it->code));
	il_transport_free(t);
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next < p->n ? p->next++ : p->n;
		pthread_mutex_unlock(&p->lock);
		if (i == p->n)
			return NULL;
		one(&p->items[i], p->o->window_s);
		pthread_mutex_lock(&p->lock);
		p->done++;
		if (p->o->done)
			p->o->done(&p->items[i], p->done, p->n, p->o->arg);
		pthread_mutex_unlock(&p->lock);
	}
}

static pthread_once_t ssh_once = PTHREAD_ONCE_INIT;

/* libssh's global state: initialised once, before any thread makes a session */
static void ssh_global(void)
{
	ssh_init();
}

int il_fleet_collect(struct il_fleet_item *items, size_t n, const struct il_fleet_opts *o, struct il_err *err)
{
	struct pool p = { .items = items, .n = n, .o = o };
	size_t jobs = o->jobs ? o->jobs : 64, started = 0;
	pthread_t *th;
	int r = 0;

	if (jobs > n)
		jobs = n;
	if (!n)
		return 0;
	pthread_once(&ssh_once, ssh_global);
	if (!(th = calloc(jobs, sizeof(*th))))
		return il_err_oom(err);
	pthread_mutex_init(&p.lock, NULL);
	for (; started < jobs; started++) {
		pthread_attr_t at;
		int e;

		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 1 << 20);
		e = pthread_create(&th[started], &at, worker, &p);
		pthread_attr_destroy(&at);
		if (e) {
			/* the threads that started do the work; none at all is a failure */
			if (!started)
				r = il_err_set(err, IL_EIO, "cannot start a thread: %s", strerror(e));
			break;
		}
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
	free(th);
	return r;
}

void il_fleet_item_release(struct il_fleet_item *it)
{
	json_decref(it->fp);
	it->fp = NULL;
	il_snapshot_release(&it->a);
	il_snapshot_release(&it->b);
}
