/* test_sasmm_profiles.c — reuse profiles and hit rates of mimicked cores:
 *  - the papers' concurrent examples (tests/data/rd-examples.json): CRD of the
 *    interleaved stream and PRD of each core's stream, through the real reuse engine;
 *  - a kernel whose per-core working set drops below L1 as cores grow: the predicted
 *    private hit rate must rise from ~0 to ~1 (analytic), with both hit-rate models;
 *  - one simulation, many core models: ppt_progmodel_set_policy and `ppt predict
 *    --models` give exactly (==) what a build, or a `ppt predict` run, for each model
 *    gives on its own, on a program with a recurrence (whose extra depends on the
 *    compute model). */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/engine.h"
#include "ppt/hwspec.h"
#include "ppt/progmodel.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/tracesim.h"

/* Distance of the last reference fed to a fresh exact engine over `lines`. */
static int64_t last_distance(const char *const *lines, size_t n) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *r, *r2;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), 0);
  ck_assert_int_eq(ppt_reuse_new(&o, &r2, &err), 0);
  ppt_trace_rec rec[64];
  for (size_t i = 0; i < n; i++)
    rec[i] =
        (ppt_trace_rec){.addr = 64 * (uint64_t)(unsigned char)lines[i][0], .kind = PPT_REC_LOAD, .size = 8};
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
  const char *dir = getenv("PPT_TEST_DATA_DIR");
  ck_assert_msg(dir != NULL, "PPT_TEST_DATA_DIR not set (run through ctest)");
  char p[1024];
  snprintf(p, sizeof p, "%s/rd-examples.json", dir);
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
    if (json_object_object_get_ex(x, "crd", &v))
      ck_assert_int_eq(last_distance(all, na), json_object_get_int(v));
    if (json_object_object_get_ex(x, "prd", &v))
      ck_assert_int_eq(last_distance(own, no), json_object_get_int(v));
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

/* The parallel blocks' table (counted: the loop bodies, not the set-up). */
static uint8_t *parallel_blocks(const ppt_trace *t) {
  uint32_t nbbs = ppt_trace_nbbs(t);
  uint8_t *counted = calloc(nbbs + 1, 1);
  ck_assert_ptr_nonnull(counted);
  for (uint32_t b = 1; b <= nbbs; b++) counted[b] = ppt_trace_bb_get(t, b)->flags & PPT_BB_PARALLEL ? 1 : 0;
  return counted;
}

