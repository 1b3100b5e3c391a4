/* engine/sim.c — the simulation itself, run inside the child process of ppt_node_run.
 *
 * One actor per core walks the program's regions. In a region where its core works:
 *
 *   1. it streams its bytes from each shared level (shared caches, DRAM) over that
 *      level's link, one level after the other (the Σ over levels of Eq. 4–5); SimGrid
 *      shares each link max-min fairly between the cores streaming at the same time, so
 *      the realised streaming time ts includes contention;
 *   2. its memory time is Tm = (contention-free memory cycles) + ts, and the overlap
 *      policy gives its time T (ppt_tc_policy_cycles), as in ppt_time_compute (plus
 *      fork + join overhead in parallel regions): it ends at t0 + T.
 *
 * Every actor, working or not, then meets the others at a barrier; core 0 sleeps until
 * the latest end of the region's threads and a second barrier releases everyone into
 * the next region (fork-join). Serial regions work on core 0.
 *
 * The contention-free part of a thread's time is not simulated activity: a core runs
 * exactly one thread, so an exec on its host could never be slowed down, and once its
 * streams are done a thread holds no shared resource. Waiting for the slowest thread
 * instead of sleeping per thread gives the same times with one sleep per region rather
 * than one per thread; SimGrid's cost is per activity (~2 µs for a comm, ~1 µs for a
 * sleep, ~2.5 µs for an exec in 3.32), and this is what keeps 256 cores × 1000
 * regions within the 2 s budget. Streaming comes first in the region so that T can be
 * computed once ts is known; all threads of a region start together, so this orders
 * traffic, not totals.
 *
 * No global state: everything the actors need hangs off their actor data. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_internal.h"
#include "ppt/cpu.h"

typedef struct sim_ctx {
  const ppt_node *node;
  const eng_program *prog;
  const eng_demand *demands;
  const uint32_t *demand_of;
  const ppt_tc_policy *policy; /* how compute and memory overlap (ppt_tc_policy_cycles) */
  double overhead;             /* fork + join cycles, charged in parallel regions */
  sg_bar_t bar;
  sg_host_t *dest; /* [core * (nlevels + 1) + k]: far end of level k, NULL if private */
  sg_link_t *own;  /* [core * (nlevels + 1) + k]: the core's own link to level k, or NULL */
  sg_host_t line;  /* ENG_LINE_HOST */
  double *finish;  /* [core]: when the core's thread ends its work in this region */
  double *few;     /* [n]: every thread's core speed in a region of n threads, n below the
                      spec's listed speeds (ppt_hwspec_thread_speed); 0 until needed */
  eng_out *out;
} sim_ctx;

/* Thread `core`'s speed in a region of n threads (ppt_hwspec_thread_speed). Below the
 * listed speeds it is the same for every thread and costs a pass over the cores per
 * starting core, so it is worked out once per thread count, not per thread and region
 * (the actors run one at a time: no lock). */
static double thread_speed(sim_ctx *s, uint32_t core, uint32_t n) {
  const ppt_hwspec *hw = &s->node->hw;
  if (n >= hw->nspeeds) return ppt_hwspec_thread_speed(hw, core, n);
  if (!(s->few[n] > 0)) s->few[n] = ppt_hwspec_thread_speed(hw, core, n);
  return s->few[n];
}

typedef struct core_arg {
  sim_ctx *ctx;
  uint32_t core;
} core_arg;

