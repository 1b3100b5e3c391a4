/* extrapolate_walks.c — how `ppt extrapolate` uses the way each block's references walk
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

#include "extrapolate.h"
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
static uint32_t *inverse_map(const results *r, size_t t, uint32_t nref) {
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

/* Slot j of the first trace's block id at the target: its stride and walk length, each
 * fitted across the traces, where it walks regularly in every trace that has it (*has 0
 * when it does not, or is in fewer than 2), and its offsets from the slots before it
 * (w->offset, w->fixed at slot k = id x PPT_EXTRAP_SLOTS + j). */
static int slot_walk(const args *a, const ppt_extrap_strides *st, uint32_t *const *inv, uint32_t id,
                     unsigned j, ppt_extrapolate_walks *w, int *has, ppt_err *err) {
  double xs[MAX_TRACES], ys[MAX_TRACES], ls[MAX_TRACES], os[PPT_EXTRAP_SLOTS][MAX_TRACES];
  int fixed[PPT_EXTRAP_SLOTS];
  size_t m = 0, k = (size_t)id * PPT_EXTRAP_SLOTS + j;
  *has = 0;
  for (unsigned i = 0; i < j; i++) fixed[i] = 1;
  for (size_t t = 0; t < a->ntr; t++) {
    const ppt_extrap_slot *s = inv[t][id] ? slot_of(&st[t], inv[t][id], j) : NULL;
    if (!s || !s->refs) continue;
    if (!regular(s)) return 0;
    xs[m] = a->tr[t].value;
    ls[m] = walk_length(s);
    for (unsigned i = 0; i < j; i++) {
      os[i][m] = (double)s->offset[i];
      fixed[i] &= fixed_offset(s, i);
    }
    ys[m++] = (double)s->stride;
  }
  if (m < 2) return 0;
  ppt_extrap_poly f;
  int rc = ppt_extrap_fit_poly(xs, ys, m, 0, &f, err);
  if (rc) return rc;
  w->stride[k] = (int64_t)llround(ppt_extrap_fit_eval(&f, a->target.value));
  if ((rc = ppt_extrap_fit_poly_judged(xs, ls, m, 0, &f, err))) return rc;
  w->len[k] = fmax(1.0, ppt_extrap_fit_eval(&f, a->target.value));
  for (unsigned i = 0; i < j; i++) {
    size_t o = k * PPT_EXTRAP_SLOTS + i;
    if (!(w->fixed[o] = (uint8_t)fixed[i])) continue;
    if ((rc = ppt_extrap_fit_poly(xs, os[i], m, 0, &f, err))) return rc;
    w->offset[o] = (int64_t)llround(ppt_extrap_fit_eval(&f, a->target.value));
  }
  *has = 1;
  return 0;
}

int ppt_extrapolate_walks_measure(const args *a, results *r, ppt_err *err) {
  size_t n = a->ntr, big = r->order[n - 1];
  uint32_t nref = ppt_trace_nbbs(r->t[0]) + 1;
  ppt_extrap_strides st[MAX_TRACES] = {0};
  uint32_t *inv[MAX_TRACES] = {0};
  ppt_extrapolate_walks *w = &r->walks;
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
  }
  /* Shares and the data-dependent slots from the largest trace; a data-dependent slot
   * whose addresses span a range that grows by a quarter of the traced span or more
   * (a range that follows the size grows by the span) gathers from data that grows. */
  size_t lo = r->order[0];
  double span = a->tr[big].value / a->tr[lo].value, need = 1 + 0.25 * (span - 1);
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
      size_t k = (size_t)id * PPT_EXTRAP_SLOTS + j;
      int has = 0;
      rc = slot_walk(a, st, inv, id, j, w, &has, err);
      if (has) w->share[k] = (double)sb->refs / (double)brefs;
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

void ppt_extrapolate_walks_free(ppt_extrapolate_walks *w) {
  free(w->share);
  free(w->stride);
  free(w->len);
  free(w->offset);
  free(w->fixed);
  free(w->irr);
  free(w->growth);
  memset(w, 0, sizeof *w);
}

