/* cmd_reuse.c — `ppt reuse TRACE`: reuse-distance histograms of a trace's streams
 * (issue 3), exact by default, sampled (AMM §3.2 / SASMM Algorithm 3 windows) or
 * approximate (SHARDS), on one or more worker threads (include/ppt/reuse.h).
 *
 * One analysis context per stream (thread of the traced run). The stream's chunks decode
 * independently, so the command hands them to ppt_reuse_feed_chunks with one decode
 * batch per worker; the engine guarantees the result equals the sequential feed. With
 * --device opencl the distances are computed on an OpenCL device instead
 * (ppt/reuse_device.h), into the same context: the outputs are the same. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "cli_device.h"
#include "ppt/io.h"
#include "ppt/reuse.h"
#include "ppt/trace.h"

#define MAX_WORKERS 256

static void help(void) {
  printf(
      "usage: ppt reuse TRACE [--line B] [--per-bb] [--threads T] [--sample R | --approx R]\n"
      "                 [--seed S] [--thread K | --all-threads] [--json] [-o FILE]\n"
      "                 [--ppt-text DIR] [--device cpu|opencl[:N]|list] [--device-batch N]\n\n"
      "Reuse-distance histogram of one stream of TRACE: for every load and store, the number\n"
      "of distinct cache lines touched since the previous access to the same line (first\n"
      "touches are infinite, written -1). Exact unless --sample or --approx is given.\n\n"
      "  --line B        cache line size in bytes, a power of two (default 64)\n"
      "  --per-bb        also per basic block (P(D|BB), AMM §3.2.1) and per region (serial,\n"
      "                  parallel)\n"
      "  --threads T     analyse with T worker threads (default 1); the result is identical\n"
      "  --sample R      window sampling (AMM/SASMM): a fraction R in (0, 1] of the block\n"
      "                  instances get their exact distances; the whole-stream histogram is\n"
      "                  the reweighted estimate (SASMM Eq. 1-4). Runs on one thread.\n"
      "  --approx R      SHARDS spatial sampling: a fraction R in (0, 1] of the lines, exact\n"
      "                  among themselves, scaled by 1/R\n"
      "  --seed S        seed of --sample's generator / --approx's hash (default 1)\n"
      "  --thread K      analyse thread K of the traced run (default 0)\n"
      "  --all-threads   analyse each thread of the trace separately\n" PPT_CLI_NOSTACK_HELP
      "  --json          machine-readable output on stdout\n"
      "  -o FILE         write the whole-stream histogram to FILE (JSON if FILE ends in .json,\n"
      "                  else PPT's text lines 'sd count p(sd)', -1 = first touch); with\n"
      "                  --all-threads, one file per thread: NAME.tK.EXT\n"
      "  --ppt-text DIR  write PPT text files into DIR: bb<ID>.txt per basic block and\n"
      "                  whole.txt (with --all-threads, in DIR/t<K>/)\n"
      PPT_CLI_DEVICE_HELP
      "                  (exact mode only, without --threads)\n"
      "  -h, --help\n\n"
      "The text output ends with the histogram in log2 bins; 'cum' is the fraction of\n"
      "references with a smaller distance than the bin's end, i.e. the hit rate of a fully\n"
      "associative LRU cache of that many lines.\n"
      "Exit status: 0 success, 1 failure while running, 2 bad usage or bad input.\n");
}

typedef struct args {
  ppt_cli_common c; /* --seed, --json, -o; c.operand: the trace */
  ppt_reuse_opts o;
  int per_bb, all_threads, thread_given;
  uint64_t thread, workers;
  int device;              /* 0 CPU engine, 1 OpenCL device (--device) */
  ppt_reuse_dev_opts dopt; /* --device opencl:N, --device-batch */
  const char *ppt_text;
} args;

/* One thread's analysis. */
typedef struct analysis {
  uint32_t thread;
  ppt_reuse *r;
  double secs;
  ppt_rdhist *reg[2]; /* with --per-bb: serial and parallel regions */
} analysis;

