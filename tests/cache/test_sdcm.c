/* test_sdcm.c — SDCM hit probabilities (SASMM §3.6 Eq. 5–7) against the properties in
 * tests/data/rd-examples.json, a direct sum of binomial terms, and hand-computed
 * profile and hierarchy rates. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/sdcm.h"

/* Oracle for Eq. 5, independent of GSL: Σ_{a<A} C(D,a) p^a (1−p)^(D−a) term by term in
 * long double. log C(D,a) is summed as Σ_{j<a} log((D−j)/(j+1)), which stays accurate
 * for huge D where log-gamma differences would cancel. */
static double eq5_sum(uint64_t d, uint64_t A, uint64_t B) {
  long double p = (long double)A / (long double)B, lq = log1pl(-p), s = 0.0L, lc = 0.0L;
  long double D = (long double)d;
  for (uint64_t a = 0; a < A && a <= d; a++) {
    long double la = (long double)a;
    if (a > 0) lc += logl((D - (la - 1)) / la);
    s += expl(lc + la * logl(p) + (D - la) * lq);
  }
  return (double)s;
}

static const struct geo {
  uint64_t A, B;
} geos[] = {{1, 8}, {2, 8}, {8, 128}, {16, 2048}, {4, 4}, {128, 128}, {12, 768}, {1, 1}, {3, 96}};
#define NGEOS (sizeof geos / sizeof geos[0])

static int prop_zero(void) {
  for (size_t g = 0; g < NGEOS; g++) ck_assert(ppt_sdcm_hit_prob(0, geos[g].A, geos[g].B) == 1.0);
  return 1;
}

static int prop_below_assoc(void) {
  for (size_t g = 0; g < NGEOS; g++)
    for (uint64_t d = 0; d < geos[g].A; d++)
      ck_assert(ppt_sdcm_hit_prob(d, geos[g].A, geos[g].B) == 1.0);
  return 1;
}

static int prop_nonincreasing(void) {
  for (size_t g = 0; g < NGEOS; g++) {
    double prev = 1.0;
    for (uint64_t d = 0; d < 20000; d += 1 + d / 64) {
      double h = ppt_sdcm_hit_prob(d, geos[g].A, geos[g].B);
      ck_assert_msg(h <= prev && h >= 0.0, "A=%llu B=%llu D=%llu: %g after %g",
                    (unsigned long long)geos[g].A, (unsigned long long)geos[g].B,
                    (unsigned long long)d, h, prev);
      prev = h;
    }
  }
  return 1;
}

static int prop_fully_assoc(void) {
  static const uint64_t B[] = {1, 4, 64, 128, 1024};
  for (size_t i = 0; i < sizeof B / sizeof B[0]; i++)
    for (uint64_t d = 0; d < 3 * B[i] + 5; d++)
      ck_assert(ppt_sdcm_hit_prob(d, B[i], B[i]) == (d < B[i] ? 1.0 : 0.0));
  return 1;
}

static int prop_direct_mapped(void) {
  static const uint64_t B[] = {2, 8, 128, 4096};
  for (size_t i = 0; i < sizeof B / sizeof B[0]; i++)
    for (uint64_t d = 0; d < 50000; d += 1 + d / 16) {
      double want = pow((double)(B[i] - 1) / (double)B[i], (double)d);
      double got = ppt_sdcm_hit_prob(d, 1, B[i]);
      ck_assert_msg(fabs(got - want) <= 1e-12 + 1e-10 * want, "B=%llu D=%llu: %.17g vs %.17g",
                    (unsigned long long)B[i], (unsigned long long)d, got, want);
    }
  return 1;
}

static int prop_infinite(void) {
  for (size_t g = 0; g < NGEOS; g++)
    ck_assert(ppt_sdcm_hit_prob(PPT_SDCM_INF, geos[g].A, geos[g].B) == 0.0);
  return 1;
}

/* Each property string of the reference file is matched to the check that implements it,
 * so a property added there without a check here makes this test fail. */