/* A level's fold of one block's walks: the share of its references in slots that fold
 * the level's sets (stride, ppt_extrap_set_fold) and the largest fold g. A pass of the
 * block's walks fills the sets of its lines: each distinct walk (slots at a fixed offset
 * of less than a line from another are the same lines: an element loaded and stored)
 * fills its own, and two walks share theirs when their offset is a multiple of g lines:
 * the unrolled rows of one column, arrays that move together. Walks whose offset varies
 * (two columns j and k of a Gram-Schmidt step) share them one time in g. The fold is
 * then a mixture: with probability p the walks fill the same sets (len = all their
 * lines), else each its own (len = one walk's). */
typedef struct fold {
  double share, all, own, p;
  uint64_t g;  /* 1: none */
  int bunched; /* the walks' first-level misses queue on one set (ppt_extrapolate_set_rates) */
} fold;

static fold block_fold(const ppt_extrapolate_walks *w, const ppt_hw_level *lv, uint32_t id) {
  uint64_t sets = lv->size / ((uint64_t)lv->assoc * lv->line);
  fold f = {0, 0, 0, 1, 1, 0};
  size_t walk[PPT_EXTRAP_SLOTS], nw = 0;
  for (unsigned j = 0; j < PPT_EXTRAP_SLOTS; j++) {
    size_t k = (size_t)id * PPT_EXTRAP_SLOTS + j;
    if (!(w->share[k] > 0)) continue;
    uint64_t g = ppt_extrap_set_fold(w->stride[k], sets, lv->line);
    if (g <= 1) continue;
    f.share += w->share[k];
    if (g > f.g) f.g = g;
    int dup = 0;
    for (size_t v = 0; v < nw && !dup; v++) {
      size_t o = k * PPT_EXTRAP_SLOTS + walk[v] % PPT_EXTRAP_SLOTS;
      dup = w->fixed[o] && llabs(w->offset[o]) < (int64_t)lv->line;
    }
    if (!dup) walk[nw++] = k;
  }
  if (!nw) return f;
  double pairs = 0, same = 0;
  for (size_t v = 0; v < nw; v++) {
    f.all += w->len[walk[v]];
    for (size_t u = 0; u < v; u++) {
      size_t o = walk[v] * PPT_EXTRAP_SLOTS + walk[u] % PPT_EXTRAP_SLOTS; /* v's offset from u */
      pairs++;
      if (!w->fixed[o])
        same += 1.0 / (double)f.g;
      else
        same += ((uint64_t)llabs(w->offset[o]) / lv->line) % f.g == 0;
    }
  }
  f.own = f.all / (double)nw;
  f.p = pairs > 0 ? same / pairs : 1;
  return f;
}

/* The hits level lv loses on the references of h to a walk folding its sets by g with
 * walks of len lines: a reuse at distance D waits for D lines that fill D / len walks,
 * and consecutive walks of a column walk start one line apart (the next column of the
 * same lines, or of the next line), so they spread over (S / g) x max(1, D / len) of the
 * S sets; SDCM (Eq. 5) with that many sets of the level's ways, against all S. */
typedef struct lost {
  const ppt_hw_level *lv;
  fold f;
  double hits;
} lost;

/* SDCM's hit probability at distance d with the sets a fold by g leaves to walks of len
 * lines. */
static double folded_hit(const ppt_hw_level *lv, uint64_t d, double g, double len) {
  uint64_t a = lv->assoc, sets = lv->size / lv->line / a;
  double eff = fmin((double)sets, (double)sets / g * fmax(1.0, (double)d / len));
  return ppt_sdcm_hit_prob(d, a, (uint64_t)fmax((double)a, nearbyint(eff) * (double)a));
}

static int lose(int64_t d, double count, void *arg) {
  lost *l = arg;
  if (d == PPT_RD_INF) return 0; /* a first touch misses either way */
  const ppt_hw_level *lv = l->lv;
  double g = (double)l->f.g, p = l->f.p;
  double folded =
      p * folded_hit(lv, (uint64_t)d, g, l->f.all) + (1 - p) * folded_hit(lv, (uint64_t)d, g, l->f.own);
  l->hits += count * (ppt_sdcm_hit_prob((uint64_t)d, lv->assoc, lv->size / lv->line) - folded);
  return 0;
}