typedef struct results {
  ppt_trace *t;
  ppt_reuse_dev *dev; /* --device opencl: opened once for every thread */
  json_object *j; /* with --json: the thread's object, or the array of all threads' */
} results;

static const char *mode_name(ppt_reuse_mode m) {
  return m == PPT_REUSE_SAMPLED ? "sampled" : m == PPT_REUSE_APPROX ? "approx" : "exact";
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- chunk source */

/* A thread's chunks as a ppt_reuse_chunks source: one decode batch per worker slot. The
 * progress bar is drawn by whichever worker gets its lock; the others skip it. */
typedef struct source {
  const ppt_trace *t;
  uint32_t thread;
  ppt_trace_batch *batch[MAX_WORKERS];
  _Atomic uint64_t done; /* records decoded so far */
  pthread_mutex_t mu;
  ppt_cli_progress *progress;
} source;

static uint64_t chunk_size(void *arg, size_t i) {
  source *s = arg;
  return ppt_trace_chunk(s->t, ppt_trace_thread_chunk(s->t, s->thread, i))->nrecs;
}

static int chunk_decode(void *arg, unsigned slot, size_t i, const ppt_trace_rec **recs, size_t *n,
                        ppt_err *err) {
  source *s = arg;
  size_t c = ppt_trace_thread_chunk(s->t, s->thread, i);
  int rc = ppt_trace_chunk_decode(s->t, c, s->batch[slot], recs, n, err);
  if (rc) return rc;
  uint64_t done = atomic_fetch_add(&s->done, *n) + *n;
  if (s->progress && pthread_mutex_trylock(&s->mu) == 0) {
    ppt_cli_progress_update(s->progress, done);
    pthread_mutex_unlock(&s->mu);
  }
  return 0;
}

/* Analyses one thread's stream into a finished context; *secs is the analysis time
 * (decoding included). */
static int analyse(const ppt_trace *t, uint32_t thread, const args *a, ppt_reuse_dev *dev, ppt_reuse **out,
                   double *secs, ppt_err *err) {
  source s = {.t = t, .thread = thread};
  unsigned T = (unsigned)a->workers;
  int rc = 0;
  ppt_reuse *r = NULL;
  atomic_init(&s.done, 0);
  pthread_mutex_init(&s.mu, NULL);
  for (unsigned k = 0; k < T; k++)
    if (!(s.batch[k] = ppt_trace_batch_new())) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  if (!rc) rc = ppt_reuse_new(&a->o, &r, err);
  if (!rc) {
    ppt_reuse_chunks c = {ppt_trace_thread_nchunks(t, thread), chunk_size, chunk_decode, &s};
    s.progress = ppt_cli_progress_start("analysing", ppt_trace_nrecs(t, thread));
    double t0 = now();
    rc = dev ? ppt_reuse_dev_feed_chunks(dev, r, &c, err) : ppt_reuse_feed_chunks(r, T, &c, err);
    if (!rc) rc = ppt_reuse_finish(r, err);
    *secs = now() - t0;
    ppt_cli_progress_end(s.progress);
  }
  for (unsigned k = 0; k < T; k++) ppt_trace_batch_free(s.batch[k]);
  pthread_mutex_destroy(&s.mu);
  if (rc) {
    ppt_reuse_free(r);
    /* The engine's messages name no file: a decode error already does ("PATH: ..."). */
    if (strncmp(err->msg, ppt_trace_path(t), strlen(ppt_trace_path(t)))) {
      ppt_err e = *err;
      ppt_err_set(err, e.status, "%s: %s", ppt_trace_path(t), e.msg);
    }
    return rc;
  }
  *out = r;
  return 0;
}

/* ---------------------------------------------------------------- regions */

/* Serial (group 0) and parallel (group 1) histograms, from the blocks' PPT_BB_PARALLEL
 * flag; block 0 (references before any block entry) counts as serial. */
static int regions(const ppt_trace *t, const ppt_reuse *r, ppt_rdhist *out[2], ppt_err *err) {
  uint32_t nbbs = ppt_trace_nbbs(t);
  uint32_t *g = calloc((size_t)nbbs + 1, sizeof *g);
  if (!g) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t id = 1; id <= nbbs; id++) g[id] = (ppt_trace_bb_get(t, id)->flags & PPT_BB_PARALLEL) != 0;
  int rc = ppt_reuse_group_hists(r, g, (size_t)nbbs + 1, 2, out, err);
  free(g);
  return rc;
}

