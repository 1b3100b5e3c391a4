/* test_sasmm_profiles.c — reuse profiles and hit rates of mimicked cores:
 *  - the papers' concurrent examples (rd-examples.json): CRD of the interleaved stream
 *    and PRD of each core's stream, through the real reuse engine;
 *  - a kernel whose per-core working set drops below L1 as cores grow: the predicted
 *    private hit rate must rise from ~0 to ~1 (analytic), with both hit-rate models. */
#include <check.h>

#include "ppt_test.h"
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
#include "ppt/tracesim.h"

/* Distance of the last reference fed to a fresh exact engine over `lines`. */
static int64_t last_distance(const char *const *lines, size_t n) {
  ppt_reuse_opts o;
  ppt_reuse_opts_init(&o);
  ppt_reuse *r, *r2;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), 0);
  ck_assert_int_eq(ppt_reuse_new(&o, &r2, &err), 0);
  ppt_trace_rec rec[64];
  for (size_t i = 0; i < n; i++)
    rec[i] = (ppt_trace_rec){.addr = 64 * (uint64_t)(unsigned char)lines[i][0], .kind = PPT_REC_LOAD, .size = 8};
  /* The histogram of n refs minus that of the first n-1 isolates the last distance. */
  ck_assert_int_eq(ppt_reuse_feed(r, rec, n, &err), 0);
  ck_assert_int_eq(ppt_reuse_feed(r2, rec, n - 1, &err), 0);
  ck_assert_int_eq(ppt_reuse_finish(r, &err), 0);
  ck_assert_int_eq(ppt_reuse_finish(r2, &err), 0);
  int64_t d = PPT_RD_INF - 1;
  if (ppt_rdhist_infinite(ppt_reuse_hist(r)) > ppt_rdhist_infinite(ppt_reuse_hist(r2))) d = PPT_RD_INF;
  for (int64_t k = 0; k < 64 && d == PPT_RD_INF - 1; k++)
    if (ppt_rdhist_count(ppt_reuse_hist(r), k) > ppt_rdhist_count(ppt_reuse_hist(r2), k)) d = k;
  ppt_reuse_free(r);
  ppt_reuse_free(r2);
  return d;
}

static json_object *examples(void) {
  char p[1024];
  snprintf(p, sizeof p, "%s/reference/rd-examples.json", getenv("PPT_SHARED_DIR"));
  json_object *j = json_object_from_file(p);
  ck_assert_msg(j != NULL, "cannot read %s", p);
  return j;
}

/* SASMM Table 2: accesses with time steps and cores; expected CRD and PRD at some t. */
START_TEST(sasmm_table2) {
  json_object *j = examples(), *conc, *ex, *acc, *expect;
  ck_assert(json_object_object_get_ex(j, "concurrent", &conc));
  ex = json_object_array_get_idx(conc, 0);
  ck_assert(json_object_object_get_ex(ex, "accesses", &acc));
  ck_assert(json_object_object_get_ex(ex, "expect", &expect));
  size_t n = json_object_array_length(acc);
  for (size_t e = 0; e < json_object_array_length(expect); e++) {
    json_object *x = json_object_array_get_idx(expect, e), *v;
    ck_assert(json_object_object_get_ex(x, "t", &v));
    int t = json_object_get_int(v);
    const char *all[16], *own[16];
    size_t na = 0, no = 0;
    int core = 0;
    for (size_t i = 0; i < n; i++) {
      json_object *a = json_object_array_get_idx(acc, i), *tt, *cc, *ll;
      json_object_object_get_ex(a, "t", &tt);
      json_object_object_get_ex(a, "core", &cc);
      json_object_object_get_ex(a, "line", &ll);
      if (json_object_get_int(tt) == t) core = json_object_get_int(cc);
    }
    for (size_t i = 0; i < n; i++) {
      json_object *a = json_object_array_get_idx(acc, i), *tt, *cc, *ll;
      json_object_object_get_ex(a, "t", &tt);
      json_object_object_get_ex(a, "core", &cc);
      json_object_object_get_ex(a, "line", &ll);
      if (json_object_get_int(tt) > t) continue;
      all[na++] = json_object_get_string(ll);
      if (json_object_get_int(cc) == core) own[no++] = json_object_get_string(ll);
    }
    if (json_object_object_get_ex(x, "crd", &v)) ck_assert_int_eq(last_distance(all, na), json_object_get_int(v));
    if (json_object_object_get_ex(x, "prd", &v)) ck_assert_int_eq(last_distance(own, no), json_object_get_int(v));
  }
  json_object_put(j);
}
END_TEST