static void core_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  const core_arg *a = sg_actor_self_get_data();
  sim_ctx *s = a->ctx;
  uint32_t nmem = s->node->hw.nlevels + 1;
  sg_host_t me = sg_host_self();
  sg_host_t *dest = &s->dest[(size_t)a->core * nmem];
  sg_link_t *own = &s->own[(size_t)a->core * nmem];
  for (size_t r = 0; r < s->prog->nregions; r++) {
    const eng_region *R = &s->prog->regions[r];
    double t0 = simgrid_get_clock();
    if (a->core < R->nthreads) {
      size_t slot = R->first + a->core;
      const eng_demand *d = &s->demands[s->demand_of[slot]];
      /* Turns on a contended line first: an execution on the line host, which the other
       * threads' turns share. A thread waiting for the line issues nothing, so its
       * streams wait too (they begin after its turns). */
      double te = 0, share = 0;
      if (d->turns > 0) {
        sg_exec_t ex = sg_actor_exec_init(d->turns);
        sg_exec_set_host(ex, s->line);
        sg_exec_start(ex);
        sg_exec_wait(ex);
        te = simgrid_get_clock() - t0;
        share = d->contended;
      }
      double t1 = simgrid_get_clock();
      for (uint32_t k = 0; k < nmem; k++) {
        if (!(d->bytes[k] > 0 && dest[k])) continue;
        /* The core's own link caps its fills (and its DRAM write-backs at their cost to
         * the core); the instance counts the bytes. One flow of the bytes through a core
         * link scaled by bytes / fills takes max(fills / own rate, bytes / instance
         * share): the link is this core's alone, so resizing it touches no other flow. */
        if (own[k])
          sg_link_set_bandwidth(own[k], ppt_hwspec_core_bw(&s->node->hw, k) *
                                            (d->fill[k] > 0 ? d->bytes[k] / d->fill[k] : ENG_UNCAPPED));
        sg_host_sendto(me, dest[k], d->bytes[k]);
      }
      double ts = simgrid_get_clock() - t1;
      double tm = d->mem_private + ts;
      /* A slower core (hwspec core_speed, for as many threads as the region has:
       * ppt_hwspec_thread_speed), or one slowed by the other cores computing at once
       * (busy_speed at the region's thread count), takes longer over its ops and CPU
       * items; its memory time is the memory's. */
      double sp = thread_speed(s, a->core, R->nthreads) * ppt_hwspec_busy_speed(&s->node->hw, R->nthreads);
      /* A chain-bound loop's chain is compute too; what it overlaps of its memory cannot
       * be more than the slower chain. */
      ppt_tc_loops lp = d->loops;
      lp.chain /= sp;
      lp.exits /= sp;
      lp.overlap = fmin(lp.overlap, fmin(lp.chain + lp.exits, lp.memory));
      /* What the other cores' streams add to this one's (their share of a shared
       * level's or the socket's bandwidth) the core waits out with fewer misses in
       * flight than its own cap allows, computing meanwhile: the policy overlaps its
       * compute with the memory time it would take alone, and the contended memory
       * time bounds it from below (SUM, PPT's classic, adds them). conv2d at 2
       * threads: compute 13.5 ms, its streams 8.8 ms alone and 17.8 ms under the
       * socket's cap; natively 22.1 ms, priced 27.9 ms with the policy over the
       * contended time, 20.3 ms over the time alone (docs/engine.md). */
      double alone = s->policy->overlap == PPT_OVERLAP_SUM ? tm : fmin(tm, d->mem_alone);
      /* The chased loads' waits overlap nothing (ppt_time_compute): the core waits them out. */
      double chased = fmin(d->chased, alone);
      double t = fmax(tm, chased + ppt_tc_policy_loop_cycles(s->policy, d->compute / sp,
                                                             ppt_tc_hide_cycles(d->cpu_by) / sp, alone - chased,
                                                             fmax(0.0, alone - d->mem_wait), &lp));
      /* The share of t that went into the turns is not run again. */
      double busy = te + fmax(ts, (R->kind == PPT_REGION_FORK ? s->overhead : 0.0) + (1.0 - share) * t);
      s->out->turns[slot] = fmax(0.0, te - share * t);
      s->out->busy[slot] = busy;
      s->out->mem[slot] = tm;
      s->finish[a->core] = t0 + busy;
    }
    /* Once its streams are done a thread holds no resource until the region ends, so
     * waiting here is the same, for every other thread, as sleeping out its time; only
     * the slowest thread's end matters, and core 0 sleeps until it. */
    sg_barrier_wait(s->bar);
    if (a->core == 0) {
      double end = t0;
      for (uint32_t t = 0; t < R->nthreads; t++) end = fmax(end, s->finish[t]);
      if (end > simgrid_get_clock()) sg_actor_sleep_until(end);
      s->out->region_start[r] = t0;
      s->out->region_len[r] = simgrid_get_clock() - t0;
    }
    sg_barrier_wait(s->bar);
  }
}

/* The platform goes through an anonymous memory file, so nothing is left on disk if
 * the child dies; SimGrid opens it by its /proc path. */
