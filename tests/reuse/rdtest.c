/* rdtest.c — brute-force oracle and random traces for the reuse tests. */
#include "rdtest.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

int64_t *rdt_oracle(const ppt_trace_rec *recs, size_t n, unsigned line) {
  int64_t *dist = calloc(n ? n : 1, sizeof *dist);
  uint64_t *stack = NULL; /* most recent first */
  size_t depth = 0, cap = 0;
  unsigned shift = (unsigned)__builtin_ctz(line);
  for (size_t i = 0; i < n; i++) {
    if (recs[i].kind == PPT_REC_BB) continue;
    uint64_t l = recs[i].addr >> shift;
    size_t p = 0;
    while (p < depth && stack[p] != l) p++;
    if (p == depth) {
      dist[i] = -1;
      if (depth == cap) {
        cap = cap ? 2 * cap : 1024;
        stack = realloc(stack, cap * sizeof *stack);
        ck_assert_ptr_nonnull(stack);
      }
      depth++;
    } else {
      dist[i] = (int64_t)p;
    }
    memmove(stack + 1, stack, p * sizeof *stack);
    stack[0] = l;
  }
  free(stack);
  return dist;
}

ppt_rdhist **rdt_oracle_bb(const ppt_trace_rec *recs, size_t n, unsigned line,
                           const int64_t *dist, uint32_t maxbb) {
  ppt_rdhist **h = calloc(maxbb + 1, sizeof *h);
  for (size_t i = 0; i < n; i++) {
    if (recs[i].kind == PPT_REC_BB) continue;
    uint32_t bb = recs[i].bb;
    ck_assert_uint_le(bb, maxbb);
    if (!h[bb]) h[bb] = ppt_rdhist_new(line);
    ck_assert_int_eq(ppt_rdhist_add(h[bb], dist[i], 1), 0);
  }
  return h;
}

ppt_rdhist *rdt_oracle_whole(const ppt_trace_rec *recs, size_t n, unsigned line,
                             const int64_t *dist) {
  ppt_rdhist *h = ppt_rdhist_new(line);
  for (size_t i = 0; i < n; i++)
    if (recs[i].kind != PPT_REC_BB) ck_assert_int_eq(ppt_rdhist_add(h, dist[i], 1), 0);
  return h;
}

void rdt_free_bb(ppt_rdhist **h, uint32_t maxbb) {
  for (uint32_t i = 0; h && i <= maxbb; i++) ppt_rdhist_free(h[i]);
  free(h);
}

ppt_trace_rec *rdt_generate(const rdt_gen *g, gsl_rng *rng, size_t *n) {
  size_t cap = 2 * g->nrefs + 16, k = 0;
  ppt_trace_rec *r = calloc(cap, sizeof *r);
  uint64_t base = 0x10000000ull; /* line-aligned */
  uint64_t seq = base, prev = base;
  size_t made = 0;
  while (made < g->nrefs) {
    uint32_t bb = 1 + (uint32_t)gsl_rng_uniform_int(rng, g->nbbs);
    r[k++] = (ppt_trace_rec){.bb = bb, .kind = PPT_REC_BB};
    unsigned m = 1 + (unsigned)gsl_rng_uniform_int(rng, g->max_inst);
    for (unsigned j = 0; j < m && made < g->nrefs; j++, made++) {
      double u = gsl_rng_uniform(rng);
      uint64_t a;
      if (u < g->p_repeat) {
        a = prev;
      } else if (u < g->p_repeat + g->p_seq) {
        seq += 8;
        if (seq >= base + g->lines * g->line) seq = base;
        a = seq;
      } else if (u < g->p_repeat + g->p_seq + g->p_hot) {
        a = base + gsl_rng_uniform_int(rng, 16) * g->line + 8 * gsl_rng_uniform_int(rng, g->line / 8);
      } else {
        a = base + gsl_rng_uniform_int(rng, g->lines) * g->line +
            8 * gsl_rng_uniform_int(rng, g->line / 8);
      }
      prev = a;
      r[k++] = (ppt_trace_rec){.addr = a, .bb = bb, .kind = u < 0.7 ? PPT_REC_LOAD : PPT_REC_STORE,
                               .size = 8};
    }
  }
  *n = k;
  return r;
}

