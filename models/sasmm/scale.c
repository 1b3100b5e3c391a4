/* scale.c — many cores from few (ppt/rdscale.h): Wu & Yeung (ACM TOCS 2013) §4.1.1
 * reference groups, §4.1.3 first touches, §4.2 Eq. 1 profile accuracy, §5.1 C_core and
 * §5.2 C_share. docs/sasmm.md, "Many cores from few". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/rdscale.h"

void ppt_rdscale_opts_default(ppt_rdscale_opts *o) {
  o->groups = 200000; /* §4.1.1: "200,000 groups" */
  o->steps = 100;     /* §4.1.1: k = 0.00, 0.01, ..., 1.00 */
}

/* ---------------------------------------------------------------- a histogram as arrays */

typedef struct bins {
  int64_t *d;
  double *c;
  size_t n, cap;
  double fin, inf, total;
} bins;

static int collect(int64_t d, double count, void *arg) {
  bins *b = arg;
  if (b->n == b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 256;
    int64_t *nd = realloc(b->d, nc * sizeof *nd);
    if (!nd) return -1;
    b->d = nd;
    double *ncnt = realloc(b->c, nc * sizeof *ncnt);
    if (!ncnt) return -1;
    b->c = ncnt;
    b->cap = nc;
  }
  b->d[b->n] = d;
  b->c[b->n++] = count;
  b->fin += count;
  return 0;
}

static void bins_free(bins *b) {
  free(b->d);
  free(b->c);
  memset(b, 0, sizeof *b);
}

static int bins_of(const ppt_rdhist *h, bins *b) {
  memset(b, 0, sizeof *b);
  if (ppt_rdhist_foreach(h, collect, b)) {
    bins_free(b);
    return -1;
  }
  b->inf = ppt_rdhist_infinite(h);
  b->total = ppt_rdhist_total(h);
  return 0;
}

/* ---------------------------------------------------------------- reference groups (§4.1.1) */

/* Walks a profile's finite references in order of distance, group by group. */
typedef struct cursor {
  const bins *b;
  size_t i;
  double left; /* references of bin i not yet taken */
} cursor;

static void cursor_init(cursor *c, const bins *b) {
  *c = (cursor){.b = b, .i = 0, .left = b->n ? b->c[0] : 0};
}

/* Where the pieces of a group go: into `out` moved by `factor`, or nowhere (out NULL). */
typedef struct mover {
  ppt_rdhist *out;
  double factor, weight; /* distance factor; count multiplier */
  int fail;
} mover;

static void move_piece(mover *m, int64_t d, double w) {
  double x = (double)d * m->factor, lo = floor(x), frac = x - lo;
  if (fabs(x - nearbyint(x)) < 1e-9) {
    lo = nearbyint(x);
    frac = 0;
  }
  w *= m->weight;
  if (frac < 1.0)
    if (ppt_rdhist_add(m->out, (int64_t)lo, w * (1.0 - frac))) m->fail = 1;
  if (frac > 0)
    if (ppt_rdhist_add(m->out, (int64_t)lo + 1, w * frac)) m->fail = 1;
}

/* Takes w references (all that are left when last) from the cursor; returns the sum of
 * their distances; moves the pieces when m is given. */
static double take(cursor *c, double w, int last, mover *m) {
  double sum = 0;
  while (c->i < c->b->n && (last || w > 0)) {
    double t = last || c->left < w ? c->left : w;
    sum += t * (double)c->b->d[c->i];
    if (m && t > 0) move_piece(m, c->b->d[c->i], t);
    c->left -= t;
    w -= t;
    if (c->left <= 1e-12 * c->b->c[c->i]) {
      c->i++;
      c->left = c->i < c->b->n ? c->b->c[c->i] : 0;
    }
  }
  return sum;
}

/* The groups' shift exponents k in [0, 1] (quantised to 1/steps), from the ratio of the
 * aligned groups' mean distances per doubling of the core count. */