static int load_platform(const ppt_node *node, eng_out *out) {
  int fd = memfd_create("ppt-platform", 0);
  if (fd < 0) {
    snprintf(out->msg, sizeof out->msg, "engine: memfd_create failed");
    return -1;
  }
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    snprintf(out->msg, sizeof out->msg, "engine: fdopen failed");
    return -1;
  }
  if (eng_platform_write(node, f) || fflush(f)) {
    fclose(f);
    snprintf(out->msg, sizeof out->msg, "engine: cannot write the platform");
    return -1;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  simgrid_load_platform(path);
  fclose(f);
  return 0;
}

static void init_simgrid(void) {
  /* --log first: SimGrid reports each --cfg at INFO level while parsing them.
   * CM02 without factors: a link of bandwidth B serves n concurrent streams at B/n
   * each, exactly; LV08's TCP corrections (0.97 bandwidth factor, latency factor,
   * window bound, cross-traffic) model Ethernet, not a cache or memory bus. */
  char *argv[] = {
    "ppt-engine",
    "--log=root.thres:critical",
    "--cfg=network/model:CM02",
    "--cfg=network/bandwidth-factor:1",
    "--cfg=network/latency-factor:1",
    "--cfg=network/weight-S:0",
    "--cfg=network/TCP-gamma:0",
    "--cfg=network/crosstraffic:0",
    /* Actors need little stack (no recursion, a few locals). */
    "--cfg=contexts/stack-size:256",
#if defined(__SANITIZE_ADDRESS__)
#define PPT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PPT_ASAN 1
#endif
#endif
#ifdef PPT_ASAN
    /* ASan cannot follow SimGrid's hand-made context switches (docs/design.md, "Engine notes"). */
    "--cfg=contexts/factory:thread",
#endif
    NULL
  };
  int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
  simgrid_init(&argc, argv);
}

int eng_simulate(const ppt_node *node, const eng_program *prog, const eng_demand *demands,
                 const uint32_t *demand_of, eng_out *out) {
  uint32_t nmem = node->hw.nlevels + 1;
  sim_ctx s = {.node = node,
               .prog = prog,
               .demands = demands,
               .demand_of = demand_of,
               .policy = &node->cfg.policy,
               .overhead = node->cfg.fork_cycles + node->cfg.join_cycles,
               .out = out};
  core_arg *args = calloc(node->cores, sizeof *args);
  s.dest = calloc((size_t)node->cores * nmem, sizeof *s.dest);
  s.own = calloc((size_t)node->cores * nmem, sizeof *s.own);
  s.finish = calloc(node->cores, sizeof *s.finish);
  s.few = calloc((size_t)node->hw.nspeeds + 1, sizeof *s.few);
  if (!args || !s.dest || !s.own || !s.finish || !s.few) {
    snprintf(out->msg, sizeof out->msg, "engine: out of memory");
    return -1;
  }
  init_simgrid();
  if (load_platform(node, out)) return -1;
  char name[32];
  for (uint32_t c = 0; c < node->cores; c++) {
    for (uint32_t k = 0; k < nmem; k++) {
      if (!eng_level_shared(node, k)) continue;
      eng_level_host_name(name, sizeof name, k, eng_level_instance(node, k, c));
      s.dest[(size_t)c * nmem + k] = sg_host_by_name(name);
      if (!eng_core_link(node, k)) continue;
      eng_core_link_name(name, sizeof name, k, c);
      s.own[(size_t)c * nmem + k] = sg_link_by_name(name);
    }
  }
  s.line = sg_host_by_name(ENG_LINE_HOST);
  s.bar = sg_barrier_init(node->cores);
  for (uint32_t c = 0; c < node->cores; c++) {
    args[c] = (core_arg){&s, c};
    eng_core_name(name, sizeof name, c);
    sg_actor_t actor = sg_actor_init(name, sg_host_by_name(name));
    sg_actor_set_data(actor, &args[c]);
    sg_actor_start(actor, core_main, 0, NULL);
  }
  simgrid_run();
  /* SimGrid's own objects die with the child process, which exits right after. */
  sg_barrier_destroy(s.bar);
  free(args);
  free(s.dest);
  free(s.own);
  free(s.finish);
  free(s.few);
  return 0;
}
