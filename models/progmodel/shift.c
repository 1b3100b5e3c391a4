/* models/progmodel/shift.c — problem-size scaling's handle on the program model
 * (ppt/progmodel.h, `ppt extrapolate`): the simulated rates are the traced size's, and
 * every site's and core's miss ratios move as the whole run's move to the extrapolated
 * rates at the target, with the shares that follow them (docs/extrapolate.md, "Runtime"). */
#include <math.h>
#include <string.h>

#include "ppt/progmodel.h"
#include "progmodel/progmodel_impl.h"

/* The global miss ratio below which ppt_progmodel_shift_misses moves a level's ratios by
 * the run's difference instead of its ratio (a level that hardly missed at the traced
 * size gives no ratio to scale by). */
#define SHIFT_FLOOR 1e-3

/* A global miss ratio x of a site moved as the run's moves from `from` to `to`. */
static double moved(double x, double from, double to) {
  return from >= SHIFT_FLOOR ? x * to / from : x + (to - from);
}

/* The local rates of counters c once every global miss ratio has moved (as
 * ppt_progmodel_shift_misses says): the site's ratio over all its cores (pool) moves as
 * the run's, by the run's ratio where the run missed at least SHIFT_FLOOR, else by its
 * difference. Where the site misses less, every core's ratio falls by that factor. Where
 * it misses more, from X to X', a core keeps the traced size's per-core pattern only for
 * the share w = X / X' of the target's misses that the traced size already had, and the
 * rest follows its share r of the accesses that reach the level (the reuses that no longer
 * fit are the level's, not the core's own history): x' = w x + (X' - w X) r, which sums
 * to X' over the cores and is x when nothing moves. Scaling every core's ratio instead
 * turned triad's and conv2d's cold misses on one L3 instance at 4 cores, at the traced
 * size (core 0 initialises the data, into the other instance), into the target's
 * capacity misses there, and none on the other. Kept between 0 and the level above's. A
 * level c's references never reached keeps the rate derive gave it (the fallback's). g:
 * the moved global miss ratios. */
static void shift_local(const ppt_progmodel *m, const site *st, const site_counts *c, const site_counts *pool,
                        double *local, double *g) {
  double refs = (double)c->racc[0], prefs = (double)pool->racc[0], above = 1.0;
  for (uint32_t k = 0; k < m->nlevels; k++) {
    double from = m->sh_now.from[k], to = m->sh_now.to[k], x = (double)c->rmiss[k] / refs;
    double site = prefs > 0 ? (double)pool->rmiss[k] / prefs : x, now = moved(site, from, to);
    int own = m->sh_now.sites_on && st && !isnan(st->target[k]);
    if (own) now = st->target[k]; /* its own blocks' move */
    if (now > site) {
      double reach = k ? (double)c->rmiss[k - 1] / refs : 1.0;
      double preach = k ? (prefs > 0 ? (double)pool->rmiss[k - 1] / prefs : reach) : 1.0, w = site / now;
      x = w * x + (now - w * site) * (preach > 0 ? reach / preach : 1.0);
    } else if (own) { /* fewer misses: every core's ratio by the site's factor */
      x = site > 0 ? x * now / site : now;
    } else {
      x = moved(x, from, to);
    }
    g[k] = x = fmin(fmax(x, 0.0), above);
    if (above > 0) local[k] = 1.0 - x / above;
    above = x;
  }
}

/* The shares of levels that serve more of c's references once the misses moved (g, from
 * shift_local), and every level's write-backs. The accesses a level gains are ones a level above served in
 * the trace (reuses that no longer fit): nothing in the trace says how a prefetcher or the sets would have
 * treated them there, so they take c's shares over every access that missed the first level (the site's
 * streams as the caches below saw them), blended with the level's own by count. The sweep that turns from L1
 * hits to L2 hits at a larger size gets the prefetch coverage its misses (first touches) had in the trace. */
