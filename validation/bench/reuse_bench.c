/* reuse_bench.c — speed and accuracy of the reuse-distance engine (issue 3 targets:
 * exact >= 20 M refs/s on one thread and >= 1.7x on two; 1% sampling >= 10x faster than
 * exact with hit-rate error <= 0.5 points).
 *
 * Synthetic traces, so it runs without the trace reader:
 *   loops   OpenMP-style kernels: a triad over three 2 MiB arrays, a 5-point stencil on
 *           a 512x512 grid, and a gather x[idx[i]] over 512 KiB, one block per iteration;
 *   random  uniform random lines over a working set (--lines, default 65536): the worst
 *           case, no locality at all.
 * The records are generated in memory first and fed in batches of 65536 records, as the
 * trace reader would. Hit rates are those of fully associative LRU caches (hit iff
 * D < C) for C = 512, 4096, 32768, 262144 lines (32 KiB .. 16 MiB of 64-byte lines).
 *
 * usage: reuse_bench [--workload loops|random|all] [--refs N] [--lines W] [--threads T]
 *                    [--rate R] [--piece P] [--reps K]
 * Each timing is the best of K runs (default 3); "cpu" is the CPU time of the parallel
 * run over the sequential one (the parallel overhead, independent of how many cores the
 * machine actually gives). Prints one line per measurement (hit-rate errors per capacity
 * in brackets, estimate - exact, in points), then a one-line JSON summary. */
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ppt/reuse.h"

#define BATCH 65536

typedef struct trace {
  ppt_trace_rec *r;
  size_t n, cap, refs;
} trace;

static void put(trace *t, ppt_trace_rec x) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 1 << 20;
    t->r = realloc(t->r, t->cap * sizeof *t->r);
    if (!t->r) {
      fprintf(stderr, "reuse_bench: out of memory\n");
      exit(1);
    }
  }
  t->r[t->n++] = x;
  t->refs += x.kind != PPT_REC_BB;
}
static void bb(trace *t, uint32_t id) { put(t, (ppt_trace_rec){.bb = id, .kind = PPT_REC_BB}); }
static void ld(trace *t, uint32_t id, uint64_t a) {
  put(t, (ppt_trace_rec){.addr = a, .bb = id, .kind = PPT_REC_LOAD, .size = 8});
}
static void st(trace *t, uint32_t id, uint64_t a) {
  put(t, (ppt_trace_rec){.addr = a, .bb = id, .kind = PPT_REC_STORE, .size = 8});
}

static void gen_loops(trace *t, size_t nrefs, gsl_rng *rng) {
  const uint64_t N = 1 << 18, G = 512, X = 1 << 16;
  const uint64_t A = 0x10000000, B = 0x20000000, C = 0x30000000, U = 0x40000000, V = 0x50000000,
                 I = 0x60000000, XS = 0x70000000, Y = 0x80000000;
  uint32_t *idx = malloc(N * sizeof *idx);
  for (uint64_t i = 0; i < N; i++) idx[i] = (uint32_t)gsl_rng_uniform_int(rng, X);
  while (t->refs < nrefs) {
    for (uint64_t i = 0; i < N && t->refs < nrefs; i++) { /* c[i] = a[i] + s * b[i] */
      bb(t, 1);
      ld(t, 1, A + 8 * i);
      ld(t, 1, B + 8 * i);
      st(t, 1, C + 8 * i);
    }
    for (uint64_t i = 1; i < G - 1 && t->refs < nrefs; i++) /* 5-point stencil */
      for (uint64_t j = 1; j < G - 1; j++) {
        bb(t, 2);
        ld(t, 2, U + 8 * ((i - 1) * G + j));
        ld(t, 2, U + 8 * (i * G + j - 1));
        ld(t, 2, U + 8 * (i * G + j));
        ld(t, 2, U + 8 * (i * G + j + 1));
        ld(t, 2, U + 8 * ((i + 1) * G + j));
        st(t, 2, V + 8 * (i * G + j));
      }
    for (uint64_t i = 0; i < N && t->refs < nrefs; i++) { /* y[i] += x[idx[i]] */
      bb(t, 3);
      put(t, (ppt_trace_rec){.addr = I + 4 * i, .bb = 3, .kind = PPT_REC_LOAD, .size = 4});
      ld(t, 3, XS + 8 * (uint64_t)idx[i]);
      ld(t, 3, Y + 8 * i);
      st(t, 3, Y + 8 * i);
    }
  }
  free(idx);
}

static void gen_random(trace *t, size_t nrefs, uint64_t lines, gsl_rng *rng) {
  while (t->refs < nrefs) {
    uint32_t id = 1 + (uint32_t)gsl_rng_uniform_int(rng, 8);
    bb(t, id);
    for (int k = 0; k < 4; k++) ld(t, id, 0x10000000 + 64 * gsl_rng_uniform_int(rng, lines));
  }
}

typedef struct src {
  const trace *t;
  size_t pos;
} src;

