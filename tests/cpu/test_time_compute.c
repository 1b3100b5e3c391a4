/* tests/cpu/test_time_compute.c — the core model against hand-worked answers.
 *
 * Fixture (tc_fixture.h): L1 (4 cycles, 64 B/c), L2 (14, 32), L3 (50, 16), DRAM (100,
 * 8), 1 GHz. Memory items are n = 1000 accesses of s = 8 B in blocks of 64 B (b = 8),
 * so Eq. 4 is T = (λ + 7β) / 8 × 1000 with β_k = 8 / bw_k:
 *   β: L1 0.125, L2 0.25, L3 0.5, DRAM 1. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdlib.h>

#include "cpu/tc_fixture.h"
#include "ppt/tasklist.h"

#define EPS 1e-9
#define ck_close(a, b) ck_assert_double_eq_tol((a), (double)(b), EPS *(1.0 + fabs((double)(b))))

static const ppt_mem_access MEM = {.accesses = 1000, .bytes_per_access = 8, .block_bytes = 64};

/* PPT's classic core model (summed op classes, AMM Eq. 4-5) with partial overlap 0.75:
 * what the hand computations below use. */
static const ppt_tc_policy AMM = {
    .overlap = PPT_OVERLAP_PARTIAL, .fraction = 0.75, .compute = PPT_COMPUTE_SUM, .memory = PPT_MEMORY_AMM};

static ppt_tc_policy pol(ppt_overlap o, double f) {
  return (ppt_tc_policy){.overlap = o, .fraction = f, .compute = PPT_COMPUTE_SUM, .memory = PPT_MEMORY_AMM};
}

static double mem_time(uint32_t nlevels, const double *h) {
  ppt_hwspec hw;
  fx_hwspec(&hw, nlevels);
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &MEM, nlevels, h, &err), 0);
  ppt_tc_stats st;
  ppt_tc_policy p = pol(PPT_OVERLAP_SUM, 0);
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ppt_tasklist_free(tl);
  ck_close(st.seconds, st.cycles * 1e-9);
  ck_close(st.cycles, st.memory_cycles);
  return st.cycles;
}

START_TEST(eq45_one_level) {
  /* h1 = 0.9: λ = 0.9·4 + 0.1·100 = 13.6; β = 0.9·0.125 + 0.1·1 = 0.2125;
   * T = (13.6 + 7·0.2125)/8 · 1000 = 1885.9375. */
  const double h[] = {0.9};
  ck_close(mem_time(1, h), 1885.9375);
}
END_TEST

START_TEST(eq45_two_levels) {
  /* h = (0.9, 0.5): served L1 0.9, L2 0.05, DRAM 0.05.
   * λ = 3.6 + 0.7 + 5 = 9.3; β = 0.1125 + 0.0125 + 0.05 = 0.175;
   * T = (9.3 + 1.225)/8 · 1000 = 1315.625. */
  const double h[] = {0.9, 0.5};
  ck_close(mem_time(2, h), 1315.625);
}
END_TEST

START_TEST(eq45_three_levels) {
  /* h = (0.9, 0.5, 0.6) LOCAL: served L1 0.9, L2 0.05, L3 0.03, DRAM 0.02.
   * λ = 3.6 + 0.7 + 1.5 + 2 = 7.8; β = 0.1125 + 0.0125 + 0.015 + 0.02 = 0.16;
   * T = (7.8 + 1.12)/8 · 1000 = 1115. */
  const double h[] = {0.9, 0.5, 0.6};
  ck_close(mem_time(3, h), 1115.0);
}
END_TEST

START_TEST(eq45_level_breakdown) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  const double h[] = {0.9, 0.5, 0.6};
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &MEM, 3, h, &err), 0);
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  /* L3: 30 accesses; latency 0.03·50·1000/8 = 187.5; bytes 0.03·8·1000·7/8 = 210,
   * streamed at 16 B/c = 13.125 cycles. DRAM: 20 accesses, 250 + 140 B / 8 = 17.5. */
  ck_close(st.level[2].accesses, 30);
  ck_close(st.level[2].latency_cycles, 187.5);
  ck_close(st.level[2].bytes, 210);
  ck_close(st.level[2].bw_cycles, 13.125);
  ck_close(st.level[3].accesses, 20);
  ck_close(st.level[3].latency_cycles, 250);
  ck_close(st.level[3].bytes, 140);
  ck_close(st.level[3].bw_cycles, 17.5);
  ck_close(st.level[0].latency_cycles, 450);
  ck_close(st.level[0].bw_cycles, 98.4375);
  ck_close(st.level[1].latency_cycles + st.level[1].bw_cycles, 87.5 + 10.9375);
  /* Global = served at or above; local as given. */
  ck_close(st.level[0].global_hit, 0.9);
  ck_close(st.level[1].global_hit, 0.95);
  ck_close(st.level[2].global_hit, 0.98);
  ck_close(st.level[1].local_hit, 0.5);
  ck_close(st.level[2].local_hit, 0.6);
  ck_close(st.lambda_avg, 7.8);
  ck_close(st.beta_avg, 0.16);
  ck_close(st.mem_accesses, 1000);
  ppt_tasklist_free(tl);
}
END_TEST

