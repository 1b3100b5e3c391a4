/* test_sweep.c — the design-space engine (ppt/sweep.h) against its oracle, the per-point
 * exact simulation of the mimicked cores (ppt_tracesim_sasmm, what `ppt sasmm` runs):
 *  - every point of a 3 x 3 x 2 (L1 size x L2 size x L3 replacement) sweep plus an
 *    inclusive spec and one with an L3 demand_size (both simulated whole), at 1, 2, 3 and
 *    4 cores, on a real OpenMP program
 *    traced with ppt-cc, counted everywhere and with an --only selection: equal counts;
 *  - LRU inclusion (Mattson et al. 1970; Hill & Smith 1989 for set counts): at fixed
 *    ways, misses never grow as a level grows;
 *  - set sampling's sieve (docs/sweep.md, "The sieve"): a sampled sweep that mimics the
 *    sieved stream counts exactly what the one streaming the whole trace counts, on the
 *    program above and on one with machine-level stack references, a replicated phase,
 *    guided and chunked loops, at 1-7 cores, counted everywhere and selected; and it is
 *    left out (same counts) where it does not apply or would not fit its budget;
 *  - `ppt sweep --json` against `ppt sasmm --set ... --json` at one point;
 *  - ppt_hwspec_set: keys, suffixes, "line", and refusals that leave the spec alone. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/sweep.h"
#include "ppt/tracesim.h"

/* A row sweep, a column walk (strided: set conflicts), a dynamic loop with a gather,
 * and shared data every core reads: the levels see distinct behaviour. */
static const char *k_prog =
    "#include <stdlib.h>\n"
    "#define N 96\n"
    "static double a[N][N], b[N][N], x[4096];\n"
    "static int idx[20000];\n"
    "int main(void) {\n"
    "  for (int i = 0; i < 20000; i++) idx[i] = (i * 7919) % 4096;\n"
    "  for (int t = 0; t < 2; t++) {\n"
    "#pragma omp parallel for schedule(static)\n"
    "    for (int i = 0; i < N; i++)\n"
    "      for (int j = 0; j < N; j++) a[i][j] += b[j][i] + x[j];\n"
    "#pragma omp parallel for schedule(dynamic, 64)\n"
    "    for (int i = 0; i < 20000; i++) x[idx[i]] += 1.0;\n"
    "  }\n"
    "  return a[1][2] > 1e300;\n"
    "}\n";

static const char *k_base =
    "{\"name\": \"base\", \"cores\": 4, \"levels\": ["
    "{\"name\": \"L1\", \"size\": 8192, \"assoc\": 4, \"line\": 64, \"shared_by\": 1, \"inclusive\": false},"
    "{\"name\": \"L2\", \"size\": 32768, \"assoc\": 8, \"line\": 64, \"shared_by\": 1, \"inclusive\": false},"
    "{\"name\": \"L3\", \"size\": 131072, \"assoc\": 8, \"line\": 64, \"shared_by\": 4, \"inclusive\": "
    "false}]}";

static ppt_trace *traced(const char *d) {
  e2e_write(d, "p.c", k_prog);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp p.c -o p && $PPT trace -o p.trace -- ./p >/dev/null 2>&1"),
                   0);
  return e2e_open(d, "p.trace");
}

static void set(ppt_hwspec *hw, const char *s) {
  ppt_err err;
  ck_assert_msg(ppt_hwspec_set(hw, s, &err) == 0, "%s: %s", s, err.msg);
}

/* The sweep's configurations: L1 4/8/16 KiB x L2 32/64/128 KiB x L3 lru/random, and the
 * base spec with an inclusive L3 (which the tree cannot share). */
static size_t make_specs(ppt_hwspec *out) {
  static const char *l1[] = {"L1.size=4K", "L1.size=8K", "L1.size=16K"};
  static const char *l2[] = {"L2.size=32K", "L2.size=64K", "L2.size=128K"};
  static const char *l3[] = {"L3.replacement=lru", "L3.replacement=random"};
  ppt_hwspec base;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(k_base, "base", &base, &err) == 0, "%s", err.msg);
  size_t n = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 2; k++) {
        out[n] = base;
        set(&out[n], l1[i]);
        set(&out[n], l2[j]);
        set(&out[n], l3[k]);
        n++;
      }
  out[n] = base;
  set(&out[n], "L3.inclusive=true");
  return n + 1;
}

