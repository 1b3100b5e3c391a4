/* test_blockcycles.c — each block's cycles on the host's core as llvm-mca models it
 * (ppt-cc, apps/ppt-cc/mca.h) and what the program model charges for them (hwspec
 * block_cycles, progmodel.c).
 *
 * The kernel is falseshare's hash (3 multiplies, 4 shifts, 4 xors per element) summed
 * into a register: no recurrence through memory, no FP chain, so without block cycles
 * its compute is its IR ops at the ports' throughputs.
 *
 *  - recorded: the hot block (the inner loop's, NEL x REPS executions) carries cycles:
 *    at least 1 (its ~20 instructions on any core of up to 8 a cycle need more than 2),
 *    at most the chain of one element, 3 x (1 + 1 + 3) + 2 = 17 cycles, which
 *    overlapping iterations can only shorten.
 *  - priced: with block_cycles true in the spec, compute = the ports' and chains' time
 *    plus block_cycles_s, and that sum equals, within 2 %, the blocks' instances times
 *    max(their ports, their cycles) worked out from the trace's block table and the
 *    spec by hand for the hot block (the others are 1/NEL of the work); without the
 *    flag block_cycles_s is 0 and compute is unchanged. */
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
#define REPS 2000

static const char *k_prog =
    "#include <stdio.h>\n"
    "#include <stdint.h>\n"
    "#define NEL 512\n"
    "#define REPS 2000\n"
    "uint32_t x[NEL];\n"
    "static inline uint32_t mix(uint32_t v) {\n"
    "  v ^= v >> 16; v *= 0x7feb352dU; v ^= v >> 15; v *= 0x846ca68bU;\n"
    "  v ^= v >> 16; v *= 0x9e3779b1U; v ^= v >> 13; return v;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_hash(void) {\n"
    "  long s = 0;\n"
    "  for (int r = 0; r < REPS; r++)\n"
    "    for (int i = 0; i < NEL; i++) s += mix(x[i] + (uint32_t)r) & 0xff;\n"
    "  return s;\n"
    "}\n"
    "int main(void) {\n"
    "  for (int i = 0; i < NEL; i++) x[i] = 2654435761u * (uint32_t)i;\n"
    "  printf(\"%ld\\n\", kernel_hash());\n"
    "  return 0;\n"
    "}\n";

static const char *traced(void) {
  static char dir[600];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s", e2e_dir("progmodel_blockcycles"));
  e2e_build_trace(dir, "h", k_prog, "-fno-unroll-loops -fno-vectorize -fno-slp-vectorize");
  return dir;
}

/* The busiest block of kernel_hash: its id and instances. */
static uint32_t hot_block(const ppt_trace *t, const ppt_trace_summary *s, uint64_t *n) {
  uint32_t best = 0;
  *n = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++)
    if (!strcmp(ppt_trace_bb_get(t, b)->func, "kernel_hash") && s->bb_count[b] > *n) {
      *n = s->bb_count[b];
      best = b;
    }
  return best;
}

START_TEST(recorded) {
  ppt_trace *t = e2e_open(traced(), "h.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  uint64_t n;
  const ppt_trace_bb *bb = ppt_trace_bb_get(t, hot_block(t, &s, &n));
  ck_assert_uint_eq(n, (uint64_t)NEL * REPS);
  double cyc = bb->core_cycles16 / 16.0;
  ck_assert_msg(cyc >= 1 && cyc <= 17, "hot block: %g cycles (0: ppt-cc found no llvm-mca)", cyc);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

START_TEST(priced) {
  const char *d = traced();
  ck_assert_int_eq(
      e2e_sh(d,
             "$PPT predict h.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1 --only kernel_hash "
             "--json > off.json 2>/dev/null && "
             "jq '.block_cycles = true' $PPT_SOURCE_DIR/hwspecs/host.json > bc.json && "
             "$PPT predict h.trace --hw bc.json --cores 1 --only kernel_hash --json > on.json 2>/dev/null"),
      0);
  char off[800], on[800], spec[700];
  snprintf(off, sizeof off, "%s/off.json", d);
  snprintf(on, sizeof on, "%s/on.json", d);
  snprintf(spec, sizeof spec, "%s/bc.json", d);
  ck_assert_double_eq(breakdown_compute_key(off, "block_cycles_s"), 0);
  double ops0, chain0, ops1, chain1;
  breakdown_compute(off, &ops0, &chain0);
  breakdown_compute(on, &ops1, &chain1);
  ck_assert_double_eq_tol(ops1, ops0, 1e-12);
  double extra = breakdown_compute_key(on, "block_cycles_s");

  ppt_trace *t = e2e_open(d, "h.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  uint64_t n;
  const ppt_trace_bb *bb = ppt_trace_bb_get(t, hot_block(t, &s, &n));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.block_cycles);
  /* By hand: the hot block's ports (its integer ops at ialu's rate, its loads and
   * stores at loadst's, its branch at branch's: the busiest), against its cycles. */
  double ports = fmax(fmax(bb->ops[PPT_OP_IALU] / hw.ops[PPT_HW_IALU].per_cycle,
                           (bb->ops[PPT_OP_LOAD] + bb->ops[PPT_OP_STORE]) / hw.ops[PPT_HW_LOADST].per_cycle),
                      bb->ops[PPT_OP_BRANCH] / hw.ops[PPT_HW_BRANCH].per_cycle);
  double cyc = bb->core_cycles16 / 16.0;
  double want = (double)n * fmax(ports, cyc) / hw.clock_hz, got = ops1 + chain1 + extra;
  ck_assert_msg(fabs(got - want) <= 0.02 * want, "compute %g s, by hand %g s (ports %g, cycles %g)", got,
                want, ports, cyc);
  if (cyc > 1.05 * ports) ck_assert_msg(extra > 0.02 * got, "block cycles %g s of %g", extra, got);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_blockcycles");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, recorded);
  tcase_add_test(tc, priced);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
