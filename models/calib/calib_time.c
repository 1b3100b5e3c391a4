/* calib_time.c — the timing loop every calibration kernel runs under (calib_measure), on
 * its own so that ppt-ompcost (apps/ompcost) can compile it without the rest of
 * ppt_cpu: one implementation of the timing policy for `ppt calibrate` and the probe. */
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "calib/calib_impl.h"

double calib_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Grows n until one run of k lasts min_s; *dt is that last run's seconds. */
static uint64_t size_run(calib_kernel k, void *arg, uint64_t unit, double min_s, double *dt) {
  uint64_t n = unit * 16;
  /* Scale by the shortfall, at most 16x a step so a slow first run cannot overshoot. */
  for (;;) {
    double t0 = calib_now();
    k(arg, n);
    *dt = calib_now() - t0;
    if (*dt >= min_s || n >= (UINT64_C(1) << 40)) return n;
    double f = *dt > 0 ? 1.25 * min_s / *dt : 16;
    if (f > 16) f = 16;
    if (f < 2) f = 2;
    n = ((uint64_t)((double)n * f) + unit - 1) / unit * unit;
  }
}

static double time_run(calib_kernel k, void *arg, uint64_t n) {
  double t0 = calib_now();
  k(arg, n);
  return calib_now() - t0;
}

double calib_measure(calib_kernel k, void *arg, uint64_t unit, const calib_timing *t) {
  double dt;
  uint64_t n = size_run(k, arg, unit, t->min_s, &dt);
  /* The last sizing run ran at the final n: it is the first trial. */
  int trials = t->trials < 1 ? 1 : t->trials;
  double *d = malloc((size_t)trials * sizeof *d);
  if (!d) return 0;
  d[0] = dt;
  for (int i = 1; i < trials; i++) d[i] = time_run(k, arg, n);
  double s = calib_statistic(d, (size_t)trials, t);
  free(d);
  return s / (double)n;
}

double calib_measure_vs(calib_kernel k, void *arg, uint64_t unit, calib_kernel ref, void *ref_arg,
                        uint64_t ref_unit, const calib_timing *t) {
  double dt, dr;
  uint64_t n = size_run(k, arg, unit, t->min_s, &dt);
  uint64_t nr = size_run(ref, ref_arg, ref_unit, t->min_s, &dr);
  int trials = t->trials < 1 ? 1 : t->trials;
  double *d = malloc(3 * (size_t)trials * sizeof *d);
  if (!d) return 0;
  double *dk = d + trials, *dref = d + 2 * trials;
  /* Each trial times the reference and the kernel back to back: a burst of other load, or
   * a clock change, that slows one usually slows both, and their ratio keeps. The order
   * alternates (reference first in even trials, kernel first in odd ones) so that a
   * preemption that tends to fall late in a pair (a time slice running out) weighs on
   * both sides alike. */
  for (int i = 0; i < trials; i++) {
    if (i % 2 == 0) dref[i] = time_run(ref, ref_arg, nr) / (double)nr;
    dk[i] = time_run(k, arg, n) / (double)n;
    if (i % 2 == 1) dref[i] = time_run(ref, ref_arg, nr) / (double)nr;
    d[i] = dref[i] > 0 ? dk[i] / dref[i] : 0;
  }
  /* Typical: the median of the pairs' ratios. Best: the fastest kernel trial over the
   * fastest reference trial (each at its own best). */
  double r = t->typical ? calib_statistic(d, (size_t)trials, t)
                        : calib_statistic(dk, (size_t)trials, t) / calib_statistic(dref, (size_t)trials, t);
  free(d);
  return r;
}

double calib_statistic(double *trials, size_t n, const calib_timing *t) {
  if (n == 0) return 0;
  if (!t->typical) return gsl_stats_min(trials, 1, n);
  gsl_sort(trials, 1, n);
  return gsl_stats_median_from_sorted_data(trials, 1, n);
}

double calib_rounds(double a, double b, const calib_timing *t) {
  if (!(a > 0)) return b;
  if (!(b > 0)) return a;
  return t->typical ? 0.5 * (a + b) : (a < b ? a : b);
}
