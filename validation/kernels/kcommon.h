/* kcommon.h — the few helpers every validation kernel shares: 64-byte aligned allocation,
 * command-line handling (`--time`) and the wall-clock report.
 *
 * Conventions of the kernels in this folder (see docs/validation.md):
 *  - every OpenMP parallel region lives in a function named kernel_*(); clang outlines its
 *    body into `.omp_outlined.*` functions, so the Cachegrind runner counts exactly
 *    kernel_* + .omp_outlined.* and nothing of initialisation or checking;
 *  - kernel_*() functions are noinline so that their names survive -O2;
 *  - initialisation and checksum are serial and deterministic, and no kernel has a
 *    floating-point reduction whose order depends on the thread count, so the checksum
 *    line is bit-identical for every OMP_NUM_THREADS.
 *
 * Include this header first: it sets the POSIX feature macro posix_memalign needs. */
#ifndef PPT_VALIDATION_KCOMMON_H
#define PPT_VALIDATION_KCOMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KC_NOINLINE __attribute__((noinline))

/* 64-byte alignment puts every array at a cache-line boundary, so line counts (and the
 * Cachegrind figures) do not depend on where malloc happened to place the data. */
static inline void *kc_alloc(const char *name, size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes) != 0) {
    fprintf(stderr, "%s: cannot allocate %zu bytes\n", name, bytes);
    exit(1);
  }
  return p;
}

/* Returns 1 when --time was given; exits with status 2 on any other argument. */
static inline int kc_parse(const char *name, int argc, char **argv) {
  int timing = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--time") == 0) {
      timing = 1;
    } else {
      fprintf(stderr,
              "%s: unknown argument '%s'\n"
              "usage: %s [--time]   (sizes are compile-time macros, see the source)\n",
              name, argv[i], name);
      exit(2);
    }
  }
  return timing;
}

/* The kernels' fixed-seed generator: a 64-bit LCG (Knuth's MMIX constants) on *state;
 * the high 32 bits are the output. */
static inline uint32_t kc_lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*state >> 32);
}

static inline void kc_report_time(const char *name, int timing, double seconds) {
  if (timing) fprintf(stderr, "%s: kernel time %.6f s (%d threads)\n", name, seconds, omp_get_max_threads());
}

/* The start of the timed kernel. The process's first parallel region also starts
 * libomp (thread pool, affinity): 0.8-1.0 ms on the validation host, measured, which
 * is a third of the shortest kernels and is no part of them. An empty region first
 * makes the timed kernel meet a warm runtime, as a benchmark harness would; it has no
 * memory references, so traces and Cachegrind counts do not change. */
static inline double kc_start(void) {
#pragma omp parallel
  { __asm__ volatile("" ::: "memory"); }
  return omp_get_wtime();
}

#endif
