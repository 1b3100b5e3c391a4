/* test_cpu_model.c — the core model's relations that read a hwspec's figures (ppt/cpu.h):
 * the FP window's, by hand and read back as `ppt calibrate` reads it, and the compute
 * speed of a region's threads from core_speed. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <string.h>

#include "ppt/cpu.h"

/* A region's thread speeds from core_speed [1, 0.9, 1.25] (ppt_hwspec_thread_speed,
 * models/cpu/thread_speed.c), by hand. 3 threads or more use every core: thread t gets
 * core t's speed. Fewer get, all alike, 1 / the mean over the 3 cores the first may start on of the slowest thread's
 * 1/speed: one thread 3 / (1 + 1/0.9 + 1/1.25) = 1.0305344; two (cores 0-1, 1-2, 2-0)
 * 3 / (1/0.9 + 1/0.9 + 1) = 0.9310345. Without the list, 1. */
START_TEST(thread_speed) {
  ppt_hwspec hw;
  memset(&hw, 0, sizeof hw);
  hw.nspeeds = 3;
  hw.core_speed[0] = 1;
  hw.core_speed[1] = 0.9;
  hw.core_speed[2] = 1.25;
  ck_assert(ppt_hwspec_thread_speed(&hw, 1, 3) == 0.9);
  ck_assert(ppt_hwspec_thread_speed(&hw, 2, 4) == 1.25);
  ck_assert(ppt_hwspec_thread_speed(&hw, 3, 4) == 1);
  ck_assert_double_eq_tol(ppt_hwspec_thread_speed(&hw, 0, 1), 1.0305344, 1e-7);
  ck_assert_double_eq_tol(ppt_hwspec_thread_speed(&hw, 0, 2), 0.9310345, 1e-7);
  ck_assert_double_eq_tol(ppt_hwspec_thread_speed(&hw, 1, 2), 0.9310345, 1e-7);
  hw.nspeeds = 0;
  ck_assert(ppt_hwspec_thread_speed(&hw, 0, 1) == 1);
  ck_assert(ppt_hwspec_thread_speed(&hw, 5, 2) == 1);
}
END_TEST

/* The FP window's relation (models/cpu/fp_window.c): a chain of 8 (fmul, fadd) pairs per
 * execution, F = 16 ops, P = 8 x (3 + 2) = 40 cycles, on pipes of 2 adds and 2 multiplies
 * a cycle. By hand: with S = 100 the time T solves T = (40 + W) 16 / 116, W = 8 x 2 x
 * rho / (2 (1 - rho)) with rho = 4 / T for both classes; without waits (pipes without
 * limit) T = 40 x 16 / 116; S read back from T is S; a divider (0.25 a cycle, latency
 * 13) on the chain waits rho x 4 / (2 (1 - rho)), and with a root beside it both queue
 * for that divider (M/G/1); no window, or no chain: 0. */
