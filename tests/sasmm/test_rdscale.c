/* test_rdscale.c — many cores from few (ppt/rdscale.h; Wu & Yeung, ACM TOCS 2013):
 *  - a pure coherent shift (every distance doubles per doubling of the cores) is
 *    recovered exactly at 32 cores by reference groups (§4.1.1), for CRD (dilation) and
 *    PRD (contraction), with the paper's 200,000 groups and with 10; a profile that does
 *    not move stays where it is;
 *  - a shift of 1.5x per doubling gets k = 0.58/0.59 and predictions whose mean distance
 *    grows (CRD) or falls (PRD) with the core count, totals kept, first touches growing
 *    by log2 (§4.1.3);
 *  - Eq. 1 on a hand-worked example, in exact and in the paper's bins;
 *  - C_core (§5.1) and C_share (§5.2) on hand-worked profiles;
 *  - `ppt sasmm --model sdcm --scale-from 2,4` end to end: which counts are predicted,
 *    C_core/C_share in the JSON, the predicted hit rates near the mimicked ones, usage
 *    errors. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/rdscale.h"
#include "ppt/reuse.h"

typedef struct bin {
  int64_t d;
  double c;
} bin;

static ppt_rdhist *hist(const bin *b, size_t n, double inf) {
  ppt_rdhist *h = ppt_rdhist_new(64);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(ppt_rdhist_add(h, b[i].d, b[i].c), 0);
  if (inf > 0) ck_assert_int_eq(ppt_rdhist_add(h, PPT_RD_INF, inf), 0);
  return h;
}

/* Every bin of `want` in `got` within 1e-9 relative, and nothing else. */
static void assert_same(const ppt_rdhist *got, const ppt_rdhist *want) {
  ck_assert_double_eq_tol(ppt_rdhist_total(got), ppt_rdhist_total(want), 1e-6);
  ck_assert_double_eq_tol(ppt_rdhist_infinite(got), ppt_rdhist_infinite(want), 1e-6);
  ck_assert_uint_eq(ppt_rdhist_nbins(got), ppt_rdhist_nbins(want));
  for (int64_t d = 0; d <= ppt_rdhist_max(want); d++)
    ck_assert_double_eq_tol(ppt_rdhist_count(got, d), ppt_rdhist_count(want, d), 1e-6);
}

static const bin base[] = {{0, 1000}, {3, 500}, {10, 2000}, {50, 700}, {200, 300}};
#define NB (sizeof base / sizeof *base)

static ppt_rdhist *scaled(double f, double inf) {
  bin b[NB];
  for (size_t i = 0; i < NB; i++) b[i] = (bin){(int64_t)(base[i].d * f), base[i].c};
  return hist(b, NB, inf);
}

START_TEST(pure_shift_recovered) {
  ppt_rdscale_opts o;
  ppt_rdscale_opts_default(&o);
  for (int pass = 0; pass < 2; pass++) {
    if (pass) o.groups = 10;
    /* CRD: 2 cores = base, 4 cores = 2 x base: 32 cores = 16 x base */
    ppt_rdhist *a = scaled(1, 100), *b = scaled(2, 100), *want = scaled(16, 100), *got;
    ppt_err err;
    ck_assert_int_eq(ppt_rdscale_predict(a, 2, b, 4, 32, PPT_RDSCALE_CRD, &o, &got, &err), 0);
    assert_same(got, want);
    /* the groups wholly at distance 0 do not shift: 1000 of 4500 refs, or 2 of 10 groups */
    ck_assert_double_eq_tol(ppt_rdscale_mean_rate(a, 2, b, 4, PPT_RDSCALE_CRD, &o),
                            pass ? 0.8 : 1.0 - 1000.0 / 4500, 1e-9);
    ck_assert_double_eq_tol(ppt_rdscale_accuracy(got, want, PPT_RDSCALE_BINS_EXACT), 1.0, 1e-12);
    ppt_rdhist_free(got);
    /* PRD: 2 cores = 16 x base, 4 cores = 8 x base: 32 cores = base */
    ppt_rdhist *pa = scaled(16, 100), *pb = scaled(8, 100);
    ck_assert_int_eq(ppt_rdscale_predict(pa, 2, pb, 4, 32, PPT_RDSCALE_PRD, &o, &got, &err), 0);
    assert_same(got, a);
    ppt_rdhist_free(got);
    /* a profile that does not move stays */
    ck_assert_int_eq(ppt_rdscale_predict(b, 2, b, 4, 64, PPT_RDSCALE_CRD, &o, &got, &err), 0);
    assert_same(got, b);
    ppt_rdhist_free(got);
    /* and a CRD that contracts is not allowed to: k = 0, it stays */
    ck_assert_int_eq(ppt_rdscale_predict(pa, 2, pb, 4, 64, PPT_RDSCALE_CRD, &o, &got, &err), 0);
    assert_same(got, pb);
    ppt_rdhist_free(got);
    ppt_rdhist_free(a), ppt_rdhist_free(b), ppt_rdhist_free(want), ppt_rdhist_free(pa), ppt_rdhist_free(pb);
  }
}
END_TEST