static void same(const ppt_tracesim_result *a, const ppt_tracesim_result *b, size_t spec, uint32_t cores) {
  ck_assert_uint_eq(a->nlevels, b->nlevels);
  ck_assert_uint_eq(a->counted_refs, b->counted_refs);
  ck_assert_uint_eq(a->refs, b->refs);
  ck_assert_uint_eq(a->line_refs, b->line_refs);
  for (uint32_t k = 0; k < a->nlevels; k++) {
    const ppt_tracesim_level *x = &a->levels[k], *y = &b->levels[k];
    ck_assert_msg(x->accesses == y->accesses && x->misses == y->misses &&
                      x->ref_accesses == y->ref_accesses && x->ref_misses == y->ref_misses,
                  "spec %zu, %u cores, %s: sweep %llu/%llu refs %llu/%llu, sasmm %llu/%llu refs %llu/%llu",
                  spec, cores, x->name, (unsigned long long)x->accesses, (unsigned long long)x->misses,
                  (unsigned long long)x->ref_accesses, (unsigned long long)x->ref_misses,
                  (unsigned long long)y->accesses, (unsigned long long)y->misses,
                  (unsigned long long)y->ref_accesses, (unsigned long long)y->ref_misses);
  }
}

static void check_sweep(const ppt_trace *t, const unsigned char *counted) {
  ppt_hwspec specs[32];
  size_t ns = make_specs(specs);
  /* And one whose L3 serves an access no prefetcher covered from its 2 most recent ways
   * of 8 only (demand_size 32 KiB of 128 KiB): the tree cannot run it, it is simulated
   * whole (a tree that ignored demand_size would make this point differ). */
  specs[ns] = specs[0];
  set(&specs[ns++], "L3.demand_size=32K");
  static const uint32_t cores[] = {1, 2, 3, 4};
  size_t nc = sizeof cores / sizeof *cores;
  ppt_sweep_opts o = {.cores = cores, .ncores = nc, .counted = counted, .threads = 2};
  ppt_sasmm_opts_default(&o.base);
  ppt_tracesim_result *out = calloc(ns * nc, sizeof *out);
  ppt_sweep_stats st;
  ppt_err err;
  ck_assert_msg(ppt_sweep_run(t, specs, ns, &o, out, &st, &err) == 0, "%s", err.msg);
  /* 3 L1s, 9 L2s, 18 L3s per core count; the inclusive and demand specs are simulated whole */
  ck_assert_uint_eq(st.nodes, 30 * nc);
  ck_assert_uint_eq(st.fallbacks, 2);
  for (size_t c = 0; c < nc; c++)
    for (size_t s = 0; s < ns; s++) {
      ppt_sasmm_opts so = o.base;
      so.ncores = cores[c];
      ppt_tracesim_result want;
      ck_assert_msg(ppt_tracesim_sasmm(t, &so, &specs[s], counted, &want, NULL, &err) == 0, "%s", err.msg);
      same(&out[c * ns + s], &want, s, cores[c]);
    }
  /* Inclusion: at fixed ways, a larger L1 (index 0, 2, 4 of each L2 group) misses no
   * more; at a fixed L1, a larger L2 has no more global misses at L2. */
  for (size_t c = 0; c < nc; c++) {
    const ppt_tracesim_result *p = &out[c * ns];
    for (int j = 0; j < 3; j++)
      for (int i = 1; i < 3; i++)
        ck_assert_uint_le(p[(i * 3 + j) * 2].levels[0].misses, p[((i - 1) * 3 + j) * 2].levels[0].misses);
    for (int i = 0; i < 3; i++)
      for (int j = 1; j < 3; j++)
        ck_assert_uint_le(p[(i * 3 + j) * 2].levels[1].misses, p[(i * 3 + j - 1) * 2].levels[1].misses);
    ck_assert_uint_gt(p[0].levels[0].misses, p[4 * 2].levels[0].misses); /* the sizes matter here */
  }
  free(out);
}

START_TEST(sweep_equals_each_point) {
  const char *d = e2e_dir("sweep-points");
  ppt_trace *t = traced(d);
  check_sweep(t, NULL);
  /* counted: the parallel loops only */
  const char *sel[] = {".omp_outlined."};
  unsigned char *counted;
  ppt_err err;
  ck_assert_msg(ppt_trace_select(t, sel, 1, &counted, NULL, &err) == 0, "%s", err.msg);
  check_sweep(t, counted);
  free(counted);
  ppt_trace_close(t);
}
END_TEST

