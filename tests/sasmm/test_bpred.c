/* test_bpred.c — the branch predictor model (progmodel/bpred.h) on block sequences whose
 * mispredictions can be counted by hand, and on a seeded random branch. */
#include "progmodel/bpred.h"

#include <gsl/gsl_rng.h>

#include "../ppt_test.h"

/* A loop: block 1 (the body, ending in the branch) goes back to itself trip−1 times,
 * then to block 2 (the exit, which jumps back to the loop: a new instance). Every miss
 * is block 1's, a self-looping block's: PPT_BPRED_LOOP_MISS (block 2's branch always
 * goes to 1 and is never missed after its first sighting). */
static int run_loops(progmodel_bpred *p, const int *trips, int nloops) {
  int missed = 0, m;
  for (int l = 0; l < nloops; l++) {
    for (int i = 0; i <= trips[l]; i++) {
      m = progmodel_bpred_enter(p, 0, i < trips[l] ? 1 : 2, 1);
      ck_assert(m == 0 || m == PPT_BPRED_LOOP_MISS);
      missed += m != 0;
    }
  }
  return missed;
}

/* Trip counts that keep changing: the bimodal part keeps predicting the back edge, so
 * every exit is missed once, the first one too (block 1's entry was trained by the
 * first 1 -> 1; the first sighting of 2 -> 1 only trains, and it is always right after):
 * 10 loops, 10 misses. The loop part never confirms (no two runs alike). */
START_TEST(varying_trip_counts_miss_each_exit) {
  progmodel_bpred *p = progmodel_bpred_new(1, 4);
  ck_assert_ptr_nonnull(p);
  const int trips[] = {5, 7, 9, 11, 13, 15, 17, 19, 21, 23};
  ck_assert_int_eq(run_loops(p, trips, 10), 10);
  progmodel_bpred_free(p);
}
END_TEST

/* A counted loop with a constant trip count: once two runs had the same length the loop
 * predictor calls the exit. Runs of the back edge (1 -> 1 seen as predicted): loop 1
 * has 6 (its first 1 -> 1 only trains), later loops 7. Loop 1's and loop 2's exits are
 * missed (no two equal runs yet); at loop 3's exit the runs 7, 7 agree, but the
 * prediction was made before that, so it is missed too; from loop 4 on the exit is
 * called: 3 misses in 20 loops. */
START_TEST(constant_trip_count_is_learnt) {
  progmodel_bpred *p = progmodel_bpred_new(1, 4);
  int trips[20];
  for (int i = 0; i < 20; i++) trips[i] = 8;
  ck_assert_int_eq(run_loops(p, trips, 20), 3);
  progmodel_bpred_free(p);
}
END_TEST

/* Blocks that end without a branch (a return) are not judged; threads are separate. */
START_TEST(unjudged_and_threads) {
  progmodel_bpred *p = progmodel_bpred_new(2, 8);
  int missed = 0;
  for (int i = 0; i < 100; i++) missed += progmodel_bpred_enter(p, 0, (uint32_t)(1 + i % 7), 0);
  ck_assert_int_eq(missed, 0);
  ck_assert_uint_eq(progmodel_bpred_current(p, 0), 1 + 99 % 7);
  ck_assert_uint_eq(progmodel_bpred_current(p, 1), 0);
  ck_assert_int_eq(progmodel_bpred_enter(p, 1, 9, 1), 0); /* out of range: ignored */
  ck_assert_int_eq(progmodel_bpred_enter(p, 5, 1, 1), 0); /* no such thread */
  progmodel_bpred_free(p);
}
END_TEST

/* A 50/50 branch on random data (seeded): a predictor with a target and hysteresis misses
 * about half of them. 20000 branches: the count of misses is binomial-like around 10000;
 * the bounds are wide (the exact figure depends on the seed's run lengths) but exclude
 * both a perfect predictor and one that always misses. */
START_TEST(random_branch_missed_half_the_time) {
  progmodel_bpred *p = progmodel_bpred_new(1, 4);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 42);
  int missed = 0;
  for (int i = 0; i < 20000; i++) {
    progmodel_bpred_enter(p, 0, 1, 1);
    int m = progmodel_bpred_enter(p, 0, gsl_rng_uniform(r) < 0.5 ? 2 : 3, 1);
    ck_assert(m == 0 || m == PPT_BPRED_MISS); /* a branch on data, not a loop's */
    missed += m != 0;
  }
  ck_assert_msg(missed > 8000 && missed < 12000, "missed %d of 20000", missed);
  gsl_rng_free(r);
  progmodel_bpred_free(p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("bpred");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, varying_trip_counts_miss_each_exit);
  tcase_add_test(tc, constant_trip_count_is_learnt);
  tcase_add_test(tc, unjudged_and_threads);
  tcase_add_test(tc, random_branch_missed_half_the_time);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
