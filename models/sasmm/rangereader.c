/* rangereader.c — see rangereader.h. */
#include "sasmm/rangereader.h"

#include <stdlib.h>
#include <string.h>

#include "ppt/sasmm.h"
#include "sasmm/sieve.h"

int sasmm_chunkmap_init(sasmm_chunkmap *m, const ppt_trace *t, uint32_t thread, ppt_err *err) {
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

void sasmm_chunkmap_free(sasmm_chunkmap *m) {
  for (size_t i = 0; i < m->nslots; i++) ppt_trace_batch_free(m->slots[i].b);
  free(m->slots);
  m->slots = NULL;
  m->nslots = 0;
  free(m->first);
  m->first = NULL;
}

/* A slot holding chunk k decoded, for one more reader: the one that holds it already,
 * else an idle one (decoded again), else a new one. Returns its index, SIZE_MAX on error. */
static size_t slot_acquire(sasmm_chunkmap *m, size_t k, ppt_err *err) {
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
    /* positions are the file's records; readers add the stack references themselves */
    ppt_trace_batch_set_raw(ns[m->nslots].b, 1);
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

static void slot_release(sasmm_chunkmap *m, size_t i) {
  if (i < m->nslots && m->slots[i].refs) m->slots[i].refs--;
}

struct sasmm_rreader {
  sasmm_chunkmap *m;
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
  int keep;               /* current block instance belongs to this core */
  const sasmm_privseg *seg; /* private heap blocks (sasmm_rreader_set_private) */
  size_t nseg;
  /* The machine-level stack references of the block instance last returned, still to
   * return (ppt_trace_set_stack_refs): the file has no records for them. */
  ppt_trace_rec mc[64];
  uint32_t mc_n, mc_k;
  const ppt_trace_bb *mc_bb;
  /* Sieve mode (sasmm_rreader_new_sieved): the kept records, the next one's index, the
   * ordinal of the next reference, the run still to add to it (after the stack
   * references of the block last returned), the last record's key, dropped totals. */
  const ppt_sieve *sv;
  size_t si;
  uint64_t ord, pending, key;
  uint64_t drop_refs, drop_loads, drop_stores;
};

sasmm_rreader *sasmm_rreader_new(sasmm_chunkmap *m) {
  sasmm_rreader *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->m = m;
  r->slot = r->chunk = SIZE_MAX;
  r->nbbs = ppt_trace_nbbs(m->t);
  return r;
}

sasmm_rreader *sasmm_rreader_new_sieved(sasmm_chunkmap *m, const ppt_sieve *sv) {
  sasmm_rreader *r = sasmm_rreader_new(m);
  if (r) r->sv = sv;
  return r;
}

uint64_t sasmm_rreader_key(const sasmm_rreader *r) {
  return r->key;
}

void sasmm_rreader_dropped(const sasmm_rreader *r, uint64_t *refs, uint64_t *loads, uint64_t *stores) {
  *refs = r->drop_refs;
  *loads = r->drop_loads;
  *stores = r->drop_stores;
}

/* Readers are freed before their map. */
void sasmm_rreader_free(sasmm_rreader *r) {
  if (!r) return;
  if (r->slot != SIZE_MAX) slot_release(r->m, r->slot);
  free(r->ranges);
  free(r->seen);
  free(r);
}

int sasmm_rreader_reset(sasmm_rreader *r, const ppt_range *ranges, size_t nranges, uint32_t core,
                        int privatise, const uint32_t *quota, uint32_t ncores) {
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
  r->mc_n = r->mc_k = 0;
  r->ord = r->pending = r->key = 0;
  if (r->sv) r->si = nranges ? sasmm_sieve_find(r->sv, ranges[0].s) : 0;
  if (quota) {
    if (!r->seen && !(r->seen = calloc((size_t)r->nbbs + 1, sizeof *r->seen))) return -1;
    memset(r->seen, 0, ((size_t)r->nbbs + 1) * sizeof *r->seen);
  }
  return 0;
}

void sasmm_rreader_set_private(sasmm_rreader *r, const sasmm_privseg *seg, size_t nseg) {
  r->seg = nseg ? seg : NULL;
  r->nseg = nseg;
}

/* Whether a reference at record index pos to addr is to a private heap block. */
static int private_heap(const sasmm_rreader *r, uint64_t addr, uint64_t pos) {
  size_t lo = 0, hi = r->nseg;
  while (lo < hi) { /* the last segment with seg.lo <= addr */
    size_t mid = (lo + hi) / 2;
    if (r->seg[mid].lo <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && addr < r->seg[lo - 1].hi && pos >= r->seg[lo - 1].pos;
}

/* Finds the chunk holding record index pos (chunks are sorted by first record). */
static size_t chunk_of(const sasmm_chunkmap *m, uint64_t pos) {
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

int sasmm_chunkmap_find_blocks(sasmm_chunkmap *m, uint64_t s, uint64_t e, const uint64_t *nth, size_t k,
                             uint64_t *pos, ppt_err *err) {
  size_t j = 0;
  uint64_t seen = 0;
  for (size_t ck = s < e ? chunk_of(m, s) : m->n; ck < m->n && m->first[ck] < e && j < k; ck++) {
    size_t sl = slot_acquire(m, ck, err);
    if (sl == SIZE_MAX) return -1;
    const ppt_trace_rec *recs = m->slots[sl].recs;
    uint64_t p = s > m->first[ck] ? s : m->first[ck], stop = e < m->first[ck + 1] ? e : m->first[ck + 1];
    for (; p < stop && j < k; p++) {
      if (recs[p - m->first[ck]].kind != PPT_REC_BB) continue;
      while (j < k && nth[j] == seen) pos[j++] = p; /* equal targets: the same entry */
      seen++;
    }
    slot_release(m, sl);
  }
  for (; j < k; j++) pos[j] = e;
  return 0;
}

/* The next stack reference of the block instance r returned last (1), or none (0). */
static int next_stack_ref(sasmm_rreader *r, ppt_trace_rec *out) {
  if (r->mc_k >= r->mc_n) return 0;
  uint32_t k = r->mc_k++, n = (uint32_t)(sizeof r->mc / sizeof *r->mc);
  if (k % n == 0) { /* refill the window of records: blocks may have thousands */
    ppt_trace_bb part = *r->mc_bb;
    uint32_t st = part.stack_stores, done = k;
    part.stack_stores = (uint16_t)(done < st ? (st - done < n ? st - done : n) : 0);
    uint32_t ldone = done > st ? done - st : 0;
    uint32_t left = n - part.stack_stores, lrem = part.stack_loads - ldone;
    part.stack_loads = (uint16_t)(lrem < left ? lrem : left);
    ppt_trace_mcstack_recs(&part, 0, r->mc);
  }
  ppt_trace_rec rec = r->mc[k % n];
  if (r->privatise) rec.addr = ppt_sasmm_private_addr(rec.addr, r->core);
  *out = rec;
  return 1;
}

/* A kept record (of kind BB or a reference) becomes the reader's output: private stack
 * addresses, and a block's machine-level stack references to follow. */
static void take(sasmm_rreader *r, ppt_trace_rec *rec, uint64_t pos) {
  if (r->privatise && rec->kind != PPT_REC_BB &&
      ((rec->flags & PPT_REC_STACK) || (r->nseg && private_heap(r, rec->addr, pos))))
    rec->addr = ppt_sasmm_private_addr(rec->addr, r->core);
  if (rec->kind == PPT_REC_BB && ppt_trace_stack_refs(r->m->t)) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(r->m->t, rec->bb);
    r->mc_bb = bb;
    r->mc_k = 0;
    r->mc_n = bb ? (uint32_t)bb->stack_loads + bb->stack_stores : 0;
  }
}

/* sasmm_rreader_next over the sieve's kept records. */
static int next_sieved(sasmm_rreader *r, ppt_trace_rec *out) {
  size_t n = sasmm_sieve_size(r->sv);
  if (next_stack_ref(r, out)) {
    r->key = r->ord++;
    return 1;
  }
  r->ord += r->pending; /* the run after the block last returned, after its stack refs */
  r->pending = 0;
  while (r->ri < r->nr) {
    const sasmm_sieve_rec *x = r->si < n ? sasmm_sieve_at(r->sv, r->si) : NULL;
    if (!x || x->pos >= r->ranges[r->ri].e) {
      if (++r->ri < r->nr) r->si = sasmm_sieve_find(r->sv, r->ranges[r->ri].s);
      continue;
    }
    r->si++;
    r->drop_refs += x->run;
    r->drop_loads += x->run_loads;
    r->drop_stores += x->run_stores;
    if (x->r.kind == PPT_REC_EVENT) {
      r->ord += x->run;
      continue;
    }
    r->key = r->ord;
    r->ord += x->r.kind != PPT_REC_BB;
    r->pending = x->run;
    *out = x->r;
    take(r, out, x->pos);
    return 1;
  }
  return 0;
}

int sasmm_rreader_next(sasmm_rreader *r, ppt_trace_rec *out, ppt_err *err) {
  sasmm_chunkmap *m = r->m;
  if (r->sv) return next_sieved(r, out);
  if (next_stack_ref(r, out)) return 1;
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
    take(r, &rec, r->pos - 1);
    *out = rec;
    return 1;
  }
}