/* Set sampling (--sample-sets) on the real program: each level's global hit rate within
 * SAMPLED_TOL_POINTS of the exact sweep's at every point, and the counts scaled back to
 * the whole (accesses at L1 within 10 % of the exact count). The tolerance is the
 * measured error on this program with room (docs/sweep.md, "Set sampling"). */
#define SAMPLED_TOL_POINTS 2.0
START_TEST(sampled_close_to_exact) {
  const char *d = e2e_dir("sweep-sampled");
  ppt_trace *t = traced(d);
  ppt_hwspec specs[32];
  size_t ns = make_specs(specs) - 1; /* the inclusive spec is simulated whole, exactly */
  static const uint32_t cores[] = {1, 4};
  size_t nc = 2;
  ppt_tracesim_result *exact = calloc(ns * nc, sizeof *exact), *smp = calloc(ns * nc, sizeof *smp);
  ppt_sweep_opts o = {.cores = cores, .ncores = nc, .threads = 2};
  ppt_sasmm_opts_default(&o.base);
  ppt_err err;
  ck_assert_msg(ppt_sweep_run(t, specs, ns, &o, exact, NULL, &err) == 0, "%s", err.msg);
  static const uint32_t ks[] = {4, 16};
  for (size_t ki = 0; ki < 2; ki++) {
    o.sample_sets = ks[ki];
    ck_assert_msg(ppt_sweep_run(t, specs, ns, &o, smp, NULL, &err) == 0, "%s", err.msg);
    double worst = 0;
    for (size_t i = 0; i < ns * nc; i++)
      for (uint32_t k = 0; k < exact[i].nlevels; k++) {
        double e = 100 * (smp[i].levels[k].hit_rate - exact[i].levels[k].hit_rate);
        worst = e < 0 ? (-e > worst ? -e : worst) : (e > worst ? e : worst);
      }
    for (size_t i = 0; i < ns * nc; i++) {
      double a = (double)smp[i].levels[0].accesses, b = (double)exact[i].levels[0].accesses;
      ck_assert_msg(a > 0.9 * b && a < 1.1 * b, "K=%u: L1 accesses %.0f, exact %.0f", ks[ki], a, b);
    }
    fprintf(stderr, "sweep sampled 1/%u: worst hit-rate error %.3f points\n", ks[ki], worst);
    ck_assert_msg(worst <= SAMPLED_TOL_POINTS, "K=%u: %.3f points", ks[ki], worst);
  }
  free(exact);
  free(smp);
  ppt_trace_close(t);
}
END_TEST

/* Stack arguments (ten doubles: two go on the stack), code every core runs before the
 * loops, a guided reduction calling it and a chunked static stencil. */
static const char *k_prog2 =
    "#include <stdio.h>\n"
    "#define N 6000\n"
    "static double v[N], w[N];\n"
    "__attribute__((noinline)) static double f(double a, double b, double c, double d, double e,\n"
    "    double g, double h, double i, double j, double k, double l) {\n"
    "  return a + b * c - d + e * g + h - i * j + k * l;\n"
    "}\n"
    "int main(void) {\n"
    "  double s = 0;\n"
    "  for (int i = 0; i < N; i++) v[i] = i;\n"
    "#pragma omp parallel\n"
    "  {\n"
    "    double loc = 0;\n"
    "    for (int i = 0; i < 200; i++) loc += v[(i * 37) % N];\n"
    "#pragma omp for schedule(guided) reduction(+:s)\n"
    "    for (int i = 0; i < N; i++) s += f(v[i], w[i], v[i], 1, 2, 3, 4, 5, 6, loc, w[N - 1 - i]);\n"
    "#pragma omp for schedule(static, 7)\n"
    "    for (int i = 1; i < N - 1; i++) w[i] = v[i - 1] + v[i + 1];\n"
    "  }\n"
    "  printf(\"%f\\n\", s);\n"
    "  return 0;\n"
    "}\n";

