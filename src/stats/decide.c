// SPDX-License-Identifier: GPL-2.0-or-later
/* The three-way decision of one comparison (decide.h says why it is the only one). */
#include "stats/decide.h"

#include <math.h>
#include <stdio.h>

static const char *const verdict_names[IL_NVERDICTS] = {
#define IL_V_NAME(e, name) [IL_VERDICT_##e] = name,
	IL_VERDICTS(IL_V_NAME)
#undef IL_V_NAME
};

const char *il_decide_verdict_name(enum il_verdict v)
{
	return (unsigned)v < IL_NVERDICTS ? verdict_names[v] : "unknown";
}

bool il_decide_verdict_differs(enum il_verdict v)
{
	return v == IL_VERDICT_BETTER || v == IL_VERDICT_WORSE || v == IL_VERDICT_CHANGED;
}

bool il_decide_verdict_decided(enum il_verdict v)
{
	return il_decide_verdict_differs(v) || v == IL_VERDICT_SAME;
}

bool il_decide_alpha_ok(double alpha)
{
	return alpha > 0 && alpha < 0.5;
}

double il_decide_look_alpha(double alpha, size_t looks)
{
	return alpha / (double)(looks ? looks : 1);
}

double il_decide_t_isf(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p >= 0.5)
		return -il_decide_t_isf(1 - p, df);
	while (il_stats_t_sf(hi, df) > p && hi < 1e15)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (il_stats_t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void mean_var(const double *x, size_t n, double *m, double *v)
{
	double s = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	*m = s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *m) * (x[i] - *m);
	*v = n > 1 ? ss / (double)(n - 1) : NAN;
}

/*
 * The Welch interval of mean(x) - mean(r) at level, in the metric's own
 * unit, and *mr the reference's mean; false (NaN) with fewer than 2 values a
 * side or a level outside (0, 1).
 */
static bool abs_interval(const double *r, size_t nr, const double *x, size_t nx, double level, double *lo, double *hi,
			 double *mr)
{
	double vr, mx, vx, se2, df, t;

	*lo = *hi = *mr = NAN;
	if (nr < 2 || nx < 2 || !(level > 0 && level < 1))
		return false;
	mean_var(r, nr, mr, &vr);
	mean_var(x, nx, &mx, &vx);
	se2 = vr / (double)nr + vx / (double)nx;
	if (se2 == 0) {
		/* both sides constant: the difference is known exactly */
		*lo = *hi = mx - *mr;
		return true;
	}
	/* Welch-Satterthwaite degrees of freedom */
	df = se2 * se2 / ((vr / nr) * (vr / nr) / (double)(nr - 1) + (vx / nx) * (vx / nx) / (double)(nx - 1));
	t = il_decide_t_isf((1 - level) / 2, df);
	*lo = mx - *mr - t * sqrt(se2);
	*hi = mx - *mr + t * sqrt(se2);
	return isfinite(*lo) && isfinite(*hi);
}

bool il_decide_change_interval(const double *r, size_t nr, const double *x, size_t nx, double level, double *lo, double *hi)
{
	double mr;

	if (!abs_interval(r, nr, x, nx, level, lo, hi, &mr) || mr == 0) {
		*lo = *hi = NAN;
		return false;
	}
	*lo = *lo / fabs(mr) * 100;
	*hi = *hi / fabs(mr) * 100;
	return true;
}

/*
 * Per side, for 80% power at level a, a normal approximation of the t-test:
 * n = 2 (z + z_b)^2 s^2 / delta^2, s and delta in % of the reference; for a
 * difference z = z_{a/2}, z_b = z_0.8; for an equivalence (two one-sided
 * tests, the true change 0) z = z_a, z_b = z_0.9.
 */
static size_t n_for(double a, bool two_sided, double s_pct, double delta_pct, size_t now, size_t n_min)
{
	double z = two_sided ? il_stats_norm_isf(a / 2) + 0.8416212335729143 : il_stats_norm_isf(a) + 1.2815515655446004, n;

	if (!(s_pct > 0) || !(delta_pct > 0) || !isfinite(s_pct))
		return 0;
	n = ceil(2 * z * z * s_pct * s_pct / (delta_pct * delta_pct));
	/* the approximation can promise what this n already failed to give: at least one more */
	if (n <= (double)now)
		n = (double)now + 1;
	if (n < (double)n_min)
		n = (double)n_min;
	return n < 1e6 ? (size_t)n : 1000000;
}

