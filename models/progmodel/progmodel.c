/* models/progmodel/progmodel.c — trace → regions × cores → tasklists (ppt/progmodel.h).
 * One pass of the mimic collects, per phase and core, the block instances and
 * references, while the interleaved stream runs through the exact cache simulation for
 * the hit rates; the tasklists are written once the rates are known, and the program
 * (ppt/program.h) strings them into regions. */
#include "ppt/progmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/block_cycles.h"
#include "ppt/program.h"
#include "ppt/tasklist.h"
#include "ppt/tracesim.h"
#include "progmodel/bpred.h"
#include "progmodel/progmodel_impl.h"

/* Chain-bound loops whose misses are kept apart (slot 0 is the rest): enough for any
 * kernel's inner loops; past it the others are priced with their sites. Each costs a
 * slot of cache counters per core in the simulation (~0.5 KiB). */
#define MAX_LOOPS 1024u

/* Maps ppt-cc's op-mix classes (enum ppt_op) to the core's op classes. Loads and stores
 * are issued by the load/store ports (their latency and bandwidth are the memory
 * model's). Vector ops are already counted in their scalar class: VINT/VFP/VWIDTH only
 * describe them. Casts, address arithmetic and calls (OTHER, CALL) are left out: they
 * fold into addressing modes or are counted in the callee's blocks. */
static void add_block(counts *c, const ppt_trace_bb *bb, double w) {
  c->ops[PPT_HW_IALU] += w * bb->ops[PPT_OP_IALU];
  c->ops[PPT_HW_IDIV] += w * bb->ops[PPT_OP_IDIV];
  c->ops[PPT_HW_FADD] += w * bb->ops[PPT_OP_FADD];
  c->ops[PPT_HW_FMUL] += w * bb->ops[PPT_OP_FMUL];
  /* Square roots (PPT_BB_EXT) are counted apart from the divides they are part of. */
  unsigned roots = ppt_trace_bb_sqrts(bb);
  c->ops[PPT_HW_FDIV] += w * (bb->ops[PPT_OP_FDIV] - roots);
  c->ops[PPT_HW_FSQRT] += w * roots;
  c->ops[PPT_HW_BRANCH] += w * bb->ops[PPT_OP_BRANCH];
  c->xcalls += w * bb->ops[PPT_OP_XCALL];
}

static void on_priv(void *arg, uint32_t core, const ppt_trace_rec *r, size_t n) {
  ppt_progmodel *m = arg;
  counts *c = &m->cur[core];
  for (size_t i = 0; i < n; i++) {
    if (m->counted && !m->counted[r[i].bb]) continue;
    /* The phase's site: its first counted block, or, when a phase begins inside a block
     * entered before it, that block (a reference carries its block). */
    if (!m->first[core]) m->first[core] = r[i].bb;
    uint32_t s = m->slot_of[r[i].bb];
    if (r[i].kind == PPT_REC_BB) {
      const ppt_trace_bb *bb = ppt_trace_bb_get(m->t, r[i].bb);
      const double w = m->w_inst[r[i].bb];
      if (bb) add_block(c, bb, w);
      if (m->run_bb[core] != r[i].bb) {
        m->run_bb[core] = r[i].bb;
        m->run_len[core] = 0;
      }
      c->core_extra += w * m->core[r[i].bb];
      /* The first executions of an entry whose recurrence starts afresh overlap the
       * last entry's (fresh_lead): their ops still issue, their chain waits not. */
      if (++m->run_len[core] > m->lead[r[i].bb]) {
        for (int k = 0; k < NCOMPUTE; k++) c->chain_extra[k] += w * m->extra[k][r[i].bb];
        if (s) progmodel_seg_of(m, core, s)->inst += w;
      }
    } else {
      const double w = m->w_refs[r[i].bb];
      if (!m->phase_refs[r[i].bb]) m->touched[m->ntouched++] = r[i].bb;
      m->phase_refs[r[i].bb] += 1;
      c->refs += w;
      c->bytes += w * r[i].size;
      c->ops[PPT_HW_LOADST] += w;
      if (s) {
        loop_seg *g = progmodel_seg_of(m, core, s);
        g->refs += w;
        g->bytes += w * r[i].size;
      }
    }
  }
}

/* A store into the heap or globals, in the interleaved order: is its line contended?
 * Stack references are the executing thread's own (the mimic's cores do not share the
 * traced thread's stack), so they never are. */
static void count_store(ppt_progmodel *m, uint32_t core, const ppt_trace_rec *r) {
  if (m->counted && !m->counted[r->bb]) return;
  counts *c = &m->cur[core];
  const double w = m->w_refs[r->bb];
  c->stores += w;
  if (progmodel_contend_store(m->ct, r->addr >> m->line_bits, core, m->pos)) c->contended += w;
}

