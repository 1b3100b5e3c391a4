/* models/cpu/time_compute.c — PPT's time_compute: a tasklist's time on one core.
 *
 * Compute: each op item costs count / throughput cycles (hwspec ops[].per_cycle), and
 * the classes add up, as in PPT's processor models.
 *
 * Memory (AMM §3.3): with local hit rates h_1..h_L, a reference is served at level k
 * with probability w_k = h_k Π_{j<k} (1 − h_j), and by DRAM with Π_j (1 − h_j). Eq. 5,
 * generalised from two levels to L,
 *     λ = Σ_k w_k λ_k + w_DRAM λ_DRAM,      β = Σ_k w_k β_k + w_DRAM β_DRAM,
 * where λ_k is the level's load-to-use latency and β_k = bytes_per_access / bandwidth_k
 * its reciprocal throughput per access. Eq. 4: T_mem = (λ + (b − 1) β) / b × accesses:
 * the first access of each block of b waits the full latency, the other b − 1 stream.
 * Both terms are linear in w, so they are charged to the level that serves the access;
 * the engine uses that split to send the streamed bytes of shared levels through
 * SimGrid links (engine/).
 *
 * Memory-level parallelism: an out-of-order core keeps hwspec.mlp misses in flight
 * (line-fill buffers), so the latency term of Eq. 4 is divided by mlp (AMM has none:
 * mlp absent = 1, AMM exactly); the bandwidth term is not, bandwidth being shared.
 *
 * Loads that wait for loads (a pointer chase, a search: ppt_mem_access.chased) have as
 * many misses in flight as their loop has independent chains, and the core waits them
 * out: the next step's address, and the compute on it, need the value.
 *
 * Overlap: T = Tc + Tm − f · min(Tc, Tm) with f from the policy, Tm without the chased
 * loads' waits, which add to T whole. */
#include <math.h>
#include <string.h>

#include "cpu/tasklist_impl.h"
#include "ppt/sdcm.h"

/* Timing figures of memory level k (k == nlevels: DRAM), in cycles and bytes/cycle. */
typedef struct mem_level {
  double lat, bw; /* bw: as one core draws it (ppt_hwspec_core_bw) */
  double all;     /* the instance's bandwidth (the socket's for DRAM) */
  /* A written-back line's cost in line fills, of bw and of all (DRAM: the spec's
   * ppt_hwspec_dram_wb_cost; caches: 0 and 1). */
  double wb_core, wb_all;
} mem_level;

/* What the tasklist needs from the hardware, checked lazily so that a tasklist of only
 * ops runs on a spec without memory timings, and vice versa. */
typedef struct tc_ctx {
  const ppt_hwspec *hw;
  mem_level lv[PPT_TC_MAX_MEM];
  int hier_ok; /* every level's latency and bandwidth present */
  double local_num[PPT_HW_MAX_LEVELS], local_den[PPT_HW_MAX_LEVELS];
  double served[PPT_TC_MAX_MEM];
  double lambda_sum, beta_sum;
  double mlp;                         /* misses in flight, >= 1 */
  double mlp_set_load, mlp_set_store; /* the same for misses queued on one set (>= 1) */
  double coherence;                   /* cycles per cache-to-cache transfer; 0: unknown */
  ppt_memory_model memory;
  double loop_fraction; /* the policy's: how much a chain-bound loop overlaps its misses */
} tc_ctx;

static const char *hwname(const ppt_hwspec *hw) {
  return hw->name[0] ? hw->name : "hwspec";
}

static int need_level(tc_ctx *c, uint32_t k, int need_bw, ppt_err *err) {
  const ppt_hwspec *hw = c->hw;
  if (k == hw->nlevels) {
    if (!(hw->dram_latency_ns > 0) || (need_bw && !(hw->dram_bw_bytes_per_s > 0)))
      return ppt_err_set(err, PPT_EINPUT, "%s: no timing data: dram latency/bandwidth missing", hwname(hw));
    return 0;
  }
  const ppt_hw_level *lv = &hw->levels[k];
  if (!(lv->latency_cycles > 0) || (need_bw && !(lv->bw_bytes_per_cycle > 0)))
    return ppt_err_set(err, PPT_EINPUT,
                       "%s: no timing data: levels[%u] latency_cycles/bw_bytes_per_cycle missing", hwname(hw),
                       k);
  return 0;
}

