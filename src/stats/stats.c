// SPDX-License-Identifier: GPL-2.0-or-later
/* Descriptive statistics, Mann-Whitney U, Welch, bootstrap CI, Holm. */
#include "stats/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * n, mean, stdev and cv of x, without the sort that the median, min and max
 * need: Welch's test and the ratio's interval take only these, and sorting a
 * copy of each side for them again was a sixth of a large compare's time.
 * median, min and max are left NaN.
 */
static void moments(const double *x, size_t n, struct il_desc *o)
{
	double s = 0, ss = 0;

	memset(o, 0, sizeof(*o));
	o->n = n;
	o->median = o->min = o->max = NAN;
	if (!n) {
		o->mean = o->stdev = o->cv = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		s += x[i];
	o->mean = s / (double)n;
	/* values near DBL_MAX overflow the sum: a running mean stays finite */
	if (!isfinite(o->mean)) {
		o->mean = 0;
		for (size_t i = 0; i < n; i++)
			o->mean += (x[i] - o->mean) / (double)(i + 1);
	}
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - o->mean) * (x[i] - o->mean);
	if (!isfinite(ss)) {
		/* the same sum, scaled by the largest deviation so the squares cannot overflow */
		double scale = 0;

		for (size_t i = 0; i < n; i++)
			scale = fmax(scale, fabs(x[i] - o->mean));
		ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += ((x[i] - o->mean) / scale) * ((x[i] - o->mean) / scale);
		o->stdev = n > 1 ? scale * sqrt(ss / (double)(n - 1)) : NAN;
	} else {
		o->stdev = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	}
	o->cv = o->mean != 0 && n > 1 ? o->stdev / fabs(o->mean) : NAN;
}

void il_stats_desc_compute(const double *x, size_t n, struct il_desc *o)
{
	double *v;

	moments(x, n, o);
	if (!n || !(v = malloc(n * sizeof(*v))))
		return;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	o->min = v[0];
	o->max = v[n - 1];
	o->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
}

int il_stats_check(const double *x, size_t n, const char *label, struct il_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return il_err_set(err, IL_EINVAL, "%s: value %zu is %s, not a finite number", label, i + 1,
					  isnan(x[i]) ? "NaN" : "infinite");
	return 0;
}

double il_stats_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/* Acklam's rational approximation refined by one Newton step on erfc: ~1e-15. */
double il_stats_norm_isf(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
				    1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
				    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
				    -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
				    3.754408661907416e+00 };
	double q = 1 - p, x, r;

	if (p <= 0)
		return INFINITY;
	if (p >= 1)
		return -INFINITY;
	/* x = Phi^-1(q) */
	if (q < 0.02425) {
		r = sqrt(-2 * log(q));
		x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
	} else if (q > 1 - 0.02425) {
		r = sqrt(-2 * log(1 - q));
		x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
	} else {
		double s = q - 0.5;

		r = s * s;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * s /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	/* Newton on sf(x) = p */
	x -= (il_stats_norm_sf(x) - p) / (-exp(-x * x / 2) / sqrt(2 * M_PI));
	return x;
}

/* Regularized incomplete beta I_x(a, b) by Lentz's continued fraction. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double il_stats_t_sf(double t, double df)
{
	double p;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	p = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? p : 1 - p;
}

/* Average ranks of v (n values, ties share their mean rank), and sum of t^3 - t over tie groups. */
static int rank(const double *v, size_t n, double *ranks, double *tie_term)
{
	size_t *idx = malloc(n * sizeof(*idx));

	if (!idx)
		return IL_ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	/* insertion-free: sort indices by value */
	{
		/* qsort_r is GNU; a small merge sort keeps it portable and stable */
		size_t *tmp = malloc(n * sizeof(*tmp));

		if (!tmp) {
			free(idx);
			return IL_ENOMEM;
		}
		for (size_t w = 1; w < n; w *= 2) {
			for (size_t lo = 0; lo < n; lo += 2 * w) {
				size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
				size_t i = lo, j = mid, k = lo;

				while (i < mid && j < hi)
					tmp[k++] = v[idx[j]] < v[idx[i]] ? idx[j++] : idx[i++];
				while (i < mid)
					tmp[k++] = idx[i++];
				while (j < hi)
					tmp[k++] = idx[j++];
			}
			memcpy(idx, tmp, n * sizeof(*idx));
		}
		free(tmp);
	}
	*tie_term = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[idx[j + 1]] == v[idx[i]])
			j++;
		for (size_t k = i; k <= j; k++)
			ranks[idx[k]] = (double)(i + j) / 2 + 1;
		{
			double t = (double)(j - i + 1);

			*tie_term += t * t * t - t;
		}
		i = j + 1;
	}
	free(idx);
	return 0;
}

