/* test_regions.c — the program model per region and core (progmodel.c, docs/design.md
 * "Regions"): the tally's per-thread takes, per-site rates, and `ppt predict --json`'s
 * "regions".
 *
 *  - takes_sum_to_totals: random references of 4 threads (loads and stores, some
 *    uncounted blocks, a TLB, a shared level) with takes of random threads at random
 *    times; the takes plus a final take of every thread equal the run's totals field by
 *    field, and taking does not change the totals. Several seeds.
 *  - two_regions: a stream over 512 KiB of doubles (one 8-byte load each, 64 B lines: L1
 *    hit rate 1 − 8/64 exactly, but for a few loop-control references), then 2 KiB read
 *    64 times (~100 %); each parallel loop is a site with its own rates, the sites'
 *    counts sum to the run's, and predict's JSON lists both, the stream first, with
 *    more memory time per reference.
 *  - core_imbalance: one static loop whose first half of the iterations touches a new
 *    line each, the second half 8 lines over and over: on 2 cores core 0's L1 rate is
 *    ~0, core 1's ~1, each core's tasklist uses its own, and the region waits at the
 *    barrier (imbalance_s > 0).
 *  - weights_and_shift: problem-size scaling's block weights (1: unchanged; 2: twice the
 *    time) and moved miss ratios (the run's L1 misses doubled: the stream region's local
 *    L1 rate 1 - 2g; unmoved and reset: the simulated time; the TLB's page walks moved
 *    up: slower). */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/engine.h"
#include "ppt/progmodel.h"
#include "ppt/tracesim.h"

/* ---------------------------------------------------------------- takes */

static void add_result(ppt_tracesim_result *a, const ppt_tracesim_result *b) {
  for (uint32_t k = 0; k < b->nlevels; k++) {
    a->levels[k].accesses += b->levels[k].accesses;
    a->levels[k].misses += b->levels[k].misses;
    a->levels[k].ref_accesses += b->levels[k].ref_accesses;
    a->levels[k].ref_misses += b->levels[k].ref_misses;
  }
  for (uint32_t k = 0; k <= PPT_HW_MAX_LEVELS; k++) {
    a->served[k] += b->served[k];
    a->prefetched[k] += b->prefetched[k];
    a->served_stores[k] += b->served_stores[k];
    a->same_set[k] += b->same_set[k];
    a->same_set_stores[k] += b->same_set_stores[k];
    a->transfers[k] += b->transfers[k];
  }
  for (uint32_t j = 0; j <= PPT_HW_MAX_TLB; j++) a->tlb_served[j] += b->tlb_served[j];
  a->refs += b->refs;
  a->line_refs += b->line_refs;
  a->counted_refs += b->counted_refs;
  a->counted_loads += b->counted_loads;
  a->counted_stores += b->counted_stores;
}

static void assert_same_counts(const ppt_tracesim_result *x, const ppt_tracesim_result *y) {
  for (uint32_t k = 0; k < y->nlevels; k++) {
    ck_assert_uint_eq(x->levels[k].accesses, y->levels[k].accesses);
    ck_assert_uint_eq(x->levels[k].misses, y->levels[k].misses);
    ck_assert_uint_eq(x->levels[k].ref_accesses, y->levels[k].ref_accesses);
    ck_assert_uint_eq(x->levels[k].ref_misses, y->levels[k].ref_misses);
  }
  ck_assert_mem_eq(x->served, y->served, sizeof x->served);
  ck_assert_mem_eq(x->prefetched, y->prefetched, sizeof x->prefetched);
  ck_assert_mem_eq(x->served_stores, y->served_stores, sizeof x->served_stores);
  ck_assert_mem_eq(x->same_set, y->same_set, sizeof x->same_set);
  ck_assert_mem_eq(x->same_set_stores, y->same_set_stores, sizeof x->same_set_stores);
  ck_assert_mem_eq(x->transfers, y->transfers, sizeof x->transfers);
  ck_assert_mem_eq(x->tlb_served, y->tlb_served, sizeof x->tlb_served);
  ck_assert_uint_eq(x->refs, y->refs);
  ck_assert_uint_eq(x->line_refs, y->line_refs);
  ck_assert_uint_eq(x->counted_refs, y->counted_refs);
  ck_assert_uint_eq(x->counted_loads, y->counted_loads);
  ck_assert_uint_eq(x->counted_stores, y->counted_stores);
}