/* Core `core` entered block bb. The predictor sees every block (in the interleaved
 * stream, where the level that served each load is known); a miss is charged to the
 * block whose branch it was, when that block is counted, and a branch on data also
 * waits for the load it tests (bpred.h), by the level that served it. */
static void judge_branch(ppt_progmodel *m, uint32_t core, uint32_t bb) {
  uint32_t prev = progmodel_bpred_current(m->bp, core);
  int miss = progmodel_bpred_enter(m->bp, core, bb, m->branchy[prev]);
  if (!miss || (m->counted && !m->counted[prev])) return;
  counts *c = &m->cur[core];
  c->mispredicts[miss == PPT_BPRED_LOOP_MISS] += m->w_inst[prev];
  if (miss == PPT_BPRED_LOOP_MISS && m->slot_of[prev])
    progmodel_seg_of(m, core, m->slot_of[prev])->exits += m->w_inst[prev];
  int waited = progmodel_bpred_waited(m->bp, core);
  if (miss == PPT_BPRED_MISS && waited > 0 && waited <= PPT_HW_MAX_LEVELS)
    c->miss_waits[waited] += m->w_inst[prev];
}

static void on_shared(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  ppt_progmodel *m = arg;
  for (size_t i = 0; i < n; i++) {
    int served = ppt_tracesim_tally_access(m->tally, cores[i], &r[i]);
    if (r[i].kind == PPT_REC_BB) judge_branch(m, cores[i], r[i].bb);
    /* A load a prefetcher covered was on its way: a branch on it waits as on a hit. */
    if (r[i].kind == PPT_REC_LOAD)
      progmodel_bpred_load(m->bp, cores[i], ppt_tracesim_tally_prefetched(m->tally) ? 0 : served);
    /* The clock and the table only serve contended lines (NULL ct: not counted). */
    if (!m->ct || r[i].kind == PPT_REC_BB) continue;
    m->pos++;
    if (r[i].kind == PPT_REC_STORE && !(r[i].flags & PPT_REC_STACK)) count_store(m, cores[i], &r[i]);
  }
}

/* How many executions at the start of each entry into block bb's loop run while the
 * last entry's recurrence drains (docs/engine.md, "Recurrences across entries"): 0
 * unless a recurrence through FP registers sets the block's pace (not its window, not a
 * cycle through memory) and starts afresh at each entry (ppt-cc's PPT_CHAIN_FRESH: a dot
 * product's s = 0). Then the next entry's ops enter the FP scheduler behind the last
 * entry's and its chain starts as soon as they do: the window (hwspec fp_window) holds
 * fp_window / F executions of F FP ops. mm2's k loop (392 trips of an fadd chain, 3 FP
 * ops a trip on the Zen 5 guest): 35 trips of each entry hidden, 9 %, where the
 * kernel takes 52.3-53.6 ms against 57.6 for its fadd chains end to end.
 * reg: the register recurrence's cycles a trip; carried: the slower of it and the one
 * through memory; chain: carried or the window's bound, the slower. */
static uint32_t fresh_lead(const ppt_hwspec *hw, const ppt_trace_bb *bb, const double ops[PPT_HW_NOPCLASS],
                           double reg, double carried, double chain) {
  double f = ops[PPT_HW_FADD] + ops[PPT_HW_FMUL] + ops[PPT_HW_FDIV] + ops[PPT_HW_FSQRT];
  if (!ppt_trace_bb_chain_fresh(bb) || !(hw->fp_window > 0) || !(f > 0) || !(carried > 0) ||
      carried < chain || reg < carried)
    return 0;
  return (uint32_t)floor(hw->fp_window / f);
}

/* Do blocks a and b start at one source position? */
static int same_place(const ppt_trace *t, uint32_t a, uint32_t b) {
  if (a == b) return 1;
  const ppt_trace_bb *x = ppt_trace_bb_get(t, a), *y = ppt_trace_bb_get(t, b);
  return x && y && x->line == y->line && !strcmp(x->func, y->func) && !strcmp(x->file, y->file);
}

/* The site of a phase whose first counted block is bb: found by source position the
 * first time a (block, kind) pair comes up, then remembered; -1 when out of memory. */
