/* test_progmodel_tlb.c — the data-TLB cost the program model charges (progmodel.c,
 * docs/engine.md "Data-TLB misses"), on a trace small enough to work out by hand.
 *
 * One thread, one block, 3 passes over 8 pages (one 8-byte load per page), pages 8p + p mod 4
 * (p = 0..7: each page's table entry on its own line of the page table). The spec is
 * the validation host's with two TLB levels added:
 *   DTLB1:  4 entries, fully associative, miss 10 cycles
 *   DTLB2: 16 entries, 4 ways (4 sets),   miss 50 cycles
 * DTLB1 (LRU, 4 < 8 pages) misses all 24 references. DTLB2: pages p and p+4 share set
 * p mod 4, two pages per set of 4 ways, so it misses only the 8 first touches.
 *   served: DTLB1 0, DTLB2 16, walk 8
 *   cost  = 16 x 10 + 8 x (10 + 50) = 160 + 480 = 640 cycles,
 * charged as CPU cycles: the thread's compute time grows by 640 cycles exactly, and so
 * does the runtime when the policy overlaps nothing (T = Tc + Tm).
 *
 * The same over 8 consecutive pages: their 8 entries share one line of the page table,
 * so of the 8 walks the first reads it from memory and the 7 others find it in the data
 * caches (tracesim's tlb_near), each costing the L2's latency instead of 50 cycles:
 *   cost = 16 x 10 + 8 x 10 + 50 + 7 x L2 latency.
 *
 * A level's in_flight divides its own miss cost (walks of independent loads overlap):
 * DTLB2 at 4 in flight makes the free-first-level case 8 x 50 / 4 = 100 cycles. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ppt/engine.h"
#include "ppt/progmodel.h"
#include "tracesim/tsynth.h"

static const char *const funcs[] = {"kernel"};

/* Pages 8p + p mod 4 (spread) or p (consecutive), p = 0..7. */
static const char *trace_path(int consecutive) {
  static char path[700];
  snprintf(path, sizeof path, "%s/t%d.trace", ts_dir("progmodel_tlb"), consecutive);
  ts_stream s = {0};
  ts_bb(&s, 1);
  for (int k = 0; k < 3; k++)
    for (uint64_t p = 0; p < 8; p++) {
      uint64_t page = consecutive ? p : 8 * p + p % 4;
      ts_mem(&s, 0, 0x10000000ull + page * 4096 + 64 * p, 8);
    }
  ck_assert_int_eq(ts_write(path, &s, 1, funcs, 1), 0);
  ts_free(&s);
  return path;
}

