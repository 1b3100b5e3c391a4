/* passes.c — SASMM's passes over a trace before any dealing (passes.h).
 *
 * Pass 1 (sasmm_find_markers) finds, for every worksharing-loop instance, the block
 * that starts each iteration: the loop's iteration count comes from the recorded libomp
 * bounds, and the block entered exactly that many times inside the instance, earliest
 * first, is the loop body's first block. This survives any optimisation level, unlike
 * block names. Pass 2 (sasmm_walk) walks the trace again, cutting it into phases. */
#include <stdlib.h>
#include <string.h>

#include "sasmm/passes.h"

static uint64_t trip_of(const int64_t *v) {
  int64_t lb = v[1], ub = v[2], incr = v[3] ? v[3] : 1;
  if (incr > 0 ? ub < lb : ub > lb) return 0;
  return (uint64_t)((ub - lb) / incr) + 1;
}

static int push_loop(loops *l, loop_info li) {
  if (l->n == l->cap) {
    size_t nc = l->cap ? 2 * l->cap : 64;
    loop_info *n = realloc(l->v, nc * sizeof *n);
    if (!n) return -1;
    l->v = n;
    l->cap = nc;
  }
  l->v[l->n++] = li;
  return 0;
}

/* Pass 1's account of the region under way: its blocks allocated so far, as intervals
 * [lo, hi) from record index pos on. */
typedef struct reg_scan {
  region_info cur;
  sasmm_privseg *iv;
  size_t n, cap;
} reg_scan;

/* Keeps at most this many allocations per region: a region that allocates in every
 * iteration of a loop (a temporary freed again) reuses few addresses, and what lies
 * beyond the cap stays shared. */
enum { REGION_MAX_ALLOCS = 1 << 20 };

