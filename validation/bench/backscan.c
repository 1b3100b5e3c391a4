/* backscan.c — the papers' reuse-distance method, as a baseline for the exact engine.
 *
 * AMM §3.2.1 (Algorithm 1) and SASMM §3.5 (Algorithm 3) sample windows — block instances —
 * of the trace, and for every reference of a sampled window scan the trace backwards to
 * the previous reference to the same line, putting every line met on the way into a
 * fresh hash set (the papers' Python dict); the set's size at the match is the reuse
 * distance, and no match (the start of the trace reached) is a first touch. The cost of
 * one reference is its backward span, so the method is O(N x span) where the engine is
 * O(N log M) for every reference.
 *
 * This program loads thread 0 of a trace into memory, samples each block instance with
 * probability R (gsl_rng mt19937, seed S), and runs:
 *   backscan  the papers' method on the sampled windows;
 *   exact     ppt_reuse (PPT_REUSE_EXACT) on the whole stream, fed from memory;
 *   sampled   ppt_reuse (PPT_REUSE_SAMPLED, rate R), the engine's own window sampling;
 *   check     the exact engine once more with the sampled references relabelled to
 *             block id + OFF, so that its per-block histograms of the relabelled blocks
 *             hold exactly the sampled references' distances: they must equal the
 *             backscan's per-block histograms bin for bin.
 * Speeds are trace references per second of wall time (the whole stream, as the
 * methods deliver one profile per stream). Times exclude loading the trace.
 *
 * usage: backscan TRACE [--rate R] [--seed S] [--line B] [--reps K]
 * Prints a few lines, then one JSON line. Exit 1 if any distance differs. */
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/u64map.h"
#include "ppt/reuse.h"
#include "ppt/trace.h"

#define BATCH 65536

typedef struct stream {
  ppt_trace_rec *recs; /* all records of thread 0 */
  size_t n, cap;
  uint64_t *line;      /* per memory reference: its line */
  uint32_t *bb;        /* per memory reference: its block */
  unsigned char *pick; /* per memory reference: in a sampled window */
  size_t nrefs;
  uint32_t maxbb;
} stream;

static void die(const char *what) {
  fprintf(stderr, "backscan: %s\n", what);
  exit(2);
}

static void *grow(void *p, size_t n, size_t size) {
  void *q = realloc(p, n * size);
  if (!q) die("out of memory");
  return q;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void load(const char *path, stream *s) {
  ppt_trace *t = NULL;
  ppt_trace_cursor *c = NULL;
  ppt_err err;
  ppt_err_clear(&err);
  if (ppt_trace_open(path, &t, &err) || ppt_trace_cursor_open(t, 0, &c, &err)) die(err.msg);
  const ppt_trace_rec *r;
  size_t n;
  while (ppt_trace_cursor_next(c, &r, &n, &err) == 0 && n) {
    if (s->n + n > s->cap) {
      s->cap = (s->n + n) * 2;
      s->recs = grow(s->recs, s->cap, sizeof *s->recs);
    }
    memcpy(s->recs + s->n, r, n * sizeof *r);
    s->n += n;
  }
  if (err.status) die(err.msg);
  ppt_trace_cursor_close(c);
  ppt_trace_close(t);
}

/* Window sampling as the papers do it: each block instance independently with
 * probability rate; references before any block entry form one window. */
static void sample(stream *s, unsigned shift, double rate, unsigned long seed) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  if (!g) die("out of memory");
  gsl_rng_set(g, seed);
  size_t m = 0;
  for (size_t i = 0; i < s->n; i++) m += s->recs[i].kind == PPT_REC_LOAD || s->recs[i].kind == PPT_REC_STORE;
  s->line = grow(NULL, m + 1, sizeof *s->line);
  s->bb = grow(NULL, m + 1, sizeof *s->bb);
  s->pick = grow(NULL, m + 1, 1);
  int cur = gsl_rng_uniform(g) < rate;
  for (size_t i = 0; i < s->n; i++) {
    const ppt_trace_rec *x = &s->recs[i];
    if (x->kind == PPT_REC_BB) cur = gsl_rng_uniform(g) < rate;
    if (x->kind != PPT_REC_LOAD && x->kind != PPT_REC_STORE) continue;
    s->line[s->nrefs] = x->addr >> shift;
    s->bb[s->nrefs] = x->bb;
    s->pick[s->nrefs++] = (unsigned char)cur;
    if (x->bb > s->maxbb) s->maxbb = x->bb;
  }
  gsl_rng_free(g);
}

/* AMM Algorithm 1 for every sampled reference; per-block histograms in h[0..maxbb]. */
static double backscan(const stream *s, unsigned line, ppt_rdhist **h, uint64_t *nsampled) {
  double t0 = now();
  *nsampled = 0;
  for (size_t i = 0; i < s->nrefs; i++) {
    if (!s->pick[i]) continue;
    u64map seen; /* a set of lines (a line is never U64MAP_EMPTY) */
    u64map_init(&seen);
    int64_t d = PPT_RD_INF;
    uint64_t l = s->line[i];
    for (size_t j = i; j-- > 0;) {
      if (s->line[j] == l) {
        d = (int64_t)seen.count;
        break;
      }
      if (u64map_insert(&seen, s->line[j], NULL) == U64MAP_NONE) die("out of memory");
    }
    u64map_free(&seen);
    uint32_t b = s->bb[i];
    if (!h[b] && !(h[b] = ppt_rdhist_new(line))) die("out of memory");
    if (ppt_rdhist_add(h[b], d, 1.0)) die("out of memory");
    ++*nsampled;
  }
  return now() - t0;
}

