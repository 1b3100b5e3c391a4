/* test_sasmm_idle.c — a mimicked core that runs nothing (a program without a parallel
 * loop, at 2 cores) has an empty PRD: it has no hit rate, and the other cores' rates and
 * the global ones must still come out (models/cache/sasmm_rates.c), not "sdcm: profile is
 * empty":
 *  - unit: hand-made profiles of 2 cores, the second empty: its per-core rates are NaN,
 *    the first core's and the global ones are those of its histogram;
 *  - end to end: `ppt sasmm --model sdcm --cores 1,2` on a serial program succeeds, the
 *    idle core's per-core rates are null in the JSON and the 2-core rates equal the
 *    1-core ones. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/hwspec.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt_test.h"

static const char *k_hw =
    "{\"name\": \"idle\", \"cores\": 2, \"levels\": [\n"
    " {\"name\": \"L1\", \"size\": 8192, \"assoc\": 8, \"line\": 64, \"shared_by\": 1},\n"
    " {\"name\": \"L2\", \"size\": 131072, \"assoc\": 16, \"line\": 64, \"shared_by\": 2}]}\n";

static const char *k_serial =
    "__attribute__((noinline)) int work(volatile char *a, int n) {\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < 10; k++)\n"
    "    for (int i = 0; i < n; i++) s += a[64 * i];\n"
    "  return s;\n"
    "}\n"
    "static char buf[64 * 512];\n"
    "int main(void) { return work(buf, 512) & 1; }\n";

START_TEST(idle_core_unit) {
  const char *d = e2e_dir("sasmm_idle_unit");
  e2e_write(d, "hw.json", k_hw);
  char path[1024];
  snprintf(path, sizeof path, "%s/hw.json", d);
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(path, &hw, &err) == 0, "%s", err.msg);
  ppt_sasmm_profiles p = {.ncores = 2};
  p.prd = calloc(2, sizeof *p.prd);
  for (int c = 0; c < 2; c++) p.prd[c] = ppt_rdhist_new(64);
  p.prd_all = ppt_rdhist_new(64);
  p.crd = ppt_rdhist_new(64);
  ppt_rdhist *fill[3] = {p.prd[0], p.prd_all, p.crd};
  for (int i = 0; i < 3; i++) { /* 100 first touches, 900 reuses at distance 99 */
    ppt_rdhist_add(fill[i], PPT_RD_INF, 100);
    ppt_rdhist_add(fill[i], 99, 900);
  }
  ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
  double per_core[2 * 2];
  ck_assert_msg(ppt_sdcm_sasmm_hitrates(&hw, &p, rates, per_core, &err) == 0, "%s", err.msg);
  ck_assert_double_eq_tol(per_core[0], rates[0].hit_rate, 1e-12);
  ck_assert_double_eq_tol(per_core[1], rates[1].hit_rate, 1e-12);
  ck_assert(isnan(per_core[2]) && isnan(per_core[3]));
  ck_assert_double_eq_tol(rates[1].hit_rate, 0.9, 1e-12); /* 99 < 2048 lines of L2 */
  ppt_sasmm_profiles_free(&p);
}
END_TEST

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
  return v;
}

START_TEST(idle_core_end_to_end) {
  const char *d = e2e_dir("sasmm_idle");
  e2e_write(d, "hw.json", k_hw);
  e2e_write(d, "s.c", k_serial);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O1 s.c -o s && $PPT trace -o s.trace -- ./s 2>/dev/null"
                          " && $PPT sasmm s.trace --hw hw.json --model sdcm --cores 1,2 --json >o.json"
                          " 2>o.err && test ! -s o.err"),
                   0);
  char path[1024];
  snprintf(path, sizeof path, "%s/o.json", d);
  json_object *o = json_object_from_file(path);
  ck_assert(o != NULL);
  json_object *cores = get(o, "cores");
  ck_assert_uint_eq(json_object_array_length(cores), 2);
  json_object *one = get(json_object_array_get_idx(cores, 0), "levels");
  json_object *two = get(json_object_array_get_idx(cores, 1), "levels");
  for (size_t k = 0; k < 2; k++) {
    json_object *l1 = json_object_array_get_idx(one, k), *l2 = json_object_array_get_idx(two, k);
    ck_assert_double_eq_tol(json_object_get_double(get(l2, "hit_rate")),
                            json_object_get_double(get(l1, "hit_rate")), 1e-12);
    if (k) continue; /* per-core rates: private levels only */
    json_object *pc = get(l2, "per_core");
    ck_assert_uint_eq(json_object_array_length(pc), 2);
    ck_assert(json_object_array_get_idx(pc, 0) != NULL);
    ck_assert(json_object_array_get_idx(pc, 1) == NULL); /* the idle core: no references */
  }
  json_object_put(o);
  ck_assert_int_eq(e2e_sh(d, "$PPT sasmm s.trace --hw hw.json --model sdcm --cores 2 >o.txt"), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("sasmm_idle");
  TCase *tc = tcase_create("idle");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, idle_core_unit);
  tcase_add_test(tc, idle_core_end_to_end);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
