/* test_cachesim.c — the exact cache simulator against analytic miss counts of cyclic
 * sweeps and against a brute-force LRU oracle (timestamps per way, written here
 * independently) on random multi-thread traces, write-backs of dirty lines included;
 * inclusive back-invalidation. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/cachesim.h"

typedef struct lvdef {
  uint64_t size;
  uint32_t assoc, shared_by;
  int inclusive;
} lvdef;

static ppt_hwspec make_hw(uint32_t cores, const lvdef *d, uint32_t n) {
  ppt_hwspec hw;
  memset(&hw, 0, sizeof hw);
  strcpy(hw.name, "test");
  hw.cores = cores;
  hw.nlevels = n;
  for (uint32_t k = 0; k < n; k++) {
    snprintf(hw.levels[k].name, sizeof hw.levels[k].name, "L%u", k + 1);
    hw.levels[k].size = d[k].size;
    hw.levels[k].assoc = d[k].assoc;
    hw.levels[k].line = 64;
    hw.levels[k].shared_by = d[k].shared_by;
    hw.levels[k].inclusive = d[k].inclusive;
  }
  ppt_err err;
  ck_assert_msg(ppt_hwspec_validate(&hw, "test", &err) == 0, "%s", err.msg);
  return hw;
}

static ppt_cachesim *make_sim(const ppt_hwspec *hw, uint32_t nthreads) {
  ppt_cachesim *sim = NULL;
  ppt_err err;
  ck_assert_msg(ppt_cachesim_new(hw, nthreads, &sim, &err) == 0, "%s", err.msg);
  return sim;
}

static ppt_cachesim_counts level(const ppt_cachesim *sim, uint32_t k) {
  ppt_cachesim_counts c;
  ppt_err err;
  ck_assert_int_eq(ppt_cachesim_level_counts(sim, k, &c, &err), 0);
  return c;
}

/* M distinct consecutive lines, swept K times. LRU: if the lines fit (per set), only the
 * first sweep misses (M misses); if a set receives more lines than it has ways, every
 * access misses (M*K), because the line reused next is always the least recent one. */
static void sweep(ppt_cachesim *sim, uint64_t M, uint64_t K) {
  for (uint64_t k = 0; k < K; k++)
    for (uint64_t m = 0; m < M; m++) ppt_cachesim_access(sim, 0, m * 64 + 8, 8, 0);
}

START_TEST(cyclic_fully_associative) {
  lvdef fa = {4096, 64, 1, 0}; /* 64 lines, one set */
  ppt_hwspec hw = make_hw(1, &fa, 1);
  static const struct {
    uint64_t M, K, misses;
  } cases[] = {{32, 10, 32}, {64, 10, 64}, {65, 10, 650}, {200, 3, 600}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ppt_cachesim *sim = make_sim(&hw, 1);
    sweep(sim, cases[i].M, cases[i].K);
    ppt_cachesim_counts c = level(sim, 0);
    ck_assert_uint_eq(c.accesses, cases[i].M * cases[i].K);
    ck_assert_uint_eq(c.misses, cases[i].misses);
    ppt_cachesim_free(sim);
  }
}
END_TEST

