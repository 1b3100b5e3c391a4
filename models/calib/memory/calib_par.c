/* calib_par.c — what the core model needs beyond latencies and bandwidths: how many
 * misses a core keeps in flight (memory-level parallelism), what a call into an
 * untraced library costs, and what a line written by another core costs to get
 * (a cache-to-cache transfer). */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "calib/calib_impl.h"

/* ---- memory-level parallelism ---- */
/* At most this many chains: one Zen 5 core keeps ~44 of them in flight (164 ns alone,
 * 3.76 ns an access with 64), so 32 would cap the figure. */
#define MAX_CHAINS 64

typedef struct chains {
  const uint64_t *next; /* next[i] = index of the line after line i (8 words per line) */
  uint64_t start[MAX_CHAINS];
  int k;
  uint64_t sink;
} chains;

static void run_chains(void *arg, uint64_t n) {
  chains *c = arg;
  uint64_t p[MAX_CHAINS];
  for (int j = 0; j < c->k; j++) p[j] = c->start[j];
  for (uint64_t s = 0; s < n; s += (uint64_t)c->k)
    for (int j = 0; j < c->k; j++) p[j] = c->next[p[j]];
  for (int j = 0; j < c->k; j++) c->sink += p[j];
  /* Resume where this run stopped, as k_chase does: a trial that replayed the same
   * prefix of each chain would find it in the cache the last trial filled. */
  for (int j = 0; j < c->k; j++) c->start[j] = p[j];
}