START_TEST(reference_properties) {
  static const struct {
    const char *needle;
    int (*check)(void);
  } props[] = {{"P(h|0) = 1", prop_zero},
               {"D < A", prop_below_assoc},
               {"non-increasing", prop_nonincreasing},
               {"fully associative", prop_fully_assoc},
               {"direct mapped", prop_direct_mapped},
               {"infinity", prop_infinite}};
  const char *dir = getenv("PPT_TEST_DATA_DIR");
  ck_assert_msg(dir != NULL, "PPT_TEST_DATA_DIR not set (run through ctest)");
  char path[4096];
  snprintf(path, sizeof path, "%s/rd-examples.json", dir);
  json_object *root = json_object_from_file(path);
  ck_assert_msg(root != NULL, "cannot read %s", path);
  json_object *arr;
  ck_assert(json_object_object_get_ex(root, "sdcm_properties", &arr));
  size_t n = json_object_array_length(arr);
  ck_assert_uint_eq(n, 6);
  int done[6] = {0};
  for (size_t i = 0; i < n; i++) {
    const char *s = json_object_get_string(json_object_array_get_idx(arr, i));
    int matched = 0;
    for (size_t k = 0; k < 6; k++)
      if (strstr(s, props[k].needle)) {
        ck_assert(props[k].check());
        done[k]++;
        matched++;
      }
    ck_assert_msg(matched == 1, "property \"%s\" matched %d checks", s, matched);
  }
  for (size_t k = 0; k < 6; k++) ck_assert_msg(done[k] == 1, "check %zu not run", k);
  json_object_put(root);
}
END_TEST

START_TEST(eq5_against_direct_sum) {
  static const struct {
    uint64_t d, A, B;
  } cases[] = {{10, 2, 8},     {50, 4, 64},      {200, 8, 128},   {1000, 16, 2048},
               {3000, 16, 2048}, {20, 8, 16},    {17, 16, 32},    {700, 12, 768},
               {5000, 8, 1024}, {100, 3, 96}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double want = eq5_sum(cases[i].d, cases[i].A, cases[i].B);
    double got = ppt_sdcm_hit_prob(cases[i].d, cases[i].A, cases[i].B);
    ck_assert_msg(fabs(got - want) <= 1e-13 + 1e-9 * want, "D=%llu A=%llu B=%llu: %.17g vs %.17g",
                  (unsigned long long)cases[i].d, (unsigned long long)cases[i].A,
                  (unsigned long long)cases[i].B, got, want);
  }
  /* a value that is neither 0 nor 1, checked by hand: D=10, A=2, B=8, p=1/4:
   * (3/4)^10 + 10 (1/4)(3/4)^9 = 0.24402523040771484 */
  ck_assert(fabs(ppt_sdcm_hit_prob(10, 2, 8) - 0.24402523040771484) < 1e-15);
}
END_TEST

START_TEST(distances_beyond_unsigned) {
  /* D above UINT_MAX takes the beta-function path; it must agree with the direct sum and
   * join the binomial path continuously. B = 2^30 lines, A = 16: mean hits in set ~64. */
  uint64_t A = 16, B = (uint64_t)1 << 30;
  uint64_t d1 = UINT_MAX, d2 = (uint64_t)UINT_MAX + 1;
  double h1 = ppt_sdcm_hit_prob(d1, A, B), h2 = ppt_sdcm_hit_prob(d2, A, B);
  ck_assert(h2 <= h1 && h1 - h2 < 1e-12);
  uint64_t d = (uint64_t)1 << 31; /* mean 32 */
  double want = eq5_sum(d * 2 + 7, A, B);
  double got = ppt_sdcm_hit_prob(d * 2 + 7, A, B);
  ck_assert_msg(got > 1e-20 && fabs(got - want) <= 1e-9 * want, "%.17g vs %.17g", got, want);
  ck_assert(ppt_sdcm_hit_prob(UINT64_MAX - 1, A, B) == 0.0);
}
END_TEST

