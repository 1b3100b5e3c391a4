/* test_sensitivity.c — ppt_predict_sensitivity (ppt/predict.h) on the trace of a small
 * compute-bound OpenMP program whose data (4 KiB) stays in L1, on hwspecs/host.json:
 *  - the clock's -20 % and +20 % change the runtime by 1/0.8 - 1 and 1/1.2 - 1
 *    (analytic: every cycle of a cache-resident program is a core cycle; only DRAM's
 *    nanoseconds and GB/s do not scale with the clock, and it reaches DRAM on first
 *    touches only);
 *  - DRAM latency's change moves its runtime by about nothing;
 *  - each core count's rows are sorted by change, largest first, every figure of the
 *    spec has its row, the spec's own runtime is ppt_predict_run's;
 *  - every figure that reused the core count's simulation (not rebuilt) gives the very
 *    runtime ppt_predict_run gives on the spec changed with ppt_hwspec_set: the one
 *    simulation is the same model as a new one;
 *  - ppt_progmodel_set_hwspec refuses a spec whose geometry differs (PPT_EINPUT). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/hwspec.h"
#include "ppt/predict.h"
#include "ppt/progmodel.h"
#include "ppt_test.h"

static const char *k_prog =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) double kern(const double *a, int n, int reps) {\n"
    "  double s = 0;\n"
    "#pragma omp parallel for reduction(+ : s)\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    double x = a[i & 511];\n"
    "    for (int r = 0; r < reps; r++) x = x * 1.0000001 + 0.5;\n"
    "    s += x;\n"
    "  }\n"
    "  return s;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  (void)argv;\n"
    "  double *a = malloc(512 * sizeof *a), s = 0;\n"
    "  for (int i = 0; i < 512; i++) a[i] = i;\n"
    "  s += kern(a, 1 << 13, 40 + argc);\n"
    "  free(a);\n"
    "  return s < 0;\n"
    "}\n";

static const char *dir;
static const uint32_t k_cores[] = {1, 2};

static void setup(void) {
  dir = e2e_dir("sensitivity");
  e2e_build_trace(dir, "prog", k_prog, "-fopenmp");
}

static void load_hw(ppt_hwspec *hw) {
  char p[1024];
  ppt_err err;
  snprintf(p, sizeof p, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ck_assert_msg(ppt_hwspec_load(p, hw, &err) == 0, "%s", err.msg);
}

static void opts(ppt_predict_opts *o) {
  ppt_predict_opts_default(o);
  o->cores = k_cores;
  o->ncores = 2;
}

/* The row of figure key at core count i. */
static const ppt_predict_sens_row *row_of(const ppt_predict_sens *s, size_t i, const char *key) {
  for (size_t j = 0; j < ppt_predict_sens_nrows(s); j++)
    if (!strcmp(ppt_predict_sens_get(s, i, j)->key, key)) return ppt_predict_sens_get(s, i, j);
  ck_abort_msg("no row for %s", key);
  return NULL;
}