double calib_mlp(size_t bytes, gsl_rng *rng, const calib_timing *t, int *huge) {
  size_t lines = bytes / 64;
  /* Huge pages: a random line of a DRAM-sized buffer of small pages misses the TLB too,
   * and the page walks, not the misses, then set how many are in flight (6 to 29 over
   * nine calibrations in one hour on a Zen 5 guest). The core model charges page
   * walks apart (the spec's tlb); a column walk whose pages the TLB holds keeps ~40
   * misses in flight there, as these chases do over huge pages. */
  uint64_t *buf = calib_buffer(lines * 64, huge);
  uint64_t *perm = malloc(lines * sizeof *perm);
  if (!buf || !perm) {
    calib_buffer_free(buf);
    free(perm);
    return 0;
  }
  /* One random cycle through every line (a chase the prefetchers cannot follow); k
   * chains start evenly spaced on it, so their misses are independent. */
  for (size_t i = 0; i < lines; i++) perm[i] = i;
  for (size_t i = lines - 1; i > 0; i--) {
    size_t j = gsl_rng_uniform_int(rng, i + 1);
    uint64_t x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
  for (size_t i = 0; i < lines; i++) buf[perm[i] * 8] = perm[(i + 1) % lines] * 8;
  chains c = {.next = buf};
  double one = 0, best = 0;
  for (int k = 1; k <= MAX_CHAINS; k *= 2) {
    c.k = k;
    for (int j = 0; j < k; j++) c.start[j] = perm[(lines / (size_t)k) * (size_t)j] * 8;
    double s = calib_measure(run_chains, &c, (uint64_t)k, t);
    if (k == 1)
      one = s;
    else if (s > 0 && one / s > best)
      best = one / s;
  }
  calib_buffer_free(buf);
  free(perm);
  return best > 1 ? best : 1;
}

/* ---- misses queued on one first-level set ---- */
/* A column walk over a row-major matrix whose rows are the first level's set stride
 * (L1 size / ways: 4 KiB on a 32 KiB 8-way L1) puts every line of a column in one L1
 * set. Those misses overlap far less than random ones (on the validation VM, L3-resident:
 * 15.5 cycles per line stored and 9.4 loaded, against 6.2 and 6.9 for random lines and
 * 3.4 and 4.0 with rows padded by one line), which is what mlp_same_set describes. */
typedef struct colwalk {
  uint64_t *a; /* nbuf matrices of rows x row_words, one after another */
  size_t rows, row_words, step, nbuf;
  size_t b, j; /* where the next column starts: matrix b, word j */
  volatile uint64_t sink;
} colwalk;

/* One unit is one line: n is a multiple of rows, one column of one matrix per `rows`.
 * Columns go left to right (one line apart), then the next matrix, as a loop nest
 * `for j step 8: for i: a[i][j]` over each matrix in turn does. */
static void next_column(colwalk *w) {
  w->j += w->step;
  if (w->j >= w->row_words) {
    w->j = 0;
    w->b = (w->b + 1) % w->nbuf;
  }
}

CALIB_KERNEL static void k_col_store(void *arg, uint64_t n) {
  colwalk *w = arg;
  for (uint64_t done = 0; done < n; done += w->rows) {
    uint64_t *p = w->a + w->b * w->rows * w->row_words + w->j;
    for (size_t i = 0; i < w->rows; i++) {
      uint64_t x = i;
      CALIB_KEEP_INT(x); /* one scalar store per line, nothing the compiler can merge */
      p[i * w->row_words] = x;
    }
    next_column(w);
  }
  CALIB_CLOBBER_MEMORY();
}

CALIB_KERNEL static void k_col_load(void *arg, uint64_t n) {
  colwalk *w = arg;
  uint64_t s = 0;
  for (uint64_t done = 0; done < n; done += w->rows) {
    const uint64_t *p = w->a + w->b * w->rows * w->row_words + w->j;
    /* Integer sum (1-cycle adds): the loads, not an add chain, set the pace. */
    for (size_t i = 0; i < w->rows; i++) {
      s += p[i * w->row_words];
      CALIB_KEEP_INT(s);
    }
    next_column(w);
  }
  w->sink = s; /* the loads are used */
}

int calib_same_set_ns(uint64_t row_bytes, uint32_t line, size_t rows, size_t nbuf, const calib_timing *t,
                      double *load_ns, double *store_ns, int *huge) {
  *load_ns = *store_ns = 0;
  if (huge) *huge = 0;
  if (!row_bytes || !line || row_bytes % line || line % sizeof(uint64_t) || !rows || !nbuf) return -1;
  size_t bytes = (size_t)row_bytes * rows * nbuf;
  uint64_t *a = calib_buffer(bytes, huge);
  if (!a) return -1;
  colwalk w = {.a = a,
               .rows = rows,
               .row_words = (size_t)row_bytes / sizeof(uint64_t),
               .step = line / sizeof(uint64_t),
               .nbuf = nbuf};
  /* Stores first: the walk leaves every line dirty, as a kernel writing a matrix
   * column by column does; the loads then find them where the stores left them. */
  *store_ns = calib_measure(k_col_store, &w, rows, t) * 1e9;
  w.b = w.j = 0;
  *load_ns = calib_measure(k_col_load, &w, rows, t) * 1e9;
  calib_buffer_free(a);
  return *store_ns > 0 && *load_ns > 0 ? 0 : -1;
}

/* ---- a call into libm ---- */
typedef struct calls {
  volatile double sink;
} calls;

static void run_calls(void *arg, uint64_t n) {
  calls *c = arg;
  double s = 0;
  /* exp and log alternate on independent arguments, as in a loop over options: the
   * core overlaps consecutive calls as it would there. */
  for (uint64_t i = 0; i < n; i += 2) {
    double x = 0.5 + 1e-9 * (double)i;
    s += exp(x);
    s += log(x + 1.0);
  }
  c->sink = s;
}

double calib_call_s(const calib_timing *t) {
  calls c = {0};
  return calib_measure(run_calls, &c, 2, t);
}

/* ---- a cache-to-cache transfer ---- */
/* Two threads on two cores take turns incrementing one counter: the caller writes the
 * odd values, the partner the even ones. Each turn begins with a load of a line the
 * other core has just modified, so it is served from that core's private cache (a
 * cache-to-cache transfer, not an L3 hit), and the next write cannot start before that
 * load returns: nothing overlaps, and a round trip is two transfers back to back, as in
 * false sharing at a worksharing boundary. No pause instruction in the spins: it would
 * add its own delay (~140 cycles on Skylake) to every turn. */
typedef struct pingpong {
  _Alignas(64) _Atomic uint64_t turn; /* the shared line: odd = the partner's turn */
  _Alignas(64) _Atomic int stop;      /* its own line: polling it costs the spin nothing */
  _Alignas(64) uint64_t next;         /* the caller's last even value seen */
  const calib_timing *t;
  double s; /* seconds per round trip */
} pingpong;

static void *pong(void *arg) {
  pingpong *p = arg;
  for (;;) {
    uint64_t v = atomic_load_explicit(&p->turn, memory_order_acquire);
    if (v & 1)
      atomic_store_explicit(&p->turn, v + 1, memory_order_release);
    else if (atomic_load_explicit(&p->stop, memory_order_relaxed))
      return NULL;
  }
}

/* One unit is one round trip: the caller's write, the partner's answer. */
static void ping(void *arg, uint64_t n) {
  pingpong *p = arg;
  uint64_t v = p->next;
  for (uint64_t i = 0; i < n; i++, v += 2) {
    atomic_store_explicit(&p->turn, v + 1, memory_order_release);
    while (atomic_load_explicit(&p->turn, memory_order_acquire) != v + 2) {
    }
  }
  p->next = v;
}

/* The caller's side: calib_measure's sizing runs warm both threads up before the timed
 * trials; then the partner is let go. */
static void ping_trials(void *arg) {
  pingpong *p = arg;
  p->s = calib_measure(ping, p, 1, p->t);
  atomic_store_explicit(&p->stop, 1, memory_order_relaxed);
}

double calib_c2c_round_trip_s(const int cpus[2], const calib_timing *t) {
  pingpong *p = aligned_alloc(64, sizeof *p);
  if (!p) return 0;
  atomic_init(&p->turn, 0);
  atomic_init(&p->stop, 0);
  p->next = 0;
  p->t = t;
  p->s = 0;
  double s = calib_on_two_cpus(cpus, pong, p, ping_trials, p) == 0 ? p->s : 0;
  free(p);
  return s;
}

/* ---- two threads on two CPUs ---- */
typedef struct pinned {
  int cpu;
  _Atomic int ready; /* 1: pinned, running fn; -1: could not pin */
  void *(*fn)(void *);
  void *arg;
} pinned;

static void *start_pinned(void *arg) {
  pinned *p = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(p->cpu, &set);
  /* Unpinned, the two threads could share one CPU and take turns once per time slice. */
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set)) {
    atomic_store_explicit(&p->ready, -1, memory_order_release);
    return NULL;
  }
  atomic_store_explicit(&p->ready, 1, memory_order_release);
  return p->fn(p->arg);
}

