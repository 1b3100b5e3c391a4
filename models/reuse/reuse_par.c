/* reuse_par.c — exact parallel reuse-distance analysis (HP-RDA §III in spirit, exact).
 *
 * The stream is cut into contiguous pieces; threads analyse one piece each with a
 * private LRU stack. A reference whose previous access lies in the same piece gets its
 * final distance there (the whole reuse window is inside the piece). What a piece
 * cannot know is resolved by one sequential merge against the stream's global stack,
 * piece after piece, touching each distinct line of a piece twice:
 *  - its first touch in the piece, in order: if L was never seen, D = infinity. Else
 *    D = a + q, where a = distinct lines the piece touched before (all of them lie in
 *    L's reuse window) and q = lines whose global mark is after L's, among lines the
 *    piece has not touched yet. Taking each first-touched line's mark out of the
 *    global stack as we go keeps q exactly that (HP-RDA's Formula 1 instead sums counts
 *    of whole pieces, which double-counts lines touched in several pieces, and then
 *    patches the error with a probabilistic model);
 *  - then every line of the piece is given a new global mark, in the order of its last
 *    access in the piece, which is the global stack's state after the piece.
 * So each distance equals the sequential one: the per-block histograms are identical.
 *
 * The merge costs O(distinct lines of a piece), the analysis O(references of a piece):
 * the longer the pieces, the better the speed-up. Two drivers:
 *  - ppt_reuse_feed_chunks: the stream's chunks decode independently (trace files), so
 *    the whole stream is split into one long piece per thread, each thread decoding its
 *    own chunks; one merge at the end. Memory O(threads x distinct lines).
 *  - ppt_reuse_feed_parallel: batches arrive in order from one source; they are copied
 *    into rounds of opts.piece references per thread, and rounds are pipelined: while
 *    the workers analyse round k+1, the calling thread merges round k and reads the
 *    batches of round k+2. Memory O(threads x piece). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reuse_impl.h"

typedef struct rd_pref {
  uint64_t line;
  uint32_t bbr; /* block << 1 | (distance is recorded) */
  uint32_t a;   /* first touches: distinct lines the piece touched before */
} rd_pref;

/* One piece's analysis. Cache-line aligned: neighbouring pieces are written by
 * different threads on every reference. */
typedef struct rd_piece {
  _Alignas(64) pthread_t th;
  int running, fail; /* fail: 1 = out of memory, 2 = source or input error (in err) */
  ppt_err err;
  const ppt_reuse *r; /* read only while workers run */
  rd_stack st;
  rd_hset hs;     /* distances final within the piece, per block */
  rdh_queue q;
  uint32_t cbbr;
  ppt_rdhist *ch;
  rd_pref *first; /* first touches of the piece, in order */
  size_t nfirst, capfirst;
  uint64_t *recent; /* the piece's lines, least recently used first */
  size_t nrecent, caprecent;
  /* ppt_reuse_feed_parallel: the copied references */
  rd_pref *in;
  size_t n;
  /* ppt_reuse_feed_chunks: chunk range, and block counts of the piece */
  const ppt_reuse_chunks *src;
  unsigned slot;
  size_t c0, c1;
  uint64_t *inst, *refs, nrefs;
  size_t nbb;
  uint32_t maxbb;
} rd_piece;

static rd_piece *pieces_new(unsigned n) {
  rd_piece *w = aligned_alloc(64, n * sizeof *w);
  if (w) memset(w, 0, n * sizeof *w);
  return w;
}

static void piece_begin(rd_piece *w) {
  rd_stack_reset(&w->st);
  w->nfirst = 0;
  w->nrecent = 0;
  w->cbbr = UINT32_MAX;
  w->ch = NULL;
  memset(&w->q, 0, sizeof w->q);
}