START_TEST(clock_dram_and_order) {
  ppt_trace *t = e2e_open(dir, "prog.trace");
  ppt_hwspec hw;
  load_hw(&hw);
  ppt_predict_opts o;
  opts(&o);
  ppt_predict_result *base = NULL, *plain = NULL;
  ppt_predict_sens *s = NULL;
  ppt_err err;
  ck_assert_msg(ppt_predict_sensitivity(t, &hw, &o, 20, &base, &s, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_predict_run(t, &hw, &o, &plain, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(ppt_predict_sens_nrows(s), ppt_hwspec_timing_figures(&hw, NULL, 0));
  for (size_t i = 0; i < 2; i++) {
    ck_assert(ppt_predict_result_point(base, i)->runtime_s == ppt_predict_result_point(plain, i)->runtime_s);
    const ppt_predict_sens_row *clk = row_of(s, i, "clock_ghz"), *dram = row_of(s, i, "dram.latency_ns");
    ck_assert_msg(fabs(clk->minus_change - (1 / 0.8 - 1)) < 0.02, "%zu: clock -20 %%: %g", i, clk->minus_change);
    ck_assert_msg(fabs(clk->plus_change - (1 / 1.2 - 1)) < 0.02, "%zu: clock +20 %%: %g", i, clk->plus_change);
    ck_assert_msg(dram->change < 0.005, "%zu: DRAM latency moves a cache-resident program by %g", i, dram->change);
    for (size_t j = 1; j < ppt_predict_sens_nrows(s); j++)
      ck_assert(ppt_predict_sens_get(s, i, j - 1)->change >= ppt_predict_sens_get(s, i, j)->change);
  }
  ck_assert_ptr_null(ppt_predict_sens_get(s, 2, 0));
  ppt_predict_sens_free(s);
  ppt_predict_result_free(base);
  ppt_predict_result_free(plain);
  ppt_trace_close(t);
}
END_TEST

START_TEST(reuse_is_a_new_build) {
  ppt_trace *t = e2e_open(dir, "prog.trace");
  ppt_hwspec hw;
  load_hw(&hw);
  ppt_predict_opts o;
  opts(&o);
  ppt_predict_result *base = NULL;
  ppt_predict_sens *s = NULL;
  ppt_err err;
  ck_assert_msg(ppt_predict_sensitivity(t, &hw, &o, 20, &base, &s, &err) == 0, "%s", err.msg);
  size_t reused = 0;
  for (size_t j = 0; j < ppt_predict_sens_nrows(s); j++) {
    const ppt_predict_sens_row *w = ppt_predict_sens_get(s, 1, j);
    if (w->rebuilt || !isfinite(w->plus_s)) continue;
    ppt_hwspec var = hw;
    char set[128];
    snprintf(set, sizeof set, "%s=%.15g", w->key, w->value * (1 + 20 / 100.0));
    ck_assert_msg(ppt_hwspec_set(&var, set, &err) == 0, "%s", err.msg);
    ppt_predict_result *fresh = NULL;
    ck_assert_msg(ppt_predict_run(t, &var, &o, &fresh, &err) == 0, "%s", err.msg);
    double want = ppt_predict_result_point(fresh, 1)->runtime_s;
    ck_assert_msg(w->plus_s == want, "%s: reused %.17g, new build %.17g", w->key, w->plus_s,
                  want);
    ppt_predict_result_free(fresh);
    reused++;
  }
  ck_assert_uint_ge(reused, 8); /* clock, latencies, bandwidths, DRAM, mlp, fork-join at least */
  ppt_predict_sens_free(s);
  ppt_predict_result_free(base);
  ppt_trace_close(t);
}
END_TEST

START_TEST(respec_refuses_geometry) {
  ppt_trace *t = e2e_open(dir, "prog.trace");
  ppt_hwspec hw, big;
  load_hw(&hw);
  ppt_sasmm_opts so;
  ppt_sasmm_opts_default(&so);
  so.ncores = 2;
  ppt_progmodel *m = NULL;
  ppt_err err;
  ck_assert_msg(ppt_progmodel_build(t, &hw, &so, NULL, NULL, &m, &err) == 0, "%s", err.msg);
  big = hw;
  char set[64];
  snprintf(set, sizeof set, "L2.size=%llu", (unsigned long long)hw.levels[1].size * 2);
  ck_assert_msg(ppt_hwspec_set(&big, set, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(ppt_progmodel_set_hwspec(m, &big, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_progmodel_set_hwspec(m, &hw, &err), 0);
  ppt_progmodel_free(m);
  ppt_predict_result *base = (ppt_predict_result *)&hw;
  ppt_predict_sens *s = NULL;
  ck_assert_int_eq(ppt_predict_sensitivity(t, &hw, NULL, 100, &base, &s, &err), PPT_EINPUT);
  ck_assert_ptr_null(base);
  ppt_trace_close(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("sensitivity");
  TCase *tc = tcase_create("sensitivity");
  tcase_add_unchecked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, clock_dram_and_order);
  tcase_add_test(tc, reuse_is_a_new_build);
  tcase_add_test(tc, respec_refuses_geometry);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