static int32_t site_for(ppt_progmodel *m, uint32_t bb, int parallel) {
  uint32_t nbbs = ppt_trace_nbbs(m->t);
  if (bb > nbbs) bb = 0;
  int32_t *slot = &m->site_of[2 * (size_t)bb + (unsigned)parallel];
  if (*slot >= 0) return *slot;
  for (size_t i = 0; i < m->nsites; i++)
    if (m->sites[i].parallel == parallel && same_place(m->t, m->sites[i].bb, bb)) return *slot = (int32_t)i;
  if (m->nsites == m->scap) {
    size_t nc = m->scap ? 2 * m->scap : 16;
    site *ns = realloc(m->sites, nc * sizeof *ns);
    if (!ns) return -1;
    m->sites = ns;
    m->scap = nc;
  }
  site_counts *c = calloc(m->ncores, sizeof *c);
  if (!c) return -1;
  m->sites[m->nsites] = (site){.parallel = parallel, .bb = bb, .c = c};
  u64map_init(&m->sites[m->nsites].blocks);
  u64map_init(&m->sites[m->nsites].loops);
  return *slot = (int32_t)m->nsites++;
}

void progmodel_add_take(site_counts *c, const ppt_tracesim_result *r) {
  for (uint32_t k = 0; k < r->nlevels; k++) {
    c->racc[k] += r->levels[k].ref_accesses;
    c->rmiss[k] += r->levels[k].ref_misses;
  }
  for (uint32_t k = 0; k <= r->nlevels; k++) {
    c->served[k] += r->served[k];
    c->served_stores[k] += r->served_stores[k];
    c->writebacks[k] += r->writebacks[k];
    c->prefetched[k] += r->prefetched[k];
    c->transfers[k] += r->transfers[k];
    c->same_set[k] += r->same_set[k];
    c->same_set_stores[k] += r->same_set_stores[k];
    c->chased[k] += r->chased[k];
    c->chased_wait[k] += r->chased_wait[k];
  }
  for (uint32_t j = 0; j <= r->ntlb; j++) c->tlb_served[j] += r->tlb_served[j];
  c->tlb_near += r->tlb_near;
  c->counted_refs += r->counted_refs;
}

/* Each core's cache counters of the phase just ended go to the phase's site. A phase
 * that is dropped (nothing counted) has no counted references either, so nothing of
 * the site counts is lost. */
static int take_phase(ppt_progmodel *m, ppt_region_kind kind, int keep, uint32_t *site_out) {
  uint32_t bb = 0;
  for (uint32_t c = 0; c < m->ncores && !bb; c++) bb = m->first[c];
  memset(m->first, 0, (size_t)m->ncores * sizeof *m->first);
  int32_t s = keep ? site_for(m, bb, kind != PPT_REGION_SERIAL) : 0;
  if (s < 0) return -1;
  ppt_tracesim_result r;
  for (uint32_t c = 0; c < m->ncores; c++) {
    ppt_tracesim_tally_take_slot(m->tally, c, 0, &r);
    if (keep) progmodel_add_take(&m->sites[s].c[c], &r);
    /* The chain-bound loops' counters go to the site too, and to the loop's own. */
    for (uint32_t i = 0; i < m->seg_n[c]; i++) {
      uint32_t slot = m->seg_hit[(size_t)c * m->nloops + i];
      ppt_tracesim_tally_take_slot(m->tally, c, slot, &r);
      if (!keep) continue;
      progmodel_add_take(&m->sites[s].c[c], &r);
      loop_counts *lc = progmodel_loop_counts_for(m, &m->sites[s], c, slot);
      if (!lc) return -1;
      progmodel_add_take(&lc->c, &r);
    }
  }
  /* Which blocks the site's references were in (problem-size scaling moves a site by
   * its blocks: ppt_progmodel_shift_sites). */
  for (size_t j = 0; j < m->ntouched; j++) {
    uint32_t b = m->touched[j];
    if (keep) {
      size_t e = u64map_insert(&m->sites[s].blocks, b, NULL);
      if (e == U64MAP_NONE) return -1;
      m->sites[s].blocks.ents[e].val.d += m->phase_refs[b];
    }
    m->phase_refs[b] = 0;
  }
  m->ntouched = 0;
  if (keep) m->sites[s].instances++;
  *site_out = (uint32_t)s;
  return 0;
}