START_TEST(eq5_amm_two_level_form) {
  /* b = 1 (no streaming): T = λ · n with AMM's literal Eq. 5,
   * λ = h1 λ1 + (1 − h1)[h2 λ2 + (1 − h2) λ_RAM] = 3.6 + 0.1 · (7 + 50) = 9.3. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  ppt_mem_access m = {.accesses = 1000, .bytes_per_access = 8, .block_bytes = 8};
  const double h[] = {0.9, 0.5};
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 2, h, &err), 0);
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  double lam = 0.9 * 4 + 0.1 * (0.5 * 14 + 0.5 * 100);
  ck_close(st.cycles, lam * 1000);
  ck_close(st.cycles, 9300);
  for (int k = 0; k <= 2; k++) ck_close(st.level[k].bytes, 0);
  ppt_tasklist_free(tl);
}
END_TEST

/* 400 compute cycles: ialu 400/4 = 100, falu 200/2 = 100, fdiv 10/0.25 = 40,
 * vector 100 × 512 bit on 256-bit registers = 200 issues / 2 = 100,
 * intvec 40 (native width) / 4 = 10, plain cycles 50. */
static ppt_tasklist *compute_tasklist(void) {
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_ialu(tl, 400, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_falu(tl, 200, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_fdiv(tl, 10, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_vector(tl, 100, 512, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_intvec(tl, 40, 0, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_cycles(tl, 50, &err), 0);
  return tl;
}

START_TEST(compute_items) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = compute_tasklist();
  ppt_tc_stats st;
  ppt_err err;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.compute_cycles, 400);
  ck_close(st.cycles, 400);
  ck_close(st.memory_cycles, 0);
  ck_close(st.stall_cycles, 0);
  ck_close(st.op_cycles[PPT_HW_IALU], 110);
  ck_close(st.op_cycles[PPT_HW_FADD], 200);
  ck_close(st.op_cycles[PPT_HW_FDIV], 40);
  ck_close(st.vector_cycles, 100);
  ck_close(st.intvec_cycles, 10);
  ck_close(st.cpu_cycles, 50);
  ck_close(st.cpu_by[PPT_CPU_PLAIN], 50);
  ppt_tasklist_free(tl);
}
END_TEST

/* Mispredicted loop exits overlap memory waits (ppt_tc_policy_cycles), by hand: Tc = 100
 * cycles of which 30 are loop exits, Tm = 50 of which 10 are transfers.
 *   SUM:          100 + 50                                     = 150 (nothing overlaps)
 *   PARTIAL 0.25: memory covers the 30 first, the other 20 overlap the other 70 compute
 *                 cycles by 0.25: 150 − 30 − 0.25 · min(70, 20) = 115 (without: 137.5)
 *   MAX:          max(100, 50)                                 = 100
 *   STALL:        max(100, 10) + (50 − 10 − 30)                = 110 (without: 140)
 * and the same through ppt_time_compute, with the 30 cycles a LOOP_EXIT item. */
START_TEST(loop_exits_overlap_memory) {
  ppt_tc_policy p;
  ppt_tc_policy_default(&p);
  p.overlap = PPT_OVERLAP_SUM;
  ck_close(ppt_tc_policy_cycles(&p, 100, 30, 50, 10), 150);
  ck_assert_int_eq(ppt_tc_overlap_parse("partial,0.25", &p), 0);
  ck_close(ppt_tc_policy_cycles(&p, 100, 30, 50, 10), 115);
  ck_close(ppt_tc_policy_cycles(&p, 100, 0, 50, 10), 137.5);
  ck_assert_int_eq(ppt_tc_overlap_parse("max", &p), 0);
  ck_close(ppt_tc_policy_cycles(&p, 100, 30, 50, 10), 100);
  ck_close(ppt_tc_policy_cycles(&p, 40, 30, 50, 10), 50);
  ck_assert_int_eq(ppt_tc_overlap_parse("stall", &p), 0);
  ck_close(ppt_tc_policy_cycles(&p, 100, 30, 50, 10), 110);
  ck_close(ppt_tc_policy_cycles(&p, 100, 0, 50, 10), 140);
  /* A loop exit hides nothing beyond the memory there is: Tm = 20 < 30. */
  ck_assert_int_eq(ppt_tc_overlap_parse("partial,0.25", &p), 0);
  ck_close(ppt_tc_policy_cycles(&p, 100, 30, 20, 0), 100);

  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_cycles(tl, 70, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_cycles_as(tl, 30, PPT_CPU_LOOP_EXIT, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_level_accesses(tl, 2, 1, &err), 0); /* one L3 access: 50 */
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.memory_cycles, 50);
  ck_close(st.cycles, 115);
  ck_close(st.overlap_cycles, 35);
  ppt_tasklist_free(tl);
}
END_TEST

/* CPU items keep what they stand for: 50 plain + 30 chain + 7 calls + 11 branch + 2 TLB
 * cycles are 100 CPU cycles, each kind's in cpu_by; an unknown kind is refused. */
START_TEST(cpu_items_by_kind) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = compute_tasklist();
  ppt_err err;
  static const double n[PPT_TC_NCPU] = {0, 30, 7, 11, 2, 0};
  for (int c = 1; c < PPT_TC_NCPU; c++)
    ck_assert_int_eq(ppt_tasklist_add_cycles_as(tl, n[c], (ppt_tc_cpu)c, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_cycles_as(tl, 5, (ppt_tc_cpu)PPT_TC_NCPU, &err), PPT_EINPUT);
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.cpu_cycles, 100);
  ck_close(st.compute_cycles, 450);
  ck_close(st.cpu_by[PPT_CPU_PLAIN], 50);
  for (int c = 1; c < PPT_TC_NCPU; c++) ck_close(st.cpu_by[c], n[c]);
  ppt_tasklist_free(tl);
}
END_TEST

/* A contended share is carried, not priced, by time_compute (the engine takes the
 * turns): shares add up to at most 1, the time alone does not change, and a share
 * outside [0, 1] is refused. */
START_TEST(contended_share_carried) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = compute_tasklist();
  ppt_err err;
  ppt_tc_stats plain, st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &plain, &err), 0);
  ck_assert_double_eq(plain.contended_share, 0);
  ck_assert_int_eq(ppt_tasklist_add_contended(tl, 0.25, &err), 0);
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.contended_share, 0.25);
  ck_close(st.cycles, plain.cycles);
  ck_assert_int_eq(ppt_tasklist_add_contended(tl, 0.9, &err), 0);
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.contended_share, 1);
  ck_assert_int_eq(ppt_tasklist_add_contended(tl, 1.5, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_tasklist_add_contended(tl, -0.1, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_tasklist_add_contended(tl, NAN, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
}
END_TEST

/* Square roots run on the divider (FDIV's port) at their own rate: fdiv 0.25/cycle,
 * fsqrt 0.125/cycle; 8 divides and 8 roots keep the divider 8/0.25 + 8/0.125 = 96
 * cycles busy (PORTS: the busiest port, nothing else here). A spec without fsqrt
 * prices the roots as divides: 16/0.25 = 64. The chain-free ops helper agrees. */
START_TEST(sqrt_on_the_divider) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.ops[PPT_HW_FDIV] = (ppt_hw_op){0.25, 13};
  hw.ops[PPT_HW_FSQRT] = (ppt_hw_op){0.125, 15};
  ppt_err err;
  ppt_tasklist *tl = ppt_tasklist_new();
  ck_assert_int_eq(ppt_tasklist_add_op(tl, PPT_HW_FDIV, 8, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_op(tl, PPT_HW_FSQRT, 8, &err), 0);
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_MISS};
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.op_cycles[PPT_HW_FDIV], 96);
  ck_close(st.compute_cycles, 96);
  double ops[PPT_HW_NOPCLASS] = {[PPT_HW_FDIV] = 8, [PPT_HW_FSQRT] = 8};
  ck_close(ppt_tc_ops_cycles(&hw, &p, ops), 96);
  hw.ops[PPT_HW_FSQRT] = (ppt_hw_op){0, 0};
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.compute_cycles, 64);
  ck_close(ppt_tc_ops_cycles(&hw, &p, ops), 64);
  ck_assert_str_eq(ppt_hwspec_opclass_name(PPT_HW_FSQRT), "fsqrt");
  ppt_tasklist_free(tl);
}
END_TEST