void il_decide(const struct il_decide_in *in, struct il_decision *out)
{
	double ch = in->change_pct, thr = in->threshold_pct;
	double a_fam = in->alpha / (double)(in->family ? in->family : 1);
	size_t now = in->nr > in->nx ? in->nr : in->nx;
	double mr, vr, mx, vx, s_pct;

	out->eq_lo = out->eq_hi = NAN;
	out->n_needed = 0;
	out->why[0] = 0;
	if (in->governor_metric && in->bypassed) {
		out->v = IL_VERDICT_BYPASSED;
		snprintf(out->why, sizeof(out->why), "governor bypassed: a side ran under a CPU latency limit of 0, where "
			 "menu returns state 0 without a prediction; its idle counters compare nothing");
		return;
	}
	if (in->nr < 2 || in->nx < 2) {
		out->v = IL_VERDICT_UNKNOWN;
		snprintf(out->why, sizeof(out->why), "%zu vs %zu samples: at least 2 a side are needed", in->nr, in->nx);
		out->n_needed = in->n_min > 2 ? in->n_min : 2;
		return;
	}
	mean_var(in->r, in->nr, &mr, &vr);
	mean_var(in->x, in->nx, &mx, &vx);
	/*
	 * the absolute floor: in relative terms, what it is of this reference (a reference below it makes any
	 * relative change look large); a change of 0 or below the floor is no finding, whatever its p
	 */
	if (in->abs_floor > 0 && mr != 0 && 100 * in->abs_floor / fabs(mr) > thr)
		thr = 100 * in->abs_floor / fabs(mr);
	/* an infinite change (the reference's mean is 0) is beyond any noise threshold */
	if (isfinite(in->p) && in->p < in->alpha && !isnan(ch) && ch != 0 && fabs(ch) >= thr &&
	    !(in->abs_floor > 0 && fabs(mx - mr) < in->abs_floor)) {
		bool up = ch > 0;

		out->v = in->better == IL_BETTER_NONE			      ? IL_VERDICT_CHANGED :
			 (up == (in->better == IL_BETTER_HIGHER)) ? IL_VERDICT_BETTER :
									  IL_VERDICT_WORSE;
		snprintf(out->why, sizeof(out->why), "p=%.3g < %.3g and |%+.1f%%| >= noise %.1f%%", in->p, in->alpha, ch,
			 thr);
		return;
	}
	if (vr == 0 && vx == 0 && mr == mx) {
		/* both sides one and the same constant (no idle misses at all, say): nothing to tell apart */
		out->v = IL_VERDICT_SAME;
		out->eq_lo = out->eq_hi = 0;
		snprintf(out->why, sizeof(out->why), "both sides are the same constant (%g)", mr);
		return;
	}
	if (il_decide_change_interval(in->r, in->nr, in->x, in->nx, 1 - 2 * a_fam, &out->eq_lo, &out->eq_hi) &&
	    out->eq_lo > -thr && out->eq_hi < thr) {
		out->v = IL_VERDICT_SAME;
		snprintf(out->why, sizeof(out->why), "the change's %.4g%% interval [%+.1f%%, %+.1f%%] lies within noise +-%.1f%%",
			 100 * (1 - 2 * a_fam), out->eq_lo, out->eq_hi, thr);
		if (in->abs_floor > 0 && fabs(mx - mr) < in->abs_floor)
			snprintf(out->why, sizeof(out->why), "a change of %+.3g (%+.1f%% of a reference of %.3g) is below the "
				 "metric's absolute floor %g", mx - mr, ch, mr, in->abs_floor);
		return;
	}
	{
		double lo, hi, m0;

		/* the same in the metric's own unit: the interval of the difference within the absolute floor */
		if (in->abs_floor > 0 && abs_interval(in->r, in->nr, in->x, in->nx, 1 - 2 * a_fam, &lo, &hi, &m0) &&
		    lo > -in->abs_floor && hi < in->abs_floor) {
			out->v = IL_VERDICT_SAME;
			snprintf(out->why, sizeof(out->why), "the difference's %.4g%% interval [%+.3g, %+.3g] lies within the "
				 "metric's absolute floor +-%g", 100 * (1 - 2 * a_fam), lo, hi, in->abs_floor);
			return;
		}
	}
	out->v = IL_VERDICT_UNKNOWN;
	s_pct = mr != 0 ? sqrt((vr + vx) / 2) / fabs(mr) * 100 : NAN;
	if (!isnan(ch) && fabs(ch) >= thr && !(in->abs_floor > 0 && fabs(mx - mr) < in->abs_floor)) {
		/* a difference that this n could not confirm */
		snprintf(out->why, sizeof(out->why), "p=%.3g >= %.3g: |%+.1f%%| beyond noise %.1f%% not confirmed",
			 in->p, in->alpha, ch, thr);
		out->n_needed = n_for(a_fam, true, s_pct, isfinite(ch) ? fabs(ch) : thr, now, in->n_min);
	} else {
		/* within noise, not yet shown to be: the interval reaches past the threshold */
		if (isfinite(out->eq_lo))
			snprintf(out->why, sizeof(out->why),
				 "|%+.1f%%| < noise %.1f%% but its %.4g%% interval [%+.1f%%, %+.1f%%] reaches beyond it", ch,
				 thr, 100 * (1 - 2 * a_fam), out->eq_lo, out->eq_hi);
		else
			snprintf(out->why, sizeof(out->why), "not significant and no interval of the change (reference mean 0)");
		/*
		 * TOST planning: the samples that show it within +-threshold if the true change is 0
		 * (the observed one is mostly noise at this n: planning on it would promise far more)
		 */
		out->n_needed = n_for(a_fam, false, s_pct, thr, now, in->n_min);
	}
}
