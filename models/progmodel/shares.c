/* models/progmodel/shares.c — a site's counters on one core into the shares its
 * tasklists are priced with (local hit rates, prefetched, write-back, same-set and
 * transfer shares, TLB cycles), for the whole site and, apart, for its chain-bound loops
 * and the rest (loops.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "progmodel/progmodel_impl.h"

/* pool += c, the counters shift.c reads. */
static void pool_add(site_counts *pool, const site_counts *c) {
  for (uint32_t k = 0; k < PPT_HW_MAX_LEVELS; k++) {
    pool->racc[k] += c->racc[k];
    pool->rmiss[k] += c->rmiss[k];
  }
}

/* Mean TLB cost of a reference: a reference whose translation TLB level k held (k =
 * ntlb: a page walk) missed levels 0..k-1 and pays their miss_cycles, so cost =
 * Σ_k share_k Σ_{j<k} miss_cycles_j / in_flight_j. The last level's miss_cycles is the
 * calibration's walk, a chase over pages whose page-table entries miss the caches; a
 * walk whose entry shares its line with a recent walk's (tracesim's tlb_near: a stream
 * entering its next page) reads it from the data caches, so it pays the second cache
 * level's latency instead (the first's with one level), where that is less. A level's
 * in_flight (the core's page walkers, as calibrate times them: independent loads over
 * the chase's pages) divides its cost: the loads of a column walk know their addresses
 * ahead, so their walks overlap, as cache misses do under mlp (docs/engine.md). */
static double tlb_cycles_per_ref(const ppt_progmodel *m, const site_counts *c) {
  const ppt_hwspec *hw = m->hw;
  uint32_t ntlb = m->rates.ntlb;
  if (!ntlb || !c->counted_refs) return 0.0;
  double share[PPT_HW_MAX_TLB + 1], refs = (double)c->counted_refs;
  for (uint32_t k = 0; k <= ntlb; k++) share[k] = (double)c->tlb_served[k] / refs;
  if (m->hooks.tlb) m->hooks.tlb(m, share);
  double cost = 0, pen = 0;
  for (uint32_t k = 1; k <= ntlb && k <= hw->ntlb; k++) {
    double miss = hw->tlb[k - 1].miss_cycles;
    if (k == ntlb && c->tlb_served[ntlb] > 0 && hw->nlevels > 0) {
      double near = (double)c->tlb_near / (double)c->tlb_served[ntlb];
      double hit = hw->levels[hw->nlevels > 1 ? 1 : 0].latency_cycles;
      miss = (1.0 - near) * miss + near * fmin(miss, hit);
    }
    pen += hw->tlb[k - 1].in_flight > 1 ? miss / hw->tlb[k - 1].in_flight : miss;
    cost += pen * share[k];
  }
  return cost;
}

/* The tasklists' rates and shares from counters c. With fb (a site on one core), what c
 * cannot say falls back to fb, the whole run's: the local rate of a level no reference
 * reached, the shares of a level that served none, the write-backs and TLB cost of a
 * site that counted no reference. Without fb (the whole run), those are 0. */

