/* test_extrap.c — problem-size scaling (ppt/extrap.h, `ppt extrapolate`):
 *  - the degree rule on synthetic data: a quadratic recovered (3 points: it interpolates;
 *    5 points: chosen by leave-one-out), a constant stays 0 (also with noise), a line 1, a
 *    cubic count the power form; a noisy distance at 3 points: the judged rule does not
 *    take the interpolating quadratic;
 *  - the model on hand-made per-block profiles of a cyclic sweep (R sweeps over n lines:
 *    n first touches, (R-1) n at distance n-1): rebuilt exactly at 8n;
 *  - end to end: the sweep traced at n = 1000, 1500, 2000 lines, extrapolated to 8000:
 *    SDCM's analytic hit rates (GSL's binomial CDF) to 1e-9, and `ppt sasmm --model sdcm`
 *    on a trace taken at 8000; with 2 traces the result is marked unchecked;
 *  - the runtime at 8000 on a timed, fully associative spec: what `ppt predict` gives on
 *    the trace at 8000 (to 0.1 %), more than 4.5x the runtime at 2000 (L1 turns to misses);
 *  - a program that sweeps below n = 1500 and jumps at random above: refused (exit 1);
 *  - the sweep with its size compiled in (-DN=...), one binary per size whose block
 *    tables differ (a helper that exists below N = 1800 only, holding 0.3 % of the
 *    references): blocks matched by function, file and line, extrapolated exactly to
 *    N = 8000, the helper's share reported; --plot draws a PNG;
 *  - set conflicts: ppt_extrap_set_fold's arithmetic; a column walk's stride and walk
 *    length measured on its trace (ppt_extrap_strides_measure); the walk traced at
 *    n = 72, 80, 88 doubles a row (no fold) and extrapolated to n = 512 (rows of 4 KiB:
 *    one L1 set, 16 of the L2's 1024): `sets_hit_rate` within 1.5 points of `ppt
 *    cachesim` on a trace taken there at both levels, where SDCM's `hit_rate` is 39 and
 *    87 points off; at n = 520 (rows of 65 lines: every set) the two rates are equal;
 *  - data-dependent reads over data that grows with n: refused with the block named,
 *    extrapolated with --allow-irregular; over 64 lines whatever n: extrapolated;
 *  - the library call (ppt_extrap_run, libppt alone) on the sweep (timed; 3 traces and 2),
 *    the -DN builds and the column walk: every number `ppt extrapolate --json` prints on
 *    the same traces is the result's; one trace is refused with no result;
 *  - bad usage and traces of different programs: exit 2 with one line. */
#include <check.h>
#include <gsl/gsl_cdf.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/extrap.h"
#include "ppt/extrapolate.h"
#include "ppt/hwspec.h"
#include "ppt/reuse.h"
#include "ppt_test.h"

#define R 20

/* The programs' aligned_alloc sizes are rounded up to a multiple of the alignment, as C11
 * asks (the sanitizer build runs them with ASan, which holds them to it). */
static const char *k_sweep =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) int sweep(volatile char *a, int n, int r) {\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < r; k++)\n"
    "    for (int i = 0; i < n; i++) s += a[64 * i];\n"
    "  return s;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  int n = atoi(argv[1]);\n"
    "  volatile char *a = aligned_alloc(4096, ((size_t)n * 64 + 4095) / 4096 * 4096);\n"
    "  return sweep(a, n, 20) & 1;\n"
    "}\n";