START_TEST(cyclic_set_associative) {
  /* SASMM geometry: L1 8 KiB 8-way (16 sets x 8), L2 128 KiB 16-way (128 sets x 16) */
  lvdef d[2] = {{8192, 8, 1, 0}, {131072, 16, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 2);
  static const struct {
    uint64_t M, K, l1_misses, l2_misses;
  } cases[] = {
      {128, 5, 128, 128},          /* fits L1 exactly */
      {144, 5, 720, 144},          /* 9 lines per L1 set > 8 ways: L1 thrashes, L2 holds */
      {2048, 4, 8192, 2048},       /* fits L2 exactly */
      {2048 + 128, 3, 6528, 6528}, /* 17 lines per L2 set > 16 ways: both thrash */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ppt_cachesim *sim = make_sim(&hw, 1);
    sweep(sim, cases[i].M, cases[i].K);
    ppt_cachesim_counts c1 = level(sim, 0), c2 = level(sim, 1);
    ck_assert_uint_eq(c1.accesses, cases[i].M * cases[i].K);
    ck_assert_uint_eq(c1.misses, cases[i].l1_misses);
    ck_assert_uint_eq(c2.accesses, cases[i].l1_misses);
    ck_assert_uint_eq(c2.misses, cases[i].l2_misses);
    ppt_cachesim_free(sim);
  }
}
END_TEST

/* ---- brute-force oracle: per instance, per set, ways with (line, last-use time) ---- */
typedef struct oway {
  uint64_t line, stamp;
  int valid, dirty;
} oway;

typedef struct oracle {
  uint32_t n, nthreads;
  lvdef d[4];
  uint32_t ninst[4];
  uint64_t sets[4];
  oway *w[4]; /* [inst][set][way] */
  uint64_t acc[4][64], miss[4][64];
  uint64_t wb[5]; /* dirty lines written back into level k (4 levels at most; n: memory) */
  uint64_t clock;
} oracle;

static oracle *oracle_new(const lvdef *d, uint32_t n, uint32_t nthreads) {
  oracle *o = calloc(1, sizeof *o);
  o->n = n;
  o->nthreads = nthreads;
  for (uint32_t k = 0; k < n; k++) {
    o->d[k] = d[k];
    o->ninst[k] = (nthreads + d[k].shared_by - 1) / d[k].shared_by;
    o->sets[k] = d[k].size / 64 / d[k].assoc;
    o->w[k] = calloc(o->ninst[k] * o->sets[k] * d[k].assoc, sizeof(oway));
  }
  return o;
}

static void oracle_free(oracle *o) {
  for (uint32_t k = 0; k < o->n; k++) free(o->w[k]);
  free(o);
}

static oway *oset(oracle *o, uint32_t k, uint32_t inst, uint64_t line) {
  return o->w[k] + (inst * o->sets[k] + line % o->sets[k]) * o->d[k].assoc;
}

/* The way of level k's instance inst that holds line, or NULL. */
static oway *ofind(oracle *o, uint32_t k, uint32_t inst, uint64_t line) {
  oway *s = oset(o, k, inst, line);
  for (uint32_t i = 0; i < o->d[k].assoc; i++)
    if (s[i].valid && s[i].line == line) return &s[i];
  return NULL;
}

/* Returns 1 on hit; on a miss fills the line and reports the evicted line, if any, and
 * whether it was dirty. */
static int oracle_lookup(oracle *o, uint32_t k, uint32_t inst, uint64_t line, int *evicted, uint64_t *victim,
                         int *dirty) {
  oway *s = oset(o, k, inst, line), *hit = ofind(o, k, inst, line);
  uint32_t A = o->d[k].assoc;
  *evicted = *dirty = 0;
  if (hit) {
    hit->stamp = ++o->clock;
    return 1;
  }
  uint32_t pick = A;
  for (uint32_t i = 0; i < A && pick == A; i++)
    if (!s[i].valid) pick = i;
  if (pick == A) {
    pick = 0;
    for (uint32_t i = 1; i < A; i++)
      if (s[i].stamp < s[pick].stamp) pick = i;
    *evicted = 1;
    *victim = s[pick].line;
    *dirty = s[pick].dirty;
  }
  s[pick] = (oway){line, ++o->clock, 1, 0};
  return 0;
}

static uint32_t oracle_line(oracle *o, uint32_t t, uint64_t line, int store) {
  for (uint32_t k = 0; k < o->n; k++) {
    uint32_t inst = t / o->d[k].shared_by;
    o->acc[k][inst]++;
    int ev, dirty;
    uint64_t victim;
    if (oracle_lookup(o, k, inst, line, &ev, &victim, &dirty)) {
      if (store) ofind(o, 0, t / o->d[0].shared_by, line)->dirty = 1;
      return k;
    }
    o->miss[k][inst]++;
    if (ev && dirty) { /* written back into the first level below that holds it */
      uint32_t m = k + 1;
      oway *w = NULL;
      while (m < o->n && !(w = ofind(o, m, t / o->d[m].shared_by, victim))) m++;
      if (w) w->dirty = 1;
      o->wb[m]++;
    }
    if (ev && o->d[k].inclusive) {
      /* every thread this instance serves: drop the victim from its upper levels */
      for (uint32_t u = 0; u < o->nthreads; u++) {
        if (u / o->d[k].shared_by != inst) continue;
        for (uint32_t m = 0; m < k; m++) {
          oway *s = oset(o, m, u / o->d[m].shared_by, victim);
          for (uint32_t i = 0; i < o->d[m].assoc; i++)
            if (s[i].valid && s[i].line == victim) s[i].valid = 0;
        }
      }
    }
  }
  if (store) ofind(o, 0, t / o->d[0].shared_by, line)->dirty = 1;
  return o->n;
}

static uint32_t oracle_access(oracle *o, uint32_t t, uint64_t addr, uint32_t size, int store) {
  uint32_t deepest = 0;
  for (uint64_t l = addr / 64; l <= (addr + size - 1) / 64; l++) {
    uint32_t lv = oracle_line(o, t, l, store);
    if (lv > deepest) deepest = lv;
  }
  return deepest;
}

static void random_against_oracle(const lvdef *d, uint32_t n, uint32_t cores, uint32_t nthreads,
                                  uint64_t span_lines, unsigned long seed, int naccess) {
  ppt_hwspec hw = make_hw(cores, d, n);
  ppt_cachesim *sim = make_sim(&hw, nthreads);
  oracle *o = oracle_new(d, n, nthreads);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  for (int i = 0; i < naccess; i++) {
    uint32_t t = (uint32_t)gsl_rng_uniform_int(r, nthreads);
    /* a skewed mix: each thread has a hot region plus a shared cold span */
    uint64_t base = gsl_rng_uniform(r) < 0.5 ? t * 4096 : 1 << 20;
    uint64_t addr = base + gsl_rng_uniform_int(r, span_lines * 64);
    uint32_t size = 1 + (uint32_t)gsl_rng_uniform_int(r, 16);
    int store = gsl_rng_uniform(r) < 0.3;
    int got = ppt_cachesim_access(sim, t, addr, size, store);
    uint32_t want = oracle_access(o, t, addr, size, store);
    ck_assert_msg(got == (int)want, "access %d: served by level %d, oracle %u", i, got, want);
  }
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < ppt_cachesim_instances(sim, k); i++) {
      ppt_cachesim_counts c;
      ppt_err err;
      ck_assert_int_eq(ppt_cachesim_instance_counts(sim, k, i, &c, &err), 0);
      ck_assert_uint_eq(c.accesses, o->acc[k][i]);
      ck_assert_uint_eq(c.misses, o->miss[k][i]);
      ck_assert(k == 0 || c.misses > 0); /* the trace must exercise every level */
    }
  for (uint32_t k = 1; k <= n; k++) {
    ck_assert_msg(ppt_cachesim_writebacks(sim, k) == o->wb[k], "write-backs into level %u: %llu, oracle %llu",
                  k, (unsigned long long)ppt_cachesim_writebacks(sim, k), (unsigned long long)o->wb[k]);
    ck_assert(o->wb[k] > 0); /* the trace must write back into every level */
    if (k < n) ck_assert_uint_eq(level(sim, k).writebacks, o->wb[k]);
  }
  /* inclusion holds at the end for every inclusive level */
  for (uint32_t k = 1; k < n; k++) {
    if (!d[k].inclusive) continue;
    for (uint32_t t = 0; t < nthreads; t++)
      for (uint32_t m = 0; m < k; m++)
        for (uint64_t a = 0; a < (2u << 20); a += 64)
          if (ppt_cachesim_contains(sim, m, t / d[m].shared_by, a) == 1)
            ck_assert_int_eq(ppt_cachesim_contains(sim, k, t / d[k].shared_by, a), 1);
  }
  gsl_rng_free(r);
  oracle_free(o);
  ppt_cachesim_free(sim);
}