START_TEST(takes_sum_to_totals) {
  static const char *spec =
      "{\"name\": \"t\", \"cores\": 4, \"levels\": ["
      "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 4, \"line\": 64},"
      "{\"name\": \"L2\", \"size\": 65536, \"assoc\": 8, \"line\": 64, \"shared_by\": 4}],"
      " \"tlb\": [{\"name\": \"DTLB1\", \"entries\": 8, \"assoc\": 8, \"page_bytes\": 4096, \"miss_cycles\": "
      "9}]}";
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(spec, "test-hw", &hw, &err) == 0, "%s", err.msg);
  const unsigned char counted[5] = {0, 1, 1, 0, 1}; /* block 3 is simulated, not counted */
  for (unsigned long seed = 1; seed <= 5; seed++) {
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    ppt_tracesim_tally *t;
    ck_assert_msg(ppt_tracesim_tally_new(&hw, 4, counted, 4, seed, &t, &err) == 0, "%s", err.msg);
    ppt_tracesim_result sum = {0}, part, total, again;
    for (int i = 0; i < 200000; i++) {
      uint32_t th = (uint32_t)gsl_rng_uniform_int(rng, 4);
      uint32_t bb = 1 + (uint32_t)gsl_rng_uniform_int(rng, 4);
      /* mostly a sequential sweep per thread (prefetches), some random lines (misses,
       * shared lines stored by others: transfers), and straddling accesses */
      uint64_t a = gsl_rng_uniform(rng) < 0.7
                       ? 0x100000 + (uint64_t)th * 0x40000 + (uint64_t)(i / 4) * 8 % 0x40000
                       : 0x800000 + gsl_rng_uniform_int(rng, 1 << 18);
      ppt_trace_rec r = {.addr = a, .bb = bb, .size = (uint8_t)(gsl_rng_uniform(rng) < 0.1 ? 16 : 8)};
      r.kind = gsl_rng_uniform(rng) < 0.05  ? PPT_REC_BB
               : gsl_rng_uniform(rng) < 0.3 ? PPT_REC_STORE
                                            : PPT_REC_LOAD;
      int lv = ppt_tracesim_tally_access(t, th, &r);
      ck_assert_int_eq(lv < 0, r.kind == PPT_REC_BB);
      ck_assert_int_le(lv, 2);
      if (gsl_rng_uniform(rng) < 0.001) {
        ppt_tracesim_tally_take(t, (uint32_t)gsl_rng_uniform_int(rng, 4), &part);
        add_result(&sum, &part);
      }
    }
    ppt_tracesim_tally_result(t, 4, &total);
    for (uint32_t th = 0; th < 5; th++) { /* thread 4: out of range, all zeros */
      ppt_tracesim_tally_take(t, th, &part);
      add_result(&sum, &part);
    }
    sum.nlevels = total.nlevels;
    ck_assert_uint_gt(total.counted_refs, 0);
    ck_assert_uint_lt(total.counted_refs, total.refs);
    ck_assert_uint_gt(total.transfers[2] + total.transfers[1], 0);
    ck_assert_uint_gt(total.tlb_served[1], 0);
    assert_same_counts(&sum, &total);
    ppt_tracesim_tally_result(t, 4, &again);
    ck_assert_mem_eq(&again, &total, sizeof total);
    ppt_tracesim_tally_free(t);
    gsl_rng_free(rng);
  }
}
END_TEST

/* A tally split by block (ppt_tracesim_tally_split) simulates exactly what an unsplit
 * one fed the same stream does: the slots of a thread sum to its take there, and each
 * slot counted the references of its own blocks, as counted here by hand. */
START_TEST(slots_split_takes) {
  static const char *spec =
      "{\"name\": \"t\", \"cores\": 2, \"levels\": ["
      "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 4, \"line\": 64},"
      "{\"name\": \"L2\", \"size\": 65536, \"assoc\": 8, \"line\": 64, \"shared_by\": 2}]}";
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(spec, "test-hw", &hw, &err) == 0, "%s", err.msg);
  const unsigned char counted[5] = {0, 1, 1, 0, 1};
  const uint32_t slot_of[5] = {0, 1, 0, 2, 2}; /* block 3: slot 2, simulated, not counted */
  ppt_tracesim_tally *whole, *split;
  ck_assert_msg(ppt_tracesim_tally_new(&hw, 2, counted, 4, 7, &whole, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_tracesim_tally_new(&hw, 2, counted, 4, 7, &split, &err) == 0, "%s", err.msg);
  const uint32_t bad[5] = {0, 1, 3, 0, 0};
  ck_assert_int_eq(ppt_tracesim_tally_split(split, 3, bad, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_tracesim_tally_split(split, 3, slot_of, &err), 0);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 3);
  uint64_t by_hand[2][3] = {{0}};
  for (int i = 0; i < 100000; i++) {
    uint32_t th = (uint32_t)gsl_rng_uniform_int(rng, 2);
    uint32_t bb = 1 + (uint32_t)gsl_rng_uniform_int(rng, 4);
    uint64_t a = gsl_rng_uniform(rng) < 0.6
                     ? 0x100000 + (uint64_t)th * 0x40000 + (uint64_t)(i / 2) * 8 % 0x40000
                     : 0x800000 + gsl_rng_uniform_int(rng, 1 << 17);
    ppt_trace_rec r = {.addr = a, .bb = bb, .size = 8};
    r.kind = gsl_rng_uniform(rng) < 0.3 ? PPT_REC_STORE : PPT_REC_LOAD;
    ck_assert_int_eq(ppt_tracesim_tally_access(whole, th, &r), ppt_tracesim_tally_access(split, th, &r));
    by_hand[th][slot_of[bb]] += counted[bb];
  }
  ck_assert_int_eq(ppt_tracesim_tally_split(split, 3, slot_of, &err), PPT_EINPUT); /* too late */
  for (uint32_t th = 0; th < 2; th++) {
    ppt_tracesim_result w, part, sum = {0};
    ppt_tracesim_tally_take(whole, th, &w);
    for (uint32_t sl = 0; sl < 3; sl++) {
      ppt_tracesim_tally_take_slot(split, th, sl, &part);
      ck_assert_uint_eq(part.counted_refs, by_hand[th][sl]);
      add_result(&sum, &part);
    }
    ck_assert_uint_gt(by_hand[th][1], 0);
    ck_assert_uint_gt(by_hand[th][2], 0);
    sum.nlevels = w.nlevels;
    assert_same_counts(&sum, &w);
    ppt_tracesim_tally_take_slot(split, th, 3, &part); /* out of range: zeros */
    ck_assert_uint_eq(part.refs, 0);
  }
  ppt_tracesim_result tw, ts;
  ppt_tracesim_tally_result(whole, 2, &tw);
  ppt_tracesim_tally_result(split, 2, &ts);
  assert_same_counts(&tw, &ts);
  gsl_rng_free(rng);
  ppt_tracesim_tally_free(whole);
  ppt_tracesim_tally_free(split);
}
END_TEST