START_TEST(partial_shift_shape) {
  bin a1[] = {{100, 1000}, {400, 3000}, {1600, 2000}}, b1[] = {{150, 1000}, {600, 3000}, {2400, 2000}};
  ppt_rdhist *a = hist(a1, 3, 100), *b = hist(b1, 3, 150);
  ppt_rdscale_opts o;
  ppt_rdscale_opts_default(&o);
  double k = ppt_rdscale_mean_rate(a, 2, b, 4, PPT_RDSCALE_CRD, &o);
  ck_assert_double_eq_tol(k, 0.58, 0.0001 + 1e-9); /* log2(1.5) = 0.585 -> the closest of 0.58, 0.59 */
  double prev = ppt_rdhist_mean(b), prevp = ppt_rdhist_mean(b);
  ppt_err err;
  for (uint32_t p = 8, i = 1; p <= 256; p *= 2, i++) {
    ppt_rdhist *c, *q;
    ck_assert_int_eq(ppt_rdscale_predict(a, 2, b, 4, p, PPT_RDSCALE_CRD, &o, &c, &err), 0);
    ck_assert_int_eq(ppt_rdscale_predict(b, 2, a, 4, p, PPT_RDSCALE_PRD, &o, &q, &err), 0);
    ck_assert_double_eq_tol(ppt_rdhist_total(c), ppt_rdhist_total(b), 1e-6);
    ck_assert_double_eq_tol(ppt_rdhist_infinite(c), 150 + 50.0 * i, 1e-9); /* §4.1.3 */
    ck_assert_double_eq_tol(ppt_rdhist_infinite(q), 100 - 50.0 * i < 0 ? 0 : 100 - 50.0 * i, 1e-9);
    /* every group moves by 2^(0.58 i), i = log2(p/4); splits between integers keep the mean */
    ck_assert_double_eq_tol(ppt_rdhist_mean(c), 1125 * pow(2, 0.58 * i), 1e-6 * ppt_rdhist_mean(c));
    ck_assert_double_eq_tol(ppt_rdhist_mean(q), 750 * pow(2, -0.58 * i), 1e-6 * ppt_rdhist_mean(q));
    ck_assert(ppt_rdhist_mean(c) > prev);
    ck_assert(ppt_rdhist_mean(q) < prevp || ppt_rdhist_total(q) - ppt_rdhist_infinite(q) == 0);
    prev = ppt_rdhist_mean(c);
    prevp = ppt_rdhist_mean(q);
    ppt_rdhist_free(c);
    ppt_rdhist_free(q);
  }
  /* bad arguments */
  ppt_rdhist *x;
  ck_assert_int_eq(ppt_rdscale_predict(a, 4, b, 4, 8, PPT_RDSCALE_CRD, &o, &x, &err), PPT_EINPUT);
  ppt_rdhist_free(a);
  ppt_rdhist_free(b);
}
END_TEST

