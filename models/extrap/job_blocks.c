/* job_blocks.c — ppt_extrap_run's blocks at the target (docs/extrapolate.md,
 * "Set conflicts" and "Runtime"): each block's profile rebuilt there alone, judged by
 * SDCM (SASMM §3.6 Eq. 5) with the set conflicts of its walks (r->walks), gives
 *  - its global miss ratio of every level at the target and in the largest trace, by
 *    which the runtime moves each site (ppt_progmodel_shift_sites: a site moves as its
 *    own blocks do, not as the run does);
 *  - the hits the sets take from the run (the point's sets), and of them those whose
 *    first-level misses queue on one set;
 *  - which blocks gain the accesses each level serves beyond the trace's, and so the
 *    prefetch coverage of the gain (their walks' strides at the target).
 * SDCM places the lines a reuse waits for at random over the sets; a walk whose stride
 * is a multiple of several lines uses only the sets its addresses fall in (a column walk
 * over rows of 768 doubles, 96 lines, uses 2 of a 64-set L1's), and the traced sizes may
 * not show it: the strides are measured per block and slot on each trace
 * (job_walks.c) and taken at the target. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap/job.h"
#include "ppt/extrap.h"
#include "ppt/reuse.h"
#include "ppt/sdcm.h"

/* The page the spec's prefetchers stay within: its first TLB level's, else 4 KiB. */
static double page_bytes(const ppt_hwspec *hw) {
  return hw->ntlb && hw->tlb[0].page_bytes ? (double)hw->tlb[0].page_bytes : 4096.0;
}

/* The share of a walk's accesses at stride d (bytes) that a prefetcher confined to a page
 * covers (models/cache/prefetch.h: the stream prefetcher continues misses within two
 * lines, the stride prefetcher a repeated stride, neither across a page): all but those
 * that enter a new page, one access in page / max(|d|, line); none at a page or more. */
static double coverage(int64_t d, double line, double page) {
  double step = fmax(fabs((double)d), line);
  return fmax(0.0, 1.0 - step / page);
}

/* A level's view of one block's walks: its slots that walk a line or more per instance
 * (column walks; a sweep's steps within a line reuse the line at once), the share of the
 * block's references they hold, and how their lines sit in the level's sets. A walk of
 * stride d uses S / g of the S sets (g = ppt_extrap_set_fold), each line in its turn, so
 * its lines spread evenly over them. Walks share their sets when their offset is a
 * multiple of g lines (the unrolled rows of one column, arrays that move together: a
 * clique), never when a fixed offset is not, and one time in g when the offset varies
 * (columns j and k of a Gram-Schmidt step). A reuse of the block's waits for its own
 * clique's lines (own) and, with probability p, other cliques' too (all). */
typedef struct fold {
  double share, all, own, p;
  uint64_t g; /* the largest fold (1: the walks use every set) */
} fold;