START_TEST(oracle_two_levels_two_threads) {
  /* private L1: 8 lines (4 sets x 2); shared L2: 32 lines (8 sets x 4) */
  lvdef d[2] = {{512, 2, 1, 0}, {2048, 4, 2, 0}};
  random_against_oracle(d, 2, 2, 2, 40, 1, 200000);
  d[1].inclusive = 1;
  random_against_oracle(d, 2, 2, 2, 40, 2, 200000);
}
END_TEST

START_TEST(oracle_three_levels_four_threads) {
  /* L1 private, L2 per pair of cores, L3 shared by all four and inclusive */
  lvdef d[3] = {{512, 2, 1, 0}, {1024, 4, 2, 0}, {4096, 8, 4, 1}};
  random_against_oracle(d, 3, 4, 4, 96, 3, 200000);
  d[1].inclusive = 1;
  random_against_oracle(d, 3, 4, 4, 96, 4, 200000);
  /* fewer threads than cores: the shared levels have one partly used instance */
  random_against_oracle(d, 3, 4, 3, 96, 5, 100000);
  /* more threads than cores: extra instances, like extra cores */
  random_against_oracle(d, 3, 4, 6, 96, 6, 100000);
}
END_TEST

START_TEST(inclusive_back_invalidation) {
  /* L1: 2 lines fully associative; L2: 3 lines fully associative.
   * X Y X Z: L1 = [Z X], L2 = [Z Y X] (X least recent: its L1 hit did not reach L2).
   * X hits L1. W misses both: L2 evicts X; an inclusive L2 removes X from L1 too.
   * The final X then hits L1 only in the non-inclusive hierarchy. */
  const uint64_t X = 0, Y = 64, Z = 128, W = 192;
  const uint64_t seq[] = {X, Y, X, Z, X, W};
  for (int incl = 0; incl <= 1; incl++) {
    lvdef d[2] = {{128, 2, 1, 0}, {192, 3, 1, incl}};
    ppt_hwspec hw = make_hw(1, d, 2);
    ppt_cachesim *sim = make_sim(&hw, 1);
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) ppt_cachesim_access(sim, 0, seq[i], 8, 0);
    ck_assert_int_eq(ppt_cachesim_contains(sim, 1, 0, X), 0);
    ck_assert_int_eq(ppt_cachesim_contains(sim, 0, 0, X), incl ? 0 : 1);
    ck_assert_int_eq(ppt_cachesim_contains(sim, 0, 0, W), 1);
    ck_assert_uint_eq(level(sim, 0).invalidations, incl ? 1 : 0);
    ck_assert_int_eq(ppt_cachesim_access(sim, 0, X, 8, 0), incl ? 2 : 0);
    ppt_cachesim_free(sim);
  }
}
END_TEST