static void on_phase_end(void *arg, ppt_region_kind kind) {
  ppt_progmodel *m = arg;
  if (m->failed) return;
  if (m->ct) progmodel_contend_next_phase(m->ct);
  int empty = 1;
  for (uint32_t c = 0; c < m->ncores && empty; c++)
    empty = m->cur[c].refs == 0 && m->cur[c].ops[PPT_HW_IALU] == 0;
  uint32_t site;
  if (take_phase(m, kind, !empty, &site)) {
    m->failed = 1;
    return;
  }
  /* The fork belongs to the region's first phase that is kept: an empty phase before a
   * loop must not turn the loop into a mere barrier. */
  if (kind == PPT_REGION_FORK) m->fork_pending = 1;
  if (empty) {
    progmodel_take_segs(m, NULL, NULL);
    return;
  }
  if (kind != PPT_REGION_SERIAL) {
    kind = m->fork_pending ? PPT_REGION_FORK : PPT_REGION_BARRIER;
    m->fork_pending = 0;
  }
  if (m->nph == m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 64;
    phase *np = realloc(m->ph, nc * sizeof *np);
    if (!np) {
      m->failed = 1;
      return;
    }
    m->ph = np;
    m->cap = nc;
  }
  phase *p = &m->ph[m->nph];
  p->kind = kind;
  p->site = site;
  p->c = malloc((size_t)m->ncores * sizeof *p->c);
  if (!p->c || progmodel_take_segs(m, &p->seg, &p->nseg)) {
    free(p->c);
    m->failed = 1;
    return;
  }
  memcpy(p->c, m->cur, (size_t)m->ncores * sizeof *p->c);
  memset(m->cur, 0, (size_t)m->ncores * sizeof *m->cur);
  m->nph++;
}

/* Cycles the data branches mispredicted in c waited for the loads they test beyond a
 * first-level hit (branch_miss_cycles was measured on branches whose loads hit there,
 * calib_branch.c): the level's load-to-use latency, memory's at the spec's clock. */
static double branch_waits(const ppt_progmodel *m, const counts *c) {
  const ppt_hwspec *hw = m->hw;
  double l1 = ppt_hwspec_level_latency(hw, 0), cycles = 0;
  for (uint32_t k = 1; k <= hw->nlevels; k++) {
    double lat = ppt_hwspec_level_latency(hw, k);
    if (c->miss_waits[k] > 0 && lat > l1) cycles += c->miss_waits[k] * (lat - l1);
  }
  return cycles;
}

static int make_tasklist(const ppt_progmodel *m, const counts *c, const shares *sh,
                         const progmodel_loop_part *lp, ppt_tasklist **out, ppt_err *err) {
  const double chain_extra = c->chain_extra[m->compute];
  ppt_tasklist *tl = ppt_tasklist_new();
  if (!tl) return ppt_err_set(err, PPT_ERUN, "out of memory");
  int rc = 0;
  for (int k = 0; k < PPT_HW_NOPCLASS && !rc; k++)
    if (c->ops[k] > 0) rc = ppt_tasklist_add_op(tl, (enum ppt_hw_opclass)k, c->ops[k], err);
  if (!rc && chain_extra > 0) rc = ppt_tasklist_add_cycles_as(tl, chain_extra, PPT_CPU_CHAIN, err);
  if (!rc && m->compute == PPT_COMPUTE_PORTS && c->core_extra > 0)
    rc = ppt_tasklist_add_cycles_as(tl, c->core_extra, PPT_CPU_CORE, err);
  /* Untraced library code (libm): PPT's CPU item, at the spec's cost of a call. */
  if (!rc && c->xcalls > 0 && m->call_cycles > 0)
    rc = ppt_tasklist_add_cycles_as(tl, c->xcalls * m->call_cycles, PPT_CPU_CALLS, err);
  /* Mispredicted branches flush the pipeline: the spec's cost of one, a CPU item. A
   * self-looping block's (a loop's exit on its induction variable) resolves without
   * waiting for memory, so its refill overlaps the misses in flight (PPT_CPU_LOOP_EXIT,
   * ppt_tc_policy_cycles); a branch on data waits for its load, then flushes. */
  static const ppt_tc_cpu miss_kind[2] = {PPT_CPU_BRANCH, PPT_CPU_LOOP_EXIT};
  for (int k = 0; k < 2 && !rc; k++)
    if (c->mispredicts[k] > 0 && m->hw->branch_miss_cycles > 0)
      rc = ppt_tasklist_add_cycles_as(
          tl, c->mispredicts[k] * m->hw->branch_miss_cycles + (k ? 0 : branch_waits(m, c)), miss_kind[k],
          err);
  /* Data-TLB misses: the translation must be found before the load can issue, so the
   * time of the walk (or of the next TLB level) is charged as CPU cycles, not as a
   * memory latency that the line-fill buffers (mlp) overlap: the core's page walkers
   * bound how many are pending (tlb[j].in_flight, in tlb_cycles_per_ref). */
  if (!rc && c->refs > 0 && sh->tlb_cycles > 0)
    rc = ppt_tasklist_add_cycles_as(tl, c->refs * sh->tlb_cycles, PPT_CPU_TLB, err);
  if (!rc && c->refs > 0) rc = progmodel_add_memory(m, tl, c, sh, lp, err);
  /* The share of the core's stores that found their line last written by another core
   * of the phase stands for the share of its work that takes turns on the line. */
  if (!rc && c->contended > 0 && c->stores > 0)
    rc = ppt_tasklist_add_contended(tl, fmin(1.0, c->contended / c->stores), err);
  if (rc) {
    ppt_tasklist_free(tl);
    return rc;
  }
  *out = tl;
  return 0;
}

