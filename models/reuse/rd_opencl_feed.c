/* rd_opencl_feed.c — streams one reference stream through the OpenCL kernels
 * (rd_opencl_kernels.c) in batches and bins the distances into a ppt_reuse context.
 *
 * Per batch the host keeps what the kernels need and nothing more: the time of each
 * reference's previous access to its line (one lookup in a line -> latest-time table:
 * the paper's hash table, §III-B1) and the carried state, the latest time of every
 * distinct line seen before the batch, sorted (ct). After the batch, the lines it
 * touched leave ct and come back at their last time in the batch, so ct stays one
 * entry per distinct line: device memory is the batch's buffers (fixed at open) plus
 * 8 bytes per distinct line, whatever the trace length. The kernels return each
 * reference's exact distance; the host adds it to the reference's block histogram,
 * as ppt_reuse_feed does, so the results are the CPU engine's bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "rd_opencl.h"
#include "reuse_impl.h"

typedef struct rd_cl_stream {
  ppt_reuse_dev *d;
  ppt_reuse *r;
  u64map map;      /* line -> time of its latest access (global index + 1) */
  uint64_t *ct;    /* carried latest times, ascending */
  size_t m, ctcap; /* entries, allocated */
  unsigned char *dead; /* ct entries whose line the batch touched (ctcap of them) */
  uint64_t base;   /* references before the batch */
  uint64_t *pv;    /* batch: previous access time (0: first touch), padded */
  uint32_t *bb, *dist;
  unsigned char *notlast; /* batch: a later reference of the batch touches this line */
  size_t n;
  uint32_t cbb;
} rd_cl_stream;

static int oom(ppt_err *err) { return ppt_err_set(err, PPT_ERUN, "reuse: out of memory"); }

/* Device buffer for the carried times: grown by doubling. */
static int ct_room(rd_cl_stream *s, ppt_err *err) {
  ppt_reuse_dev *d = s->d;
  if (s->m <= d->ctcap) return 0;
  size_t c = d->ctcap;
  while (c < s->m) c *= 2;
  cl_int rc;
  cl_mem b = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY, c * sizeof(cl_ulong), NULL, &rc);
  if (rc != CL_SUCCESS) return rd_cl_fail(err, "clCreateBuffer", rc);
  clReleaseMemObject(d->ct);
  d->ct = b;
  d->ctcap = c;
  return 0;
}

#define ARG(k, i, v)                                                      \
  do {                                                                    \
    cl_int a_ = clSetKernelArg((k), (i), sizeof(v), &(v));               \
    if (a_ != CL_SUCCESS) return rd_cl_fail(err, "clSetKernelArg", a_);  \
  } while (0)

