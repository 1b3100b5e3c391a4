/* models/progmodel/loops.c — chain-bound loops priced apart (docs/engine.md, "Chain-bound
 * loops"; ppt_tc_policy.loop_hide): the counters each loop keeps per site and core, the
 * phases' loop shares, and the memory items of a tasklist, one per loop under its chain
 * and one for the rest. progmodel.c streams the counts, shares.c derives the shares. */
#include <stdlib.h>
#include <string.h>

#include "ppt/tasklist.h"
#include "progmodel/progmodel_impl.h"

/* The counters of chain-bound loop slot `slot` on core `core` at site st (new ones at
 * the first time); NULL when out of memory. */
loop_counts *progmodel_loop_counts_for(ppt_progmodel *m, site *st, uint32_t core, uint32_t slot) {
  uint64_t key = (uint64_t)core * m->nloops + slot;
  size_t e = u64map_find(&st->loops, key);
  if (e != U64MAP_NONE) return &m->lc[st->loops.ents[e].val.u];
  if (m->nlc == m->lccap) {
    size_t nc = m->lccap ? 2 * m->lccap : 16;
    loop_counts *nl = realloc(m->lc, nc * sizeof *nl);
    if (!nl) return NULL;
    m->lc = nl;
    m->lccap = nc;
  }
  if ((e = u64map_insert(&st->loops, key, NULL)) == U64MAP_NONE) return NULL;
  st->loops.ents[e].val.u = m->nlc;
  memset(&m->lc[m->nlc], 0, sizeof m->lc[m->nlc]);
  return &m->lc[m->nlc++];
}

/* The chain-bound loops' shares of the phase just ended, every core, into *out (NULL:
 * dropped) and the accumulators back to zero; -1 when out of memory. */
int progmodel_take_segs(ppt_progmodel *m, loop_seg **out, uint32_t *nout) {
  uint32_t n = 0;
  for (uint32_t c = 0; c < m->ncores; c++) n += m->seg_n[c];
  loop_seg *v = out && n ? malloc(n * sizeof *v) : NULL;
  if (out && n && !v) return -1;
  uint32_t j = 0;
  for (uint32_t c = 0; c < m->ncores; c++) {
    for (uint32_t i = 0; i < m->seg_n[c]; i++) {
      loop_seg *g = &m->seg_acc[(size_t)c * m->nloops + m->seg_hit[(size_t)c * m->nloops + i]];
      if (v) v[j++] = *g;
      memset(g, 0, sizeof *g);
    }
    m->seg_n[c] = 0;
  }
  if (out) {
    *out = v;
    *nout = n;
  }
  return 0;
}

/* A memory item of `refs` references of `bytes` bytes in all, with shares sh, whose loop
 * runs `under` cycles of its chain and `exits` cycles of its mispredicted exits (0:
 * none). */
static int add_mem_item(const ppt_progmodel *m, ppt_tasklist *tl, double refs, double bytes, const shares *sh,
                        double under, double exits, ppt_err *err) {
  ppt_mem_access ma = {.accesses = refs,
                       .bytes_per_access = bytes / refs,
                       .block_bytes = m->line,
                       .under_cycles = under,
                       .under_exit_cycles = exits};
  if (ma.block_bytes < ma.bytes_per_access) ma.block_bytes = ma.bytes_per_access;
  memcpy(ma.prefetched, sh->prefetched, sizeof ma.prefetched);
  memcpy(ma.writeback, sh->writeback, sizeof ma.writeback);
  memcpy(ma.same_set_loads, sh->same_set_loads, sizeof ma.same_set_loads);
  memcpy(ma.same_set_stores, sh->same_set_stores, sizeof ma.same_set_stores);
  memcpy(ma.transfers, sh->transfers, sizeof ma.transfers);
  memcpy(ma.chased, sh->chased, sizeof ma.chased);
  memcpy(ma.chased_wait, sh->chased_wait, sizeof ma.chased_wait);
  return ppt_tasklist_add_hitrates(tl, &ma, m->nlevels, sh->local, err);
}

/* The memory items of counts c: one with the site's shares sh; or, when the policy
 * prices chain-bound loops apart (lp), one per such loop with the loop's own shares,
 * under its chain's cycles (docs/engine.md, "Chain-bound loops"), and one for the rest. */
int progmodel_add_memory(const ppt_progmodel *m, ppt_tasklist *tl, const counts *c, const shares *sh,
                         const progmodel_loop_part *lp, ppt_err *err) {
  if (!lp || !lp->nseg) return add_mem_item(m, tl, c->refs, c->bytes, sh, 0.0, 0.0, err);
  double refs = c->refs, bytes = c->bytes;
  int rc = 0;
  for (uint32_t i = 0; i < lp->nseg && !rc; i++) {
    const loop_seg *g = &lp->seg[i];
    const loop_counts *lc = lp->lc[i];
    if (g->core != lp->core || !lc || !(g->refs > 0)) continue;
    double r = g->refs * lp->scale, b = g->bytes * lp->scale;
    double exits = m->hw->branch_miss_cycles > 0 ? g->exits * lp->scale * m->hw->branch_miss_cycles : 0.0;
    rc = add_mem_item(m, tl, r, b, &lc->sh, g->inst * lp->scale * m->loop_chain[g->slot], exits, err);
    refs -= r;
    bytes -= b;
  }
  /* What the loops leave, less rounding: with nothing left no item. */
  if (!rc && refs > 1e-9 * c->refs && bytes > 0)
    rc = add_mem_item(m, tl, refs, bytes, lp->rest, 0.0, 0.0, err);
  return rc;
}
