/* calib_mem.c — memory kernels of `ppt calibrate`: load-to-use latency by pointer
 * chasing, read bandwidth by streaming sums.
 *
 * Latency: every load's address is the value the previous load returned, so loads
 * cannot overlap and the time per load is the load-to-use latency of wherever the
 * buffer lives. The order is a random cyclic permutation (Sattolo's shuffle, driven by
 * a seeded gsl_rng) of the buffer's lines, which defeats stride and next-line
 * prefetchers; a working set of half a level fits in it with room for conflicts.
 *
 * Bandwidth: a sum of 64-bit words over a buffer, split into independent accumulators
 * so the adds never limit it; the compiler vectorises the loop (on x86-64 an AVX2 copy
 * is chosen at run time when the CPU has it, since the baseline SSE2 build would only
 * measure half the load width of current cores). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "calib/calib_impl.h"

#define HUGE_PAGE (2u << 20)

void *calib_buffer(size_t bytes, int *huge) {
  void *p = NULL;
  size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  if (posix_memalign(&p, HUGE_PAGE, len)) return NULL;
  int h = 0;
#ifdef MADV_HUGEPAGE
  /* Huge pages keep TLB misses out of the cache latencies: 16 MiB is 4096 small pages,
   * more than most second-level TLBs, but only 8 huge ones. */
  if (len >= HUGE_PAGE && madvise(p, len, MADV_HUGEPAGE) == 0) h = 1;
#endif
  if (huge) *huge = h;
  /* Touch every page now, so page faults are not timed and reads do not all hit the
   * shared zero page. */
  memset(p, 1, len);
  return p;
}

void calib_buffer_free(void *p) {
  free(p);
}

/* ---- pointer chase ---- */

CALIB_KERNEL static void k_chase(void *arg, uint64_t n) {
  void **p = *(void ***)arg;
  for (uint64_t i = 0; i < n; i += 16) {
#define HOP p = (void **)*p;
    HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP
#undef HOP
  }
  /* Resume where this run stopped: the next trial does not replay the same prefix. */
  *(void ***)arg = p;
}

size_t *calib_cyclic_perm(size_t n, gsl_rng *rng) {
  size_t *perm = malloc((n ? n : 1) * sizeof *perm);
  if (!perm) return NULL;
  for (size_t i = 0; i < n; i++) perm[i] = i;
  /* Sattolo: like Fisher-Yates but j < i strictly, which yields one cycle through all
   * n slots, so the chase visits the whole working set before repeating. */
  for (size_t i = n ? n - 1 : 0; i > 0; i--) {
    size_t j = (size_t)gsl_rng_uniform_int(rng, (unsigned long)i);
    size_t tmp = perm[i];
    perm[i] = perm[j];
    perm[j] = tmp;
  }
  return perm;
}

double calib_chase_cycle_ns(void *start, size_t n, int warm, const calib_timing *t) {
  void **cursor = (void **)start;
  if (warm) k_chase(&cursor, (n + 15) / 16 * 16); /* one lap brings the set into the cache */
  return 1e9 * calib_measure(k_chase, &cursor, 16, t);
}

double calib_chase_ns(void *buf, size_t bytes, size_t stride, int warm, gsl_rng *rng, const calib_timing *t) {
  size_t n = bytes / stride;
  if (n < 2) return 0;
  size_t *perm = calib_cyclic_perm(n, rng);
  if (!perm) return 0;
  char *base = buf;
  for (size_t i = 0; i < n; i++) *(void **)(base + i * stride) = base + perm[i] * stride;
  free(perm);
  return calib_chase_cycle_ns(base, n, warm, t);
}

/* ---- streaming reads ---- */

typedef uint64_t (*sum_fn)(const uint64_t *a, size_t words);

/* A plain reduction: the loop vectoriser turns it into SIMD adds with several
 * interleaved accumulators (integer adds reassociate freely, unlike FP). */
#define SUM_BODY                                \
  uint64_t s = 0;                               \
  for (size_t i = 0; i < words; i++) s += a[i]; \
  return s;

CALIB_KERNEL static uint64_t sum_generic(const uint64_t *a, size_t words){SUM_BODY}
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_AVX2_VARIANT 1
CALIB_KERNEL __attribute__((target("avx2"))) static uint64_t sum_avx2(const uint64_t *a, size_t words) {
  SUM_BODY
}
#endif

static sum_fn pick_sum(void) {
#ifdef HAVE_AVX2_VARIANT
  if (__builtin_cpu_supports("avx2")) return sum_avx2;
#endif
  return sum_generic;
}