static int need_op(const ppt_hwspec *hw, int cls, ppt_err *err) {
  /* Own names (the JSON keys) so the core model does not link the hwspec parser. */
  static const char *const names[PPT_HW_NOPCLASS] = {"ialu", "idiv",   "fadd",   "fmul",
                                                     "fdiv", "branch", "loadst", "fsqrt"};
  if (!(hw->ops[cls].per_cycle > 0))
    return ppt_err_set(err, PPT_EINPUT, "%s: no timing data: ops.%s per_cycle missing", hwname(hw),
                       names[cls]);
  return 0;
}

static int need_hierarchy(tc_ctx *c, ppt_err *err) {
  if (c->hier_ok) return 0;
  for (uint32_t k = 0; k <= c->hw->nlevels; k++) {
    int rc = need_level(c, k, 1, err);
    if (rc) return rc;
  }
  c->hier_ok = 1;
  return 0;
}

/* PIPE: the levels move their lines at the same time, each over its own port, so an
 * item's transfers take as long as the busiest level's (the bottleneck), while its
 * misses share one pool of misses in flight, so their waits add up: the item costs
 * max(Σ_k waiting_k, max_k transfer_k). The bottleneck level is charged the transfer
 * and streams its bytes (the engine shares them between cores); the others' transfers
 * hide under it. What the waits add beyond the transfer goes to the levels in
 * proportion to their waits. */
static void pipe_levels(ppt_tc_stats *st, uint32_t L, const double *wait, const double *xfer,
                        const double *bytes, const double *fill) {
  double W = 0, X = 0;
  uint32_t kmax = 0;
  for (uint32_t k = 1; k <= L; k++) {
    W += wait[k];
    if (xfer[k] > X) {
      X = xfer[k];
      kmax = k;
    }
  }
  if (kmax) {
    st->level[kmax].bw_cycles += X;
    st->level[kmax].bytes += bytes[kmax];
    st->level[kmax].fill_bytes += fill[kmax];
  }
  double extra = W > X ? W - X : 0.0;
  for (uint32_t k = 1; k <= L && extra > 0; k++) st->level[k].latency_cycles += extra * wait[k] / W;
}

/* Memory cycles charged to the levels so far, and of them the transfers (*xfer). */
static double level_cycles(const ppt_tc_stats *st, uint32_t L, double *xfer) {
  double t = 0;
  *xfer = 0;
  for (uint32_t k = 0; k <= L; k++) {
    t += st->level[k].latency_cycles + st->level[k].bw_cycles;
    *xfer += st->level[k].bw_cycles;
  }
  return t;
}

/* Of an access served at level k, the latency share its chased loads wait: each chain's
 * misses one after the other, chains in flight at most mlp (ppt_mem_access.chased). */
static double chased_wait(const tc_ctx *c, const ppt_mem_access *m, uint32_t k) {
  return fmax(m->chased_wait[k], m->chased[k] / c->mlp);
}