static void shift_shares(const ppt_progmodel *m, const site_counts *c, const double *g, shares *o) {
  double sv = 0, sp = 0, sl = 0, ss = 0, st = 0, refs = (double)c->racc[0];
  for (uint32_t j = 1; j <= m->nlevels; j++) {
    sv += (double)c->served[j];
    sp += (double)c->prefetched[j];
    ss += (double)c->same_set_stores[j];
    sl += (double)c->same_set[j] - (double)c->same_set_stores[j];
    st += (double)c->transfers[j];
  }
  /* Write-backs: as many accesses reach level k as the moved misses say (g[k - 1] of the
   * references), and the share of write-backs (of stores) among them is the trace's
   * where the trace saw them. Accesses a level gains are ones the level above served in the trace (reuses
   * that no longer fit), so they take the store share of the accesses reaching the level
   * above, blended by count: triad's DRAM, reached by 5 accesses of 3.1 M at the traced
   * size (3 stores), would otherwise write back 60 % of the target's misses instead of
   * a third (runtime +18 %). */
  double reach[PPT_HW_MAX_LEVELS + 1] = {0}, st_reach[PPT_HW_MAX_LEVELS + 1] = {0};
  double stores[PPT_HW_MAX_LEVELS + 1] = {0}; /* share of stores among the accesses reaching k */
  for (uint32_t k = m->nlevels + 1; k-- > 0;) {
    reach[k] = (double)c->served[k] + (k < m->nlevels ? reach[k + 1] : 0);
    st_reach[k] = (double)c->served_stores[k] + (k < m->nlevels ? st_reach[k + 1] : 0);
  }
  if (!(reach[0] > 0)) return;
  double share = st_reach[0] / reach[0]; /* stores among all accesses */
  /* The dirty lines written back into level k per access reaching it (the simulation's,
   * cachesim's dirty bits), moved the same way; before the first level that has some,
   * a dirty line per store. */
  double dirty = share;
  for (uint32_t k = 1; k <= m->nlevels; k++) {
    double target = refs * g[k - 1], wt = target > 0 ? fmin(1.0, reach[k] / target) : 1.0;
    if (reach[k] > 0) {
      share = wt * st_reach[k] / reach[k] + (1 - wt) * share;
      dirty = wt * (double)c->writebacks[k] / reach[k] + (1 - wt) * dirty;
    }
    o->writeback[k] = dirty * g[k - 1];
    stores[k] = share;
  }
  if (!(sv > 0)) return; /* no miss in the trace to learn from: the fallback's shares stay */
  for (uint32_t k = 1; k <= m->nlevels; k++) {
    double base = (double)c->served[k] / refs, now = k < m->nlevels ? g[k - 1] - g[k] : g[k - 1];
    if (!(now > base)) continue;
    double wb = base / now, we = 1 - wb;
    /* Accesses gained through walks whose prefetching or sets the caller knows at the
     * target (ppt_progmodel_shift_gains) take those shares instead. */
    double pf = m->sh_now.gains_on ? m->sh_now.gain_prefetched[k] : NAN;
    double b = m->sh_now.gains_on ? m->sh_now.gain_bunched[k] : NAN;
    o->prefetched[k] = wb * o->prefetched[k] + we * (isnan(pf) ? sp / sv : pf);
    o->same_set_stores[k] = wb * o->same_set_stores[k] + we * (isnan(b) ? ss / sv : b * stores[k]);
    o->same_set_loads[k] = wb * o->same_set_loads[k] + we * (isnan(b) ? sl / sv : b * (1 - stores[k]));
    /* Lines come from another core's cache through the level they share: a private
     * level that served its accesses without one (no transfer) gains none either. */
    o->transfers[k] = c->served[k] > 0 ? o->transfers[k] : wb * o->transfers[k] + we * st / sv;
  }
}

/* progmodel_hooks.site: c's local rates, shares and write-backs moved as m->sh_now says;
 * pool's misses move by the run's ratio (or to the site's own target) and c takes its
 * share of the gains. */