static int next(void *arg, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  (void)err;
  src *s = arg;
  size_t m = s->t->n - s->pos < BATCH ? s->t->n - s->pos : BATCH;
  *recs = s->t->r + s->pos;
  *n = m;
  s->pos += m;
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU time of the whole process (all threads). */
static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int reps = 3;

/* The trace as a chunked stream (a trace file's chunks decode independently). */
static uint64_t chunk_size(void *arg, size_t i) {
  const trace *t = arg;
  size_t b = i * BATCH;
  return t->n - b < BATCH ? t->n - b : BATCH;
}

static int chunk_decode(void *arg, unsigned slot, size_t i, const ppt_trace_rec **recs, size_t *n,
                        ppt_err *err) {
  (void)slot;
  (void)err;
  const trace *t = arg;
  *recs = t->r + i * BATCH;
  *n = chunk_size(arg, i);
  return 0;
}

/* Runs one analysis `reps` times; returns the last context, the best wall time and the
 * CPU time of that run. T > 1: chunks on T threads; T < -1: batches on -T threads
 * (ppt_reuse_feed_parallel). */
static ppt_reuse *run1(const trace *t, ppt_reuse_mode mode, double rate, int T, size_t piece,
                       double *secs, double *cpus);
static ppt_reuse *run(const trace *t, ppt_reuse_mode mode, double rate, int T, size_t piece,
                      double *secs, double *cpus) {
  ppt_reuse *r = NULL;
  *secs = 1e30;
  for (int k = 0; k < reps; k++) {
    double s, c;
    ppt_reuse_free(r);
    r = run1(t, mode, rate, T, piece, &s, &c);
    if (s < *secs) {
      *secs = s;
      if (cpus) *cpus = c;
    }
  }
  return r;
}

static ppt_reuse *run1(const trace *t, ppt_reuse_mode mode, double rate, int T, size_t piece,
                       double *secs, double *cpus) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  o.mode = mode;
  o.rate = rate;
  o.seed = 12345;
  if (piece) o.piece = piece;
  ppt_reuse *r;
  ppt_err err;
  if (ppt_reuse_new(&o, &r, &err)) goto fail;
  src s = {t, 0};
  double t0 = now(), c0 = cpu();
  ppt_reuse_chunks c = {(t->n + BATCH - 1) / BATCH, chunk_size, chunk_decode, (void *)t};
  int rc = T > 1 ? ppt_reuse_feed_chunks(r, (unsigned)T, &c, &err)
                 : ppt_reuse_feed_parallel(r, T < -1 ? (unsigned)-T : 1, next, &s, &err);
  if (rc || ppt_reuse_finish(r, &err)) goto fail;
  *secs = now() - t0;
  *cpus = cpu() - c0;
  return r;
fail:
  fprintf(stderr, "reuse_bench: %s\n", err.msg);
  exit(1);
}

static const uint64_t caps[] = {512, 4096, 32768, 262144};
#define NCAPS 4

/* Largest hit-rate difference over the capacities, in percentage points; per-capacity
 * differences (estimate - exact) in d. */
static double hit_err(const ppt_rdhist *x, const ppt_rdhist *y, double *hx_out, double *d) {
  double m = 0;
  for (int i = 0; i < NCAPS; i++) {
    double hx = ppt_rdhist_below(x, caps[i]) / ppt_rdhist_total(x);
    double hy = ppt_rdhist_below(y, caps[i]) / ppt_rdhist_total(y);
    if (hx_out) hx_out[i] = hx;
    d[i] = (hy - hx) * 100;
    if (fabs(hx - hy) * 100 > m) m = fabs(hx - hy) * 100;
  }
  return m;
}

static void print_errs(const double *d) {
  printf("  [");
  for (int i = 0; i < NCAPS; i++) printf("%s%+.3f", i ? " " : "", d[i]);
  printf("]");
}