/* ---------------------------------------------------------------- text output */

typedef struct bins {
  double count[66]; /* [0] = d 0, [b] = d in [2^(b-1), 2^b - 1] */
  int top;
  double mode_count;
  int64_t mode_d;
} bins;

static int bin_of(int64_t d) {
  return d == 0 ? 0 : 64 - __builtin_clzll((unsigned long long)d);
}

static int add_bin(int64_t d, double c, void *arg) {
  bins *b = arg;
  int k = bin_of(d);
  b->count[k] += c;
  if (k > b->top) b->top = k;
  if (c > b->mode_count) {
    b->mode_count = c;
    b->mode_d = d;
  }
  return 0;
}

static void print_size(uint64_t bytes) {
  if (bytes >= (1ull << 30))
    printf("%7.4g GiB", (double)bytes / (1ull << 30));
  else if (bytes >= (1ull << 20))
    printf("%7.4g MiB", (double)bytes / (1ull << 20));
  else if (bytes >= 1024)
    printf("%7.4g KiB", (double)bytes / 1024);
  else
    printf("%7llu B  ", (unsigned long long)bytes);
}

static void print_bins(const ppt_rdhist *h) {
  bins b = {.top = -1, .mode_d = -1};
  double total = ppt_rdhist_total(h);
  if (ppt_rdhist_foreach(h, add_bin, &b) < 0 || total <= 0) return;
  printf("\n%-22s %16s %8s %8s  %s\n", "distance", "count", "%", "cum %", "FA-LRU size (lines)");
  double cum = 0;
  unsigned line = ppt_rdhist_line(h);
  for (int k = 0; k <= b.top; k++) {
    char range[48];
    if (k == 0)
      snprintf(range, sizeof range, "0");
    else if (k == 1)
      snprintf(range, sizeof range, "1");
    else
      snprintf(range, sizeof range, "%llu-%llu", 1ull << (k - 1), (k == 64 ? ~0ull : (1ull << k) - 1));
    cum += b.count[k];
    printf("%-22s %16.0f %8.3f %8.3f  ", range, b.count[k], 100 * b.count[k] / total, 100 * cum / total);
    if (k < 44) {
      print_size((uint64_t)line << k);
      printf(" (%llu)\n", 1ull << k);
    } else {
      printf("-\n");
    }
  }
  double inf = ppt_rdhist_infinite(h);
  printf("%-22s %16.0f %8.3f %8.3f\n", "inf (first touch)", inf, 100 * inf / total, 100.0);
}

