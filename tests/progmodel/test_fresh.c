/* test_fresh.c — recurrences that start afresh at each entry into their loop (progmodel.c
 * fresh_lead, docs/engine.md "Recurrences across entries"): a dot product's s = 0 lets
 * the core start the next entry's chain while the last one drains, so the first
 * fp_window / F executions of each entry (F the block's FP ops) cost their ops but not
 * their wait on the chain. A sum that an outer loop carries on gets no such overlap.
 *
 *  - fresh_dots: NROW dot products of NK trips, each s = 0, over arrays that stay in L1:
 *    the chain seconds `ppt predict` charges with fp_window S are (NK − lead) / NK of
 *    those without the figure (lead = floor(S / F), F = 2: a multiply and an add), and
 *    0 once the window holds a whole entry (lead >= NK).
 *  - carried_sum: the same loops summing into one s over all rows: the chain is the
 *    same with and without the window.
 *
 * The oracle is the definition worked by hand from the block's counts, which the test
 * reads from the trace (trips per entry, FP ops per trip). */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "e2e.h"
#include "ppt/trace.h"

#define NK 64

/* kernel_dots: out[r] = x . y over NK elements, s = 0 for each row; kernel_sum: one s
 * over every row. Both repeated REPS times; x, y and out are 1.5 KiB together. */
static const char *k_src =
    "#include <stdio.h>\n"
    "#define NK 64\n"
    "#define NROW 16\n"
    "#define REPS 4000\n"
    "double x[NK], y[NK], out[NROW];\n"
    "__attribute__((noinline)) void kernel_dots(void) {\n"
    "  for (int t = 0; t < REPS; t++)\n"
    "    for (int r = 0; r < NROW; r++) {\n"
    "      double s = 0;\n"
    "      for (int k = 0; k < NK; k++) s += x[k] * y[k];\n"
    "      out[r] += s;\n"
    "    }\n"
    "}\n"
    "__attribute__((noinline)) double kernel_sum(void) {\n"
    "  double s = 0;\n"
    "  for (int t = 0; t < REPS; t++)\n"
    "    for (int r = 0; r < NROW; r++)\n"
    "      for (int k = 0; k < NK; k++) s += x[k] * y[k];\n"
    "  return s;\n"
    "}\n"
    "int main(void) {\n"
    "  for (int k = 0; k < NK; k++) x[k] = 1.0 / (k + 1), y[k] = k * 1e-3;\n"
    "  kernel_dots();\n"
    "  printf(\"%g %g\\n\", out[3], kernel_sum());\n"
    "  return 0;\n"
    "}\n";

static const char *traced(void) {
  static char dir[600];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s", e2e_dir("progmodel_fresh"));
  e2e_build_trace(dir, "f", k_src, "-fno-vectorize -fno-slp-vectorize -fno-unroll-loops");
  return dir;
}

/* Chain seconds of func at 1 core on hwspecs/host.json with fp_window w (0: left out). */
static double chain_s(const char *d, const char *func, double w) {
  char set[64] = "del(.fp_window)";
  if (w > 0) snprintf(set, sizeof set, ".fp_window = %g", w);
  ck_assert_int_eq(e2e_sh(d,
                          "jq '%s' $PPT_SOURCE_DIR/hwspecs/host.json > w.json && "
                          "$PPT predict f.trace --hw w.json --cores 1 --only %s --json > p.json 2>/dev/null",
                          set, func),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  double ops, chain;
  breakdown_compute(path, &ops, &chain);
  return chain;
}

START_TEST(fresh_dots) {
  const char *d = traced();
  ppt_trace *t = e2e_open(d, "f.trace");
  uint64_t n;
  const ppt_trace_bb *bb = e2e_busiest_block(t, "kernel_dots", &n);
  ck_assert_uint_eq(n, (uint64_t)NK * 16 * 4000);
  ck_assert_uint_eq(bb->ops[PPT_OP_CHAIN_FP], 1); /* the add; the multiply is off the cycle */
  ck_assert(ppt_trace_bb_chain_fresh(bb));
  unsigned f = bb->ops[PPT_OP_FADD] + bb->ops[PPT_OP_FMUL];
  ck_assert_uint_eq(f, 2);
  ppt_trace_close(t);
  double none = chain_s(d, "kernel_dots", 0);
  ck_assert_double_gt(none, 0);
  /* S = 40: 20 of each entry's 64 trips run under the last entry's chain. */
  const double windows[2] = {40, 90};
  for (int i = 0; i < 2; i++) {
    double lead = floor(windows[i] / f), want = none * (NK - lead) / NK;
    double got = chain_s(d, "kernel_dots", windows[i]);
    ck_assert_msg(fabs(got - want) <= 1e-6 * none, "fp_window %g: chain %.9g s, by hand %.9g s (none: %.9g)",
                  windows[i], got, want, none);
  }
  /* A window of a whole entry's FP ops or more: no chain left. */
  ck_assert_double_eq(chain_s(d, "kernel_dots", 2 * NK * f), 0);
}
END_TEST

START_TEST(carried_sum) {
  const char *d = traced();
  ppt_trace *t = e2e_open(d, "f.trace");
  uint64_t n;
  const ppt_trace_bb *bb = e2e_busiest_block(t, "kernel_sum", &n);
  ck_assert_uint_eq(n, (uint64_t)NK * 16 * 4000);
  ck_assert_uint_eq(bb->ops[PPT_OP_CHAIN_FP], 1);
  ck_assert(!ppt_trace_bb_chain_fresh(bb));
  ppt_trace_close(t);
  double none = chain_s(d, "kernel_sum", 0), with = chain_s(d, "kernel_sum", 40);
  ck_assert_double_gt(none, 0);
  ck_assert_msg(fabs(with - none) <= 1e-9 * none, "carried sum: chain %.9g s with the window, %.9g without",
                with, none);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_fresh");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fresh_dots);
  tcase_add_test(tc, carried_sum);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