/* Below 1500 lines a cyclic sweep; above, as many reads at random over 16 n lines. */
static const char *k_changes =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) int work(volatile char *a, int n, int r) {\n"
    "  int s = 0;\n"
    "  if (n < 1500) {\n"
    "    for (int k = 0; k < r; k++)\n"
    "      for (int i = 0; i < n; i++) s += a[64 * i];\n"
    "  } else {\n"
    "    unsigned x = 1;\n"
    "    for (int k = 0; k < r * n; k++) {\n"
    "      x = x * 1103515245u + 12345u;\n"
    "      s += a[64 * (size_t)((x >> 8) % (16u * (unsigned)n))];\n"
    "    }\n"
    "  }\n"
    "  return s;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  int n = atoi(argv[1]);\n"
    "  volatile char *a = aligned_alloc(4096, ((size_t)n * 16 * 64 + 4095) / 4096 * 4096);\n"
    "  return work(a, n, 20) & 1;\n"
    "}\n";

/* The sweep with n compiled in; below N = 1800 a helper runs after it (64 references,
 * 0.3 % at N = 1000): the binaries' block tables differ in ids, and in that block. */
static const char *k_sized =
    "#ifndef N\n"
    "#define N 1000\n"
    "#endif\n"
    "static char buf[64 * N] __attribute__((aligned(4096)));\n"
    "#if N < 1800\n"
    "__attribute__((noinline)) int helper(volatile char *a) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < 64; i++) s += a[64 * i];\n"
    "  return s;\n"
    "}\n"
    "#endif\n"
    "__attribute__((noinline)) int sweep(volatile char *a, int r) {\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < r; k++)\n"
    "    for (int i = 0; i < N; i++) s += a[64 * i];\n"
    "  return s;\n"
    "}\n"
    "int main(void) {\n"
    "  int s = sweep(buf, 20);\n"
    "#if N < 1800\n"
    "  s += helper(buf);\n"
    "#endif\n"
    "  return s & 1;\n"
    "}\n";

/* Sums a row-major n x n matrix column by column: the inner loop walks a column with a
 * stride of n doubles, and each line comes back with the next column. */
static const char *k_column =
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "__attribute__((noinline)) double colsum(const double *a, int n) {\n"
    "  double s = 0;\n"
    "  for (int j = 0; j < n; j++)\n"
    "    for (int i = 0; i < n; i++) s += a[(size_t)i * n + j];\n"
    "  return s;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  int n = atoi(argv[1]);\n"
    "  double *a = aligned_alloc(4096, ((size_t)n * n * 8 + 4095) / 4096 * 4096);\n"
    "  memset(a, 0, (size_t)n * n * 8);\n"
    "  return colsum(a, n) != 0;\n"
    "}\n";

/* Random reads: over n lines (argv[2] = 0), or over 64 lines whatever n (1, a
 * histogram's bins), next to a sweep over the n lines. */
static const char *k_gather =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) int gather(volatile char *a, int n, int span, int r) {\n"
    "  int s = 0;\n"
    "  unsigned x = 1;\n"
    "  for (int k = 0; k < r * n; k++) {\n"
    "    x = x * 1103515245u + 12345u;\n"
    "    s += a[64 * (size_t)((x >> 8) % (unsigned)span)] + a[64 * (size_t)(k % n)];\n"
    "  }\n"
    "  return s;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  int n = atoi(argv[1]);\n"
    "  volatile char *a = aligned_alloc(4096, ((size_t)n * 64 + 4095) / 4096 * 4096);\n"
    "  return gather(a, n, atoi(argv[2]) ? 64 : n, 20) & 1;\n"
    "}\n";

/* Set-associative LRU: L1 32 KiB 8-way (64 sets), L2 1 MiB 16-way (1024 sets). */
static const char *k_hw_sets =
    "{\"name\": \"test-sets\", \"cores\": 1, \"levels\": [\n"
    " {\"name\": \"L1\", \"size\": 32768, \"assoc\": 8, \"line\": 64, \"shared_by\": 1},\n"
    " {\"name\": \"L2\", \"size\": 1048576, \"assoc\": 16, \"line\": 64, \"shared_by\": 1}]}\n";

/* L1: fully associative 2048 lines (n - 1 >= 2048 misses); L2 16-way 8192 lines
 * (binomial); L3 shared, 16-way 16384 lines. */
static const char *k_hw =
    "{\"name\": \"test-fa\", \"cores\": 4, \"levels\": [\n"
    " {\"name\": \"L1\", \"size\": 131072, \"assoc\": 2048, \"line\": 64, \"shared_by\": 1},\n"
    " {\"name\": \"L2\", \"size\": 524288, \"assoc\": 16, \"line\": 64, \"shared_by\": 1},\n"
    " {\"name\": \"L3\", \"size\": 1048576, \"assoc\": 16, \"line\": 64, \"shared_by\": 4}]}\n";

/* The same caches, fully associative at every level (SDCM is then exact LRU: the
 * extrapolated rates are the simulated ones), with timing for the runtime model. */
static const char *k_hw_timed =
    "{\"name\": \"test-fa-timed\", \"cores\": 4, \"clock_ghz\": 2, \"mlp\": 4, \"levels\": [\n"
    " {\"name\": \"L1\", \"size\": 131072, \"assoc\": 2048, \"line\": 64, \"shared_by\": 1,"
    "  \"latency_cycles\": 4, \"bandwidth_bytes_per_cycle\": 64},\n"
    " {\"name\": \"L2\", \"size\": 524288, \"assoc\": 8192, \"line\": 64, \"shared_by\": 1,"
    "  \"latency_cycles\": 14, \"bandwidth_bytes_per_cycle\": 32},\n"
    " {\"name\": \"L3\", \"size\": 1048576, \"assoc\": 16384, \"line\": 64, \"shared_by\": 4,"
    "  \"latency_cycles\": 40, \"bandwidth_bytes_per_cycle\": 100}],\n"
    " \"dram\": {\"latency_ns\": 90, \"bandwidth_gbs\": 50},\n"
    " \"ops\": {\"ialu\": {\"per_cycle\": 4, \"latency\": 1}, \"idiv\": {\"per_cycle\": 0.1, \"latency\": "
    "25},"
    " \"fadd\": {\"per_cycle\": 2, \"latency\": 3}, \"fmul\": {\"per_cycle\": 2, \"latency\": 3},"
    " \"fdiv\": {\"per_cycle\": 0.25, \"latency\": 12}, \"branch\": {\"per_cycle\": 2, \"latency\": 0},"
    " \"loadst\": {\"per_cycle\": 2, \"latency\": 4}}}\n";

/* ---------------------------------------------------------------- unit */

static void fit(const double *x, const double *y, size_t n, ppt_extrap_poly *f) {
  ppt_err err;
  ck_assert_msg(ppt_extrap_fit_poly(x, y, n, 0, f, &err) == 0, "%s", err.msg);
}

START_TEST(degree_choice) {
  ppt_extrap_poly f;
  double x[5] = {100, 150, 200, 250, 300}, y[5];
  for (int i = 0; i < 5; i++) y[i] = 3 + 2 * x[i] + 0.5 * x[i] * x[i];
  fit(x, y, 3, &f); /* no degree below 2 predicts the points: the interpolating one */
  ck_assert_uint_eq(f.degree, 2);
  ck_assert_double_eq_tol(ppt_extrap_fit_eval(&f, 800), 3 + 1600 + 0.5 * 640000, 1e-6);
  fit(x, y, 5, &f); /* judged by leave-one-out */
  ck_assert_uint_eq(f.degree, 2);
  ck_assert_double_eq_tol(ppt_extrap_fit_eval(&f, 1000), 3 + 2000 + 500000, 1e-6);
  ck_assert_double_eq_tol(f.coef[2] / (f.xscale * f.xscale), 0.5, 1e-12);
  for (int i = 0; i < 5; i++) y[i] = 7;
  fit(x, y, 3, &f);
  ck_assert_uint_eq(f.degree, 0);
  ck_assert_double_eq_tol(ppt_extrap_fit_eval(&f, 1e4), 7, 1e-12);
  double noisy[5] = {7, 7.002, 6.998, 7.001, 6.999};
  fit(x, noisy, 5, &f);
  ck_assert_uint_eq(f.degree, 0);
  ck_assert_double_gt(ppt_extrap_fit_sd(&f, 800), 0); /* spare points: a band */
  for (int i = 0; i < 5; i++) y[i] = 20 * x[i] + 1;
  fit(x, y, 3, &f);
  ck_assert_uint_eq(f.degree, 1);
  ck_assert_double_eq_tol(ppt_extrap_fit_eval(&f, 800), 16001, 1e-6);
  ck_assert_double_lt(ppt_extrap_fit_sd(&f, 800), 1e-6); /* an exact line: no scatter */
  fit(x, y, 1, &f);
  ck_assert_uint_eq(f.degree, 0);
  for (int i = 0; i < 5; i++) y[i] = 2 * x[i] * x[i] * x[i]; /* a depth-3 loop nest's count */
  fit(x, y, 2, &f);                                          /* two sizes: the power form, exponent 3 */
  ck_assert_uint_eq(f.degree, PPT_EXTRAP_POWER);
  ck_assert_uint_eq(f.power, 3);
  ck_assert_double_eq_tol(ppt_extrap_fit_eval(&f, 800) / (2 * 800.0 * 800 * 800), 1, 1e-12);
  fit(x, y, 3, &f); /* three: chosen by leave-one-out over the quadratic */
  ck_assert_uint_eq(f.degree, PPT_EXTRAP_POWER);
  ppt_err err;
  ck_assert_int_eq(ppt_extrap_fit_poly(x, y, 0, 0, &f, &err), PPT_EINPUT);
  /* A distance with layout noise: the interpolating quadratic runs away at 4x, the
   * judged rule takes the form that best predicts held-out points (here the line). */
  double d[3] = {5, 5.1, 5.6};
  fit(x, d, 3, &f);
  ck_assert_uint_eq(f.degree, 2);
  ck_assert_double_gt(ppt_extrap_fit_eval(&f, 1200), 50);
  ck_assert_int_eq(ppt_extrap_fit_poly_judged(x, d, 3, 0, &f, &err), 0);
  ck_assert_uint_ne(f.degree, 2);
  ck_assert_double_lt(ppt_extrap_fit_eval(&f, 1200), 20);
  ck_assert_int_eq(ppt_extrap_fit_poly_judged(x, y, 3, 0, &f, &err), 0); /* exact forms: as before */
  ck_assert_uint_eq(f.degree, PPT_EXTRAP_POWER);
}
END_TEST

START_TEST(set_fold) {
  /* 64 sets of 64 bytes: a span of 4 KiB */
  ck_assert_uint_eq(ppt_extrap_set_fold(4096, 64, 64), 64);      /* one set */
  ck_assert_uint_eq(ppt_extrap_set_fold(-4096, 64, 64), 64);     /* backwards alike */
  ck_assert_uint_eq(ppt_extrap_set_fold(64 * 4096, 64, 64), 64); /* whole spans */
  ck_assert_uint_eq(ppt_extrap_set_fold(640, 64, 64), 2);        /* 10 lines: every 2nd set */
  ck_assert_uint_eq(ppt_extrap_set_fold(4608, 64, 64), 8);       /* 72 lines */
  ck_assert_uint_eq(ppt_extrap_set_fold(4160, 64, 64), 1);       /* 65 lines: every set */
  ck_assert_uint_eq(ppt_extrap_set_fold(96, 64, 64), 1);         /* 1.5 lines: every set */
  ck_assert_uint_eq(ppt_extrap_set_fold(8, 64, 64), 1);          /* within a line */
  ck_assert_uint_eq(ppt_extrap_set_fold(0, 64, 64), 1);          /* no walk */
  ck_assert_uint_eq(ppt_extrap_set_fold(4096, 1024, 64), 64);    /* 1024 sets: 16 used */
  ck_assert_uint_eq(ppt_extrap_set_fold(1920, 64, 64), 2);       /* 30 lines */
}
END_TEST

/* Per-block profiles of a cyclic sweep over n lines, R times, in block 1. */
static void sweep_profiles(double n, ppt_sasmm_profiles *p) {
  memset(p, 0, sizeof *p);
  p->ncores = 1;
  p->nblocks = 2;
  p->prd_bb = calloc(2, sizeof *p->prd_bb);
  p->crd_bb = calloc(2, sizeof *p->crd_bb);
  p->prd_all = ppt_rdhist_new(64);
  for (int k = 0; k < 2; k++) {
    ppt_rdhist *h = ppt_rdhist_new(64);
    ppt_rdhist_add(h, PPT_RD_INF, n);
    ppt_rdhist_add(h, (int64_t)n - 1, (R - 1) * n);
    (k ? p->crd_bb : p->prd_bb)[1] = h;
  }
}

START_TEST(model_sweep_exact) {
  double sizes[3] = {1000, 1500, 2000};
  ppt_sasmm_profiles prof[3];
  const ppt_sasmm_profiles *pp[3];
  for (int i = 0; i < 3; i++) {
    sweep_profiles(sizes[i], &prof[i]);
    pp[i] = &prof[i];
  }
  ppt_extrap_opts o;
  ppt_extrap_opts_default(&o);
  ppt_extrap_model *m;
  ppt_err err;
  ck_assert_msg(ppt_extrap_fit(sizes, pp, 3, &o, &m, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(ppt_extrap_model_blocks(m), 1);
  for (unsigned draw = 0; draw < 3; draw++) { /* exact fits: every draw is the fit */
    ppt_sasmm_profiles out;
    ck_assert_msg(ppt_extrap_predict(m, 8000, NULL, 1, draw, &out, &err) == 0, "%s", err.msg);
    for (int k = 0; k < 2; k++) {
      const ppt_rdhist *h = k ? out.crd : out.prd_all;
      ck_assert_double_eq(ppt_rdhist_infinite(h), 8000);
      ck_assert_double_eq(ppt_rdhist_count(h, 7999), (R - 1) * 8000.0);
      ck_assert_uint_eq(ppt_rdhist_nbins(h), 1);
    }
    ppt_sasmm_profiles_free(&out);
  }
  uint32_t bb;
  double e;
  ck_assert_int_eq(ppt_extrap_block_error(m, 2000, &prof[2], NULL, 0.01, &bb, &e, &err), 0);
  ck_assert_double_eq(e, 0);
  ppt_extrap_model_free(m);
  for (int i = 0; i < 3; i++) ppt_sasmm_profiles_free(&prof[i]);
}
END_TEST

/* ---------------------------------------------------------------- end to end */

static char dir[512];

static void setup(void) {
  snprintf(dir, sizeof dir, "%s", e2e_dir("extrap"));
  e2e_write(dir, "sweep.c", k_sweep);
  e2e_write(dir, "changes.c", k_changes);
  e2e_write(dir, "sized.c", k_sized);
  e2e_write(dir, "fa.json", k_hw);
  e2e_write(dir, "ft.json", k_hw_timed);
  e2e_write(dir, "column.c", k_column);
  e2e_write(dir, "sets.json", k_hw_sets);
  e2e_write(dir, "gather.c", k_gather);
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPTCC -O1 sweep.c -o sweep && $PPTCC -O1 changes.c -o changes"
                          " && for n in 1000 1500 2000 8000; do"
                          " $PPT trace -o s$n.trace -- ./sweep $n 2>/dev/null || exit 1; done"
                          " && for n in 1000 1400 2000; do"
                          " $PPT trace -o c$n.trace -- ./changes $n 2>/dev/null || exit 1; done"
                          " && for n in 1000 1500 2000 8000; do $PPTCC -O1 -DN=$n sized.c -o sized$n"
                          " && $PPT trace -o d$n.trace -- ./sized$n 2>/dev/null || exit 1; done"
                          " && $PPTCC -O1 column.c -o column && for n in 72 80 88 512 520; do"
                          " $PPT trace -o k$n.trace -- ./column $n 2>/dev/null || exit 1; done"
                          " && $PPTCC -O1 gather.c -o gather && for n in 1000 1500 2000; do"
                          " $PPT trace -o g$n.trace -- ./gather $n 0 2>/dev/null || exit 1;"
                          " $PPT trace -o h$n.trace -- ./gather $n 1 2>/dev/null || exit 1; done"),
                   0);
}

static json_object *load(const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  json_object *j = json_object_from_file(p);
  ck_assert_msg(j != NULL, "no JSON in %s", file);
  return j;
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
  return v;
}

static json_object *level(json_object *cores, size_t c, size_t k) {
  return json_object_array_get_idx(get(json_object_array_get_idx(cores, c), "levels"), k);
}

#define SWEEP3 "--trace N=1000:s1000.trace --trace N=1500:s1500.trace --trace N=2000:s2000.trace"

START_TEST(sweep_end_to_end) {
  ck_assert_int_eq(e2e_sh(dir, "$PPT extrapolate " SWEEP3
                               " --target N=8000 --hw fa.json --cores 1,2 --only sweep --no-stack-refs"
                               " --json -o x.json >x.out && $PPT sasmm s8000.trace --hw fa.json --cores 1"
                               " --only sweep --no-stack-refs --model sdcm --json >s.json"),
                   0);
  json_object *x = load("x.json"), *s = load("s.json"), *xo = load("x.out");
  ck_assert_str_eq(json_object_to_json_string(x), json_object_to_json_string(xo));
  /* SDCM by hand: a reuse at distance 7999 hits a k-way cache of B lines with
   * F(k-1; 7999, k/B); first touches miss. */
  double reuse = (R - 1.0) / R;
  double want[3] = {0, reuse * gsl_cdf_binomial_P(15, 16.0 / 8192, 7999),
                    reuse * gsl_cdf_binomial_P(15, 16.0 / 16384, 7999)};
  json_object *xc = get(x, "cores"), *sc = get(s, "cores");
  for (size_t c = 0; c < 2; c++)
    for (size_t k = 0; k < 3; k++) {
      json_object *l = level(xc, c, k);
      double h = json_object_get_double(get(l, "hit_rate"));
      ck_assert_double_eq_tol(h, want[k], 1e-9);
      ck_assert_double_eq_tol(h, json_object_get_double(get(level(sc, 0, k), "hit_rate")), 1e-9);
      ck_assert_double_eq_tol(json_object_get_double(get(l, "hit_rate_lo")), h, 1e-9);
      ck_assert_double_eq_tol(json_object_get_double(get(l, "hit_rate_hi")), h, 1e-9);
    }
  ck_assert_double_eq(json_object_get_double(get(json_object_array_get_idx(xc, 0), "refs")), R * 8000.0);
  json_object *m = get(x, "model");
  ck_assert(json_object_get_boolean(get(m, "checked")));
  ck_assert(!json_object_get_boolean(get(m, "matched_by_key"))); /* one binary: the fast path */
  ck_assert_uint_eq(json_object_array_length(get(m, "loo")), 6);
  ck_assert_int_eq(json_object_get_int(get(get(x, "target"), "value")), 8000);
  ck_assert_int_eq(json_object_get_int(get(x, "seed")), 1);
  ck_assert_uint_eq(json_object_array_length(get(x, "traces")), 3);
  /* fa.json has no timing: no runtime. */
  ck_assert_ptr_null(get(json_object_array_get_idx(xc, 0), "runtime_s"));
  json_object_put(x);
  json_object_put(s);
  json_object_put(xo);
}
END_TEST

/* The runtime at N = 8000 from the traces at 1000-2000: the sweep's blocks run linearly
 * more often, and its L1 turns from hits (distance <= 1999 < 2048 lines) to misses; the
 * extrapolated program must cost what `ppt predict` gives on the trace taken at 8000. */
START_TEST(runtime_at_target) {
  ck_assert_int_eq(e2e_sh(dir, "$PPT extrapolate " SWEEP3
                               " --target N=8000 --hw ft.json --cores 1,2 --only sweep --no-stack-refs"
                               " --json >rt.json && $PPT predict s8000.trace --hw ft.json --cores 1,2"
                               " --only sweep --no-stack-refs --json >rp.json"
                               " && $PPT predict s2000.trace --hw ft.json --cores 1 --only sweep"
                               " --no-stack-refs --json >r2.json"),
                   0);
  json_object *x = load("rt.json"), *p = load("rp.json"), *p2 = load("r2.json");
  ck_assert_double_eq_tol(json_object_get_double(get(level(get(x, "cores"), 0, 0), "hit_rate")), 0, 1e-12);
  double small = json_object_get_double(get(json_object_array_get_idx(get(p2, "cores"), 0), "runtime_s"));
  for (size_t c = 0; c < 2; c++) {
    json_object *xc = json_object_array_get_idx(get(x, "cores"), c);
    double got = json_object_get_double(get(xc, "runtime_s"));
    double want = json_object_get_double(get(json_object_array_get_idx(get(p, "cores"), c), "runtime_s"));
    ck_assert_msg(fabs(got / want - 1) < 1e-3, "%zu: extrapolated %g s, traced %g s", c, got, want);
    /* not just 4x the traced 2000: the L1 misses make it slower per reference */
    ck_assert_msg(got > 4.5 * small, "%g s is not more than 4.5 x %g s", got, small);
    ck_assert(json_object_get_double(get(xc, "runtime_s_lo")) <= got);
    ck_assert(json_object_get_double(get(xc, "runtime_s_hi")) >= got);
  }
  json_object_put(x);
  json_object_put(p);
  json_object_put(p2);
}
END_TEST

START_TEST(two_traces_unchecked) {
  ck_assert_int_eq(
      e2e_sh(dir,
             "$PPT extrapolate --trace N=2000:s2000.trace --trace N=1000:s1000.trace"
             " --target N=8000 --hw fa.json --cores 1 --only sweep --no-stack-refs --json >u.json"
             " && $PPT extrapolate --trace N=2000:s2000.trace --trace N=1000:s1000.trace"
             " --target N=8000 --hw fa.json --cores 1 --only sweep | grep -q 'NOT checked'"),
      0);
  json_object *u = load("u.json");
  ck_assert(!json_object_get_boolean(get(get(u, "model"), "checked")));
  double reuse = (R - 1.0) / R;
  ck_assert_double_eq_tol(json_object_get_double(get(level(get(u, "cores"), 0, 1), "hit_rate")),
                          reuse * gsl_cdf_binomial_P(15, 16.0 / 8192, 7999), 1e-9);
  json_object_put(u);
}
END_TEST

START_TEST(behaviour_change_refused) {
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT extrapolate --trace N=1000:c1000.trace --trace N=1400:c1400.trace"
                          " --trace N=2000:c2000.trace --target N=8000 --hw fa.json --cores 1"
                          " >r.out 2>r.err"),
                   1);
  ck_assert_int_eq(
      e2e_sh(dir,
             "test $(wc -l <r.err) -eq 1 && test ! -s r.out"
             " && grep -q 'the behaviour changes with N' r.err && grep -q 'not extrapolated' r.err"
             " && grep -q 'c2000.trace' r.err && grep -q 'L1' r.err && grep -q '1 cores' r.err"),
      0);
}
END_TEST

