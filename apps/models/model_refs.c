/* model_refs.c — analytical reuse distances to AMM MEM_ACCESS items.
 *
 * A model describes each group of references by the distinct lines touched since the
 * previous use of the line, split into S lines all threads share and P lines private
 * to the thread (model.h). Here that becomes, per cache level of the hwspec, the
 * profile the level sees: PRD = S + P on a private level, CRD = S + q·P on a level
 * shared by q of the region's threads, and the set becomes one MEM_ACCESS item whose
 * hit rates come from the SDCM at time_compute (AMM §3.2 Eq. 1, §3.3 Eq. 4–5). */
#include <math.h>
#include <stdlib.h>

#include "model.h"

typedef enum { E_AT, E_SPREAD, E_COLD } entry_kind;

typedef struct entry {
  entry_kind kind;
  double count;
  double s0, p0, s1, p1; /* E_AT: (s0, p0); E_SPREAD: linear from (s0, p0) to (s1, p1) */
  unsigned nbins;        /* E_SPREAD */
  int shared;            /* E_COLD */
  double skew;           /* E_COLD, shared */
} entry;

struct mdl_refs {
  entry *e;
  size_t n, cap;
  double count;
};

mdl_refs *mdl_refs_create(void) {
  return calloc(1, sizeof(mdl_refs));
}

void mdl_refs_free(mdl_refs *r) {
  if (!r) return;
  free(r->e);
  free(r);
}

void mdl_refs_clear(mdl_refs *r) {
  r->n = 0;
  r->count = 0;
}

double mdl_refs_count(const mdl_refs *r) {
  return r->count;
}

double mdl_lines(double elems, double per_line) {
  return ceil(elems / per_line);
}

static int ok(double x) {
  return isfinite(x) && x >= 0;
}

static int push(mdl_refs *r, const entry *e, ppt_err *err) {
  if (!ok(e->count) || !ok(e->s0) || !ok(e->p0) || !ok(e->s1) || !ok(e->p1) || !ok(e->skew))
    return ppt_err_set(err, PPT_EINPUT, "model: reference count or distance negative or not finite");
  if (e->count == 0) return 0;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    entry *ne = realloc(r->e, cap * sizeof *ne);
    if (!ne) return ppt_err_set(err, PPT_ERUN, "model: out of memory");
    r->e = ne;
    r->cap = cap;
  }
  r->e[r->n++] = *e;
  r->count += e->count;
  return 0;
}

int mdl_refs_at(mdl_refs *r, double count, double shared, double priv, ppt_err *err) {
  entry e = {.kind = E_AT, .count = count, .s0 = shared, .p0 = priv, .s1 = shared, .p1 = priv};
  return push(r, &e, err);
}

int mdl_refs_spread(mdl_refs *r, double count, double s0, double p0, double s1, double p1, unsigned nbins,
                    ppt_err *err) {
  entry e = {
      .kind = E_SPREAD, .count = count, .s0 = s0, .p0 = p0, .s1 = s1, .p1 = p1, .nbins = nbins ? nbins : 1};
  return push(r, &e, err);
}

int mdl_refs_cold(mdl_refs *r, double count, int shared, double skew, ppt_err *err) {
  entry e = {.kind = E_COLD, .count = count, .shared = shared != 0, .skew = skew};
  return push(r, &e, err);
}

/* Finite bins of one entry in the profile of a level interleaving q threads. */
static size_t entry_bins(const entry *e, double q) {
  switch (e->kind) {
    case E_AT: return 1;
    case E_SPREAD: return e->nbins;
    case E_COLD: return e->shared && q > 1 ? 1 : 0;
  }
  return 0;
}

static uint64_t lines_of(double d) {
  return (uint64_t)llround(d);
}

/* The profile of a level interleaving q threads (q = 1: private). */
static void fill(const mdl_refs *r, double q, uint64_t *dist, double *count, size_t *n, double *inf) {
  *n = 0;
  *inf = 0;
  for (size_t i = 0; i < r->n; i++) {
    const entry *e = &r->e[i];
    switch (e->kind) {
      case E_AT:
        dist[*n] = lines_of(e->s0 + q * e->p0);
        count[(*n)++] = e->count;
        break;
      case E_SPREAD:
        /* Bin b stands for the references between fractions b/nbins and (b+1)/nbins of
         * the range: its distance is the one at the middle. */
        for (unsigned b = 0; b < e->nbins; b++) {
          double f = (b + 0.5) / e->nbins;
          double s = e->s0 + f * (e->s1 - e->s0), p = e->p0 + f * (e->p1 - e->p0);
          dist[*n] = lines_of(s + q * p);
          count[(*n)++] = e->count / e->nbins;
        }
        break;
      case E_COLD:
        if (e->shared && q > 1) {
          *inf += e->count / q;
          dist[*n] = lines_of(q * e->skew);
          count[(*n)++] = e->count * (q - 1) / q;
        } else {
          *inf += e->count;
        }
        break;
    }
  }
}

int mdl_refs_emit(const mdl_refs *r, ppt_tasklist *tl, const mdl_ctx *c, double bytes, double block_bytes,
                  ppt_err *err) {
  if (r->count <= 0) return 0;
  const ppt_hwspec *hw = c->hw;
  if (hw->nlevels == 0 || hw->nlevels > PPT_HW_MAX_LEVELS)
    return ppt_err_set(err, PPT_EINPUT, "%s: no cache levels", hw->name);
  if (!(bytes > 0)) return ppt_err_set(err, PPT_EINPUT, "model: access of %g bytes", bytes);
  uint32_t threads = c->threads ? c->threads : 1;
  size_t maxbins = 0;
  for (size_t i = 0; i < r->n; i++) maxbins += entry_bins(&r->e[i], 2.0);
  if (maxbins == 0) maxbins = 1;
  uint64_t *dist = malloc(hw->nlevels * maxbins * sizeof *dist);
  double *count = malloc(hw->nlevels * maxbins * sizeof *count);
  if (!dist || !count) {
    free(dist);
    free(count);
    return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  }
  ppt_rd_profile prof[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    uint32_t sb = hw->levels[k].shared_by ? hw->levels[k].shared_by : 1;
    double q = threads < sb ? threads : sb;
    size_t n;
    double inf;
    fill(r, q, dist + k * maxbins, count + k * maxbins, &n, &inf);
    prof[k] = (ppt_rd_profile){dist + k * maxbins, count + k * maxbins, n, inf};
  }
  ppt_mem_access m = {.accesses = r->count,
                      .bytes_per_access = bytes,
                      .block_bytes = block_bytes > bytes ? block_bytes : bytes};
  int rc = ppt_tasklist_add_mem_access(tl, &m, hw->nlevels, prof, err);
  free(dist);
  free(count);
  return rc;
}