static void scale_counts(counts *c, double f) {
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) c->ops[k] *= f;
  for (int k = 0; k < NCOMPUTE; k++) c->chain_extra[k] *= f;
  c->core_extra *= f;
  c->refs *= f;
  c->bytes *= f;
  c->xcalls *= f;
  c->mispredicts[0] *= f;
  c->mispredicts[1] *= f;
  for (int k = 0; k <= PPT_HW_MAX_LEVELS; k++) c->miss_waits[k] *= f;
  c->stores *= f;
  c->contended *= f;
}

/* How many regions the j-th phase of site s stands for. Weighted (problem-size scaling),
 * a site whose first block runs R = w_inst times as often at the target runs R times
 * as many phases: a block that opens a phase (an outlined region's entry, the code after
 * a fork returns) runs once per phase, so the k loop of lu or durbin, one region per k,
 * has R x as many regions, each paying its fork-join. The phases of the site are spread
 * evenly: phase j stands for floor((j+1)R) - floor(jR) regions, each with 1/that of its
 * (weighted) counts, so the work is unchanged. Unweighted, or R <= 1: one. */
static uint64_t copies(const ppt_progmodel *m, uint32_t s, uint64_t j) {
  double r = m->weighted ? m->w_inst[m->sites[s].bb] : 1.0;
  if (!(r > 1) || !isfinite(r)) return 1;
  r = fmin(r, 1e6);
  double a = floor((double)(j + 1) * r + 1e-9), b = floor((double)j * r + 1e-9);
  return a > b ? (uint64_t)(a - b) : 1;
}

/* The tasklists and the program for `policy`, from the phases' counts and the rates of
 * the simulation; all or nothing: on failure m keeps what it had. */
int ppt_progmodel_set_policy(ppt_progmodel *m, const ppt_tc_policy *policy, ppt_err *err) {
  ppt_tc_policy defp;
  if (!policy) {
    ppt_tc_policy_default(&defp);
    policy = &defp;
  }
  if ((int)policy->compute < 0 || (int)policy->compute >= NCOMPUTE)
    return ppt_err_set(err, PPT_EINPUT, "progmodel: unknown compute model %d", (int)policy->compute);
  ppt_compute_model was = m->compute;
  m->compute = policy->compute;
  size_t ntl = m->nph * m->ncores;
  ppt_tasklist **tls = calloc(ntl + 1, sizeof *tls);
  ppt_program *prog = ppt_program_new();
  uint64_t *seen = calloc(m->nsites + 1, sizeof *seen);
  int rc = tls && prog && seen ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < m->nph && !rc; i++) {
    phase *p = &m->ph[i];
    ppt_tasklist **tl = &tls[i * m->ncores];
    uint32_t nt = p->kind != PPT_REGION_SERIAL ? m->ncores : 1;
    const shares *sh = &m->sh[(size_t)p->site * m->ncores];
    uint64_t rep = copies(m, p->site, seen[p->site]++);
    const loop_counts **lcs = NULL;
    if (policy->loop_hide && p->nseg) {
      if (!(lcs = malloc(p->nseg * sizeof *lcs))) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
      for (uint32_t j = 0; lcs && j < p->nseg; j++) {
        size_t e =
            u64map_find(&m->sites[p->site].loops, (uint64_t)p->seg[j].core * m->nloops + p->seg[j].slot);
        lcs[j] = e == U64MAP_NONE ? NULL : &m->lc[m->sites[p->site].loops.ents[e].val.u];
      }
    }
    for (uint32_t c = 0; c < nt && !rc; c++) {
      counts one = p->c[c];
      if (rep > 1) scale_counts(&one, 1.0 / (double)rep);
      progmodel_loop_part lp = {p->seg,           lcs, p->nseg, c, &m->rest[(size_t)p->site * m->ncores + c],
                                1.0 / (double)rep};
      rc = make_tasklist(m, &one, &sh[c], lcs ? &lp : NULL, &tl[c], err);
    }
    free(lcs);
    for (uint64_t j = 0; j < rep && !rc; j++) {
      if (p->kind == PPT_REGION_FORK)
        rc = ppt_program_add_parallel(prog, nt, (const ppt_tasklist *const *)tl, err);
      else if (p->kind == PPT_REGION_BARRIER)
        rc = ppt_program_add_after_barrier(prog, nt, (const ppt_tasklist *const *)tl, err);
      else
        rc = ppt_program_add_serial(prog, tl[0], err);
    }
  }
  free(seen);
  if (rc) {
    m->compute = was;
    if (tls)
      for (size_t i = 0; i < ntl; i++) ppt_tasklist_free(tls[i]);
    free(tls);
    ppt_program_free(prog);
    return rc;
  }
  ppt_program_free(m->prog);
  if (m->tl)
    for (size_t i = 0; i < ntl; i++) ppt_tasklist_free(m->tl[i]);
  free(m->tl);
  m->tl = tls;
  m->prog = prog;
  m->policy = *policy;
  return 0;
}

