/* models/cpu/thread_speed.c — the compute speed a region's thread gets from the spec's per-core
 * speeds (hwspec.core_speed), given how many threads the region has.
 *
 * Why not simply core t for thread t: the program does not choose where its first
 * thread runs. The operating system starts it on any CPU, and OpenMP places the others
 * from there (OMP_PROC_BIND=true keeps each where it is placed). A region with as many
 * threads as listed cores uses them all, whichever CPU the first one found, and a static
 * schedule waits for the slowest: thread t on core t prices that. A region with fewer
 * threads uses some of them: its time is the mean, over the CPUs the first thread may
 * start on, of its slowest thread's. On a Zen 5 guest the calibrations found CPU 1 10 %
 * faster than CPU 0 (core_speed [1, 1.1], the median of 9), and the kernels ran
 * 1.13-1.19 times slower at 2 threads than their 1-thread time halved against ~1.0
 * predicted with every one-thread run on core 0 (validation/results/zen5-s28/): a
 * one-thread run is not always on the slower CPU. */
#include "ppt/cpu.h"

/* Thread t's speed in a region of n threads: core t's (ppt_hwspec_core_speed) when the
 * region has at least as many threads as the spec lists speeds (or lists none); with
 * fewer, the same speed for every thread, 1 / E, where E is the mean over the N listed
 * cores s of the slowest of cores s, s+1, ..., s+n-1 (mod N) in time per unit of work:
 * max 1 / speed. One thread: the harmonic mean of the speeds. */
double ppt_hwspec_thread_speed(const ppt_hwspec *hw, uint32_t thread, uint32_t n) {
  uint32_t N = hw->nspeeds;
  if (n == 0 || n >= N) return ppt_hwspec_core_speed(hw, thread);
  double e = 0;
  for (uint32_t s = 0; s < N; s++) {
    double slowest = 0;
    for (uint32_t i = 0; i < n; i++) {
      double inv = 1.0 / ppt_hwspec_core_speed(hw, (s + i) % N);
      if (inv > slowest) slowest = inv;
    }
    e += slowest;
  }
  return (double)N / e;
}