typedef struct stream_arg {
  const uint64_t *a;
  size_t words; /* whole buffer */
  size_t chunk; /* words read per unit; words is a multiple of it */
  size_t at;    /* where the next unit starts */
  sum_fn sum;
} stream_arg;

/* One unit = one chunk, chunks taken in turn round the buffer: a DRAM-sized buffer is
 * read in short timed runs, and a chunk comes round again only after the whole buffer
 * (8x the last level) has gone through the caches, so it is never a cache hit. */
CALIB_KERNEL static void k_stream(void *arg, uint64_t n) {
  stream_arg *s = arg;
  uint64_t acc = 0;
  for (uint64_t i = 0; i < n; i++) {
    acc += s->sum(s->a + s->at, s->chunk);
    s->at += s->chunk;
    if (s->at >= s->words) s->at = 0;
    CALIB_CLOBBER_MEMORY(); /* every unit must read memory again */
  }
  volatile uint64_t sink = acc;
  (void)sink;
}

/* ---- a triad: two arrays read, one written ---- */

typedef struct triad_arg {
  double *a;
  const double *b, *c;
  size_t words, chunk, at; /* as stream_arg's, in elements of each array */
} triad_arg;

/* One unit = one chunk of a = b + 3c, chunks taken in turn round the arrays as
 * k_stream does; a's lines are read for ownership, then written back when evicted. */
CALIB_KERNEL static void k_triad(void *arg, uint64_t n) {
  triad_arg *s = arg;
  for (uint64_t i = 0; i < n; i++) {
    double *restrict a = s->a + s->at;
    const double *restrict b = s->b + s->at, *restrict c = s->c + s->at;
    for (size_t j = 0; j < s->chunk; j++) a[j] = b[j] + 3.0 * c[j];
    s->at += s->chunk;
    if (s->at >= s->words) s->at = 0;
    CALIB_CLOBBER_MEMORY();
  }
}

/* ---- timed runs on several threads ---- */

/* Threads start together: each waits for `go` (1: run, -1: abandoned because a later
 * thread could not be created). */
typedef struct stream_gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int go;
} stream_gate;

typedef struct stream_thread {
  calib_kernel k;
  void *arg;
  uint64_t passes;
  int cpu; /* -1: not pinned */
  stream_gate *gate;
  double seconds;
} stream_thread;