static void print_summary(const ppt_trace *t, uint32_t thread, const args *a, const ppt_reuse *r,
                          double secs) {
  const ppt_rdhist *h = ppt_reuse_hist(r);
  double refs = (double)ppt_reuse_refs(r), total = ppt_rdhist_total(h), inf = ppt_rdhist_infinite(h);
  bins b = {.top = -1, .mode_d = -1};
  ppt_rdhist_foreach(h, add_bin, &b);
  printf("trace      %s (thread %u of %u)\n", ppt_trace_path(t), thread, ppt_trace_nthreads(t));
  if (a->o.mode == PPT_REUSE_EXACT)
    printf("mode       exact\n");
  else if (a->o.mode == PPT_REUSE_SAMPLED)
    printf("mode       sampled: %g of block instances, seed %lu (%llu references analysed)\n", a->o.rate,
           a->o.seed, (unsigned long long)ppt_reuse_sampled_refs(r));
  else
    printf("mode       approx (SHARDS): %g of lines, seed %lu\n", a->o.rate, a->o.seed);
  printf("line       %u B\n", a->o.line);
  printf("refs       %.0f\n", refs);
  printf("lines      %llu distinct%s\n", (unsigned long long)ppt_reuse_lines(r),
         a->o.mode == PPT_REUSE_APPROX ? " (of the hashed-in lines)" : "");
  printf("infinite   %.0f (%.3f%%)\n", inf, total > 0 ? 100 * inf / total : 0.0);
  printf("mean D     %.3f (finite distances)\n", ppt_rdhist_mean(h));
  if (b.mode_d >= 0) printf("most freq  D = %lld (%.0f references)\n", (long long)b.mode_d, b.mode_count);
  if (a->device)
    printf("elapsed    %.3f s on OpenCL device opencl:%u, %.2f M refs/s\n", secs, a->dopt.index,
           secs > 0 ? refs / secs / 1e6 : 0.0);
  else
    printf("elapsed    %.3f s on %llu worker%s, %.2f M refs/s\n", secs, (unsigned long long)a->workers,
           a->workers == 1 ? "" : "s", secs > 0 ? refs / secs / 1e6 : 0.0);
  print_bins(h);
}

typedef struct brow {
  uint32_t id;
  uint64_t refs;
} brow;

static int by_refs(const void *x, const void *y) {
  const brow *p = x, *q = y;
  if (p->refs != q->refs) return p->refs < q->refs ? 1 : -1;
  return p->id < q->id ? -1 : p->id > q->id;
}

static int print_blocks(const ppt_trace *t, const ppt_reuse *r, ppt_rdhist *const reg[2]) {
  const char *names[2] = {"serial", "parallel"};
  printf("\n%-10s %16s %12s %12s\n", "region", "refs", "infinite", "mean D");
  for (int g = 0; g < 2; g++)
    printf("%-10s %16.0f %12.0f %12.3f\n", names[g], ppt_rdhist_total(reg[g]), ppt_rdhist_infinite(reg[g]),
           ppt_rdhist_mean(reg[g]));
  uint32_t maxbb = ppt_reuse_max_bb(r);
  brow *rows = malloc(((size_t)maxbb + 1) * sizeof *rows);
  if (!rows) return -1;
  size_t n = 0;
  for (uint32_t id = 0; id <= maxbb; id++)
    if (ppt_reuse_bb_refs(r, id)) rows[n++] = (brow){id, ppt_reuse_bb_refs(r, id)};
  qsort(rows, n, sizeof *rows, by_refs);
  printf("\n%6s %14s %12s %12s %10s %10s  %s\n", "block", "refs", "instances", "analysed", "mean D", "inf %",
         "function (file:line) [parallel]");
  for (size_t i = 0; i < n; i++) {
    uint32_t id = rows[i].id;
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, id);
    double tot = h ? ppt_rdhist_total(h) : 0;
    printf("%6u %14llu %12llu %12.0f %10.3f %10.3f  ", id, (unsigned long long)rows[i].refs,
           (unsigned long long)ppt_reuse_bb_instances(r, id), tot, h ? ppt_rdhist_mean(h) : 0.0,
           tot > 0 ? 100 * ppt_rdhist_infinite(h) / tot : 0.0);
    if (id >= 1 && id <= ppt_trace_nbbs(t)) {
      const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
      printf("%s (%s:%u)%s\n", bb->func, bb->file, bb->line,
             bb->flags & PPT_BB_PARALLEL ? " [parallel]" : "");
    } else {
      printf("(before any block)\n");
    }
  }
  free(rows);
  return 0;
}

/* ---------------------------------------------------------------- JSON output */

/* The histogram's fields, plus its mean, as a new object; NULL when out of memory. */
static json_object *hist_json(const ppt_rdhist *h, ppt_err *err) {
  json_object *o;
  if (ppt_rdhist_to_json(h, &o, err)) return NULL;
  json_object_object_add(o, "mean", json_object_new_double(ppt_rdhist_mean(h)));
  return o;
}

