/* ppt/extrapolate.h — the whole of `ppt extrapolate` as one call: hit rates and runtime
 * at a problem size that was not traced, from sequential traces of the same program at a
 * few smaller sizes (docs/extrapolate.md; the pieces are ppt/extrap.h).
 *
 * Per traced size and core count the trace is mimicked and measured as `ppt sasmm --model
 * sdcm` does, keeping per-block histograms; traces of other binaries have their blocks
 * matched onto the first trace's (ppt_extrap_match_blocks). The model is fitted per core
 * count (ppt_extrap_fit) and rebuilds the summed PRD and the CRD at the target, whose hit
 * rates are SDCM's, with a bootstrap band. With three traces or more the model is first
 * fitted without the largest and must predict it: when it cannot, the behaviour changes
 * with the size and nothing is extrapolated; nor is a program whose data-dependent
 * references range over data that grows with the size. Per block the walks' strides at
 * the target give the rates with the set conflicts; with a spec that has timing the
 * largest trace's program model, reweighted to the target and its misses moved to those
 * rates, is run on the engine as `ppt predict` runs it (ppt/predict.h). */
#ifndef PPT_EXTRAPOLATE_H
#define PPT_EXTRAPOLATE_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/extrap.h"
#include "ppt/hwspec.h"
#include "ppt/sdcm.h"
#include "ppt/trace.h"

#define PPT_EXTRAP_MAX_TRACES 16 /* traced sizes of one job */
#define PPT_EXTRAP_MAX_CORES 64  /* core counts of one job */
#define PPT_EXTRAP_DRAWS 200     /* bootstrap draws of the band */
/* The check: the largest allowed hit-rate error at the checked size, points; the largest
 * allowed error of a block's reference count, for blocks with at least
 * PPT_EXTRAP_CHECK_BLOCK_SHARE of the references. */
#define PPT_EXTRAP_CHECK_POINTS 2.0
#define PPT_EXTRAP_CHECK_BLOCK 0.05
#define PPT_EXTRAP_CHECK_BLOCK_SHARE 0.01
#define PPT_EXTRAP_UNMATCHED_MAX 0.01 /* largest share of a trace's references in unmatched blocks */
#define PPT_EXTRAP_IRREGULAR_MAX 0.05 /* largest share of data-dependent references whose reach grows */

/* One traced size. */
typedef struct ppt_extrap_job_trace {
  /* Open and sequential (one thread); read only. Its stack references count as the
   * caller set them (ppt_trace_set_stack_refs). */
  const ppt_trace *trace;
  double size;            /* the parameter's value it was traced at: > 0, distinct */
  const char *path;       /* names the trace in messages */
  const uint8_t *counted; /* its blocks the model counts (ppt_trace_select); NULL: all */
} ppt_extrap_job_trace;

typedef struct ppt_extrap_job_opts {
  const ppt_extrap_job_trace *traces; /* 2 to PPT_EXTRAP_MAX_TRACES */
  size_t ntraces;
  const char *param; /* the parameter's name, in messages */
  double target;     /* the size to predict, > 0 */
  const ppt_hwspec *hw;
  const uint32_t *cores; /* core counts (each >= 1), 1 to PPT_EXTRAP_MAX_CORES of them */
  size_t ncores;
  uint64_t seed;       /* the mimic's and the band's draws */
  int allow_irregular; /* extrapolate data-dependent access over growing data too */
  /* Called with done = 0 as each stage begins ("traces x core counts", "runtime") and
   * as each of its `total` steps ends; or NULL. */
  void (*progress)(const char *stage, uint64_t done, uint64_t total, void *arg);
  void *progress_arg;
} ppt_extrap_job_opts;

/* No traces, no spec, the parameter "size", target 0, cores 1, 2, 4, 8, 16 (static
 * storage), seed 1, regular access only, no progress. */
void ppt_extrap_job_opts_default(ppt_extrap_job_opts *o);

/* One core count. Hit rates are fractions; NaN where not known. */
typedef struct ppt_extrap_job_point {
  uint32_t n;
  /* [i][k]: trace i's (opts' order) measured rates of level k */
  ppt_sdcm_rates measured[PPT_EXTRAP_MAX_TRACES][PPT_HW_MAX_LEVELS];
  double check_err[PPT_HW_MAX_LEVELS]; /* predicted - measured at the largest size, points (NaN: unchecked) */
  ppt_sdcm_rates pred[PPT_HW_MAX_LEVELS];              /* at the target */
  double lo[PPT_HW_MAX_LEVELS], hi[PPT_HW_MAX_LEVELS]; /* the band of pred's global rates */
  double refs;                                         /* references predicted at the target */
  double sets[PPT_HW_MAX_LEVELS]; /* pred's global rates with the set conflicts of the target's walks */
  double runtime_s, runtime_s_lo, runtime_s_hi; /* seconds at the target and its band (NaN: no timing) */
} ppt_extrap_job_point;

typedef struct ppt_extrap_job_result {
  size_t ntraces;
  size_t order[PPT_EXTRAP_MAX_TRACES];     /* the traces by increasing size */
  double refs[PPT_EXTRAP_MAX_TRACES];      /* each trace's counted references */
  double unmatched[PPT_EXTRAP_MAX_TRACES]; /* share of them in blocks left out (unmatched) */
  int matched_by_key;                      /* some trace's block table is not the first's: matched by key */
  int checked;                         /* three traces or more: the largest was predicted from the others */
  int timed;                           /* the spec has timing: runtimes are predicted */
  uint32_t blocks;                     /* the model's blocks (ppt_extrap_model_blocks) */
  uint64_t degrees[PPT_EXTRAP_NFORMS]; /* forms its fits chose, over the core counts */
  double irregular; /* share of the largest trace's counted references in data-dependent slots */
  size_t npoints;   /* opts' core counts, in their order */
  ppt_extrap_job_point *points;
} ppt_extrap_job_result;

/* Runs the job. Errors: PPT_EINPUT (bad options, traces of different programs, no
 * references predicted), PPT_ERUN (the check or the irregular-access rule refuses the
 * extrapolation, out of memory, a trace that cannot be read); *out is NULL then. */
int ppt_extrap_run(const ppt_extrap_job_opts *o, ppt_extrap_job_result **out, ppt_err *err);
void ppt_extrap_job_result_free(ppt_extrap_job_result *r);

#endif