static int group_rates(const bins *a, uint32_t na, const bins *b, uint32_t nb, ppt_rdscale_kind kind,
                       const ppt_rdscale_opts *o, double **kout, uint64_t *gout) {
  double fewest = a->fin < b->fin ? a->fin : b->fin;
  uint64_t g = o->groups ? o->groups : 1;
  if (fewest < (double)g) g = fewest >= 1 ? (uint64_t)fewest : 1;
  double *k = malloc(g * sizeof *k), doublings = log2((double)nb / na);
  if (!k) return -1;
  cursor ca, cb;
  cursor_init(&ca, a);
  cursor_init(&cb, b);
  for (uint64_t i = 0; i < g; i++) {
    int last = i + 1 == g;
    double wa = a->fin / (double)g, wb = b->fin / (double)g;
    double ma = take(&ca, wa, last, NULL) / wa, mb = take(&cb, wb, last, NULL) / wb;
    double e; /* measured shift per doubling, log2 */
    if (mb <= 0 && ma <= 0)
      e = 0;
    else if (ma <= 0)
      e = 1;
    else if (mb <= 0)
      e = -1;
    else
      e = log2(mb / ma) / doublings;
    if (kind == PPT_RDSCALE_PRD) e = -e; /* PRD contracts: rates 2^-k (§4.1.1) */
    e = e < 0 ? 0 : e > 1 ? 1 : e;
    unsigned steps = o->steps ? o->steps : 1;
    k[i] = nearbyint(e * steps) / steps; /* the closest allowed rate, in log scale */
  }
  *kout = k;
  *gout = g;
  return 0;
}

/* Moves every group of b by its rate to p cores into out. */
static int shift_groups(const bins *b, uint32_t nb, uint32_t p, ppt_rdscale_kind kind, const double *k,
                        uint64_t g, double weight, ppt_rdhist *out) {
  cursor cb;
  cursor_init(&cb, b);
  double s = log2((double)p / nb), sign = kind == PPT_RDSCALE_PRD ? -1.0 : 1.0;
  mover m = {.out = out, .weight = weight};
  for (uint64_t i = 0; i < g && !m.fail; i++) {
    m.factor = exp2(sign * k[i] * s);
    take(&cb, b->fin / (double)g, i + 1 == g, &m);
  }
  return m.fail ? -1 : 0;
}