/* Wu & Yeung Fig. 2/3a: CRD 7 and PRD 4 for the last access; scaled PRD at 2 threads 8. */
START_TEST(wu_yeung_fig2) {
  json_object *j = examples(), *conc, *ex, *acc, *expect, *x, *v;
  ck_assert(json_object_object_get_ex(j, "concurrent", &conc));
  ex = json_object_array_get_idx(conc, 1);
  ck_assert(json_object_object_get_ex(ex, "accesses_in_order", &acc));
  ck_assert(json_object_object_get_ex(ex, "expect", &expect));
  x = json_object_array_get_idx(expect, 0);
  size_t n = json_object_array_length(acc);
  const char *all[16], *own[16];
  size_t no = 0;
  json_object *last = json_object_array_get_idx(acc, n - 1), *lc;
  json_object_object_get_ex(last, "core", &lc);
  for (size_t i = 0; i < n; i++) {
    json_object *a = json_object_array_get_idx(acc, i), *cc, *ll;
    json_object_object_get_ex(a, "core", &cc);
    json_object_object_get_ex(a, "line", &ll);
    all[i] = json_object_get_string(ll);
    if (json_object_get_int(cc) == json_object_get_int(lc)) own[no++] = all[i];
  }
  int64_t crd = last_distance(all, n), prd = last_distance(own, no);
  ck_assert(json_object_object_get_ex(x, "crd", &v));
  ck_assert_int_eq(crd, json_object_get_int(v));
  ck_assert(json_object_object_get_ex(x, "prd", &v));
  ck_assert_int_eq(prd, json_object_get_int(v));
  ck_assert(json_object_object_get_ex(x, "sprd_2_threads", &v));
  ck_assert_int_eq(2 * prd, json_object_get_int(v)); /* Wu & Yeung: sPRD = PRD x threads */
  json_object_put(j);
}
END_TEST

/* 1024 lines swept 20 times by a parallel loop, a load and a store per line, so core c's
 * share is 1024/n lines. L1 holds 128 lines: below 8 cores only the store after each
 * load hits (hit rate 1/2); from 8 cores on everything but the first sweep's loads hits
 * (1 - 1/40 = 0.975). */
static const char *k_ws =
    "volatile char a[65536] __attribute__((aligned(4096)));\n"
    "int main(void) {\n"
    "  for (int r = 0; r < 20; r++) {\n"
    "#pragma omp parallel for schedule(static)\n"
    "    for (int i = 0; i < 1024; i++) a[64 * i] += 1;\n"
    "  }\n"
    "  return 0;\n"
    "}\n";

START_TEST(working_set_drops_below_l1) {
  const char *d = e2e_dir("sasmm_ws");
  e2e_write(d, "w.c", k_ws);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp w.c -o w && $PPT trace -o w.trace -- ./w 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "w.trace");
  ppt_hwspec hw;
  ppt_err err;
  char hwp[1024];
  snprintf(hwp, sizeof hwp, "%s/hwspecs/sasmm-cachegrind.json", getenv("PPT_SOURCE_DIR"));
  ck_assert_msg(ppt_hwspec_load(hwp, &hw, &err) == 0, "%s", err.msg);
  /* Count the loop body only: the outlined function's references to the array. */
  uint32_t nbbs = ppt_trace_nbbs(t);
  uint8_t *counted = calloc(nbbs + 1, 1);
  for (uint32_t b = 1; b <= nbbs; b++) counted[b] = ppt_trace_bb_get(t, b)->flags & PPT_BB_PARALLEL ? 1 : 0;
  static const uint32_t cores[] = {1, 2, 4, 8, 16};
  double sdcm[5], sim[5];
  for (int i = 0; i < 5; i++) {
    ppt_sasmm_opts o;
    ppt_sasmm_opts_default(&o);
    o.ncores = cores[i];
    ppt_reuse_opts ro;
    ppt_reuse_opts_init(&ro);
    ppt_sasmm_profiles p;
    ck_assert_msg(ppt_sasmm_measure(t, &o, &ro, counted, &p, &err) == 0, "%s", err.msg);
    ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
    ck_assert_msg(ppt_sasmm_hitrates(&hw, &p, rates, NULL, &err) == 0, "%s", err.msg);
    sdcm[i] = rates[0].hit_rate;
    ppt_sasmm_profiles_free(&p);
    ppt_tracesim_result r;
    ck_assert_msg(ppt_sasmm_simulate(t, &o, &hw, counted, &r, NULL, &err) == 0, "%s", err.msg);
    sim[i] = r.levels[0].ref_hit_rate;
  }
  /* The outlined function's few stack references count too: allow a little slack. */
  for (int i = 0; i < 3; i++) ck_assert_msg(fabs(sim[i] - 0.5) < 0.02, "sim %u cores: %f", cores[i], sim[i]);
  /* 8 cores fill L1 exactly (the stack lines then evict some); 16 cores use half of it. */
  ck_assert_msg(sim[3] > 0.6, "sim 8 cores: %f", sim[3]);
  ck_assert_msg(fabs(sim[4] - 0.975) < 0.02, "sim 16 cores: %f", sim[4]);
  for (int i = 0; i < 2; i++) ck_assert_msg(fabs(sdcm[i] - 0.5) < 0.02, "sdcm %u cores: %f", cores[i], sdcm[i]);
  /* SDCM at 16 cores: loads at D = 63 in a 128-block 8-way cache hit with F(7; 63, 1/16). */
  ck_assert_msg(sdcm[4] > 0.95, "sdcm 16 cores: %f", sdcm[4]);
  for (int i = 1; i < 5; i++) {
    ck_assert_msg(sdcm[i] >= sdcm[i - 1] - 1e-9, "sdcm not rising at %u cores", cores[i]);
    ck_assert_msg(sim[i] >= sim[i - 1] - 1e-9, "sim not rising at %u cores", cores[i]);
  }
  free(counted);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sasmm_profiles");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, sasmm_table2);
  tcase_add_test(tc, wu_yeung_fig2);
  tcase_add_test(tc, working_set_drops_below_l1);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