static void derive(const ppt_progmodel *m, const site *st, const site_counts *c, const site_counts *pool,
                   const shares *fb, shares *o) {
  memset(o, 0, sizeof *o);
  for (uint32_t k = 0; k < m->nlevels; k++) {
    if (c->racc[k])
      o->local[k] = 1.0 - (double)c->rmiss[k] / (double)c->racc[k];
    else if (fb)
      o->local[k] = fb->local[k];
  }
  /* Shares of each level's accesses (the first's too) that wait for loads. */
  for (uint32_t k = 0; k <= m->nlevels; k++) {
    if (c->served[k] > 0) {
      double sv = (double)c->served[k] * PPT_TRACESIM_CHASE_UNIT;
      o->chased[k] = fmin(1.0, (double)c->chased[k] / sv);
      o->chased_wait[k] = fmin(o->chased[k], (double)c->chased_wait[k] / sv);
    } else if (fb) {
      o->chased[k] = fb->chased[k];
      o->chased_wait[k] = fb->chased_wait[k];
    }
  }
  for (uint32_t k = 1; k <= m->nlevels; k++) {
    if (c->served[k] > 0) {
      /* Shares of the level's (and DRAM's) accesses a stream prefetcher covered, whose
       * first-level miss queued on one set, that came from another core's cache. */
      double sv = (double)c->served[k], bs = (double)c->same_set_stores[k];
      o->prefetched[k] = (double)c->prefetched[k] / sv;
      o->same_set_stores[k] = bs / sv;
      o->same_set_loads[k] = ((double)c->same_set[k] - bs) / sv;
      o->transfers[k] = (double)c->transfers[k] / sv;
    } else if (fb) {
      o->prefetched[k] = fb->prefetched[k];
      o->same_set_stores[k] = fb->same_set_stores[k];
      o->same_set_loads[k] = fb->same_set_loads[k];
      o->transfers[k] = fb->transfers[k];
    }
  }
  /* The dirty lines written back into each level per access (ppt_mem_access.writeback),
   * as the simulation's dirty bits counted them: a line a load brought in and a store
   * then changed goes back as surely as one the store missed on (lu's and gramschmidt's
   * read-modify-write sweeps, whose stores all hit the first level). */
  double all = 0;
  for (uint32_t k = 0; k <= m->nlevels; k++) all += (double)c->served[k];
  for (uint32_t k = 1; k <= m->nlevels && all > 0; k++) o->writeback[k] = (double)c->writebacks[k] / all;
  if (fb && all == 0) memcpy(o->writeback, fb->writeback, sizeof o->writeback);
  if (m->hooks.site && c->racc[0]) m->hooks.site(m, st, c, pool, o);
  o->tlb_cycles = fb && !c->counted_refs ? fb->tlb_cycles : tlb_cycles_per_ref(m, c);
}

/* a -= b, field by field (site_counts is all uint64_t; b is part of a). */
static void counts_sub(site_counts *a, const site_counts *b) {
  uint64_t *x = (uint64_t *)a;
  const uint64_t *y = (const uint64_t *)b;
  for (size_t i = 0; i < sizeof *a / sizeof *x; i++) x[i] -= y[i];
}

/* Site i's shares without its chain-bound loops (into m->rest), and each loop's own;
 * `pool` is the site on every core. What a loop or the rest cannot say falls back to
 * the site's on that core. -1 when out of memory. */
static int derive_loops(ppt_progmodel *m, size_t i, const site_counts *pool) {
  site *st = &m->sites[i];
  site_counts *rest = malloc(m->ncores * sizeof *rest);
  if (!rest) return -1;
  memcpy(rest, st->c, m->ncores * sizeof *rest);
  for (size_t e = 0; e < u64map_cap(&st->loops); e++) {
    if (st->loops.ents[e].key == U64MAP_EMPTY) continue;
    uint32_t core = (uint32_t)(st->loops.ents[e].key / m->nloops);
    loop_counts *lc = &m->lc[st->loops.ents[e].val.u];
    counts_sub(&rest[core], &lc->c);
    derive(m, st, &lc->c, pool, &m->sh[i * m->ncores + core], &lc->sh);
  }
  for (uint32_t c = 0; c < m->ncores; c++)
    derive(m, st, &rest[c], pool, &m->sh[i * m->ncores + c], &m->rest[i * m->ncores + c]);
  free(rest);
  return 0;
}

/* The run-wide shares, then every site's on every core (into a new m->sh), and the same
 * apart for the chain-bound loops and the rest (m->rest, m->lc). */
int progmodel_derive_all(ppt_progmodel *m) {
  site_counts run = {0};
  ppt_tracesim_result *r = &m->rates;
  progmodel_add_take(&run, r);
  derive(m, NULL, &run, &run, NULL, &m->all);
  shares *sh = calloc(m->nsites * m->ncores + 1, sizeof *sh),
         *rest = calloc(m->nsites * m->ncores + 1, sizeof *rest);
  if (!sh || !rest) {
    free(sh);
    free(rest);
    return -1;
  }
  free(m->sh);
  free(m->rest);
  m->sh = sh;
  m->rest = rest;
  for (size_t i = 0; i < m->nsites; i++) {
    site_counts pool = {0}; /* the site on every core: what its misses move by */
    for (uint32_t c = 0; c < m->ncores; c++) pool_add(&pool, &m->sites[i].c[c]);
    for (uint32_t c = 0; c < m->ncores; c++)
      derive(m, &m->sites[i], &m->sites[i].c[c], &pool, &m->all, &m->sh[i * m->ncores + c]);
    if (derive_loops(m, i, &pool)) return -1;
  }
  return 0;
}
