/* calib_omp.c — cost of an OpenMP parallel region (fork, empty worksharing loop, join
 * barrier) with the threads this machine offers; compiled with -fopenmp. */
#include <omp.h>

#include "cpu/calib_impl.h"

typedef struct region {
  int threads;
  volatile int sink;
} region;

static void run_regions(void *arg, uint64_t n) {
  region *r = arg;
  int s = 0;
  for (uint64_t i = 0; i < n; i++) {
#pragma omp parallel for num_threads(r->threads) reduction(+ : s)
    for (int j = 0; j < r->threads; j++) s += j;
  }
  r->sink = s;
}

double calib_fork_join_s(int threads, const calib_timing *t) {
  region r = {.threads = threads > 0 ? threads : omp_get_num_procs()};
  return calib_best(run_regions, &r, 1, t);
}