static fold block_fold(const ext_walks *w, const ppt_hw_level *lv, uint32_t id) {
  uint64_t sets = lv->size / ((uint64_t)lv->assoc * lv->line);
  fold f = {0, 0, 0, 0, 1};
  size_t walk[PPT_EXTRAP_SLOTS], nw = 0;
  double wshare[PPT_EXTRAP_SLOTS] = {0};
  for (unsigned j = 0; j < PPT_EXTRAP_SLOTS; j++) {
    size_t k = (size_t)id * PPT_EXTRAP_SLOTS + j;
    if (!(w->share[k] > 0) || llabs(w->stride[k]) < (int64_t)lv->line) continue;
    uint64_t g = ppt_extrap_set_fold(w->stride[k], sets, lv->line);
    f.share += w->share[k];
    if (g > f.g) f.g = g;
    size_t v = 0;
    for (; v < nw; v++) { /* the same lines as a walk before it */
      size_t o = k * PPT_EXTRAP_SLOTS + walk[v] % PPT_EXTRAP_SLOTS;
      if (w->fixed[o] && llabs(w->offset[o]) < (int64_t)lv->line) break;
    }
    if (v == nw) walk[nw++] = k;
    wshare[v] += w->share[k];
  }
  if (!nw) return f;
  /* Cliques: walks joined by a fixed offset of a multiple of g lines. */
  size_t clique[PPT_EXTRAP_SLOTS];
  for (size_t v = 0; v < nw; v++) {
    clique[v] = v;
    for (size_t u = 0; u < v; u++) {
      size_t o = walk[v] * PPT_EXTRAP_SLOTS + walk[u] % PPT_EXTRAP_SLOTS; /* v's offset from u */
      if (w->fixed[o] && ((uint64_t)llabs(w->offset[o]) / lv->line) % f.g == 0) {
        clique[v] = clique[u];
        break;
      }
    }
  }
  /* Per walk, its clique's lines (own) and the other cliques that share its sets: with
   * probability pi = the sum of their chances (at most 1) some do, and then bring their
   * expected lines; by the references each walk holds. */
  double pi = 0, extra = 0;
  for (size_t v = 0; v < nw; v++) {
    double len = 0, pv = 0, ev = 0, clen[PPT_EXTRAP_SLOTS] = {0};
    for (size_t u = 0; u < nw; u++) clen[clique[u]] += w->len[walk[u]];
    len = clen[clique[v]];
    for (size_t u = 0; u < nw; u++) { /* the other cliques, by their first walk */
      if (clique[u] != u || u == clique[v]) continue;
      size_t a = walk[u > v ? u : v], b = walk[u > v ? v : u];
      double chance = w->fixed[a * PPT_EXTRAP_SLOTS + b % PPT_EXTRAP_SLOTS] ? 0.0 : 1.0 / (double)f.g;
      pv += chance;
      ev += chance * clen[u];
    }
    f.own += wshare[v] * len;
    pi += wshare[v] * fmin(1.0, pv);
    extra += wshare[v] * (pv > 0 ? ev / pv : 0);
  }
  f.own /= f.share;
  f.p = pi / f.share;
  f.all = f.own + extra / f.share;
  return f;
}

/* The hits level lv loses on the references of h, a block's share held by walks, against
 * SDCM's random placement of lines: a reuse at distance D waits for D lines that fill
 * D / len walks, and consecutive walks of a column walk start one line apart (the next
 * column of the same lines, or of the next line), so they spread over (S / g) x
 * max(1, D / len) of the S sets, evenly (even_hit). */
typedef struct lost {
  const ppt_hw_level *lv;
  fold f;
  double hits;
} lost;

/* D lines spread evenly over `sets` sets of `ways` ways hit where their set holds at most
 * `ways` of them (LRU: a set that holds more cycles through them, all missing). */
static double even_hit(double d, double ways, double sets) {
  double x = d / sets, q = floor(x);
  if (q < ways || d < ways) return 1.0;
  if (q > ways) return 0.0;
  return (1.0 - (x - q)) * ways / x;
}

