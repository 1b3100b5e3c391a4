/* calib_omp.c — cost of an OpenMP parallel region (fork, empty worksharing loop, join
 * barrier) with the threads this machine offers; compiled with -fopenmp. */
#include <omp.h>

#include "cpu/calib_impl.h"

typedef struct region {
  int threads;
  volatile int sink;
} region;

/* A plain worksharing loop, one iteration per thread, as most regions are: no
 * reduction (its combining step costs as much again and is the program's own work). */
static void run_regions(void *arg, uint64_t n) {
  region *r = arg;
  for (uint64_t i = 0; i < n; i++) {
#pragma omp parallel for num_threads(r->threads)
    for (int j = 0; j < r->threads; j++)
      if (j == 0) r->sink = (int)i;
  }
}

double calib_fork_join_s(int threads, const calib_timing *t) {
  region r = {.threads = threads > 0 ? threads : omp_get_num_procs()};
  return calib_best(run_regions, &r, 1, t);
}
