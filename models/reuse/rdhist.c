/* rdhist.c — reuse-distance histograms: counts per finite distance, first touches, total.
 * Layout and the inline hot-path add are in rdhist_impl.h. */
#include "rdhist_impl.h"

#include <stdlib.h>
#include <string.h>

ppt_rdhist *ppt_rdhist_new(unsigned line) {
  ppt_rdhist *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->line = line ? line : 64;
  u64map_init(&h->sparse);
  return h;
}

void ppt_rdhist_free(ppt_rdhist *h) {
  if (!h) return;
  free(h->dense);
  u64map_free(&h->sparse);
  free(h);
}

unsigned ppt_rdhist_line(const ppt_rdhist *h) { return h->line; }

/* The sparse bins are walked slot by slot: for i < sparse_cap(h), if sparse_bin(h, i). */
static inline size_t sparse_cap(const ppt_rdhist *h) { return u64map_cap(&h->sparse); }
static inline int sparse_bin(const ppt_rdhist *h, size_t i) {
  return h->sparse.ents[i].key != U64MAP_EMPTY;
}

static int sparse_add(ppt_rdhist *h, uint64_t d, double c);

/* Grows the dense part to n bins and moves the sparse bins it now covers into it. */
static int dense_grow(ppt_rdhist *h, uint64_t n) {
  double *nd = realloc(h->dense, n * sizeof *nd);
  if (!nd) return -1;
  memset(nd + h->ndense, 0, (n - h->ndense) * sizeof *nd);
  h->dense = nd;
  h->ndense = n;
  if (!h->sparse.count) return 0;
  size_t moved = 0;
  const u64map_ent *e = h->sparse.ents;
  for (size_t i = 0; i < sparse_cap(h); i++)
    if (sparse_bin(h, i) && e[i].key < n) {
      nd[e[i].key] += e[i].val.d;
      moved++;
    }
  if (!moved) return 0;
  /* Rebuild the table without them: erasing while scanning would let backward shifts
   * move entries past the scan. */
  u64map old = h->sparse;
  u64map_init(&h->sparse);
  int rc = 0;
  for (size_t i = 0; i < u64map_cap(&old) && rc == 0; i++)
    if (old.ents[i].key != U64MAP_EMPTY && old.ents[i].key >= n)
      rc = sparse_add(h, old.ents[i].key, old.ents[i].val.d);
  u64map_free(&old);
  return rc;
}

static const double *sparse_find(const ppt_rdhist *h, uint64_t d) {
  size_t i = u64map_find(&h->sparse, d);
  return i == U64MAP_NONE ? NULL : &h->sparse.ents[i].val.d;
}

int rdh_add_slow(ppt_rdhist *h, uint64_t d, double c) {
  if (d == RD_INF) {
    h->inf += c;
    h->total += c;
    return 0;
  }
  if (d < RDH_DENSE_MAX) {
    uint64_t n = h->ndense ? h->ndense : 16;
    while (n <= d) n *= 2;
    if (n <= RDH_DENSE_MIN || (double)n <= 2 * (h->total + c)) {
      if (dense_grow(h, n) != 0) return -1;
      h->dense[d] += c;
      h->total += c;
      return 0;
    }
  }
  if (sparse_add(h, d, c) != 0) return -1;
  h->total += c;
  return 0;
}

/* Adds c to the sparse bin d (total unchanged). */
static int sparse_add(ppt_rdhist *h, uint64_t d, double c) {
  /* A new bin starts at 0.0 and is added to, like an old one: 0.0 + -0.0 is +0.0. */
  size_t i = u64map_insert(&h->sparse, d, NULL);
  if (i == U64MAP_NONE) return -1;
  h->sparse.ents[i].val.d += c;
  return 0;
}

int ppt_rdhist_add(ppt_rdhist *h, int64_t d, double count) {
  if (d < 0 && d != PPT_RD_INF) return -1;
  return rdh_add(h, d == PPT_RD_INF ? RD_INF : (uint64_t)d, count);
}

ppt_rdhist *ppt_rdhist_clone(const ppt_rdhist *h) {
  ppt_rdhist *c = ppt_rdhist_new(h->line);
  if (!c) return NULL;
  if (ppt_rdhist_merge(c, h, 1.0) != 0) {
    ppt_rdhist_free(c);
    return NULL;
  }
  return c;
}

int ppt_rdhist_merge(ppt_rdhist *dst, const ppt_rdhist *src, double weight) {
  for (uint64_t d = 0; d < src->ndense; d++)
    if (src->dense[d] != 0 && rdh_add(dst, d, weight * src->dense[d]) != 0) return -1;
  for (size_t i = 0; i < sparse_cap(src); i++)
    if (sparse_bin(src, i) && rdh_add(dst, src->sparse.ents[i].key, weight * src->sparse.ents[i].val.d) != 0)
      return -1;
  if (src->inf != 0) rdh_add(dst, RD_INF, weight * src->inf);
  return 0;
}