/* The -DN builds: the first trace's ids are the reference; the helper (N < 1800 only) is
 * left out, and the sweep rebuilt exactly at N = 8000. */
#define SIZED3 "--trace N=1500:d1500.trace --trace N=1000:d1000.trace --trace N=2000:d2000.trace"

START_TEST(sized_binaries) {
  ck_assert_int_eq(e2e_sh(dir, "! cmp -s sized1000 sized2000 && $PPT extrapolate " SIZED3
                               " --target N=8000 --hw fa.json --cores 1,2 --only sweep --no-stack-refs"
                               " --json --plot d.png >d.json && $PPT sasmm d8000.trace --hw fa.json --cores 1"
                               " --only sweep --no-stack-refs --model sdcm --json >ds.json"
                               " && $PPT extrapolate " SIZED3 " --target N=8000 --hw fa.json --cores 1"
                               " --no-stack-refs --json >da.json"
                               " && test \"$(head -c 4 d.png | tail -c 3)\" = PNG"),
                   0);
  json_object *x = load("d.json"), *s = load("ds.json"), *all = load("da.json");
  double reuse = (R - 1.0) / R;
  double want[3] = {0, reuse * gsl_cdf_binomial_P(15, 16.0 / 8192, 7999),
                    reuse * gsl_cdf_binomial_P(15, 16.0 / 16384, 7999)};
  for (size_t c = 0; c < 2; c++)
    for (size_t k = 0; k < 3; k++) {
      double h = json_object_get_double(get(level(get(x, "cores"), c, k), "hit_rate"));
      ck_assert_double_eq_tol(h, want[k], 1e-9);
      ck_assert_double_eq_tol(h, json_object_get_double(get(level(get(s, "cores"), 0, k), "hit_rate")), 1e-9);
    }
  ck_assert(json_object_get_boolean(get(get(x, "model"), "checked")));
  ck_assert(json_object_get_boolean(get(get(x, "model"), "matched_by_key")));
  ck_assert_double_eq(json_object_get_double(get(get(x, "model"), "unmatched_refs_share")), 0);
  /* Counting every block: the helper's 64 references of N = 1000's 20064, unmatched. */
  json_object *m = get(all, "model");
  ck_assert_double_eq_tol(json_object_get_double(get(m, "unmatched_refs_share")), 64.0 / 20064, 1e-4);
  json_object *tr = get(all, "traces");
  ck_assert_double_eq(json_object_get_double(get(json_object_array_get_idx(tr, 2), "unmatched_refs_share")),
                      0);
  ck_assert_double_eq_tol(json_object_get_double(get(level(get(all, "cores"), 0, 1), "hit_rate")), want[1],
                          1e-6);
  json_object_put(x);
  json_object_put(s);
  json_object_put(all);
}
END_TEST

