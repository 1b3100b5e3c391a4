/* tests/models/test_blackscholes.c — the Blackscholes model: its op mix, hit rates
 * counted by hand, compute-bound scaling. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>

#include "models_fixture.h"

/* The per-option counts stated in apps/models/blackscholes.c: the formula's own FP ops
 * (56, which PPT's Byfl-measured tasklists show as 57.2 fALU per option) and 4 divides,
 * plus 3 exp, 1 log and 1 sqrt at fixed costs. */
START_TEST(op_counts) {
  mdl_bs_ops o;
  mdl_bs_ops_per_option(&o);
  ck_assert_double_eq(o.fmul, 66);
  ck_assert_double_eq(o.fadd, 50);
  ck_assert_double_eq(o.fdiv, 5);
  ck_assert_double_eq(o.ialu, 27);
  ck_assert_double_eq(o.branch, 10);
  double libm_fp = 3 * (7 + 7) + (9 + 9);
  ck_assert_double_eq(o.fmul + o.fadd - libm_fp, 56);

  ppt_hwspec hw;
  mf_spec(&hw);
  ppt_tasklist *tl;
  ppt_err err;
  ck_assert_int_eq(mdl_bs_tasklist(&hw, 1, 1000, 0, &tl, &err), 0);
  ppt_tc_stats st = mf_time(&hw, tl);
  ck_rel(mf_ops(&hw, &st, PPT_HW_FMUL), 66000, 1e-12);
  ck_rel(mf_ops(&hw, &st, PPT_HW_FADD), 50000, 1e-12);
  ck_rel(mf_ops(&hw, &st, PPT_HW_FDIV), 5000, 1e-12);
  ck_rel(mf_ops(&hw, &st, PPT_HW_IALU), 27000, 1e-12);
  ck_rel(mf_ops(&hw, &st, PPT_HW_BRANCH), 10000, 1e-12);
  /* Per option on the fixture: 66/2 + 50/2 + 5/0.25 + 27/4 + 10/1 = 94.75 cycles. */
  ck_rel(st.compute_cycles, 94750, 1e-12);
  ck_rel(st.mem_accesses, 7000, 1e-12); /* 6 loads and a store per option */
  ppt_tasklist_free(tl);
}
END_TEST

/* 256 options: 7 arrays of 16 lines, 112 lines in all, in a fully associative L1 of
 * 512 lines. Only run 0's first touches miss: 7·16 of 7·256·runs references. */
START_TEST(hit_rates_by_hand) {
  ppt_hwspec hw;
  mf_spec(&hw);
  mf_level(&hw.levels[0], "L1", 32 << 10, 0, 1, 4, 64);
  mdl_bs_params bp = {.n = 256, .runs = 10};
  for (uint32_t cores = 1; cores <= 4; cores *= 4) {
    mdl_result r = mf_run(&hw, mdl_bs_program, &bp, cores, NULL);
    ck_rel(r.accesses, 7.0 * 256 * 10, 1e-12);
    ck_rel(r.hit[0], 1 - 16.0 / 2560, 1e-12);
    ck_assert_uint_eq(r.nregions, 10);
    mdl_result_clear(&r);
  }
  /* 2^16 options (1.75 MiB), all levels fully associative: later runs reuse at
   * D = 7·4096 − 1 = 28671 lines, beyond L1 (512) and L2 (16384), within the L3 (65536):
   * L1 and L2 hit only the 15 of 16 words of a line just used; L3 misses only run 0's
   * first touches. */
  mf_level(&hw.levels[1], "L2", 1 << 20, 0, 1, 14, 32);
  mf_level(&hw.levels[2], "L3", 4 << 20, 0, 8, 50, 16);
  bp = (mdl_bs_params){.n = 65536, .runs = 4};
  mdl_result r = mf_run(&hw, mdl_bs_program, &bp, 1, NULL);
  ck_rel(r.hit[0], 15.0 / 16, 1e-9);
  ck_rel(r.hit[1], 15.0 / 16, 1e-9);
  ck_rel(r.hit[2], 1 - 1.0 / (16 * 4), 1e-9);
  mdl_result_clear(&r);
}
END_TEST

/* Compute-bound: runtime linear in the runs, speedup with the cores. */
START_TEST(scaling) {
  ppt_hwspec hw;
  mf_load("intel-xeon-e5-2650v3.json", &hw);
  mdl_bs_params a = {.n = 65536, .runs = 10}, b = {.n = 65536, .runs = 20};
  mdl_result ra = mf_run(&hw, mdl_bs_program, &a, 1, NULL);
  mdl_result rb = mf_run(&hw, mdl_bs_program, &b, 1, NULL);
  ck_rel(rb.runtime_s / ra.runtime_s, 2.0, 0.01);
  ck_assert(ra.compute_s > 10 * ra.memory_s);
  mdl_result r8 = mf_run(&hw, mdl_bs_program, &a, 8, NULL);
  double s = ra.runtime_s / r8.runtime_s;
  ck_assert_msg(s > 7.8 && s <= 8.0 + 1e-9, "speedup %g", s);
  mdl_result_clear(&ra);
  mdl_result_clear(&rb);
  mdl_result_clear(&r8);
}
END_TEST

START_TEST(deterministic) {
  ppt_hwspec hw;
  mf_load("intel-xeon-e5-2650v3.json", &hw);
  mdl_bs_params bp = {.n = 10000, .runs = 5};
  mdl_result a = mf_run(&hw, mdl_bs_program, &bp, 3, NULL);
  mdl_result b = mf_run(&hw, mdl_bs_program, &bp, 3, NULL);
  ck_assert(a.runtime_s == b.runtime_s && a.hit[2] == b.hit[2]);
  mdl_result_clear(&a);
  mdl_result_clear(&b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("models_blackscholes");
  TCase *tc = tcase_create("blackscholes");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, op_counts);
  tcase_add_test(tc, hit_rates_by_hand);
  tcase_add_test(tc, scaling);
  tcase_add_test(tc, deterministic);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