/* ---------------------------------------------------------------- programs */

static const char *k_two =
    "#include <stdio.h>\n"
    "#define N (1 << 16)\n"
    "double big[N], small[256]; /* not static: nothing may fold the loads */\n"
    "int main(void) {\n"
    "  double s = 0, u = 0;\n"
    "#pragma omp parallel for reduction(+ : s)\n"
    "  for (int i = 0; i < N; i++) s += big[i];\n"
    "#pragma omp parallel for reduction(+ : u)\n"
    "  for (int i = 0; i < 256 * 64; i++) u += small[i & 255];\n"
    "  printf(\"%g %g\\n\", s, u);\n"
    "  return 0;\n"
    "}\n";

static const char *k_skew =
    "#include <stdio.h>\n"
    "#define N 4096\n"
    "double big[N / 2 * 8], small[64];\n"
    "int main(void) {\n"
    "  double s = 0;\n"
    "#pragma omp parallel for schedule(static) reduction(+ : s)\n"
    "  for (int i = 0; i < N; i++) s += i < N / 2 ? big[i * 8] : small[i & 63];\n"
    "  printf(\"%g\\n\", s);\n"
    "  return 0;\n"
    "}\n";

/* A serial stretch that begins in a small function and spends its time in a loop of
 * another (line 6): named after the loop. */
static const char *k_named =
    "#include <stdio.h>\n"
    "double a[1 << 15];\n"
    "volatile int flag;\n"
    "__attribute__((noinline)) void setup(void) { flag = 1; }\n"
    "__attribute__((noinline)) void generate(void) {\n"
    "  for (int i = 0; i < (1 << 15); i++) a[i] = i * 0.5;\n"
    "}\n"
    "int main(void) {\n"
    "  double s = 0;\n"
    "#pragma omp parallel for reduction(+ : s)\n"
    "  for (int i = 0; i < 1024; i++) s += a[i];\n"
    "  setup();\n"
    "  generate();\n"
    "#pragma omp parallel for reduction(+ : s)\n"
    "  for (int i = 0; i < (1 << 15); i++) s += a[i];\n"
    "  printf(\"%g\\n\", s);\n"
    "  return 0;\n"
    "}\n";

static void load_host(ppt_hwspec *hw) {
  const char *src = getenv("PPT_SOURCE_DIR");
  ck_assert_ptr_nonnull(src);
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", src);
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, hw, &err) == 0, "%s", err.msg);
}

static ppt_progmodel *model(const ppt_trace *t, const ppt_hwspec *hw, uint32_t ncores) {
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = ncores;
  ppt_progmodel *m;
  ppt_err err;
  ck_assert_msg(ppt_progmodel_build(t, hw, &o, NULL, NULL, &m, &err) == 0, "%s", err.msg);
  return m;
}

/* The sites of m that are parallel, in the order of their lines. */
static size_t parallel_sites(const ppt_progmodel *m, ppt_progmodel_site_info *out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < ppt_progmodel_nsites(m); i++) {
    ppt_progmodel_site_info s;
    ck_assert_int_eq(ppt_progmodel_site(m, i, PPT_PROGMODEL_ALL_CORES, &s), 0);
    if (!s.parallel || s.counted_refs < 1000) continue;
    ck_assert_uint_lt(n, max);
    size_t j = n++;
    while (j > 0 && out[j - 1].line > s.line) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = s;
  }
  return n;
}

/* The index of m's parallel site on source line `line` (asserted to exist). */
static size_t parallel_site_at(const ppt_progmodel *m, uint32_t line) {
  size_t si = ppt_progmodel_nsites(m);
  for (size_t i = 0; i < ppt_progmodel_nsites(m); i++) {
    ppt_progmodel_site_info x;
    ppt_progmodel_site(m, i, PPT_PROGMODEL_ALL_CORES, &x);
    if (x.parallel && x.line == line) si = i;
  }
  ck_assert_uint_lt(si, ppt_progmodel_nsites(m));
  return si;
}

