/* test_loops.c — chain-bound loops priced apart (docs/engine.md, "Chain-bound loops";
 * ppt_tc_policy.loop_hide): a loop that runs at its loop-carried chain's pace overlaps
 * its chain with its own misses, and with nothing else of its region.
 *
 * One serial region holds two loops: kernel_fwd runs a divide recurrence over an array
 * that stays in L1 (compute-bound), kernel_back a short recurrence (one multiply, one
 * add) whose store goes down a column of a row-major matrix, a new line from DRAM every
 * trip (memory-bound). By hand:
 *  - loops_apart: with --loops 1 the two loops together take what each takes alone
 *    (within 3 %: the outer loops' blocks are priced with the region); plain, the region
 *    overlaps kernel_back's misses with kernel_fwd's divides, so together is faster than
 *    the sum by more than 5 %.
 *  - own_chain: kernel_back alone with --loops 0 (chain and misses add up) takes its
 *    chain longer than with --loops 1 (the chain runs under its misses): COLS * (N - 1)
 *    trips of (fmul + fadd latency) cycles at the spec's clock, within 5 %. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "e2e.h"
#include "ppt/hwspec.h"

#define N 1024
#define COLS 96

static const char *k_prog =
    "#include <stdio.h>\n"
    "#define N 1024\n"
    "#define COLS 96\n"
    "#define REPS 800\n"
    "double v[N][N], p[N];\n"
    "__attribute__((noinline)) void kernel_fwd(void) {\n"
    "  double x = 1.0;\n"
    "  for (int r = 0; r < REPS; r++)\n"
    "    for (int i = 0; i < N; i++) {\n"
    "      x = 1.0 / (0.5 * x + 2.0);\n"
    "      p[i] = x;\n"
    "    }\n"
    "}\n"
    "__attribute__((noinline)) void kernel_back(void) {\n"
    "  for (int c = 0; c < COLS; c++) {\n"
    "    int j = 8 * c; /* a column of lines of its own: every store a new line */\n"
    "    double x = v[N - 1][j];\n"
    "    for (int i = N - 2; i >= 0; i--) {\n"
    "      x = 0.5 * x + 1.0;\n"
    "      v[i][j] = x;\n"
    "    }\n"
    "  }\n"
    "}\n"
    "int main(void) {\n"
    "  for (int j = 0; j < N; j++) v[N - 1][j] = j;\n"
    "  kernel_fwd();\n"
    "  kernel_back();\n"
    "  printf(\"%g %g\\n\", p[N - 1], v[0][8]);\n"
    "  return 0;\n"
    "}\n";

static const char *traced(void) {
  static char dir[600];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s", e2e_dir("progmodel_loops"));
  e2e_build_trace(dir, "l", k_prog, "-fno-unroll-loops -fno-vectorize -fno-slp-vectorize");
  return dir;
}

/* `ppt predict` of the trace's functions `only` on one core with --loops `loops`: its
 * runtime in seconds. */
static double runtime(const char *only, const char *loops) {
  const char *d = traced();
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict l.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1 --only %s "
                          "--loops %s --json > p.json 2>/dev/null",
                          only, loops),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  json_object *root = json_object_from_file(path), *cores, *rt;
  ck_assert_msg(root != NULL, "cannot read %s", path);
  ck_assert(json_object_object_get_ex(root, "cores", &cores));
  ck_assert(json_object_object_get_ex(json_object_array_get_idx(cores, 0), "runtime_s", &rt));
  double s = json_object_get_double(rt);
  json_object_put(root);
  ck_assert(s > 0);
  return s;
}

START_TEST(loops_apart) {
  double f = runtime("kernel_fwd", "1"), b = runtime("kernel_back", "1"),
         both = runtime("kernel_fwd,kernel_back", "1");
  ck_assert_msg(fabs(both - (f + b)) <= 0.03 * both, "--loops 1: together %g s, apart %g + %g s", both, f, b);
  double pf = runtime("kernel_fwd", "plain"), pb = runtime("kernel_back", "plain"),
         pboth = runtime("kernel_fwd,kernel_back", "plain");
  ck_assert_msg(pboth < 0.95 * (pf + pb), "plain: together %g s, apart %g + %g s", pboth, pf, pb);
  /* Both loops are large parts of the region, so that mixing them matters. */
  ck_assert_msg(f > 0.25 * both && b > 0.25 * both, "fwd %g s, back %g s of %g s", f, b, both);
}
END_TEST

START_TEST(own_chain) {
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  double chain =
      (double)COLS * (N - 1) * (hw.ops[PPT_HW_FMUL].latency + hw.ops[PPT_HW_FADD].latency) / hw.clock_hz;
  double add = runtime("kernel_back", "0"), hide = runtime("kernel_back", "1");
  ck_assert_msg(fabs((add - hide) - chain) <= 0.05 * chain,
                "--loops 0 %g s, --loops 1 %g s, chain by hand %g s", add, hide, chain);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_loops");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, loops_apart);
  tcase_add_test(tc, own_chain);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