START_TEST(bad_geometry_is_nan) {
  ck_assert(isnan(ppt_sdcm_hit_prob(3, 0, 8)));
  ck_assert(isnan(ppt_sdcm_hit_prob(3, 9, 8)));
}
END_TEST

START_TEST(eq7_profile) {
  uint64_t d[] = {0, 3, 5, 100, PPT_SDCM_INF, 400};
  double c[] = {2, 1, 1, 1, 1, 0};
  ppt_sdcm_profile p = {d, c, 6, 1.0};
  double h;
  ppt_err err;
  ck_assert_int_eq(ppt_sdcm_hit_rate(&p, 8, 128, &h, &err), 0);
  /* D = 0, 3, 5 < A = 8 hit surely; D = 100 by Eq. 5; both ∞ (listed and separate) miss */
  double want = (2 + 1 + 1 + eq5_sum(100, 8, 128)) / 7.0;
  ck_assert_msg(fabs(h - want) < 1e-12, "%.17g vs %.17g", h, want);
  /* fully associative: exactly the weight of distances < B */
  ck_assert_int_eq(ppt_sdcm_hit_rate(&p, 64, 64, &h, &err), 0);
  ck_assert(fabs(h - 4.0 / 7.0) < 1e-15);
  /* probabilities instead of counts give the same answer */
  double pr[] = {2 / 7.0, 1 / 7.0, 1 / 7.0, 1 / 7.0, 1 / 7.0, 0};
  ppt_sdcm_profile pp = {d, pr, 6, 1 / 7.0};
  ck_assert_int_eq(ppt_sdcm_hit_rate(&pp, 64, 64, &h, &err), 0);
  ck_assert(fabs(h - 4.0 / 7.0) < 1e-15);
}
END_TEST