/* colsum's inner block: one load, a step of 8 n bytes from one instance to the next,
 * walks of n instances (a jump back at each new column). */
START_TEST(column_strides) {
  char p[1024];
  snprintf(p, sizeof p, "%s/k80.trace", dir);
  ppt_trace *t;
  ppt_err err;
  ck_assert_msg(ppt_trace_open(p, &t, &err) == 0, "%s", err.msg);
  ppt_extrap_strides st;
  ck_assert_msg(ppt_extrap_strides_measure(t, &st, &err) == 0, "%s", err.msg);
  int found = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++) {
    const ppt_extrap_slot *s = ppt_extrap_strides_of(&st, b);
    if (strcmp(ppt_trace_bb_get(t, b)->func, "colsum") || s[0].refs != 80 * 80) continue;
    found = 1;
    ck_assert(s[0].has_stride);
    ck_assert_int_eq(s[0].stride, 8 * 80);
    ck_assert_uint_eq(s[0].steps, 80 * 80 - 1);
    /* per column of 80 loads, 79 steps of 8 n bytes, of which all but the first repeat
     * the step before (the first follows the jump back, or starts the trace) */
    ck_assert_uint_eq(s[0].repeats, 80 * 78);
    ck_assert_uint_eq(s[1].refs, 0);
  }
  ck_assert(found);
  ppt_extrap_strides_free(&st);
  ppt_trace_close(t);
}
END_TEST

