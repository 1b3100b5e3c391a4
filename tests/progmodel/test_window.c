/* test_window.c — the FP window bound of the program model (cpu_window_cycles in
 * models/cpu/block_cycles.c, docs/engine.md "Chains inside a block"): a block whose executions each run a long
 * chain of dependent FP ops, over independent elements, takes P · F / (S + F) cycles per
 * execution when the core holds S FP ops waiting (hwspec fp_window), P the chain's
 * latency and F the block's FP ops, P stretched by the ops' waits for their pipes.
 *
 *  - horner_block_path: ppt-cc records the in-block chain of a degree-16 Horner
 *    polynomial per element (16 multiplies, 16 adds, no divide: PPT_BB_PATH) and its
 *    32 FP ops.
 *  - horner_window_bound: `ppt predict` on host.json with fp_window S prices the
 *    kernel's compute (ops plus chain) at instances · T cycles, T = (P + W) F / (S + F)
 *    with the chain ops' waits W for their pipes (M/D/1), solved by hand, for two
 *    windows; without fp_window the block costs its ops' issue alone (no chain
 *    cycles), and a wider window is never slower.
 *  - root_on_path: y[i] = m[i] / (q * sqrt(q)), q = x[i]^2 + c (nbody's pair in small):
 *    ppt-cc records the path mul, add, root, mul, divide (2 divides, 1 a root); the
 *    program model prices the root at its own latency and the two queue for one divider
 *    (M/G/1), solved by hand with fp_chains bounding the executions in flight. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "e2e.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"

#define NEL 256
#define REPS 2000

/* y[i] = p(x[i]) by Horner, degree 16: a = a * v + c[k], 16 times. The coefficients are
 * read through a volatile pointer so that the compiler cannot fold them, and the
 * elements are independent, so only the core's window limits how many chains overlap. */
static const char *k_horner =
    "#include <stdio.h>\n"
    "#define NEL 256\n"
    "#define REPS 2000\n"
    "double x[NEL], y[NEL], c[17];\n"
    "#define H(k) a = a * v + cc[k];\n"
    "__attribute__((noinline)) void kernel_horner(const double *restrict cc) {\n"
    "  for (int r = 0; r < REPS; r++)\n"
    "    for (int i = 0; i < NEL; i++) {\n"
    "      double v = x[i], a = cc[0];\n"
    "      H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9) H(10) H(11) H(12) H(13) H(14) H(15) H(16)\n"
    "      y[i] = a;\n"
    "    }\n"
    "}\n"
    "int main(void) {\n"
    "  for (int i = 0; i < NEL; i++) x[i] = 0.5 + i * 1e-4;\n"
    "  for (int k = 0; k < 17; k++) c[k] = 1.0 / (k + 2);\n"
    "  double *volatile cv = c;\n"
    "  kernel_horner(cv);\n"
    "  printf(\"%g\\n\", y[7]);\n"
    "  return 0;\n"
    "}\n";

static const char *traced(void) {
  static char dir[600];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s", e2e_dir("progmodel_window"));
  e2e_build_trace(dir, "h", k_horner, "-fno-vectorize -fno-slp-vectorize");
  return dir;
}

START_TEST(horner_block_path) {
  ppt_trace *t = e2e_open(traced(), "h.trace");
  uint64_t n;
  const ppt_trace_bb *bb = e2e_busiest_block(t, "kernel_horner", &n);
  ck_assert_uint_eq(n, (uint64_t)NEL * REPS);
  unsigned adds, muls, divs;
  ck_assert_int_eq(ppt_trace_bb_path(bb, &adds, &muls, &divs), 1);
  ck_assert_uint_eq(adds, 16);
  ck_assert_uint_eq(muls, 16);
  ck_assert_uint_eq(divs, 0);
  ck_assert_uint_eq(bb->ops[PPT_OP_FADD], 16);
  ck_assert_uint_eq(bb->ops[PPT_OP_FMUL], 16);
  ck_assert_uint_eq(bb->ops[PPT_OP_FDIV], 0);
  ck_assert_uint_eq(bb->ops[PPT_OP_CHAIN_FP], 0); /* no loop-carried recurrence */
  ppt_trace_close(t);
}
END_TEST

