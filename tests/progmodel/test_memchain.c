/* test_memchain.c — loop-carried recurrences through memory (ppt_trace_bb.mem_chain,
 * cpu_mem_chain_cycles in models/cpu/block_cycles.c): a loop that loads and stores one
 * loop-invariant address, the stored value depending on the loaded one, runs at best one
 * trip round that cycle per iteration: the load at the load-to-use latency (store-to-load forwarding), then the
 * cycle's ops at their latencies.
 *
 *  - memchain_recorded: ppt-cc records the cycle of `*c += x[i] & 0xff` (c volatile: one
 *    load, one integer add) and of `*f += y[i]` (one load, one FP add), and none for
 *    `a[i] += x[i]` (a new address every iteration) or a loop that only stores to *c;
 *    adi's row sweep `p[j] = -c / (a * p[j-1] + b)` (p and q possibly aliased, so kept in
 *    memory) has one through p[j-1] with its divide, `p[j] = f(p[j-2])` none.
 *  - memchain_priced: `ppt predict` on host.json prices kernel_acc's compute at its inner
 *    block's instances times (loadst latency + ialu latency) cycles, worked out by hand
 *    from the spec (the block's own issue is shorter: the cycle bounds it); with the
 *    spec's store_forward_cycles F the load waits F instead: (F + ialu latency); the row
 *    sweep (F + multiply + add + divide latencies) per trip. */
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

#define NEL 512
#define REPS 1000

static const char *k_prog =
    "#include <stdio.h>\n"
    "#define NEL 512\n"
    "#define REPS 1000\n"
    "unsigned x[NEL]; double y[NEL]; long a[NEL];\n"
    "__attribute__((noinline)) void kernel_acc(volatile long *c) {\n"
    "  for (int r = 0; r < REPS; r++)\n"
    "    for (int i = 0; i < NEL; i++) *c += x[i] & 0xff;\n"
    "}\n"
    "__attribute__((noinline)) void kernel_facc(volatile double *f) {\n"
    "  for (int i = 0; i < NEL; i++) *f += y[i];\n"
    "}\n"
    "__attribute__((noinline)) void kernel_inc(void) {\n"
    "  for (int i = 0; i < NEL; i++) a[i] += x[i];\n"
    "}\n"
    "__attribute__((noinline)) void kernel_mark(volatile long *c) {\n"
    "  for (int i = 0; i < NEL; i++) *c = i;\n"
    "}\n"
    "__attribute__((noinline)) void kernel_row(double *p, double *q) {\n"
    "  for (int r = 0; r < REPS; r++)\n"
    "    for (int j = 1; j < NEL; j++) {\n"
    "      double den = 0.75 * p[j - 1] + 2.5;\n"
    "      p[j] = -0.75 / den;\n"
    "      q[j] = (y[j] - 0.75 * q[j - 1]) / den;\n"
    "    }\n"
    "}\n"
    "__attribute__((noinline)) void kernel_two(double *p, double *q) {\n"
    "  for (int j = 2; j < NEL; j++) {\n"
    "    p[j] = 0.5 * p[j - 2] + 1.0;\n"
    "    q[j] = 0.5 * q[j - 2] + y[j];\n"
    "  }\n"
    "}\n"
    "double pr[2 * NEL], qr[NEL];\n"
    "int main(void) {\n"
    "  for (int i = 0; i < NEL; i++) x[i] = 7u * i, y[i] = 0.5 * i;\n"
    "  long c = 0; double f = 0;\n"
    "  kernel_acc(&c); kernel_facc(&f); kernel_inc(); kernel_mark(&c);\n"
    "  pr[0] = 1; kernel_row(pr, pr + NEL / 2); kernel_two(pr, qr);\n"
    "  printf(\"%ld %g %ld %g %g\\n\", c, f, a[3], pr[NEL - 1], qr[NEL - 1]);\n"
    "  return 0;\n"
    "}\n";

static const char *traced(void) {
  static char dir[600];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s", e2e_dir("progmodel_memchain"));
  e2e_build_trace(dir, "m", k_prog, "-fno-unroll-loops -fno-vectorize -fno-slp-vectorize");
  return dir;
}

/* Blocks of `func` with a recurrence through memory; the busiest one's counts and
 * instances. */
static int chains_of(const ppt_trace *t, const ppt_trace_summary *s, const char *func, unsigned cnt[4],
                     uint64_t *instances) {
  int found = 0;
  *instances = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, b);
    unsigned c[4];
    if (strcmp(bb->func, func) || !ppt_trace_bb_mem_chain(bb, &c[0], &c[1], &c[2], &c[3])) continue;
    found++;
    if (s->bb_count[b] > *instances) {
      *instances = s->bb_count[b];
      memcpy(cnt, c, sizeof c);
    }
  }
  return found;
}