/* One reference of the piece. 0 or -1 (out of memory). */
static inline int piece_ref(rd_piece *w, uint64_t line, uint32_t bbr) {
  uint64_t d = rd_touch(&w->st, line, 1);
  if (d == RD_INF) {
    if (w->nfirst == w->capfirst) {
      size_t c = w->capfirst ? 2 * w->capfirst : 4096;
      rd_pref *f = realloc(w->first, c * sizeof *f);
      if (!f) return -1;
      w->first = f;
      w->capfirst = c;
    }
    w->first[w->nfirst++] = (rd_pref){line, bbr, (uint32_t)(rd_stack_lines(&w->st) - 1)};
    return 0;
  }
  if (d == RD_ERR) return -1;
  if (!(bbr & 1)) return 0;
  if (bbr != w->cbbr) {
    if (!(w->ch = rd_hset_get(&w->hs, bbr >> 1))) return -1;
    w->cbbr = bbr;
  }
  return rdh_queue_push(&w->q, w->ch, d);
}

static int piece_end(rd_piece *w) {
  if (rdh_queue_flush(&w->q) != 0) return -1;
  size_t m = rd_stack_lines(&w->st);
  if (m > w->caprecent) {
    size_t c = m + m / 4;
    uint64_t *n = realloc(w->recent, c * sizeof *n);
    if (!n) return -1;
    w->recent = n;
    w->caprecent = c;
  }
  w->nrecent = rd_stack_recency(&w->st, w->recent);
  return 0;
}

static void piece_free(rd_piece *w) {
  rd_stack_free(&w->st);
  rd_hset_free(&w->hs);
  free(w->first);
  free(w->recent);
  free(w->in);
  free(w->inst);
  free(w->refs);
}

/* Resolves a finished piece against the stream's global stack (see the top). */
static int merge_piece(ppt_reuse *r, rd_piece *w, ppt_err *err) {
  rd_stack *g = &r->st;
  if (rd_stack_flush_front(g) != 0) goto oom;
  uint32_t cbbr = UINT32_MAX;
  ppt_rdhist *ch = NULL;
  for (size_t i = 0; i < w->nfirst; i++) {
    if (i + RD_AHEAD < w->nfirst) rd_stack_prefetch(g, w->first[i + RD_AHEAD].line);
    rd_pref f = w->first[i];
    uint64_t q = rd_stack_take(g, f.line);
    if (!(f.bbr & 1)) continue;
    if (f.bbr != cbbr) {
      if (!(ch = rd_hset_get(&r->hs, f.bbr >> 1))) goto oom;
      cbbr = f.bbr;
    }
    if (rdh_add(ch, q == RD_INF ? RD_INF : f.a + q, 1.0) != 0) goto oom;
  }
  for (size_t i = 0; i < w->nrecent; i++) {
    if (i + RD_AHEAD < w->nrecent) rd_stack_prefetch(g, w->recent[i + RD_AHEAD]);
    if (rd_stack_append(g, w->recent[i]) != 0) goto oom;
  }
  return 0;
oom:
  return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
}

static void start(rd_piece *w, void *(*fn)(void *)) {
  w->running = pthread_create(&w->th, NULL, fn, w) == 0;
  if (!w->running) fn(w); /* no thread available: do it here */
}

static void join(rd_piece *w) {
  if (w->running) pthread_join(w->th, NULL);
  w->running = 0;
}

/* ================================================================ chunk sources */

static int piece_bb_room(rd_piece *w, uint32_t bb) {
  size_t n = w->nbb ? w->nbb : 64;
  while (n <= bb) n *= 2;
  uint64_t *i = realloc(w->inst, n * sizeof *i);
  if (!i) return -1;
  w->inst = i;
  uint64_t *f = realloc(w->refs, n * sizeof *f);
  if (!f) return -1;
  w->refs = f;
  memset(w->inst + w->nbb, 0, (n - w->nbb) * sizeof *w->inst);
  memset(w->refs + w->nbb, 0, (n - w->nbb) * sizeof *w->refs);
  w->nbb = n;
  return 0;
}

