/* engine/node.c — nodes and ppt_node_run (ppt/engine.h).
 *
 * A run reads the program into the engine's slot view (engine/progview.c), then has
 * three steps:
 *   1. every distinct tasklist of the program goes through the core model once
 *      (ppt_time_compute) and becomes an eng_demand: compute cycles, contention-free
 *      memory cycles, and bytes to stream from each shared level;
 *   2. a child process simulates the node with SimGrid (engine/sim.c), writing its
 *      results into shared memory. SimGrid's engine is a process-wide singleton that
 *      cannot be torn down and rebuilt (a second simgrid_init keeps the old platform
 *      and clock), so one child per run is what makes runs independent and repeatable
 *      inside one process, and keeps a SimGrid abort from killing the caller;
 *   3. the parent turns the cycles into seconds. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/u64map.h"
#include "engine_internal.h"

struct ppt_node_result {
  size_t nregions;
  double seconds;
  ppt_region_stats *regions;
  size_t *first;             /* [nregions]: index of thread 0 in threads */
  ppt_thread_stats *threads; /* one per (region, thread) */
};

void ppt_node_config_default(ppt_node_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  ppt_tc_policy_default(&cfg->policy);
}

static const char *hwname(const ppt_hwspec *hw) {
  return hw->name[0] ? hw->name : "hwspec";
}

int ppt_node_new(const ppt_hwspec *hw, const ppt_node_config *cfg, ppt_node **out, ppt_err *err) {
  if (!hw || !out) return ppt_err_set(err, PPT_EINPUT, "engine: NULL argument");
  *out = NULL;
  ppt_node_config def;
  if (!cfg) {
    ppt_node_config_default(&def);
    cfg = &def;
  }
  if (!(hw->clock_hz > 0))
    return ppt_err_set(err, PPT_EINPUT, "%s: no timing data: clock is missing", hwname(hw));
  if (hw->nlevels > PPT_HW_MAX_LEVELS)
    return ppt_err_set(err, PPT_EINPUT, "%s: %u cache levels, at most %d", hwname(hw), hw->nlevels,
                       PPT_HW_MAX_LEVELS);
  uint32_t cores = cfg->cores ? cfg->cores : hw->cores;
  if (cores == 0) return ppt_err_set(err, PPT_EINPUT, "%s: node has no cores", hwname(hw));
  double f = ppt_tc_policy_fraction(&cfg->policy);
  if (!(f >= 0 && f <= 1))
    return ppt_err_set(err, PPT_EINPUT, "engine: overlap fraction %g not in [0, 1]", f);
  if (!(cfg->fork_cycles >= 0 && cfg->join_cycles >= 0 && isfinite(cfg->fork_cycles) &&
        isfinite(cfg->join_cycles)))
    return ppt_err_set(err, PPT_EINPUT, "engine: fork/join cycles must be finite and >= 0");
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    if (lv->shared_by == 0)
      return ppt_err_set(err, PPT_EINPUT, "%s: levels[%u].shared_by is 0", hwname(hw), k);
    if (lv->shared_by > 1 && !(lv->bw_bytes_per_cycle > 0))
      return ppt_err_set(err, PPT_EINPUT,
                         "%s: no timing data: shared levels[%u].bw_bytes_per_cycle is missing", hwname(hw),
                         k);
  }
  if (!(hw->dram_bw_bytes_per_s > 0))
    return ppt_err_set(err, PPT_EINPUT, "%s: no timing data: dram bandwidth is missing", hwname(hw));
  ppt_node *n = calloc(1, sizeof *n);
  if (!n) return ppt_err_set(err, PPT_ERUN, "engine: out of memory");
  n->hw = *hw;
  n->cfg = *cfg;
  n->cores = cores;
  *out = n;
  return 0;
}

void ppt_node_free(ppt_node *node) {
  free(node);
}

uint32_t ppt_node_cores(const ppt_node *node) {
  return node ? node->cores : 0;
}

/* ---- step 1: demands ---------------------------------------------------------- */

static int demand_of_tasklist(const ppt_node *node, const ppt_tasklist *tl, eng_demand *d, ppt_err *err) {
  ppt_tc_stats st;
  int rc = ppt_time_compute(&node->hw, tl, &node->cfg.policy, &st, err);
  if (rc) return rc;
  memset(d, 0, sizeof *d);
  d->compute = st.compute_cycles;
  d->ops = st.compute_cycles - st.cpu_cycles;
  memcpy(d->cpu_by, st.cpu_by, sizeof d->cpu_by);
  d->loops = st.loops;
  d->mem_alone = st.memory_cycles;
  d->chased = st.chased_cycles;
  double streamed = 0;
  for (uint32_t k = 0; k <= node->hw.nlevels; k++) {
    if (!eng_level_shared(node, k)) continue;
    d->bytes[k] = st.level[k].bytes;
    d->fill[k] = st.level[k].fill_bytes;
    streamed += st.level[k].bw_cycles;
  }
  d->mem_private = fmax(0.0, st.memory_cycles - streamed);
  d->mem_wait = fmax(0.0, st.memory_cycles - st.transfer_cycles);
  /* Without the spec's factor nothing is known of what the turns cost: none charged. */
  if (st.contended_share > 0 && node->hw.contention_factor > 0) {
    d->contended = st.contended_share;
    d->turns = node->hw.contention_factor * st.contended_share * st.cycles;
  }
  return 0;
}