START_TEST(overlap_policies) {
  /* Tc = 400, Tm = 1115 (three-level case). */
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = compute_tasklist();
  const double h[] = {0.9, 0.5, 0.6};
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &MEM, 3, h, &err), 0);
  struct {
    ppt_tc_policy p;
    double cycles;
  } cases[] = {
      {pol(PPT_OVERLAP_SUM, 0.7), 1515},      /* AMM: Tc + Tm (fraction ignored) */
      {pol(PPT_OVERLAP_MAX, 0.0), 1115},      /* max(Tc, Tm) */
      {pol(PPT_OVERLAP_PARTIAL, 0.25), 1415}, /* 1515 − 0.25 · 400 */
      {pol(PPT_OVERLAP_PARTIAL, 0.0), 1515},  {pol(PPT_OVERLAP_PARTIAL, 1.0), 1115},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ppt_tc_stats st;
    ck_assert_int_eq(ppt_time_compute(&hw, tl, &cases[i].p, &st, &err), 0);
    ck_close(st.cycles, cases[i].cycles);
    ck_close(st.compute_cycles, 400);
    ck_close(st.memory_cycles, 1115);
    ck_close(st.stall_cycles, cases[i].cycles - 400);
    ck_close(st.overlap_cycles, 1515 - cases[i].cycles);
  }
  /* PARTIAL 0.75 hides 0.75 × 400: 1515 − 300. (The default, chosen by validation/run
   * runtime, is the out-of-order core model: busiest port class, lines moved by the
   * levels at the same time.) */
  ppt_tc_policy d;
  ppt_tc_policy_default(&d);
  ck_assert_int_eq(d.overlap, PPT_OVERLAP_PARTIAL);
  ck_assert_int_eq(d.compute, PPT_COMPUTE_PORTS);
  ck_assert_int_eq(d.memory, PPT_MEMORY_PIPE);
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.cycles, 1215);
  ppt_tc_policy bad = pol(PPT_OVERLAP_PARTIAL, 1.5);
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &bad, &st, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
}
END_TEST

START_TEST(direct_levels_and_alloc) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  /* PPT's L1 and RAM items: 100 · 4 + 10 · 100 = 1400. */
  ck_assert_int_eq(ppt_tasklist_add_level_accesses(tl, 0, 100, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_level_accesses(tl, 3, 10, &err), 0);
  /* Two allocations cost one DRAM latency each; footprint 1000, 600, 700. */
  ck_assert_int_eq(ppt_tasklist_add_alloc(tl, 1000, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_unalloc(tl, 400, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_alloc(tl, 100, &err), 0);
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.level[0].accesses, 100);
  ck_close(st.level[3].accesses, 10);
  ck_close(st.alloc_cycles, 200);
  ck_close(st.memory_cycles, 1600);
  ck_close(st.cycles, 1600);
  ck_close(st.footprint_peak, 1000);
  /* A level beyond DRAM is rejected at time_compute. */
  ck_assert_int_eq(ppt_tasklist_add_level_accesses(tl, 5, 1, &err), 0);
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
}
END_TEST

/* Stats of a MEM_ACCESS item (MEM) with the given per-level profiles on hw. */
static ppt_tc_stats profile_stats(const ppt_hwspec *hw, size_t np, const ppt_rd_profile *p) {
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_mem_access(tl, &MEM, np, p, &err), 0);
  ppt_tc_stats st;
  ck_assert_msg(ppt_time_compute(hw, tl, &AMM, &st, &err) == 0, "%s", err.msg);
  ppt_tasklist_free(tl);
  return st;
}

