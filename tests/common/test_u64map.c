/* test_u64map.c — the project's hash table (models/common/u64map.h) against a brute-force
 * oracle: random inserts, lookups and deletions over a fixed universe of keys, with the
 * table growing from nothing and the slot indices that callers keep (as the reuse stack
 * does) followed through rehashes and backward-shift deletions. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"

/* The keys the random operations draw from: random 64-bit values, consecutive lines,
 * page-aligned addresses (only high bits differ) and small integers, 0 and the largest
 * storable key among them, so that every kind of key the project stores collides. */
typedef struct universe {
  uint64_t *key; /* sorted, distinct */
  size_t n;
} universe;

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static universe make_universe(gsl_rng *rng, size_t quarter) {
  universe u = {malloc(4 * quarter * sizeof(uint64_t)), 0};
  ck_assert_ptr_nonnull(u.key);
  for (size_t i = 0; i < quarter; i++) {
    u.key[u.n++] = ((uint64_t)gsl_rng_get(rng) << 32) ^ gsl_rng_get(rng);
    u.key[u.n++] = 0x7f0000000000ull / 64 + i;
    u.key[u.n++] = 0x555500000000ull + ((uint64_t)i << 12);
    u.key[u.n++] = i;
  }
  u.key[0] = U64MAP_EMPTY - 1;
  qsort(u.key, u.n, sizeof *u.key, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < u.n; i++)
    if (u.key[i] != U64MAP_EMPTY && (k == 0 || u.key[i] != u.key[k - 1])) u.key[k++] = u.key[i];
  u.n = k;
  return u;
}

/* Position of key in the universe, or u->n when it is not there. */
static size_t universe_index(const universe *u, uint64_t key) {
  const uint64_t *p = bsearch(&key, u->key, u->n, sizeof key, cmp_u64);
  return p ? (size_t)(p - u->key) : u->n;
}

/* The oracle, indexed by position in the universe, and the slot the test believes each
 * key is in (kept up to date the way a caller that stores slot indices must). */
typedef struct oracle {
  const universe *u;
  unsigned char *present;
  uint64_t *val;
  size_t *slot;
  size_t count;
  size_t nfail; /* failed expectations, and the line of the first */
  int fail_line;
} oracle;

/* Each Check assertion costs a system call (it records its location through a pipe),
 * so the per-operation checks only count failures; check_all asserts there were none. */
#define EXPECT(o, cond)                                          \
  do {                                                           \
    if (!(cond) && (o)->nfail++ == 0) (o)->fail_line = __LINE__; \
  } while (0)

typedef struct move_ctx {
  oracle *o;
  const u64map *m;
  size_t moves;
} move_ctx;

static void track_move(void *arg, size_t from, size_t to) {
  move_ctx *c = arg;
  size_t j = universe_index(c->o->u, c->m->ents[to].key);
  EXPECT(c->o, c->o->slot[j] == from);
  c->o->slot[j] = to;
  c->moves++;
}

/* Everything the oracle holds is in the map at the slot the test tracked, and the map
 * holds nothing else; the load stays at most 1/2. */
static void check_all(const u64map *m, oracle *o) {
  EXPECT(o, m->count == o->count);
  EXPECT(o, 2 * m->count <= u64map_cap(m));
  size_t seen = 0;
  for (size_t i = 0; i < u64map_cap(m); i++) {
    if (m->ents[i].key == U64MAP_EMPTY) continue;
    size_t j = universe_index(o->u, m->ents[i].key);
    EXPECT(o, j < o->u->n && o->present[j] && o->slot[j] == i && m->ents[i].val.u == o->val[j]);
    seen++;
  }
  EXPECT(o, seen == o->count);
  for (size_t j = 0; j < o->u->n; j++)
    EXPECT(o, u64map_find(m, o->u->key[j]) == (o->present[j] ? o->slot[j] : U64MAP_NONE));
  ck_assert_msg(o->nfail == 0, "%zu failed expectations, the first at line %d", o->nfail, o->fail_line);
}

