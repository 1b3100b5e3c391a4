/* models/extrap/polyfit.c — one quantity of a block (a count, a slice's distance) as a
 * function of the input size, AMM §3's "counts as functions of the input size": a
 * polynomial of degree 0-2 or a power law, the form chosen by how well each predicts the
 * points it did not see (the rule: include/ppt/extrap.h).
 *
 * Why leave-one-out and not the residuals: with 3 sizes a quadratic always passes through
 * every point, so residuals would always pick the highest degree; a degree that predicts
 * each held-out point is one that extrapolates. The interpolating degree (as many
 * coefficients as points) cannot be judged that way: it is taken only when no lower
 * degree predicts the points, and the command's check against the largest traced size
 * (docs/extrapolate.md) is what guards it. */
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <string.h>

#include "ppt/extrap.h"

#define NP (PPT_EXTRAP_MAX_DEGREE + 1) /* most coefficients */

/* The exponents of form f's terms (the power form: 0 and its exponent p). */
static unsigned terms(unsigned f, unsigned p, unsigned *pw) {
  if (f == PPT_EXTRAP_POWER) {
    pw[0] = 0;
    pw[1] = p;
    return 2;
  }
  for (unsigned j = 0; j <= f; j++) pw[j] = j;
  return f + 1;
}

/* Least squares of form f (power exponent p) on the points i != skip (skip = n: none), in
 * t = x / xs. The covariance is GSL's s^2 (X'X)^-1 when points are to spare, else 0.
 * Returns 0 or -1. */
static int lsq(const double *x, const double *y, size_t n, size_t skip, unsigned f, unsigned pe, double xs,
               double *coef, double cov[NP][NP]) {
  unsigned pw[NP];
  size_t m = n - (skip < n), p = terms(f, pe, pw);
  if (m < p) return -1;
  gsl_matrix *X = gsl_matrix_alloc(m, p), *C = gsl_matrix_alloc(p, p);
  gsl_vector *Y = gsl_vector_alloc(m), *c = gsl_vector_alloc(p);
  gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(m, p);
  int rc = -1;
  if (X && C && Y && c && w) {
    for (size_t i = 0, r = 0; i < n; i++) {
      if (i == skip) continue;
      for (size_t j = 0; j < p; j++) gsl_matrix_set(X, r, j, pow(x[i] / xs, pw[j]));
      gsl_vector_set(Y, r++, y[i]);
    }
    double chisq;
    if (!gsl_multifit_linear(X, Y, c, C, &chisq, w)) {
      memset(cov, 0, sizeof(double[NP][NP]));
      for (size_t j = 0; j < NP; j++) coef[j] = j < p ? gsl_vector_get(c, j) : 0;
      for (size_t j = 0; j < p && m > p; j++)
        for (size_t k = 0; k < p; k++) cov[j][k] = gsl_matrix_get(C, j, k);
      rc = 0;
    }
  }
  gsl_matrix_free(X);
  gsl_matrix_free(C);
  gsl_vector_free(Y);
  gsl_vector_free(c);
  if (w) gsl_multifit_linear_free(w);
  return rc;
}

/* Form f's value (and with g, its terms) at t. */
static double eval_form(unsigned f, unsigned pe, const double *coef, double t, double *g) {
  unsigned pw[NP];
  size_t p = terms(f, pe, pw);
  double v = 0, tmp[NP];
  g = g ? g : tmp;
  for (size_t j = 0; j < NP; j++) g[j] = j < p ? pow(t, pw[j]) : 0;
  for (size_t j = 0; j < p; j++) v += coef[j] * g[j];
  return v;
}

/* The power form's exponent: the slope of log y against log x (least squares), rounded
 * to the nearest of 1, 2, 3 — a loop nest's depth. 1 when a y is not > 0. */
static unsigned power_of(const double *x, const double *y, size_t n) {
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; i++) {
    if (y[i] <= 0) return 1;
    mx += log(x[i]) / (double)n;
    my += log(y[i]) / (double)n;
  }
  for (size_t i = 0; i < n; i++) {
    sxy += (log(x[i]) - mx) * (log(y[i]) - my);
    sxx += (log(x[i]) - mx) * (log(x[i]) - mx);
  }
  double k = sxx > 0 ? nearbyint(sxy / sxx) : 1;
  return k < 1 ? 1 : k > 3 ? 3 : (unsigned)k;
}