static json_object *bench(const char *name, const trace *t, unsigned T, double rate, size_t piece) {
  double ts1, tsT, tsB, tss, tsa, c1, cT, cB, cx;
  double n = (double)t->refs;
  ppt_reuse *e1 = run(t, PPT_REUSE_EXACT, 1, 1, piece, &ts1, &c1);
  ppt_reuse *eT = run(t, PPT_REUSE_EXACT, 1, (int)T, piece, &tsT, &cT);
  ppt_reuse *eB = run(t, PPT_REUSE_EXACT, 1, -(int)T, piece, &tsB, &cB);
  int same = ppt_rdhist_equal(ppt_reuse_hist(e1), ppt_reuse_hist(eT)) &&
             ppt_rdhist_equal(ppt_reuse_hist(e1), ppt_reuse_hist(eB));
  ppt_reuse_free(eB);
  ppt_reuse *sm = run(t, PPT_REUSE_SAMPLED, rate, 1, piece, &tss, &cx);
  ppt_reuse *ap = run(t, PPT_REUSE_APPROX, rate, 1, piece, &tsa, &cx);
  double hits[NCAPS], ds[NCAPS], da[NCAPS];
  double es = hit_err(ppt_reuse_hist(e1), ppt_reuse_hist(sm), hits, ds);
  double ea = hit_err(ppt_reuse_hist(e1), ppt_reuse_hist(ap), NULL, da);
  printf("%-7s refs %.0f, lines %llu, LRU hit rates", name, n, (unsigned long long)ppt_reuse_lines(e1));
  for (int i = 0; i < NCAPS; i++) printf(" C%llu=%.4f", (unsigned long long)caps[i], hits[i]);
  printf("\n");
  printf("  exact   1 thread : %7.2f M refs/s (%.3f s)\n", n / ts1 / 1e6, ts1);
  printf("  exact   %u threads: %7.2f M refs/s (%.3f s)  speed-up %.2fx, cpu %.2fx  (chunks)  identical: %s\n",
         T, n / tsT / 1e6, tsT, ts1 / tsT, cT / c1, same ? "yes" : "NO");
  printf("  exact   %u threads: %7.2f M refs/s (%.3f s)  speed-up %.2fx, cpu %.2fx  (batches, pieces of %zu)\n",
         T, n / tsB / 1e6, tsB, ts1 / tsB, cB / c1, piece ? piece : (size_t)1 << 20);
  printf("  sampled %g      : %7.2f M refs/s (%.3f s)  %.1fx exact  max hit-rate error %.3f points", rate,
         n / tss / 1e6, tss, ts1 / tss, es);
  print_errs(ds);
  printf("\n  approx  %g      : %7.2f M refs/s (%.3f s)  %.1fx exact  max hit-rate error %.3f points", rate,
         n / tsa / 1e6, tsa, ts1 / tsa, ea);
  print_errs(da);
  printf("\n");
  json_object *o = json_object_new_object();
  json_object_object_add(o, "workload", json_object_new_string(name));
  json_object_object_add(o, "refs", json_object_new_int64((int64_t)t->refs));
  json_object_object_add(o, "lines", json_object_new_int64((int64_t)ppt_reuse_lines(e1)));
  json_object_object_add(o, "exact_mrefs_s", json_object_new_double(n / ts1 / 1e6));
  json_object_object_add(o, "threads", json_object_new_int((int)T));
  json_object_object_add(o, "exact_par_mrefs_s", json_object_new_double(n / tsT / 1e6));
  json_object_object_add(o, "par_speedup", json_object_new_double(ts1 / tsT));
  json_object_object_add(o, "par_identical", json_object_new_boolean(same));
  json_object_object_add(o, "par_cpu_ratio", json_object_new_double(cT / c1));
  json_object_object_add(o, "batch_par_speedup", json_object_new_double(ts1 / tsB));
  json_object_object_add(o, "rate", json_object_new_double(rate));
  json_object_object_add(o, "sampled_mrefs_s", json_object_new_double(n / tss / 1e6));
  json_object_object_add(o, "sampled_speedup", json_object_new_double(ts1 / tss));
  json_object_object_add(o, "sampled_hit_err_pts", json_object_new_double(es));
  json_object_object_add(o, "approx_mrefs_s", json_object_new_double(n / tsa / 1e6));
  json_object_object_add(o, "approx_speedup", json_object_new_double(ts1 / tsa));
  json_object_object_add(o, "approx_hit_err_pts", json_object_new_double(ea));
  ppt_reuse_free(e1);
  ppt_reuse_free(eT);
  ppt_reuse_free(sm);
  ppt_reuse_free(ap);
  return o;
}

int main(int argc, char **argv) {
  const char *wl = "all";
  size_t nrefs = 20000000, piece = 0;
  uint64_t lines = 65536;
  unsigned T = 2;
  double rate = 0.01;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--workload") && i + 1 < argc) wl = argv[++i];
    else if (!strcmp(argv[i], "--refs") && i + 1 < argc) nrefs = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--lines") && i + 1 < argc) lines = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) T = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rate") && i + 1 < argc) rate = atof(argv[++i]);
    else if (!strcmp(argv[i], "--piece") && i + 1 < argc) piece = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
    else {
      fprintf(stderr, "usage: reuse_bench [--workload loops|random|all] [--refs N] [--lines W] "
                      "[--threads T] [--rate R] [--piece P] [--reps K]\n");
      return 2;
    }
  }
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  json_object *all = json_object_new_array();
  if (!strcmp(wl, "all") || !strcmp(wl, "loops")) {
    trace t = {0};
    gen_loops(&t, nrefs, rng);
    json_object_array_add(all, bench("loops", &t, T, rate, piece));
    free(t.r);
  }
  if (!strcmp(wl, "all") || !strcmp(wl, "random")) {
    trace t = {0};
    gen_random(&t, nrefs, lines, rng);
    json_object_array_add(all, bench("random", &t, T, rate, piece));
    free(t.r);
  }
  json_object *sum = json_object_new_object();
  json_object_object_add(sum, "bench", json_object_new_string("reuse"));
  json_object_object_add(sum, "results", all);
  printf("%s\n", json_object_to_json_string_ext(sum, JSON_C_TO_STRING_PLAIN));
  json_object_put(sum);
  gsl_rng_free(rng);
  return 0;
}
