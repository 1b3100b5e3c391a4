/* test_tracesim.c — the simulator driven by a trace (ppt/tracesim.h), against oracles:
 *  - analytic: a cyclic sweep over M lines repeated K times in a fully associative LRU
 *    cache of C lines misses M times when M <= C and M·K times when M > C;
 *  - brute force: the same records fed by hand to ppt_cachesim_access in round-robin
 *    (and seeded uniform) order, four threads, private L1, L2 shared by two, inclusive L3
 *    shared by four;
 *  - a hand-worked example of the function filter, with exact counts;
 *  - line-access versus reference counting of accesses that straddle two lines. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/cachesim.h"
#include "ppt/tracesim.h"
#include "tsynth.h"

static void load_hw(const char *json, ppt_hwspec *hw) {
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(json, "test-hw", hw, &err) == 0, "%s", err.msg);
}

/* Writes the streams, opens the trace and simulates it with opts. */
static void run_trace(const char *name, const ts_stream *s, uint32_t nthreads, const char *const *funcs,
                      uint32_t nbbs, const ppt_hwspec *hw, const ppt_tracesim_opts *o,
                      ppt_tracesim_result *r) {
  char path[700];
  snprintf(path, sizeof path, "%s/t.trace", ts_dir(name));
  ck_assert_int_eq(ts_write(path, s, nthreads, funcs, nbbs), 0);
  ppt_trace *t;
  ppt_err err;
  ck_assert_msg(ppt_trace_open(path, &t, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_tracesim_run(t, hw, o, r, &err) == 0, "%s", err.msg);
  ppt_trace_close(t);
}

static const char *const one_func[] = {"kernel"};

/* Fully associative L1 of 64 lines, L2 of 256 lines (1 set each: exact LRU). */
static const char *FA_HW =
    "{\"name\": \"fa\", \"cores\": 1, \"levels\": ["
    "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 64, \"line\": 64},"
    "{\"name\": \"L2\", \"size\": 16384, \"assoc\": 256, \"line\": 64}]}";

static void sweep(uint32_t m, uint32_t k, uint64_t l1_miss, uint64_t l2_miss) {
  ppt_hwspec hw;
  load_hw(FA_HW, &hw);
  ts_stream s = {0};
  ts_bb(&s, 1);
  for (uint32_t rep = 0; rep < k; rep++) {
    for (uint32_t i = 0; i < m; i++) {
      ts_mem(&s, (i % 3) == 0, 0x40000000ull + 64ull * i + 8 * (rep % 8), 8);
      if (i % 17 == 0) ts_bb(&s, 1); /* block entries are not references */
    }
  }
  ppt_tracesim_result r;
  run_trace("sweep", &s, 1, one_func, 1, &hw, NULL, &r);
  uint64_t refs = (uint64_t)m * k;
  ck_assert_uint_eq(r.nlevels, 2);
  ck_assert_uint_eq(r.threads, 1);
  ck_assert_uint_eq(r.refs, refs);
  ck_assert_uint_eq(r.counted_refs, refs);
  ck_assert_str_eq(r.levels[0].name, "L1");
  ck_assert_str_eq(r.levels[1].name, "L2");
  ck_assert_uint_eq(r.levels[0].accesses, refs);
  ck_assert_uint_eq(r.levels[0].misses, l1_miss);
  ck_assert_uint_eq(r.levels[1].accesses, l1_miss);
  ck_assert_uint_eq(r.levels[1].misses, l2_miss);
  /* Each access stays within a line: references and line accesses agree. */
  for (int lv = 0; lv < 2; lv++) {
    ck_assert_uint_eq(r.levels[lv].ref_accesses, r.levels[lv].accesses);
    ck_assert_uint_eq(r.levels[lv].ref_misses, r.levels[lv].misses);
  }
  ck_assert_double_eq_tol(r.levels[0].hit_rate, 1.0 - (double)l1_miss / (double)refs, 1e-12);
  ck_assert_double_eq_tol(r.levels[1].hit_rate, 1.0 - (double)l2_miss / (double)refs, 1e-12);
  ck_assert_double_eq_tol(r.levels[1].local_hit_rate, 1.0 - (double)l2_miss / (double)l1_miss, 1e-12);
  ts_free(&s);
}

START_TEST(sweep_below_capacity) {
  sweep(48, 7, 48, 48);
}
END_TEST
START_TEST(sweep_between_levels) {
  sweep(80, 5, 400, 80);
}
END_TEST
START_TEST(sweep_above_capacity) {
  sweep(300, 4, 1200, 1200);
}
END_TEST
START_TEST(sweep_exactly_capacity) {
  sweep(64, 6, 64, 64);
}
END_TEST
START_TEST(sweep_one_over_capacity) {
  sweep(65, 6, 390, 65);
}
END_TEST

/* 16-byte accesses at offset 56 of line i touch lines i and i+1: M references over
 * M+1 lines, all in a 64-line cache. First pass: every line access of line i+1 misses,
 * line 0 misses too (M+1 line misses) while every reference misses once (M). */
START_TEST(straddling_accesses) {
  ppt_hwspec hw;
  load_hw(FA_HW, &hw);
  ts_stream s = {0};
  ts_bb(&s, 1);
  const uint32_t m = 40, k = 3;
  for (uint32_t rep = 0; rep < k; rep++)
    for (uint32_t i = 0; i < m; i++) ts_mem(&s, 0, 0x10000ull + 64ull * i + 56, 16);
  ppt_tracesim_result r;
  run_trace("straddle", &s, 1, one_func, 1, &hw, NULL, &r);
  ck_assert_uint_eq(r.refs, m * k);
  ck_assert_uint_eq(r.line_refs, 2 * m * k);
  ck_assert_uint_eq(r.levels[0].accesses, 2 * m * k);
  ck_assert_uint_eq(r.levels[0].misses, m + 1);
  ck_assert_uint_eq(r.levels[0].ref_accesses, m * k);
  ck_assert_uint_eq(r.levels[0].ref_misses, m);
  ck_assert_uint_eq(r.levels[1].accesses, m + 1);
  ck_assert_uint_eq(r.levels[1].ref_accesses, m);
  ck_assert_uint_eq(r.levels[1].misses, m + 1);
  ck_assert_uint_eq(r.levels[1].ref_misses, m);
  ck_assert_double_eq_tol(r.levels[0].ref_hit_rate, 1.0 - (double)m / (m * k), 1e-12);
  ts_free(&s);
}
END_TEST

/* The function filter on a hand-worked sequence in a 4-line fully associative cache.
 * Blocks: 1 kern_a, 2 kern_b, 3 other, 4 kern_ab. "other" evicts kern_a's line, which is
 * simulated but not counted: kern_a then misses again. */
static const char *const filt_funcs[] = {"kern_a", "kern_b", "other", "kern_ab"};
static const char *TINY_HW =
    "{\"name\": \"tiny\", \"cores\": 1, \"levels\": ["
    "{\"name\": \"L1\", \"size\": 256, \"assoc\": 4, \"line\": 64}]}";

static void filter_stream(ts_stream *s) {
  const uint64_t a = 0x10000;
  ts_mem(s, 0, 0x1000, 8); /* before any block: bb 0, never counted by a filter */
  ts_bb(s, 1);
  ts_mem(s, 0, a, 8);     /* miss */
  ts_mem(s, 0, a + 8, 8); /* hit */
  ts_event(s, PPT_EV_LOOP_BEGIN);
  ts_mem(s, 1, a, 4); /* hit (store) */
  ts_bb(s, 3);
  for (int i = 0; i < 4; i++) ts_mem(s, 0, 0x20000 + 64 * i, 8); /* 4 misses, evict a and 0x1000 */
  ts_bb(s, 1);
  ts_mem(s, 0, a, 8); /* miss: evicted by "other" */
  ts_bb(s, 2);
  ts_mem(s, 0, 0x200c0, 8); /* hit */
  ts_bb(s, 4);
  ts_mem(s, 1, 0x20000, 2); /* miss: evicted when a came back */
}

static void run_filter(const char *const *only, size_t n, ppt_tracesim_result *r) {
  ppt_hwspec hw;
  load_hw(TINY_HW, &hw);
  ts_stream s = {0};
  filter_stream(&s);
  ppt_tracesim_opts o = {.only = only, .nonly = n};
  run_trace("filter", &s, 1, filt_funcs, 4, &hw, &o, r);
  ts_free(&s);
}

START_TEST(filter_exact) {
  ppt_tracesim_result r;
  run_filter(NULL, 0, &r); /* everything: 11 references, 8 misses */
  ck_assert_uint_eq(r.refs, 11);
  ck_assert_uint_eq(r.levels[0].accesses, 11);
  ck_assert_uint_eq(r.levels[0].misses, 8);

  const char *a[] = {"kern_a"}; /* kern_a and kern_ab: A, A+8, store A, A, store 0x20040 */
  run_filter(a, 1, &r);
  ck_assert_uint_eq(r.refs, 11);
  ck_assert_uint_eq(r.counted_refs, 5);
  ck_assert_uint_eq(r.counted_loads, 3);
  ck_assert_uint_eq(r.counted_stores, 2);
  ck_assert_uint_eq(r.levels[0].accesses, 5);
  ck_assert_uint_eq(r.levels[0].misses, 3);
  ck_assert_double_eq_tol(r.levels[0].hit_rate, 0.4, 1e-12);

  const char *b[] = {"kern_b"};
  run_filter(b, 1, &r);
  ck_assert_uint_eq(r.levels[0].accesses, 1);
  ck_assert_uint_eq(r.levels[0].misses, 0);

  const char *ab[] = {"kern_b", "kern_ab"}; /* a list: either prefix */
  run_filter(ab, 2, &r);
  ck_assert_uint_eq(r.levels[0].accesses, 2);
  ck_assert_uint_eq(r.levels[0].misses, 1);

  const char *o[] = {"oth"};
  run_filter(o, 1, &r);
  ck_assert_uint_eq(r.levels[0].accesses, 4);
  ck_assert_uint_eq(r.levels[0].misses, 4);

  const char *none[] = {"nothing"};
  run_filter(none, 1, &r);
  ck_assert_uint_eq(r.counted_refs, 0);
  ck_assert_uint_eq(r.levels[0].accesses, 0);
  ck_assert(isnan(r.levels[0].hit_rate));
  ck_assert(isnan(r.levels[0].local_hit_rate));
}
END_TEST

/* Four threads of random references (some straddling lines), with block entries of four
 * functions and events mixed in; long enough for several chunks per thread. Thread 1 ends
 * first, then 3, then 2: round-robin must drop each and go on in the same order
 * (0, 2, 3, 0, 2, 3, ... — not 0, 3, 2). */
#define NT 4
static const char *MT_HW =
    "{\"name\": \"mt\", \"cores\": 4, \"levels\": ["
    "{\"name\": \"L1\", \"size\": 2048, \"assoc\": 4, \"line\": 64},"
    "{\"name\": \"L2\", \"size\": 16384, \"assoc\": 8, \"line\": 64, \"shared_by\": 2},"
    "{\"name\": \"L3\", \"size\": 65536, \"assoc\": 16, \"line\": 64, \"shared_by\": 4, \"inclusive\": "
    "true}]}";

static void random_streams(ts_stream *s) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 42);
  const size_t nrefs[NT] = {160000, 60000, 130000, 90000};
  for (int th = 0; th < NT; th++) {
    s[th] = (ts_stream){0};
    for (size_t i = 0; i < nrefs[th]; i++) {
      if (i % 6 == 0) ts_bb(&s[th], 1 + (uint32_t)gsl_rng_uniform_int(g, 4));
      if (i % 1000 == 999) ts_event(&s[th], PPT_EV_LOOP_CHUNK);
      /* a shared region of 1536 lines and a private one of 512 lines per thread */
      uint64_t base = gsl_rng_uniform(g) < 0.6 ? 0x100000 : 0x800000 + 0x100000 * (uint64_t)th;
      uint64_t lines = base == 0x100000 ? 1536 : 512;
      uint64_t addr = base + 64 * gsl_rng_uniform_int(g, lines) + gsl_rng_uniform_int(g, 64);
      uint8_t size = (uint8_t)(1u << gsl_rng_uniform_int(g, 5));
      ts_mem(&s[th], gsl_rng_uniform(g) < 0.3, addr, size);
    }
  }
  gsl_rng_free(g);
}