/* Builds and runs the model; returns the runtime and the thread's compute time. */
static void predict(const ppt_trace *t, const ppt_hwspec *hw, const ppt_tc_policy *pol, double *sec,
                    double *compute_s, ppt_tracesim_result *rates, ppt_thread_stats *tso) {
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = 1;
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = 1;
  cfg.policy = *pol;
  ppt_progmodel *m;
  ppt_node *node;
  ppt_node_result *res;
  ppt_err err;
  ck_assert_msg(ppt_progmodel_build(t, hw, &o, pol, NULL, &m, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_node_new(hw, &cfg, &node, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_node_run(node, ppt_progmodel_program(m), &res, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(ppt_progmodel_nregions(m), 1);
  ppt_thread_stats ts;
  ck_assert_int_eq(ppt_node_result_thread(res, 0, 0, &ts), 0);
  *sec = ppt_node_result_seconds(res);
  *compute_s = ts.compute_s;
  if (tso) *tso = ts;
  *rates = *ppt_progmodel_hitrates(m);
  ppt_node_result_free(res);
  ppt_node_free(node);
  ppt_progmodel_free(m);
}

START_TEST(hand_worked_cost) {
  const char *dir = getenv("PPT_SOURCE_DIR");
  ck_assert_ptr_nonnull(dir);
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", dir);
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  hw.ntlb = 0;
  ppt_trace *t;
  ck_assert_msg(ppt_trace_open(trace_path(0), &t, &err) == 0, "%s", err.msg);

  ppt_tc_policy sum;
  ppt_tc_policy_default(&sum);
  sum.overlap = PPT_OVERLAP_SUM;
  ppt_tracesim_result r;
  double sec0, tc0, sec1, tc1;
  predict(t, &hw, &sum, &sec0, &tc0, &r, NULL);
  ck_assert_uint_eq(r.ntlb, 0);

  hw.ntlb = 2;
  hw.tlb[0] = (ppt_hw_tlb){"DTLB1", 4, 4, 4096, 10, 0};
  hw.tlb[1] = (ppt_hw_tlb){"DTLB2", 16, 4, 4096, 50, 0};
  ck_assert_msg(ppt_hwspec_validate(&hw, "tlb", &err) == 0, "%s", err.msg);
  predict(t, &hw, &sum, &sec1, &tc1, &r, NULL);
  ck_assert_uint_eq(r.counted_refs, 24);
  ck_assert_uint_eq(r.tlb_served[0], 0);
  ck_assert_uint_eq(r.tlb_served[1], 16);
  ck_assert_uint_eq(r.tlb_served[2], 8);
  ck_assert_uint_eq(r.tlb_near, 0);
  double want = 640.0 / hw.clock_hz;
  ck_assert_msg(fabs((tc1 - tc0) - want) < 1e-6 * want, "compute grew by %g s, want %g s", tc1 - tc0, want);
  ck_assert_msg(fabs((sec1 - sec0) - want) < 1e-6 * want, "runtime grew by %g s, want %g s", sec1 - sec0,
                want);
  /* The compute breakdown names the 640 cycles as the TLB's, and its parts add up. */
  ppt_thread_stats ts;
  predict(t, &hw, &sum, &sec1, &tc1, &r, &ts);
  ck_assert_msg(fabs(ts.cpu_s[PPT_CPU_TLB] - want) < 1e-6 * want, "tlb_s %g, want %g", ts.cpu_s[PPT_CPU_TLB],
                want);
  double parts = ts.ops_s;
  for (int c = 0; c < PPT_TC_NCPU; c++) parts += ts.cpu_s[c];
  ck_assert_msg(fabs(parts - ts.compute_s) < 1e-9 * ts.compute_s, "parts %g, compute %g", parts,
                ts.compute_s);
  ck_assert(ts.cpu_s[PPT_CPU_CHAIN] == 0 && ts.cpu_s[PPT_CPU_CALLS] == 0 && ts.cpu_s[PPT_CPU_PLAIN] == 0);

  /* A free first level: only the walks cost, 8 x 50 cycles. */
  hw.tlb[0].miss_cycles = 0;
  predict(t, &hw, &sum, &sec1, &tc1, &r, NULL);
  want = 400.0 / hw.clock_hz;
  ck_assert_msg(fabs((tc1 - tc0) - want) < 1e-6 * want, "compute grew by %g s, want %g s", tc1 - tc0, want);

  /* Walks in flight: 4 walks at once cost 50 / 4 cycles each, 8 x 12.5 = 100 cycles;
   * with the first level back at 10 cycles and 2 of its misses at once, 24 x 10 / 2 +
   * 100 = 220 (in_flight divides each level's own miss cost). in_flight 1 is 0's. */
  hw.tlb[1].in_flight = 4;
  ck_assert_msg(ppt_hwspec_validate(&hw, "tlb", &err) == 0, "%s", err.msg);
  predict(t, &hw, &sum, &sec1, &tc1, &r, NULL);
  want = 100.0 / hw.clock_hz;
  ck_assert_msg(fabs((tc1 - tc0) - want) < 1e-6 * want, "compute grew by %g s, want %g s", tc1 - tc0, want);
  hw.tlb[0].miss_cycles = 10;
  hw.tlb[0].in_flight = 2;
  predict(t, &hw, &sum, &sec1, &tc1, &r, NULL);
  want = 220.0 / hw.clock_hz;
  ck_assert_msg(fabs((tc1 - tc0) - want) < 1e-6 * want, "compute grew by %g s, want %g s", tc1 - tc0, want);
  hw.tlb[0].in_flight = 1;
  hw.tlb[1].in_flight = 1;
  predict(t, &hw, &sum, &sec1, &tc1, &r, NULL);
  want = 640.0 / hw.clock_hz;
  ck_assert_msg(fabs((tc1 - tc0) - want) < 1e-6 * want, "compute grew by %g s, want %g s", tc1 - tc0, want);
  hw.tlb[0].in_flight = hw.tlb[1].in_flight = 0;
  ppt_trace_close(t);

  /* Consecutive pages: 7 of the 8 walks find the page-table line cached. */
  hw.tlb[0].miss_cycles = 10;
  ck_assert_msg(ppt_trace_open(trace_path(1), &t, &err) == 0, "%s", err.msg);
  hw.ntlb = 0;
  predict(t, &hw, &sum, &sec0, &tc0, &r, NULL);
  hw.ntlb = 2;
  predict(t, &hw, &sum, &sec1, &tc1, &r, NULL);
  ck_assert_uint_eq(r.tlb_served[2], 8);
  ck_assert_uint_eq(r.tlb_near, 7);
  double l2 = hw.levels[1].latency_cycles;
  ck_assert(l2 > 0 && l2 < 50);
  want = (16 * 10 + 8 * 10 + 50 + 7 * l2) / hw.clock_hz;
  ck_assert_msg(fabs((tc1 - tc0) - want) < 1e-6 * want, "compute grew by %g s, want %g s", tc1 - tc0, want);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_tlb");
  TCase *tc = tcase_create("tlb");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, hand_worked_cost);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