#define COLUMN3 "--trace n=72:k72.trace --trace n=80:k80.trace --trace n=88:k88.trace --hw sets.json"

START_TEST(set_conflicts) {
  ck_assert_int_eq(e2e_sh(dir, "$PPT extrapolate " COLUMN3 " --target n=512 --cores 1 --only colsum"
                               " --no-stack-refs --json >k.json && $PPT cachesim k512.trace --hw sets.json"
                               " --only colsum --no-stack-refs --json >kc.json"
                               " && $PPT extrapolate " COLUMN3 " --target n=520 --cores 1 --only colsum"
                               " --no-stack-refs --json >k5.json && $PPT cachesim k520.trace --hw sets.json"
                               " --only colsum --no-stack-refs --json >kc5.json"),
                   0);
  json_object *x = load("k.json"), *c = load("kc.json"), *x5 = load("k5.json"), *c5 = load("kc5.json");
  json_object *cl = get(c, "levels");
  for (size_t k = 0; k < 2; k++) {
    json_object *l = level(get(x, "cores"), 0, k), *l5 = level(get(x5, "cores"), 0, k);
    double sim = json_object_get_double(get(json_object_array_get_idx(cl, k), "hit_rate"));
    double sets = json_object_get_double(get(l, "sets_hit_rate"));
    double sdcm = json_object_get_double(get(l, "hit_rate"));
    ck_assert_msg(fabs(sets - sim) < 0.015, "L%zu: with sets %.4f, simulated %.4f", k + 1, sets, sim);
    ck_assert_msg(sdcm - sim > 0.3, "L%zu: SDCM %.4f, simulated %.4f", k + 1, sdcm, sim);
    /* Rows of 65 lines use every set, and spread a column more evenly than SDCM's random
     * placement: 8 or 9 of its 520 lines per L1 set, so the simulated L1 keeps 75 % where
     * SDCM gives 38 %; the walk's even spread gives it back. */
    double sim5 = json_object_get_double(get(json_object_array_get_idx(get(c5, "levels"), k), "hit_rate"));
    double sets5 = json_object_get_double(get(l5, "sets_hit_rate"));
    ck_assert_msg(fabs(sets5 - sim5) < 0.02, "L%zu at 520: with sets %.4f, simulated %.4f", k + 1, sets5,
                  sim5);
    if (k == 0) ck_assert_double_gt(sim5 - json_object_get_double(get(l5, "hit_rate")), 0.3);
  }
  json_object_put(x);
  json_object_put(c);
  json_object_put(x5);
  json_object_put(c5);
}
END_TEST