/* One run of random operations: p_insert, p_erase (the rest are lookups). */
static void random_ops(u64map *m, oracle *o, gsl_rng *rng, size_t nops, double p_insert, double p_erase) {
  for (size_t op = 0; op < nops; op++) {
    size_t j = gsl_rng_uniform_int(rng, o->u->n);
    uint64_t key = o->u->key[j];
    double r = gsl_rng_uniform(rng);
    if (r < p_insert) {
      uint64_t v = ((uint64_t)gsl_rng_get(rng) << 32) | gsl_rng_get(rng);
      if (gsl_rng_uniform_int(rng, 2)) {
        /* The public insert: may rehash, so every tracked slot is found again. */
        int added = -1;
        size_t cap = u64map_cap(m);
        size_t s = u64map_insert(m, key, &added);
        if (s == U64MAP_NONE) ck_abort_msg("out of memory");
        EXPECT(o, added == !o->present[j]);
        EXPECT(o, !added || m->ents[s].val.u == 0);
        if (u64map_cap(m) != cap)
          for (size_t k = 0; k < o->u->n; k++)
            if (o->present[k]) o->slot[k] = u64map_find(m, o->u->key[k]);
        o->slot[j] = s;
        m->ents[s].val.u = v;
      } else {
        /* The reuse stack's way: grow first, following every move, then probe and
         * claim. */
        if (u64map_full(m)) {
          move_ctx c = {o, m, 0};
          if (u64map_reserve(m, m->count + 1, track_move, &c) < 0) ck_abort_msg("out of memory");
          EXPECT(o, c.moves == m->count);
        }
        size_t s = u64map_probe(m, key);
        EXPECT(o, (m->ents[s].key == key) == o->present[j]);
        if (!o->present[j]) u64map_claim(m, s, key);
        o->slot[j] = s;
        m->ents[s].val.u = v;
      }
      if (!o->present[j]) o->count++;
      o->present[j] = 1;
      o->val[j] = v;
    } else if (r < p_insert + p_erase) {
      size_t s = u64map_find(m, key);
      EXPECT(o, s == (o->present[j] ? o->slot[j] : U64MAP_NONE));
      if (s == U64MAP_NONE) continue;
      move_ctx c = {o, m, 0};
      u64map_erase(m, s, track_move, &c);
      o->present[j] = 0;
      o->count--;
    } else {
      size_t s = u64map_find(m, key);
      EXPECT(o, s == (o->present[j] ? o->slot[j] : U64MAP_NONE));
      EXPECT(o, s == U64MAP_NONE || m->ents[s].val.u == o->val[j]);
    }
    if (op % 997 == 0) check_all(m, o);
  }
  check_all(m, o);
}

static void run_oracle(unsigned long seed, size_t quarter) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  universe u = make_universe(rng, quarter);
  oracle o = {&u, calloc(u.n, 1), calloc(u.n, sizeof(uint64_t)), calloc(u.n, sizeof(size_t)), 0, 0, 0};
  ck_assert(o.present && o.val && o.slot);
  u64map m;
  u64map_init(&m);
  ck_assert_uint_eq(u64map_find(&m, u.key[0]), U64MAP_NONE); /* no table yet */
  random_ops(&m, &o, rng, 40 * u.n, 0.8, 0.1);               /* grows from nothing to most keys */
  random_ops(&m, &o, rng, 40 * u.n, 0.1, 0.8);               /* empties it through deletions */
  random_ops(&m, &o, rng, 40 * u.n, 0.4, 0.4);               /* churn at about half the universe */
  u64map_clear(&m);
  ck_assert_uint_eq(m.count, 0);
  memset(o.present, 0, u.n);
  o.count = 0;
  check_all(&m, &o);
  random_ops(&m, &o, rng, 10 * u.n, 0.6, 0.2); /* a cleared table is reused */
  u64map_free(&m);
  ck_assert_uint_eq(u64map_cap(&m), 0);
  free(o.present);
  free(o.val);
  free(o.slot);
  free(u.key);
  gsl_rng_free(rng);
}

START_TEST(random_ops_match_oracle_small) {
  run_oracle(1, 8);
}
END_TEST

START_TEST(random_ops_match_oracle) {
  run_oracle(12345, 1500);
}
END_TEST

/* Growth keeps the load at most 1/2 and doubles the table; reserve sizes it ahead so
 * that the inserts it made room for never rehash. */
START_TEST(growth_and_reserve) {
  u64map m;
  u64map_init(&m);
  size_t last_cap = 0, grows = 0, bad = 0;
  for (uint64_t k = 0; k < 100000; k++) {
    int added;
    bad += u64map_insert(&m, k * 64, &added) == U64MAP_NONE || added != 1;
    bad += 2 * m.count > u64map_cap(&m);
    if (u64map_cap(&m) != last_cap) {
      bad +=
          last_cap == 0 ? u64map_cap(&m) != ((size_t)1 << U64MAP_MIN_BITS) : u64map_cap(&m) != 2 * last_cap;
      last_cap = u64map_cap(&m);
      grows++;
    }
  }
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_eq(m.count, 100000);
  ck_assert_uint_eq(u64map_cap(&m), 262144);
  ck_assert_uint_eq(grows, 13);
  for (uint64_t k = 0; k < 100000; k++) bad += u64map_find(&m, k * 64) == U64MAP_NONE;
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_eq(u64map_find(&m, 64 * 100000), U64MAP_NONE);
  u64map_free(&m);

  ck_assert_int_eq(u64map_reserve(&m, 1000, NULL, NULL), 1);
  ck_assert_uint_eq(u64map_cap(&m), 2048);
  ck_assert_int_eq(u64map_reserve(&m, 1000, NULL, NULL), 0);
  ck_assert_int_eq(u64map_reserve(&m, 1024, NULL, NULL), 0);
  for (uint64_t k = 0; k < 1024; k++)
    bad += u64map_grow(&m) != 0 || u64map_insert(&m, ~k - 1, NULL) == U64MAP_NONE;
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_eq(u64map_cap(&m), 2048);
  ck_assert(u64map_full(&m));
  ck_assert_int_eq(u64map_grow(&m), 1);
  ck_assert_uint_eq(u64map_cap(&m), 4096);
  for (uint64_t k = 0; k < 1024; k++) bad += u64map_find(&m, ~k - 1) == U64MAP_NONE;
  ck_assert_uint_eq(bad, 0);
  u64map_free(&m);
}
END_TEST