/* Moves "infinite" and "histogram" (and "mean") of a histogram object into dst. */
static void take_hist(json_object *dst, json_object *h) {
  static const char *keys[] = {"infinite", "histogram", "mean"};
  for (size_t i = 0; i < 3; i++) {
    json_object *v;
    if (json_object_object_get_ex(h, keys[i], &v)) json_object_object_add(dst, keys[i], json_object_get(v));
  }
  json_object_put(h);
}

static void add_provenance(json_object *o, const args *a, uint32_t thread) {
  json_object_object_add(o, "mode", json_object_new_string(mode_name(a->o.mode)));
  json_object_object_add(o, "rate", json_object_new_double(a->o.mode == PPT_REUSE_EXACT ? 1.0 : a->o.rate));
  json_object_object_add(o, "seed", a->o.mode == PPT_REUSE_EXACT ? NULL : json_object_new_uint64(a->o.seed));
  json_object_object_add(o, "thread", json_object_new_int64(thread));
}

static json_object *blocks_json(const ppt_trace *t, const ppt_reuse *r, ppt_err *err) {
  json_object *arr = json_object_new_array();
  uint32_t maxbb = ppt_reuse_max_bb(r);
  for (uint32_t id = 0; arr && id <= maxbb; id++) {
    uint64_t refs = ppt_reuse_bb_refs(r, id);
    if (!refs) continue;
    const ppt_trace_bb *bb = id >= 1 && id <= ppt_trace_nbbs(t) ? ppt_trace_bb_get(t, id) : NULL;
    json_object *e = json_object_new_object();
    json_object_object_add(e, "id", json_object_new_int64(id));
    json_object_object_add(e, "function", json_object_new_string(bb ? bb->func : ""));
    json_object_object_add(e, "file", json_object_new_string(bb ? bb->file : ""));
    json_object_object_add(e, "line", json_object_new_int64(bb ? bb->line : 0));
    json_object_object_add(e, "parallel", json_object_new_boolean(bb && (bb->flags & PPT_BB_PARALLEL)));
    json_object_object_add(e, "refs", json_object_new_uint64(refs));
    json_object_object_add(e, "instances", json_object_new_uint64(ppt_reuse_bb_instances(r, id)));
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, id);
    json_object_object_add(e, "analysed", json_object_new_double(h ? ppt_rdhist_total(h) : 0));
    if (h) {
      json_object *hj = hist_json(h, err);
      if (!hj) {
        json_object_put(e);
        json_object_put(arr);
        return NULL;
      }
      take_hist(e, hj);
    }
    json_object_array_add(arr, e);
  }
  return arr;
}

static json_object *thread_json(const ppt_trace *t, uint32_t thread, const args *a, const ppt_reuse *r,
                                double secs, ppt_rdhist *const *reg, ppt_err *err) {
  json_object *o = hist_json(ppt_reuse_hist(r), err);
  if (!o) return NULL;
  add_provenance(o, a, thread);
  json_object_object_add(o, "analysed", json_object_new_uint64(ppt_reuse_sampled_refs(r)));
  json_object_object_add(o, "lines", json_object_new_uint64(ppt_reuse_lines(r)));
  json_object_object_add(o, "workers", json_object_new_int64((int64_t)a->workers));
  json_object_object_add(o, "device", json_object_new_string(a->device ? "opencl" : "cpu"));
  json_object_object_add(o, "elapsed_s", json_object_new_double(secs));
  json_object_object_add(o, "refs_per_s",
                         json_object_new_double(secs > 0 ? (double)ppt_reuse_refs(r) / secs : 0));
  if (reg) {
    json_object *rj = json_object_new_object();
    const char *names[2] = {"serial", "parallel"};
    for (int g = 0; g < 2; g++) {
      json_object *h = hist_json(reg[g], err);
      if (!h) {
        json_object_put(rj);
        json_object_put(o);
        return NULL;
      }
      json_object_object_add(rj, names[g], h);
    }
    json_object_object_add(o, "regions", rj);
    json_object *b = blocks_json(t, r, err);
    if (!b) {
      json_object_put(o);
      return NULL;
    }
    json_object_object_add(o, "blocks", b);
  }
  return o;
}

