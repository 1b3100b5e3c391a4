/* rangereader.c — see rangereader.h. */
#include "sasmm/rangereader.h"

#include <stdlib.h>
#include <string.h>

#include "ppt/sasmm.h"

int ppt_chunkmap_init(ppt_chunkmap *m, const ppt_trace *t, uint32_t thread, ppt_err *err) {
  m->t = t;
  m->thread = thread;
  m->slots = NULL;
  m->nslots = 0;
  m->n = ppt_trace_thread_nchunks(t, thread);
  m->first = malloc((m->n + 1) * sizeof *m->first);
  if (!m->first) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
  m->first[0] = 0;
  for (size_t k = 0; k < m->n; k++)
    m->first[k + 1] = m->first[k] + ppt_trace_chunk(t, ppt_trace_thread_chunk(t, thread, k))->nrecs;
  return 0;
}

void ppt_chunkmap_free(ppt_chunkmap *m) {
  for (size_t i = 0; i < m->nslots; i++) ppt_trace_batch_free(m->slots[i].b);
  free(m->slots);
  m->slots = NULL;
  m->nslots = 0;
  free(m->first);
  m->first = NULL;
}

/* A slot holding chunk k decoded, for one more reader: the one that holds it already,
 * else an idle one (decoded again), else a new one. Returns its index, SIZE_MAX on error. */
static size_t slot_acquire(ppt_chunkmap *m, size_t k, ppt_err *err) {
  size_t idle = SIZE_MAX;
  for (size_t i = 0; i < m->nslots; i++) {
    if (m->slots[i].chunk == k) {
      m->slots[i].refs++;
      return i;
    }
    if (!m->slots[i].refs && idle == SIZE_MAX) idle = i;
  }
  if (idle == SIZE_MAX) {
    ppt_chunkslot *ns = realloc(m->slots, (m->nslots + 1) * sizeof *ns);
    if (!ns) {
      ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(m->t));
      return SIZE_MAX;
    }
    m->slots = ns;
    ns[m->nslots] = (ppt_chunkslot){.chunk = SIZE_MAX, .b = ppt_trace_batch_new()};
    if (!ns[m->nslots].b) {
      ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(m->t));
      return SIZE_MAX;
    }
    idle = m->nslots++;
  }
  ppt_chunkslot *sl = &m->slots[idle];
  size_t n;
  sl->chunk = SIZE_MAX;
  if (ppt_trace_chunk_decode(m->t, ppt_trace_thread_chunk(m->t, m->thread, k), sl->b, &sl->recs, &n, err))
    return SIZE_MAX;
  sl->chunk = k;
  sl->refs = 1;
  return idle;
}

static void slot_release(ppt_chunkmap *m, size_t i) {
  if (i < m->nslots && m->slots[i].refs) m->slots[i].refs--;
}

struct ppt_rreader {
  ppt_chunkmap *m;
  size_t slot;  /* the map's slot this reader reads (SIZE_MAX: none) */
  size_t chunk; /* its chunk (SIZE_MAX: none) */
  const ppt_trace_rec *recs;
  ppt_range *ranges;
  size_t nr, ri, cap;
  uint64_t pos;
  uint32_t core, ncores;
  int privatise;
  const uint32_t *quota;
  uint32_t *seen; /* per block: instances met so far (per-instance split) */
  uint32_t nbbs;
  int keep; /* current block instance belongs to this core */
};

ppt_rreader *ppt_rreader_new(ppt_chunkmap *m) {
  ppt_rreader *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->m = m;
  r->slot = r->chunk = SIZE_MAX;
  r->nbbs = ppt_trace_nbbs(m->t);
  return r;
}

/* Readers are freed before their map. */
void ppt_rreader_free(ppt_rreader *r) {
  if (!r) return;
  if (r->slot != SIZE_MAX) slot_release(r->m, r->slot);
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
    if (m->first[mid] <= pos)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

int ppt_rreader_next(ppt_rreader *r, ppt_trace_rec *out, ppt_err *err) {
  ppt_chunkmap *m = r->m;
  for (;;) {
    while (r->ri < r->nr && r->pos >= r->ranges[r->ri].e) {
      if (++r->ri < r->nr) r->pos = r->ranges[r->ri].s;
    }
    if (r->ri >= r->nr) return 0;
    if (r->chunk == SIZE_MAX || r->pos < m->first[r->chunk] || r->pos >= m->first[r->chunk + 1]) {
      size_t k = chunk_of(m, r->pos);
      if (k >= m->n) return 0;
      /* the new chunk first: released first, a chunk only this reader held could be
       * reused for the new one and decoded over while still pointed to */
      size_t s = slot_acquire(m, k, err);
      if (s == SIZE_MAX) return -1;
      if (r->slot != SIZE_MAX) slot_release(m, r->slot);
      r->slot = s;
      r->recs = m->slots[s].recs;
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