static void shift_site(const ppt_progmodel *m, const site *st, const site_counts *c, const site_counts *pool,
                       shares *o) {
  double g[PPT_HW_MAX_LEVELS];
  shift_local(m, st, c, pool, o->local, g);
  shift_shares(m, c, g, o);
}

/* progmodel_hooks.tlb: level k's global miss ratio is the share served beyond it; moved
 * as the caches' are, kept falling outwards. */
static void shift_tlb_shares(const ppt_progmodel *m, double *share) {
  uint32_t ntlb = m->rates.ntlb;
  double above = 1.0, g[PPT_HW_MAX_TLB], beyond = 0;
  for (uint32_t k = ntlb; k-- > 0;) g[k] = (beyond += share[k + 1]);
  for (uint32_t k = 0; k < ntlb; k++) {
    g[k] = fmin(fmax(moved(g[k], m->sh_now.tlb_from[k], m->sh_now.tlb_to[k]), 0.0), above);
    share[k] = (k ? g[k - 1] : 1.0) - g[k];
    above = g[k];
  }
  if (ntlb) share[ntlb] = g[ntlb - 1];
}

/* s as m's moved miss ratios, with the hooks that apply them to the shares. */
static void set_shift(ppt_progmodel *m, const shift *s) {
  m->sh_now = *s;
  m->hooks.site = s->on ? shift_site : NULL;
  m->hooks.tlb = s->tlb_on ? shift_tlb_shares : NULL;
}

/* Takes `next` as the moved miss ratios and remakes the shares and tasklists; on failure
 * m keeps what it had. */
static int apply_shift(ppt_progmodel *m, const shift *next, ppt_err *err) {
  shift was = m->sh_now;
  set_shift(m, next);
  ppt_tc_policy pol = m->policy;
  int rc = progmodel_derive_all(m) ? ppt_err_set(err, PPT_ERUN, "out of memory") : 0;
  if (!rc) rc = ppt_progmodel_set_policy(m, &pol, err);
  if (rc) { /* back to the shares m had */
    set_shift(m, &was);
    if (progmodel_derive_all(m)) m->failed = 1;
  }
  return rc;
}

/* from[k] and to[k] for k < n are ratios in [0, 1]: 0, else PPT_EINPUT. */
static int check_ratios(const double *from, const double *to, uint32_t n, const char *what, ppt_err *err) {
  for (uint32_t k = 0; from && to && k < n; k++)
    if (!(from[k] >= 0 && from[k] <= 1 && to[k] >= 0 && to[k] <= 1))
      return ppt_err_set(err, PPT_EINPUT, "progmodel: %s level %u's miss ratio %g -> %g is not in [0, 1]",
                         what, k, from[k], to[k]);
  return 0;
}

int ppt_progmodel_shift_misses(ppt_progmodel *m, const double *from, const double *to, ppt_err *err) {
  int rc = check_ratios(from, to, m->nlevels, "cache", err);
  if (rc) return rc;
  shift next = m->sh_now;
  next.on = from && to;
  for (uint32_t k = 0; next.on && k < m->nlevels; k++) {
    next.from[k] = from[k];
    next.to[k] = to[k];
  }
  return apply_shift(m, &next, err);
}

/* share[k] for k = 1..n, NaN allowed, else in [0, 1]: 0, else PPT_EINPUT naming it. */
static int check_shares(const double *share, uint32_t n, const char *what, ppt_err *err) {
  for (uint32_t k = 1; share && k <= n; k++)
    if (!isnan(share[k]) && !(share[k] >= 0 && share[k] <= 1))
      return ppt_err_set(err, PPT_EINPUT, "progmodel: level %u's %s share %g is not in [0, 1]", k, what,
                         share[k]);
  return 0;
}

int ppt_progmodel_shift_gains(ppt_progmodel *m, const double *prefetched, const double *bunched,
                              ppt_err *err) {
  int rc = check_shares(prefetched, m->nlevels, "prefetched", err);
  if (!rc) rc = check_shares(bunched, m->nlevels, "bunched", err);
  if (rc) return rc;
  shift next = m->sh_now;
  next.gains_on = prefetched || bunched;
  for (uint32_t k = 0; k <= m->nlevels; k++) {
    next.gain_prefetched[k] = prefetched && k ? prefetched[k] : NAN;
    next.gain_bunched[k] = bunched && k ? bunched[k] : NAN;
  }
  return apply_shift(m, &next, err);
}

