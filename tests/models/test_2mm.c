/* tests/models/test_2mm.c — the 2mm model: flops of both regions, the tmp matrix
 * reused across them, scaling, determinism.
 *
 * Dimensions NI = 40, NJ = 48, NK = 56, NL = 64 (rows of 6, 7, 8 lines: w = 8). */
#include <check.h>

#include "ppt_test.h"
#include <math.h>

#include "models_fixture.h"

#define NI 40.0
#define NJ 48.0
#define NK 56.0
#define NL 64.0

static const mdl_2mm_params DIMS = {40, 48, 56, 64};

/* tmp = alpha·A·B: 2 multiplies and an add per k; D = beta·D + tmp·C: a multiply and an
 * add per k and beta·D per (i, j). */
START_TEST(flops) {
  ppt_hwspec hw;
  mf_spec(&hw);
  for (uint32_t threads = 1; threads <= 3; threads += 2) {
    mdl_prog *p;
    ppt_err err;
    ck_assert_int_eq(mdl_2mm_program(&hw, &DIMS, threads, &p, &err), 0);
    ck_assert_uint_eq(mdl_prog_nregions(p), 2);
    double fmul[2] = {0}, fadd[2] = {0}, refs[2] = {0};
    for (size_t g = 0; g < 2; g++)
      for (size_t t = 0; t < threads; t++) {
        ppt_tc_stats st = mf_time(&hw, mdl_prog_tasklist(p, g, t));
        fmul[g] += mf_ops(&hw, &st, PPT_HW_FMUL);
        fadd[g] += mf_ops(&hw, &st, PPT_HW_FADD);
        refs[g] += st.mem_accesses;
      }
    ck_rel(fmul[0], 2 * NI * NJ * NK, 1e-12);
    ck_rel(fadd[0], NI * NJ * NK, 1e-12);
    ck_rel(fmul[1], NI * NL * NJ + NI * NL, 1e-12);
    ck_rel(fadd[1], NI * NL * NJ, 1e-12);
    ck_rel(fmul[0] + fadd[0] + fmul[1] + fadd[1], 3 * NI * NJ * NK + 2 * NI * NL * NJ + NI * NL, 1e-12);
    /* References: 4 per k; tmp = 0 is one store per (i, j), D *= beta a load and a store. */
    ck_rel(refs[0], 4 * NI * NJ * NK + NI * NJ, 1e-12);
    ck_rel(refs[1], 4 * NI * NL * NJ + 2 * NI * NL, 1e-12);
    ck_assert_ptr_null(mdl_prog_tasklist(p, 2, 0));
    mdl_prog_free(p);
  }
}
END_TEST

/* With a fully associative L2 that holds everything (65536 lines), region 2 misses L2
 * only on first touches: C's 48·8 lines and D's 40·8. tmp, written by region 1, hits;
 * were it cold (no a_first), its 40·6 lines would miss too. */
START_TEST(tmp_reused_across_regions) {
  ppt_hwspec hw;
  mf_spec(&hw);
  mf_level(&hw.levels[1], "L2", 4 << 20, 0, 1, 14, 32);
  mf_level(&hw.levels[2], "L3", 8 << 20, 0, 8, 50, 16);
  double refs2 = 4 * NI * NL * NJ + 2 * NI * NL;
  mdl_prog *p;
  ppt_err err;
  ck_assert_int_eq(mdl_2mm_program(&hw, &DIMS, 1, &p, &err), 0);
  ppt_tc_stats st = mf_time(&hw, mdl_prog_tasklist(p, 1, 0));
  ck_rel(st.mem_accesses, refs2, 1e-12);
  ck_rel(st.level[1].global_hit, 1 - (384 + 320) / refs2, 1e-12);
  mdl_prog_free(p);

  mdl_ctx c = {&hw, 1};
  mdl_ijk cold = {.rows = 40, .nj = 64, .nk = 48, .fmul = 1, .fadd = 1, .scale_c = 1, .a_first = NULL};
  ppt_tasklist *tl;
  ck_assert_int_eq(mdl_ijk_tasklist(&c, &cold, &tl, &err), 0);
  st = mf_time(&hw, tl);
  ck_rel(st.level[1].global_hit, 1 - (384 + 320 + 240) / refs2, 1e-12);
  ppt_tasklist_free(tl);

  /* Two threads of 20 rows: each private L2 first-touches all of C (2·384) and its half
   * of D (2·160); tmp still hits. */
  ck_assert_int_eq(mdl_2mm_program(&hw, &DIMS, 2, &p, &err), 0);
  double miss = 0;
  for (size_t t = 0; t < 2; t++) {
    st = mf_time(&hw, mdl_prog_tasklist(p, 1, t));
    miss += st.mem_accesses * (1 - st.level[1].global_hit);
  }
  ck_rel(miss, 2 * 384 + 2 * 160, 1e-9);
  mdl_prog_free(p);
}
END_TEST

START_TEST(scaling_and_determinism) {
  ppt_hwspec hw;
  mf_load("intel-xeon-e5-2650v3.json", &hw);
  mdl_2mm_params d = {160, 180, 220, 240};
  mdl_result r1 = mf_run(&hw, mdl_2mm_program, &d, 1, NULL);
  mdl_result r4 = mf_run(&hw, mdl_2mm_program, &d, 4, NULL);
  mdl_result r4b = mf_run(&hw, mdl_2mm_program, &d, 4, NULL);
  double s = r1.runtime_s / r4.runtime_s;
  ck_assert_msg(s > 3.5 && s <= 4.0 + 1e-9, "speedup %g", s);
  ck_assert_uint_eq(r4.nregions, 2);
  ck_rel(r4.region_s[0] + r4.region_s[1], r4.runtime_s, 1e-9);
  ck_assert(r4.runtime_s == r4b.runtime_s && r4.hit[0] == r4b.hit[0]);
  /* Twice every dimension: 8× the flops and more, as B and C outgrow L2. */
  mdl_2mm_params d2 = {320, 360, 440, 480};
  mdl_result r2 = mf_run(&hw, mdl_2mm_program, &d2, 1, NULL);
  double g = r2.runtime_s / r1.runtime_s;
  ck_assert_msg(g > 7.9 && g < 14, "growth %g", g);
  mdl_result_clear(&r1);
  mdl_result_clear(&r2);
  mdl_result_clear(&r4);
  mdl_result_clear(&r4b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("models_2mm");
  TCase *tc = tcase_create("2mm");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, flops);
  tcase_add_test(tc, tmp_reused_across_regions);
  tcase_add_test(tc, scaling_and_determinism);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