/* ---------------------------------------------------------------- files */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* FILE for thread 0 only; with --all-threads NAME.tK.EXT (the extension kept, so the
 * format choice by suffix still holds). Caller frees. */
static char *per_thread_name(const char *path, int all, uint32_t thread) {
  size_t n = strlen(path) + 24;
  char *s = malloc(n);
  if (!s) return NULL;
  if (!all) {
    snprintf(s, n, "%s", path);
    return s;
  }
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (dot && (!slash || dot > slash + 1))
    snprintf(s, n, "%.*s.t%u%s", (int)(dot - path), path, thread, dot);
  else
    snprintf(s, n, "%s.t%u", path, thread);
  return s;
}

/* The -o file: PPT text, or JSON with the histogram's keys plus provenance (what `ppt
 * hitrate` reads back). Written atomically. */
static int save_hist(const char *path, const ppt_trace *t, uint32_t thread, const args *a, const ppt_reuse *r,
                     ppt_err *err) {
  const ppt_rdhist *h = ppt_reuse_hist(r);
  if (!ends_with(path, ".json")) return ppt_rdhist_save(h, path, 0, err);
  json_object *o;
  int rc = ppt_rdhist_to_json(h, &o, err);
  if (rc) return rc;
  add_provenance(o, a, thread);
  json_object_object_add(o, "trace", json_object_new_string(ppt_trace_path(t)));
  const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
  size_t n = strlen(s);
  char *text = malloc(n + 2);
  if (!text) {
    json_object_put(o);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  memcpy(text, s, n);
  memcpy(text + n, "\n", 2);
  json_object_put(o);
  rc = ppt_io_write_file(path, text, err);
  free(text);
  return rc;
}

static int make_dir(const char *dir, ppt_err *err) {
  struct stat st;
  if (mkdir(dir, 0777) == 0) return 0;
  int e = errno;
  if (e == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  return ppt_err_set(err, e == EEXIST ? PPT_EINPUT : PPT_ERUN, "%s: %s", dir,
                     e == EEXIST ? "exists and is not a folder" : strerror(e));
}

/* PPT's per-block files: DIR/bb<ID>.txt for every block with analysed references and
 * DIR/whole.txt, each in the "sd count p(sd)" format PPT's hit-rate code reads. */
static int save_ppt_text(const char *base, int all, uint32_t thread, const ppt_reuse *r, ppt_err *err) {
  char dir[4096], p[4200];
  snprintf(dir, sizeof dir, all ? "%s/t%u" : "%s", base, thread);
  int rc = make_dir(base, err);
  if (!rc && all) rc = make_dir(dir, err);
  uint32_t maxbb = ppt_reuse_max_bb(r);
  for (uint32_t id = 0; !rc && id <= maxbb; id++) {
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, id);
    if (!h || ppt_rdhist_total(h) <= 0) continue;
    snprintf(p, sizeof p, "%s/bb%u.txt", dir, id);
    rc = ppt_rdhist_save(h, p, 0, err);
  }
  if (!rc) {
    snprintf(p, sizeof p, "%s/whole.txt", dir);
    rc = ppt_rdhist_save(ppt_reuse_hist(r), p, 0, err);
  }
  return rc;
}

/* ---------------------------------------------------------------- options */

/* --sample R / --approx R: one of them, a fraction in (0, 1]. */
static int take_rate(args *a, int val, const char *value) {
  if (a->o.mode != PPT_REUSE_EXACT) return ppt_cli_usage("reuse", "give one of --sample and --approx");
  a->o.mode = val == 's' ? PPT_REUSE_SAMPLED : PPT_REUSE_APPROX;
  int rc = ppt_cli_take_fraction("reuse", val == 's' ? "--sample" : "--approx", value, &a->o.rate);
  /* gsl_ran_geometric's mean gap must stay far below 2^32 (reuse.h). */
  if (!rc && val == 's' && a->o.rate < 1e-6)
    rc = ppt_cli_usage("reuse", "--sample wants a fraction of at least 1e-6, not '%s'", value);
  return rc;
}

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  uint64_t v;
  switch (val) {
    case 'l':
      if (ppt_cli_parse_u64(value, &v) || v < 1 || v > (1u << 20) || (v & (v - 1)))
        return ppt_cli_usage("reuse", "--line wants a power of two up to 1 MiB, not '%s'", value);
      a->o.line = (unsigned)v;
      return 0;
    case 'b': a->per_bb = 1; return 0;
    case 'T':
      if (ppt_cli_parse_u64(value, &a->workers) || a->workers < 1 || a->workers > MAX_WORKERS)
        return ppt_cli_usage("reuse", "--threads wants 1..%d, not '%s'", MAX_WORKERS, value);
      return 0;
    case 's':
    case 'a': return take_rate(a, val, value);
    case 'k':
      if (ppt_cli_parse_u64(value, &a->thread) || a->thread >= UINT32_MAX)
        return ppt_cli_usage("reuse", "--thread wants a thread index, not '%s'", value);
      a->thread_given = 1;
      return 0;
    case 'A': a->all_threads = 1; return 0;
    case 'D': return ppt_cli_device_parse("reuse", value, &a->device, &a->dopt);
    case 'B': return ppt_cli_device_batch("reuse", value, &a->dopt);
    default: a->ppt_text = value; return 0; /* --ppt-text */
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"line", required_argument, 0, 'l'},
                                      {"per-bb", no_argument, 0, 'b'},
                                      {"threads", required_argument, 0, 'T'},
                                      {"sample", required_argument, 0, 's'},
                                      {"approx", required_argument, 0, 'a'},
                                      {"thread", required_argument, 0, 'k'},
                                      {"all-threads", no_argument, 0, 'A'},
                                      {"ppt-text", required_argument, 0, 'p'},
                                      {"device", required_argument, 0, 'D'},
                                      {"device-batch", required_argument, 0, 'B'},
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "reuse",
                                    .shared = PPT_OPT_SEED | PPT_OPT_JSON | PPT_OPT_NOSTACK | PPT_OPT_OUTPUT,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE"};
  args *a = va;
  ppt_reuse_opts_default(&a->o);
  a->workers = 1;
  ppt_reuse_dev_opts_default(&a->dopt);
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (rc) return rc;
  const char *clash = a->device && a->o.mode != PPT_REUSE_EXACT ? "--sample/--approx"
                      : a->device && a->workers > 1             ? "--threads"
                                                                : NULL;
  if (clash) {
    ppt_cli_common_free(&a->c);
    return ppt_cli_usage("reuse", "--device opencl is exact and runs on the device: no %s", clash);
  }
  a->o.seed = (unsigned long)a->c.seed;
  if (a->thread_given && a->all_threads) {
    ppt_cli_common_free(&a->c);
    return ppt_cli_usage("reuse", "give one of --thread and --all-threads");
  }
  return 0;
}