/* Half the references read at random over the n lines: refused, naming the block, and
 * extrapolated with --allow-irregular; over 64 lines whatever n (a histogram's bins):
 * extrapolated, the share reported. */
START_TEST(irregular_refused) {
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT extrapolate --trace n=1000:g1000.trace --trace n=1500:g1500.trace"
                          " --trace n=2000:g2000.trace --target n=8000 --hw fa.json --cores 1 --only gather"
                          " >i.out 2>i.err"),
                   1);
  ck_assert_int_eq(e2e_sh(dir,
                          "test $(wc -l <i.err) -eq 1 && test ! -s i.out && grep -q 'data-dependent' i.err"
                          " && grep -q 'gather' i.err && grep -q 'g2000.trace' i.err"
                          " && grep -q 'not extrapolated' i.err && grep -q 'span x2.00' i.err"),
                   0);
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT extrapolate --trace n=1000:g1000.trace --trace n=1500:g1500.trace"
                          " --trace n=2000:g2000.trace --target n=8000 --hw fa.json --cores 1 --only gather"
                          " --allow-irregular --json >ia.json"
                          " && $PPT extrapolate --trace n=1000:h1000.trace --trace n=1500:h1500.trace"
                          " --trace n=2000:h2000.trace --target n=8000 --hw fa.json --cores 1 --only gather"
                          " --json >ih.json"),
                   0);
  json_object *g = load("ia.json"), *h = load("ih.json");
  /* one of the loop's two loads is the gather */
  double sg = json_object_get_double(get(get(g, "model"), "irregular_refs_share"));
  double sh = json_object_get_double(get(get(h, "model"), "irregular_refs_share"));
  ck_assert_msg(fabs(sg - 0.5) < 0.01 && fabs(sh - 0.5) < 0.01, "shares %g %g", sg, sh);
  json_object_put(g);
  json_object_put(h);
}
END_TEST