START_TEST(eq1_hand_worked) {
  /* pred {0:50, 1:30, 5:20}, measured {0:40, 1:40, 6:20}: per distance |10|+|10|+|20|+|20|
   * = 60 of 100 -> 1 - 60/200 = 0.7; in the paper's bins 5 and 6 share [4, 8): 0.9. */
  bin p[] = {{0, 50}, {1, 30}, {5, 20}}, m[] = {{0, 40}, {1, 40}, {6, 20}};
  ppt_rdhist *hp = hist(p, 3, 77), *hm = hist(m, 3, 0); /* infinity is not compared */
  ck_assert_double_eq_tol(ppt_rdscale_accuracy(hp, hm, PPT_RDSCALE_BINS_EXACT), 0.7, 1e-12);
  ck_assert_double_eq_tol(ppt_rdscale_accuracy(hp, hm, PPT_RDSCALE_BINS_PAPER), 0.9, 1e-12);
  ck_assert_double_eq_tol(ppt_rdscale_accuracy(hm, hm, PPT_RDSCALE_BINS_EXACT), 1.0, 1e-12);
  /* beyond 128 KiB (2048 lines) the bins are 2048 lines wide: 2048 and 4095 share one */
  bin far1[] = {{2048, 10}}, far2[] = {{4095, 10}}, far3[] = {{4096, 10}};
  ppt_rdhist *f1 = hist(far1, 1, 0), *f2 = hist(far2, 1, 0), *f3 = hist(far3, 1, 0);
  ck_assert_double_eq_tol(ppt_rdscale_accuracy(f1, f2, PPT_RDSCALE_BINS_PAPER), 1.0, 1e-12);
  ck_assert_double_eq_tol(ppt_rdscale_accuracy(f2, f3, PPT_RDSCALE_BINS_PAPER), 0.0, 1e-12);
  ppt_rdhist_free(hp), ppt_rdhist_free(hm), ppt_rdhist_free(f1), ppt_rdhist_free(f2), ppt_rdhist_free(f3);
}
END_TEST

START_TEST(c_core_c_share) {
  /* C_core: 1 core {10, 1000}, P cores {40, 1000} (1000 refs each, 10 first touches).
   * Cmax/2 = 500: dM = 1 there; going down, at 40 dM = 2010/1010 >= 1.5: C_core = 40. */
  bin b1[] = {{10, 1000}, {1000, 1000}}, bp[] = {{40, 1000}, {1000, 1000}};
  ppt_rdhist *one = hist(b1, 2, 10), *many = hist(bp, 2, 10);
  double c;
  ck_assert_int_eq(ppt_rdscale_c_core(many, one, &c), 0);
  ck_assert_double_eq(c, 40);
  ck_assert_int_eq(ppt_rdscale_c_core(one, one, &c), 0);
  ck_assert_double_eq(c, 0);
  /* C_share, p = 4: CRD {5:100, 100:900}, PRD {1:100, 50:900} (sPRD {4, 200}): the
   * CRD-based misses fall to 0 at 101 while the sPRD ones stay 900 until 200. */
  bin cr[] = {{5, 100}, {100, 900}}, pr[] = {{1, 100}, {50, 900}}, same[] = {{1, 100}, {25, 900}};
  ppt_rdhist *crd = hist(cr, 2, 0), *prd = hist(pr, 2, 0), *prd2 = hist(same, 2, 0);
  ck_assert_int_eq(ppt_rdscale_c_share(crd, prd, 4, &c), 0);
  ck_assert_double_eq(c, 101);
  ppt_rdhist *crd2 = hist((bin[]){{4, 100}, {100, 900}}, 2, 0); /* = sPRD of prd2 */
  ck_assert_int_eq(ppt_rdscale_c_share(crd2, prd2, 4, &c), 0);
  ck_assert(isinf(c));
  ppt_rdhist_free(one), ppt_rdhist_free(many), ppt_rdhist_free(crd), ppt_rdhist_free(prd);
  ppt_rdhist_free(prd2), ppt_rdhist_free(crd2);
}
END_TEST

/* Time steps over an array split between the threads: private reuse across steps at
 * distance (array / cores), shared reuse dilated by the interleaving. */
static const char *k_steps =
    "#include <stdlib.h>\n"
    "#define N 24576\n"
    "int main(void) {\n"
    "  double *a = calloc(N, sizeof *a);\n"
    "  for (int t = 0; t < 12; t++) {\n"
    "#pragma omp parallel for schedule(static)\n"
    "    for (int i = 1; i < N - 1; i++) a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);\n"
    "  }\n"
    "  return (int)a[7];\n"
    "}\n";

static json_object *level(json_object *cores, size_t i, int k) {
  json_object *e = json_object_array_get_idx(cores, i), *lv;
  ck_assert(json_object_object_get_ex(e, "levels", &lv));
  return json_object_array_get_idx(lv, k);
}