/* A read-modify-write sweep (load then store each line: lu's a[i][j] -= ..., whose
 * stores all hit the first level) over M lines, K times, through an L1 of 8 lines and an
 * L2 that holds them all: every L1 eviction is a dirty line, so L2 takes M*K - 8 write-
 * backs (the last 8 stay in L1) and memory none; the same sweep reading only writes
 * nothing back; stores alone (write-allocate) dirty their lines as the RMW does. */
START_TEST(read_modify_write_writes_back) {
  const uint64_t M = 32, K = 3;
  lvdef d[2] = {{512, 8, 1, 0}, {4096, 8, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 2);
  for (int mode = 0; mode < 3; mode++) { /* 0: read only, 1: load + store, 2: store only */
    ppt_cachesim *sim = make_sim(&hw, 1);
    for (uint64_t k = 0; k < K; k++)
      for (uint64_t m = 0; m < M; m++) {
        if (mode < 2) ppt_cachesim_access(sim, 0, m * 64, 8, 0);
        if (mode > 0) ppt_cachesim_access(sim, 0, m * 64, 8, 1);
      }
    ck_assert_uint_eq(ppt_cachesim_writebacks(sim, 1), mode ? M * K - 8 : 0);
    ck_assert_uint_eq(level(sim, 1).writebacks, mode ? M * K - 8 : 0);
    ck_assert_uint_eq(ppt_cachesim_writebacks(sim, 2), 0);
    ck_assert_uint_eq(ppt_cachesim_writebacks(sim, UINT32_MAX), mode ? M * K - 8 : 0);
    ppt_cachesim_reset_counts(sim);
    ck_assert_uint_eq(ppt_cachesim_writebacks(sim, UINT32_MAX), 0);
    ppt_cachesim_free(sim);
  }
}
END_TEST

START_TEST(sharing_and_threads) {
  /* 4 threads, L1 shared by pairs, L2 by all: thread 1 hits what thread 0 brought into
   * their common L1; thread 2 has its own L1 and finds the line in L2. */
  lvdef d[2] = {{512, 2, 2, 0}, {2048, 4, 4, 0}};
  ppt_hwspec hw = make_hw(4, d, 2);
  ppt_cachesim *sim = make_sim(&hw, 4);
  ck_assert_uint_eq(ppt_cachesim_instances(sim, 0), 2);
  ck_assert_uint_eq(ppt_cachesim_instances(sim, 1), 1);
  ck_assert_int_eq(ppt_cachesim_access(sim, 0, 1000, 4, 0), 2);
  ck_assert_int_eq(ppt_cachesim_access(sim, 1, 1000, 4, 1), 0);
  ck_assert_int_eq(ppt_cachesim_access(sim, 2, 1000, 4, 0), 1);
  ck_assert_int_eq(ppt_cachesim_access(sim, 4, 1000, 4, 0), -1);
  ppt_cachesim_counts c;
  ppt_err err;
  ck_assert_int_eq(ppt_cachesim_instance_counts(sim, 0, 1, &c, &err), 0);
  ck_assert(c.accesses == 1 && c.misses == 1 && c.store_accesses == 0);
  ck_assert_int_eq(ppt_cachesim_instance_counts(sim, 0, 0, &c, &err), 0);
  ck_assert(c.accesses == 2 && c.misses == 1 && c.store_accesses == 1 && c.store_misses == 0);
  ck_assert_int_eq(ppt_cachesim_instance_counts(sim, 0, 2, &c, &err), PPT_EINPUT);
  ck_assert_uint_eq(ppt_cachesim_refs(sim), 3);
  /* reset_counts zeroes the counters and keeps the contents (end of a warm-up) */
  ppt_cachesim_reset_counts(sim);
  ck_assert_uint_eq(ppt_cachesim_refs(sim), 0);
  ck_assert_uint_eq(level(sim, 0).accesses, 0);
  ck_assert_int_eq(ppt_cachesim_access(sim, 3, 1000, 4, 0), 0);
  ck_assert(level(sim, 0).accesses == 1 && level(sim, 0).misses == 0);
  ppt_cachesim_free(sim);
}
END_TEST

START_TEST(straddling_accesses) {
  lvdef d[2] = {{8192, 8, 1, 0}, {131072, 16, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 2);
  ppt_cachesim *sim = make_sim(&hw, 1);
  /* bytes 60..67 touch lines 0 and 1: two line accesses, two misses, one reference */
  ck_assert_int_eq(ppt_cachesim_access(sim, 0, 60, 8, 0), 2);
  ck_assert_uint_eq(level(sim, 0).accesses, 2);
  ck_assert_uint_eq(level(sim, 0).misses, 2);
  /* bytes 64..71 lie in line 1 alone, now a hit; size 0 counts as one byte */
  ck_assert_int_eq(ppt_cachesim_access(sim, 0, 64, 8, 0), 0);
  ck_assert_int_eq(ppt_cachesim_access(sim, 0, 127, 0, 0), 0);
  /* 200 bytes from 100 (100..299): lines 1..4, of which 2, 3 and 4 are new */
  ck_assert_int_eq(ppt_cachesim_access(sim, 0, 100, 200, 1), 2);
  ppt_cachesim_counts c = level(sim, 0);
  ck_assert(c.accesses == 8 && c.misses == 5 && c.store_accesses == 4 && c.store_misses == 3);
  ck_assert_uint_eq(ppt_cachesim_refs(sim), 4);
  /* the last byte of the address space does not wrap around */
  ck_assert_int_eq(ppt_cachesim_access(sim, 0, UINT64_MAX - 3, 64, 0), 2);
  ck_assert_uint_eq(level(sim, 0).accesses, 9);
  ppt_cachesim_free(sim);
}
END_TEST

static double jnum(json_object *lv, const char *key) {
  json_object *v;
  ck_assert_msg(json_object_object_get_ex(lv, key, &v), "no %s", key);
  return json_object_get_double(v);
}

START_TEST(json_counters) {
  lvdef d[2] = {{8192, 8, 1, 0}, {131072, 16, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 2);
  ppt_cachesim *sim = make_sim(&hw, 1);
  json_object *j = ppt_cachesim_json(sim), *arr, *v;
  /* no accesses yet: rates are undefined, written as null */
  ck_assert(json_object_object_get_ex(j, "levels", &arr));
  ck_assert(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "hit_rate", &v) && !v);
  json_object_put(j);
  sweep(sim, 144, 5); /* L1: 720 accesses, 720 misses; L2: 720 accesses, 144 misses */
  sweep(sim, 16, 45); /* lines 0..15: evicted from L1 by then, in L2; then L1 hits */
  ppt_cachesim_counts c1 = level(sim, 0), c2 = level(sim, 1);
  j = ppt_cachesim_json(sim);
  ck_assert(json_object_object_get_ex(j, "levels", &arr));
  json_object *l1 = json_object_array_get_idx(arr, 0), *l2 = json_object_array_get_idx(arr, 1);
  ck_assert(json_object_object_get_ex(l1, "name", &v));
  ck_assert_str_eq(json_object_get_string(v), "L1");
  ck_assert(jnum(l1, "accesses") == (double)c1.accesses && jnum(l1, "misses") == (double)c1.misses);
  ck_assert(jnum(l2, "accesses") == (double)c2.accesses && jnum(l2, "misses") == (double)c2.misses);
  double g1 = 1.0 - (double)c1.misses / (double)c1.accesses;
  double g2 = 1.0 - (double)c2.misses / (double)c1.accesses;
  double l2loc = 1.0 - (double)c2.misses / (double)c2.accesses;
  ck_assert(jnum(l1, "hit_rate") == g1 && jnum(l1, "local_hit_rate") == g1);
  ck_assert(jnum(l2, "hit_rate") == g2 && jnum(l2, "local_hit_rate") == l2loc);
  ck_assert(g2 > g1 && l2loc > 0 && l2loc < 1);
  ck_assert(json_object_object_get_ex(l2, "instances", &v));
  ck_assert_uint_eq(json_object_array_length(v), 1);
  json_object_put(j);
  ppt_cachesim_free(sim);
}
END_TEST

/* Steady-state hit rate of a cyclic sweep over W lines through a fully associative
 * random-replacement cache of C lines, mean-field: between two uses of a line the other
 * W − 1 accesses miss at rate 1 − h, and each miss spares that line with probability
 * 1 − 1/C, so h = (1 − 1/C)^((1 − h)(W − 1)). Solved by bisection (the root below 1). */
static double random_sweep_hit_rate(double C, double W) {
  double lo = 0, hi = 1 - 1e-9;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi), f = pow(1 - 1 / C, (1 - mid) * (W - 1)) - mid;
    if (f > 0)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* Random replacement against that analytic rate, and its corner cases: a sweep that fits
 * never evicts (empty ways fill first, as in LRU), and the seed fixes the run. */
START_TEST(random_replacement) {
  const uint64_t C = 256;
  lvdef d[1] = {{C * 64, (uint32_t)C, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 1);
  hw.levels[0].replacement = PPT_HW_REPL_RANDOM;
  ppt_err err;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "test", &err), 0);
  const double Ws[] = {1.5, 2.0, 3.0};
  for (size_t w = 0; w < 3; w++) {
    uint64_t W = (uint64_t)(Ws[w] * C);
    ppt_cachesim *sim = make_sim(&hw, 1);
    sweep(sim, W, 50); /* reach the steady state */
    ppt_cachesim_reset_counts(sim);
    sweep(sim, W, 400);
    ppt_cachesim_counts c = level(sim, 0);
    double h = 1 - (double)c.misses / (double)c.accesses;
    double want = random_sweep_hit_rate((double)C, (double)W);
    ck_assert_msg(fabs(h - want) < 0.01, "W=%llu: hit rate %.4f, mean field %.4f", (unsigned long long)W, h,
                  want);
    /* LRU would hit nothing here: the difference is the point of the option */
    ck_assert(h > 0.02);
    ppt_cachesim_free(sim);
  }
  /* fits: only compulsory misses */
  ppt_cachesim *sim = make_sim(&hw, 1);
  sweep(sim, C, 20);
  ck_assert_uint_eq(level(sim, 0).misses, C);
  ppt_cachesim_free(sim);
  /* same seed, same run; another seed, another run */
  uint64_t m[3];
  for (int i = 0; i < 3; i++) {
    sim = make_sim(&hw, 1);
    ppt_cachesim_seed(sim, i == 2 ? 7 : 3);
    sweep(sim, 2 * C, 20);
    m[i] = level(sim, 0).misses;
    ppt_cachesim_free(sim);
  }
  ck_assert_uint_eq(m[0], m[1]);
  ck_assert_uint_ne(m[0], m[2]);
  /* the hwspec round trip names it; an unknown policy is refused */
  hw.levels[0].replacement = 5;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "test", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "replacement"));
}
END_TEST