/* One sampled sweep with the sieve and one streaming: the same counts everywhere. */
static void sieve_check(const ppt_trace *t, const unsigned char *counted, uint32_t k, int interleave,
                        uint64_t budget, int expect_sieved) {
  ppt_hwspec specs[32];
  size_t ns = make_specs(specs) - 1; /* the inclusive spec is simulated whole: no sieve */
  static const uint32_t cores[] = {1, 2, 3, 4, 7};
  size_t nc = sizeof cores / sizeof *cores;
  ppt_tracesim_result *a = calloc(ns * nc, sizeof *a), *b = calloc(ns * nc, sizeof *b);
  ppt_sweep_opts o = {.cores = cores, .ncores = nc, .counted = counted, .threads = 2, .sample_sets = k};
  ppt_sasmm_opts_default(&o.base);
  o.base.interleave = interleave;
  o.sieve_max_bytes = budget;
  ppt_sweep_stats sa, sb;
  ppt_err err;
  ck_assert_msg(ppt_sweep_run(t, specs, ns, &o, a, &sa, &err) == 0, "%s", err.msg);
  o.no_sieve = 1;
  ck_assert_msg(ppt_sweep_run(t, specs, ns, &o, b, &sb, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(sa.sieved, expect_sieved);
  ck_assert_int_eq(sb.sieved, 0);
  if (expect_sieved) ck_assert_uint_lt(sa.sieve_kept, sa.sieve_records);
  for (size_t c = 0; c < nc; c++)
    for (size_t i = 0; i < ns; i++) {
      same(&a[c * ns + i], &b[c * ns + i], i, cores[c]);
      ck_assert_uint_eq(a[c * ns + i].counted_loads, b[c * ns + i].counted_loads);
      ck_assert_uint_eq(a[c * ns + i].counted_stores, b[c * ns + i].counted_stores);
    }
  free(a);
  free(b);
}

START_TEST(sieve_equals_stream) {
  const char *d = e2e_dir("sweep-sieve");
  ppt_trace *t1 = traced(d);
  e2e_write(d, "q.c", k_prog2);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O2 -fopenmp q.c -o q && $PPT trace -o q.trace -- ./q >/dev/null 2>&1"),
                   0);
  ppt_trace *t2 = e2e_open(d, "q.trace");
  ppt_trace_set_stack_refs(t2, 1); /* e2e_open turns them off */
  ck_assert_msg(ppt_trace_stack_refs(t2), "the program has no machine-level stack references");
  const char *sel[] = {".omp_outlined."};
  ppt_trace *ts[] = {t1, t2};
  for (int i = 0; i < 2; i++) {
    unsigned char *counted;
    ppt_err err;
    ck_assert_msg(ppt_trace_select(ts[i], sel, 1, &counted, NULL, &err) == 0, "%s", err.msg);
    sieve_check(ts[i], NULL, 4, PPT_INTERLEAVE_RR, 0, 1);
    sieve_check(ts[i], NULL, 16, PPT_INTERLEAVE_RR, 0, 1);
    sieve_check(ts[i], counted, 8, PPT_INTERLEAVE_RR, 0, 1);
    /* where it does not apply: uniform turns; a budget it does not fit */
    sieve_check(ts[i], NULL, 16, PPT_INTERLEAVE_UNIFORM, 0, 0);
    sieve_check(ts[i], NULL, 16, PPT_INTERLEAVE_RR, 4096, 0);
    free(counted);
    ppt_trace_close(ts[i]);
  }
}
END_TEST

/* The JSON value at path "points[i].levels[k].misses" style lookups, by hand. */
static uint64_t level_misses(json_object *levels, int k) {
  json_object *l = json_object_array_get_idx(levels, (size_t)k), *m;
  ck_assert(json_object_object_get_ex(l, "misses", &m));
  return (uint64_t)json_object_get_int64(m);
}

START_TEST(cli_point_equals_sasmm) {
  const char *d = e2e_dir("sweep-cli");
  ppt_trace *t = traced(d);
  ppt_trace_close(t);
  e2e_write(d, "base.json", k_base);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT sweep p.trace --hw base.json --cores 1,4 --set L1.size=4K,16K "
                          "--set L2.ways=4,8 --json -o s.csv > s.json"),
                   0);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT sasmm p.trace --hw base.json --cores 4 --set L1.size=16K --set L2.ways=4 "
                          "--json > a.json"),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/s.json", d); /* e2e_sh ran in d */
  json_object *s = json_object_from_file(path);
  snprintf(path, sizeof path, "%s/a.json", d);
  json_object *a = json_object_from_file(path);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(a);
  json_object *pts, *cores, *pl, *al;
  ck_assert(json_object_object_get_ex(s, "points", &pts));
  ck_assert_uint_eq(json_object_array_length(pts), 8);
  /* order: L1.size slowest, then L2.ways, then cores: 16K, ways 4, 4 cores is point 5 */
  json_object *p = json_object_array_get_idx(pts, 5), *set, *v;
  ck_assert(json_object_object_get_ex(p, "set", &set));
  ck_assert(json_object_object_get_ex(set, "L1.size", &v));
  ck_assert_int_eq(json_object_get_int64(v), 16384);
  ck_assert(json_object_object_get_ex(p, "levels", &pl));
  ck_assert(json_object_object_get_ex(a, "cores", &cores));
  ck_assert(json_object_object_get_ex(json_object_array_get_idx(cores, 0), "levels", &al));
  for (int k = 0; k < 3; k++) ck_assert_uint_eq(level_misses(pl, k), level_misses(al, k));
  json_object_put(s);
  json_object_put(a);
  /* one CSV row per point and a header */
  ck_assert_int_eq(e2e_sh(d, "test $(wc -l < s.csv) -eq 9"), 0);
  /* --runtime: a point's runtime is ppt predict's with the same settings; a cache-only
   * spec has none */
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT sweep p.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json,base.json --cores 1,2 "
                          "--set L2.size=32K,64K --runtime --json > r.json && "
                          "$PPT predict p.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --set L2.size=64K "
                          "--cores 1,2 --json > pr.json && "
                          "for k in 0 1; do test \"$(jq \".points[2 + $k].runtime_s\" r.json)\" = "
                          "\"$(jq \".cores[$k].runtime_s\" pr.json)\" || exit 1; done && "
                          "test \"$(jq '.points[4].runtime_s' r.json)\" = null"),
                   0);
  /* a point that is not a valid spec is bad input, named */
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT sweep p.trace --hw base.json --set L1.size=3K 2>err.txt; test $? -eq 2 && "
                          "grep -q 'L1.size=3K' err.txt"),
                   0);
}
END_TEST