/* The hit probability at distance d of a walk's line, the walks of len lines folded by g. */
static double folded_hit(const ppt_hw_level *lv, uint64_t d, double g, double len) {
  double sets = (double)(lv->size / lv->line / lv->assoc);
  return even_hit((double)d, (double)lv->assoc, fmin(sets, sets / g * fmax(1.0, (double)d / len)));
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

/* SDCM's global miss ratio of every level for one block's profiles p (as
 * ppt_sdcm_sasmm_hitrates); 0 with none, 1 when p has no references of a kind a level
 * needs. */
static int block_misses(const ppt_hwspec *hw, const ppt_sasmm_profiles *p, double *miss, int *ok,
                        ppt_err *err) {
  ppt_sdcm_rates h[NL];
  *ok = p->prd_all && p->crd && ppt_rdhist_total(p->prd_all) > 0 && ppt_rdhist_total(p->crd) > 0;
  int rc = *ok ? ppt_sdcm_sasmm_hitrates(hw, p, h, NULL, err) : 0;
  for (uint32_t k = 0; k < hw->nlevels; k++) miss[k] = *ok && !rc ? 1 - h[k].hit_rate : NAN;
  return rc;
}

/* One block at the target: its profiles split into its walks' share (the longest
 * reuses: a column walk's line comes back only with the next column) and the rest. */
typedef struct at_target {
  ppt_sasmm_profiles head, tail, full;
} at_target;

static int rebuild(const ext_job *r, const ppt_extrap_model *m, uint32_t b, uint8_t *one, double *tails,
                   double share, at_target *x, ppt_err *err) {
  one[b] = 1;
  tails[b] = share;
  int rc = ppt_extrap_predict_split(m, r->o->target, one, r->o->seed, 0, tails, &x->head, &x->tail, err);
  one[b] = 0;
  tails[b] = 0;
  if (rc) return rc;
  x->full = (ppt_sasmm_profiles){.prd_all = ppt_rdhist_clone(x->head.prd_all),
                                 .crd = ppt_rdhist_clone(x->head.crd)};
  if (!x->full.prd_all || !x->full.crd || ppt_rdhist_merge(x->full.prd_all, x->tail.prd_all, 1.0) ||
      ppt_rdhist_merge(x->full.crd, x->tail.crd, 1.0))
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  return 0;
}

static void at_target_free(at_target *x) {
  ppt_sasmm_profiles_free(&x->head);
  ppt_sasmm_profiles_free(&x->tail);
  ppt_sasmm_profiles_free(&x->full);
}

/* The gains of one block: the share of the program's references it has served by level
 * k (1..nlevels, nlevels: memory) at the target beyond the largest trace, added to
 * gain[k] with its walks' coverage (covered), or to unknown[k] where its slots do not all
 * walk with strides. */
static void add_gains(const ext_job *r, uint32_t b, const double *mt, const double *m0, double wt, double w0,
                      double *gain, double *covered, double *unknown) {
  const ext_walks *w = &r->walks;
  uint32_t nl = r->hw->nlevels;
  double known = 0, cov = 0, line = (double)r->hw->levels[0].line, page = page_bytes(r->hw);
  for (unsigned j = 0; j < PPT_EXTRAP_SLOTS; j++) {
    size_t k = (size_t)b * PPT_EXTRAP_SLOTS + j;
    known += w->share[k];
    cov += w->share[k] * coverage(w->stride[k], line, page);
  }
  for (uint32_t k = 1; k <= nl; k++) {
    double g = wt * (mt[k - 1] - (k < nl ? mt[k] : 0)) - w0 * (m0[k - 1] - (k < nl ? m0[k] : 0));
    if (!(g > 0)) continue;
    if (known >= 0.9) {
      gain[k] += g;
      covered[k] += g * cov / known;
    } else
      unknown[k] += g;
  }
}

int ext_block_rates(const ext_job *r, const ppt_extrap_model *m, size_t c, ppt_extrap_job_point *pt,
                    ext_point *px, ppt_err *err) {
  const ext_walks *w = &r->walks;
  const ppt_sasmm_profiles *meas = &r->prof[ext_largest(r)][c];
  uint32_t nl = r->hw->nlevels, nb = w->nblocks < meas->nblocks ? w->nblocks : meas->nblocks;
  double r0 = 0, taken[NL] = {0};
  double gain[NL + 1] = {0}, covered[NL + 1] = {0}, unknown[NL + 1] = {0};
  for (uint32_t b = 1; b < nb; b++)
    if ((!r->counted || r->counted[b]) && meas->prd_bb[b]) r0 += ppt_rdhist_total(meas->prd_bb[b]);
  uint8_t *one = calloc(nb, 1);
  double *tails = calloc(nb, sizeof *tails);
  px->nblocks = nb;
  px->blk_traced = malloc((size_t)nl * nb * sizeof *px->blk_traced);
  px->blk_target = malloc((size_t)nl * nb * sizeof *px->blk_target);
  int rc = one && tails && px->blk_traced && px->blk_target ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; !rc && i < (size_t)nl * nb; i++) px->blk_traced[i] = px->blk_target[i] = NAN;
  for (uint32_t k = 0; k < nl; k++) px->bunched_lost[k] = 0;
  const ppt_hw_level *l1 = &r->hw->levels[0];
  uint64_t sets1 = l1->size / ((uint64_t)l1->assoc * l1->line);
  for (uint32_t b = 1; b < nb && !rc && r0 > 0 && pt->refs > 0; b++) {
    if ((r->counted && !r->counted[b]) || !meas->prd_bb[b]) continue;
    fold f[NL];
    for (uint32_t k = 0; k < nl; k++) f[k] = block_fold(w, &r->hw->levels[k], b);
    at_target x = {0};
    double mt[NL], m0[NL];
    int okt = 0, ok0 = 0;
    rc = rebuild(r, m, b, one, tails, f[0].share, &x, err);
    if (!rc) rc = block_misses(r->hw, &x.full, mt, &okt, err);
    ppt_sasmm_profiles q = {.prd_all = meas->prd_bb[b], .crd = meas->crd_bb[b]};
    if (!rc) rc = block_misses(r->hw, &q, m0, &ok0, err);
    double nt = ppt_rdhist_total(x.full.prd_all);
    /* A first-level miss of the simulation is bunched when at least 4 of the last 8 were
     * in its set ("Misses queued on one set", docs/engine.md): walks whose first-level
     * misses cycle over at most 2 sets. */
    int bunched = f[0].g > 1 && sets1 / f[0].g <= 2;
    for (uint32_t k = 0; k < nl && !rc && okt; k++) {
      const ppt_hw_level *lv = &r->hw->levels[k];
      /* Random replacement: its SDCM is a fixed point over the whole profile, which a
       * share of it cannot be judged by alone. */
      if (lv->replacement == PPT_HW_REPL_RANDOM || !(f[k].share > 0)) continue;
      lost l = {lv, f[k], 0};
      const ppt_sasmm_profiles *kind = &x.tail;
      if (ppt_rdhist_foreach(lv->shared_by > 1 ? kind->crd : kind->prd_all, lose, &l))
        rc = ppt_err_set(err, PPT_ERUN, "out of memory");
      double of = ppt_rdhist_total(lv->shared_by > 1 ? x.full.crd : x.full.prd_all);
      if (!(of > 0)) continue;
      mt[k] = fmin(1, fmax(0, mt[k] + l.hits / of));
      taken[k] += l.hits / of * nt;
      if (bunched) px->bunched_lost[k] += l.hits / of * nt / pt->refs;
    }
    for (uint32_t k = 1; k < nl && okt; k++) mt[k] = fmin(mt[k], mt[k - 1]); /* misses fall outwards */
    for (uint32_t k = 0; k < nl && okt && ok0; k++) {
      px->blk_target[(size_t)k * nb + b] = mt[k];
      px->blk_traced[(size_t)k * nb + b] = m0[k];
    }
    if (okt && ok0)
      add_gains(r, b, mt, m0, nt / pt->refs, ppt_rdhist_total(q.prd_all) / r0, gain, covered, unknown);
    at_target_free(&x);
  }
  free(one);
  free(tails);
  for (uint32_t k = 0; k < nl; k++) {
    pt->sets[k] = pt->pred[k].hit_rate - taken[k] / pt->refs;
    if (k && pt->sets[k] < pt->sets[k - 1]) pt->sets[k] = pt->sets[k - 1];
  }
  /* Most of the gain from known walks, or the trace's shares. */
  for (uint32_t k = 1; k <= nl; k++)
    px->gain_prefetched[k] =
        gain[k] > 0 && unknown[k] <= 0.25 * (gain[k] + unknown[k]) ? covered[k] / gain[k] : NAN;
  return rc;
}