/* Distinct tasklists of the program, found with a map from pointer to demand index:
 * demands[demand_of[slot]] is the demand of slot `slot`. */
static int build_demands(const ppt_node *node, const eng_program *prog, eng_demand **demands_out,
                         uint32_t **demand_of_out, ppt_err *err) {
  u64map seen;
  u64map_init(&seen);
  uint32_t *demand_of = malloc(prog->nslots * sizeof *demand_of);
  eng_demand *demands = NULL;
  size_t ndem = 0, dcap = 0;
  int rc = 0;
  if (!demand_of) {
    rc = ppt_err_set(err, PPT_ERUN, "engine: out of memory");
    goto done;
  }
  for (size_t r = 0; r < prog->nregions && rc == 0; r++) {
    const eng_region *R = &prog->regions[r];
    for (uint32_t t = 0; t < R->nthreads; t++) {
      size_t slot = R->first + t;
      const ppt_tasklist *tl = prog->tls[slot];
      int added;
      size_t h = u64map_insert(&seen, (uintptr_t)tl, &added);
      if (h == U64MAP_NONE) {
        rc = ppt_err_set(err, PPT_ERUN, "engine: out of memory");
        break;
      }
      if (added) {
        if (ndem == dcap) {
          dcap = dcap ? 2 * dcap : 16;
          eng_demand *nd = realloc(demands, dcap * sizeof *nd);
          if (!nd) {
            rc = ppt_err_set(err, PPT_ERUN, "engine: out of memory");
            break;
          }
          demands = nd;
        }
        ppt_err e2;
        if (demand_of_tasklist(node, tl, &demands[ndem], &e2)) {
          rc = ppt_err_set(err, e2.status, "region %zu thread %u: %s", r, t, e2.msg);
          break;
        }
        seen.ents[h].val.u = ndem++;
      }
      demand_of[slot] = (uint32_t)seen.ents[h].val.u;
    }
  }
done:
  u64map_free(&seen);
  if (rc) {
    free(demands);
    free(demand_of);
    return rc;
  }
  *demands_out = demands;
  *demand_of_out = demand_of;
  return 0;
}

/* ---- step 2: the simulating child --------------------------------------------- */

typedef struct shm_block {
  void *base;
  size_t len;
} shm_block;

static int shared_out(const eng_program *prog, shm_block *blk, eng_out **out) {
  size_t hdr = (sizeof(eng_out) + 63) & ~(size_t)63;
  size_t nd = 2 * prog->nregions + 3 * prog->nslots;
  blk->len = hdr + nd * sizeof(double);
  blk->base = mmap(NULL, blk->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (blk->base == MAP_FAILED) return -1;
  eng_out *o = blk->base; /* mmap zero-fills */
  double *d = (double *)((char *)blk->base + hdr);
  o->status = -1;
  o->region_start = d;
  o->region_len = d + prog->nregions;
  o->busy = d + 2 * prog->nregions;
  o->mem = d + 2 * prog->nregions + prog->nslots;
  o->turns = d + 2 * prog->nregions + 2 * prog->nslots;
  *out = o;
  return 0;
}

static int simulate_in_child(const ppt_node *node, const eng_program *prog, const eng_demand *demands,
                             const uint32_t *demand_of, eng_out *o, ppt_err *err) {
  fflush(NULL); /* buffered output would otherwise be written twice */
  pid_t pid = fork();
  if (pid < 0) return ppt_err_set(err, PPT_ERUN, "engine: fork failed: %s", strerror(errno));
  if (pid == 0) {
    int rc = eng_simulate(node, prog, demands, demand_of, o);
    o->status = rc ? 1 : 0;
    _exit(rc ? 1 : 0);
  }
  int ws;
  while (waitpid(pid, &ws, 0) < 0) {
    if (errno != EINTR) return ppt_err_set(err, PPT_ERUN, "engine: waitpid: %s", strerror(errno));
  }
  if (WIFSIGNALED(ws))
    return ppt_err_set(err, PPT_ERUN, "engine: the simulation died (signal %d)", WTERMSIG(ws));
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || o->status != 0)
    return ppt_err_set(err, PPT_ERUN, "%s", o->msg[0] ? o->msg : "engine: the simulation failed");
  return 0;
}