static void *work_chunks(void *p) {
  rd_piece *w = p;
  const ppt_reuse *r = w->r;
  const unsigned shift = r->shift;
  const int approx = r->o.mode == PPT_REUSE_APPROX;
  piece_begin(w);
  uint32_t cbb = UINT32_MAX;
  for (size_t c = w->c0; c < w->c1; c++) {
    const ppt_trace_rec *recs;
    size_t n;
    if (w->src->decode(w->src->arg, w->slot, c, &recs, &n, &w->err) != 0) {
      w->fail = 2;
      return NULL;
    }
    for (size_t i = 0; i < n; i++) {
      if (!approx && i + RD_AHEAD < n) rd_stack_prefetch(&w->st, recs[i + RD_AHEAD].addr >> shift);
      const ppt_trace_rec *x = &recs[i];
      if (x->bb >= w->nbb && piece_bb_room(w, x->bb) != 0) goto oom;
      if (x->bb > w->maxbb) w->maxbb = x->bb;
      if (x->kind == PPT_REC_BB) {
        w->inst[x->bb]++;
        continue;
      }
      if (x->kind == PPT_REC_EVENT) continue; /* OpenMP events carry no reference */
      if (x->kind > PPT_REC_STORE || x->bb >= 0x80000000u) {
        ppt_err_set(&w->err, PPT_EINPUT, "reuse: record kind %u, block %u", x->kind, x->bb);
        w->fail = 2;
        return NULL;
      }
      if (x->bb != cbb) {
        /* Same histograms exist as after a sequential feed, even if empty. */
        if (!rd_hset_get(&w->hs, x->bb)) goto oom;
        cbb = x->bb;
      }
      w->refs[x->bb]++;
      w->nrefs++;
      uint64_t line = x->addr >> shift;
      if (approx && !rd_keep_line(r, line)) continue;
      if (piece_ref(w, line, x->bb << 1 | 1u) != 0) goto oom;
    }
  }
  if (piece_end(w) == 0) return NULL;
oom:
  w->fail = 1;
  return NULL;
}

static int feed_chunks_seq(ppt_reuse *r, const ppt_reuse_chunks *src, ppt_err *err) {
  for (size_t c = 0; c < src->n; c++) {
    const ppt_trace_rec *recs;
    size_t n;
    int rc = src->decode(src->arg, 0, c, &recs, &n, err);
    if (rc) {
      r->broken = 1;
      return rc;
    }
    if ((rc = ppt_reuse_feed(r, recs, n, err))) return rc;
  }
  return 0;
}

int ppt_reuse_feed_chunks(ppt_reuse *r, unsigned nthreads, const ppt_reuse_chunks *src,
                          ppt_err *err) {
  if (rd_ctx_closed(r)) return rd_ctx_closed_err(r, err);
  /* Sampling decisions follow the stream's order of block instances: sequential. */
  if (nthreads <= 1 || src->n < 2 || r->o.mode == PPT_REUSE_SAMPLED)
    return feed_chunks_seq(r, src, err);
  unsigned T = nthreads < src->n ? nthreads : (unsigned)src->n;
  rd_piece *w = pieces_new(T);
  if (!w) return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
  int rc = 0;
  /* Contiguous chunk ranges of about equal size. */
  double total = 0, acc = 0;
  for (size_t c = 0; c < src->n; c++) total += src->size ? (double)src->size(src->arg, c) : 1;
  size_t c = 0;
  for (unsigned k = 0; k < T; k++) {
    w[k].r = r;
    w[k].src = src;
    w[k].slot = k;
    w[k].hs.line = r->o.line;
    w[k].c0 = c;
    /* leave at least one chunk for each later piece */
    while (c < src->n - (T - 1 - k) && (k == T - 1 || acc < total * (k + 1) / T || c == w[k].c0)) {
      acc += src->size ? (double)src->size(src->arg, c) : 1;
      c++;
    }
    w[k].c1 = c;
    if (rd_stack_init(&w[k].st, 0) != 0) {
      for (unsigned j = 0; j <= k; j++) piece_free(&w[j]);
      free(w);
      return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
    }
  }
  for (unsigned k = 0; k < T; k++) start(&w[k], work_chunks);
  for (unsigned k = 0; k < T; k++) join(&w[k]);
  for (unsigned k = 0; k < T && !rc; k++) {
    if (w[k].fail == 2) {
      if (err) *err = w[k].err;
      rc = w[k].err.status ? (int)w[k].err.status : PPT_ERUN;
    } else if (w[k].fail) {
      rc = ppt_err_set(err, PPT_ERUN, "reuse: out of memory in a worker");
    }
  }
  for (unsigned k = 0; k < T && !rc; k++) {
    rc = merge_piece(r, &w[k], err);
    if (!rc && w[k].nbb && rd_ctx_bb_room(r, w[k].maxbb) != 0)
      rc = ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
    for (size_t bb = 0; !rc && bb < w[k].nbb && bb <= w[k].maxbb; bb++) {
      r->inst[bb] += w[k].inst[bb];
      r->refs[bb] += w[k].refs[bb];
    }
    if (!rc && w[k].maxbb > r->maxbb) r->maxbb = w[k].maxbb;
    r->nrefs += w[k].nrefs;
    /* integer counts: the order of these sums does not matter */
    if (!rc && rd_hset_merge(&r->hs, &w[k].hs) != 0)
      rc = ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
  }
  for (unsigned k = 0; k < T; k++) piece_free(&w[k]);
  free(w);
  if (rc) r->broken = 1;
  return rc;
}