/* One memory item (AMM Eq. 4–5) with local hit rates h[0..nlevels-1]. */
static void mem_item(tc_ctx *c, const ppt_mem_access *m, const double *h, ppt_tc_stats *st) {
  uint32_t L = c->hw->nlevels;
  double n = m->accesses, s = m->bytes_per_access;
  double b = m->block_bytes / m->bytes_per_access;
  /* The levels' cycles before the item, where what it adds must be told apart: a
   * chain-bound loop's, or an item with chased loads. */
  int chases = 0;
  for (uint32_t k = 0; k <= L; k++) chases |= m->chased[k] > 0;
  double lam = 0, beta = 0, reach = 1.0, before_xfer = 0, chased = 0,
         before = m->under_cycles > 0 || chases ? level_cycles(st, L, &before_xfer) : 0.0;
  double pipe_wait[PPT_TC_MAX_MEM] = {0}, pipe_xfer[PPT_TC_MAX_MEM] = {0}, pipe_bytes[PPT_TC_MAX_MEM] = {0},
         pipe_fill[PPT_TC_MAX_MEM] = {0};
  for (uint32_t k = 0; k <= L; k++) {
    double w = k < L ? reach * h[k] : reach;
    if (k < L) {
      c->local_num[k] += n * reach * h[k];
      c->local_den[k] += n * reach;
      reach *= 1.0 - h[k];
    }
    ppt_tc_level_stats *ls = &st->level[k];
    ls->accesses += w * n;
    c->served[k] += w * n;
    if (c->memory != PPT_MEMORY_AMM) {
      /* One line per access served beyond L1; the latency only where no prefetcher
       * had asked for the line already. Level k also takes back the dirty lines of
       * the item's stores (ppt_mem_access.writeback): bandwidth, no waiting. */
      double line = m->block_bytes, wait = k == 0 ? 0.0 : 1.0 - m->prefetched[k];
      double bk = line / c->lv[k].bw;
      if (k > 0) {
        /* Little's law: with mlp misses in flight a level delivers a line every lat/mlp
         * cycles, its bandwidth one every bk; the slower bound is the cost, charged as
         * the transfer (the engine shares it between cores) plus what the waiting adds. */
        /* Lines in and out of level k as the instance counts them, and as the core's
         * own cap does. */
        double moved = w * n + c->lv[k].wb_all * m->writeback[k] * n,
               own = w * n + c->lv[k].wb_core * m->writeback[k] * n;
        /* Misses queued on one first-level set overlap less (cache/missq.h): theirs is
         * the hwspec's mlp_same_set, loads and stores apart. */
        double bl = m->same_set_loads[k], bs = m->same_set_stores[k];
        double per_miss = (1.0 - bl - bs) / c->mlp + bl / c->mlp_set_load + bs / c->mlp_set_store;
        /* Loads that wait for loads (ppt_mem_access.chased) issue one chain step at a
         * time: as many of their misses are in flight as the loop has independent
         * chains, at most mlp; the others overlap as before. */
        per_miss = chased_wait(c, m, k) + (1.0 - m->chased[k]) * per_miss;
        /* A cache-to-cache transfer is a miss whose latency is coherence_cycles (the line
         * comes from another core's cache), overlapped like the others but never hidden
         * by a prefetcher: each holds a miss buffer for the whole snoop, so mlp of them
         * in flight bound their rate (Little's law) however early they were asked for.
         * durbin's update region at 2 threads, whose reversed read takes half of the
         * row the other thread wrote (k/16 lines a region), takes 2.2-3.4 us a region
         * more than at 1 thread beyond its fork-join, natively; k/16 x coherence / mlp
         * = 3.3 us on a spec of the same hour, where transfers hidden by the prefetcher
         * would cost nothing. */
        double x = c->coherence > 0 ? m->transfers[k] : 0.0;
        /* One core's cap (its line-fill buffers, Little's law) bounds the lines its misses
         * bring in; its write-backs may hold those buffers too, or leave through the write
         * buffers meanwhile. A cache level's count against the instance only (one core of
         * a Zen 5 host: a read stream ~26 GB/s; a copy 33 GB/s in + 17 out; triad 37 in +
         * 12 out); DRAM's cost what the spec says (dram.*writeback_cost, in line
         * fills; absent, the same: 0 for the core, 1 for the socket). */
        double transfer = fmax(own * bk, moved * line / c->lv[k].all),
               waiting = w * n * (wait * (1.0 - x) * c->lv[k].lat * per_miss + x * c->coherence / c->mlp);
        chased += w * n * wait * (1.0 - x) * c->lv[k].lat * chased_wait(c, m, k);
        if (c->memory == PPT_MEMORY_PIPE) {
          pipe_wait[k] = waiting;
          pipe_xfer[k] = transfer;
          pipe_bytes[k] = moved * line;
          pipe_fill[k] = own * line;
        } else {
          ls->latency_cycles += fmax(0.0, waiting - transfer);
          ls->bw_cycles += transfer;
          ls->bytes += moved * line;
          ls->fill_bytes += own * line;
        }
        beta += w * bk + m->writeback[k] * bk;
      }
      /* A chased load that hits the first level still waits its load-to-use latency
       * before the next step's address is known. */
      if (k == 0) {
        double hit = w * n * chased_wait(c, m, 0) * c->lv[0].lat;
        ls->latency_cycles += hit;
        chased += hit;
      }
      lam += k > 0 ? w * wait * c->lv[k].lat : 0.0;
      continue;
    }
    double bk = s / c->lv[k].bw;
    ls->latency_cycles += w * c->lv[k].lat * n / b / c->mlp;
    ls->bw_cycles += w * bk * n * (b - 1.0) / b;
    ls->bytes += w * s * n * (b - 1.0) / b;
    ls->fill_bytes += w * s * n * (b - 1.0) / b;
    lam += w * c->lv[k].lat;
    beta += w * bk;
  }
  if (c->memory == PPT_MEMORY_PIPE) pipe_levels(st, L, pipe_wait, pipe_xfer, pipe_bytes, pipe_fill);
  /* The chased waits of the item, as far as its memory cycles hold them (a transfer
   * bound may hide them); a chain-bound loop's are its own (st->loops). */
  if (chases && !(m->under_cycles > 0)) {
    double xfer;
    st->chased_cycles += fmin(chased, level_cycles(st, L, &xfer) - before);
  }
  /* A chain-bound loop's accesses: its chain and its own memory time overlap each other
   * by the policy's loop_fraction, and not the rest (ppt_tc_policy_loop_cycles). */
  if (m->under_cycles > 0) {
    double xfer, mem = level_cycles(st, L, &xfer) - before;
    xfer -= before_xfer;
    /* Its misses cover its own mispredicted exits first (ppt_tc_policy_cycles' hide). */
    double hid = fmin(m->under_exit_cycles, mem);
    st->loops.chain += m->under_cycles;
    st->loops.exits += m->under_exit_cycles;
    st->loops.memory += mem;
    st->loops.transfers += xfer;
    st->loops.overlap += hid + c->loop_fraction * fmin(m->under_cycles, mem - hid);
  }
  c->lambda_sum += lam * n;
  c->beta_sum += beta * n;
  st->mem_accesses += n;
}