/* SDCM's rates of the mimicked profiles (exact reuse). */
static void sdcm_rates(const ppt_trace *t, const ppt_sasmm_opts *o, const uint8_t *counted,
                       const ppt_hwspec *hw, ppt_sdcm_rates *rates) {
  ppt_reuse_opts ro;
  ppt_reuse_opts_default(&ro);
  ppt_sasmm_profiles p;
  ppt_err err;
  ck_assert_msg(ppt_sasmm_measure(t, o, &ro, counted, &p, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_sdcm_sasmm_hitrates(hw, &p, rates, NULL, &err) == 0, "%s", err.msg);
  ppt_sasmm_profiles_free(&p);
}

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
  uint8_t *counted = parallel_blocks(t);
  static const uint32_t cores[] = {1, 2, 4, 8, 16};
  double sdcm[5], sim[5];
  for (int i = 0; i < 5; i++) {
    ppt_sasmm_opts o;
    ppt_sasmm_opts_default(&o);
    o.ncores = cores[i];
    ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
    sdcm_rates(t, &o, counted, &hw, rates);
    sdcm[i] = rates[0].hit_rate;
    ppt_tracesim_result r;
    ck_assert_msg(ppt_tracesim_sasmm(t, &o, &hw, counted, &r, NULL, &err) == 0, "%s", err.msg);
    sim[i] = r.levels[0].ref_hit_rate;
  }
  /* The outlined function's few stack references count too: allow a little slack. */
  for (int i = 0; i < 3; i++) ck_assert_msg(fabs(sim[i] - 0.5) < 0.02, "sim %u cores: %f", cores[i], sim[i]);
  /* 8 cores fill L1 exactly (the stack lines then evict some); 16 cores use half of it. */
  ck_assert_msg(sim[3] > 0.6, "sim 8 cores: %f", sim[3]);
  ck_assert_msg(fabs(sim[4] - 0.975) < 0.02, "sim 16 cores: %f", sim[4]);
  for (int i = 0; i < 2; i++)
    ck_assert_msg(fabs(sdcm[i] - 0.5) < 0.02, "sdcm %u cores: %f", cores[i], sdcm[i]);
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

/* A shared level with several instances (shared_by < cores): four cores, two instances
 * of a 64 KiB L2, a sweep over 96 KiB repeated. Each pair of cores sweeps its half (48
 * KiB): each instance holds it, as the simulation says; one CRD of all four cores sees
 * the whole 96 KiB between reuses and misses every time. With the CRD per instance
 * (crd_group = shared_by), SDCM agrees with the simulation. The L2 is fully associative,
 * where SDCM is exact LRU (with 16 ways its binomial spread of lines over sets, which
 * this sweep's sequential lines do not have, gives 97.5 % against 99.4 % simulated). */
static const char *k_groups =
    "#define N 4096\n"
    "double a[N], b[N], c[N];\n"
    "int main(void) {\n"
    "  for (int t = 0; t < 20; t++) {\n"
    "#pragma omp parallel for schedule(static)\n"
    "    for (int i = 0; i < N; i++) a[i] = b[i] + 0.5 * c[i];\n"
    "  }\n"
    "  return a[3] > 1.0;\n"
    "}\n";

START_TEST(crd_per_instance) {
  const char *d = e2e_dir("sasmm-crd-groups");
  e2e_write(d, "g.c", k_groups);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp g.c -o g && $PPT trace -o g.trace -- ./g >/dev/null 2>&1"),
                   0);
  ppt_trace *t = e2e_open(d, "g.trace");
  ppt_hwspec hw;
  ppt_err err;
  const char *spec =
      "{\"name\": \"pairs\", \"cores\": 4, \"levels\": ["
      "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 4, \"line\": 64, \"shared_by\": 1, \"inclusive\": "
      "false},"
      "{\"name\": \"L2\", \"size\": 65536, \"assoc\": 1024, \"line\": 64, \"shared_by\": 2, \"inclusive\": "
      "false}]}";
  ck_assert_msg(ppt_hwspec_parse(spec, "pairs", &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(ppt_sdcm_crd_group(&hw), 2);
  uint8_t *counted = parallel_blocks(t);
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = 4;
  ppt_tracesim_result r;
  ck_assert_msg(ppt_tracesim_sasmm(t, &o, &hw, counted, &r, NULL, &err) == 0, "%s", err.msg);
  double sim = r.levels[1].ref_hit_rate, sdcm[2];
  for (int grouped = 0; grouped < 2; grouped++) {
    o.crd_group = grouped ? ppt_sdcm_crd_group(&hw) : 0;
    ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
    sdcm_rates(t, &o, counted, &hw, rates);
    sdcm[grouped] = rates[1].hit_rate;
  }
  fprintf(stderr, "L2 of 2 instances, 4 cores: simulated %.4f, SDCM one CRD %.4f, per instance %.4f\n", sim,
          sdcm[0], sdcm[1]);
  /* 20 sweeps: the first misses (1 in 8 references a new line), the 19 others hit */
  ck_assert_msg(sim > 0.98, "simulated %f", sim);
  ck_assert_msg(fabs(sdcm[1] - sim) < 0.01, "per instance %f, simulated %f", sdcm[1], sim);
  ck_assert_msg(sdcm[0] < sim - 0.05, "one CRD %f: the instances should matter", sdcm[0]);
  free(counted);
  ppt_trace_close(t);
}
END_TEST

/* A parallel loop with an FP recurrence (a reduction: PPT_OP_CHAIN_FP) and a serial
 * loop: work for the compute, memory and overlap models alike. */
static const char *k_red =
    "#include <stdio.h>\n"
    "double a[8192];\n"
    "int main(void) {\n"
    "  double s = 0;\n"
    "  for (int i = 0; i < 8192; i++) a[i] = i * 0.5;\n"
    "  for (int r = 0; r < 4; r++) {\n"
    "#pragma omp parallel for reduction(+:s) schedule(static)\n"
    "    for (int i = 0; i < 8192; i++) s += a[i] * a[i];\n"
    "  }\n"
    "  printf(\"%g\\n\", s);\n"
    "  return 0;\n"
    "}\n";

/* Runtime of m's program on a node of hw with policy pol. */
static double run_model(const ppt_hwspec *hw, const ppt_progmodel *m, uint32_t cores,
                        const ppt_tc_policy *pol) {
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = cores;
  cfg.policy = *pol;
  ppt_node *node;
  ppt_node_result *res;
  ppt_err err;
  ck_assert_msg(ppt_node_new(hw, &cfg, &node, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_node_run(node, ppt_progmodel_program(m), &res, &err) == 0, "%s", err.msg);
  double sec = ppt_node_result_seconds(res);
  ppt_node_result_free(res);
  ppt_node_free(node);
  return sec;
}

/* runtime_s at n cores in dir/file: of the main output (model NULL) or of a --models entry. */
static double json_runtime(const char *dir, const char *file, const char *model, int n) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  json_object *j = json_object_from_file(p), *arr = NULL;
  ck_assert_msg(j != NULL, "cannot read %s", p);
  if (model) {
    json_object *ms = NULL;
    ck_assert(json_object_object_get_ex(j, "models", &ms));
    for (size_t i = 0; i < json_object_array_length(ms) && !arr; i++) {
      json_object *e = json_object_array_get_idx(ms, i), *name;
      ck_assert(json_object_object_get_ex(e, "model", &name));
      if (!strcmp(json_object_get_string(name), model)) json_object_object_get_ex(e, "cores", &arr);
    }
  } else {
    ck_assert(json_object_object_get_ex(j, "cores", &arr));
  }
  ck_assert_msg(arr != NULL, "%s: no model %s", p, model);
  double v = NAN;
  for (size_t i = 0; i < json_object_array_length(arr); i++) {
    json_object *e = json_object_array_get_idx(arr, i), *f;
    ck_assert(json_object_object_get_ex(e, "n", &f));
    if (json_object_get_int(f) != n) continue;
    ck_assert(json_object_object_get_ex(e, "runtime_s", &f));
    v = json_object_get_double(f);
  }
  json_object_put(j);
  ck_assert_msg(v > 0, "%s: no runtime for %s at %d cores", p, model ? model : "the defaults", n);
  return v;
}

START_TEST(one_simulation_many_models) {
  const char *d = e2e_dir("sasmm_models");
  e2e_write(d, "r.c", k_red);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp r.c -o r && $PPT trace -o r.trace -- ./r >/dev/null 2>&1"),
                   0);
  char hwp[1024];
  snprintf(hwp, sizeof hwp, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(hwp, &hw, &err) == 0, "%s", err.msg);
  ppt_trace *t = e2e_open(d, "r.trace");
  /* The test means something only if a block carries a recurrence. */
  int chains = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++)
    chains |= ppt_trace_bb_get(t, b)->ops[PPT_OP_CHAIN_FP] > 0;
  ck_assert_msg(chains, "no block with a loop-carried FP recurrence");

  /* Library: build for A, switch to B, back to A; each equals a build for it. */
  ppt_tc_policy pa, pb;
  ppt_tc_policy_default(&pa); /* ports / miss / partial 0.25 */
  pb = pa;
  pb.compute = PPT_COMPUTE_SUM;
  pb.memory = PPT_MEMORY_AMM;
  pb.overlap = PPT_OVERLAP_SUM;
  pb.fraction = 0;
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = 2;
  ppt_progmodel *ma, *mb;
  ck_assert_msg(ppt_progmodel_build(t, &hw, &o, &pa, NULL, &ma, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_progmodel_build(t, &hw, &o, &pb, NULL, &mb, &err) == 0, "%s", err.msg);
  double ra = run_model(&hw, ma, 2, &pa), rb = run_model(&hw, mb, 2, &pb);
  ck_assert_msg(ra != rb, "the two models agree (%g s): the test cannot tell them apart", ra);
  ck_assert_int_eq(ppt_progmodel_set_policy(ma, &pb, &err), 0);
  double ab = run_model(&hw, ma, 2, &pb);
  ck_assert_msg(ab == rb, "set_policy B: %.17g s, build B: %.17g s", ab, rb);
  ck_assert_int_eq(ppt_progmodel_set_policy(ma, &pa, &err), 0);
  double aa = run_model(&hw, ma, 2, &pa);
  ck_assert_msg(aa == ra, "back to A: %.17g s, build A: %.17g s", aa, ra);
  /* An unknown compute model is refused, and the model keeps its program. */
  ppt_tc_policy bad = pa;
  bad.compute = (ppt_compute_model)7;
  ck_assert_int_eq(ppt_progmodel_set_policy(ma, &bad, &err), PPT_EINPUT);
  ck_assert(run_model(&hw, ma, 2, &pa) == ra);
  ppt_progmodel_free(ma);
  ppt_progmodel_free(mb);
  ppt_trace_close(t);

  /* CLI: --models against one `ppt predict` per model, at 1 and 2 cores. */
  static const char *const items[] = {"ports/miss/partial:0.25", "sum/amm/max", "sum/miss/stall",
                                      "ports/amm/sum"};
  static const char *const flags[] = {
      "--compute ports --memory miss --overlap partial,0.25", "--compute sum --memory amm --overlap max",
      "--compute sum --memory miss --overlap stall", "--compute ports --memory amm --overlap sum"};
  const char *base = "$PPT predict r.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1,2 --json";
  ck_assert_int_eq(
      e2e_sh(d, "%s --models %s,%s,%s,%s > m.json 2>/dev/null", base, items[0], items[1], items[2], items[3]),
      0);
  ck_assert_int_eq(e2e_sh(d, "%s > def.json 2>/dev/null", base), 0);
  for (int n = 1; n <= 2; n++) /* the main output is still the defaults' */
    ck_assert(json_runtime(d, "m.json", NULL, n) == json_runtime(d, "def.json", NULL, n));
  for (int i = 0; i < 4; i++) {
    char f[32];
    snprintf(f, sizeof f, "s%d.json", i);
    ck_assert_int_eq(e2e_sh(d, "%s %s > %s 2>/dev/null", base, flags[i], f), 0);
    for (int n = 1; n <= 2; n++) {
      double a = json_runtime(d, "m.json", items[i], n), b = json_runtime(d, f, NULL, n);
      ck_assert_msg(a == b, "%s at %d cores: --models %.17g s, alone %.17g s", items[i], n, a, b);
    }
  }
  /* Bad items: a usage error (exit 2), one line on stderr naming the item, no output. */
  static const char *const bads[] = {"ports/miss/bogus", "x", "", "sum/amm/max,"};
  static const char *const named[] = {"'ports/miss/bogus'", "'x'", "''", "''"};
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(e2e_sh(d, "%s --models '%s' > out.txt 2> err.txt", base, bads[i]), 2);
    ck_assert_int_eq(
        e2e_sh(d, "test $(wc -l < err.txt) = 1 && grep -qF \"%s\" err.txt && test ! -s out.txt", named[i]),
        0);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("sasmm_profiles");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, sasmm_table2);
  tcase_add_test(tc, wu_yeung_fig2);
  tcase_add_test(tc, working_set_drops_below_l1);
  tcase_add_test(tc, crd_per_instance);
  tcase_add_test(tc, one_simulation_many_models);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