int calib_pin_self(int cpu, cpu_set_t *saved) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return 0;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return pthread_getaffinity_np(pthread_self(), sizeof *saved, saved) == 0 &&
         pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

void calib_unpin_self(const cpu_set_t *saved) {
  (void)pthread_setaffinity_np(pthread_self(), sizeof *saved, saved);
}

int calib_on_two_cpus(const int cpus[2], void *(*partner)(void *), void *partner_arg, void (*body)(void *),
                      void *body_arg) {
  if (cpus[0] < 0 || cpus[1] < 0 || cpus[0] == cpus[1] || cpus[0] >= CPU_SETSIZE || cpus[1] >= CPU_SETSIZE)
    return -1;
  /* The caller is pinned to the other CPU while body runs, its CPU set put back after (as
   * calib_stream_bw does). */
  cpu_set_t saved;
  if (!calib_pin_self(cpus[0], &saved)) return -1;
  pinned p = {.cpu = cpus[1], .fn = partner, .arg = partner_arg};
  atomic_init(&p.ready, 0);
  int rc = -1;
  pthread_t tid;
  if (pthread_create(&tid, NULL, start_pinned, &p) == 0) {
    int r;
    while ((r = atomic_load_explicit(&p.ready, memory_order_acquire)) == 0) sched_yield();
    if (r > 0) {
      body(body_arg);
      rc = 0;
    }
    pthread_join(tid, NULL);
  }
  calib_unpin_self(&saved);
  return rc;
}