/* Oracle counters: the simulator's own (line accesses), and per reference from the
 * return value of whole (unsplit) accesses; `counted` says which blocks are counted. */
typedef struct oracle {
  uint64_t acc[3], miss[3], racc[3], rmiss[3];
} oracle;

static void oracle_ref(ppt_cachesim *sim, uint32_t th, const ppt_trace_rec *rec, const int *counted,
                       oracle *o) {
  int d = ppt_cachesim_access(sim, th, rec->addr, rec->size, rec->kind == PPT_REC_STORE);
  ck_assert_int_ge(d, 0);
  if (!counted[rec->bb]) return;
  for (int k = 0; k < 3; k++) {
    o->racc[k] += k <= d;
    o->rmiss[k] += k < d;
  }
}

/* Next memory record of stream s from *pos, or NULL at its end. */
static const ppt_trace_rec *next_mem(const ts_stream *s, size_t *pos) {
  while (*pos < s->n) {
    const ppt_trace_rec *c = &s->r[(*pos)++];
    if (c->kind == PPT_REC_LOAD || c->kind == PPT_REC_STORE) return c;
  }
  return NULL;
}

/* Replays the streams in round-robin (uniform == 0) or seeded uniform order. */
static void oracle_run(const ts_stream *s, const ppt_hwspec *hw, int uniform, uint64_t seed,
                       const int *counted, oracle *o, int use_sim_counters) {
  ppt_cachesim *sim;
  ppt_err err;
  ck_assert_int_eq(ppt_cachesim_new(hw, NT, &sim, &err), 0);
  size_t pos[NT] = {0};
  memset(o, 0, sizeof *o);
  if (!uniform) {
    int live[NT] = {1, 1, 1, 1}, nlive = NT;
    while (nlive) {
      for (uint32_t th = 0; th < NT; th++) {
        if (!live[th]) continue;
        const ppt_trace_rec *rec = next_mem(&s[th], &pos[th]);
        if (!rec)
          live[th] = 0, nlive--;
        else
          oracle_ref(sim, th, rec, counted, o);
      }
    }
  } else {
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, (unsigned long)seed);
    uint32_t act[NT] = {0, 1, 2, 3};
    size_t na = NT;
    while (na) {
      size_t i = na > 1 ? gsl_rng_uniform_int(g, na) : 0;
      const ppt_trace_rec *rec = next_mem(&s[act[i]], &pos[act[i]]);
      if (!rec) {
        for (size_t j = i + 1; j < na; j++) act[j - 1] = act[j];
        na--;
        continue;
      }
      oracle_ref(sim, act[i], rec, counted, o);
    }
    gsl_rng_free(g);
  }
  if (use_sim_counters) {
    for (uint32_t k = 0; k < 3; k++) {
      ppt_cachesim_counts c;
      ck_assert_int_eq(ppt_cachesim_level_counts(sim, k, &c, &err), 0);
      o->acc[k] = c.accesses;
      o->miss[k] = c.misses;
    }
  }
  ppt_cachesim_free(sim);
}