/* Compute (ops + chain) and chain seconds of kernel_horner at 1 core on host.json with
 * fp_window w (0: the key left out). */
static void predict_compute(const char *d, double w, double *compute, double *chain) {
  const char *set = w > 0 ? ".fp_window = " : "del(.fp_window)";
  char num_s[32] = "";
  if (w > 0) snprintf(num_s, sizeof num_s, "%g", w);
  ck_assert_int_eq(e2e_sh(d,
                          "jq '%s%s' $PPT_SOURCE_DIR/hwspecs/host.json > w.json && "
                          "$PPT predict h.trace --hw w.json --cores 1 --only kernel_horner --json > p.json "
                          "2>/dev/null",
                          set, num_s),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  double ops;
  breakdown_compute(path, &ops, chain);
  *compute = ops + *chain;
}

START_TEST(horner_window_bound) {
  const char *d = traced();
  ppt_trace *t = e2e_open(d, "h.trace");
  uint64_t n;
  (void)e2e_busiest_block(t, "kernel_horner", &n);
  ppt_trace_close(t);
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  /* By hand: P = 16 adds + 16 multiplies at their latencies, F = 32 ops; at T cycles an
   * execution each class's pipes are busy rho = 16 / (per_cycle T) and each chain op
   * waits rho / (2 (1 - rho)) (M/D/1); T = (P + W) F / (S + F), found by iterating. */
  double p = 16 * hw.ops[PPT_HW_FADD].latency + 16 * hw.ops[PPT_HW_FMUL].latency, f = 32;
  const double windows[2] = {40, 120};
  double last = INFINITY;
  for (int i = 0; i < 2; i++) {
    double compute, chain;
    predict_compute(d, windows[i], &compute, &chain);
    double t = p * f / (windows[i] + f);
    for (int it = 0; it < 200; it++) {
      double w = 0;
      for (int c = PPT_HW_FADD; c <= PPT_HW_FMUL; c++) {
        double rho = 16 / (hw.ops[c].per_cycle * t);
        w += 16 * rho / (2 * (1 - rho));
      }
      t = 0.5 * t + 0.5 * (p + w) * f / (windows[i] + f); /* damped: converges */
    }
    double want = (double)n * t / hw.clock_hz;
    /* The loop's other blocks (the outer loop, the entry) add a few cycles per row. */
    ck_assert_msg(fabs(compute - want) <= 0.01 * want, "window %g: compute %g s, by hand %g s", windows[i],
                  compute, want);
    ck_assert_msg(chain > 0.5 * compute, "window %g: chain %g s of %g", windows[i], chain, compute);
    ck_assert_double_lt(compute, last);
    last = compute;
  }
  /* Without the figure, no bound: the ops' issue alone, well below the bounded time. */
  double compute, chain;
  predict_compute(d, 0, &compute, &chain);
  ck_assert_double_eq(chain, 0);
  ck_assert_msg(compute < 0.5 * last, "no window: %g s, window 120: %g s", compute, last);
}
END_TEST

/* y[i] = m[i] / (q sqrt(q)): the root and the divide on one chain per element. */
static const char *k_root =
    "#include <math.h>\n"
    "#include <stdio.h>\n"
    "#define NEL 256\n"
    "#define REPS 2000\n"
    "double x[NEL], m[NEL], y[NEL];\n"
    "__attribute__((noinline)) void kernel_root(double c) {\n"
    "  for (int r = 0; r < REPS; r++)\n"
    "    for (int i = 0; i < NEL; i++) {\n"
    "      double v = x[i], q = v * v + c;\n"
    "      y[i] = m[i] / (q * sqrt(q));\n"
    "    }\n"
    "}\n"
    "int main(void) {\n"
    "  for (int i = 0; i < NEL; i++) x[i] = 0.5 + i * 1e-4, m[i] = 1 + i % 7;\n"
    "  volatile double c = 1e-3;\n"
    "  kernel_root(c);\n"
    "  printf(\"%g\\n\", y[7]);\n"
    "  return 0;\n"
    "}\n";

START_TEST(root_on_path) {
  char d[600];
  snprintf(d, sizeof d, "%s", e2e_dir("progmodel_window_root"));
  e2e_write(d, "r.c", k_root);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O2 -fno-math-errno -fno-vectorize -fno-slp-vectorize r.c -o r -lm && "
                          "$PPT trace -o r.trace -- ./r >/dev/null 2>&1"),
                   0);
  ppt_trace *t = e2e_open(d, "r.trace");
  uint64_t n;
  const ppt_trace_bb *bb = e2e_busiest_block(t, "kernel_root", &n);
  ck_assert_uint_eq(n, (uint64_t)NEL * REPS);
  unsigned adds, muls, divs;
  ck_assert_int_eq(ppt_trace_bb_path(bb, &adds, &muls, &divs), 1);
  ck_assert_uint_eq(adds, 1);
  ck_assert_uint_eq(muls, 2);
  ck_assert_uint_eq(divs, 2);
  ck_assert_uint_eq(bb->ops[PPT_OP_FDIV], 2);
  ck_assert_uint_eq(ppt_trace_bb_sqrts(bb), 1);
  ppt_trace_close(t);
  /* host.json with a window that does not bind (120 ops), 4 chains in flight and a root
   * of its own (9 cycles an issue, latency 23.5). */
  ck_assert_int_eq(
      e2e_sh(d,
             "jq '.fp_window = 120 | .fp_chains = 4 | .ops.fsqrt = {\"per_cycle\": 0.111, "
             "\"latency\": 23.5}' $PPT_SOURCE_DIR/hwspecs/host.json > w.json && "
             "$PPT predict r.trace --hw w.json --cores 1 --only kernel_root --json > p.json 2>/dev/null"),
      0);
  ppt_hwspec hw;
  ppt_err err;
  char path[800];
  snprintf(path, sizeof path, "%s/w.json", d);
  ck_assert_msg(ppt_hwspec_load(path, &hw, &err) == 0, "%s", err.msg);
  const ppt_hw_op *add = &hw.ops[PPT_HW_FADD], *mul = &hw.ops[PPT_HW_FMUL], *dv = &hw.ops[PPT_HW_FDIV],
                  *rt = &hw.ops[PPT_HW_FSQRT];
  /* By hand: P = mul + add + root + mul + divide latencies; the executions in flight
   * E = 4 (the window would hold 1 + 120 / 5 = 25); at T cycles an execution the add
   * pipes each take 1 / (2T) ops a cycle, the multiply pipes 2 / (2T): M/D/1 waits
   * rho / (2 (1 - rho)) per op; the divider takes a divide (s_d = 1 / 0.222 cycles) and
   * a root (s_r = 9.0) each T: rho = (s_d + s_r) / T, each of the two waits
   * (s_d^2 + s_r^2) / T / (2 (1 - rho)). T = (P + W) / E. */
  double p = 2 * mul->latency + add->latency + rt->latency + dv->latency;
  double sd = 1 / dv->per_cycle, sr = 1 / rt->per_cycle, tt = 2 * (sd + sr);
  for (int it = 0; it < 400; it++) {
    double ra = 1 / (add->per_cycle * tt), rm = 2 / (mul->per_cycle * tt), rd = (sd + sr) / tt;
    double w = ra / (2 * (1 - ra)) + 2 * rm / (2 * (1 - rm)) + 2 * (sd * sd + sr * sr) / tt / (2 * (1 - rd));
    tt = 0.5 * tt + 0.5 * (p + w) / 4;
  }
  /* Per-class queues (a divider each) would wait far less: the shared one is what
   * this checks. */
  double rdd = sd / tt, rdr = sr / tt;
  ck_assert_msg(rdd * sd / (2 * (1 - rdd)) + rdr * sr / (2 * (1 - rdr)) <
                    0.5 * 2 * (sd * sd + sr * sr) / tt / (2 * (1 - rdd - rdr)),
                "T %g: the shared divider's waits should dominate", tt);
  double ops, chain;
  snprintf(path, sizeof path, "%s/p.json", d);
  breakdown_compute(path, &ops, &chain);
  double want = (double)n * tt / hw.clock_hz;
  ck_assert_msg(fabs(ops + chain - want) <= 0.01 * want, "compute %g s, by hand %g s (T %g cycles)",
                ops + chain, want, tt);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_window");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, horner_block_path);
  tcase_add_test(tc, horner_window_bound);
  tcase_add_test(tc, root_on_path);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