/* ================================================================ batch sources */

typedef struct rd_par {
  ppt_reuse *r;
  unsigned T;
  size_t P;
  rd_piece *w[2]; /* two sets of T pieces: one analysed while the other is merged */
  ppt_reuse_next_fn next;
  void *arg;
  const ppt_trace_rec *batch;
  size_t bn, bpos;
  int eof;
  uint32_t cbb; /* block whose histogram exists in r->hs */
} rd_par;

static void *work_copied(void *p) {
  rd_piece *w = p;
  piece_begin(w);
  for (size_t i = 0; i < w->n; i++) {
    if (i + RD_AHEAD < w->n) rd_stack_prefetch(&w->st, w->in[i + RD_AHEAD].line);
    if (piece_ref(w, w->in[i].line, w->in[i].bbr) != 0) goto oom;
  }
  if (piece_end(w) == 0) return NULL;
oom:
  w->fail = 1;
  return NULL;
}

/* Reads the next T pieces of memory references (block records are counted and, in
 * SAMPLED mode, decide sampling, exactly as the sequential feed does). Returns the
 * number of references placed, or -1 on error. */
static long fill_set(rd_par *p, rd_piece *ws, ppt_err *err) {
  ppt_reuse *r = p->r;
  long total = 0;
  for (unsigned k = 0; k < p->T; k++) ws[k].n = 0;
  unsigned k = 0;
  while (k < p->T) {
    if (p->bpos == p->bn) {
      if (p->eof) break;
      int rc = p->next(p->arg, &p->batch, &p->bn, err);
      if (rc) return -1;
      p->bpos = 0;
      if (p->bn == 0) {
        p->eof = 1;
        break;
      }
    }
    rd_piece *w = &ws[k];
    while (p->bpos < p->bn && w->n < p->P) {
      const ppt_trace_rec *x = &p->batch[p->bpos++];
      if (x->kind == PPT_REC_BB) {
        if (rd_ctx_instance(r, x->bb) != 0) goto oom;
        continue;
      }
      if (x->kind == PPT_REC_EVENT) continue; /* OpenMP events carry no reference */
      if (x->kind > PPT_REC_STORE || x->bb >= 0x80000000u) {
        ppt_err_set(err, PPT_EINPUT, "reuse: record kind %u, block %u", x->kind, x->bb);
        return -1;
      }
      if (x->bb != p->cbb) {
        /* Same histograms exist as after a sequential feed, even if empty. */
        if ((x->bb >= r->nbb && rd_ctx_bb_room(r, x->bb) != 0) || !rd_hset_get(&r->hs, x->bb))
          goto oom;
        if (x->bb > r->maxbb) r->maxbb = x->bb;
        p->cbb = x->bb;
      }
      r->refs[x->bb]++;
      r->nrefs++;
      uint64_t line = x->addr >> r->shift;
      if (r->o.mode == PPT_REUSE_APPROX && !rd_keep_line(r, line)) continue;
      int rec = r->o.mode == PPT_REUSE_SAMPLED ? r->cur_sampled : 1;
      w->in[w->n++] = (rd_pref){line, x->bb << 1 | (uint32_t)rec, 0};
      total++;
    }
    if (w->n == p->P) k++;
  }
  return total;
oom:
  ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
  return -1;
}