double ppt_rdhist_total(const ppt_rdhist *h) { return h->total; }
double ppt_rdhist_infinite(const ppt_rdhist *h) { return h->inf; }

double ppt_rdhist_count(const ppt_rdhist *h, int64_t d) {
  if (d == PPT_RD_INF) return h->inf;
  if (d < 0) return 0;
  if ((uint64_t)d < h->ndense) return h->dense[d];
  const double *v = sparse_find(h, (uint64_t)d);
  return v ? *v : 0;
}

double ppt_rdhist_prob(const ppt_rdhist *h, int64_t d) {
  return h->total != 0 ? ppt_rdhist_count(h, d) / h->total : 0;
}

double ppt_rdhist_mean(const ppt_rdhist *h) {
  double s = 0, n = 0;
  for (uint64_t d = 0; d < h->ndense; d++) {
    s += (double)d * h->dense[d];
    n += h->dense[d];
  }
  for (size_t i = 0; i < sparse_cap(h); i++)
    if (sparse_bin(h, i)) {
      s += (double)h->sparse.ents[i].key * h->sparse.ents[i].val.d;
      n += h->sparse.ents[i].val.d;
    }
  return n != 0 ? s / n : 0;
}

int64_t ppt_rdhist_max(const ppt_rdhist *h) {
  int64_t m = -1;
  for (uint64_t d = 0; d < h->ndense; d++)
    if (h->dense[d] != 0) m = (int64_t)d;
  for (size_t i = 0; i < sparse_cap(h); i++)
    if (sparse_bin(h, i) && h->sparse.ents[i].val.d != 0 && (int64_t)h->sparse.ents[i].key > m)
      m = (int64_t)h->sparse.ents[i].key;
  return m;
}

double ppt_rdhist_below(const ppt_rdhist *h, uint64_t c) {
  double s = 0;
  for (uint64_t d = 0; d < h->ndense && d < c; d++) s += h->dense[d];
  for (size_t i = 0; i < sparse_cap(h); i++)
    if (sparse_bin(h, i) && h->sparse.ents[i].key < c) s += h->sparse.ents[i].val.d;
  return s;
}

size_t ppt_rdhist_nbins(const ppt_rdhist *h) {
  size_t n = 0;
  for (uint64_t d = 0; d < h->ndense; d++) n += h->dense[d] != 0;
  for (size_t i = 0; i < sparse_cap(h); i++) n += sparse_bin(h, i) && h->sparse.ents[i].val.d != 0;
  return n;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

long rdh_bins(const ppt_rdhist *h, uint64_t **keys, double **vals) {
  size_t n = ppt_rdhist_nbins(h), j = 0, nd = 0;
  *keys = NULL;
  *vals = NULL;
  if (n == 0) return 0;
  uint64_t *k = malloc(n * sizeof *k);
  double *v = malloc(n * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  for (uint64_t d = 0; d < h->ndense; d++)
    if (h->dense[d] != 0) k[j++] = d;
  nd = j;
  for (size_t i = 0; i < sparse_cap(h); i++)
    if (sparse_bin(h, i) && h->sparse.ents[i].val.d != 0) k[j++] = h->sparse.ents[i].key;
  /* Dense keys are already sorted and all below the sparse ones. */
  qsort(k + nd, n - nd, sizeof *k, cmp_u64);
  for (size_t i = 0; i < n; i++) v[i] = i < nd ? h->dense[k[i]] : *sparse_find(h, k[i]);
  *keys = k;
  *vals = v;
  return (long)n;
}

int ppt_rdhist_foreach(const ppt_rdhist *h, int (*fn)(int64_t d, double count, void *arg),
                       void *arg) {
  uint64_t *k;
  double *v;
  long n = rdh_bins(h, &k, &v);
  if (n < 0) return -1;
  int rc = 0;
  for (long i = 0; i < n && rc == 0; i++) rc = fn((int64_t)k[i], v[i], arg);
  free(k);
  free(v);
  return rc;
}

int ppt_rdhist_equal(const ppt_rdhist *a, const ppt_rdhist *b) {
  if (a->line != b->line || a->total != b->total || a->inf != b->inf) return 0;
  uint64_t *ka, *kb;
  double *va, *vb;
  long na = rdh_bins(a, &ka, &va), nb = rdh_bins(b, &kb, &vb);
  int eq = na >= 0 && na == nb;
  for (long i = 0; eq && i < na; i++) eq = ka[i] == kb[i] && va[i] == vb[i];
  free(ka);
  free(va);
  free(kb);
  free(vb);
  return eq;
}