static int launch(ppt_reuse_dev *d, cl_kernel k, size_t global, ppt_err *err) {
  cl_int rc = clEnqueueNDRangeKernel(d->q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  return rc == CL_SUCCESS ? 0 : rd_cl_fail(err, "clEnqueueNDRangeKernel", rc);
}

/* The batch's distances into s->dist: upload, leaves, merge levels, cross-chunk pass. */
static int run_kernels(rd_cl_stream *s, ppt_err *err) {
  ppt_reuse_dev *d = s->d;
  size_t kp = 2 * RD_CL_LEAF;
  while (kp < s->n) kp *= 2;
  for (size_t i = s->n; i < kp; i++) s->pv[i] = UINT64_MAX; /* never below a time */
  int rc = ct_room(s, err);
  if (rc) return rc;
  cl_int cr = clEnqueueWriteBuffer(d->q, d->pv, CL_FALSE, 0, kp * sizeof(cl_ulong), s->pv, 0, NULL, NULL);
  if (cr == CL_SUCCESS && s->m)
    cr = clEnqueueWriteBuffer(d->q, d->ct, CL_FALSE, 0, s->m * sizeof(cl_ulong), s->ct, 0, NULL, NULL);
  if (cr != CL_SUCCESS) return rd_cl_fail(err, "clEnqueueWriteBuffer", cr);
  cl_ulong base = s->base, m = s->m;
  cl_uint n = (cl_uint)s->n, kpu = (cl_uint)kp;
  ARG(d->leaf, 0, d->pv);
  ARG(d->leaf, 1, d->dist);
  ARG(d->leaf, 2, d->lv);
  ARG(d->leaf, 3, base);
  ARG(d->leaf, 4, n);
  if ((rc = launch(d, d->leaf, kp / RD_CL_LEAF, err))) return rc;
  cl_ulong off = 0;
  for (cl_uint w = RD_CL_LEAF; w < kp; w *= 2, off += kp) {
    cl_ulong next = off + kp;
    ARG(d->merge, 0, d->lv);
    ARG(d->merge, 1, off);
    ARG(d->merge, 2, next);
    ARG(d->merge, 3, w);
    if ((rc = launch(d, d->merge, kp / RD_CL_RUN, err))) return rc;
  }
  ARG(d->cross, 0, d->pv);
  ARG(d->cross, 1, d->dist);
  ARG(d->cross, 2, d->lv);
  ARG(d->cross, 3, d->ct);
  ARG(d->cross, 4, m);
  ARG(d->cross, 5, base);
  ARG(d->cross, 6, n);
  ARG(d->cross, 7, kpu);
  if ((rc = launch(d, d->cross, s->n, err))) return rc;
  cr = clEnqueueReadBuffer(d->q, d->dist, CL_TRUE, 0, s->n * sizeof(cl_uint), s->dist, 0, NULL, NULL);
  return cr == CL_SUCCESS ? 0 : rd_cl_fail(err, "clEnqueueReadBuffer", cr);
}

static size_t lower_bound(const uint64_t *a, size_t n, uint64_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The carried state after the batch: the lines it touched leave at their old time and
 * come back at their last time in the batch (ascending, after every old time). */
static int carry(rd_cl_stream *s, ppt_err *err) {
  /* marked apart, not in ct: ct stays sorted for the searches */
  for (size_t i = 0; i < s->n; i++)
    if (s->pv[i] && s->pv[i] <= s->base) s->dead[lower_bound(s->ct, s->m, s->pv[i])] = 1;
  size_t k = 0;
  for (size_t i = 0; i < s->m; i++) {
    if (!s->dead[i]) s->ct[k++] = s->ct[i];
    s->dead[i] = 0;
  }
  if (k + s->n > s->ctcap) {
    size_t c = s->ctcap ? s->ctcap : 4096;
    while (c < k + s->n) c *= 2;
    uint64_t *p = realloc(s->ct, c * sizeof *p);
    if (!p) return oom(err);
    s->ct = p;
    unsigned char *dd = realloc(s->dead, c);
    if (!dd) return oom(err);
    memset(dd + s->ctcap, 0, c - s->ctcap);
    s->dead = dd;
    s->ctcap = c;
  }
  for (size_t j = 0; j < s->n; j++)
    if (!s->notlast[j]) s->ct[k++] = s->base + j + 1;
  s->m = k;
  return 0;
}

static int run_batch(rd_cl_stream *s, ppt_err *err) {
  if (s->n == 0) return 0;
  int rc = run_kernels(s, err);
  if (rc) return rc;
  rdh_queue q = {{0}, {0}, 0};
  uint32_t cbb = UINT32_MAX;
  ppt_rdhist *ch = NULL;
  for (size_t i = 0; i < s->n; i++) {
    if (s->bb[i] != cbb) {
      cbb = s->bb[i];
      if (!(ch = rd_hset_get(&s->r->hs, cbb))) return oom(err);
    }
    uint64_t dd = s->dist[i] == RD_CL_INF ? RD_INF : s->dist[i];
    if (rdh_queue_push(&q, ch, dd) != 0) return oom(err);
  }
  if (rdh_queue_flush(&q) != 0) return oom(err);
  if ((rc = carry(s, err))) return rc;
  s->base += s->n;
  memset(s->notlast, 0, s->n);
  s->n = 0;
  return 0;
}

/* One memory reference: its previous time from the table, into the batch. */
static int add_ref(rd_cl_stream *s, uint64_t line, uint32_t bb, ppt_err *err) {
  size_t slot = u64map_insert(&s->map, line, NULL);
  if (slot == U64MAP_NONE) return oom(err);
  /* distances and times travel as 32-bit distances: keep lines below that */
  if (s->map.count >= (size_t)RD_CL_INF - 2)
    return ppt_err_set(err, PPT_ERUN, "reuse: over 2^32 distinct lines: too many for the device analysis");
  uint64_t p = s->map.ents[slot].val.u;
  s->map.ents[slot].val.u = s->base + s->n + 1;
  if (p > s->base) s->notlast[p - s->base - 1] = 1;
  s->pv[s->n] = p;
  s->bb[s->n++] = bb;
  return s->n == s->d->batch ? run_batch(s, err) : 0;
}

/* The records of one decoded chunk: block and reference counts as ppt_reuse_feed keeps
 * them, references into the batch. */
static int feed_recs(rd_cl_stream *s, const ppt_trace_rec *recs, size_t n, ppt_err *err) {
  ppt_reuse *r = s->r;
  for (size_t i = 0; i < n; i++) {
    const ppt_trace_rec *x = &recs[i];
    if (x->kind == PPT_REC_BB) {
      if (rd_ctx_instance(r, x->bb) != 0) return oom(err);
      continue;
    }
    if (x->kind == PPT_REC_EVENT) continue; /* OpenMP events carry no reference */
    if (x->kind > PPT_REC_STORE) return ppt_err_set(err, PPT_EINPUT, "reuse: record kind %u", x->kind);
    if (x->bb != s->cbb) {
      /* Same histograms exist as after a sequential feed, even if empty. */
      if ((x->bb >= r->nbb && rd_ctx_bb_room(r, x->bb) != 0) || !rd_hset_get(&r->hs, x->bb)) return oom(err);
      if (x->bb > r->maxbb) r->maxbb = x->bb;
      s->cbb = x->bb;
    }
    r->refs[x->bb]++;
    r->nrefs++;
    int rc = add_ref(s, x->addr >> r->shift, x->bb, err);
    if (rc) return rc;
  }
  return 0;
}

int ppt_reuse_dev_feed(ppt_reuse_dev *d, ppt_reuse *r, ppt_reuse_next_fn next, void *arg, ppt_err *err) {
  if (rd_ctx_closed(r)) return rd_ctx_closed_err(r, err);
  if (r->o.mode != PPT_REUSE_EXACT)
    return ppt_err_set(err, PPT_EINPUT, "reuse: the device analysis is exact only (no --sample or --approx)");
  if (r->nrefs || rd_stack_lines(&r->st))
    return ppt_err_set(err, PPT_ERUN, "reuse: the device analysis needs a fresh context");
  rd_cl_stream s = {.d = d, .r = r, .cbb = UINT32_MAX};
  u64map_init(&s.map);
  int rc = 0;
  s.pv = malloc(d->batch * sizeof *s.pv);
  s.bb = malloc(d->batch * sizeof *s.bb);
  s.dist = malloc(d->batch * sizeof *s.dist);
  s.notlast = calloc(d->batch, 1);
  if (!s.pv || !s.bb || !s.dist || !s.notlast) rc = oom(err);
  while (!rc) {
    const ppt_trace_rec *recs;
    size_t n;
    if ((rc = next(arg, &recs, &n, err)) || n == 0) break;
    rc = feed_recs(&s, recs, n, err);
  }
  if (!rc) rc = run_batch(&s, err);
  r->dev_fed = 1;
  r->dev_lines = s.map.count;
  if (rc) r->broken = 1;
  u64map_free(&s.map);
  free(s.ct);
  free(s.dead);
  free(s.pv);
  free(s.bb);
  free(s.dist);
  free(s.notlast);
  return rc;
}

/* A chunked source read in order, as batches (empty chunks skipped: an empty batch
 * ends the stream). */
typedef struct chunk_iter {
  const ppt_reuse_chunks *src;
  size_t c;
} chunk_iter;

static int chunk_next(void *arg, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  chunk_iter *it = arg;
  *n = 0;
  while (it->c < it->src->n) {
    int rc = it->src->decode(it->src->arg, 0, it->c++, recs, n, err);
    if (rc || *n) return rc;
  }
  return 0;
}

int ppt_reuse_dev_feed_chunks(ppt_reuse_dev *d, ppt_reuse *r, const ppt_reuse_chunks *src, ppt_err *err) {
  chunk_iter it = {src, 0};
  return ppt_reuse_dev_feed(d, r, chunk_next, &it, err);
}
