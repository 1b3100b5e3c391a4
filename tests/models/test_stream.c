/* tests/models/test_stream.c — the STREAM model: bandwidth-bound kernels, DRAM
 * contention between cores, hit rates counted by hand. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>

#include "models_fixture.h"

#define BIG (UINT64_C(1) << 22) /* 4 Mi doubles: 32 MiB per array, 8× the L3 */

/* A spec on which streaming from DRAM is the only real cost: 1 GHz, caches of 1024,
 * 512, 256 B/cycle, DRAM 100 ns and 10 GB/s (10 B/cycle), 64 ops per cycle of every
 * class. */
static void dram_bound_spec(ppt_hwspec *hw) {
  mf_spec(hw);
  hw->levels[0].bw_bytes_per_cycle = 1024;
  hw->levels[1].bw_bytes_per_cycle = 512;
  hw->levels[2].bw_bytes_per_cycle = 256;
  hw->dram_bw_bytes_per_s = 10e9;
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) hw->ops[k].per_cycle = 64;
}

/* Seconds of the last region labelled `label` (STREAM's later iterations are equal). */
static double last_region(const mdl_prog *p, const mdl_result *r, const char *label) {
  double s = -1;
  for (size_t g = 0; g < r->nregions; g++)
    if (!strcmp(mdl_prog_label(p, g), label)) s = r->region_s[g];
  ck_assert_msg(s > 0, "no region %s", label);
  return s;
}

static double triad_seconds(const ppt_hwspec *hw, const mdl_stream_params *sp, uint32_t cores) {
  mdl_prog *p;
  mdl_result r = mf_run(hw, mdl_stream_program, sp, cores, &p);
  ck_assert_uint_eq(r.nregions, 1 + 4 * sp->ntimes);
  double s = last_region(p, &r, "triad");
  mdl_result_clear(&r);
  mdl_prog_free(p);
  return s;
}

/* Triad moves 24 bytes per element (STREAM's count; in the model each array's lines
 * come from DRAM once). On one core of dram_bound_spec its time is the DRAM time,
 * 24·n / 10 GB/s, plus what the caches and ops add: per element 3/8 vector accesses
 * hitting L1 at 32/1024 cycles, 2/4 vector FP issues, 2/4 integer ops and 1/4 branch at
 * 64 per cycle, half of that compute hidden (PARTIAL 0.5): ~0.9 % more. */
START_TEST(triad_one_core_is_dram_bound) {
  ppt_hwspec hw;
  dram_bound_spec(&hw);
  mdl_stream_params sp = {.n = BIG, .ntimes = 2, .vector_bits = 256};
  double t = triad_seconds(&hw, &sp, 1);
  double dram = 24.0 * (double)BIG / hw.dram_bw_bytes_per_s;
  ck_assert_msg(t >= dram, "triad %g s faster than DRAM allows (%g s)", t, dram);
  ck_rel(t, dram, 0.02);
  /* STREAM's rate, as ppt-model-stream reports it. */
  ck_rel(mdl_stream_kernel_bytes(&sp, "triad") / t / 1e9, 10.0, 0.02);
  ck_assert_double_eq(mdl_stream_kernel_bytes(&sp, "copy"), 16.0 * (double)BIG);
}
END_TEST

/* Two cores share the DRAM link: DRAM bandwidth (10 GB/s) is less than twice what one
 * core streams (~9.9 GB/s), so two cores cannot be twice as fast; here they are barely
 * faster, since only the small cache and compute part halves. */
START_TEST(triad_two_cores_contend) {
  ppt_hwspec hw;
  dram_bound_spec(&hw);
  mdl_stream_params sp = {.n = BIG, .ntimes = 2, .vector_bits = 256};
  double t1 = triad_seconds(&hw, &sp, 1), t2 = triad_seconds(&hw, &sp, 2);
  double speedup = t1 / t2, dram = 24.0 * (double)BIG / hw.dram_bw_bytes_per_s;
  ck_assert_msg(speedup < 1.05 && speedup > 1.0, "speedup %g", speedup);
  ck_assert(t2 >= dram);

  /* Counter-case: slow L1 (2 B/cycle: one core streams ~2 GB/s), DRAM 1000 GB/s. DRAM
   * bandwidth is far above twice one core's rate, and two cores are twice as fast: the
   * per-core L1 part (3·2^19 accesses × 32 B / 2 B per cycle) halves, the DRAM part
   * (0.4 % of it) stays. */
  hw.levels[0].bw_bytes_per_cycle = 2;
  hw.dram_bw_bytes_per_s = 1000e9;
  t1 = triad_seconds(&hw, &sp, 1);
  t2 = triad_seconds(&hw, &sp, 2);
  ck_assert_msg(24.0 * (double)BIG / t1 < 50e9, "one core %g GB/s", 24.0 * (double)BIG / t1 / 1e9);
  ck_rel(t1 / t2, 2.0, 0.01);
}
END_TEST