/* predict's "regions" at core count index ci (largest runtime first). */
static json_object *regions_of(json_object *root, size_t ci) {
  json_object *cores, *e, *regs;
  ck_assert(json_object_object_get_ex(root, "cores", &cores));
  ck_assert_ptr_nonnull(e = json_object_array_get_idx(cores, ci));
  ck_assert(json_object_object_get_ex(e, "regions", &regs));
  return regs;
}

static double num(json_object *o, const char *key) {
  json_object *v;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
  return json_object_get_double(v);
}

/* k_two built and traced in folder d. */
static ppt_trace *trace_two(const char *d) {
  e2e_write(d, "two.c", k_two);
  ck_assert_int_eq(
      e2e_sh(d, "$PPTCC -O1 -fopenmp two.c -o two && $PPT trace -o two.trace -- ./two >/dev/null 2>&1"), 0);
  ppt_trace *t = e2e_open(d, "two.trace");
  return t;
}

START_TEST(sites_named_where_their_references_are) {
  const char *d = e2e_dir("progmodel_named");
  e2e_write(d, "named.c", k_named);
  ck_assert_int_eq(
      e2e_sh(d, "$PPTCC -O1 -fopenmp named.c -o named && $PPT trace -o n.trace -- ./named >/dev/null 2>&1"), 0);
  ppt_trace *t = e2e_open(d, "n.trace");
  ppt_hwspec hw;
  load_host(&hw);
  ppt_progmodel *m = model(t, &hw, 2);
  ppt_progmodel_site_info busiest = {0};
  for (size_t i = 0; i < ppt_progmodel_nsites(m); i++) {
    ppt_progmodel_site_info x;
    ck_assert_int_eq(ppt_progmodel_site(m, i, PPT_PROGMODEL_ALL_CORES, &x), 0);
    if (!x.parallel && x.counted_refs > busiest.counted_refs) busiest = x;
  }
  ck_assert_uint_ge(busiest.counted_refs, 1 << 15);
  ck_assert_str_eq(busiest.function, "generate");
  ck_assert_uint_eq(busiest.line, 6);
  ppt_progmodel_free(m);
  ppt_trace_close(t);
}
END_TEST