/* Site i's references in blocks whose ratios both arrays know at level k (NaN: not), at
 * the traced size (n0, by ratio x0) and at the target (nt, weighted by w_refs, by xt);
 * and all its references at the target (*all). */
static void site_blocks(const ppt_progmodel *m, const site *st, uint32_t k, const double *const *traced,
                        const double *const *target, double *n0, double *x0, double *nt, double *xt,
                        double *all) {
  *n0 = *x0 = *nt = *xt = *all = 0;
  uint32_t nbbs = ppt_trace_nbbs(m->t);
  for (size_t e = 0; e < u64map_cap(&st->blocks); e++) {
    uint64_t b = st->blocks.ents[e].key;
    if (b == U64MAP_EMPTY || b > nbbs) continue;
    double n = st->blocks.ents[e].val.d, w = m->w_refs[b];
    *all += n * w;
    if (isnan(traced[k][b]) || isnan(target[k][b])) continue;
    *n0 += n;
    *x0 += n * traced[k][b];
    *nt += n * w;
    *xt += n * w * target[k][b];
  }
}

int ppt_progmodel_shift_sites(ppt_progmodel *m, const double *const *traced, const double *const *target,
                              ppt_err *err) {
  if (!m->sh_now.on && traced && target)
    return ppt_err_set(err, PPT_EINPUT, "progmodel: sites move only with the run's misses moved");
  int on = traced && target;
  double *now = malloc((m->nsites + 1) * sizeof *now), *tref = malloc((m->nsites + 1) * sizeof *tref);
  if (!now || !tref) {
    free(now);
    free(tref);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  for (uint32_t k = 0; k < m->nlevels; k++) {
    /* Each site by its own blocks' ratio, then all of them by the one factor that gives
     * the run its moved ratio: the run's level is the extrapolated one, the sites' split
     * of it their blocks'. */
    double sum = 0, total = 0;
    for (size_t i = 0; i < m->nsites && on; i++) {
      site *st = &m->sites[i];
      site_counts pool = {0};
      for (uint32_t c = 0; c < m->ncores; c++) {
        pool.racc[0] += st->c[c].racc[0];
        pool.rmiss[k] += st->c[c].rmiss[k];
      }
      double n0, x0, nt, xt, all, x = pool.racc[0] ? (double)pool.rmiss[k] / (double)pool.racc[0] : 0;
      site_blocks(m, st, k, traced, target, &n0, &x0, &nt, &xt, &all);
      now[i] = n0 > 0 && nt > 0 ? moved(x, x0 / n0, xt / nt) : moved(x, m->sh_now.from[k], m->sh_now.to[k]);
      tref[i] = all;
      sum += now[i] * all;
      total += all;
    }
    double f = sum > 0 ? m->sh_now.to[k] * total / sum : 1;
    for (size_t i = 0; i < m->nsites; i++)
      m->sites[i].target[k] = on && tref[i] > 0 ? fmin(1, f * now[i]) : NAN;
  }
  free(now);
  free(tref);
  shift next = m->sh_now;
  next.sites_on = on;
  return apply_shift(m, &next, err);
}

int ppt_progmodel_shift_tlb(ppt_progmodel *m, const double *from, const double *to, ppt_err *err) {
  int rc = check_ratios(from, to, m->rates.ntlb, "TLB", err);
  if (rc) return rc;
  shift next = m->sh_now;
  next.tlb_on = from && to && m->rates.ntlb > 0;
  for (uint32_t k = 0; next.tlb_on && k < m->rates.ntlb; k++) {
    next.tlb_from[k] = from[k];
    next.tlb_to[k] = to[k];
  }
  return apply_shift(m, &next, err);
}