/* Per array a kernel makes n/v vector accesses, n·8/64 of them to a new line: with 256-
 * bit vectors half, scalar one in eight. Lines just used hit L1 (D = k − 1); new lines
 * of arrays 8× the L3 miss everywhere. */
START_TEST(hit_rates_by_hand) {
  ppt_hwspec hw;
  mf_spec(&hw);
  mdl_stream_params sp = {.n = BIG, .ntimes = 2, .vector_bits = 256};
  mdl_result r = mf_run(&hw, mdl_stream_program, &sp, 1, NULL);
  /* init 3 arrays, then 2 × (2 + 2 + 3 + 3) array sweeps of n/4 accesses. */
  ck_rel(r.accesses, 23.0 * (double)BIG / 4, 1e-12);
  for (uint32_t k = 0; k < 3; k++) ck_rel(r.hit[k], 0.5, 1e-12);
  mdl_result_clear(&r);
  sp.vector_bits = 64;
  r = mf_run(&hw, mdl_stream_program, &sp, 2, NULL);
  ck_rel(r.accesses, 23.0 * (double)BIG, 1e-12);
  for (uint32_t k = 0; k < 3; k++) ck_rel(r.hit[k], 7.0 / 8, 1e-12);
  mdl_result_clear(&r);

  /* In cache: n = 8192 (3 × 64 KiB) with a fully associative 1 MiB L2 (16384 lines).
   * Each array chunk is L = 1024 lines and no reuse spans more than the 3 arrays, so
   * L2 misses only the 3·1024 first touches in init; accesses: 3·2048 + 2·10·2048. */
  mf_level(&hw.levels[1], "L2", 1 << 20, 0, 1, 14, 32);
  sp = (mdl_stream_params){.n = 8192, .ntimes = 2, .vector_bits = 256};
  mdl_prog *p;
  r = mf_run(&hw, mdl_stream_program, &sp, 1, &p);
  ck_rel(r.accesses, 47104, 1e-12);
  ck_rel(r.hit[1], 1 - 3072.0 / 47104, 1e-12);
  /* In cache, triad runs faster than DRAM could feed it (8 GB/s). */
  ck_assert(mdl_stream_kernel_bytes(&sp, "triad") / last_region(p, &r, "triad") > 2 * 8e9);
  mdl_result_clear(&r);
  mdl_prog_free(p);
}
END_TEST

/* Op counts of one thread's triad: 2 FP ops per element as vectors of 4, 2 integer ops
 * and a branch per vector iteration; copy has no FP ops. */
START_TEST(op_counts) {
  ppt_hwspec hw;
  mf_spec(&hw);
  mdl_stream_params sp = {.n = 1000, .ntimes = 2, .vector_bits = 256};
  ppt_tasklist *tl;
  ppt_err err;
  ck_assert_int_eq(mdl_stream_tasklist(&hw, &sp, 1, 1000, 4, 1, &tl, &err), 0);
  ppt_tc_stats st = mf_time(&hw, tl);
  ck_rel(st.vector_cycles * hw.ops[PPT_HW_FADD].per_cycle, 2 * 250, 1e-12);
  ck_rel(mf_ops(&hw, &st, PPT_HW_IALU), 2 * 250, 1e-12);
  ck_rel(mf_ops(&hw, &st, PPT_HW_BRANCH), 250, 1e-12);
  ck_rel(st.mem_accesses, 3 * 250, 1e-12);
  ppt_tasklist_free(tl);
  ck_assert_int_eq(mdl_stream_tasklist(&hw, &sp, 1, 1000, 1, 1, &tl, &err), 0);
  st = mf_time(&hw, tl);
  ck_assert_double_eq(st.vector_cycles, 0);
  ck_rel(st.mem_accesses, 2 * 250, 1e-12);
  ppt_tasklist_free(tl);
  ck_assert_int_eq(mdl_stream_tasklist(&hw, &sp, 1, 1000, 5, 1, &tl, &err), PPT_EINPUT);
}
END_TEST

START_TEST(deterministic) {
  ppt_hwspec hw;
  mf_load("intel-xeon-e5-2650v3.json", &hw);
  mdl_stream_params sp = {.n = 1000000, .ntimes = 3, .vector_bits = 256};
  mdl_result a = mf_run(&hw, mdl_stream_program, &sp, 4, NULL);
  mdl_result b = mf_run(&hw, mdl_stream_program, &sp, 4, NULL);
  ck_assert(a.runtime_s == b.runtime_s);
  for (size_t g = 0; g < a.nregions; g++) ck_assert(a.region_s[g] == b.region_s[g]);
  mdl_result_clear(&a);
  mdl_result_clear(&b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("models_stream");
  TCase *tc = tcase_create("stream");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, triad_one_core_is_dram_bound);
  tcase_add_test(tc, triad_two_cores_contend);
  tcase_add_test(tc, hit_rates_by_hand);
  tcase_add_test(tc, op_counts);
  tcase_add_test(tc, deterministic);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