START_TEST(fp_window_relation) {
  ppt_hwspec hw;
  memset(&hw, 0, sizeof hw);
  hw.fp_window = 100;
  hw.ops[PPT_HW_FADD] = (ppt_hw_op){2, 2};
  hw.ops[PPT_HW_FMUL] = (ppt_hw_op){2, 3};
  hw.ops[PPT_HW_FDIV] = (ppt_hw_op){0.25, 13};
  double path[PPT_HW_NOPCLASS] = {0}, ops[PPT_HW_NOPCLASS] = {0};
  path[PPT_HW_FADD] = path[PPT_HW_FMUL] = ops[PPT_HW_FADD] = ops[PPT_HW_FMUL] = 8;
  double t = ppt_hwspec_window_cycles(&hw, path, ops);
  double rho = 4 / t, w = 2 * 8 * rho / (2 * (1 - rho));
  ck_assert_msg(fabs(t - (40 + w) * 16 / 116) < 1e-6 * t, "T %g, right side %g", t, (40 + w) * 16 / 116);
  ck_assert_msg(t > 40.0 * 16 / 116 && t < 8, "T %g", t); /* the waits add, ~6.8 cycles */
  ck_assert_msg(fabs(ppt_hwspec_window_size(&hw, path, ops, t) - 100) < 1e-6, "S %g",
                ppt_hwspec_window_size(&hw, path, ops, t));
  /* pipes without limit: the plain window bound */
  hw.ops[PPT_HW_FADD].per_cycle = hw.ops[PPT_HW_FMUL].per_cycle = 1e9;
  t = ppt_hwspec_window_cycles(&hw, path, ops);
  ck_assert_msg(fabs(t - 40.0 * 16 / 116) < 1e-6, "T %g", t);
  /* a divide on the chain: its divider busy rho = 1 / (0.25 T), service 4 cycles */
  path[PPT_HW_FDIV] = ops[PPT_HW_FDIV] = 1;
  t = ppt_hwspec_window_cycles(&hw, path, ops);
  rho = 4 / t;
  w = rho * 4 / (2 * (1 - rho));
  ck_assert_msg(fabs(t - (53 + w) * 17 / 117) < 1e-6 * t, "T %g", t);
  ck_assert_msg(fabs(ppt_hwspec_window_size(&hw, path, ops, t) - 100) < 1e-6, "S back");
  /* a root too (0.125 a cycle, latency 20): it queues with the divide for the one
   * divider, rho = (4 + 8) / T, and each of the two waits (16 + 64) / T / (2 (1 - rho))
   * (the adds and multiplies still on pipes without limit); T above the divider's 12
   * cycles. Two dividers, one per class, would wait 4 rho_d / (2 (1 - rho_d)) and
   * 8 rho_r / (2 (1 - rho_r)): less than half as much here. */
  hw.ops[PPT_HW_FSQRT] = (ppt_hw_op){0.125, 20};
  path[PPT_HW_FSQRT] = ops[PPT_HW_FSQRT] = 1;
  t = ppt_hwspec_window_cycles(&hw, path, ops);
  w = 2 * 80 / t / (2 * (1 - 12 / t));
  ck_assert_msg(t > 12 && fabs(t - (73 + w) * 18 / 118) < 1e-6 * t, "T %g with a root", t);
  ck_assert(4 * (4 / t) / (2 * (1 - 4 / t)) + 8 * (8 / t) / (2 * (1 - 8 / t)) < 0.5 * w);
  /* without its own figures a root is a divide (latency 13, 4 cycles an issue) */
  hw.ops[PPT_HW_FSQRT] = (ppt_hw_op){0, 0};
  t = ppt_hwspec_window_cycles(&hw, path, ops);
  w = 2 * 32 / t / (2 * (1 - 8 / t));
  ck_assert_msg(t > 8 && fabs(t - (66 + w) * 18 / 118) < 1e-6 * t, "T %g with a root as a divide", t);
  path[PPT_HW_FSQRT] = ops[PPT_HW_FSQRT] = 0;
  /* fp_chains caps the executions in flight: with pipes without limit and no divide,
   * the window holds 116 / 16 = 7.25 executions (T = 40 / 7.25 = 5.52); 3 chains make
   * T = 40 / 3 exactly, and read back give 3; 10 chains do not bind. */
  hw.ops[PPT_HW_FDIV] = (ppt_hw_op){0, 0};
  path[PPT_HW_FDIV] = ops[PPT_HW_FDIV] = 0;
  hw.fp_chains = 3;
  t = ppt_hwspec_window_cycles(&hw, path, ops);
  ck_assert_msg(fabs(t - 40.0 / 3) < 1e-6, "T %g with 3 chains", t);
  ck_assert_msg(fabs(ppt_hwspec_window_chains(&hw, path, ops, t) - 3) < 1e-6, "E back %g",
                ppt_hwspec_window_chains(&hw, path, ops, t));
  hw.fp_chains = 10;
  t = ppt_hwspec_window_cycles(&hw, path, ops);
  ck_assert_msg(fabs(t - 40.0 * 16 / 116) < 1e-6, "T %g with 10 chains", t);
  ck_assert(ppt_hwspec_window_chains(&hw, path, ops, 0) == 0);
  hw.fp_chains = 0;
  /* no window, no chain, no time: 0 */
  hw.fp_window = 0;
  ck_assert(ppt_hwspec_window_cycles(&hw, path, ops) == 0);
  hw.fp_window = 100;
  double none[PPT_HW_NOPCLASS] = {0};
  ck_assert(ppt_hwspec_window_cycles(&hw, none, ops) == 0);
  ck_assert(ppt_hwspec_window_size(&hw, path, ops, 0) == 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cpu_model");
  TCase *tc = tcase_create("cpu_model");
  tcase_add_test(tc, thread_speed);
  tcase_add_test(tc, fp_window_relation);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