static double rate(json_object *l) {
  json_object *v;
  ck_assert(json_object_object_get_ex(l, "hit_rate", &v));
  return json_object_get_double(v);
}

START_TEST(cli_scale_from) {
  const char *d = e2e_dir("rdscale_cli");
  e2e_write(d, "s.c", k_steps);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp s.c -o s && $PPT trace -o s.trace -- ./s >/dev/null 2>&1"),
                   0);
  char base[1200];
  snprintf(base, sizeof base, "$PPT sasmm s.trace --hw %s/hwspecs/sasmm-cachegrind.json --model sdcm",
           getenv("PPT_SOURCE_DIR"));
  ck_assert_int_eq(e2e_sh(d, "%s --cores 1,8,16 --scale-from 2,4 --json > p.json 2>/dev/null", base), 0);
  ck_assert_int_eq(e2e_sh(d, "%s --cores 1,2,4,8,16 --json > m.json 2>/dev/null", base), 0);
  ck_assert_int_eq(e2e_sh(d, "%s --cores 1,64 --scale-from 2,4 > p.txt 2>/dev/null", base), 0);
  ck_assert_int_eq(e2e_sh(d, "grep -q '^64   \\*' p.txt && grep -q 'predicted from the 2- and 4-core' p.txt"),
                   0);
  char path[1100];
  snprintf(path, sizeof path, "%s/p.json", d);
  json_object *p = json_object_from_file(path), *pc, *mc, *v;
  snprintf(path, sizeof path, "%s/m.json", d);
  json_object *m = json_object_from_file(path);
  ck_assert(p && m && json_object_object_get_ex(p, "cores", &pc) &&
            json_object_object_get_ex(m, "cores", &mc));
  /* 2 and 4 are mimicked (added first), then 1; 8 and 16 predicted */
  static const int order[] = {2, 4, 1, 8, 16};
  ck_assert_uint_eq(json_object_array_length(pc), 5);
  for (size_t i = 0; i < 5; i++) {
    json_object *e = json_object_array_get_idx(pc, i);
    ck_assert(json_object_object_get_ex(e, "n", &v));
    ck_assert_int_eq(json_object_get_int(v), order[i]);
    ck_assert(json_object_object_get_ex(e, "predicted", &v));
    ck_assert_int_eq(json_object_get_boolean(v), order[i] > 4);
    ck_assert(json_object_object_get_ex(e, "c_share_bytes", &v));
    ck_assert(json_object_object_get_ex(e, "c_core_bytes", &v));
    ck_assert(order[i] == 1 || json_object_get_type(v) == json_type_double);
  }
  /* the mimicked counts agree with a plain run; the predicted ones are near the mimic */
  static const size_t in_m[] = {1, 2, 0, 3, 4};
  for (size_t i = 0; i < 5; i++)
    for (int k = 0; k < 2; k++) {
      double rp = rate(level(pc, i, k)), rm = rate(level(mc, in_m[i], k));
      if (order[i] <= 4)
        ck_assert_double_eq_tol(rp, rm, 1e-12);
      else
        ck_assert_msg(fabs(rp - rm) < 0.05, "n=%d level %d: predicted %.4f, mimicked %.4f", order[i], k, rp,
                      rm);
    }
  json_object_put(p);
  json_object_put(m);
  /* usage errors: one line, exit 2 */
  ck_assert_int_eq(e2e_sh(d, "%s --cores 8 --scale-from 4,2 2> e1.txt", base), 2);
  ck_assert_int_eq(
      e2e_sh(d,
             "$PPT sasmm s.trace --hw %s/hwspecs/sasmm-cachegrind.json --cores 8 --scale-from 2,4 "
             "2> e2.txt",
             getenv("PPT_SOURCE_DIR")),
      2);
  ck_assert_int_eq(
      e2e_sh(d, "test $(wc -l < e1.txt) = 1 && test $(wc -l < e2.txt) = 1 && grep -q 'model sdcm' e2.txt"),
      0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rdscale");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, pure_shift_recovered);
  tcase_add_test(tc, partial_shift_shape);
  tcase_add_test(tc, eq1_hand_worked);
  tcase_add_test(tc, c_core_c_share);
  tcase_add_test(tc, cli_scale_from);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