START_TEST(sdcm_fully_associative) {
  /* L1 4 lines, L2 8 lines, both fully associative: exact LRU, hit iff D < B.
   * Profile 10 × D ∈ {0, 3, 4, 7} + 10 × ∞, for both levels: global L1 20/50,
   * L2 40/50, local L2 = (0.8 − 0.4) / 0.6 = 2/3. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.levels[0].size = 256;
  hw.levels[0].assoc = 4;
  hw.levels[1].size = 512;
  hw.levels[1].assoc = 8;
  const uint64_t d[] = {0, 3, 4, 7};
  const double c[] = {10, 10, 10, 10};
  ppt_rd_profile p = {d, c, 4, 10};
  ppt_tc_stats sa = profile_stats(&hw, 1, &p);
  ck_close(sa.level[0].global_hit, 0.4);
  ck_close(sa.level[1].global_hit, 0.8);
  ck_close(sa.level[0].local_hit, 0.4);
  ck_close(sa.level[1].local_hit, 2.0 / 3.0);
  /* MEM_ACCESS with the profile equals HITRATES with these local rates. */
  const double h[] = {0.4, 2.0 / 3.0};
  ppt_tasklist *b = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(b, &MEM, 2, h, &err), 0);
  ppt_tc_stats sb;
  ck_assert_int_eq(ppt_time_compute(&hw, b, &AMM, &sb, &err), 0);
  ck_close(sa.cycles, sb.cycles);
  ppt_tasklist_free(b);
}
END_TEST

START_TEST(sdcm_per_level_profiles) {
  /* L1 sees a PRD where 0.4 hits (D < 4); the shared L2 a CRD whose SDCM is only 0.2
   * (D < 8 for 1 of 5): global rates cannot drop outwards, so L2's global is clamped to
   * 0.4 and its local rate is 0 — every L1 miss goes on to DRAM. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.levels[0].size = 256;
  hw.levels[0].assoc = 4;
  hw.levels[1].size = 512;
  hw.levels[1].assoc = 8;
  const uint64_t d1[] = {0, 3, 4, 7}, d2[] = {5, 100};
  const double c1[] = {10, 10, 10, 10}, c2[] = {1, 4};
  ppt_rd_profile p[2] = {{d1, c1, 4, 10}, {d2, c2, 2, 0}};
  ppt_tc_stats st = profile_stats(&hw, 2, p);
  ck_close(st.level[0].global_hit, 0.4);
  ck_close(st.level[1].global_hit, 0.4);
  ck_close(st.level[1].local_hit, 0.0);
  ck_close(st.level[2].accesses, 600);
}
END_TEST

START_TEST(sdcm_set_associative) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 1);
  hw.levels[0].size = 256; /* B = 4 lines */
  hw.levels[0].assoc = 2;
  /* P(h|D) = F(1; D, 1/2): D = 1 → 1 (fewer than A lines between); D = 2 → 3/4;
   * D = 3 → (1 + 3)/8 = 1/2; ∞ → 0. Mean of the four: 0.5625. */
  const uint64_t d[] = {1, 2, 3};
  const double c[] = {1, 1, 1};
  ppt_rd_profile p = {d, c, 3, 1};
  ck_close(profile_stats(&hw, 1, &p).level[0].global_hit, (1 + 0.75 + 0.5 + 0) / 4);
  /* Direct-mapped: ((B − 1)/B)^D = (3/4)^2 for D = 2. */
  hw.levels[0].assoc = 1;
  const uint64_t d2[] = {2};
  const double c2[] = {1};
  ppt_rd_profile p2 = {d2, c2, 1, 0};
  ck_close(profile_stats(&hw, 1, &p2).level[0].global_hit, 0.5625);
  /* Huge distances miss; UINT64_MAX is ∞. */
  const uint64_t d3[] = {UINT64_C(1) << 40, UINT64_MAX};
  const double c3[] = {1, 1};
  ppt_rd_profile p3 = {d3, c3, 2, 0};
  ck_assert(profile_stats(&hw, 1, &p3).level[0].global_hit < 1e-12);
}
END_TEST