static int add_alloc(reg_scan *rs, const ppt_trace_event *e, uint64_t pos) {
  if (e->nvals < 2 || e->v[1] <= 0 || e->v[0] <= 0 || rs->n >= REGION_MAX_ALLOCS) return 0;
  if (rs->n == rs->cap) {
    size_t nc = rs->cap ? 2 * rs->cap : 64;
    sasmm_privseg *n = realloc(rs->iv, nc * sizeof *n);
    if (!n) return -1;
    rs->iv = n;
    rs->cap = nc;
  }
  uint64_t lo = (uint64_t)e->v[0];
  rs->iv[rs->n++] = (sasmm_privseg){lo, lo + (uint64_t)e->v[1], pos};
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int push_seg(loops *L, sasmm_privseg s) {
  if (L->nseg && L->seg[L->nseg - 1].hi == s.lo && L->seg[L->nseg - 1].pos == s.pos) {
    L->seg[L->nseg - 1].hi = s.hi; /* adjacent, private from the same record on: one */
    return 0;
  }
  if (L->nseg == L->capseg) {
    size_t nc = L->capseg ? 2 * L->capseg : 64;
    sasmm_privseg *n = realloc(L->seg, nc * sizeof *n);
    if (!n) return -1;
    L->seg = n;
    L->capseg = nc;
  }
  L->seg[L->nseg++] = s;
  return 0;
}

/* The region's allocations as disjoint segments sorted by address, each private from
 * the earliest allocation covering it (a block freed and its memory allocated again
 * later in the region, or blocks overlapping so, stay private from the first). */
static int region_segments(loops *L, reg_scan *rs) {
  rs->cur.s0 = L->nseg;
  size_t nb = 2 * rs->n;
  uint64_t *b = malloc((nb ? nb : 1) * sizeof *b), *best = NULL;
  if (!b) return -1;
  for (size_t i = 0; i < rs->n; i++) b[2 * i] = rs->iv[i].lo, b[2 * i + 1] = rs->iv[i].hi;
  qsort(b, nb, sizeof *b, cmp_u64);
  size_t u = 0;
  for (size_t i = 0; i < nb; i++)
    if (!u || b[u - 1] != b[i]) b[u++] = b[i];
  /* elementary piece k is [b[k], b[k+1]): the earliest allocation covering it */
  if (u > 1 && !(best = malloc((u - 1) * sizeof *best))) {
    free(b);
    return -1;
  }
  for (size_t k = 0; k + 1 < u; k++) best[k] = UINT64_MAX;
  for (size_t i = 0; i < rs->n; i++) {
    uint64_t *at = bsearch(&rs->iv[i].lo, b, u, sizeof *b, cmp_u64);
    for (size_t k = (size_t)(at - b); k + 1 < u && b[k] < rs->iv[i].hi; k++)
      if (rs->iv[i].pos < best[k]) best[k] = rs->iv[i].pos;
  }
  int rc = 0;
  for (size_t k = 0; k + 1 < u && !rc; k++)
    if (best[k] != UINT64_MAX) rc = push_seg(L, (sasmm_privseg){b[k], b[k + 1], best[k]});
  rs->cur.ns = L->nseg - rs->cur.s0;
  free(b);
  free(best);
  return rc;
}

static int end_region(loops *L, reg_scan *rs, uint64_t pos) {
  rs->cur.end = pos;
  if (region_segments(L, rs)) return -1;
  rs->n = 0;
  if (L->nreg == L->capreg) {
    size_t nc = L->capreg ? 2 * L->capreg : 64;
    region_info *n = realloc(L->reg, nc * sizeof *n);
    if (!n) return -1;
    L->reg = n;
    L->capreg = nc;
  }
  L->reg[L->nreg++] = rs->cur;
  return 0;
}

void ppt_sasmm_loops_free(loops *L) {
  free(L->v);
  free(L->reg);
  free(L->seg);
  *L = (loops){0};
}

/* Pass 1. Nested worksharing loops belong to the iteration of the outer one; loops
 * outside parallel regions run on one thread anyway and are left serial. */
int sasmm_find_markers(const ppt_trace *t, loops *out, ppt_err *err) {
  uint32_t nbbs = ppt_trace_nbbs(t);
  uint64_t *count = calloc((size_t)nbbs + 1, sizeof *count), *first = calloc((size_t)nbbs + 1, sizeof *first);
  uint32_t *touched = malloc(((size_t)nbbs + 1) * sizeof *touched);
  size_t ntouched = 0;
  ppt_trace_cursor *c = NULL;
  int rc = 0;
  if (!count || !first || !touched) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
    goto out;
  }
  if ((rc = ppt_trace_cursor_open(t, 0, &c, err))) goto out;
  ppt_trace_cursor_set_raw(c, 1); /* positions index the file's records (rangereader.h) */
  /* the pass does little per record: the next chunk decodes meanwhile on another CPU */
  if (ppt_trace_cursor_set_ahead(c, 1)) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
    goto out;
  }
  int par = 0, depth = 0, counting = 0;
  loop_info cur = {0};
  reg_scan rs = {0};
  uint64_t pos = 0;
  const ppt_trace_rec *r;
  size_t n;
  while (!rc && (rc = ppt_trace_cursor_next(c, &r, &n, err)) == 0 && n) {
    const ppt_trace_event *ev = ppt_trace_cursor_events(c);
    for (size_t i = 0; i < n && !rc; i++, pos++) {
      if (r[i].kind == PPT_REC_BB) {
        rs.cur.blocks += par > 0;
        if (counting) {
          uint32_t b = r[i].bb;
          if (count[b]++ == 0) {
            first[b] = pos;
            touched[ntouched++] = b;
          }
        }
        continue;
      }
      if (r[i].kind != PPT_REC_EVENT) continue;
      const ppt_trace_event *e = &ev[r[i].addr];
      switch (e->type) {
        case PPT_EV_PAR_BEGIN:
          if (par++ == 0) rs.cur = (region_info){.begin = pos};
          break;
        case PPT_EV_PAR_END:
          if (par > 0 && --par == 0 && end_region(out, &rs, pos))
            rc = ppt_err_set(err, PPT_ERUN, "out of memory");
          break;
        case PPT_EV_ALLOC:
          if (par > 0 && add_alloc(&rs, e, pos)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
          break;
        case PPT_EV_TEAM_QUERY:
          if (par > 0 && e->nvals >= 1 && e->v[0] >= 0 && e->v[0] <= 1) rs.cur.asked |= 1u << e->v[0];
          break;
        case PPT_EV_LOOP_BEGIN:
          rs.cur.has_loop |= par > 0;
          if (depth++ == 0 && par > 0 && e->nvals == 5) {
            cur = (loop_info){.begin = pos, .sched = (int)e->v[0], .chunk = e->v[4], .trip = trip_of(e->v)};
            counting = 1;
          }
          break;
        case PPT_EV_LOOP_END:
          if (depth > 0 && --depth == 0 && counting) {
            counting = 0;
            cur.end = pos;
            uint64_t best = UINT64_MAX;
            for (size_t k = 0; k < ntouched; k++) {
              uint32_t b = touched[k];
              /* A rotated loop may enter its header once more to exit: trip + 1. */
              if ((count[b] == cur.trip || count[b] == cur.trip + 1) && first[b] < best) {
                best = first[b];
                cur.marker = b;
                cur.marker_count = count[b];
              }
            }
            for (size_t k = 0; k < ntouched; k++) count[touched[k]] = 0;
            ntouched = 0;
            if (push_loop(out, cur)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
          }
          break;
        default: break;
      }
    }
  }
  /* a region still open at the end (the trace was cut inside it) ends there */
  if (!rc && par > 0 && end_region(out, &rs, pos)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
out:
  ppt_trace_cursor_close(c);
  free(count);
  free(first);
  free(touched);
  free(rs.iv);
  return rc;
}

int sasmm_feed_init(feed *f, const ppt_trace *t, const loops *L, ppt_sieve *sv) {
  *f = (feed){.sv = sv, .marker = calloc((size_t)ppt_trace_nbbs(t) + 1, 1)};
  if (!f->marker) return -1;
  size_t cap = 0;
  for (size_t i = 0; i < L->n; i++) {
    const loop_info *li = &L->v[i];
    if (li->marker) f->marker[li->marker] = 1;
    if (li->marker || !li->trip) continue;
    for (uint64_t k = 0; k < li->trip; k++) {
      if (f->ncuts == cap) {
        cap = cap ? 2 * cap : 1024;
        uint64_t *n = realloc(f->cuts, cap * sizeof *n);
        if (!n) return -1;
        f->cuts = n;
      }
      f->cuts[f->ncuts++] = li->begin + ((li->end - li->begin) * k) / li->trip;
    }
  }
  return 0;
}

void sasmm_feed_free(feed *f) {
  free(f->marker);
  free(f->cuts);
}

static inline int feed_rec(feed *f, uint64_t pos, const ppt_trace_rec *x) {
  int forced =
      pos == 0 || f->after_event || x->kind == PPT_REC_EVENT || (x->kind == PPT_REC_BB && f->marker[x->bb]);
  f->after_event = x->kind == PPT_REC_EVENT;
  while (f->ci < f->ncuts && f->cuts[f->ci] < pos) f->ci++;
  forced |= f->ci < f->ncuts && f->cuts[f->ci] == pos;
  int rc = sasmm_sieve_add(f->sv, pos, x, forced);
  f->over = rc > 0;
  return rc < 0;
}

int sasmm_walk(const ppt_trace *t, const loops *L, const step_ops *ops, void *arg, feed *f, ppt_err *err) {
  ppt_trace_cursor *c;
  int rc = ppt_trace_cursor_open(t, 0, &c, err);
  if (rc) return rc;
  ppt_trace_cursor_set_raw(c, 1); /* positions index the file's records (rangereader.h) */
  /* the pass does little per record: the next chunk decodes meanwhile on another CPU */
  if (ppt_trace_cursor_set_ahead(c, 1)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  uint32_t nbbs = ppt_trace_nbbs(t);
  uint64_t *bcount = calloc((size_t)nbbs + 1, sizeof *bcount);
  if (!bcount) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  uint64_t pos = 0, phase_start = 0;
  int par = 0;
  size_t li = 0;
  const loop_info *cur = NULL;
  uint64_t *bnd = NULL, nbnd = 0, capb = 0;
  const ppt_trace_rec *r;
  size_t n;
  while (!rc && (rc = ppt_trace_cursor_next(c, &r, &n, err)) == 0 && n) {
    const ppt_trace_event *ev = ppt_trace_cursor_events(c);
    if (f && !f->over)
      for (size_t i = 0; i < n && !f->over; i++)
        if (feed_rec(f, pos + i, &r[i])) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    for (size_t i = 0; i < n && !rc; i++, pos++) {
      if (cur) {
        if (r[i].kind == PPT_REC_BB) {
          bcount[r[i].bb]++;
          if (r[i].bb == cur->marker && pos > cur->begin) {
            if (nbnd == capb) {
              capb = capb ? 2 * capb : 1024;
              uint64_t *nb = realloc(bnd, capb * sizeof *nb);
              if (!nb) {
                rc = ppt_err_set(err, PPT_ERUN, "out of memory");
                break;
              }
              bnd = nb;
            }
            bnd[nbnd++] = pos;
          }
        }
        if (pos == cur->end) {
          rc = ops->loop(arg, (size_t)(cur - L->v), bnd, nbnd, bcount, err);
          memset(bcount, 0, ((size_t)nbbs + 1) * sizeof *bcount);
          nbnd = 0;
          cur = NULL;
          phase_start = pos + 1;
        }
        continue;
      }
      if (r[i].kind != PPT_REC_EVENT) continue;
      const ppt_trace_event *e = &ev[r[i].addr];
      if (e->type == PPT_EV_PAR_BEGIN) {
        if (par++ == 0) {
          rc = ops->plain(arg, phase_start, pos, 0, err);
          phase_start = pos + 1;
          ops->fork(arg);
        }
      } else if (e->type == PPT_EV_PAR_END) {
        if (par > 0 && --par == 0) {
          rc = ops->plain(arg, phase_start, pos, 1, err);
          phase_start = pos + 1;
        }
      } else if (e->type == PPT_EV_LOOP_BEGIN && li < L->n && L->v[li].begin == pos) {
        rc = ops->plain(arg, phase_start, pos, 1, err);
        cur = &L->v[li++];
      }
    }
  }
  if (!rc) rc = ops->plain(arg, phase_start, pos, par > 0, err);
  free(bnd);
  free(bcount);
  ppt_trace_cursor_close(c);
  return rc;
}