/* Local hit rates of a MEM_ACCESS item: the SDCM (AMM Eq. 1, SASMM Eq. 5–7) on each
 * level's profile gives its global rate under inclusion; ppt_sdcm_hierarchy_hw turns
 * them into the local rates Eq. 5 nests (models/cache, docs/cache.md). */
static int profile_local_hits(const ppt_hwspec *hw, const tl_item *it, double *h, ppt_err *err) {
  ppt_sdcm_profile prof[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const tl_profile *p = &it->profiles[k < it->nrates ? k : it->nrates - 1];
    prof[k] = (ppt_sdcm_profile){p->dist, p->count, p->n, p->inf_count};
  }
  ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
  int rc = ppt_sdcm_hierarchy_hw(hw, prof, rates, err);
  if (rc) return rc;
  for (uint32_t k = 0; k < hw->nlevels; k++)
    /* NaN: no reference reaches level k, so its rate has weight 0 in Eq. 5. */
    h[k] = isnan(rates[k].local_hit_rate) ? 0.0 : rates[k].local_hit_rate;
  return 0;
}

/* Issue slots of a vector item: a vector wider than the core's registers is split. */
static int vector_issues(const ppt_hwspec *hw, const tl_item *it, double *out, ppt_err *err) {
  if (it->width == 0) {
    *out = it->n;
    return 0;
  }
  if (hw->vector_bits == 0)
    return ppt_err_set(err, PPT_EINPUT, "%s: vector item of %u bits but vector_bits is missing", hwname(hw),
                       it->width);
  *out = it->n * (double)((it->width + hw->vector_bits - 1) / hw->vector_bits);
  return 0;
}