START_TEST(errors) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_ialu(tl, -1, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_tasklist_add_falu(tl, NAN, &err), PPT_EINPUT);
  const double bad[] = {0.5, 1.5};
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &MEM, 2, bad, &err), PPT_EINPUT);
  ppt_mem_access m = MEM;
  m.block_bytes = 4; /* smaller than one 8-byte access */
  const double h2[] = {0.5, 0.5};
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 2, h2, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_tasklist_nitems(tl), 0);
  /* HITRATES for two levels on a three-level hierarchy. */
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &MEM, 2, h2, &err), 0);
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "HITRATES"));
  ppt_tasklist_free(tl);
  /* A spec without the fdiv throughput cannot time an fDIV item... */
  tl = ppt_tasklist_new();
  ck_assert_int_eq(ppt_tasklist_add_fdiv(tl, 1, &err), 0);
  hw.ops[PPT_HW_FDIV].per_cycle = 0;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "fdiv"));
  ppt_tasklist_free(tl);
  /* ...but a cache-free tasklist does not need memory timings. */
  tl = ppt_tasklist_new();
  ck_assert_int_eq(ppt_tasklist_add_ialu(tl, 8, &err), 0);
  hw.dram_latency_ns = 0;
  hw.levels[0].latency_cycles = 0;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &AMM, &st, &err), 0);
  ck_close(st.cycles, 2);
  ppt_tasklist_free(tl);
}
END_TEST

START_TEST(clone_is_deep) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = compute_tasklist();
  const uint64_t d[] = {10, 100000};
  const double c[] = {3, 1};
  ppt_rd_profile p = {d, c, 2, 0.5};
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_mem_access(tl, &MEM, 1, &p, &err), 0);
  ppt_tasklist *cl = ppt_tasklist_clone(tl);
  ck_assert_ptr_nonnull(cl);
  ppt_tc_stats a, b;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, NULL, &a, &err), 0);
  ppt_tasklist_free(tl);
  ck_assert_int_eq(ppt_time_compute(&hw, cl, NULL, &b, &err), 0);
  ck_assert(a.cycles == b.cycles);
  ck_assert(a.cycles > 400);
  ppt_tasklist_free(cl);
}
END_TEST

/* The out-of-order core model by hand. compute_tasklist() by port class: ialu 400/4 +
 * intvec 40/4 = 110, fadd 200/2 + vector 100 x 2 issues / 2 = 200, fdiv 10/0.25 = 40;
 * PORTS takes the busiest, 200, plus the 50 CPU cycles: 250 (SUM: 400).
 *
 * MISS memory, h = (0.9, 0.5, 0.6) local on 1000 accesses: served L1 900, L2 50, L3 30,
 * DRAM 20; prefetched L3 0.5, DRAM 0.25; DRAM write-back 0.5; mlp 1. Per access served
 * at level k: transfer b_k = line bytes / bandwidth, plus max(0, waiting · latency − b_k):
 *   L2   b = 64/32 = 2,          wait 1:    max(0, 14 − 2) = 12   → 100 + 600
 *   L3   b = 64/16 = 4,          wait 0.5:  max(0, 25 − 4) = 21   → 120 + 630
 *   DRAM b = 64·1.5/8 = 12,      wait 0.75: max(0, 75 − 12) = 63  → 240 + 1260
 * Tm = 2950, of which transfers 460. PARTIAL 0.5: 250 + 2950 − 125 = 3075. STALL:
 * max(250, 460) + 2490 = 2950; with 1000 compute cycles, max(1000, 460) + 2490 = 3490. */
START_TEST(ooo_core_model) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_err err;
  ppt_mem_access m = MEM;
  m.prefetched[2] = 0.5;
  m.prefetched[3] = 0.25;
  m.writeback[3] = 0.5 * 0.02; /* half the 20 DRAM accesses of 1000 are stores */
  const double h[] = {0.9, 0.5, 0.6};
  ppt_tasklist *tl = compute_tasklist();
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), 0);
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_PARTIAL,
                     .fraction = 0.5,
                     .compute = PPT_COMPUTE_PORTS,
                     .memory = PPT_MEMORY_MISS};
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.compute_cycles, 250);
  ck_close(st.level[0].latency_cycles + st.level[0].bw_cycles, 0);
  ck_close(st.level[1].bw_cycles, 100);
  ck_close(st.level[1].latency_cycles, 600);
  ck_close(st.level[2].latency_cycles, 630);
  ck_close(st.level[3].bw_cycles, 240);
  ck_close(st.level[3].latency_cycles, 1260);
  ck_close(st.level[3].bytes, 1920);
  ck_close(st.memory_cycles, 2950);
  ck_close(st.cycles, 3075);
  p.overlap = PPT_OVERLAP_STALL;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.cycles, 2950);
  ck_assert_int_eq(ppt_tasklist_add_ialu(tl, 3000, &err), 0); /* ialu 3400/4 + 10 = 860 */
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.compute_cycles, 910);
  ck_close(st.cycles, 910 + 2490);
  ppt_tasklist_free(tl);
  /* Write-backs into L2 (3 % of accesses) and L3 (2 %) move lines without waiting:
   *   L2   moved 50 + 30 = 80 lines → transfer 160, waiting 50·14 = 700 → 160 + 540
   *   L3   moved 30 + 20 = 50 lines → transfer 200, waiting 30·25 = 750 → 200 + 550
   * The waits still dominate, so Tm stays 2950; only the split moves. With the L2
   * write-backs at 40 %, L2's transfer (50 + 400)·2 = 900 exceeds its 700 of waiting:
   * Tm = 2950 − 700 + 900 = 3150. */
  m.writeback[1] = 0.03;
  m.writeback[2] = 0.02;
  tl = ppt_tasklist_new();
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), 0);
  p.overlap = PPT_OVERLAP_SUM;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.level[1].bw_cycles, 160);
  ck_close(st.level[1].latency_cycles, 540);
  ck_close(st.level[2].bw_cycles, 200);
  ck_close(st.level[2].latency_cycles, 550);
  ck_close(st.level[1].bytes, 80 * 64);
  ck_close(st.memory_cycles, 2950);
  ppt_tasklist_free(tl);
  m.writeback[1] = 0.4;
  tl = ppt_tasklist_new();
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), 0);
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.level[1].latency_cycles, 0);
  ck_close(st.memory_cycles, 3150);
  /* Fractions outside [0, 1] are refused. */
  m.writeback[1] = 1.5;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), PPT_EINPUT);
  m.writeback[1] = 0;
  m.prefetched[1] = 1.5;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
}
END_TEST