/* Deleting from a probe run that wraps past the table's end: keys found by their home
 * slot, so the run is known, and every move reported. */
typedef struct moves {
  size_t from[16], to[16], n;
} moves;

static void record_move(void *arg, size_t from, size_t to) {
  moves *mv = arg;
  ck_assert_uint_lt(mv->n, 16);
  mv->from[mv->n] = from;
  mv->to[mv->n] = to;
  mv->n++;
}

START_TEST(erase_wraps_around) {
  u64map m;
  u64map_init(&m);
  ck_assert_int_eq(u64map_reserve(&m, 8, NULL, NULL), 1);
  size_t cap = u64map_cap(&m), last = cap - 1;
  /* Three keys whose home is the last slot, one whose home is slot 0. */
  uint64_t at_last[3], at_zero = 0;
  size_t nl = 0;
  int have_zero = 0;
  for (uint64_t k = 1; nl < 3 || !have_zero; k++) {
    size_t h = u64map_home(&m, k);
    if (h == last && nl < 3)
      at_last[nl++] = k;
    else if (h == 0 && !have_zero) {
      at_zero = k;
      have_zero = 1;
    }
  }
  /* Run: last = a0, 0 = a1, 1 = a2, 2 = z (home 0, displaced twice). */
  for (int i = 0; i < 3; i++) ck_assert_uint_ne(u64map_insert(&m, at_last[i], NULL), U64MAP_NONE);
  ck_assert_uint_eq(u64map_insert(&m, at_zero, NULL), 2);
  ck_assert_uint_eq(u64map_find(&m, at_last[0]), last);
  ck_assert_uint_eq(u64map_find(&m, at_last[1]), 0);
  ck_assert_uint_eq(u64map_find(&m, at_last[2]), 1);
  for (int i = 0; i < 3; i++) m.ents[u64map_find(&m, at_last[i])].val.u = 100 + (uint64_t)i;
  m.ents[2].val.u = 200;

  /* Erasing a0 pulls a1 back across the end, then a2, then z (home 0) into slot 1. */
  moves mv = {.n = 0};
  u64map_erase(&m, last, record_move, &mv);
  ck_assert_uint_eq(mv.n, 3);
  ck_assert_uint_eq(mv.from[0], 0);
  ck_assert_uint_eq(mv.to[0], last);
  ck_assert_uint_eq(mv.from[1], 1);
  ck_assert_uint_eq(mv.to[1], 0);
  ck_assert_uint_eq(mv.from[2], 2);
  ck_assert_uint_eq(mv.to[2], 1);
  ck_assert_uint_eq(m.count, 3);
  ck_assert_uint_eq(u64map_find(&m, at_last[0]), U64MAP_NONE);
  ck_assert_uint_eq(u64map_find(&m, at_last[1]), last);
  ck_assert_uint_eq(m.ents[last].val.u, 101);
  ck_assert_uint_eq(m.ents[0].val.u, 102);
  ck_assert_uint_eq(u64map_find(&m, at_zero), 1);
  ck_assert_uint_eq(m.ents[1].val.u, 200);
  ck_assert_uint_eq(m.ents[2].key, U64MAP_EMPTY);

  /* Erasing a2 (slot 0): z's home is 0, so it moves back into slot 0; with no callback. */
  u64map_erase(&m, 0, NULL, NULL);
  ck_assert_uint_eq(u64map_find(&m, at_zero), 0);
  ck_assert_uint_eq(u64map_find(&m, at_last[1]), last);
  ck_assert_uint_eq(m.count, 2);
  u64map_free(&m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("u64map");
  TCase *tc = tcase_create("map");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, random_ops_match_oracle_small);
  tcase_add_test(tc, random_ops_match_oracle);
  tcase_add_test(tc, growth_and_reserve);
  tcase_add_test(tc, erase_wraps_around);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