int ppt_extrapolate_set_rates(const args *a, const results *r, const ppt_extrap_model *m, point *pt,
                              ppt_err *err) {
  const ppt_extrapolate_walks *w = &r->walks;
  uint32_t nb = w->nblocks;
  double *tail = calloc(nb, sizeof *tail);
  fold *f = calloc(nb, sizeof *f);
  int rc = tail && f ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t k = 0; k < r->hw.nlevels && !rc; k++) {
    const ppt_hw_level *lv = &r->hw.levels[k];
    pt->sets[k] = pt->pred[k].hit_rate;
    pt->bunched_lost[k] = 0;
    /* Random replacement: its SDCM is a fixed point over the whole profile, which a
     * share of it cannot be judged by alone. */
    if (lv->replacement == PPT_HW_REPL_RANDOM) continue;
    for (uint32_t id = 0; id < nb; id++) {
      f[id] = block_fold(w, lv, id);
      /* The simulation calls a first-level miss bunched when at least 4 of the last 8
       * were in its set ("Misses queued on one set", docs/engine.md): a walk whose
       * first-level misses cycle over at most 2 sets. */
      const ppt_hw_level *l1 = &r->hw.levels[0];
      fold f1 = k ? block_fold(w, l1, id) : f[id];
      f[id].bunched = f1.g > 1 && l1->size / ((uint64_t)l1->assoc * l1->line) / f1.g <= 2;
    }
    /* One tail profile per distinct (fold, walk length). */
    for (uint32_t first = 0; first < nb && !rc; first++) {
      fold g = f[first];
      if (g.g <= 1) continue;
      for (uint32_t id = 0; id < nb; id++) {
        int same = f[id].g == g.g && f[id].all == g.all && f[id].own == g.own && f[id].p == g.p &&
                   f[id].bunched == g.bunched;
        tail[id] = same ? f[id].share : 0;
        if (same) f[id].g = 1; /* done */
      }
      ppt_sasmm_profiles head, tp;
      if ((rc =
               ppt_extrap_predict_split(m, a->target.value, r->counted, a->c.seed, 0, tail, &head, &tp, err)))
        break;
      const ppt_rdhist *ht = lv->shared_by > 1 ? tp.crd : tp.prd_all;
      double total = ppt_rdhist_total(ht) + ppt_rdhist_total(lv->shared_by > 1 ? head.crd : head.prd_all);
      lost l = {lv, g, 0};
      if (ppt_rdhist_foreach(ht, lose, &l)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
      if (!rc && total > 0) pt->sets[k] -= l.hits / total;
      if (!rc && total > 0 && g.bunched) pt->bunched_lost[k] += l.hits / total;
      ppt_sasmm_profiles_free(&head);
      ppt_sasmm_profiles_free(&tp);
    }
    if (k && pt->sets[k] < pt->sets[k - 1]) pt->sets[k] = pt->sets[k - 1];
  }
  free(tail);
  free(f);
  return rc;
}

int ppt_extrapolate_check_irregular(const args *a, const results *r, ppt_err *err) {
  const ppt_extrapolate_walks *w = &r->walks;
  size_t lo = r->order[0], hi = r->order[a->ntr - 1];
  double bad = 0, worst = 0;
  uint32_t wid = 0;
  for (uint32_t id = 1; id < w->nblocks && w->irr; id++) {
    bad += w->irr[id];
    if (w->irr[id] > worst) {
      worst = w->irr[id];
      wid = id;
    }
  }
  if (a->allow_irregular || !(w->all > 0) || bad / w->all <= IRREGULAR_MAX) return 0;
  const ppt_trace_bb *b = ppt_trace_bb_get(r->t[0], wid);
  return ppt_err_set(err, PPT_ERUN,
                     "%s: %.1f %% of the counted references are data-dependent (their address steps do not "
                     "repeat) over data that grows with %s (block %u, %s, %s:%u: its addresses span x%.2f "
                     "from %s=%g to %s=%g): irregular access is not a function of the size: not extrapolated "
                     "(--allow-irregular to extrapolate anyway)",
                     a->tr[hi].path, 100 * bad / w->all, a->tr[hi].param, wid, b->func, b->file, b->line,
                     w->growth[wid], a->tr[lo].param, a->tr[lo].value, a->tr[hi].param, a->tr[hi].value);
}