/* ---------------------------------------------------------------- the library call */

/* Opens the traces of one job (stack references off, as --no-stack-refs) with the blocks
 * of function `only` counted (NULL: all). */
typedef struct lib_job {
  ppt_hwspec hw;
  ppt_trace *t[3];
  uint8_t *counted[3];
  ppt_extrap_job_trace tr[3];
  ppt_extrap_job_opts o;
} lib_job;

static void lib_open(lib_job *j, const char *spec, const char *const *files, const double *sizes, size_t n,
                     const char *only, const uint32_t *cores, size_t nc, double target) {
  char p[1024];
  ppt_err err;
  memset(j, 0, sizeof *j);
  snprintf(p, sizeof p, "%s/%s", dir, spec);
  ck_assert_msg(ppt_hwspec_load(p, &j->hw, &err) == 0, "%s", err.msg);
  for (size_t i = 0; i < n; i++) {
    j->t[i] = e2e_open(dir, files[i]);
    if (only)
      ck_assert_msg(ppt_trace_select(j->t[i], &only, 1, &j->counted[i], NULL, &err) == 0, "%s", err.msg);
    j->tr[i] = (ppt_extrap_job_trace){j->t[i], sizes[i], files[i], j->counted[i]};
  }
  ppt_extrap_job_opts_default(&j->o);
  j->o.traces = j->tr;
  j->o.ntraces = n;
  j->o.param = "N";
  j->o.target = target;
  j->o.hw = &j->hw;
  j->o.cores = cores;
  j->o.ncores = nc;
}

static void lib_close(lib_job *j) {
  for (size_t i = 0; i < 3; i++) {
    ppt_trace_close(j->t[i]);
    free(j->counted[i]);
  }
}

/* A JSON number is the double (json-c writes 17 digits); null is NaN. */
static void same(json_object *v, double x, const char *what) {
  if (!v)
    ck_assert_msg(isnan(x), "%s: JSON null, library %.17g", what, x);
  else
    ck_assert_msg(json_object_get_double(v) == x, "%s: JSON %.17g, library %.17g", what,
                  json_object_get_double(v), x);
}

/* Every number `ppt extrapolate --json` prints against the library's result. */
static void compare_job(const ppt_extrap_job_result *r, const lib_job *j, json_object *x) {
  uint32_t nl = j->hw.nlevels;
  json_object *m = get(x, "model"), *deg = get(m, "degrees"), *loo = get(m, "loo");
  ck_assert_int_eq(json_object_get_boolean(get(m, "checked")), r->checked);
  ck_assert_int_eq(json_object_get_boolean(get(m, "matched_by_key")), r->matched_by_key);
  ck_assert_int_eq(json_object_get_int64(get(m, "blocks")), r->blocks);
  same(get(m, "irregular_refs_share"), r->irregular, "irregular");
  static const char *forms[PPT_EXTRAP_NFORMS] = {"0", "1", "2", "power"};
  for (int d = 0; d < PPT_EXTRAP_NFORMS; d++)
    ck_assert_int_eq(json_object_get_int64(get(deg, forms[d])), (int64_t)r->degrees[d]);
  ck_assert_uint_eq(json_object_array_length(loo), r->checked ? r->npoints * nl : 0);
  ck_assert_uint_eq(r->ntraces, j->o.ntraces);
  json_object *tr = get(x, "traces");
  ck_assert_uint_eq(json_object_array_length(tr), r->ntraces);
  for (size_t u = 0; u < r->ntraces; u++) {
    json_object *e = json_object_array_get_idx(tr, u);
    size_t i = r->order[u];
    ck_assert_str_eq(json_object_get_string(get(e, "path")), j->tr[i].path);
    same(get(e, "value"), j->tr[i].size, "trace size");
    same(get(e, "refs"), r->refs[i], "trace refs");
    same(get(e, "unmatched_refs_share"), r->unmatched[i], "unmatched");
    for (size_t c = 0; c < r->npoints; c++)
      for (uint32_t k = 0; k < nl; k++)
        same(get(level(get(e, "measured"), c, k), "hit_rate"), r->points[c].measured[i][k].hit_rate,
             "measured");
  }
  json_object *cores = get(x, "cores");
  ck_assert_uint_eq(json_object_array_length(cores), r->npoints);
  for (size_t c = 0; c < r->npoints; c++) {
    const ppt_extrap_job_point *pt = &r->points[c];
    json_object *e = json_object_array_get_idx(cores, c);
    ck_assert_int_eq(json_object_get_int(get(e, "n")), pt->n);
    same(get(e, "refs"), pt->refs, "refs");
    same(get(e, "runtime_s"), pt->runtime_s, "runtime");
    same(get(e, "runtime_s_lo"), pt->runtime_s_lo, "runtime lo");
    same(get(e, "runtime_s_hi"), pt->runtime_s_hi, "runtime hi");
    ck_assert(r->timed ? pt->runtime_s > 0 : isnan(pt->runtime_s));
    for (uint32_t k = 0; k < nl; k++) {
      json_object *l = level(cores, c, k);
      same(get(l, "hit_rate"), pt->pred[k].hit_rate, "hit rate");
      same(get(l, "hit_rate_lo"), pt->lo[k], "band lo");
      same(get(l, "hit_rate_hi"), pt->hi[k], "band hi");
      same(get(l, "local_hit_rate"), pt->pred[k].local_hit_rate, "local");
      same(get(l, "sets_hit_rate"), pt->sets[k], "sets");
      if (r->checked)
        same(get(json_object_array_get_idx(loo, c * nl + k), "error_points"), pt->check_err[k], "check");
    }
  }
}