int ppt_progmodel_build(const ppt_trace *t, const ppt_hwspec *hw, const ppt_sasmm_opts *o,
                        const ppt_tc_policy *policy, const uint8_t *counted, ppt_progmodel **out,
                        ppt_err *err) {
  return ppt_progmodel_build_weighted(t, hw, o, policy, counted, NULL, out, err);
}

/* Block id b's weight: w[b], 1 where w is NULL. */
static double *weights(const double *w, uint32_t nbbs) {
  double *a = malloc(((size_t)nbbs + 1) * sizeof *a);
  for (uint32_t b = 0; a && b <= nbbs; b++) a[b] = w ? w[b] : 1.0;
  return a;
}

int ppt_progmodel_build_weighted(const ppt_trace *t, const ppt_hwspec *hw, const ppt_sasmm_opts *o,
                                 const ppt_tc_policy *policy, const uint8_t *counted,
                                 const ppt_progmodel_weights *w, ppt_progmodel **out, ppt_err *err) {
  ppt_tc_policy defp;
  if (!policy) {
    ppt_tc_policy_default(&defp);
    policy = &defp;
  }
  ppt_progmodel *m = calloc(1, sizeof *m);
  if (!m) return ppt_err_set(err, PPT_ERUN, "out of memory");
  m->ncores = o->ncores;
  m->nlevels = hw->nlevels;
  m->t = t;
  m->counted = counted;
  m->line = hw->levels[0].line;
  m->call_cycles = hw->call_cycles;
  m->hw = hw;
  m->cur = calloc(o->ncores, sizeof *m->cur);
  uint32_t nbbs = ppt_trace_nbbs(t);
  m->first = calloc(o->ncores, sizeof *m->first);
  m->site_of = malloc(2 * ((size_t)nbbs + 1) * sizeof *m->site_of);
  if (m->site_of) memset(m->site_of, 0xff, 2 * ((size_t)nbbs + 1) * sizeof *m->site_of); /* all -1 */
  m->phase_refs = calloc((size_t)nbbs + 1, sizeof *m->phase_refs);
  m->touched = malloc(((size_t)nbbs + 1) * sizeof *m->touched);
  int got = m->first && m->site_of && m->phase_refs && m->touched;
  for (int k = 0; k < NCOMPUTE; k++)
    got &= (m->extra[k] = calloc((size_t)nbbs + 1, sizeof *m->extra[k])) != NULL;
  got &= (m->core = calloc((size_t)nbbs + 1, sizeof *m->core)) != NULL;
  m->bp = progmodel_bpred_new(o->ncores, nbbs);
  /* Contended lines (progmodel/contend.h): a store that finds its line stored into by
   * another core less than a transfer ago (coherence_cycles; a core issues at most one
   * reference a cycle, so the interleaved stream advances at most ncores positions a
   * cycle). 2^18 lines (6 MiB of table) remember 16 MiB of lines written in a phase.
   * One core has nobody to contend with, and without both figures the turns cannot be
   * priced (engine/node.c). */
  while ((1u << m->line_bits) < hw->levels[0].line) m->line_bits++;
  if (o->ncores > 1 && hw->coherence_cycles > 0 && hw->contention_factor > 0)
    got &= (m->ct = progmodel_contend_new(18, (uint64_t)ceil(o->ncores * hw->coherence_cycles))) != NULL;
  m->branchy = calloc((size_t)nbbs + 1, 1);
  m->lead = calloc((size_t)nbbs + 1, sizeof *m->lead);
  m->run_bb = calloc(o->ncores, sizeof *m->run_bb);
  m->run_len = calloc(o->ncores, sizeof *m->run_len);
  got &= m->lead && m->run_bb && m->run_len;
  m->slot_of = calloc((size_t)nbbs + 1, sizeof *m->slot_of);
  m->loop_chain = calloc(MAX_LOOPS, sizeof *m->loop_chain);
  got &= m->slot_of && m->loop_chain;
  m->nloops = 1; /* slot 0: every block that is not a chain-bound loop */
  m->weighted = w && w->instances;
  m->w_inst = weights(w ? w->instances : NULL, nbbs);
  m->w_refs = weights(w ? w->refs : NULL, nbbs);
  got &= m->w_inst && m->w_refs;
  int rc = got && m->cur && m->bp && m->branchy ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  /* A block that loops to itself with a loop-carried recurrence (ppt-cc's PPT_OP_CHAIN_*)
   * runs at best at the recurrence's latency per iteration, whatever the core's
   * throughput: an iteration cannot start the cycle before the previous one closed it.
   * What the block's own issue time covers depends on the compute model: both are kept,
   * so that one simulation serves every policy (ppt_progmodel_set_policy). */
  for (uint32_t b = 1; !rc && b <= nbbs; b++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, b);
    m->branchy[b] = bb->ops[PPT_OP_BRANCH] > 0;
    counts one = {0};
    add_block(&one, bb, 1.0);
    /* The slowest of the loop-carried recurrences (through registers, through memory)
     * and the in-block chain's window bound. */
    double reg = cpu_chain_cycles(hw, bb), carried = fmax(reg, cpu_mem_chain_cycles(hw, bb));
    double chain = fmax(carried, cpu_window_cycles(hw, bb, one.ops));
    /* The block on the host's core as llvm-mca models it (ppt-cc, apps/ppt-cc/mca.h):
     * pipes shared between classes, the scheduler's reach over chains. A bound the
     * ports model cannot see (falseshare's hash: 4.81 cycles a trip against 3.7). */
    double core = hw->block_cycles ? bb->core_cycles16 / 16.0 : 0.0;
    if (chain <= 0 && core <= 0) continue;
    one.ops[PPT_HW_LOADST] = bb->ops[PPT_OP_LOAD] + bb->ops[PPT_OP_STORE];
    for (int k = 0; k < NCOMPUTE; k++) {
      ppt_tc_policy pk = *policy;
      pk.compute = (ppt_compute_model)k;
      double thr = ppt_tc_ops_cycles(hw, &pk, one.ops);
      m->extra[k][b] = chain > thr ? chain - thr : 0;
      if (k == PPT_COMPUTE_PORTS) m->core[b] = fmax(0.0, core - fmax(thr, chain));
    }
    m->lead[b] = fresh_lead(hw, bb, one.ops, reg, carried, chain);
    /* A chain-bound loop (a loop-carried recurrence sets its pace, beyond its ports and
     * its window): its misses are kept apart, to overlap its own chain (docs/engine.md,
     * "Chain-bound loops"). A block held back by its window is not: the window full of
     * the chain's ops is what stops the loads of later iterations from issuing. Past
     * MAX_LOOPS such blocks the rest are priced with their sites. */
    if (m->extra[PPT_COMPUTE_PORTS][b] > 0 && carried >= chain && m->nloops < MAX_LOOPS) {
      m->slot_of[b] = m->nloops;
      m->loop_chain[m->nloops++] = carried;
    }
  }
  if (!rc) {
    m->seg_acc = calloc((size_t)o->ncores * m->nloops, sizeof *m->seg_acc);
    m->seg_hit = calloc((size_t)o->ncores * m->nloops, sizeof *m->seg_hit);
    m->seg_n = calloc(o->ncores, sizeof *m->seg_n);
    if (!m->seg_acc || !m->seg_hit || !m->seg_n) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  if (!rc) rc = ppt_tracesim_tally_new(hw, o->ncores, counted, ppt_trace_nbbs(t), o->seed, &m->tally, err);
  if (!rc) ppt_tracesim_tally_coherence(m->tally, o->coherence);
  if (!rc) rc = ppt_tracesim_tally_chase(m->tally, t, err);
  if (!rc && m->nloops > 1) rc = ppt_tracesim_tally_split(m->tally, m->nloops, m->slot_of, err);
  if (!rc) {
    ppt_sasmm_opts so = *o;
    so.private_only = so.shared_only = 0;
    ppt_sasmm_sink sink = {.priv = on_priv, .shared = on_shared, .phase_end = on_phase_end, .arg = m};
    rc = ppt_sasmm_mimic(t, &so, &sink, &m->mimic_stats, err);
  }
  if (!rc && m->failed) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  if (!rc) {
    ppt_tracesim_tally_result(m->tally, o->ncores, &m->rates);
    if (progmodel_derive_all(m)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  if (!rc) {
    rc = ppt_progmodel_set_policy(m, policy, err);
  }
  if (rc) {
    ppt_progmodel_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

void ppt_progmodel_free(ppt_progmodel *m) {
  if (!m) return;
  if (m->tl)
    for (size_t i = 0; i < m->nph * m->ncores; i++) ppt_tasklist_free(m->tl[i]);
  for (size_t i = 0; i < m->nph; i++) {
    free(m->ph[i].c);
    free(m->ph[i].seg);
  }
  free(m->ph);
  free(m->tl);
  free(m->cur);
  free(m->first);
  free(m->site_of);
  for (size_t i = 0; i < m->nsites; i++) {
    free(m->sites[i].c);
    u64map_free(&m->sites[i].blocks);
    u64map_free(&m->sites[i].loops);
  }
  free(m->rest);
  free(m->lc);
  free(m->slot_of);
  free(m->loop_chain);
  free(m->seg_acc);
  free(m->seg_hit);
  free(m->seg_n);
  free(m->phase_refs);
  free(m->touched);
  free(m->sites);
  free(m->sh);
  for (int k = 0; k < NCOMPUTE; k++) free(m->extra[k]);
  free(m->core);
  progmodel_bpred_free(m->bp);
  progmodel_contend_free(m->ct);
  free(m->branchy);
  free(m->lead);
  free(m->run_bb);
  free(m->run_len);
  free(m->w_inst);
  free(m->w_refs);
  ppt_program_free(m->prog);
  ppt_tracesim_tally_free(m->tally);
  free(m);
}

const ppt_program *ppt_progmodel_program(const ppt_progmodel *m) {
  return m->prog;
}
const ppt_sasmm_stats *ppt_progmodel_mimic_stats(const ppt_progmodel *m) {
  return &m->mimic_stats;
}

const ppt_tracesim_result *ppt_progmodel_hitrates(const ppt_progmodel *m) {
  return &m->rates;
}
size_t ppt_progmodel_nregions(const ppt_progmodel *m) {
  return m->nph;
}

size_t ppt_progmodel_nsites(const ppt_progmodel *m) {
  return m->nsites;
}

uint32_t ppt_progmodel_phase_site(const ppt_progmodel *m, size_t phase) {
  return phase < m->nph ? m->ph[phase].site : UINT32_MAX;
}

/* The block that holds most of a site's counted references (the lowest id of equals), or
 * its first block when it counted none: what the site is named after. A serial site that
 * begins in a static constructor or an iostream header but spends its time in a matrix
 * generation loop is that loop. */
static uint32_t busiest_block(const site *s) {
  uint32_t best = s->bb;
  double most = 0;
  for (size_t e = 0; e < u64map_cap(&s->blocks); e++) {
    uint64_t b = s->blocks.ents[e].key;
    double n = s->blocks.ents[e].val.d;
    if (b == U64MAP_EMPTY) continue;
    if (n > most || (n == most && n > 0 && b < best)) {
      most = n;
      best = (uint32_t)b;
    }
  }
  return best;
}

int ppt_progmodel_site(const ppt_progmodel *m, size_t i, uint32_t core, ppt_progmodel_site_info *out) {
  if (i >= m->nsites || (core != PPT_PROGMODEL_ALL_CORES && core >= m->ncores)) return PPT_EINPUT;
  const site *s = &m->sites[i];
  const ppt_trace_bb *bb = ppt_trace_bb_get(m->t, busiest_block(s));
  memset(out, 0, sizeof *out);
  /* the function whose source the site's file:line is: for inlined code the innermost
   * function it came from (a kernel inlined into main is named as the kernel) */
  out->function = bb && bb->ninl ? bb->inl[0].func : bb && bb->func ? bb->func : "";
  out->file = bb && bb->file ? bb->file : "";
  out->line = bb ? bb->line : 0;
  out->bb = s->bb;
  out->parallel = s->parallel;
  out->instances = s->instances;
  out->nlevels = m->nlevels;
  for (uint32_t c = 0; c < m->ncores; c++) {
    if (core != PPT_PROGMODEL_ALL_CORES && c != core) continue;
    for (uint32_t k = 0; k < m->nlevels; k++) {
      out->accesses[k] += s->c[c].racc[k];
      out->misses[k] += s->c[c].rmiss[k];
    }
    out->counted_refs += s->c[c].counted_refs;
  }
  for (uint32_t k = 0; k < m->nlevels; k++) {
    out->hit_rate[k] = out->accesses[0] ? 1.0 - (double)out->misses[k] / (double)out->accesses[0] : NAN;
    out->local_hit_rate[k] = out->accesses[k] ? 1.0 - (double)out->misses[k] / (double)out->accesses[k] : NAN;
  }
  if (core != PPT_PROGMODEL_ALL_CORES) {
    const shares *sh = &m->sh[i * m->ncores + core];
    memcpy(out->used_local, sh->local, sizeof out->used_local);
    for (uint32_t k = 0; k <= m->nlevels; k++) {
      out->used_prefetched[k] = sh->prefetched[k];
      out->used_same_set[k] = sh->same_set_loads[k] + sh->same_set_stores[k];
    }
  }
  return 0;
}