START_TEST(eq7_errors) {
  uint64_t d[] = {1, 2};
  double c[] = {1, -1};
  ppt_sdcm_profile p = {d, c, 2, 0};
  double h;
  ppt_err err;
  ck_assert_int_eq(ppt_sdcm_hit_rate(&p, 2, 8, &h, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "index 1"));
  double z[] = {0, 0};
  ppt_sdcm_profile e = {d, z, 2, 0};
  ck_assert_int_eq(ppt_sdcm_hit_rate(&e, 2, 8, &h, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "empty"));
  double ok[] = {1, 1};
  ppt_sdcm_profile g = {d, ok, 2, 0};
  ck_assert_int_eq(ppt_sdcm_hit_rate(&g, 9, 8, &h, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_sdcm_hit_rate(&g, 0, 8, &h, &err), PPT_EINPUT);
}
END_TEST

static double sdcm_mix(const uint64_t *d, const double *c, size_t n, double inf, uint64_t A,
                       uint64_t B) {
  double hits = 0, tot = inf;
  for (size_t i = 0; i < n; i++) {
    tot += c[i];
    hits += c[i] * (d[i] < A ? 1.0 : eq5_sum(d[i], A, B));
  }
  return hits / tot;
}

START_TEST(hierarchy_rates) {
  /* PRD profile seen by a private L1 (8-way, 128 lines), CRD seen by a shared L2 (16-way,
   * 2048 lines): global rates are each level's SDCM, local rates follow from them. */
  uint64_t d1[] = {0, 10, 200, 5000};
  double c1[] = {50, 20, 20, 10};
  uint64_t d2[] = {0, 15, 400, 9000};
  double c2[] = {45, 20, 25, 10};
  ppt_sdcm_level lv[2] = {{8, 128, {d1, c1, 4, 3}, 0}, {16, 2048, {d2, c2, 4, 3}, 0}};
  ppt_sdcm_rates r[2];
  ppt_err err;
  ck_assert_int_eq(ppt_sdcm_hierarchy(lv, 2, r, &err), 0);
  double g1 = sdcm_mix(d1, c1, 4, 3, 8, 128), g2 = sdcm_mix(d2, c2, 4, 3, 16, 2048);
  ck_assert(g2 > g1); /* the case is meant to need no clamp */
  ck_assert(fabs(r[0].hit_rate - g1) < 1e-12 && fabs(r[0].local_hit_rate - g1) < 1e-12);
  ck_assert(fabs(r[1].hit_rate - g2) < 1e-12);
  ck_assert(fabs(r[1].local_hit_rate - (g2 - g1) / (1 - g1)) < 1e-12);
  ck_assert(!r[0].clamped && !r[1].clamped);

  /* the same through a hwspec: sasmm geometry, L1 16 sets x 8, L2 128 sets x 16 */
  ppt_hwspec hw;
  memset(&hw, 0, sizeof hw);
  strcpy(hw.name, "t");
  hw.nlevels = 2;
  hw.levels[0] = (ppt_hw_level){.name = "L1", .size = 8192, .assoc = 8, .line = 64, .shared_by = 1};
  hw.levels[1] = (ppt_hw_level){.name = "L2", .size = 131072, .assoc = 16, .line = 64, .shared_by = 16};
  ppt_sdcm_profile prof[2] = {lv[0].profile, lv[1].profile};
  ppt_sdcm_rates r2[2];
  ck_assert_int_eq(ppt_sdcm_hierarchy_hw(&hw, prof, r2, &err), 0);
  ck_assert(r2[0].hit_rate == r[0].hit_rate && r2[1].hit_rate == r[1].hit_rate);

  /* a CRD profile much worse than the PRD one: raw L2 rate < L1 rate → clamped */
  double c3[] = {5, 5, 5, 5};
  lv[1].profile = (ppt_sdcm_profile){d2, c3, 4, 80};
  ck_assert_int_eq(ppt_sdcm_hierarchy(lv, 2, r, &err), 0);
  double raw = sdcm_mix(d2, c3, 4, 80, 16, 2048);
  ck_assert(raw < g1);
  ck_assert(r[1].clamped == 1 && fabs(r[1].raw_hit_rate - raw) < 1e-12);
  ck_assert(r[1].hit_rate == r[0].hit_rate && r[1].local_hit_rate == 0.0);

  /* everything hits L1: nothing reaches L2, its local rate is undefined */
  uint64_t dz[] = {0};
  double cz[] = {7};
  lv[0].profile = (ppt_sdcm_profile){dz, cz, 1, 0};
  ck_assert_int_eq(ppt_sdcm_hierarchy(lv, 2, r, &err), 0);
  ck_assert(r[0].hit_rate == 1.0 && r[1].hit_rate == 1.0 && isnan(r[1].local_hit_rate));

  /* JSON: NaN becomes null, clamped levels carry raw_hit_rate */
  const char *names[] = {"L1", "L2"};
  json_object *j = ppt_sdcm_rates_json(names, r, 2);
  ck_assert_ptr_nonnull(j);
  json_object *arr, *l2, *v;
  ck_assert(json_object_object_get_ex(j, "levels", &arr));
  ck_assert_uint_eq(json_object_array_length(arr), 2);
  l2 = json_object_array_get_idx(arr, 1);
  ck_assert(json_object_object_get_ex(l2, "local_hit_rate", &v) && v == NULL);
  ck_assert(json_object_object_get_ex(l2, "hit_rate", &v) && json_object_get_double(v) == 1.0);
  ck_assert(json_object_object_get_ex(l2, "raw_hit_rate", &v));
  ck_assert(json_object_object_get_ex(l2, "name", &v));
  ck_assert_str_eq(json_object_get_string(v), "L2");
  json_object_put(j);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sdcm");
  TCase *tc = tcase_create("sdcm");
  tcase_add_test(tc, reference_properties);
  tcase_add_test(tc, eq5_against_direct_sum);
  tcase_add_test(tc, distances_beyond_unsigned);
  tcase_add_test(tc, bad_geometry_is_nan);
  tcase_add_test(tc, eq7_profile);
  tcase_add_test(tc, eq7_errors);
  tcase_add_test(tc, hierarchy_rates);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
