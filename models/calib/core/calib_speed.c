/* calib_speed.c — how fast each core computes, relative to the first (hwspec core_speed).
 *
 * Cores are not always equal: hybrid CPUs have fast and slow ones, and a virtual CPU
 * whose host core is shared with another guest runs slower than its sibling. A static
 * schedule gives every thread the same work, so a region lasts as long as its slowest
 * core takes: on the validation guest, pinned, the second CPU ran vecpoly 8-12 % slower
 * than the first, nbody 6-15 %, blackscholes 8-17 % (an integer add chain 18-40 %, a
 * chain of FP adds 1-2 %), and the compute-bound kernels scaled 1.67-1.73x on two.
 * No single op speaks for a program, so a core's speed is the geometric mean of its
 * speed over a mix of op kernels (calib_ops_mix_s). */
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#include "calib/calib_impl.h"

/* Times the mix pinned to cpu; 0 when the thread cannot be pinned there. */
static int mix_on(int cpu, const calib_timing *t, double s[CALIB_MIX_N]) {
  cpu_set_t saved;
  if (!calib_pin_self(cpu, &saved)) return 0;
  calib_ops_mix_s(t, s);
  calib_unpin_self(&saved);
  return 1;
}

double calib_mix_speed(const double *ref, const double *s) {
  double lsum = 0;
  int n = 0;
  for (int j = 0; j < CALIB_MIX_N; j++)
    if (ref[j] > 0 && s[j] > 0) {
      lsum += log(ref[j] / s[j]);
      n++;
    }
  return n ? exp(lsum / n) : 0;
}

/* Rounds the trials are split over. One pass of the mix per CPU, the first CPU's as the
 * reference of all, let a burst of host load over the reference's ~0.15 s move every
 * figure (a CPU timed against itself read 1.18 under CI); each round now times every CPU
 * once with a third of the trials, a CPU's figure is its time over that round's
 * reference pass, and its speed the median of the rounds': one spoiled pass moves at
 * most one round. Same total trials as one pass. */
#define SPEED_ROUNDS 3

uint32_t calib_core_speeds(const int *cpus, uint32_t n, const calib_timing *t, double *speed) {
  double ref[CALIB_MIX_N], s[CALIB_MIX_N];
  for (uint32_t i = 0; i < n; i++) speed[i] = 0;
  if (n == 0) return 0;
  double *rounds = calloc((size_t)n * SPEED_ROUNDS, sizeof *rounds);
  if (!rounds) return 0;
  calib_timing tr = *t;
  tr.trials = (t->trials + SPEED_ROUNDS - 1) / SPEED_ROUNDS;
  if (tr.trials < 3) tr.trials = 3;
  for (int k = 0; k < SPEED_ROUNDS; k++) {
    if (!mix_on(cpus[0], &tr, ref)) break;
    rounds[k] = 1;
    for (uint32_t i = 1; i < n; i++)
      if (mix_on(cpus[i], &tr, s)) rounds[(size_t)i * SPEED_ROUNDS + k] = calib_mix_speed(ref, s);
  }
  uint32_t done = 0;
  for (uint32_t i = 0; i < n; i++) {
    double *ri = rounds + (size_t)i * SPEED_ROUNDS;
    int ok = 1;
    for (int k = 0; k < SPEED_ROUNDS; k++) ok &= ri[k] > 0;
    if (!ok) continue;
    gsl_sort(ri, 1, SPEED_ROUNDS);
    speed[i] = gsl_stats_median_from_sorted_data(ri, 1, SPEED_ROUNDS);
    done++;
  }
  free(rounds);
  return done;
}