/*
 * P(U >= u) under the null for sizes m, n (m the smaller): counts of rank
 * arrangements by U, built by adding one element of the larger sample at a
 * time (f_{n+1}(m', k) = f_{n+1}(m'-1, k-(n+1)) + f_n(m', k)), all additions,
 * so the tail stays accurate.
 */
static double mwu_exact_sf(size_t m, size_t n, double u)
{
	size_t K = m * n;
	double *f, total = 0, tail = 0;
	size_t stride = K + 1;

	f = calloc((m + 1) * stride, sizeof(*f));
	if (!f)
		return NAN;
	/* n = 0: only U = 0, one arrangement, for every m' */
	for (size_t mm = 0; mm <= m; mm++)
		f[mm * stride] = 1;
	for (size_t nn = 0; nn < n; nn++) {
		/* m' from high to low would reuse old values; we need new f(m'-1), so go up */
		for (size_t mm = 1; mm <= m; mm++) {
			double *cur = f + mm * stride, *prev = f + (mm - 1) * stride;

			/* cur holds f_nn(mm, .); prev already holds f_{nn+1}(mm-1, .) */
			for (size_t k = K + 1; k-- > nn + 1;)
				cur[k] += prev[k - (nn + 1)];
		}
	}
	for (size_t k = 0; k <= K; k++) {
		total += f[m * stride + k];
		if ((double)k >= u)
			tail += f[m * stride + k];
	}
	free(f);
	return tail / total;
}

int il_stats_mwu(const double *x, size_t n1, const double *y, size_t n2, struct il_test *out, struct il_err *err)
{
	size_t n = n1 + n2;
	double *v, *r, tie, r1 = 0, u1, u2, u, p;
	bool ties;

	if (!n1 || !n2)
		return il_err_set(err, IL_EINVAL, "Mann-Whitney U needs at least one value on each side");
	v = malloc(n * sizeof(*v));
	r = malloc(n * sizeof(*r));
	if (!v || !r) {
		free(v);
		free(r);
		return il_err_oom(err);
	}
	memcpy(v, x, n1 * sizeof(*v));
	memcpy(v + n1, y, n2 * sizeof(*v));
	if (rank(v, n, r, &tie)) {
		free(v);
		free(r);
		return il_err_oom(err);
	}
	for (size_t i = 0; i < n1; i++)
		r1 += r[i];
	free(v);
	free(r);
	u1 = r1 - (double)n1 * (double)(n1 + 1) / 2;
	u2 = (double)n1 * (double)n2 - u1;
	u = u1 > u2 ? u1 : u2;
	ties = tie > 0;
	out->stat = u1;
	out->exact = (n1 <= 8 || n2 <= 8) && !ties;
	if (out->exact) {
		p = 2 * mwu_exact_sf(n1 < n2 ? n1 : n2, n1 < n2 ? n2 : n1, u);
	} else {
		double nn = (double)n, s = sqrt((double)n1 * (double)n2 / 12 * ((nn + 1) - tie / (nn * (nn - 1))));
		double num = u - (double)n1 * (double)n2 / 2 - 0.5;

		p = s > 0 ? 2 * il_stats_norm_sf(num / s) : (num > 0 ? 0 : 2);
	}
	out->p = p > 1 ? 1 : p < 0 ? 0 : p;
	return 0;
}

double il_stats_mwu_min_p(size_t n1, size_t n2)
{
	/* the most extreme arrangement: 1 of C(n1+n2, n1), two-sided */
	double lc = lgamma((double)(n1 + n2 + 1)) - lgamma((double)(n1 + 1)) - lgamma((double)(n2 + 1));
	double p = 2 * exp(-lc);

	return p > 1 ? 1 : p;
}