/* ---- step 3: results ------------------------------------------------------------ */

static int collect(const ppt_node *node, const eng_program *prog, const eng_demand *demands,
                   const uint32_t *demand_of, const eng_out *o, ppt_node_result **out, ppt_err *err) {
  double hz = node->hw.clock_hz;
  ppt_node_result *res = calloc(1, sizeof *res);
  if (!res) return ppt_err_set(err, PPT_ERUN, "engine: out of memory");
  res->nregions = prog->nregions;
  res->regions = calloc(prog->nregions ? prog->nregions : 1, sizeof *res->regions);
  res->first = calloc(prog->nregions ? prog->nregions : 1, sizeof *res->first);
  res->threads = calloc(prog->nslots ? prog->nslots : 1, sizeof *res->threads);
  if (!res->regions || !res->first || !res->threads) {
    ppt_node_result_free(res);
    return ppt_err_set(err, PPT_ERUN, "engine: out of memory");
  }
  for (size_t r = 0; r < prog->nregions; r++) {
    const eng_region *R = &prog->regions[r];
    double len = o->region_len[r];
    res->regions[r] = (ppt_region_stats){.parallel = R->kind != PPT_REGION_SERIAL,
                                         .nthreads = R->nthreads,
                                         .start_s = o->region_start[r] / hz,
                                         .seconds = len / hz};
    res->first[r] = R->first;
    for (uint32_t t = 0; t < R->nthreads; t++) {
      size_t slot = R->first + t;
      const eng_demand *d = &demands[demand_of[slot]];
      res->threads[slot] = (ppt_thread_stats){.busy_s = o->busy[slot] / hz,
                                              .compute_s = d->compute / hz,
                                              .ops_s = d->ops / hz,
                                              .memory_s = o->mem[slot] / hz,
                                              .memory_alone_s = d->mem_alone / hz,
                                              .wait_s = (len - o->busy[slot]) / hz,
                                              .contention_s = o->turns[slot] / hz};
      for (int c = 0; c < PPT_TC_NCPU; c++) res->threads[slot].cpu_s[c] = d->cpu_by[c] / hz;
    }
    res->seconds = (o->region_start[r] + len) / hz;
  }
  *out = res;
  return 0;
}

int ppt_node_run(const ppt_node *node, const ppt_program *program, ppt_node_result **out, ppt_err *err) {
  if (!node || !program || !out) return ppt_err_set(err, PPT_EINPUT, "engine: NULL argument");
  *out = NULL;
  eng_program view;
  int rc = eng_program_read(program, &view, err);
  if (rc) return rc;
  const eng_program *prog = &view;
  eng_demand *demands = NULL;
  uint32_t *demand_of = NULL;
  for (size_t r = 0; r < prog->nregions && !rc; r++)
    if (prog->regions[r].nthreads > node->cores)
      rc = ppt_err_set(err, PPT_EINPUT, "region %zu: %u threads on a node of %u cores", r,
                       prog->regions[r].nthreads, node->cores);
  if (rc || (rc = build_demands(node, prog, &demands, &demand_of, err))) goto done;
  shm_block blk = {0};
  eng_out *o = NULL;
  if (shared_out(prog, &blk, &o)) {
    rc = ppt_err_set(err, PPT_ERUN, "engine: cannot map result memory: %s", strerror(errno));
    goto done;
  }
  if (prog->nregions > 0) rc = simulate_in_child(node, prog, demands, demand_of, o, err);
  if (rc == 0) rc = collect(node, prog, demands, demand_of, o, out, err);
  munmap(blk.base, blk.len);
done:
  free(demands);
  free(demand_of);
  eng_program_free(&view);
  return rc;
}

/* ---- result accessors ----------------------------------------------------------- */

double ppt_node_result_seconds(const ppt_node_result *r) {
  return r ? r->seconds : 0.0;
}

size_t ppt_node_result_nregions(const ppt_node_result *r) {
  return r ? r->nregions : 0;
}

int ppt_node_result_region(const ppt_node_result *r, size_t region, ppt_region_stats *out) {
  if (!r || !out || region >= r->nregions) return PPT_EINPUT;
  *out = r->regions[region];
  return 0;
}

int ppt_node_result_thread(const ppt_node_result *r, size_t region, size_t thread, ppt_thread_stats *out) {
  if (!r || !out || region >= r->nregions || thread >= r->regions[region].nthreads) return PPT_EINPUT;
  *out = r->threads[r->first[region] + thread];
  return 0;
}

void ppt_node_result_free(ppt_node_result *r) {
  if (!r) return;
  free(r->regions);
  free(r->first);
  free(r->threads);
  free(r);
}