static const char *const mt_funcs[] = {"kern_a", "kern_b", "other", "kern_ab"};

static void check_against(const ppt_tracesim_result *r, const oracle *o, int lines_too) {
  for (int k = 0; k < 3; k++) {
    if (lines_too) {
      ck_assert_uint_eq(r->levels[k].accesses, o->acc[k]);
      ck_assert_uint_eq(r->levels[k].misses, o->miss[k]);
    }
    ck_assert_uint_eq(r->levels[k].ref_accesses, o->racc[k]);
    ck_assert_uint_eq(r->levels[k].ref_misses, o->rmiss[k]);
  }
}

START_TEST(threads_rr_and_uniform_vs_brute_force) {
  ppt_hwspec hw;
  load_hw(MT_HW, &hw);
  ts_stream s[NT];
  random_streams(s);
  char path[700];
  snprintf(path, sizeof path, "%s/mt.trace", ts_dir("mt"));
  ck_assert_int_eq(ts_write(path, s, NT, mt_funcs, 4), 0);
  ppt_trace *t;
  ppt_err err;
  ck_assert_msg(ppt_trace_open(path, &t, &err) == 0, "%s", err.msg);
  ck_assert_uint_ge(ppt_trace_thread_nchunks(t, 0), 2); /* the cursors cross chunks */
  ck_assert_uint_ge(ppt_trace_thread_nchunks(t, 2), 2);

  const int all[5] = {1, 1, 1, 1, 1};
  oracle o;
  ppt_tracesim_result rr, un, un2;
  ck_assert_msg(ppt_tracesim_run(t, &hw, NULL, &rr, &err) == 0, "%s", err.msg);
  oracle_run(s, &hw, 0, 0, all, &o, 1);
  check_against(&rr, &o, 1);
  ck_assert_uint_eq(rr.threads, NT);
  ck_assert_uint_eq(rr.refs, 440000);
  ck_assert_uint_gt(rr.line_refs, rr.refs); /* some accesses straddle lines */
  ck_assert_uint_gt(rr.levels[2].misses, 0);

  ppt_tracesim_opts uo = {.interleave = PPT_INTERLEAVE_UNIFORM, .seed = 9};
  ck_assert_msg(ppt_tracesim_run(t, &hw, &uo, &un, &err) == 0, "%s", err.msg);
  oracle_run(s, &hw, 1, 9, all, &o, 1);
  check_against(&un, &o, 1);
  /* The order matters in the shared levels (and, through the inclusive L3's
   * back-invalidations, even in the private L1s). */
  ck_assert_uint_ne(un.levels[1].misses, rr.levels[1].misses);
  ck_assert_msg(ppt_tracesim_run(t, &hw, &uo, &un2, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(un2.levels[2].misses, un.levels[2].misses); /* seeded: repeatable */

  /* Filter "kern_a" counts blocks 1 (kern_a) and 4 (kern_ab). */
  const int ka[5] = {0, 1, 0, 0, 1}, kb_other[5] = {0, 0, 1, 1, 0};
  const char *pa[] = {"kern_a"}, *pbo[] = {"kern_b", "other"};
  ppt_tracesim_opts fa = {.only = pa, .nonly = 1}, fb = {.only = pbo, .nonly = 2};
  ppt_tracesim_result ra, rb;
  ck_assert_msg(ppt_tracesim_run(t, &hw, &fa, &ra, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_tracesim_run(t, &hw, &fb, &rb, &err) == 0, "%s", err.msg);
  oracle_run(s, &hw, 0, 0, ka, &o, 0);
  check_against(&ra, &o, 0);
  oracle_run(s, &hw, 0, 0, kb_other, &o, 0);
  check_against(&rb, &o, 0);
  /* The two filters partition the references: line counts add up to the unfiltered ones. */
  for (int k = 0; k < 3; k++) {
    ck_assert_uint_eq(ra.levels[k].accesses + rb.levels[k].accesses, rr.levels[k].accesses);
    ck_assert_uint_eq(ra.levels[k].misses + rb.levels[k].misses, rr.levels[k].misses);
  }
  ck_assert_uint_eq(ra.counted_refs + rb.counted_refs, rr.refs);
  ck_assert_uint_gt(ra.counted_refs, 0);
  ck_assert_uint_gt(rb.counted_refs, 0);
  ppt_trace_close(t);
  for (int th = 0; th < NT; th++) ts_free(&s[th]);
}
END_TEST

START_TEST(bad_inputs) {
  ppt_hwspec hw;
  load_hw(FA_HW, &hw);
  ts_stream s = {0};
  ts_bb(&s, 1);
  ts_mem(&s, 0, 64, 8);
  char path[700];
  snprintf(path, sizeof path, "%s/b.trace", ts_dir("bad"));
  ck_assert_int_eq(ts_write(path, &s, 1, one_func, 1), 0);
  ts_free(&s);
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(path, &t, &err), 0);
  ppt_tracesim_result r;
  ppt_tracesim_opts o = {.interleave = (ppt_interleave)7};
  ck_assert_int_eq(ppt_tracesim_run(t, &hw, &o, &r, &err), PPT_EINPUT);
  ppt_tracesim_opts o2 = {.nonly = 1};
  ck_assert_int_eq(ppt_tracesim_run(t, &hw, &o2, &r, &err), PPT_EINPUT);
  ppt_hwspec bad = hw;
  bad.levels[0].size = 100; /* not a multiple of the line */
  ck_assert_int_eq(ppt_tracesim_run(t, &bad, NULL, &r, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_tracesim_run(t, &hw, NULL, &r, &err), 0);
  ck_assert_uint_eq(r.levels[0].misses, 1);
  ppt_trace_close(t);

  ppt_interleave il;
  ck_assert_int_eq(ppt_interleave_parse("uniform", &il), 0);
  ck_assert_int_eq(il, PPT_INTERLEAVE_UNIFORM);
  ck_assert_int_eq(ppt_interleave_parse("rr", &il), 0);
  ck_assert_int_eq(il, PPT_INTERLEAVE_RR);
  ck_assert_int_ne(ppt_interleave_parse("zigzag", &il), 0);
  ck_assert_str_eq(ppt_interleave_name(PPT_INTERLEAVE_UNIFORM), "uniform");
}
END_TEST

/* Misses queued on one first-level set (cache/missq.h) as tracesim counts them. An L1 of
 * 8 sets (4 KiB, 8-way: lines 512 B apart share a set). A sequential sweep of 64 lines
 * never has 4 of its last 8 misses in one set; a column walk of 64 lines 512 B apart
 * that follows it has all of them there from its fifth miss on (its first four find 1,
 * 1, 2 and 3 earlier misses of their set among the last 8). Every access is a first
 * touch, served by memory; every third one of the walk (i % 3 == 0) is a store, 20 of
 * them among walk misses 4..63. */
START_TEST(same_set_counts) {
  ppt_hwspec hw;
  load_hw("{\"name\": \"ss\", \"cores\": 1, \"levels\": ["
          "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 8, \"line\": 64},"
          "{\"name\": \"L2\", \"size\": 65536, \"assoc\": 1024, \"line\": 64}]}",
          &hw);
  ts_stream s = {0};
  ts_bb(&s, 1);
  for (uint64_t i = 0; i < 64; i++) ts_mem(&s, 0, 0x10000000ull + 64 * i, 8);
  for (uint64_t i = 0; i < 64; i++) ts_mem(&s, i % 3 == 0, 0x20000000ull + 512 * i, 8);
  ppt_tracesim_result r;
  run_trace("sameset", &s, 1, one_func, 1, &hw, NULL, &r);
  ck_assert_uint_eq(r.served[2], 128);
  ck_assert_uint_eq(r.same_set[2], 60);
  ck_assert_uint_eq(r.same_set_stores[2], 20);
  ck_assert_uint_eq(r.same_set[0] + r.same_set[1], 0);
  ts_free(&s);
}
END_TEST


/* Cache-to-cache transfers (cache/owner.h) as tracesim counts them. Two threads, private
 * L1 and L2, an L3 both share; round-robin. Thread 0 stores lines A and B; thread 1 loads
 * Z, A, B, A. Its loads of A and B miss its private levels and find the lines in the L3,
 * stored last by thread 0, whose L1 still holds them: two transfers at the L3. Its second
 * load of A hits its own L1. Thread 0 then loads A again: a hit in its own L1, nothing. */
START_TEST(transfer_counts) {
  ppt_hwspec hw;
  load_hw("{\"name\": \"x\", \"cores\": 2, \"levels\": ["
          "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 8, \"line\": 64},"
          "{\"name\": \"L2\", \"size\": 16384, \"assoc\": 8, \"line\": 64},"
          "{\"name\": \"L3\", \"size\": 65536, \"assoc\": 16, \"line\": 64, \"shared_by\": 2}]}",
          &hw);
  const uint64_t A = 0x10000, B = 0x10040, Z = 0x20000;
  ts_stream s[2] = {{0}, {0}};
  ts_bb(&s[0], 1);
  ts_bb(&s[1], 1);
  ts_mem(&s[0], 1, A, 8);
  ts_mem(&s[0], 1, B, 8);
  ts_mem(&s[0], 0, Z + 4096, 8);
  ts_mem(&s[0], 0, Z + 8192, 8);
  ts_mem(&s[0], 0, A, 8);
  ts_mem(&s[1], 0, Z, 8);
  ts_mem(&s[1], 0, A, 8);
  ts_mem(&s[1], 0, B, 8);
  ts_mem(&s[1], 0, A, 8);
  ppt_tracesim_result r;
  ppt_tracesim_opts o = {.interleave = PPT_INTERLEAVE_RR};
  run_trace("transfer", s, 2, one_func, 1, &hw, &o, &r);
  ck_assert_uint_eq(r.transfers[2], 2);
  ck_assert_uint_eq(r.transfers[0] + r.transfers[1] + r.transfers[3], 0);
  ck_assert_uint_eq(r.served[2], 2);
  ts_free(&s[0]);
  ts_free(&s[1]);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tracesim");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, sweep_below_capacity);
  tcase_add_test(tc, sweep_between_levels);
  tcase_add_test(tc, sweep_above_capacity);
  tcase_add_test(tc, sweep_exactly_capacity);
  tcase_add_test(tc, sweep_one_over_capacity);
  tcase_add_test(tc, straddling_accesses);
  tcase_add_test(tc, filter_exact);
  tcase_add_test(tc, threads_rr_and_uniform_vs_brute_force);
  tcase_add_test(tc, bad_inputs);
  tcase_add_test(tc, same_set_counts);
  tcase_add_test(tc, transfer_counts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
