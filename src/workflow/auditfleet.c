// SPDX-License-Identifier: GPL-2.0-or-later
/* The audit's fleet: findings grouped, counted and summed over hosts (see auditfleet.h). */
#include "workflow/auditfleet.h"

#include <stdlib.h>
#include <string.h>

static int by_group(const void *x, const void *y)
{
	const struct il_audit_group *a = x, *b = y;

	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->subject, b->subject);
}

static void add_counts(struct il_counts *sum, const struct il_counts *c, bool first)
{
	for (int k = 0; k < IL_NCOUNTERS; k++) {
		sum->c[k].ok = (first || sum->c[k].ok) && c->c[k].ok;
		sum->c[k].v = sum->c[k].ok ? sum->c[k].v + c->c[k].v : 0;
		sum->poll[k].ok = (first || sum->poll[k].ok) && c->poll[k].ok;
		sum->poll[k].v = sum->poll[k].ok ? sum->poll[k].v + c->poll[k].v : 0;
	}
}

int il_audit_fleet_make(struct il_audit_fleet *f, struct il_audit_host *hosts, size_t n, struct il_err *err)
{
	struct il_diff none = { 0 };

	memset(f, 0, sizeof(*f));
	f->nhosts = n;
	f->hosts = hosts;
	for (size_t i = 0; i < n; i++) {
		struct il_audit_host *h = &hosts[i];

		f->reached += h->reached;
		if (h->measured) {
			add_counts(&f->total, &h->total, !f->measured);
			f->measured++;
			f->interval_s += h->interval_s;
			for (size_t k = 0; k < h->nres; k++) {
				size_t j;

				for (j = 0; j < f->nres && strcmp(f->res[j].name, h->res[k].name); j++)
					;
				if (j == f->nres) {
					struct il_audit_res *r = realloc(f->res, (f->nres + 1) * sizeof(*r));

					if (!r)
						goto oom;
					f->res = r;
					r[j].name = h->res[k].name; /* borrowed */
					r[j].time_us = 0;
					f->nres++;
				}
				f->res[j].time_us += h->res[k].time_us;
			}
		}
		for (size_t k = 0; k < h->nfind; k++) {
			const struct il_audit_finding *fd = &h->find[k];
			struct il_audit_group *g = NULL;

			f->by_sev[fd->sev]++;
			if (!f->any || fd->sev > f->worst)
				f->worst = fd->sev;
			f->any = true;
			for (size_t j = 0; j < f->ngroups && !g; j++)
				if (f->groups[j].kind == fd->kind && !strcmp(f->groups[j].subject, fd->subject))
					g = &f->groups[j];
			if (!g) {
				struct il_audit_group *ng = realloc(f->groups, (f->ngroups + 1) * sizeof(*ng));

				if (!ng)
					goto oom;
				f->groups = ng;
				g = &ng[f->ngroups++];
				memset(g, 0, sizeof(*g));
				g->kind = fd->kind;
				g->sev = fd->sev;
				g->subject = fd->subject;
			}
			if (il_strlist_push(&g->hosts, h->host))
				goto oom;
		}
	}
	if (f->ngroups)
		qsort(f->groups, f->ngroups, sizeof(*f->groups), by_group);
	if (f->measured) {
		none.interval_s = f->interval_s;
		none.has_interval = true;
		il_metrics_of(&f->total, &none, &f->m);
	}
	return 0;
oom:
	il_audit_fleet_release(f);
	return il_err_oom(err);
}

void il_audit_fleet_release(struct il_audit_fleet *f)
{
	for (size_t i = 0; i < f->ngroups; i++)
		il_strlist_release(&f->groups[i].hosts);
	free(f->groups);
	free(f->res);
	memset(f, 0, sizeof(*f));
}

bool il_audit_fleet_fails(const struct il_audit_fleet *f, enum il_audit_sev sev)
{
	return f->any && f->worst >= sev;
}