/* RMS error of predicting each point from form f fitted to the others; NaN when a point
 * cannot be spared. */
static double loo_error(const double *x, const double *y, size_t n, unsigned f, unsigned pe, double xs) {
  unsigned pw[NP];
  if (n < terms(f, pe, pw) + 1) return NAN;
  double sum = 0, coef[NP], cov[NP][NP];
  for (size_t i = 0; i < n; i++) {
    if (lsq(x, y, n, i, f, pe, xs, coef, cov)) return NAN;
    double e = eval_form(f, pe, coef, x[i] / xs, NULL) - y[i];
    sum += e * e;
  }
  return sqrt(sum / (double)n);
}

/* The rule of ppt/extrap.h; order: the forms from the simplest. judged: with 3 points the
 * interpolating quadratic is not taken either (ppt_extrap_fit_poly_judged). */
static unsigned choose(const double *loo, size_t n, double tol, int judged) {
  static const unsigned order[] = {0, 1, PPT_EXTRAP_POWER, 2};
  for (int i = 0; i < 4; i++)
    if (!isnan(loo[order[i]]) && loo[order[i]] <= tol) return order[i];
  if (n <= 3 && !(judged && n == 3)) return n == 1 ? 0 : n == 2 ? PPT_EXTRAP_POWER : 2; /* interpolates */
  int best = 0;
  for (int i = 1; i < 4; i++) /* NaN (a form that cannot be judged) never wins */
    if (loo[order[i]] < loo[order[best]]) best = i;
  for (int i = 0; i < best; i++)
    if (loo[order[i]] <= 1.1 * loo[order[best]]) return order[i]; /* a tie: the simpler curve */
  return order[best];
}

static int fit_poly(const double *x, const double *y, size_t n, double rtol, int judged, ppt_extrap_poly *out,
                    ppt_err *err) {
  memset(out, 0, sizeof *out);
  if (n == 0) return ppt_err_set(err, PPT_EINPUT, "fit: no points");
  double xs = 0, mean = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]) || !isfinite(y[i]) || x[i] <= 0)
      return ppt_err_set(err, PPT_EINPUT, "fit: point %zu is not finite or its x is not > 0", i);
    xs = fmax(xs, x[i]);
    mean += fabs(y[i]) / (double)n;
  }
  out->xscale = xs;
  out->power = power_of(x, y, n);
  for (unsigned f = 0; f < PPT_EXTRAP_NFORMS; f++) out->loo[f] = loo_error(x, y, n, f, out->power, xs);
  /* the floor: counts are integers, and an exact fit's error is rounding */
  double tol = (rtol > 0 ? rtol : 1e-3) * mean + 1e-9;
  out->degree = choose(out->loo, n, tol, judged);
  if (lsq(x, y, n, n, out->degree, out->power, xs, out->coef, out->cov))
    return ppt_err_set(err, PPT_ERUN, "fit of form %u failed", out->degree);
  return 0;
}

int ppt_extrap_fit_poly(const double *x, const double *y, size_t n, double rtol, ppt_extrap_poly *out,
                        ppt_err *err) {
  return fit_poly(x, y, n, rtol, 0, out, err);
}

int ppt_extrap_fit_poly_judged(const double *x, const double *y, size_t n, double rtol, ppt_extrap_poly *out,
                               ppt_err *err) {
  return fit_poly(x, y, n, rtol, 1, out, err);
}

double ppt_extrap_fit_eval(const ppt_extrap_poly *f, double x) {
  return eval_form(f->degree, f->power, f->coef, x / f->xscale, NULL);
}

double ppt_extrap_fit_sd(const ppt_extrap_poly *f, double x) {
  double g[NP], v = 0;
  eval_form(f->degree, f->power, f->coef, x / f->xscale, g);
  for (int j = 0; j < NP; j++)
    for (int k = 0; k < NP; k++) v += g[j] * f->cov[j][k] * g[k];
  return v > 0 ? sqrt(v) : 0;
}
