/* test_calib_time.c — calibrate's timing statistic: the fastest or the median trial.
 *
 * Oracles: brute force over the same numbers (a value is the median when as many trials
 * lie below it as above), and, end to end, a kernel whose trials last known multiples
 * of a busy-wait unit, so calib_measure's answer is known before it runs; and a kernel
 * whose time per unit is twice its reference's under any load, so calib_measure_vs must
 * answer 2. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "calib/calib_impl.h"

/* The median by counting: the value with at most half the others strictly below and at
 * most half strictly above; for an even count the mean of the two middle ones, found the
 * same way on (n-1)/2 and n/2 smaller values. */
static double brute_rank(const double *v, size_t n, size_t rank) {
  for (size_t i = 0; i < n; i++) {
    size_t below = 0, equal = 0;
    for (size_t j = 0; j < n; j++) {
      if (v[j] < v[i]) below++;
      if (v[j] == v[i]) equal++;
    }
    if (below <= rank && rank < below + equal) return v[i];
  }
  return NAN;
}

static double brute_median(const double *v, size_t n) {
  return 0.5 * (brute_rank(v, n, (n - 1) / 2) + brute_rank(v, n, n / 2));
}

START_TEST(statistic_matches_brute_force) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
  gsl_rng_set(r, 11);
  calib_timing best = {0.001, 1, 0}, typical = {0.001, 1, 1};
  for (size_t n = 1; n <= 42; n++) {
    double v[42], w[42];
    double lo = INFINITY;
    for (size_t i = 0; i < n; i++) {
      /* Ties on purpose: trial times repeat when a clock is coarse. */
      v[i] = (double)(1 + gsl_rng_uniform_int(r, 20)) * 1e-3;
      if (v[i] < lo) lo = v[i];
      w[i] = v[i];
    }
    double med = brute_median(v, n);
    ck_assert_double_eq(calib_statistic(w, n, &best), lo);
    ck_assert_double_eq_tol(calib_statistic(w, n, &typical), med, 1e-15);
  }
  double none[1] = {1.0};
  ck_assert_double_eq(calib_statistic(none, 0, &typical), 0);
  gsl_rng_free(r);
}
END_TEST

START_TEST(rounds_combine) {
  calib_timing best = {0.001, 1, 0}, typical = {0.001, 1, 1};
  ck_assert_double_eq(calib_rounds(3.0, 2.0, &best), 2.0);
  ck_assert_double_eq(calib_rounds(3.0, 2.0, &typical), 2.5);
  /* A failed round (0 or NaN) yields the other, whatever the statistic. */
  ck_assert_double_eq(calib_rounds(0.0, 2.0, &typical), 2.0);
  ck_assert_double_eq(calib_rounds(NAN, 2.0, &best), 2.0);
  ck_assert_double_eq(calib_rounds(3.0, 0.0, &typical), 3.0);
}
END_TEST

/* Each call busy-waits n units times the factor of its call number, and records both. */
#define UNIT_S 2e-6
static const double k_factors[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
#define NF (sizeof k_factors / sizeof k_factors[0])
typedef struct spin_arg {
  size_t calls;
  double factor[256];
} spin_arg;

static void k_spin(void *arg, uint64_t n) {
  spin_arg *a = arg;
  double f = k_factors[a->calls % NF];
  if (a->calls < 256) a->factor[a->calls] = f;
  a->calls++;
  double end = calib_now() + (double)n * UNIT_S * f;
  while (calib_now() < end) {
  }
}

/* The trials are the last t->trials calls (the last sizing run is the first of them).
 * Returns whether calib_measure's answer is the statistic of the factors it ran. */
static int measure_once(int typical, double *got, double *want) {
  calib_timing t = {0.002, 9, typical};
  spin_arg a = {0};
  *got = calib_measure(k_spin, &a, 1, &t);
  ck_assert_uint_le(a.calls, 256);
  ck_assert_uint_ge(a.calls, 9);
  const double *f = &a.factor[a.calls - 9];
  double lo = INFINITY;
  for (int i = 0; i < 9; i++)
    if (f[i] < lo) lo = f[i];
  *want = (typical ? brute_median(f, 9) : lo) * UNIT_S;
  /* Busy-waiting only ever overshoots, by a clock read or a preemption; the median
   * shrugs off a preempted trial, the minimum is the shortest one. */
  return *got >= *want * 0.999 && *got <= *want * 1.25;
}

/* On a loaded 2-CPU host the one or two fastest trials can all be preempted; a wrong
 * statistic misses every time, so three tries tell the two apart. */
static void check_measure(int typical) {
  double got = 0, want = 0;
  int ok = 0;
  for (int attempt = 0; attempt < 3 && !ok; attempt++) ok = measure_once(typical, &got, &want);
  ck_assert_msg(ok, "%s: %g s per unit, want %g", typical ? "median" : "best", got, want);
}

START_TEST(measure_keeps_the_statistic) {
  check_measure(0);
  check_measure(1);
}
END_TEST

/* A load that changes from pair to pair: once both kernels have run under a slowdown
 * factor, the next call of either picks the next one, so each back-to-back pair (in
 * either order) runs under one factor. The kernel does twice the reference's work per
 * unit. Measured apart, the two would see different slowdowns; paired, each ratio is 2
 * and so is the answer, however the factors fall. */
typedef struct paired_load {
  size_t pairs;
  double slow;
  int ran_ref, ran_k;
} paired_load;

static double paired_factor(paired_load *l, int is_ref) {
  if (l->ran_ref && l->ran_k) {
    l->slow = k_factors[l->pairs++ % NF];
    l->ran_ref = l->ran_k = 0;
  }
  if (is_ref)
    l->ran_ref = 1;
  else
    l->ran_k = 1;
  return l->slow;
}

static void k_ref_spin(void *arg, uint64_t n) {
  double end = calib_now() + (double)n * UNIT_S * paired_factor(arg, 1);
  while (calib_now() < end) {
  }
}

static void k_double_spin(void *arg, uint64_t n) {
  double end = calib_now() + (double)n * UNIT_S * 2 * paired_factor(arg, 0);
  while (calib_now() < end) {
  }
}

START_TEST(measure_vs_pairs_the_trials) {
  for (int typical = 0; typical <= 1; typical++) {
    /* Busy-waiting only overshoots, when the machine preempts a spin; on a loaded
     * 2-CPU host both factor-1 kernel trials can be hit, and best-of then reads 4. A
     * wrong pairing or statistic misses 2 every time, so three tries tell them apart. */
    double got = 0;
    for (int attempt = 0; attempt < 3 && !(got > 1.9 && got < 2.1); attempt++) {
      paired_load l = {0, 1, 0, 0};
      calib_timing t = {0.002, 9, typical};
      got = calib_measure_vs(k_double_spin, &l, 1, k_ref_spin, &l, 1, &t);
    }
    ck_assert_msg(got > 1.9 && got < 2.1, "%s: ratio %g, want 2", typical ? "median" : "best", got);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("calib_time");
  TCase *c = tcase_create("statistic");
  tcase_add_test(c, statistic_matches_brute_force);
  tcase_add_test(c, rounds_combine);
  tcase_add_test(c, measure_keeps_the_statistic);
  tcase_add_test(c, measure_vs_pairs_the_trials);
  suite_add_tcase(s, c);
  return ppt_test_run(s);
}