/* ---------------------------------------------------------------- main */

/* Analyses one thread. */
static int analyse_thread(const ppt_trace *t, uint32_t thread, const args *a, ppt_reuse_dev *dev, analysis *res,
                          ppt_err *err) {
  *res = (analysis){.thread = thread};
  int rc = analyse(t, thread, a, dev, &res->r, &res->secs, err);
  if (!rc && a->per_bb) rc = regions(t, res->r, res->reg, err);
  return rc;
}

static void free_analysis(analysis *res) {
  ppt_rdhist_free(res->reg[0]);
  ppt_rdhist_free(res->reg[1]);
  ppt_reuse_free(res->r);
}

/* -o and --ppt-text for one thread. */
static int thread_files(const ppt_trace *t, const args *a, const analysis *res, ppt_err *err) {
  int rc = 0;
  if (a->c.output) {
    char *p = per_thread_name(a->c.output, a->all_threads, res->thread);
    rc = p ? save_hist(p, t, res->thread, a, res->r, err) : ppt_err_set(err, PPT_ERUN, "out of memory");
    free(p);
  }
  if (!rc && a->ppt_text) rc = save_ppt_text(a->ppt_text, a->all_threads, res->thread, res->r, err);
  return rc;
}

static int thread_table(const ppt_trace *t, const args *a, const analysis *res, ppt_err *err) {
  if (res->thread > (a->all_threads ? 0 : a->thread)) printf("\n");
  print_summary(t, res->thread, a, res->r, res->secs);
  if (a->per_bb && print_blocks(t, res->r, res->reg)) return ppt_err_set(err, PPT_ERUN, "out of memory");
  return 0;
}