/* One job run both ways: the CLI's JSON (args) and ppt_extrap_run on the same traces. */
static void both_ways(const char *args, const char *spec, const char *const *files, const double *sizes,
                      size_t n, const char *only, const uint32_t *cores, size_t nc, double target,
                      int timed) {
  ck_assert_int_eq(e2e_sh(dir, "$PPT extrapolate %s --hw %s --no-stack-refs --json >lib.json", args, spec),
                   0);
  json_object *x = load("lib.json");
  lib_job j;
  lib_open(&j, spec, files, sizes, n, only, cores, nc, target);
  ppt_extrap_job_result *r = NULL;
  ppt_err err;
  ck_assert_msg(ppt_extrap_run(&j.o, &r, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(r->timed, timed);
  compare_job(r, &j, x);
  ppt_extrap_job_result_free(r);
  lib_close(&j);
  json_object_put(x);
}

START_TEST(library_call) {
  static const uint32_t cores[] = {1, 2};
  static const char *sweep[] = {"s1000.trace", "s1500.trace", "s2000.trace"};
  static const double ss[] = {1000, 1500, 2000};
  /* timed and checked: the runtime and its band */
  both_ways(SWEEP3 " --target N=8000 --cores 1,2 --only sweep", "ft.json", sweep, ss, 3, "sweep", cores, 2,
            8000, 1);
  /* two traces, the larger first: unchecked */
  static const char *two[] = {"s2000.trace", "s1000.trace"};
  static const double s2[] = {2000, 1000};
  both_ways("--trace N=2000:s2000.trace --trace N=1000:s1000.trace --target N=8000 --cores 1 --only sweep",
            "ft.json", two, s2, 2, "sweep", cores, 1, 8000, 1);
  /* other binaries, every block: matched by key, the helper's references unmatched */
  static const char *sized[] = {"d1500.trace", "d1000.trace", "d2000.trace"};
  static const double sd[] = {1500, 1000, 2000};
  both_ways(SIZED3 " --target N=8000 --cores 1", "fa.json", sized, sd, 3, NULL, cores, 1, 8000, 0);
  /* the column walk: the set conflicts at the target */
  static const char *col[] = {"k72.trace", "k80.trace", "k88.trace"};
  static const double sk[] = {72, 80, 88};
  both_ways(
      "--trace N=72:k72.trace --trace N=80:k80.trace --trace N=88:k88.trace --target N=512 --cores 1,2"
      " --only colsum",
      "sets.json", col, sk, 3, "colsum", cores, 2, 512, 0);
  /* one trace is bad input, with no result */
  lib_job j;
  lib_open(&j, "fa.json", sweep, ss, 1, NULL, cores, 1, 8000);
  ppt_extrap_job_result *r = (ppt_extrap_job_result *)&j;
  ppt_err err;
  ck_assert_int_eq(ppt_extrap_run(&j.o, &r, &err), PPT_EINPUT);
  ck_assert_ptr_null(r);
  lib_close(&j);
}
END_TEST

START_TEST(bad_input) {
  static const char *bad[] = {
      "--trace N=1000:s1000.trace --target N=8000 --hw fa.json",                /* one trace */
      SWEEP3 " --hw fa.json",                                                   /* no target */
      SWEEP3 " --target M=8000 --hw fa.json",                                   /* another parameter */
      "--trace N=1000 --trace N=1500:s1500.trace --target N=8000 --hw fa.json", /* no file */
      "--trace N=x:s1000.trace --trace N=1500:s1500.trace --target N=8000 --hw fa.json",
      "--trace N=1000:s1000.trace --trace N=1000:s1500.trace --target N=8000 --hw fa.json",
      SWEEP3 " --target N=-3 --hw fa.json",
      SWEEP3 " --target N=8000",                                    /* no --hw */
      SWEEP3 " --target N=8000 --hw fa.json extra",                 /* an operand */
      SWEEP3 " --target N=8000 --hw fa.json --only nosuchfunction", /* selects nothing */
      "--trace N=1000:s1000.trace --trace N=1500:missing.trace --target N=8000 --hw fa.json",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    ck_assert_msg(e2e_sh(dir,
                         "$PPT extrapolate %s >b.out 2>b.err; r=$?; test $(wc -l <b.err) -eq 1 || exit 9;"
                         " exit $r",
                         bad[i]) == 2,
                  "not refused with one line, exit 2: %s", bad[i]);
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT extrapolate --trace N=1000:s1000.trace --trace N=1400:c1400.trace"
                          " --target N=8000 --hw fa.json 2>b.err; r=$?; test $(wc -l <b.err) -eq 1 &&"
                          " grep -q 's1000.trace: 100.0 %% of its references are in blocks that c1400.trace"
                          " does not have' b.err && grep -q 'not the same program' b.err && exit $r"),
                   2);
  ck_assert_int_eq(e2e_sh(dir, "$PPT extrapolate --help | grep -q 'usage: ppt extrapolate'"), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("extrap");
  TCase *unit = tcase_create("unit");
  tcase_add_test(unit, degree_choice);
  tcase_add_test(unit, model_sweep_exact);
  tcase_add_test(unit, set_fold);
  suite_add_tcase(s, unit);
  TCase *e2e = tcase_create("e2e");
  tcase_set_timeout(e2e, 300);
  tcase_add_unchecked_fixture(e2e, setup, NULL);
  tcase_add_test(e2e, sweep_end_to_end);
  tcase_add_test(e2e, runtime_at_target);
  tcase_add_test(e2e, two_traces_unchecked);
  tcase_add_test(e2e, behaviour_change_refused);
  tcase_add_test(e2e, sized_binaries);
  tcase_add_test(e2e, column_strides);
  tcase_add_test(e2e, set_conflicts);
  tcase_add_test(e2e, irregular_refused);
  tcase_add_test(e2e, library_call);
  tcase_add_test(e2e, bad_input);
  suite_add_tcase(s, e2e);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
