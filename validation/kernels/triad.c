/* triad.c — STREAM triad a[i] = b[i] + s * c[i] over three arrays, NTIMES sweeps (the
 * bandwidth-bound kernel).
 *
 * Every sweep streams 2 arrays in and 1 out with no reuse within a sweep; at the runtime
 * size (N = 8388608) each array is 64 MiB (three arrays: 192 MiB, six times the 32 MiB L3
 * sysfs reports and far beyond the 4-19 MiB the calibration finds), so every sweep comes
 * from DRAM and time is set by the bandwidth one or two cores can draw, not by latency or
 * arithmetic. The scalar alternates between sweeps so that no sweep repeats the last
 * one's values. One `parallel for` per sweep; clang -O2 vectorises the loop.
 *
 * Sizes: -DN=262144 -DNTIMES=4 (2 MiB per array: already 16 times the 128 KB L2 of the
 * hit-rate validation's hierarchy). */
#include "kcommon.h"

#ifndef N
#define N 262144
#endif
#ifndef NTIMES
#define NTIMES 4
#endif

static KC_NOINLINE void kernel_triad(double *restrict a, const double *restrict b, const double *restrict c) {
  for (int t = 0; t < NTIMES; t++) {
    const double s = (t % 2 == 0) ? 3.0 : 0.5;
#pragma omp parallel for
    for (long i = 0; i < N; i++) a[i] = b[i] + s * c[i];
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("triad", argc, argv);
  size_t bytes = sizeof(double) * (size_t)N;
  double *a = kc_alloc("triad", bytes), *b = kc_alloc("triad", bytes), *c = kc_alloc("triad", bytes);
  for (long i = 0; i < N; i++) {
    a[i] = 0.0;
    b[i] = (double)(i % 41) / 41.0;
    c[i] = (double)(i % 43) / 43.0;
  }
  double t0 = kc_start();
  kernel_triad(a, b, c);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (long i = 0; i < N; i++) s += a[i] * (double)(1 + i % 3);
  printf("triad N=%ld NTIMES=%d: checksum %.12e\n", (long)N, NTIMES, s);
  kc_report_time("triad", timing, t1 - t0);
  free(a);
  free(b);
  free(c);
  return 0;
}