ppt_reuse *rdt_run(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n, size_t batch) {
  ppt_reuse *r;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_new(o, &r, &err), 0);
  for (size_t i = 0; i < n; i += batch) {
    size_t m = n - i < batch ? n - i : batch;
    ck_assert_msg(ppt_reuse_feed(r, recs + i, m, &err) == 0, "%s", err.msg);
  }
  ck_assert_msg(ppt_reuse_finish(r, &err) == 0, "%s", err.msg);
  return r;
}

typedef struct src {
  const ppt_trace_rec *recs;
  size_t n, pos, batch;
} src;

static int src_next(void *arg, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  (void)err;
  src *s = arg;
  size_t m = s->n - s->pos < s->batch ? s->n - s->pos : s->batch;
  *recs = s->recs ? s->recs + s->pos : NULL;
  *n = m;
  s->pos += m;
  return 0;
}

ppt_reuse *rdt_run_parallel(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n,
                            size_t batch, unsigned T) {
  ppt_reuse *r;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_new(o, &r, &err), 0);
  src s = {recs, n, 0, batch};
  ck_assert_msg(ppt_reuse_feed_parallel(r, T, src_next, &s, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_reuse_finish(r, &err) == 0, "%s", err.msg);
  return r;
}

int rdt_same_results(const ppt_reuse *a, const ppt_reuse *b) {
  if (!ppt_rdhist_equal(ppt_reuse_hist(a), ppt_reuse_hist(b))) return 0;
  uint32_t m = ppt_reuse_max_bb(a) > ppt_reuse_max_bb(b) ? ppt_reuse_max_bb(a) : ppt_reuse_max_bb(b);
  for (uint32_t bb = 0; bb <= m; bb++) {
    const ppt_rdhist *x = ppt_reuse_bb_hist(a, bb), *y = ppt_reuse_bb_hist(b, bb);
    if (!x != !y) return 0;
    if (x && !ppt_rdhist_equal(x, y)) return 0;
    if (ppt_reuse_bb_refs(a, bb) != ppt_reuse_bb_refs(b, bb) ||
        ppt_reuse_bb_instances(a, bb) != ppt_reuse_bb_instances(b, bb))
      return 0;
  }
  return ppt_reuse_refs(a) == ppt_reuse_refs(b);
}

uint64_t rdt_chunk_size(void *arg, size_t i) {
  rdt_chunks *c = arg;
  size_t b = i * c->csize;
  return c->n - b < c->csize ? c->n - b : c->csize;
}

int rdt_chunk_decode(void *arg, unsigned slot, size_t i, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  (void)slot;
  rdt_chunks *c = arg;
  if (i == c->fail_at) return ppt_err_set(err, PPT_EINPUT, "t.ppt: chunk %zu: bad checksum", i);
  *recs = c->recs + i * c->csize;
  *n = rdt_chunk_size(arg, i);
  return 0;
}

ppt_reuse *rdt_run_chunks(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n, size_t csize, int sized,
                          rdt_feed_fn feed, void *arg) {
  rdt_chunks c = {recs, n, csize, SIZE_MAX};
  ppt_reuse_chunks src = {(n + csize - 1) / csize, sized ? rdt_chunk_size : NULL, rdt_chunk_decode, &c};
  ppt_reuse *r;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_new(o, &r, &err), 0);
  ck_assert_msg(feed(arg, r, &src, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_reuse_finish(r, &err) == 0, "%s", err.msg);
  return r;
}

void rdt_case_make(rdt_case *c, const rdt_gen *g, unsigned long seed) {
  c->rng = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(c->rng);
  gsl_rng_set(c->rng, seed);
  c->recs = rdt_generate(g, c->rng, &c->n);
  int64_t *dist = rdt_oracle(c->recs, c->n, g->line);
  c->whole = rdt_oracle_whole(c->recs, c->n, g->line, dist);
  free(dist);
}

void rdt_case_free(rdt_case *c) {
  ppt_rdhist_free(c->whole);
  free(c->recs);
  gsl_rng_free(c->rng);
}