START_TEST(two_regions) {
  const char *d = e2e_dir("progmodel_two");
  ppt_trace *t = trace_two(d);
  ppt_hwspec hw;
  load_host(&hw);
  ppt_progmodel *m = model(t, &hw, 1);
  ppt_progmodel_site_info s[4];
  ck_assert_uint_eq(parallel_sites(m, s, 4), 2);
  /* the stream: one miss per 8 loads, but for the loop's own few references */
  ck_assert_msg(fabs(s[0].hit_rate[0] - (1 - 8.0 / 64)) < 2e-3, "stream L1 %g", s[0].hit_rate[0]);
  ck_assert_msg(s[1].hit_rate[0] > 0.995, "re-reads L1 %g", s[1].hit_rate[0]);
  ck_assert_uint_ge(s[0].instances, 1); /* the loop, and the region's code before it on its line */
  /* each core's tasklists use the site's own rates */
  ppt_progmodel_site_info c0;
  ck_assert_int_eq(ppt_progmodel_site(m, 0, 0, &c0), 0);
  ck_assert_int_eq(ppt_progmodel_site(m, 0, 1, &c0), PPT_EINPUT);
  /* the sites' counts sum to the run's */
  const ppt_tracesim_result *run = ppt_progmodel_hitrates(m);
  for (uint32_t k = 0; k < hw.nlevels; k++) {
    uint64_t acc = 0, miss = 0;
    for (size_t i = 0; i < ppt_progmodel_nsites(m); i++) {
      ppt_progmodel_site_info x;
      ppt_progmodel_site(m, i, PPT_PROGMODEL_ALL_CORES, &x);
      acc += x.accesses[k];
      miss += x.misses[k];
    }
    ck_assert_uint_eq(acc, run->levels[k].ref_accesses);
    ck_assert_uint_eq(miss, run->levels[k].ref_misses);
  }
  for (size_t p = 0; p < ppt_progmodel_nregions(m); p++)
    ck_assert_uint_lt(ppt_progmodel_phase_site(m, p), ppt_progmodel_nsites(m));
  ck_assert_uint_eq(ppt_progmodel_phase_site(m, ppt_progmodel_nregions(m)), UINT32_MAX);
  ppt_progmodel_free(m);
  ppt_trace_close(t);

  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict two.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1,2 --json "
                          ">p.json 2>/dev/null"),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  json_object *root = json_object_from_file(path);
  ck_assert_ptr_nonnull(root);
  json_object *regs = regions_of(root, 0);
  ck_assert_int_ge(json_object_array_length(regs), 2);
  /* the stream and the re-reads, by line; the stream costs more per reference */
  double per_ref[2] = {0, 0}, l1[2] = {0, 0}, last = INFINITY;
  for (size_t i = 0; i < json_object_array_length(regs); i++) {
    json_object *r = json_object_array_get_idx(regs, i), *lv, *kind;
    double rt = num(r, "runtime_s");
    ck_assert_double_le(rt, last);
    last = rt;
    ck_assert(json_object_object_get_ex(r, "kind", &kind));
    ck_assert(json_object_object_get_ex(r, "levels", &lv));
    /* compute_s is the ops' issue plus each kind of CPU item, to rounding */
    json_object *cp;
    ck_assert(json_object_object_get_ex(r, "compute", &cp));
    double parts = num(cp, "ops_s") + num(cp, "other_s") + num(cp, "chain_s") + num(cp, "calls_s") +
                   num(cp, "branch_miss_s") + num(cp, "tlb_s") + num(cp, "loop_exit_s");
    ck_assert_msg(fabs(parts - num(r, "compute_s")) <= 1e-9 * num(r, "compute_s") + 1e-15,
                  "parts %g, compute %g", parts, num(r, "compute_s"));
    uint32_t line = (uint32_t)num(r, "line");
    int which = line == s[0].line ? 0 : line == s[1].line ? 1 : -1;
    if (which < 0 || strcmp(json_object_get_string(kind), "parallel")) continue;
    json_object *L1 = json_object_array_get_idx(lv, 0);
    per_ref[which] = num(r, "memory_s") / num(L1, "accesses");
    l1[which] = num(L1, "hit_rate");
  }
  ck_assert_msg(fabs(l1[0] - 0.875) < 2e-3 && l1[1] > 0.995, "L1 %g %g", l1[0], l1[1]);
  ck_assert_msg(per_ref[0] > per_ref[1], "memory per reference: stream %g, re-reads %g", per_ref[0],
                per_ref[1]);
  json_object_put(root);

  /* --plot writes both images (PNG signature), and a plot that cannot be made says why
   * in one line, exit 1: a folder that does not exist, gnuplot missing from PATH. */
  const char *pr = "$PPT predict two.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1,2";
  ck_assert_int_eq(e2e_sh(d,
                          "%s --plot p.png >/dev/null 2>&1 && head -c 4 p.png | grep -q PNG && "
                          "head -c 4 p-regions.png | grep -q PNG && ! ls *.tmp* 2>/dev/null",
                          pr),
                   0);
  ck_assert_int_eq(e2e_sh(d,
                          "%s --plot nodir/p.png >/dev/null 2>err; s=$?; [ $(wc -l <err) = 1 ] && "
                          "grep -q 'nodir/p.png: cannot write plot data: No such file' err && exit $s",
                          pr),
                   1);
  ck_assert_int_eq(
      e2e_sh(d,
             "env PATH=/nonexistent %s --plot q.png >/dev/null 2>err; s=$?; ! [ -e q.png ] && "
             "[ $(wc -l <err) = 1 ] && grep -q 'gnuplot not found' err && ! ls *.tmp* 2>/dev/null "
             "&& exit $s",
             pr),
      1);

  /* Two specs compared: each spec's entry is what predicting on it alone gives. */
  const char *hw2 = "$PPT_SOURCE_DIR/hwspecs/intel-xeon-e5-2650v3.json";
  const char *cmp = "$PPT predict two.trace --cores 1,2 --hw $PPT_SOURCE_DIR/hwspecs/host.json";
  ck_assert_int_eq(e2e_sh(d, "%s,%s --json >c.json 2>/dev/null", cmp, hw2), 0);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict two.trace --hw %s --cores 1,2 --json >i.json 2>/dev/null && "
                          "for k in 0 1; do "
                          "test \"$(jq \".specs[0].cores[$k].runtime_s\" c.json)\" = "
                          "\"$(jq \".cores[$k].runtime_s\" p.json)\" && "
                          "test \"$(jq \".specs[1].cores[$k].runtime_s\" c.json)\" = "
                          "\"$(jq \".cores[$k].runtime_s\" i.json)\" "
                          "|| exit 1; done && test \"$(jq -r '.specs[1].hwspec' c.json)\" = %s",
                          hw2, hw2),
                   0);
  /* the table has a column group per spec; an empty list item is bad input */
  ck_assert_int_eq(e2e_sh(d, "%s,%s | grep -q '^comparison | host .*| intel-xeon-e5-2650v3'", cmp, hw2), 0);
  ck_assert_int_eq(e2e_sh(d, "%s, >/dev/null 2>err; test $? -eq 2 && grep -q 'none empty' err", cmp), 0);
}
END_TEST

