/* job_walks.c — how ppt_extrap_run uses the way each block's references walk
 * memory (docs/extrapolate.md, "Set conflicts" and "Refusal"): the set conflicts at the
 * target, and the refusal of data-dependent access.
 *
 * SDCM (SASMM §3.6 Eq. 5) places the lines a reuse waits for at random over a level's
 * sets. A walk whose stride is a multiple of several lines uses only the sets its
 * addresses fall in: a column walk over rows of 768 doubles (96 lines) in a 64-set L1
 * uses 2 of them. The traced sizes may not show it (rows of 72 or 96 doubles do not fold
 * the same way), so the strides are measured on each trace per block and slot
 * (ppt_extrap_strides_measure), fitted across the sizes as counts are (AMM §3: a loop
 * nest's addresses are functions of the size), and taken at the target. For each level,
 * a block's references in slots whose stride folds the sets by g are its longest reuses
 * (a column walk's line comes back only with the next column): that share of its
 * profile is judged by SDCM on a level of 1/g the sets (same ways), the rest as before. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap/job.h"
#include "ppt/extrap.h"
#include "ppt/reuse.h"
#include "ppt/sdcm.h"

/* A step that repeats at least this often is a stride; else the slot is data-dependent. */
#define REGULAR 0.5
/* An offset from slot 0 that holds for this share of the instances is the slot's own. */
#define FIXED 0.9

static const ppt_extrap_slot *slot_of(const ppt_extrap_strides *s, uint32_t bb, unsigned j) {
  const ppt_extrap_slot *v = ppt_extrap_strides_of(s, bb);
  return v ? v + j : NULL;
}

static int regular(const ppt_extrap_slot *s) {
  return s->has_stride && s->steps > 0 && (double)s->repeats >= REGULAR * (double)s->steps;
}

/* inv[id] = trace t's block matched to the first trace's block id (0: none). */
static uint32_t *inverse_map(const ext_job *r, size_t t, uint32_t nref) {
  uint32_t *inv = calloc(nref, sizeof *inv), nb = ppt_trace_nbbs(r->t[t]);
  for (uint32_t b = 1; inv && b <= nb; b++) {
    uint32_t id = r->map[t] ? r->map[t][b] : b;
    if (id && id < nref) inv[id] = b;
  }
  return inv;
}

/* How many instances a walk of the slot lasts: a walk of L steps at the stride has L - 2
 * repeats (its first step follows another walk's last), so two non-repeats per walk. */
static double walk_length(const ppt_extrap_slot *s) {
  double breaks = (double)(s->steps - s->repeats);
  return breaks > 0 ? 2 * (double)s->steps / breaks : (double)s->steps;
}

/* Whether slot s kept its offset from slot i across the walks: it changed at fewer than
 * half the walks' ends (an offset that is constant within each walk but not from one walk
 * to the next changes at every end). */
static int fixed_offset(const ppt_extrap_slot *s, unsigned i) {
  double walks = (double)(s->steps - s->repeats) / 2, changes = (double)(s->refs - s->same_offset[i]);
  return changes < walks / 2 + 1;
}

/* A walk's figure (stride, length, offset) at the target from its values ys at the
 * increasing sizes xs (m >= 1): constant where every size had the same; the line through
 * them where they lie on one (rows of n + pad elements); else proportional to the size
 * from the largest trace: the compiler unrolled the loop differently at some size (a
 * stride of 2 rows at n = 104, 3 rows at 120), and a row's multiple at the largest size is
 * the best guess for the target's. */
static double extend(const double *xs, const double *ys, size_t m, double target) {
  double last = ys[m - 1];
  int same = 1, line = m >= 2;
  for (size_t i = 0; i + 1 < m; i++) same &= ys[i] == last;
  if (same) return last;
  double slope = line ? (last - ys[0]) / (xs[m - 1] - xs[0]) : 0;
  for (size_t i = 1; i + 1 < m && line; i++)
    line = fabs(ys[0] + slope * (xs[i] - xs[0]) - ys[i]) <= 1e-9 * fmax(1.0, fabs(ys[i]));
  return line ? last + slope * (target - xs[m - 1]) : last * target / xs[m - 1];
}