/* MISS memory, SUM overlap: the item m with local hit rates (0.9, 0.5, 0.6) on hw. */
static const double MISS_H[] = {0.9, 0.5, 0.6};
static ppt_tasklist *miss_item(const ppt_hwspec *hw, const ppt_mem_access *m, ppt_tc_stats *st) {
  ppt_err err;
  ppt_tasklist *tl = ppt_tasklist_new();
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, m, 3, MISS_H, &err), 0);
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_MISS};
  ck_assert_int_eq(ppt_time_compute(hw, tl, &p, st, &err), 0);
  return tl;
}

/* Misses queued on one first-level set (ppt_mem_access.same_set_*, cache/missq.h): mlp 4,
 * but hwspec mlp_same_set 2 for loads and 1 for stores. MISS memory, no prefetching,
 * h = (0.9, 0.5, 0.6) on 1000 accesses: served L2 50, L3 30, DRAM 20. Of L3's, half are
 * bunched loads and a quarter bunched stores:
 *   L2   transfer 50·2 = 100,  waiting 50·14/4 = 175                → 100 + 75
 *   L3   transfer 30·4 = 120,  waiting 30·50·(0.25/4 + 0.5/2 + 0.25/1) = 843.75
 *                                                                     → 120 + 723.75
 *   DRAM transfer 20·8 = 160,  waiting 20·100/4 = 500                → 160 + 340
 * Tm = 1518.75. Without the spec's figures (0) bunched misses overlap like the rest:
 * L3 waits 30·50/4 = 375 → 120 + 255, Tm = 1050. */
START_TEST(same_set_misses) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.mlp = 4;
  hw.mlp_same_set_load = 2;
  hw.mlp_same_set_store = 1;
  ppt_err err;
  ppt_mem_access m = MEM;
  m.same_set_loads[2] = 0.5;
  m.same_set_stores[2] = 0.25;
  const double *h = MISS_H;
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_MISS};
  ppt_tc_stats st;
  ppt_tasklist *tl = miss_item(&hw, &m, &st);
  ck_close(st.level[1].latency_cycles, 75);
  ck_close(st.level[2].bw_cycles, 120);
  ck_close(st.level[2].latency_cycles, 723.75);
  ck_close(st.level[3].latency_cycles, 340);
  ck_close(st.memory_cycles, 1518.75);
  hw.mlp_same_set_load = hw.mlp_same_set_store = 0;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.level[2].latency_cycles, 255);
  ck_close(st.memory_cycles, 1050);
  /* Shares that are negative or add up to more than 1 are refused. */
  m.same_set_stores[2] = 0.75;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), PPT_EINPUT);
  m.same_set_stores[2] = -0.1;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
}
END_TEST

/* PIPE memory: the levels move lines at the same time. h = (0.9, 0.5, 0.6) on 1000
 * accesses, no prefetching: served L2 50, L3 30, DRAM 20; transfers L2 50·2 = 100, L3
 * 30·4 = 120, DRAM 20·8 = 160. With mlp 100 the waits are L2 50·14/100 = 7, L3
 * 30·50/100 = 15, DRAM 20·100/100 = 20:
 *   MISS  Tm = 100 + 120 + 160 = 380 (each level max(wait, transfer), added)
 *   PIPE  Tm = max(7 + 15 + 20, max(100, 120, 160)) = 160, all DRAM's transfer, and only
 *         DRAM's bytes stream (20 lines).
 * With mlp 4 (waits 175, 375, 500: 1050 ≥ 160) PIPE is wait-bound: Tm = 1050 as MISS's,
 * DRAM charged its transfer 160 and the 890 beyond it split by the waits (L3: 890·375/1050). */
START_TEST(pipelined_levels) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.mlp = 100;
  ppt_err err;
  ppt_mem_access m = MEM;
  ppt_tc_stats st;
  ppt_tasklist *tl = miss_item(&hw, &m, &st);
  ck_close(st.memory_cycles, 380);
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_PIPE};
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.memory_cycles, 160);
  ck_close(st.transfer_cycles, 160);
  ck_close(st.level[3].bw_cycles, 160);
  ck_close(st.level[1].bw_cycles + st.level[2].bw_cycles, 0);
  ck_close(st.level[3].bytes, 20.0 * hw.levels[0].line);
  ck_close(st.level[1].bytes + st.level[2].bytes, 0);
  hw.mlp = 4;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.memory_cycles, 1050);
  ck_close(st.level[3].bw_cycles, 160);
  ck_close(st.level[2].latency_cycles, 890.0 * 375 / 1050);
  ck_assert_str_eq(ppt_tc_memory_name(PPT_MEMORY_PIPE), "pipe");
  ppt_memory_model mm;
  ck_assert_int_eq(ppt_tc_memory_parse("pipe", &mm), 0);
  ck_assert_int_eq(mm, PPT_MEMORY_PIPE);
  ppt_tasklist_free(tl);
}
END_TEST