static void *stream_worker(void *p) {
  stream_thread *th = p;
  if (th->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(th->cpu, &set);
    /* Best effort: without pinning the scheduler still spreads the threads. */
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  pthread_mutex_lock(&th->gate->mu);
  while (th->gate->go == 0) pthread_cond_wait(&th->gate->cv, &th->gate->mu);
  int go = th->gate->go;
  pthread_mutex_unlock(&th->gate->mu);
  if (go < 0) return NULL;
  double t0 = calib_now();
  th->k(th->arg, th->passes);
  th->seconds = calib_now() - t0;
  return NULL;
}

/* One timed run of all threads: the slowest thread's time, since the figure is the
 * bandwidth the threads get together. Negative when threads cannot be started. */
static double stream_run(stream_thread *th, uint32_t nthreads) {
  stream_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  pthread_t *tid = calloc(nthreads, sizeof *tid);
  if (!tid) return -1;
  uint32_t started = 0;
  for (uint32_t i = 0; i < nthreads; i++) {
    th[i].gate = &gate;
    th[i].seconds = 0;
    if (pthread_create(&tid[i], NULL, stream_worker, &th[i])) break;
    started++;
  }
  pthread_mutex_lock(&gate.mu);
  gate.go = started == nthreads ? 1 : -1;
  pthread_cond_broadcast(&gate.cv);
  pthread_mutex_unlock(&gate.mu);
  for (uint32_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
  free(tid);
  pthread_cond_destroy(&gate.cv);
  pthread_mutex_destroy(&gate.mu);
  if (started < nthreads) return -1;
  double worst = 0;
  for (uint32_t i = 0; i < nthreads; i++)
    if (th[i].seconds > worst) worst = th[i].seconds;
  return worst;
}

/* Units of th[i].k on th[0..nthreads) per second, all threads together (the trials'
 * statistic of the slowest thread's time). One thread runs here, in the caller: pinned
 * for the trials when asked (one core streaming alone, e.g. DRAM's per-core figure),
 * the caller's CPU set put back after, so the measurements that follow run where they
 * did before. Best effort, as for the worker threads. */
static double units_per_s(stream_thread *th, uint32_t nthreads, const calib_timing *t) {
  cpu_set_t saved;
  int repin = nthreads == 1 && th[0].cpu >= 0 && calib_pin_self(th[0].cpu, &saved);
  /* Units per run sized on one thread alone; with all threads running each unit only
   * gets slower, so every run lasts at least min_s. */
  double per_unit = calib_measure(th[0].k, th[0].arg, 1, t);
  uint64_t passes = (uint64_t)(t->min_s / (per_unit > 0 ? per_unit : 1e-9)) + 1;
  double *d = malloc((size_t)(t->trials > 0 ? t->trials : 1) * sizeof *d);
  int nd = 0;
  for (int trial = 0; d && trial < t->trials; trial++) {
    for (uint32_t i = 0; i < nthreads; i++) th[i].passes = passes;
    double s;
    if (nthreads == 1) {
      double t0 = calib_now();
      th[0].k(th[0].arg, passes);
      s = calib_now() - t0;
    } else {
      s = stream_run(th, nthreads);
    }
    if (s > 0) d[nd++] = s;
  }
  double best = d ? calib_statistic(d, (size_t)nd, t) : 0;
  free(d);
  if (repin) calib_unpin_self(&saved);
  return best > 0 ? (double)nthreads * (double)passes / best : 0;
}

/* Words and chunk (in 8-byte elements) of a buffer of `bytes` read `chunk_bytes` at a
 * time: whole chunks of whole 64-byte lines; 0 words when too small. */
static void stream_shape(size_t bytes, size_t chunk_bytes, size_t *words, size_t *chunk) {
  size_t c = chunk_bytes / sizeof(uint64_t) / 8 * 8, w = bytes / sizeof(uint64_t) / 8 * 8;
  if (c == 0 || c > w) c = w;
  *words = w / (c ? c : 1) * c;
  *chunk = c;
  if (*words < 8) *words = 0;
}

double calib_stream_bw(size_t bytes_each, size_t chunk_bytes, uint32_t nthreads, const int *cpus,
                       const calib_timing *t, int *huge) {
  if (nthreads == 0) nthreads = 1;
  size_t words, chunk;
  stream_shape(bytes_each, chunk_bytes, &words, &chunk);
  if (!words) return 0;
  stream_thread *th = calloc(nthreads, sizeof *th);
  stream_arg *args = calloc(nthreads, sizeof *args);
  sum_fn sum = pick_sum();
  double bw = 0;
  uint32_t ok = 0;
  for (; th && args && ok < nthreads; ok++) {
    uint64_t *a = calib_buffer(words * sizeof(uint64_t), huge);
    if (!a) break;
    args[ok] = (stream_arg){a, words, chunk, 0, sum};
    th[ok] = (stream_thread){.k = k_stream, .arg = &args[ok], .cpu = cpus ? cpus[ok] : -1};
  }
  if (ok == nthreads) bw = units_per_s(th, nthreads, t) * (double)chunk * sizeof(uint64_t);
  for (uint32_t i = 0; i < ok; i++) calib_buffer_free((void *)args[i].a);
  free(args);
  free(th);
  return bw;
}

double calib_triad_bw(size_t bytes_each, size_t chunk_bytes, uint32_t nthreads, const int *cpus,
                      const calib_timing *t, int *huge) {
  if (nthreads == 0) nthreads = 1;
  size_t words, chunk;
  stream_shape(bytes_each / 3, chunk_bytes, &words, &chunk);
  if (!words) return 0;
  stream_thread *th = calloc(nthreads, sizeof *th);
  triad_arg *args = calloc(nthreads, sizeof *args);
  double bw = 0;
  uint32_t ok = 0;
  for (; th && args && ok < nthreads; ok++) {
    /* One buffer of the three arrays, b and c filled by calib_buffer's touch. */
    double *abc = calib_buffer(3 * words * sizeof(double), huge);
    if (!abc) break;
    args[ok] = (triad_arg){abc, abc + words, abc + 2 * words, words, chunk, 0};
    th[ok] = (stream_thread){.k = k_triad, .arg = &args[ok], .cpu = cpus ? cpus[ok] : -1};
  }
  if (ok == nthreads) bw = units_per_s(th, nthreads, t) * (double)chunk * sizeof(double);
  for (uint32_t i = 0; i < ok; i++) calib_buffer_free(args[i].a);
  free(args);
  free(th);
  return bw;
}