/* Slot j of the first trace's block id at the target: its stride, walk length and
 * offsets from the slots before it (w->stride, len, offset, fixed at slot k = id x
 * PPT_EXTRAP_SLOTS + j), extended across the traces that have it (extend), where it walks
 * regularly in every one (*m: how many; 0 when it does not). */
static void slot_walk(const ext_job *r, const ppt_extrap_strides *st, uint32_t *const *inv, uint32_t id,
                      unsigned j, ext_walks *w, size_t *m) {
  double xs[MAX_TRACES], ys[MAX_TRACES], ls[MAX_TRACES], os[PPT_EXTRAP_SLOTS][MAX_TRACES];
  int fixed[PPT_EXTRAP_SLOTS];
  size_t n = 0, k = (size_t)id * PPT_EXTRAP_SLOTS + j;
  *m = 0;
  for (unsigned i = 0; i < j; i++) fixed[i] = 1;
  for (size_t u = 0; u < r->ntr; u++) {
    size_t t = r->res->order[u];
    const ppt_extrap_slot *s = inv[t][id] ? slot_of(&st[t], inv[t][id], j) : NULL;
    if (!s || !s->refs) continue;
    if (!regular(s)) return;
    xs[n] = ext_size(r, t);
    ls[n] = walk_length(s);
    for (unsigned i = 0; i < j; i++) {
      os[i][n] = (double)s->offset[i];
      fixed[i] &= fixed_offset(s, i);
    }
    ys[n++] = (double)s->stride;
  }
  if (!n) return;
  double target = r->o->target;
  w->stride[k] = (int64_t)llround(extend(xs, ys, n, target));
  w->len[k] = fmax(1.0, extend(xs, ls, n, target));
  for (unsigned i = 0; i < j; i++) {
    size_t o = k * PPT_EXTRAP_SLOTS + i;
    if ((w->fixed[o] = (uint8_t)fixed[i])) w->offset[o] = (int64_t)llround(extend(xs, os[i], n, target));
  }
  *m = n;
}

/* Trace i's block instances and references onto the first trace's ids (through the
 * matching; a block with no partner is left out, as by the model). */
static int block_counts(ext_job *r, size_t i, const ppt_extrap_strides *st, uint32_t nref, ppt_err *err) {
  double *inst = r->blk_inst[i] = calloc(nref, sizeof *inst),
         *refs = r->blk_refs[i] = calloc(nref, sizeof *refs);
  if (!inst || !refs) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t b = 0; b < st->nblocks; b++) {
    uint32_t id = r->map[i] ? r->map[i][b] : b;
    if ((b && !id) || id >= nref) continue;
    inst[id] += (double)st->instances[b];
    refs[id] += (double)st->all_refs[b];
  }
  return 0;
}

