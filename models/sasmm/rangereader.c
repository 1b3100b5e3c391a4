/* rangereader.c — see rangereader.h. */
#include "sasmm/rangereader.h"

#include <stdlib.h>
#include <string.h>

#include "ppt/sasmm.h"

int ppt_chunkmap_init(ppt_chunkmap *m, const ppt_trace *t, uint32_t thread, ppt_err *err) {
  m->t = t;
  m->thread = thread;
  m->n = ppt_trace_thread_nchunks(t, thread);
  m->first = malloc((m->n + 1) * sizeof *m->first);
  if (!m->first) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
  m->first[0] = 0;
  for (size_t k = 0; k < m->n; k++)
    m->first[k + 1] = m->first[k] + ppt_trace_chunk(t, ppt_trace_thread_chunk(t, thread, k))->nrecs;
  return 0;
}

void ppt_chunkmap_free(ppt_chunkmap *m) {
  free(m->first);
  m->first = NULL;
}

struct ppt_rreader {
  const ppt_chunkmap *m;
  ppt_trace_batch *b;
  size_t chunk;               /* decoded chunk (SIZE_MAX: none) */
  const ppt_trace_rec *recs;
  ppt_range *ranges;
  size_t nr, ri, cap;
  uint64_t pos;
  uint32_t core, ncores;
  int privatise;
  const uint32_t *quota;
  uint32_t *seen;             /* per block: instances met so far (per-instance split) */
  uint32_t nbbs;
  int keep;                   /* current block instance belongs to this core */
};

ppt_rreader *ppt_rreader_new(const ppt_chunkmap *m) {
  ppt_rreader *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->m = m;
  r->b = ppt_trace_batch_new();
  r->chunk = SIZE_MAX;
  r->nbbs = ppt_trace_nbbs(m->t);
  if (!r->b) {
    free(r);
    return NULL;
  }
  return r;
}

void ppt_rreader_free(ppt_rreader *r) {
  if (!r) return;
  ppt_trace_batch_free(r->b);
  free(r->ranges);
  free(r->seen);
  free(r);
}

int ppt_rreader_reset(ppt_rreader *r, const ppt_range *ranges, size_t nranges, uint32_t core, int privatise,
                      const uint32_t *quota, uint32_t ncores) {
  if (nranges > r->cap) {
    ppt_range *n = realloc(r->ranges, nranges * sizeof *n);
    if (!n) return -1;
    r->ranges = n;
    r->cap = nranges;
  }
  if (nranges) memcpy(r->ranges, ranges, nranges * sizeof *ranges);
  r->nr = nranges;
  r->ri = 0;
  r->pos = nranges ? ranges[0].s : 0;
  r->core = core;
  r->ncores = ncores ? ncores : 1;
  r->privatise = privatise;
  r->quota = quota;
  r->keep = core == 0;
  if (quota) {
    if (!r->seen && !(r->seen = calloc((size_t)r->nbbs + 1, sizeof *r->seen))) return -1;
    memset(r->seen, 0, ((size_t)r->nbbs + 1) * sizeof *r->seen);
  }
  return 0;
}

/* Finds the chunk holding record index pos (chunks are sorted by first record). */
static size_t chunk_of(const ppt_chunkmap *m, uint64_t pos) {
  size_t lo = 0, hi = m->n;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (m->first[mid] <= pos) lo = mid;
    else hi = mid;
  }
  return lo;
}

int ppt_rreader_next(ppt_rreader *r, ppt_trace_rec *out, ppt_err *err) {
  const ppt_chunkmap *m = r->m;
  for (;;) {
    while (r->ri < r->nr && r->pos >= r->ranges[r->ri].e) {
      if (++r->ri < r->nr) r->pos = r->ranges[r->ri].s;
    }
    if (r->ri >= r->nr) return 0;
    if (r->chunk == SIZE_MAX || r->pos < m->first[r->chunk] || r->pos >= m->first[r->chunk + 1]) {
      size_t k = chunk_of(m, r->pos);
      if (k >= m->n) return 0;
      size_t n;
      if (ppt_trace_chunk_decode(m->t, ppt_trace_thread_chunk(m->t, m->thread, k), r->b, &r->recs, &n, err))
        return -1;
      r->chunk = k;
    }
    ppt_trace_rec rec = r->recs[r->pos - m->first[r->chunk]];
    r->pos++;
    if (rec.kind == PPT_REC_EVENT) continue;
    if (r->quota) {
      if (rec.kind == PPT_REC_BB) {
        uint32_t q = r->quota[rec.bb] ? r->quota[rec.bb] : 1;
        uint32_t owner = r->seen[rec.bb]++ / q;
        if (owner >= r->ncores) owner = r->ncores - 1;
        r->keep = owner == r->core;
      }
      if (!r->keep) continue;
    }
    if (r->privatise && rec.kind != PPT_REC_BB && (rec.flags & PPT_REC_STACK))
      rec.addr = ppt_sasmm_private_addr(rec.addr, r->core);
    *out = rec;
    return 1;
  }
}
