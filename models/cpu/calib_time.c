/* calib_time.c — the timing loop every calibration kernel runs under (calib_measure), on
 * its own so that ppt-ompcost (apps/ompcost) can compile it without the rest of
 * ppt_cpu: one implementation of the timing policy for `ppt calibrate` and the probe. */
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cpu/calib_impl.h"

double calib_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double calib_measure(calib_kernel k, void *arg, uint64_t unit, const calib_timing *t) {
  uint64_t n = unit * 16;
  double dt;
  /* Size the run: grow n until one run lasts min_s (scaling by the shortfall, at most
   * 16x a step so a slow first run cannot overshoot wildly). */
  for (;;) {
    double t0 = calib_now();
    k(arg, n);
    dt = calib_now() - t0;
    if (dt >= t->min_s || n >= (UINT64_C(1) << 40)) break;
    double f = dt > 0 ? 1.25 * t->min_s / dt : 16;
    if (f > 16) f = 16;
    if (f < 2) f = 2;
    n = ((uint64_t)((double)n * f) + unit - 1) / unit * unit;
  }
  /* The last sizing run ran at the final n: it is the first trial. */
  int trials = t->trials < 1 ? 1 : t->trials;
  double *d = malloc((size_t)trials * sizeof *d);
  if (!d) return 0;
  d[0] = dt;
  for (int i = 1; i < trials; i++) {
    double t0 = calib_now();
    k(arg, n);
    d[i] = calib_now() - t0;
  }
  double s = calib_statistic(d, (size_t)trials, t);
  free(d);
  return s / (double)n;
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