static int merge_set(rd_par *p, rd_piece *ws, ppt_err *err) {
  for (unsigned k = 0; k < p->T; k++) {
    if (ws[k].n == 0) continue;
    if (ws[k].fail) return ppt_err_set(err, PPT_ERUN, "reuse: out of memory in a worker");
    int rc = merge_piece(p->r, &ws[k], err);
    if (rc) return rc;
  }
  return 0;
}

static void start_set(rd_par *p, rd_piece *ws) {
  for (unsigned k = 0; k < p->T; k++)
    if (ws[k].n > 0) start(&ws[k], work_copied);
}

static void join_set(rd_par *p, rd_piece *ws) {
  for (unsigned k = 0; k < p->T; k++) join(&ws[k]);
}

int ppt_reuse_feed_parallel(ppt_reuse *r, unsigned nthreads, ppt_reuse_next_fn next,
                            void *arg, ppt_err *err) {
  if (rd_ctx_closed(r)) return rd_ctx_closed_err(r, err);
  if (nthreads <= 1) {
    for (;;) {
      const ppt_trace_rec *recs;
      size_t n;
      int rc = next(arg, &recs, &n, err);
      if (rc) {
        r->broken = 1;
        return rc;
      }
      if (n == 0) return 0;
      if ((rc = ppt_reuse_feed(r, recs, n, err))) return rc;
    }
  }
  rd_par p = {.r = r, .T = nthreads, .P = r->o.piece, .next = next, .arg = arg, .cbb = UINT32_MAX};
  int rc = 0;
  for (int s = 0; s < 2; s++) {
    if (!(p.w[s] = pieces_new(nthreads))) goto oom;
    for (unsigned k = 0; k < nthreads; k++) {
      rd_piece *w = &p.w[s][k];
      w->r = r;
      w->hs.line = r->o.line;
      if (rd_stack_init(&w->st, 0) != 0 || !(w->in = malloc(p.P * sizeof *w->in))) goto oom;
    }
  }
  int cur = 0, pending = 0;
  if (fill_set(&p, p.w[0], err) < 0) goto fail;
  for (;;) {
    rd_piece *ws = p.w[cur], *prev = p.w[cur ^ 1];
    int any = 0;
    for (unsigned k = 0; k < p.T; k++) any |= ws[k].n > 0;
    if (any) start_set(&p, ws);
    if (pending && (rc = merge_set(&p, prev, err)) != 0) {
      join_set(&p, ws);
      goto out;
    }
    pending = 0;
    if (!any) break;
    long f = p.eof && p.bpos == p.bn ? 0 : fill_set(&p, prev, err);
    if (f <= 0)
      for (unsigned k = 0; k < p.T; k++) prev[k].n = 0;
    join_set(&p, ws);
    if (f < 0) goto fail;
    pending = 1;
    cur ^= 1;
  }
  /* Distances that were final inside pieces: integer counts, so the order of these sums
   * does not matter and the histograms equal the sequential ones. */
  for (int s = 0; s < 2; s++)
    for (unsigned k = 0; k < nthreads; k++)
      if (rd_hset_merge(&r->hs, &p.w[s][k].hs) != 0) goto oom;
out:
  for (int s = 0; s < 2; s++) {
    for (unsigned k = 0; p.w[s] && k < nthreads; k++) piece_free(&p.w[s][k]);
    free(p.w[s]);
  }
  if (rc) r->broken = 1;
  return rc;
oom:
  rc = ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
  goto out;
fail:
  rc = err && err->status ? (int)err->status : PPT_ERUN;
  goto out;
}