START_TEST(memchain_recorded) {
  ppt_trace *t = e2e_open(traced(), "m.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  unsigned c[4] = {0};
  uint64_t n;
  ck_assert_int_eq(chains_of(t, &s, "kernel_acc", c, &n), 1);
  ck_assert_uint_eq(n, (uint64_t)NEL * REPS);
  ck_assert_uint_eq(c[0], 1); /* the load of *c */
  ck_assert_uint_eq(c[1], 1); /* the add (the mask is on x[i]'s side, off the cycle) */
  ck_assert_uint_eq(c[2] + c[3], 0);
  ck_assert_int_eq(chains_of(t, &s, "kernel_facc", c, &n), 1);
  ck_assert_uint_eq(n, NEL);
  ck_assert_uint_eq(c[0], 1);
  ck_assert_uint_eq(c[1], 0);
  ck_assert_uint_eq(c[2], 1); /* one FP add */
  ck_assert_uint_eq(c[3], 0);
  ck_assert_int_eq(chains_of(t, &s, "kernel_inc", c, &n), 0);
  ck_assert_int_eq(chains_of(t, &s, "kernel_mark", c, &n), 0);
  /* p[j] from p[j - 1] in memory: clang keeps that version of the loop beside one with
   * p[j - 1] in a register and runs it when p's and q's rows overlap, as main makes them
   * do. The cycle: the load, den's multiply and add (fmuladd split: no FMA on the default
   * target), the divide. */
  const ppt_trace_bb *row = NULL;
  ck_assert_int_eq(chains_of(t, &s, "kernel_row", c, &n), 1);
  ck_assert_uint_eq(n, (uint64_t)(NEL - 1) * REPS);
  ck_assert_uint_eq(c[0], 1);
  ck_assert_uint_eq(c[1], 0);
  ck_assert_uint_eq(c[2], 1);
  ck_assert_uint_eq(c[3], 1);
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++)
    if (!strcmp(ppt_trace_bb_get(t, b)->func, "kernel_row") && ppt_trace_bb_get(t, b)->mem_chain)
      row = ppt_trace_bb_get(t, b);
  ck_assert_uint_eq(ppt_trace_bb_mem_chain_divs(row), 1);
  /* Two trips apart: the load of trip t + 1 reads what trip t - 1 stored, not trip t. */
  ck_assert_int_eq(chains_of(t, &s, "kernel_two", c, &n), 0);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

START_TEST(memchain_priced) {
  const char *d = traced();
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict m.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1 "
                          "--only kernel_acc --json > p.json 2>/dev/null"),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  double ops, chain;
  breakdown_compute(path, &ops, &chain);
  double compute = ops + chain;
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  /* By hand: one trip round the cycle per inner iteration. */
  double cyc = hw.ops[PPT_HW_LOADST].latency + hw.ops[PPT_HW_IALU].latency;
  double want = (double)NEL * REPS * cyc / hw.clock_hz;
  /* The outer loop and the entry add a few cycles per row (1/NEL of the total each). */
  ck_assert_msg(fabs(compute - want) <= 0.02 * want, "compute %g s, by hand %g s", compute, want);
  /* The cycle, not the block's issue, sets the time. */
  ck_assert_msg(chain > 0.2 * compute, "chain %g s of %g", chain, compute);
  /* A measured forwarding latency replaces the load's: 6.5 cycles (the Zen 3 guest's). */
  ck_assert_int_eq(
      e2e_sh(d,
             "jq '.store_forward_cycles = 6.5' $PPT_SOURCE_DIR/hwspecs/host.json > f.json && "
             "$PPT predict m.trace --hw f.json --cores 1 --only kernel_acc --json > p.json 2>/dev/null"),
      0);
  breakdown_compute(path, &ops, &chain);
  want = (double)NEL * REPS * (6.5 + hw.ops[PPT_HW_IALU].latency) / hw.clock_hz;
  ck_assert_msg(fabs(ops + chain - want) <= 0.02 * want, "forwarded: compute %g s, by hand %g s", ops + chain,
                want);
  /* The row sweep: forwarding, a multiply, an add and a divide per trip. */
  ck_assert_int_eq(
      e2e_sh(d, "$PPT predict m.trace --hw f.json --cores 1 --only kernel_row --json > p.json 2>/dev/null"),
      0);
  breakdown_compute(path, &ops, &chain);
  want = (double)(NEL - 1) * REPS *
         (6.5 + hw.ops[PPT_HW_FMUL].latency + hw.ops[PPT_HW_FADD].latency + hw.ops[PPT_HW_FDIV].latency) /
         hw.clock_hz;
  ck_assert_msg(fabs(ops + chain - want) <= 0.02 * want, "row: compute %g s, by hand %g s", ops + chain,
                want);
  /* An FP register's forwarding (store_forward_fp_cycles) replaces the integer one on an
   * FP cycle, and only there: kernel_acc keeps 6.5. */
  ck_assert_int_eq(e2e_sh(d,
                          "jq '.store_forward_fp_cycles = 9' f.json > g.json && "
                          "$PPT predict m.trace --hw g.json --cores 1 --only kernel_row --json > p.json "
                          "2>/dev/null"),
                   0);
  breakdown_compute(path, &ops, &chain);
  want += (double)(NEL - 1) * REPS * (9 - 6.5) / hw.clock_hz;
  ck_assert_msg(fabs(ops + chain - want) <= 0.02 * want, "row, FP forwarding: compute %g s, by hand %g s",
                ops + chain, want);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict m.trace --hw g.json --cores 1 --only kernel_acc --json > p.json "
                          "2>/dev/null"),
                   0);
  breakdown_compute(path, &ops, &chain);
  want = (double)NEL * REPS * (6.5 + hw.ops[PPT_HW_IALU].latency) / hw.clock_hz;
  ck_assert_msg(fabs(ops + chain - want) <= 0.02 * want,
                "acc, FP forwarding given: compute %g s, by hand %g s", ops + chain, want);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_memchain");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, memchain_recorded);
  tcase_add_test(tc, memchain_priced);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