int ext_walks_measure(ext_job *r, ppt_err *err) {
  size_t n = r->ntr, big = ext_largest(r);
  uint32_t nref = ppt_trace_nbbs(r->t[0]) + 1;
  ppt_extrap_strides st[MAX_TRACES] = {0};
  uint32_t *inv[MAX_TRACES] = {0};
  ext_walks *w = &r->walks;
  w->nblocks = nref;
  w->share = calloc((size_t)nref * PPT_EXTRAP_SLOTS, sizeof *w->share);
  w->stride = calloc((size_t)nref * PPT_EXTRAP_SLOTS, sizeof *w->stride);
  w->len = calloc((size_t)nref * PPT_EXTRAP_SLOTS, sizeof *w->len);
  w->offset = calloc((size_t)nref * PPT_EXTRAP_SLOTS * PPT_EXTRAP_SLOTS, sizeof *w->offset);
  w->fixed = calloc((size_t)nref * PPT_EXTRAP_SLOTS * PPT_EXTRAP_SLOTS, sizeof *w->fixed);
  int rc = w->share && w->stride && w->len && w->offset && w->fixed
               ? 0
               : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < n && !rc; i++) {
    if (!(inv[i] = inverse_map(r, i, nref))) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    if (!rc) rc = ppt_extrap_strides_measure(r->t[i], &st[i], err);
    if (!rc) rc = block_counts(r, i, &st[i], nref, err);
  }
  /* Shares and the data-dependent slots from the largest trace; a data-dependent slot
   * whose addresses span a range that grows by a quarter of the traced span or more
   * (a range that follows the size grows by the span) gathers from data that grows. */
  size_t lo = r->res->order[0];
  double span = ext_size(r, big) / ext_size(r, lo), need = 1 + 0.25 * (span - 1);
  double irregular = 0, all = 0;
  if (!rc && (!(w->irr = calloc(nref, sizeof *w->irr)) || !(w->growth = calloc(nref, sizeof *w->growth))))
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t id = 1; id < nref && !rc; id++) {
    uint32_t bb = inv[big][id];
    uint64_t brefs = bb ? st[big].refs[bb] : 0;
    if (!brefs || (r->counted && !r->counted[id])) continue;
    all += (double)brefs;
    for (unsigned j = 0; j < PPT_EXTRAP_SLOTS && !rc; j++) {
      const ppt_extrap_slot *sb = slot_of(&st[big], bb, j);
      if (!sb->refs) continue;
      const ppt_extrap_slot *s0 = inv[lo][id] ? slot_of(&st[lo], inv[lo][id], j) : NULL;
      if (!regular(sb) && sb->steps >= 16) {
        irregular += (double)sb->refs;
        double g =
            s0 && s0->refs && s0->hi > s0->lo ? (double)(sb->hi - sb->lo) / (double)(s0->hi - s0->lo) : 0;
        if (g >= need) w->irr[id] += (double)sb->refs;
        if (g >= need && g > w->growth[id]) w->growth[id] = g;
      }
      size_t k = (size_t)id * PPT_EXTRAP_SLOTS + j, seen = 0;
      slot_walk(r, st, inv, id, j, w, &seen);
      if (seen) w->share[k] = (double)sb->refs / (double)brefs;
      /* A slot only the largest trace has (a loop unrolled further there) walks as the
       * slot before it with the same stride does. */
      for (unsigned i = 0; seen == 1 && i < j; i++) {
        size_t ki = (size_t)id * PPT_EXTRAP_SLOTS + i;
        if (w->share[ki] > 0 && slot_of(&st[big], bb, i)->stride == sb->stride) {
          w->stride[k] = w->stride[ki];
          w->len[k] = w->len[ki];
          break;
        }
      }
    }
  }
  w->irregular = all > 0 ? irregular / all : 0;
  w->all = all;
  for (size_t i = 0; i < n; i++) {
    free(inv[i]);
    ppt_extrap_strides_free(&st[i]);
  }
  return rc;
}

void ext_walks_free(ext_walks *w) {
  free(w->share);
  free(w->stride);
  free(w->len);
  free(w->offset);
  free(w->fixed);
  free(w->irr);
  free(w->growth);
  memset(w, 0, sizeof *w);
}

int ext_check_irregular(const ext_job *r, ppt_err *err) {
  const ext_walks *w = &r->walks;
  size_t lo = r->res->order[0], hi = ext_largest(r);
  double bad = 0, worst = 0;
  uint32_t wid = 0;
  for (uint32_t id = 1; id < w->nblocks && w->irr; id++) {
    bad += w->irr[id];
    if (w->irr[id] > worst) {
      worst = w->irr[id];
      wid = id;
    }
  }
  if (r->o->allow_irregular || !(w->all > 0) || bad / w->all <= PPT_EXTRAP_IRREGULAR_MAX) return 0;
  const ppt_trace_bb *b = ppt_trace_bb_get(r->t[0], wid);
  return ppt_err_set(err, PPT_ERUN,
                     "%s: %.1f %% of the counted references are data-dependent (their address steps do not "
                     "repeat) over data that grows with %s (block %u, %s, %s:%u: its addresses span x%.2f "
                     "from %s=%g to %s=%g): irregular access is not a function of the size: not extrapolated "
                     "(--allow-irregular to extrapolate anyway)",
                     ext_path(r, hi), 100 * bad / w->all, r->o->param, wid, b->func, b->file, b->line,
                     w->growth[wid], r->o->param, ext_size(r, lo), r->o->param, ext_size(r, hi));
}
