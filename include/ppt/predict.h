/* ppt/predict.h — a program's runtime on N cores from its sequential trace: the whole
 * pipeline of `ppt predict` as one call (docs/engine.md).
 *
 * For each core count n: SASMM mimics n cores (ppt/sasmm.h), the program model turns the
 * phases into fork-join regions of tasklists with the simulated hit rates
 * (ppt/progmodel.h), and the SimGrid engine runs them on a node of the hwspec
 * (ppt/engine.h). The result holds, per core count, the runtime, its critical-path
 * breakdown, the run's hit rates and one row per site (docs/design.md, "Regions");
 * `ppt predict`, `ppt sweep --runtime` and `ppt extrapolate` print it. */
#ifndef PPT_PREDICT_H
#define PPT_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/progmodel.h"
#include "ppt/sasmm.h"
#include "ppt/tasklist.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

typedef struct ppt_predict_opts {
  ppt_sasmm_opts sasmm; /* mimicking and simulation; ncores is set to each core count */
  ppt_tc_policy policy; /* the core model the tasklists are built for and the engine runs */
  /* More core models priced on the same cache simulation (only the tasklists are
   * remade, ppt_progmodel_set_policy): nmodels of them, NULL when 0. */
  const ppt_tc_policy *models;
  size_t nmodels;
  /* Fork and join of a parallel region, cycles per thread, when it runs on more than one
   * thread; < 0: the spec's fork_join_cycles. One thread always pays the spec's
   * fork_join_serial_cycles (ppt_predict_fork_cycles). */
  double fork_cycles;
  const uint32_t *cores; /* core counts, ncores of them (each >= 1); 0: the spec's cores */
  size_t ncores;
  const uint8_t *counted; /* the blocks the model counts (ppt_progmodel_build); NULL: all */
  /* Now and then during the run, done in PPT_PREDICT_PROGRESS_UNIT per core count
   * (PPT_PREDICT_PROGRESS_UNIT * ncores at the end; the part of a core count is the
   * share of the trace's records its simulation has streamed), or NULL. */
  void (*progress)(uint64_t done, void *arg);
  void *progress_arg;
} ppt_predict_opts;

#define PPT_PREDICT_PROGRESS_UNIT 1000u

/* ppt_sasmm_opts_default, ppt_tc_policy_default, the spec's fork-join cost, no other
 * core models, the spec's core count, every block counted. */
void ppt_predict_opts_default(ppt_predict_opts *o);

/* The fork-join cost, cycles per thread, that a parallel region on n threads pays under
 * o on hw. One thread runs a parallel region serialised: no threads to wake or join, but
 * libomp still enters and leaves the region and sets up its loops (ppt calibrate's
 * fork_join_serial_cycles); more threads pay o->fork_cycles, else fork_join_cycles. */
double ppt_predict_fork_cycles(const ppt_hwspec *hw, const ppt_predict_opts *o, uint32_t n);

typedef struct ppt_predict_result ppt_predict_result;

/* A site of the program model summed over its phases at one core count: the engine's
 * seconds and breakdown of its regions (the critical thread's), its counts and rates. */
typedef struct ppt_predict_site {
  char function[1024], file[512]; /* the function's full (demangled) name */
  uint32_t line;
  int parallel;
  uint64_t instances;
  double runtime_s, compute_s, memory_s, imbalance_s, fork_join_s;
  double contention_s;              /* turns on contended lines beyond the thread's own work */
  double ops_s, cpu_s[PPT_TC_NCPU]; /* compute_s's parts (ppt_thread_stats) */
  /* The threads' mean busy time less the fork-join, split in the critical thread's ratio
   * of compute (with contention) to memory: a stacked bar that adds up to the region. */
  double seg_compute, seg_memory;
  ppt_progmodel_site_info info; /* counts and rates; its function and file are NULL (copied above) */
} ppt_predict_site;

/* One core count: the runtime and its critical-path breakdown (per region, the thread
 * that finished last; imbalance_wait_s: the barrier wait of the threads' mean). */
typedef struct ppt_predict_point {
  uint32_t n;
  double runtime_s;
  double compute_s, memory_s, imbalance_wait_s, contention_s;
  double ops_s, cpu_s[PPT_TC_NCPU]; /* compute_s's parts */
  double fork_cycles;               /* per thread of a region that forks (ppt_predict_fork_cycles) */
  size_t nregions;                  /* regions the engine ran */
  ppt_tracesim_result rates;        /* the whole run's, from the simulation */
  size_t nsites;                    /* ppt_predict_result_site; 0 when not known per site */
  uint64_t divided_phases;          /* phases of regions split by thread number that the mimic
                                       divided among the cores (ppt_sasmm_stats) */
} ppt_predict_point;