/* A chain-bound loop's chain and its own misses overlap each other, and nothing else
 * (ppt_mem_access.under_cycles, ppt_tc_policy_loop_cycles): pipelined_levels' item costs
 * 160 cycles at mlp 100 (PIPE). With 200 plain cycles and PARTIAL 0.25, by hand:
 *   the item, no chain:                 200 + 160 − 0.25 · min(200, 160)            = 320
 *   under a chain of 100, fraction 1:   loop 100 + 160 − 100 = 160; rest 100 + 0      = 260
 *   under 200:                          loop 200 + 160 − 160 = 200; rest 0            = 200
 *   under 100, fraction 0.5:            loop 100 + 160 − 50 = 210; rest 100           = 310
 *   under 100 + a second item without:  loop 160; rest 100 + 160 − 0.25 · 100 = 235   = 395
 *   under 100 with 50 cycles of its exits (of 50 LOOP_EXIT cycles more): its misses
 *   cover the exits first, then the chain: overlap 50 + min(100, 110) = 150, loop 100 +
 *   50 + 160 − 150 = 160; rest 100                                                  = 260
 * The second item's 160 cycles overlap the rest of compute only. A negative or infinite
 * chain is refused, and so is a fraction out of [0, 1]. */
START_TEST(chain_loops_overlap_own_misses) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.mlp = 100;
  ppt_err err;
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_PARTIAL,
                     .fraction = 0.25,
                     .compute = PPT_COMPUTE_PORTS,
                     .memory = PPT_MEMORY_PIPE,
                     .loop_hide = 1};
  const double under[6][2] = {{0, -1}, {100, -1}, {200, -1}, {100, -1}, {100, 0}, {100, -1}};
  const double frac[6] = {1, 1, 1, 0.5, 1, 1}, want[6] = {320, 260, 200, 310, 395, 260};
  const double overlap[6] = {0, 100, 160, 50, 100, 150}, exits[6] = {0, 0, 0, 0, 0, 50};
  for (int i = 0; i < 6; i++) {
    ppt_tasklist *tl = ppt_tasklist_new();
    ck_assert_int_eq(ppt_tasklist_add_cycles(tl, 200, &err), 0);
    if (exits[i] > 0) ck_assert_int_eq(ppt_tasklist_add_cycles_as(tl, exits[i], PPT_CPU_LOOP_EXIT, &err), 0);
    for (int j = 0; j < 2 && under[i][j] >= 0; j++) {
      ppt_mem_access m = MEM;
      m.under_cycles = under[i][j];
      m.under_exit_cycles = j == 0 ? exits[i] : 0;
      ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, MISS_H, &err), 0);
    }
    p.loop_fraction = frac[i];
    ppt_tc_stats st;
    ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
    ck_close(st.loops.chain, under[i][0]);
    ck_close(st.loops.exits, exits[i]);
    ck_close(st.loops.memory, under[i][0] > 0 ? 160 : 0);
    ck_close(st.loops.overlap, overlap[i]);
    ck_close(st.cycles, want[i]);
    p.loop_fraction = 1.5;
    ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), PPT_EINPUT);
    ppt_tasklist_free(tl);
  }
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_mem_access m = MEM;
  m.under_cycles = -1;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, MISS_H, &err), PPT_EINPUT);
  m.under_cycles = INFINITY;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, MISS_H, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
  char buf[32];
  ck_assert_int_eq(ppt_tc_loops_parse("0.5", &p), 0);
  ck_assert_int_eq(p.loop_hide, 1);
  ck_assert_str_eq(ppt_tc_loops_name(&p, buf, sizeof buf), "0.5");
  ck_assert_int_eq(ppt_tc_loops_parse("plain", &p), 0);
  ck_assert_int_eq(p.loop_hide, 0);
  ck_assert_str_eq(ppt_tc_loops_name(&p, buf, sizeof buf), "plain");
  ck_assert_int_eq(ppt_tc_loops_parse("1.5", &p), -1);
  ck_assert_int_eq(ppt_tc_loops_parse("yes", &p), -1);
  ck_assert_int_eq(p.loop_hide, 0);
}
END_TEST

/* One core's cap bounds its fills, not its write-backs (time_compute.c): 1000 DRAM
 * accesses of 64 B lines on 2 levels (DRAM 8 B/cycle), all prefetched, half of them
 * written back: fills 64000 B, write-backs 32000 B. With one core capped at 3 B/cycle:
 * max(64000 / 3, 96000 / 8) = 21333.3 cycles (not 96000 / 3 = 32000); at 6 B/cycle the
 * instance binds: 96000 / 8 = 12000. The same under MISS and PIPE; fill_bytes tells the
 * engine which bytes the core's link caps. */
START_TEST(core_cap_fills_only) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  ppt_err err;
  ppt_tasklist *tl = fx_fill_wb(2, 2, 1, 2, 0.5);
  ck_assert_ptr_nonnull(tl);
  const ppt_memory_model models[] = {PPT_MEMORY_MISS, PPT_MEMORY_PIPE};
  const double core_bw[] = {3e9, 6e9}, want[] = {64000.0 / 3, 12000};
  for (size_t i = 0; i < 2; i++)
    for (size_t j = 0; j < 2; j++) {
      hw.dram_core_bw_bytes_per_s = core_bw[j];
      ppt_tc_policy p = {.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = models[i]};
      ppt_tc_stats st;
      ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
      ck_close(st.level[2].bw_cycles, want[j]);
      ck_close(st.memory_cycles, want[j]);
      ck_close(st.level[2].bytes, 96000);
      ck_close(st.level[2].fill_bytes, 64000);
    }
  ppt_tasklist_free(tl);
}
END_TEST