START_TEST(hwspec_settings) {
  ppt_hwspec hw, before;
  ppt_err err;
  ck_assert_int_eq(ppt_hwspec_parse(k_base, "base", &hw, &err), 0);
  set(&hw, "L3.size=1M");
  set(&hw, "L2.size=256K");
  ck_assert_uint_eq(hw.levels[1].size, 262144);
  set(&hw, "l1.ways=8"); /* level names match case-insensitively; ways is assoc */
  ck_assert_uint_eq(hw.levels[0].assoc, 8);
  set(&hw, "line=128");
  for (uint32_t k = 0; k < hw.nlevels; k++) ck_assert_uint_eq(hw.levels[k].line, 128);
  set(&hw, "L3.shared_by=2");
  ck_assert_uint_eq(hw.levels[2].shared_by, 2);
  set(&hw, "L2.latency_cycles=14.5"); /* a key the spec left out */
  ck_assert_double_eq_tol(hw.levels[1].latency_cycles, 14.5, 1e-12);
  set(&hw, "L3.size=2MiB");
  ck_assert_uint_eq(hw.levels[2].size, 2u << 20);
  set(&hw, "L3.replacement=random"); /* a key the spec left out, as a string */
  ck_assert_int_eq(hw.levels[2].replacement, PPT_HW_REPL_RANDOM);
  before = hw;
  static const char *bad[] = {"L2.size=3000", "L4.size=1M",        "L2.size=big", "L2.colour=3",
                              "L2.size",      "L1.line=32",        "cores=-1",    "L2.size=1.5K5",
                              "=3",           "L2.inclusive=maybe"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(ppt_hwspec_set(&hw, bad[i], &err) == PPT_EINPUT, "%s accepted", bad[i]);
    ck_assert_msg(memcmp(&hw, &before, sizeof hw) == 0, "%s changed the spec", bad[i]);
    ck_assert_ptr_nonnull(strstr(err.msg, "setting"));
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("sweep");
  TCase *tc = tcase_create("sweep");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, hwspec_settings);
  tcase_add_test(tc, sweep_equals_each_point);
  tcase_add_test(tc, cli_point_equals_sasmm);
  tcase_add_test(tc, sampled_close_to_exact);
  tcase_add_test(tc, sieve_equals_stream);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