/* Predicts t's runtime on hw (with timing data: ppt_hwspec_has_timing) at each core
 * count of o (NULL: defaults). t, hw and o->counted are only read during the call.
 * Errors: PPT_EINPUT (a spec without timing, bad options, a program the engine rejects),
 * PPT_ERUN (memory, the simulation failed); *res is NULL then. */
int ppt_predict_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_predict_opts *o,
                    ppt_predict_result **res, ppt_err *err);
/* The same for one program model m already built for n cores with o->policy (e.g.
 * ppt_progmodel_build_weighted with its misses shifted: `ppt extrapolate`); o's sasmm,
 * cores and counted are not used. o->models reprice m's tasklists, so m changes; sites
 * are known when m's phases are the program's regions one for one (not weighted). */
int ppt_predict_run_progmodel(ppt_progmodel *m, const ppt_hwspec *hw, uint32_t n, const ppt_predict_opts *o,
                              ppt_predict_result **res, ppt_err *err);

size_t ppt_predict_result_npoints(const ppt_predict_result *r);
/* Core count i, in o->cores' order; NULL when out of range. */
const ppt_predict_point *ppt_predict_result_point(const ppt_predict_result *r, size_t i);
/* Site j at core count i, sorted by runtime_s, largest first (ties in source order);
 * NULL when out of range. */
const ppt_predict_site *ppt_predict_result_site(const ppt_predict_result *r, size_t i, size_t j);
/* The runtime at core count i under o->models[j]; NaN when out of range. */
double ppt_predict_result_model_seconds(const ppt_predict_result *r, size_t i, size_t j);
/* The fork-join cycles per thread of a region on more than one thread. */
double ppt_predict_result_fork_cycles(const ppt_predict_result *r);
void ppt_predict_result_free(ppt_predict_result *r);

/* ---- sensitivity: which timing figures move the prediction (`ppt predict --sensitivity`) */

/* One timing figure of the spec (ppt_hwspec_timing_figures) at one core count: the
 * runtime with it scaled by 1 - pct/100 and 1 + pct/100 (ppt_hwspec_set, each on its own,
 * everything else the spec's), and the relative changes against the spec's runtime. */
typedef struct ppt_predict_sens_row {
  char key[64];           /* as --set takes it: "clock_ghz", "L2.latency_cycles", ... */
  double value;           /* the spec's, in the file's unit */
  double minus_s, plus_s; /* NaN: the spec refuses the scaled value (why says so) */
  double minus_change, plus_change; /* runtime / the spec's runtime - 1 (NaN as above) */
  double change;          /* the larger of |minus_change| and |plus_change| (0 when both NaN) */
  int rebuilt;            /* 1: the figure shapes the cache simulation or the program model's
                             build (op figures, FP window, coherence_cycles, TLB), which were
                             redone for it; 0: the spec's simulation served
                             (ppt_progmodel_set_hwspec) */
  char why[200];          /* a refused value's error, else "" */
} ppt_predict_sens_row;

typedef struct ppt_predict_sens ppt_predict_sens;

/* ppt_predict_run (into *base) and, on each core count's program model, the prediction
 * with each timing figure of hw scaled down and up by pct % (0 < pct < 100): figures the
 * simulation does not read reuse the core count's simulation, the others rebuild it on
 * the changed spec. o->models are not re-predicted. Errors as ppt_predict_run's, and
 * PPT_EINPUT for pct out of range; *base and *out are NULL then. */
int ppt_predict_sensitivity(const ppt_trace *t, const ppt_hwspec *hw, const ppt_predict_opts *o, double pct,
                            ppt_predict_result **base, ppt_predict_sens **out, ppt_err *err);
size_t ppt_predict_sens_nrows(const ppt_predict_sens *s);
/* Row j at core count i (the base result's order), sorted by change, largest first (ties
 * in the figures' order); NULL when out of range. */
const ppt_predict_sens_row *ppt_predict_sens_get(const ppt_predict_sens *s, size_t i, size_t j);
double ppt_predict_sens_pct(const ppt_predict_sens *s);
/* Program models built anew for the figures that shape them, over all core counts. */
size_t ppt_predict_sens_rebuilds(const ppt_predict_sens *s);
void ppt_predict_sens_free(ppt_predict_sens *s);

#endif