int ppt_rdscale_predict(const ppt_rdhist *a, uint32_t na, const ppt_rdhist *b, uint32_t nb, uint32_t p,
                        ppt_rdscale_kind kind, const ppt_rdscale_opts *o, ppt_rdhist **out, ppt_err *err) {
  ppt_rdscale_opts def;
  if (!o) {
    ppt_rdscale_opts_default(&def);
    o = &def;
  }
  *out = NULL;
  if (!a || !b || na < 1 || nb <= na || p < 1)
    return ppt_err_set(err, PPT_EINPUT,
                       "rdscale: wants profiles at na < nb cores and p >= 1 (got %u, %u, %u)", na, nb, p);
  if (ppt_rdhist_line(a) != ppt_rdhist_line(b))
    return ppt_err_set(err, PPT_EINPUT, "rdscale: the profiles' line sizes differ (%u, %u)",
                       ppt_rdhist_line(a), ppt_rdhist_line(b));
  bins ba, bb;
  double *k = NULL;
  uint64_t g = 0;
  int rc = 0;
  if (bins_of(a, &ba)) return ppt_err_set(err, PPT_ERUN, "out of memory");
  if (bins_of(b, &bb)) {
    bins_free(&ba);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  /* §4.1.3: first touches (and, for PRD, invalidations) grow by the increase from na to
   * nb cores per doubling, times the doublings from nb to p. */
  double inf = bb.inf + (bb.inf - ba.inf) * log2((double)p / nb) / log2((double)nb / na);
  inf = inf < 0 ? 0 : inf > bb.total ? bb.total : inf;
  ppt_rdhist *h = ppt_rdhist_new(ppt_rdhist_line(b));
  if (!h || (inf > 0 && ppt_rdhist_add(h, PPT_RD_INF, inf))) rc = -1;
  if (!rc && bb.fin > 0) {
    double weight = (bb.total - inf) / bb.fin;
    if (ba.fin > 0) {
      rc = group_rates(&ba, na, &bb, nb, kind, o, &k, &g);
      if (!rc) rc = shift_groups(&bb, nb, p, kind, k, g, weight, h);
    } else { /* nothing to align with: b as it is */
      double zero = 0;
      rc = shift_groups(&bb, nb, p, kind, &zero, 1, weight, h);
    }
  }
  free(k);
  bins_free(&ba);
  bins_free(&bb);
  if (rc) {
    ppt_rdhist_free(h);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  *out = h;
  return 0;
}

double ppt_rdscale_mean_rate(const ppt_rdhist *a, uint32_t na, const ppt_rdhist *b, uint32_t nb,
                             ppt_rdscale_kind kind, const ppt_rdscale_opts *o) {
  ppt_rdscale_opts def;
  if (!o) {
    ppt_rdscale_opts_default(&def);
    o = &def;
  }
  if (!a || !b || na < 1 || nb <= na) return NAN;
  bins ba, bb;
  if (bins_of(a, &ba)) return NAN;
  if (bins_of(b, &bb)) {
    bins_free(&ba);
    return NAN;
  }
  double *k = NULL, mean = NAN;
  uint64_t g = 0;
  if (ba.fin > 0 && bb.fin > 0 && !group_rates(&ba, na, &bb, nb, kind, o, &k, &g)) {
    mean = 0;
    for (uint64_t i = 0; i < g; i++) mean += k[i];
    mean /= (double)g;
  }
  free(k);
  bins_free(&ba);
  bins_free(&bb);
  return mean;
}

/* ---------------------------------------------------------------- profile accuracy (Eq. 1) */

/* The bin of distance d (lines) in the paper's binning (§3.2, Fig. 4): {0}, then powers of
 * two up to 128 KiB of capacity, then 128 KiB wide bins. */
static int64_t paper_bin(int64_t d, unsigned line) {
  int64_t l = 131072 / (line ? line : 64), lg = 0;
  if (l < 1) l = 1;
  while (((int64_t)1 << lg) < l) lg++;
  if (d == 0) return 0;
  if (d < l) {
    int64_t b = 0;
    while (((int64_t)2 << b) <= d) b++;
    return 1 + b;
  }
  return 1 + lg + (d - l) / l;
}

double ppt_rdscale_accuracy(const ppt_rdhist *pred, const ppt_rdhist *meas, ppt_rdscale_bins kind) {
  bins p, m;
  if (bins_of(pred, &p)) return NAN;
  if (bins_of(meas, &m)) {
    bins_free(&p);
    return NAN;
  }
  unsigned line = ppt_rdhist_line(meas);
  size_t i = 0, j = 0;
  double diff = 0;
  /* Both lists are sorted by distance and the bin index grows with it: merge by bin. */
  while (i < p.n || j < m.n) {
    int64_t bi = i < p.n ? (kind == PPT_RDSCALE_BINS_EXACT ? p.d[i] : paper_bin(p.d[i], line)) : INT64_MAX;
    int64_t bj = j < m.n ? (kind == PPT_RDSCALE_BINS_EXACT ? m.d[j] : paper_bin(m.d[j], line)) : INT64_MAX;
    int64_t bin = bi < bj ? bi : bj;
    double sp = 0, sm = 0;
    while (i < p.n && (kind == PPT_RDSCALE_BINS_EXACT ? p.d[i] : paper_bin(p.d[i], line)) == bin)
      sp += p.c[i++];
    while (j < m.n && (kind == PPT_RDSCALE_BINS_EXACT ? m.d[j] : paper_bin(m.d[j], line)) == bin)
      sm += m.c[j++];
    diff += fabs(sp - sm);
  }
  double total = m.fin, acc = total > 0 ? 1.0 - 0.5 * diff / total : (p.fin > 0 ? 0.0 : 1.0);
  bins_free(&p);
  bins_free(&m);
  return acc;
}

/* ---------------------------------------------------------------- C_core, C_share (§5) */

/* Misses of a fully associative LRU cache of c lines: references with D >= c, first
 * touches included. suffix[i] = sum of counts of bins i..n-1. */
typedef struct cmc {
  bins b;
  double *suffix;
} cmc;

static int cmc_of(const ppt_rdhist *h, cmc *c) {
  if (bins_of(h, &c->b)) return -1;
  if (!(c->suffix = malloc((c->b.n + 1) * sizeof *c->suffix))) {
    bins_free(&c->b);
    return -1;
  }
  c->suffix[c->b.n] = 0;
  for (size_t i = c->b.n; i-- > 0;) c->suffix[i] = c->suffix[i + 1] + c->b.c[i];
  return 0;
}

static void cmc_free(cmc *c) {
  bins_free(&c->b);
  free(c->suffix);
}

/* CMC at capacity c (lines) of a profile whose distances are multiplied by `scale`. */
static double cmc_at(const cmc *c, double cap, double scale) {
  size_t lo = 0, hi = c->b.n; /* first bin with d * scale >= cap */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if ((double)c->b.d[mid] * scale >= cap)
      hi = mid;
    else
      lo = mid + 1;
  }
  return c->b.inf + c->suffix[lo];
}

int ppt_rdscale_c_core(const ppt_rdhist *crd_p, const ppt_rdhist *crd_1, double *c_core) {
  *c_core = 0;
  cmc p, s;
  if (cmc_of(crd_p, &p)) return -1;
  if (cmc_of(crd_1, &s)) {
    cmc_free(&p);
    return -1;
  }
  int rc = p.b.total > 0 && s.b.total > 0 ? 0 : -1;
  if (!rc && p.b.n) {
    double half = floor((double)p.b.d[p.b.n - 1] / 2), one = cmc_at(&s, half, 1);
    double merged = one > 0 ? cmc_at(&p, half, 1) / one : INFINITY, best = -1;
    /* §5.1: the capacity closest below Cmax/2 where dM = 1.5 dM_merged. dM is constant
     * between the profiles' distances, so the candidates are Cmax/2 and the distances
     * below it of either profile, scanned downwards. */
    size_t i = p.b.n, j = s.b.n;
    for (double c = half; c >= 0;) {
      double m1 = cmc_at(&s, c, 1), dm = m1 > 0 ? cmc_at(&p, c, 1) / m1 : INFINITY;
      if (dm >= 1.5 * merged) {
        best = c;
        break;
      }
      while (i > 0 && (double)p.b.d[i - 1] >= c) i--;
      while (j > 0 && (double)s.b.d[j - 1] >= c) j--;
      if (!i && !j) break;
      double di = i ? (double)p.b.d[i - 1] : -1, dj = j ? (double)s.b.d[j - 1] : -1;
      c = di > dj ? di : dj;
    }
    *c_core = best < 0 ? 0 : best;
  }
  cmc_free(&p);
  cmc_free(&s);
  return rc;
}

int ppt_rdscale_c_share(const ppt_rdhist *crd, const ppt_rdhist *prd, uint32_t p, double *c_share) {
  *c_share = INFINITY;
  cmc c, q;
  if (cmc_of(crd, &c)) return -1;
  if (cmc_of(prd, &q)) {
    cmc_free(&c);
    return -1;
  }
  int rc = c.b.total > 0 && q.b.total > 0 && p >= 1 ? 0 : -1;
  /* §5.2: the smallest capacity where CMC_CRD / CMC_sPRD <= 0.9. The ratio changes only
   * at d + 1 for the CRD's distances and p d + 1 for the PRD's: scan them upwards. */
  size_t i = 0, j = 0;
  for (double cap = 0; !rc;) {
    double sp = cmc_at(&q, cap, (double)p);
    if (sp > 0 && cmc_at(&c, cap, 1) <= 0.9 * sp) {
      *c_share = cap;
      break;
    }
    while (i < c.b.n && (double)c.b.d[i] + 1 <= cap) i++;
    while (j < q.b.n && (double)q.b.d[j] * p + 1 <= cap) j++;
    if (i == c.b.n && j == q.b.n) break;
    double ni = i < c.b.n ? (double)c.b.d[i] + 1 : INFINITY,
           nj = j < q.b.n ? (double)q.b.d[j] * p + 1 : INFINITY;
    cap = ni < nj ? ni : nj;
  }
  cmc_free(&c);
  cmc_free(&q);
  return rc;
}