int il_stats_welch(const double *x, size_t n1, const double *y, size_t n2, struct il_test *out, struct il_err *err)
{
	struct il_desc a, b;
	double va, vb, se2, t, df;

	if (n1 < 2 || n2 < 2)
		return il_err_set(err, IL_EINVAL, "Welch's t-test needs at least two values on each side");
	moments(x, n1, &a);
	moments(y, n2, &b);
	va = a.stdev * a.stdev / (double)n1;
	vb = b.stdev * b.stdev / (double)n2;
	se2 = va + vb;
	out->exact = 0;
	if (se2 == 0) {
		out->stat = a.mean == b.mean ? NAN : (a.mean > b.mean ? INFINITY : -INFINITY);
		out->p = a.mean == b.mean ? NAN : 0;
		return 0;
	}
	t = (a.mean - b.mean) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(n1 - 1) + vb * vb / (double)(n2 - 1));
	out->stat = t;
	out->p = 2 * il_stats_t_sf(fabs(t), df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

/* splitmix64 (Steele, Lea and Flood 2014; the constants of Vigna's reference code) */
uint64_t il_stats_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t il_stats_rand_index(uint64_t *s, size_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, r;

	do
		r = il_stats_rand(s);
	while (r >= lim);
	return (size_t)(r % n);
}

static double resample_mean(const double *x, size_t n, uint64_t *s)
{
	double sum = 0, run = 0;

	/* the plain sum (the numbers every earlier run printed), the running mean where it overflows */
	for (size_t i = 0; i < n; i++) {
		double v = x[il_stats_rand_index(s, n)];

		sum += v;
		run += (v - run) / (double)(i + 1);
	}
	return isfinite(sum) ? sum / (double)n : run;
}

/* Linear-interpolated percentile of sorted v (numpy's default). */
static double pct(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

int il_stats_ratio_ci(const double *x, size_t n1, const double *y, size_t n2, double level, unsigned b, uint64_t seed,
		double *lo, double *hi, const char **method, struct il_err *err)
{
	struct il_desc a, c;
	double *r;
	unsigned k = 0;

	*lo = *hi = NAN;
	if (!n1 || !n2 || !(level > 0 && level < 1))
		return il_err_set(err, IL_EINVAL, "ratio CI needs values on both sides and a level in (0, 1)");
	moments(x, n1, &a);
	moments(y, n2, &c);
	if (a.mean == 0)
		return il_err_set(err, IL_EINVAL, "ratio CI: the reference mean is 0");
	if (n1 > 1000 && n2 > 1000) {
		/* delta method: var(Y/X) ~ (vy/ny)/mx^2 + my^2 (vx/nx)/mx^4 */
		double ratio = c.mean / a.mean, z = il_stats_norm_isf((1 - level) / 2);
		double se = sqrt(c.stdev * c.stdev / (double)n2 / (a.mean * a.mean) +
				 c.mean * c.mean * a.stdev * a.stdev / (double)n1 / pow(a.mean, 4));

		*lo = ratio - z * se;
		*hi = ratio + z * se;
		*method = "normal";
		return 0;
	}
	if (!b)
		b = 2000;
	r = malloc(b * sizeof(*r));
	if (!r)
		return il_err_oom(err);
	for (unsigned i = 0; i < b; i++) {
		double mx = resample_mean(x, n1, &seed), my = resample_mean(y, n2, &seed);

		if (mx != 0)
			r[k++] = my / mx;
	}
	if (!k) {
		free(r);
		return il_err_set(err, IL_EINVAL, "ratio CI: every resample of the reference has mean 0");
	}
	qsort(r, k, sizeof(*r), cmp_double);
	*lo = pct(r, k, (1 - level) / 2);
	*hi = pct(r, k, 1 - (1 - level) / 2);
	*method = "bootstrap";
	free(r);
	return 0;
}

/* idx[0..n): the indices of p in ascending order of p (a stable insertion sort: families are small) */
static size_t *ascending(const double *p, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return idx;
}

int il_stats_holm(double *p, size_t n)
{
	size_t *idx = ascending(p, n);
	double run = 0;

	if (!idx)
		return IL_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double adj = (double)(n - i) * p[idx[i]];

		if (adj > 1)
			adj = 1;
		if (adj < run)
			adj = run;
		run = adj;
		p[idx[i]] = adj;
	}
	free(idx);
	return 0;
}

int il_stats_bh(double *p, size_t n)
{
	size_t *idx = ascending(p, n);
	double run = 1;

	if (!idx)
		return IL_ENOMEM;
	for (size_t i = n; i-- > 0;) {
		double q = p[idx[i]] * (double)n / (double)(i + 1);

		if (q < run)
			run = q;
		p[idx[i]] = run;
	}
	free(idx);
	return 0;
}