/* Feeds recs to a new context in batches; returns the wall time of feed + finish. */
static double engine(const ppt_trace_rec *recs, size_t n, ppt_reuse_mode mode, double rate, unsigned long seed,
                     unsigned line, ppt_reuse **out) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  o.mode = mode;
  o.rate = rate;
  o.seed = seed;
  o.line = line;
  ppt_reuse *r;
  ppt_err err;
  if (ppt_reuse_new(&o, &r, &err)) die(err.msg);
  double t0 = now();
  for (size_t i = 0; i < n; i += BATCH)
    if (ppt_reuse_feed(r, recs + i, n - i < BATCH ? n - i : BATCH, &err)) die(err.msg);
  if (ppt_reuse_finish(r, &err)) die(err.msg);
  double dt = now() - t0;
  *out = r;
  return dt;
}

static double best_engine(const stream *s, ppt_reuse_mode mode, double rate, unsigned long seed, unsigned line,
                          int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; k++) {
    ppt_reuse *r;
    double t = engine(s->recs, s->n, mode, rate, seed, line, &r);
    if (t < best) best = t;
    ppt_reuse_free(r);
  }
  return best;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  double rate = 0.01;
  unsigned long seed = 1;
  unsigned line = 64;
  int reps = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rate") && i + 1 < argc) rate = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--line") && i + 1 < argc) line = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else die("usage: backscan TRACE [--rate R] [--seed S] [--line B] [--reps K]");
  }
  if (!path) die("usage: backscan TRACE [--rate R] [--seed S] [--line B] [--reps K]");
  if (!(rate > 0 && rate <= 1) || !line || (line & (line - 1))) die("bad --rate or --line");
  stream s = {0};
  load(path, &s);
  sample(&s, (unsigned)__builtin_ctz(line), rate, seed);

  ppt_rdhist **bh = calloc((size_t)s.maxbb + 1, sizeof *bh);
  if (!bh) die("out of memory");
  uint64_t nsampled;
  double t_back = backscan(&s, line, bh, &nsampled);
  double t_exact = best_engine(&s, PPT_REUSE_EXACT, 1, seed, line, reps);
  double t_samp = best_engine(&s, PPT_REUSE_SAMPLED, rate, seed, line, reps);

  /* The check: sampled references relabelled to their block + OFF. */
  uint32_t off = s.maxbb + 1;
  size_t k = 0;
  for (size_t i = 0; i < s.n; i++) {
    ppt_trace_rec *x = &s.recs[i];
    if (x->kind != PPT_REC_LOAD && x->kind != PPT_REC_STORE) continue;
    if (s.pick[k++]) x->bb += off;
  }
  ppt_reuse *chk;
  engine(s.recs, s.n, PPT_REUSE_EXACT, 1, seed, line, &chk);
  uint64_t mismatched = 0, compared = 0;
  for (uint32_t b = 0; b <= s.maxbb; b++) {
    const ppt_rdhist *e = ppt_reuse_bb_hist(chk, b + off);
    int has_e = e && ppt_rdhist_total(e) > 0, has_b = bh[b] != NULL;
    if (!has_e && !has_b) continue;
    compared++;
    if (has_e != has_b || !ppt_rdhist_equal(e, bh[b])) mismatched++;
  }
  ppt_reuse_free(chk);

  double n = (double)s.nrefs;
  printf("trace %s, thread 0: %zu references, %zu sampled (rate %g, seed %lu) in %llu blocks\n", path, s.nrefs,
         (size_t)nsampled, rate, seed, (unsigned long long)compared);
  printf("  backscan (AMM Alg. 1)  %9.3f s  %10.3f M refs/s  (%.0f sampled refs/s)\n", t_back, n / t_back / 1e6,
         (double)nsampled / t_back);
  printf("  exact engine           %9.3f s  %10.3f M refs/s  %8.1fx backscan\n", t_exact, n / t_exact / 1e6,
         t_back / t_exact);
  printf("  sampled engine (%g)  %9.3f s  %10.3f M refs/s  %8.1fx backscan\n", rate, t_samp, n / t_samp / 1e6,
         t_back / t_samp);
  printf("  distances of the sampled references: %s (%llu of %llu blocks differ)\n",
         mismatched ? "DIFFER" : "identical to the exact engine", (unsigned long long)mismatched,
         (unsigned long long)compared);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "bench", json_object_new_string("backscan"));
  json_object_object_add(o, "refs", json_object_new_uint64(s.nrefs));
  json_object_object_add(o, "sampled", json_object_new_uint64(nsampled));
  json_object_object_add(o, "rate", json_object_new_double(rate));
  json_object_object_add(o, "backscan_s", json_object_new_double(t_back));
  json_object_object_add(o, "exact_s", json_object_new_double(t_exact));
  json_object_object_add(o, "sampled_s", json_object_new_double(t_samp));
  json_object_object_add(o, "backscan_mrefs_s", json_object_new_double(n / t_back / 1e6));
  json_object_object_add(o, "exact_mrefs_s", json_object_new_double(n / t_exact / 1e6));
  json_object_object_add(o, "sampled_mrefs_s", json_object_new_double(n / t_samp / 1e6));
  json_object_object_add(o, "exact_vs_backscan", json_object_new_double(t_back / t_exact));
  json_object_object_add(o, "sampled_vs_backscan", json_object_new_double(t_back / t_samp));
  json_object_object_add(o, "identical", json_object_new_boolean(!mismatched));
  printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
  json_object_put(o);
  for (uint32_t b = 0; b <= s.maxbb; b++) ppt_rdhist_free(bh[b]);
  free(bh);
  free(s.recs);
  free(s.line);
  free(s.bb);
  free(s.pick);
  return mismatched ? 1 : 0;
}