START_TEST(core_imbalance) {
  const char *d = e2e_dir("progmodel_skew");
  e2e_write(d, "skew.c", k_skew);
  ck_assert_int_eq(
      e2e_sh(d, "$PPTCC -O1 -fopenmp skew.c -o skew && $PPT trace -o skew.trace -- ./skew >/dev/null 2>&1"),
      0);
  ppt_trace *t = e2e_open(d, "skew.trace");
  ppt_hwspec hw;
  load_host(&hw);
  ppt_progmodel *m = model(t, &hw, 2);
  ppt_progmodel_site_info s[2];
  ck_assert_uint_eq(parallel_sites(m, s, 2), 1);
  size_t si = parallel_site_at(m, s[0].line);
  ppt_progmodel_site_info c0, c1;
  ck_assert_int_eq(ppt_progmodel_site(m, si, 0, &c0), 0);
  ck_assert_int_eq(ppt_progmodel_site(m, si, 1, &c1), 0);
  ck_assert_msg(c0.hit_rate[0] < 0.05 && c1.hit_rate[0] > 0.95, "L1: core 0 %g, core 1 %g", c0.hit_rate[0],
                c1.hit_rate[0]);
  ck_assert_msg(c0.used_local[0] < 0.05 && c1.used_local[0] > 0.95, "used: %g %g", c0.used_local[0],
                c1.used_local[0]);
  ppt_progmodel_free(m);
  ppt_trace_close(t);

  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict skew.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1,2 --json "
                          ">p.json 2>/dev/null"),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  json_object *root = json_object_from_file(path);
  ck_assert_ptr_nonnull(root);
  json_object *top = json_object_array_get_idx(regions_of(root, 1), 0);
  ck_assert_uint_eq((uint32_t)num(top, "line"), s[0].line);
  ck_assert_msg(num(top, "imbalance_s") > 0.2 * num(top, "runtime_s"), "imbalance %g of %g s",
                num(top, "imbalance_s"), num(top, "runtime_s"));
  json_object_put(root);
}
END_TEST

/* The engine's runtime of m on n cores (no fork-join cost). */
static double seconds(const ppt_hwspec *hw, const ppt_progmodel *m, uint32_t n) {
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = n;
  ppt_node *node;
  ppt_node_result *res;
  ppt_err err;
  ck_assert_msg(ppt_node_new(hw, &cfg, &node, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_node_run(node, ppt_progmodel_program(m), &res, &err) == 0, "%s", err.msg);
  double s = ppt_node_result_seconds(res);
  ppt_node_result_free(res);
  ppt_node_free(node);
  return s;
}

static ppt_progmodel *weighted(const ppt_trace *t, const ppt_hwspec *hw, const double *w) {
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = 1;
  ppt_progmodel_weights pw = {w, w};
  ppt_progmodel *m;
  ppt_err err;
  ck_assert_msg(ppt_progmodel_build_weighted(t, hw, &o, NULL, NULL, &pw, &m, &err) == 0, "%s", err.msg);
  return m;
}

/* weights_and_shift, the run's L1 misses doubled (m's time: doubled): the L2 accesses
 * site si of the stream gains (x0 -> 2 x0 L1 misses, L2 misses x1 unmoved) all queued on
 * one set: its L2 same-set share becomes the traced share for the w = base / now it had
 * and 1 for the rest; 0 for none; NULL: the trace's shares, as before. */
static void check_gains(ppt_progmodel *m, const ppt_hwspec *hw, size_t si, double doubled) {
  ppt_err err;
  ppt_progmodel_site_info c0;
  ck_assert_int_eq(ppt_progmodel_site(m, si, 0, &c0), 0);
  double before = c0.used_same_set[1], bunched[PPT_HW_MAX_LEVELS + 1];
  ppt_progmodel_site_info all;
  ck_assert_int_eq(ppt_progmodel_site(m, si, PPT_PROGMODEL_ALL_CORES, &all), 0);
  double refs = (double)all.counted_refs, x0 = (double)all.misses[0] / refs,
         x1 = (double)all.misses[1] / refs;
  double wb = (x0 - x1) / (2 * x0 - x1);
  for (uint32_t k = 0; k <= hw->nlevels; k++) bunched[k] = NAN;
  for (int b = 0; b <= 1; b++) {
    bunched[1] = b;
    ck_assert_int_eq(ppt_progmodel_shift_gains(m, NULL, bunched, &err), 0);
    ck_assert_int_eq(ppt_progmodel_site(m, si, 0, &c0), 0);
    ck_assert_msg(fabs(c0.used_same_set[1] - (wb * before + (1 - wb) * b)) < 1e-12,
                  "bunched %d: L2 %g, want %g", b, c0.used_same_set[1], wb * before + (1 - wb) * b);
  }
  bunched[1] = 1.5;
  ck_assert_int_eq(ppt_progmodel_shift_gains(m, NULL, bunched, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_progmodel_shift_gains(m, NULL, NULL, &err), 0);
  ck_assert_int_eq(ppt_progmodel_site(m, si, 0, &c0), 0);
  ck_assert_double_eq(c0.used_same_set[1], before);
  ck_assert_double_eq(seconds(hw, m, 1), doubled);
}

/* weights_and_shift: sites si (the stream) and ri (the re-reads) moved by their own
 * blocks, the run's misses at from (to: scratch). */
static void check_sites(ppt_progmodel *m, const ppt_trace *t, const ppt_hwspec *hw, size_t si, size_t ri,
                        double *from, double *to) {
  ppt_err err;
  ppt_progmodel_site_info c0;
  uint32_t nb = ppt_trace_nbbs(t);
  /* Sites by their own blocks: the run unmoved (g -> g), the stream's blocks (line 7 of
   * two.c) half as many L1 misses, the re-reads' (line 9) four times as many: each site's
   * ratio x moves by its blocks' (mult: 1/2, 4; other sites 1, no block known), then all
   * by the one factor that keeps the run's: x' = f mult x, f = sum x n / sum mult x n. */
  to[0] = from[0];
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, from, to, &err), 0);
  double *bt[PPT_HW_MAX_LEVELS], *bx[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    bt[k] = malloc(((size_t)nb + 1) * sizeof *bt[k]);
    bx[k] = malloc(((size_t)nb + 1) * sizeof *bx[k]);
    for (uint32_t b = 0; b <= nb; b++) {
      uint32_t line = b ? ppt_trace_bb_get(t, b)->line : 0;
      int known = k == 0 && (line == 7 || line == 9);
      bt[k][b] = known ? 0.1 : NAN;
      bx[k][b] = known ? (line == 7 ? 0.05 : 0.4) : NAN;
    }
  }
  double sum = 0, moved = 0, x_site[2] = {0}, mult[2] = {0.5, 4};
  for (size_t i = 0; i < ppt_progmodel_nsites(m); i++) {
    ppt_progmodel_site_info x;
    ck_assert_int_eq(ppt_progmodel_site(m, i, PPT_PROGMODEL_ALL_CORES, &x), 0);
    double xi = x.accesses[0] ? (double)x.misses[0] / (double)x.accesses[0] : 0, n = (double)x.counted_refs;
    int which = i == si ? 0 : i == ri ? 1 : -1;
    sum += xi * n;
    moved += (which >= 0 ? mult[which] : 1) * xi * n;
    if (which >= 0) x_site[which] = xi;
  }
  ck_assert_int_eq(ppt_progmodel_shift_sites(m, (const double *const *)bt, (const double *const *)bx, &err),
                   0);
  for (int which = 0; which < 2; which++) {
    ck_assert_int_eq(ppt_progmodel_site(m, which ? ri : si, 0, &c0), 0);
    double want = 1 - sum / moved * mult[which] * x_site[which];
    /* (the simulation's reference counts and the blocks' differ by the few references
     * that span two lines) */
    ck_assert_msg(fabs(c0.used_local[0] - want) < 1e-4, "site %d: L1 %g, want %g", which, c0.used_local[0],
                  want);
    ck_assert_double_gt(fabs(want - (1 - x_site[which])), 1e-3); /* not the run's unmoved ratio */
  }
  ck_assert_int_eq(ppt_progmodel_shift_sites(m, NULL, NULL, &err), 0);
  ck_assert_int_eq(ppt_progmodel_site(m, si, 0, &c0), 0);
  ck_assert_double_eq_tol(c0.used_local[0], 1 - x_site[0], 1e-12);
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, NULL, NULL, &err), 0);
  ck_assert_int_eq(ppt_progmodel_shift_sites(m, (const double *const *)bt, (const double *const *)bx, &err),
                   PPT_EINPUT); /* the run's misses not moved */
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    free(bt[k]);
    free(bx[k]);
  }
}