/* Cache-to-cache transfers (ppt_mem_access.transfers): mlp 4, hwspec coherence_cycles
 * 100. MISS memory as in same_set_misses, h = (0.9, 0.5, 0.6) on 1000 accesses: L3
 * serves 30, half of them transfers, whose latency is 100 instead of the L3's 50:
 *   L3   transfer 30·4 = 120,  waiting 30·(0.5·50 + 0.5·100)/4 = 562.5  → 120 + 442.5
 * Without the spec's figure (0) they are priced like the rest: 30·50/4 = 375 → 255.
 * A prefetcher that covered 80 % of the L3's accesses hides the latency of the others
 * only: the transfers still hold a miss buffer each for the snoop (Little's law),
 *   waiting 30·(0.2·0.5·50 + 0.5·100)/4 = 412.5 → 120 + 292.5
 * (hiding them too would leave 30·0.2·75/4 = 112.5, under the transfer: 0). */
START_TEST(transfers_wait) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.mlp = 4;
  hw.coherence_cycles = 100;
  ppt_err err;
  ppt_mem_access m = MEM;
  m.transfers[2] = 0.5;
  const double *h = MISS_H;
  ppt_tc_policy p = {.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_MISS};
  ppt_tc_stats st;
  ppt_tasklist *tl = miss_item(&hw, &m, &st);
  ck_close(st.level[2].bw_cycles, 120);
  ck_close(st.level[2].latency_cycles, 442.5);
  ppt_tasklist_free(tl);
  m.prefetched[2] = 0.8;
  tl = miss_item(&hw, &m, &st);
  ck_close(st.level[2].bw_cycles, 120);
  ck_close(st.level[2].latency_cycles, 292.5);
  ppt_tasklist_free(tl);
  m.prefetched[2] = 0;
  tl = miss_item(&hw, &m, &st);
  hw.coherence_cycles = 0;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
  ck_close(st.level[2].latency_cycles, 255);
  m.transfers[2] = 1.5;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), PPT_EINPUT);
  ppt_tasklist_free(tl);
}
END_TEST

/* Names of the models and back. */
START_TEST(policy_names) {
  ppt_tc_policy p = {0};
  ck_assert_int_eq(ppt_tc_overlap_parse("stall", &p), 0);
  ck_assert_int_eq(p.overlap, PPT_OVERLAP_STALL);
  ck_assert_int_eq(ppt_tc_overlap_parse("partial,0.3", &p), 0);
  ck_close(p.fraction, 0.3);
  ck_assert_int_eq(ppt_tc_overlap_parse("partial,2", &p), -1);
  ck_assert_int_eq(ppt_tc_overlap_parse("most", &p), -1);
  ppt_compute_model c;
  ppt_memory_model mm;
  ck_assert_int_eq(ppt_tc_compute_parse("ports", &c), 0);
  ck_assert_int_eq(c, PPT_COMPUTE_PORTS);
  ck_assert_int_eq(ppt_tc_memory_parse("amm", &mm), 0);
  ck_assert_int_eq(mm, PPT_MEMORY_AMM);
  ck_assert_int_eq(ppt_tc_memory_parse("lru", &mm), -1);
  ck_assert_str_eq(ppt_tc_compute_name(PPT_COMPUTE_SUM), "sum");
  ck_assert_str_eq(ppt_tc_memory_name(PPT_MEMORY_MISS), "miss");
  ck_assert_str_eq(ppt_tc_overlap_name(PPT_OVERLAP_STALL), "stall");
  /* An op mix's compute cycles: ialu 8/4 = 2, fadd 6/2 = 3 → SUM 5, PORTS 3. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 1);
  double ops[PPT_HW_NOPCLASS] = {0};
  ops[PPT_HW_IALU] = 8;
  ops[PPT_HW_FADD] = 6;
  ppt_tc_policy sum = {.compute = PPT_COMPUTE_SUM}, ports = {.compute = PPT_COMPUTE_PORTS};
  ck_close(ppt_tc_ops_cycles(&hw, &sum, ops), 5);
  ck_close(ppt_tc_ops_cycles(&hw, &ports, ops), 3);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("time_compute");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, eq45_one_level);
  tcase_add_test(tc, eq45_two_levels);
  tcase_add_test(tc, eq45_three_levels);
  tcase_add_test(tc, eq45_level_breakdown);
  tcase_add_test(tc, eq5_amm_two_level_form);
  tcase_add_test(tc, compute_items);
  tcase_add_test(tc, cpu_items_by_kind);
  tcase_add_test(tc, contended_share_carried);
  tcase_add_test(tc, loop_exits_overlap_memory);
  tcase_add_test(tc, overlap_policies);
  tcase_add_test(tc, direct_levels_and_alloc);
  tcase_add_test(tc, sdcm_fully_associative);
  tcase_add_test(tc, sdcm_per_level_profiles);
  tcase_add_test(tc, sdcm_set_associative);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, clone_is_deep);
  tcase_add_test(tc, ooo_core_model);
  tcase_add_test(tc, core_cap_fills_only);
  tcase_add_test(tc, same_set_misses);
  tcase_add_test(tc, transfers_wait);
  tcase_add_test(tc, pipelined_levels);
  tcase_add_test(tc, chain_loops_overlap_own_misses);
  tcase_add_test(tc, sqrt_on_the_divider);
  tcase_add_test(tc, policy_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
