/* main.c — ppt-ompcost: the cost of an empty OpenMP parallel region, timed in a process
 * that links only libomp, json-c and libc.
 *
 * `ppt calibrate` runs this probe for the hwspec's fork_join_cycles and
 * fork_join_serial_cycles instead of timing regions itself: the ppt executable links
 * SimGrid (with ns-3, boost and sqlite behind it), and libomp's regions run about twice
 * as slow in any process linked with it, even one that never calls it (measured: ~600 ns
 * per serialised region here, 1080-1400 ns with -lsimgrid). The programs ppt predicts
 * are plain executables, so their regions cost what this process measures. The kernel
 * and the timing loop are calibrate's own (models/calib/parallel/calib_omp.c, calib_time.c),
 * compiled into this program. Output: one JSON object on stdout. */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_impl.h"

#define MAX_THREADS 4096

static void help(void) {
  printf(
      "usage: ppt-ompcost [--threads N] [--trials T] [--min-s S] [--median]\n\n"
      "Times an empty OpenMP parallel-for region (fork, one iteration per thread, join) on N\n"
      "threads and on one thread (serialised), each as the best (or median) of T trials lasting\n"
      "at least S seconds, and prints {\"threads\": N, \"fork_join_s\": ..., \"fork_join_serial_s\":\n"
      "..., \"trials\": T, \"min_s\": S, \"statistic\": \"best\"|\"median\"} (seconds per region).\n"
      "`ppt calibrate` runs it for the hwspec's fork_join_cycles and fork_join_serial_cycles:\n"
      "this process links no SimGrid, which slows OpenMP regions in the ppt process.\n"
      "OMP_PROC_BIND and the other OMP_* variables apply as usual.\n\n"
      "  --threads N  threads of the parallel region (default: omp_get_num_procs())\n"
      "  --trials T   trials per figure (default 41, as ppt calibrate)\n"
      "  --min-s S    seconds each trial lasts at least (default 0.002)\n"
      "  --median     keep the median trial, not the best (ppt calibrate's default)\n"
      "  -h, --help\n");
}

static int usage(const char *fmt, const char *arg) {
  fprintf(stderr, "ppt-ompcost: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see ppt-ompcost --help)\n");
  return 2;
}

/* An integer in [lo, hi] spanning the whole string; 0 when it is one. */
static int parse_int(const char *s, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  int threads = 0;
  calib_timing t = {0.002, 41, 0};
  static const struct option opts[] = {
      {"threads", required_argument, 0, 'n'}, {"trials", required_argument, 0, 't'},
      {"min-s", required_argument, 0, 's'},   {"median", no_argument, 0, 'm'},
      {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
  opterr = 0; /* one message of our own, not getopt's */
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'n':
        if (parse_int(optarg, 1, MAX_THREADS, &threads))
          return usage("--threads wants an integer from 1 to 4096, not '%s'", optarg);
        break;
      case 't':
        if (parse_int(optarg, 1, 100000, &t.trials))
          return usage("--trials wants an integer from 1 to 100000, not '%s'", optarg);
        break;
      case 's': {
        char *end;
        errno = 0;
        t.min_s = strtod(optarg, &end);
        if (errno || end == optarg || *end || !(t.min_s > 0 && t.min_s <= 10))
          return usage("--min-s wants seconds above 0, at most 10, not '%s'", optarg);
        break;
      }
      case 'm': t.typical = 1; break;
      case 'h': help(); return 0;
      default: return usage("unknown option or missing value: '%s'", argv[optind - 1]);
    }
  }
  if (optind != argc) return usage("unexpected argument '%s'", argv[optind]);

  threads = calib_omp_threads(threads);
  /* The order calibrate used in-process: all threads first, then one. */
  double fj = calib_fork_join_s(threads, &t);
  double serial = calib_fork_join_s(1, &t);
  if (!(fj > 0 && isfinite(fj) && serial > 0 && isfinite(serial))) {
    fprintf(stderr, "ppt-ompcost: implausible timings (%g s, %g s per region)\n", fj, serial);
    return 1;
  }
  json_object *o = json_object_new_object();
  json_object_object_add(o, "threads", json_object_new_int(threads));
  json_object_object_add(o, "fork_join_s", json_object_new_double(fj));
  json_object_object_add(o, "fork_join_serial_s", json_object_new_double(serial));
  json_object_object_add(o, "trials", json_object_new_int(t.trials));
  json_object_object_add(o, "min_s", json_object_new_double(t.min_s));
  json_object_object_add(o, "statistic", json_object_new_string(t.typical ? "median" : "best"));
  int ok =
      printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED)) > 0 && fflush(stdout) == 0;
  json_object_put(o);
  if (!ok) {
    fprintf(stderr, "ppt-ompcost: cannot write to stdout: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
