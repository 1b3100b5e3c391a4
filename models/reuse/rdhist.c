/* rdhist.c — reuse-distance histograms: counts per finite distance, first touches, total.
 * Layout and the inline hot-path add are in rdhist_impl.h. */
#include "rdhist_impl.h"

#include <stdlib.h>
#include <string.h>

ppt_rdhist *ppt_rdhist_new(unsigned line) {
  ppt_rdhist *h = calloc(1, sizeof *h);
  if (h) h->line = line ? line : 64;
  return h;
}

void ppt_rdhist_free(ppt_rdhist *h) {
  if (!h) return;
  free(h->dense);
  free(h->skey);
  free(h->sval);
  free(h);
}

unsigned ppt_rdhist_line(const ppt_rdhist *h) { return h->line; }

static inline size_t sparse_slot(uint64_t d, size_t mask) {
  return (size_t)((d * 0x9E3779B97F4A7C15ull) >> 32) & mask; /* tables < 2^32 slots */
}

static int sparse_grow(ppt_rdhist *h) {
  size_t n = h->smask ? 2 * (h->smask + 1) : 64;
  uint64_t *k = malloc(n * sizeof *k);
  double *v = malloc(n * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  memset(k, 0xff, n * sizeof *k);
  for (size_t i = 0; h->smask && i <= h->smask; i++) {
    if (h->skey[i] == RD_INF) continue;
    size_t s = sparse_slot(h->skey[i], n - 1);
    while (k[s] != RD_INF) s = (s + 1) & (n - 1);
    k[s] = h->skey[i];
    v[s] = h->sval[i];
  }
  free(h->skey);
  free(h->sval);
  h->skey = k;
  h->sval = v;
  h->smask = n - 1;
  return 0;
}

static double *sparse_find(const ppt_rdhist *h, uint64_t d);
static int sparse_add(ppt_rdhist *h, uint64_t d, double c);

/* Grows the dense part to n bins and moves the sparse bins it now covers into it. */
static int dense_grow(ppt_rdhist *h, uint64_t n) {
  double *nd = realloc(h->dense, n * sizeof *nd);
  if (!nd) return -1;
  memset(nd + h->ndense, 0, (n - h->ndense) * sizeof *nd);
  h->dense = nd;
  h->ndense = n;
  if (!h->scount) return 0;
  size_t moved = 0;
  for (size_t i = 0; i <= h->smask; i++)
    if (h->skey[i] != RD_INF && h->skey[i] < n) {
      nd[h->skey[i]] += h->sval[i];
      moved++;
    }
  if (!moved) return 0;
  /* Rebuild the table without them (deleting in place would break probe chains). */
  uint64_t *ok = h->skey;
  double *ov = h->sval;
  size_t omask = h->smask;
  h->skey = NULL;
  h->sval = NULL;
  h->smask = h->scount = 0;
  int rc = 0;
  for (size_t i = 0; i <= omask && rc == 0; i++)
    if (ok[i] != RD_INF && ok[i] >= n) rc = sparse_add(h, ok[i], ov[i]);
  free(ok);
  free(ov);
  return rc;
}

static double *sparse_find(const ppt_rdhist *h, uint64_t d) {
  if (!h->smask) return NULL;
  for (size_t s = sparse_slot(d, h->smask);; s = (s + 1) & h->smask) {
    if (h->skey[s] == d) return &h->sval[s];
    if (h->skey[s] == RD_INF) return NULL;
  }
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
  double *v = sparse_find(h, d);
  if (!v) {
    /* Keep the load factor at most 1/2 so probes stay short. */
    if (2 * (h->scount + 1) > (h->smask ? h->smask + 1 : 0) && sparse_grow(h) != 0) return -1;
    size_t s = sparse_slot(d, h->smask);
    while (h->skey[s] != RD_INF) s = (s + 1) & h->smask;
    h->skey[s] = d;
    h->sval[s] = 0;
    h->scount++;
    v = &h->sval[s];
  }
  *v += c;
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
  for (size_t i = 0; src->smask && i <= src->smask; i++)
    if (src->skey[i] != RD_INF && rdh_add(dst, src->skey[i], weight * src->sval[i]) != 0)
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
  for (size_t i = 0; h->smask && i <= h->smask; i++)
    if (h->skey[i] != RD_INF) {
      s += (double)h->skey[i] * h->sval[i];
      n += h->sval[i];
    }
  return n != 0 ? s / n : 0;
}

int64_t ppt_rdhist_max(const ppt_rdhist *h) {
  int64_t m = -1;
  for (uint64_t d = 0; d < h->ndense; d++)
    if (h->dense[d] != 0) m = (int64_t)d;
  for (size_t i = 0; h->smask && i <= h->smask; i++)
    if (h->skey[i] != RD_INF && h->sval[i] != 0 && (int64_t)h->skey[i] > m)
      m = (int64_t)h->skey[i];
  return m;
}

double ppt_rdhist_below(const ppt_rdhist *h, uint64_t c) {
  double s = 0;
  for (uint64_t d = 0; d < h->ndense && d < c; d++) s += h->dense[d];
  for (size_t i = 0; h->smask && i <= h->smask; i++)
    if (h->skey[i] != RD_INF && h->skey[i] < c) s += h->sval[i];
  return s;
}

size_t ppt_rdhist_nbins(const ppt_rdhist *h) {
  size_t n = 0;
  for (uint64_t d = 0; d < h->ndense; d++) n += h->dense[d] != 0;
  for (size_t i = 0; h->smask && i <= h->smask; i++)
    n += h->skey[i] != RD_INF && h->sval[i] != 0;
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
  for (size_t i = 0; h->smask && i <= h->smask; i++)
    if (h->skey[i] != RD_INF && h->sval[i] != 0) k[j++] = h->skey[i];
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