static int item_time(tc_ctx *c, const tl_item *it, double *footprint, ppt_tc_stats *st, ppt_err *err) {
  const ppt_hwspec *hw = c->hw;
  int rc = 0;
  switch (it->kind) {
    case TL_OP: {
      int rate = tc_op_rate_class(hw, it->cls);
      if ((rc = need_op(hw, rate, err))) return rc;
      st->op_cycles[tc_op_port(it->cls)] += it->n / hw->ops[rate].per_cycle;
      return 0;
    }
    case TL_INTVEC:
    case TL_VECTOR: {
      int cls = it->kind == TL_INTVEC ? PPT_HW_IALU : PPT_HW_FADD;
      double issues = 0;
      if ((rc = need_op(hw, cls, err)) || (rc = vector_issues(hw, it, &issues, err))) return rc;
      double cyc = issues / hw->ops[cls].per_cycle;
      st->op_cycles[cls] += cyc;
      *(it->kind == TL_INTVEC ? &st->intvec_cycles : &st->vector_cycles) += cyc;
      return 0;
    }
    case TL_CYCLES:
      st->cpu_cycles += it->n;
      st->cpu_by[it->cls] += it->n;
      return 0;
    case TL_HITRATES:
      if (it->nrates != hw->nlevels)
        return ppt_err_set(err, PPT_EINPUT, "%s: HITRATES item has %zu levels, the hierarchy %u", hwname(hw),
                           it->nrates, hw->nlevels);
      if ((rc = need_hierarchy(c, err))) return rc;
      mem_item(c, &it->mem, it->rates, st);
      return 0;
    case TL_PROFILE: {
      if ((rc = need_hierarchy(c, err))) return rc;
      double h[PPT_HW_MAX_LEVELS];
      if ((rc = profile_local_hits(hw, it, h, err))) return rc;
      mem_item(c, &it->mem, h, st);
      return 0;
    }
    case TL_LEVEL:
      if (it->level > hw->nlevels)
        return ppt_err_set(err, PPT_EINPUT, "%s: access to memory level %u, hierarchy has %u + DRAM",
                           hwname(hw), it->level, hw->nlevels);
      if ((rc = need_level(c, it->level, 0, err))) return rc;
      st->level[it->level].accesses += it->n;
      st->level[it->level].latency_cycles += it->n * c->lv[it->level].lat;
      return 0;
    case TL_ALLOC:
      if ((rc = need_level(c, hw->nlevels, 0, err))) return rc;
      st->alloc_cycles += c->lv[hw->nlevels].lat; /* PPT: one RAM access per allocation */
      *footprint += it->n;
      if (*footprint > st->footprint_peak) st->footprint_peak = *footprint;
      return 0;
    case TL_UNALLOC: *footprint = *footprint > it->n ? *footprint - it->n : 0.0; return 0;
    case TL_CONTENDED: st->contended_share = fmin(1.0, st->contended_share + it->n); return 0;
  }
  return ppt_err_set(err, PPT_ERUN, "time_compute: corrupt tasklist item");
}

