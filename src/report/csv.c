// SPDX-License-Identifier: GPL-2.0-or-later
/* The CSV report (RFC 4180): one row per sample value and one per summary. */
#include "report/render.h"

#include <math.h>
#include <string.h>

static void num(struct il_buf *b, double v)
{
	if (isfinite(v))
		il_buf_printf(b, ",%.10g", v);
	else
		il_buf_adds(b, ",");
}

/* kind,group,metric,unit,better,variant */
static void row_start(struct il_buf *b, const char *kind, const struct il_mseries *m, const char *better,
		      const char *variant)
{
	il_buf_printf(b, "%s,", kind);
	il_report_csv_field(b, m->group);
	il_buf_adds(b, ",");
	il_report_csv_field(b, m->metric);
	il_buf_adds(b, ",");
	il_report_csv_field(b, m->unit);
	il_buf_printf(b, ",%s,", better);
	il_report_csv_field(b, variant);
}

int il_report_csv(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;

	il_buf_adds(b, "kind,group,metric,unit,better,variant,iteration,value,n,mean,median,stdev,cv,min,max,change_pct,"
		       "p_value,ci_low,ci_high,threshold_pct,verdict,key_metric,eq_low_pct,eq_high_pct,n_needed\r\n");
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const char *better = il_dataset_better_name(m->better);

		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_values *vals = &m->var[v];
			const struct il_mres *x = il_compare_res(c, i, v);

			for (size_t k = 0; k < vals->n; k++) {
				row_start(b, "sample", m, better, ds->var[v]);
				il_buf_printf(b, ",%d,%.10g,,,,,,,,,,,,,,,,,\r\n", vals->it[k], vals->v[k]);
			}
			row_start(b, "summary", m, better, ds->var[v]);
			il_buf_printf(b, ",,,%zu", x->d.n);
			num(b, x->d.mean), num(b, x->d.median), num(b, x->d.stdev), num(b, x->d.cv), num(b, x->d.min),
				num(b, x->d.max), num(b, x->change_pct), num(b, x->p), num(b, x->ci_lo), num(b, x->ci_hi),
				num(b, x->threshold_pct);
			il_buf_adds(b, ",");
			il_report_csv_field(b, x->verdict);
			il_buf_adds(b, c->key[i] ? ",true" : ",false");
			num(b, x->eq_lo), num(b, x->eq_hi);
			if (x->n_needed)
				il_buf_printf(b, ",%zu", x->n_needed);
			else
				il_buf_adds(b, ",");
			il_buf_adds(b, "\r\n");
		}
	}
	return il_buf_error(b);
}