/* Problem-size scaling's two handles on the model (ppt extrapolate): block weights of 1
 * change nothing, weights of 2 double the time (no fork-join cost, every item of a
 * tasklist is linear in its counts); moving the run's L1 misses from g to 2g doubles
 * the stream region's L1 misses (local rate 1 - 2 x its miss ratio), a move from g to
 * g changes no time, and no move gives the simulated model back. */
START_TEST(weights_and_shift) {
  ppt_trace *t = trace_two(e2e_dir("progmodel_weights"));
  ppt_hwspec hw;
  load_host(&hw);
  uint32_t nb = ppt_trace_nbbs(t);
  double *one = malloc(((size_t)nb + 1) * sizeof *one), *two = malloc(((size_t)nb + 1) * sizeof *two);
  for (uint32_t b = 0; b <= nb; b++) {
    one[b] = 1;
    two[b] = 2;
  }
  ppt_progmodel *m = model(t, &hw, 1), *m1 = weighted(t, &hw, one), *m2 = weighted(t, &hw, two);
  double base = seconds(&hw, m, 1);
  ck_assert(base > 0);
  ck_assert_double_eq(seconds(&hw, m1, 1), base);
  double twice = seconds(&hw, m2, 1);
  ck_assert_msg(fabs(twice / (2 * base) - 1) < 1e-9, "weights 2: %g s, 2 x %g s", twice, base);

  ppt_progmodel_site_info s[2];
  ck_assert_uint_eq(parallel_sites(m, s, 2), 2);
  size_t si = parallel_site_at(m, s[0].line);
  const ppt_tracesim_result *run = ppt_progmodel_hitrates(m);
  double from[PPT_HW_MAX_LEVELS], to[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < hw.nlevels; k++)
    from[k] = to[k] = (double)run->levels[k].ref_misses / (double)run->counted_refs;
  ck_assert(from[0] >= 1e-3 && from[0] < 0.4);
  ppt_err err;
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, from, to, &err), 0);
  double same = seconds(&hw, m, 1);
  ck_assert_msg(fabs(same / base - 1) < 1e-9, "g -> g: %g s, unshifted %g s", same, base);
  to[0] = 2 * from[0];
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, from, to, &err), 0);
  ppt_progmodel_site_info c0;
  ck_assert_int_eq(ppt_progmodel_site(m, si, 0, &c0), 0);
  double g = 1 - c0.hit_rate[0]; /* the stream's L1 miss ratio, simulated (unchanged) */
  ck_assert_msg(g > 0.1 && g < 0.2, "stream L1 misses %g", g);
  ck_assert_msg(fabs(c0.used_local[0] - (1 - 2 * g)) < 1e-12, "used L1 %g, want %g", c0.used_local[0],
                1 - 2 * g);
  double doubled = seconds(&hw, m, 1);
  ck_assert(doubled > base);
  check_gains(m, &hw, si, doubled);
  check_sites(m, t, &hw, si, parallel_site_at(m, s[1].line), from, to);
  to[0] = 2 * from[0];
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, from, to, &err), 0);
  from[0] = 1.5;
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, from, to, &err), PPT_EINPUT);
  ck_assert_double_eq_tol(ppt_progmodel_site(m, si, 0, &c0) == 0 ? c0.used_local[0] : -1, 1 - 2 * g, 1e-12);
  ck_assert_int_eq(ppt_progmodel_shift_misses(m, NULL, NULL, &err), 0);
  ck_assert_double_eq(seconds(&hw, m, 1), base);
  /* Two cores: the site's L1 ratio over both moves by the run's ratio, G -> 2G; each core
   * keeps its own pattern for the half of the target's misses the traced size had (w =
   * 1/2) and takes the rest by its share of the level's accesses (L1: all its
   * references, r = 1): x' = g_c / 2 + (2G - G / 2), used L1 1 - x'. */
  ppt_progmodel *m2c = model(t, &hw, 2);
  size_t sj = parallel_site_at(m2c, s[0].line);
  const ppt_tracesim_result *r2 = ppt_progmodel_hitrates(m2c);
  double f2[PPT_HW_MAX_LEVELS], t2[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < hw.nlevels; k++)
    f2[k] = t2[k] = (double)r2->levels[k].ref_misses / (double)r2->counted_refs;
  t2[0] = 2 * f2[0];
  ppt_progmodel_site_info k0, k1;
  ck_assert_int_eq(ppt_progmodel_site(m2c, sj, 0, &k0), 0);
  ck_assert_int_eq(ppt_progmodel_site(m2c, sj, 1, &k1), 0);
  double G = (double)(k0.misses[0] + k1.misses[0]) / (double)(k0.accesses[0] + k1.accesses[0]);
  double g0 = (double)k0.misses[0] / (double)k0.accesses[0],
         g1 = (double)k1.misses[0] / (double)k1.accesses[0];
  fprintf(stderr, "two cores: L1 miss ratios %.6f and %.6f, site %.6f\n", g0, g1, G);
  ck_assert_int_eq(ppt_progmodel_shift_misses(m2c, f2, t2, &err), 0);
  ck_assert_int_eq(ppt_progmodel_site(m2c, sj, 0, &k0), 0);
  ck_assert_int_eq(ppt_progmodel_site(m2c, sj, 1, &k1), 0);
  double w0 = 1 - (g0 / 2 + 1.5 * G), w1 = 1 - (g1 / 2 + 1.5 * G);
  ck_assert_msg(fabs(k0.used_local[0] - w0) < 1e-12, "core 0: used L1 %g, want %g", k0.used_local[0], w0);
  ck_assert_msg(fabs(k1.used_local[0] - w1) < 1e-12, "core 1: used L1 %g, want %g", k1.used_local[0], w1);
  ppt_progmodel_free(m2c);
  /* The data TLB (host.json has two levels): unmoved, the same time; the last level's
   * misses (page walks) up by 100x, slower; a ratio out of range refused. */
  ck_assert_uint_eq(run->ntlb, 2);
  double tf[PPT_HW_MAX_TLB], tt[PPT_HW_MAX_TLB];
  tf[1] = (double)run->tlb_served[2] / (double)run->counted_refs;
  tf[0] = tf[1] + (double)run->tlb_served[1] / (double)run->counted_refs;
  memcpy(tt, tf, sizeof tt);
  ck_assert_int_eq(ppt_progmodel_shift_tlb(m, tf, tt, &err), 0);
  ck_assert_msg(fabs(seconds(&hw, m, 1) / base - 1) < 1e-9, "TLB g -> g");
  tt[0] = tt[1] = fmin(1, 100 * tf[1] + 1e-3);
  ck_assert_int_eq(ppt_progmodel_shift_tlb(m, tf, tt, &err), 0);
  ck_assert_msg(seconds(&hw, m, 1) > base * 1.001, "100x the page walks: no slower");
  tt[0] = -1;
  ck_assert_int_eq(ppt_progmodel_shift_tlb(m, tf, tt, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_progmodel_shift_tlb(m, NULL, NULL, &err), 0);
  ck_assert_double_eq(seconds(&hw, m, 1), base);
  ppt_progmodel_free(m);
  ppt_progmodel_free(m1);
  ppt_progmodel_free(m2);
  free(one);
  free(two);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_regions");
  TCase *tc = tcase_create("regions");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, takes_sum_to_totals);
  tcase_add_test(tc, slots_split_takes);
  tcase_add_test(tc, sites_named_where_their_references_are);
  tcase_add_test(tc, two_regions);
  tcase_add_test(tc, core_imbalance);
  tcase_add_test(tc, weights_and_shift);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
