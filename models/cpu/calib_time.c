/* calib_time.c — the timing loop every calibration kernel runs under (calib_best), on
 * its own so that ppt-ompcost (apps/ompcost) can compile it without the rest of
 * ppt_cpu: one implementation of the timing policy for `ppt calibrate` and the probe. */
#include <stdint.h>
#include <time.h>

#include "cpu/calib_impl.h"

double calib_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double calib_best(calib_kernel k, void *arg, uint64_t unit, const calib_timing *t) {
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
  double best = dt;
  for (int i = 1; i < t->trials; i++) {
    double t0 = calib_now();
    k(arg, n);
    double d = calib_now() - t0;
    if (d < best) best = d;
  }
  return best / (double)n;
}
