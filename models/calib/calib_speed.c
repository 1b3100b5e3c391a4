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
#include <math.h>

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

uint32_t calib_core_speeds(const int *cpus, uint32_t n, const calib_timing *t, double *speed) {
  double first[CALIB_MIX_N], s[CALIB_MIX_N];
  uint32_t done = 0;
  for (uint32_t i = 0; i < n; i++) speed[i] = 0;
  if (n == 0 || !mix_on(cpus[0], t, first)) return 0;
  speed[0] = 1;
  done = 1;
  for (uint32_t i = 1; i < n; i++) {
    if (!mix_on(cpus[i], t, s)) continue;
    speed[i] = calib_mix_speed(first, s);
    done += speed[i] > 0;
  }
  return done;
}