/* Hashed placement of random-replacement levels (lruset.h): 64 sets of 4 ways. A column
 * walk over 64 lines one set-stride (64 lines) apart: modulo placement puts all 64 in
 * set 0, 4 ways, so the steady state hits ~ the random-sweep rate of C = 4, W = 64
 * (a few %); the hash sends line i·64 to set (i·64) ^ i ^ ... = i (i < 64), one line a
 * set, so after the first pass every access hits: exactly 64 misses. LRU levels keep
 * modulo placement (all 64 lines in one set: every access misses). */
START_TEST(hashed_placement) {
  lvdef d[1] = {{64 * 4 * 64, 4, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 1);
  /* mode 0: LRU, modulo; 1: random (hashed); 2: LRU with hashed_sets (a sliced last
   * level): one line a set as with 1, and LRU keeps all 64, so also exactly 64 misses. */
  for (int mode = 0; mode <= 2; mode++) {
    hw.levels[0].replacement = mode == 1 ? PPT_HW_REPL_RANDOM : PPT_HW_REPL_LRU;
    hw.levels[0].hashed_sets = mode == 2;
    ppt_cachesim *sim = make_sim(&hw, 1);
    for (int pass = 0; pass < 10; pass++)
      for (uint64_t i = 0; i < 64; i++) ppt_cachesim_access(sim, 0, i * 64 * 64 + 8, 8, 0);
    ck_assert_uint_eq(level(sim, 0).misses, mode ? 64 : 640);
    ck_assert_int_eq(ppt_cachesim_contains(sim, 0, 0, 63 * 64 * 64), 1);
    ppt_cachesim_free(sim);
  }
}
END_TEST

/* victim_ways (lruset.h): a miss draws its victim from the t least recent ways of a full
 * set. One fully associative set of a = 16 ways; a hot line H, then k lines never used
 * again, repeated. After H's access it is the most recent; the j-th of the k misses finds
 * it at recency position j − 1 and may evict it only if that position lies among the t
 * least recent (j − 1 >= a − t), with probability 1/t. So H's hit rate is
 * (1 − 1/t)^(number of such j) by hand: 1 when k <= a − t, 0.9 for t = 10, k = 7,
 * (15/16)^6 for plain random (t = a) and k = 6; t = 1 is LRU again: H always hits for
 * k < a, never for k >= a. The stream's own lines always miss. */
static double hot_line_hit_rate(uint32_t t, uint32_t k) {
  const uint32_t a = 16;
  lvdef d[1] = {{a * 64, a, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 1);
  hw.levels[0].replacement = PPT_HW_REPL_RANDOM;
  hw.levels[0].victim_ways = t;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_validate(&hw, "test", &err) == 0, "%s", err.msg);
  ppt_cachesim *sim = make_sim(&hw, 1);
  uint64_t next = 1, hits = 0, n = 0;
  for (int round = 0; round < 40000; round++) {
    int got = ppt_cachesim_access(sim, 0, 8, 8, 0); /* H: line 0 */
    if (round >= 100) {
      hits += got == 0;
      n++;
    }
    for (uint32_t j = 0; j < k; j++)
      ck_assert_int_eq(ppt_cachesim_access(sim, 0, (next++) * 64 + 8, 8, 0), 1);
  }
  ppt_cachesim_free(sim);
  return (double)hits / (double)n;
}

START_TEST(victim_ways) {
  ck_assert(hot_line_hit_rate(8, 8) == 1.0);
  ck_assert(hot_line_hit_rate(10, 6) == 1.0);
  ck_assert_double_eq_tol(hot_line_hit_rate(10, 7), 0.9, 0.01);
  ck_assert_double_eq_tol(hot_line_hit_rate(16, 6), pow(15.0 / 16.0, 6), 0.01);
  ck_assert_double_eq_tol(hot_line_hit_rate(0, 6), pow(15.0 / 16.0, 6), 0.01); /* absent: every way */
  ck_assert(hot_line_hit_rate(1, 15) == 1.0);
  ck_assert(hot_line_hit_rate(1, 16) == 0.0);
  /* t = 1 is LRU exactly: a random trace through an L1 and a fully associative L2 (one
   * set, so hashed and modulo placement agree), the same level answers every access */
  lvdef d[2] = {{4096, 4, 1, 0}, {16384, 256, 1, 0}};
  ppt_hwspec lru = make_hw(1, d, 2), one = lru;
  one.levels[1].replacement = PPT_HW_REPL_RANDOM;
  one.levels[1].victim_ways = 1;
  ppt_cachesim *a = make_sim(&lru, 1), *b = make_sim(&one, 1);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
  gsl_rng_set(r, 11);
  for (int i = 0; i < 200000; i++) {
    uint64_t addr = gsl_rng_uniform_int(r, 1024) * 64;
    ck_assert_int_eq(ppt_cachesim_access(a, 0, addr, 8, 0), ppt_cachesim_access(b, 0, addr, 8, 0));
  }
  ck_assert_uint_eq(level(a, 1).misses, level(b, 1).misses);
  gsl_rng_free(r);
  ppt_cachesim_free(a);
  ppt_cachesim_free(b);
}
END_TEST

/* Write-invalidate coherence, by hand: two threads with private L1s and a shared L2.
 * Thread 0 reads line A (L1 and L2 miss), thread 1 writes it (its L1 misses, the shared
 * L2 hits), thread 0 reads it again: without coherence its L1 still hits; with it, the
 * store dropped A from thread 0's L1, so the read misses there and the L2 serves it. */
START_TEST(coherence_write_invalidate) {
  lvdef d[2] = {{1024, 2, 1, 0}, {8192, 4, 2, 0}};
  ppt_hwspec hw = make_hw(2, d, 2);
  for (int on = 0; on <= 1; on++) {
    ppt_cachesim *sim = make_sim(&hw, 2);
    ppt_cachesim_set_coherence(sim, on);
    ck_assert_int_eq(ppt_cachesim_access(sim, 0, 4096, 8, 0), 2);
    ck_assert_int_eq(ppt_cachesim_access(sim, 1, 4096, 8, 1), 1);
    ck_assert_int_eq(ppt_cachesim_access(sim, 0, 4096, 8, 0), on ? 1 : 0);
    ck_assert_int_eq(ppt_cachesim_contains(sim, 0, 1, 4096), 1); /* the writer keeps it */
    ck_assert_uint_eq(level(sim, 0).invalidations, (uint64_t)on);
    /* a store to a line no other thread holds invalidates nothing */
    ck_assert_int_eq(ppt_cachesim_access(sim, 1, 65536, 8, 1), 2);
    ck_assert_uint_eq(level(sim, 0).invalidations, (uint64_t)on);
    ppt_cachesim_free(sim);
  }
}
END_TEST

START_TEST(create_errors) {
  lvdef d[1] = {{8192, 8, 1, 0}};
  ppt_hwspec hw = make_hw(1, d, 1);
  ppt_cachesim *sim = NULL;
  ppt_err err;
  ck_assert_int_eq(ppt_cachesim_new(&hw, 0, &sim, &err), PPT_EINPUT);
  hw.levels[0].assoc = 7;
  ck_assert_int_eq(ppt_cachesim_new(&hw, 1, &sim, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "levels[0]"));
  ck_assert_ptr_null(sim);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cachesim");
  TCase *tc = tcase_create("cachesim");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cyclic_fully_associative);
  tcase_add_test(tc, cyclic_set_associative);
  tcase_add_test(tc, oracle_two_levels_two_threads);
  tcase_add_test(tc, oracle_three_levels_four_threads);
  tcase_add_test(tc, inclusive_back_invalidation);
  tcase_add_test(tc, read_modify_write_writes_back);
  tcase_add_test(tc, sharing_and_threads);
  tcase_add_test(tc, straddling_accesses);
  tcase_add_test(tc, json_counters);
  tcase_add_test(tc, create_errors);
  tcase_add_test(tc, random_replacement);
  tcase_add_test(tc, hashed_placement);
  tcase_add_test(tc, victim_ways);
  tcase_add_test(tc, coherence_write_invalidate);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
