/* calib_par.c — what the core model needs beyond latencies and bandwidths: how many
 * misses a core keeps in flight (memory-level parallelism), what a call into an
 * untraced library costs, and what an OpenMP parallel region's fork and join cost. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu/calib_impl.h"

/* ---- memory-level parallelism ---- */
typedef struct chains {
  const uint64_t *next; /* next[i] = index of the line after line i (8 words per line) */
  uint64_t start[32];
  int k;
  uint64_t sink;
} chains;

static void run_chains(void *arg, uint64_t n) {
  chains *c = arg;
  uint64_t p[32];
  for (int j = 0; j < c->k; j++) p[j] = c->start[j];
  for (uint64_t s = 0; s < n; s += (uint64_t)c->k)
    for (int j = 0; j < c->k; j++) p[j] = c->next[p[j]];
  for (int j = 0; j < c->k; j++) c->sink += p[j];
}

double calib_mlp(size_t bytes, gsl_rng *rng, const calib_timing *t) {
  size_t lines = bytes / 64;
  uint64_t *buf = aligned_alloc(64, lines * 64);
  uint64_t *perm = malloc(lines * sizeof *perm);
  if (!buf || !perm) {
    free(buf);
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
  for (int k = 1; k <= 32; k *= 2) {
    c.k = k;
    for (int j = 0; j < k; j++) c.start[j] = perm[(lines / (size_t)k) * (size_t)j] * 8;
    double s = calib_measure(run_chains, &c, (uint64_t)k, t);
    if (k == 1) one = s;
    else if (s > 0 && one / s > best) best = one / s;
  }
  free(buf);
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