/* One thread's JSON, into the array of all threads' or as the one object. */
static int thread_json_add(const ppt_trace *t, const args *a, const analysis *res, json_object **out,
                           ppt_err *err) {
  json_object *j = thread_json(t, res->thread, a, res->r, res->secs, a->per_bb ? res->reg : NULL, err);
  if (!j) return err->status ? (int)err->status : PPT_ERUN;
  if (!a->all_threads)
    *out = j;
  else
    json_object_array_add(*out, j);
  return 0;
}

/* Every thread asked for, one at a time: analysed, written (files, and the table or
 * JSON), freed, so that only one thread's analysis is held at once. */
static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = ppt_trace_open(a->c.operand, &r->t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, r->t);
  if (rc) return rc;
  uint32_t nth = ppt_trace_nthreads(r->t);
  if (!a->all_threads && a->thread >= nth)
    return ppt_err_set(err, PPT_EINPUT, "%s: no thread %llu (the trace has %u)", a->c.operand,
                       (unsigned long long)a->thread, nth);
  uint32_t first = a->all_threads ? 0 : (uint32_t)a->thread, last = a->all_threads ? nth : first + 1;
  /* Opened once for every thread, before any chunk is decoded: a bad device fails at once. */
  if (a->device && (rc = ppt_cli_device_open(&a->dopt, &r->dev, err))) return rc;
  if (a->c.json && a->all_threads) r->j = json_object_new_array();
  for (uint32_t th = first; !rc && th < last; th++) {
    analysis res;
    rc = analyse_thread(r->t, th, a, r->dev, &res, err);
    if (!rc) rc = thread_files(r->t, a, &res, err);
    if (!rc) rc = a->c.json ? thread_json_add(r->t, a, &res, &r->j, err) : thread_table(r->t, a, &res, err);
    free_analysis(&res);
  }
  return rc;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  json_object *j = r->j, *one = j;
  r->j = NULL; /* ppt_cli_put_json releases it */
  if (a->all_threads) {
    one = json_object_new_object();
    json_object_object_add(one, "trace", json_object_new_string(a->c.operand));
    json_object_object_add(one, "line", json_object_new_int64(a->o.line));
    json_object_object_add(one, "mode", json_object_new_string(mode_name(a->o.mode)));
    json_object_object_add(one, "threads", j);
  } else {
    json_object_object_add(one, "trace", json_object_new_string(a->c.operand));
  }
  return ppt_cli_put_json(one, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static void release(void *vr) {
  results *r = vr;
  json_object_put(r->j);
  ppt_reuse_dev_free(r->dev);
  ppt_trace_close(r->t);
}

int ppt_cmd_reuse(int argc, char **argv) {
  static const ppt_cli_steps steps = {"reuse", parse_args, run, NULL, write_json, NULL, release};
  if (ppt_cli_device_wants_list(argc, argv)) return ppt_cli_device_list("reuse");
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}