int ppt_time_compute(const ppt_hwspec *hw, const ppt_tasklist *tl, const ppt_tc_policy *policy,
                     ppt_tc_stats *out, ppt_err *err) {
  if (!hw || !tl || !out) return ppt_err_set(err, PPT_EINPUT, "time_compute: NULL argument");
  memset(out, 0, sizeof *out);
  ppt_tc_policy defp;
  if (!policy) {
    ppt_tc_policy_default(&defp);
    policy = &defp;
  }
  double f = ppt_tc_policy_fraction(policy);
  if (!(f >= 0 && f <= 1))
    return ppt_err_set(err, PPT_EINPUT, "time_compute: overlap fraction %g not in [0, 1]", f);
  if (hw->nlevels > PPT_HW_MAX_LEVELS)
    return ppt_err_set(err, PPT_EINPUT, "%s: %u cache levels, at most %d", hwname(hw), hw->nlevels,
                       PPT_HW_MAX_LEVELS);
  if (!(hw->clock_hz > 0))
    return ppt_err_set(err, PPT_EINPUT, "%s: no timing data: clock is missing", hwname(hw));

  if (!ppt_tc_compute_name(policy->compute) || !ppt_tc_memory_name(policy->memory))
    return ppt_err_set(err, PPT_EINPUT, "time_compute: unknown compute or memory model");
  if (!(policy->loop_fraction >= 0 && policy->loop_fraction <= 1))
    return ppt_err_set(err, PPT_EINPUT, "time_compute: loop overlap fraction %g not in [0, 1]",
                       policy->loop_fraction);
  tc_ctx c = {.hw = hw,
              .mlp = hw->mlp >= 1 ? hw->mlp : 1.0,
              .memory = policy->memory,
              .loop_fraction = policy->loop_fraction};
  /* Unknown (0): such misses overlap like any others. */
  c.mlp_set_load = hw->mlp_same_set_load >= 1 ? hw->mlp_same_set_load : c.mlp;
  c.mlp_set_store = hw->mlp_same_set_store >= 1 ? hw->mlp_same_set_store : c.mlp;
  c.coherence = hw->coherence_cycles > 0 ? hw->coherence_cycles : 0.0;
  /* One core alone streams from a shared level or DRAM at most at its own rate (its
   * misses in flight); the engine shares the instance's bandwidth between cores. */
  for (uint32_t k = 0; k < hw->nlevels; k++)
    c.lv[k] = (mem_level){ppt_hwspec_level_latency(hw, k), ppt_hwspec_core_bw(hw, k),
                          ppt_hwspec_level_bw(hw, k), 0.0, 1.0};
  c.lv[hw->nlevels] = (mem_level){ppt_hwspec_level_latency(hw, hw->nlevels),
                                  ppt_hwspec_core_bw(hw, hw->nlevels), ppt_hwspec_level_bw(hw, hw->nlevels),
                                  ppt_hwspec_dram_wb_cost(hw, 1), ppt_hwspec_dram_wb_cost(hw, 0)};
  out->nlevels = hw->nlevels;

  double footprint = 0;
  for (size_t i = 0; i < tl->n; i++) {
    int rc = item_time(&c, &tl->items[i], &footprint, out, err);
    if (rc) return rc;
  }

  out->compute_cycles = tc_combine_classes(policy->compute, out->op_cycles) + out->cpu_cycles;
  double cum = 0;
  for (uint32_t k = 0; k <= hw->nlevels; k++) {
    ppt_tc_level_stats *ls = &out->level[k];
    out->memory_cycles += ls->latency_cycles + ls->bw_cycles;
    out->transfer_cycles += ls->bw_cycles;
    cum += c.served[k];
    if (out->mem_accesses > 0) ls->global_hit = k < hw->nlevels ? cum / out->mem_accesses : 1.0;
    if (k < hw->nlevels && c.local_den[k] > 0) ls->local_hit = c.local_num[k] / c.local_den[k];
  }
  out->memory_cycles += out->alloc_cycles;
  if (out->mem_accesses > 0) {
    out->lambda_avg = c.lambda_sum / out->mem_accesses;
    out->beta_avg = c.beta_sum / out->mem_accesses;
  }
  double tc = out->compute_cycles, tm = out->memory_cycles;
  out->cycles = out->chased_cycles + ppt_tc_policy_loop_cycles(policy, tc, ppt_tc_hide_cycles(out->cpu_by),
                                                               tm - out->chased_cycles, out->transfer_cycles,
                                                               &out->loops);
  out->overlap_cycles = tc + tm - out->cycles;
  out->stall_cycles = out->cycles - tc;
  out->seconds = out->cycles / hw->clock_hz;
  return 0;
}
