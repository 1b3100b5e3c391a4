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
  uint64_t pos = 0;
  const ppt_trace_rec *r;
  size_t n;
  while ((rc = ppt_trace_cursor_next(c, &r, &n, err)) == 0 && n) {
    const ppt_trace_event *ev = ppt_trace_cursor_events(c);
    for (size_t i = 0; i < n; i++, pos++) {
      if (r[i].kind == PPT_REC_BB) {
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
        case PPT_EV_PAR_BEGIN: par++; break;
        case PPT_EV_PAR_END: par -= par > 0; break;
        case PPT_EV_LOOP_BEGIN:
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
out:
  ppt_trace_cursor_close(c);
  free(count);
  free(first);
  free(touched);
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
