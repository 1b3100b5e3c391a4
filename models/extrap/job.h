/* extrap/job.h — internal: the state of one ppt_extrap_run (ppt/extrapolate.h) that its
 * stages share: models/extrap/job.c runs them in turn; job_measure.c measures and aligns
 * the traces, job_walks.c follows the blocks' walks, job_fit.c checks and predicts,
 * job_blocks.c rebuilds each block at the target and job_runtime.c prices it. */
#ifndef PPT_EXTRAP_JOB_H
#define PPT_EXTRAP_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/extrap.h"
#include "ppt/extrapolate.h"
#include "ppt/hwspec.h"
#include "ppt/sasmm.h"

#define NL PPT_HW_MAX_LEVELS
#define MAX_TRACES PPT_EXTRAP_MAX_TRACES

/* What one core count's blocks at the target hand the runtime (job_blocks.c). */
typedef struct ext_point {
  double gain_prefetched[NL + 1]; /* [k], k = 1..nlevels: prefetch coverage of the accesses the
                                     level serving k gains at the target (NaN: the trace's) */
  double bunched_lost[NL];        /* of the hits sets lost at a level, per reference, those of walks
                                     whose first-level misses queue on one set */
  /* [k * nblocks + b]: block b's global miss ratio of level k in the largest trace and at
   * the target (NaN: not known), for ppt_progmodel_shift_sites; malloc'd */
  double *blk_traced, *blk_target;
  uint32_t nblocks;
} ext_point;

/* The walks of the first trace's blocks at the target (job_walks.c). */
typedef struct ext_walks {
  uint32_t nblocks; /* ppt_trace_nbbs of the first trace + 1 */
  double *share;    /* [nblocks x PPT_EXTRAP_SLOTS]: share of the block's references in the
                       slot, where it walks with a stride at every traced size (else 0) */
  int64_t *stride;  /* [nblocks x PPT_EXTRAP_SLOTS]: that stride fitted at the target, bytes */
  double *len;      /* [nblocks x PPT_EXTRAP_SLOTS]: instances one walk lasts, at the target */
  int64_t *offset;  /* [nblocks x PPT_EXTRAP_SLOTS x PPT_EXTRAP_SLOTS]: [slot j][i < j]: slot j's
                       offset from slot i at the target, where fixed */
  uint8_t *fixed;   /* same shape: 1 when that offset held from walk to walk at every size */
  double irregular; /* share of the counted references of the largest trace in slots whose
                       step does not repeat (data-dependent addresses) */
  double *irr;      /* [nblocks]: each block's references in such slots whose addresses span a
                       range that grows with the size (largest trace) */
  double *growth;   /* [nblocks]: the largest such growth of a range, smallest to largest size */
  double all;       /* the counted references of the largest trace */
} ext_walks;

typedef struct ext_job {
  const ppt_extrap_job_opts *o;
  const ppt_hwspec *hw;
  ppt_extrap_job_result *res; /* res->order: the traces by increasing size */
  size_t ntr;
  const ppt_trace *t[MAX_TRACES];
  const uint8_t *counted; /* the first trace's counted blocks (NULL: all) */
  /* Traces of another binary than the first's: their block b is the first's map[i][b]
   * (ppt_extrap_match_blocks); NULL for the same table (the identity). */
  uint32_t *map[MAX_TRACES];
  ppt_sasmm_profiles prof[MAX_TRACES][PPT_EXTRAP_MAX_CORES];
  ext_point px[PPT_EXTRAP_MAX_CORES];
  double *w_inst, *w_refs; /* per block of the largest trace: its weight at the target */
  ext_walks walks;
  /* Per trace, per block of the first trace's table: its instances and references
   * (ext_walks_measure's pass; the runtime's block weights). */
  double *blk_inst[MAX_TRACES], *blk_refs[MAX_TRACES];
} ext_job;

/* Trace i's size, path, and the largest trace's index. */
double ext_size(const ext_job *r, size_t i);
const char *ext_path(const ext_job *r, size_t i);
size_t ext_largest(const ext_job *r);
/* The stage's progress (opts' callback), if any. */
void ext_progress(const ext_job *r, const char *stage, uint64_t done, uint64_t total);

/* Every trace at every core count measured, with its measured hit rates (job_measure.c). */
int ext_measure(ext_job *r, ppt_err *err);
/* The per-block histograms of traces of other binaries on the first trace's ids. */
int ext_align_blocks(ext_job *r, ppt_err *err);
/* r->walks, r->blk_inst and r->blk_refs from one pass over each trace (job_walks.c). */
int ext_walks_measure(ext_job *r, ppt_err *err);
void ext_walks_free(ext_walks *w);
/* PPT_ERUN, naming the block, when more than PPT_EXTRAP_IRREGULAR_MAX of the counted
 * references are in data-dependent slots (r->walks.irr) whose addresses range over data
 * that grows with the size: irregular access (a graph's gathers, a sparse matrix's
 * columns), which the fits cannot follow (docs/extrapolate.md, "Refusal"); a histogram's
 * updates, data-dependent over bins that do not grow, pass. Nothing with allow_irregular. */
int ext_check_irregular(const ext_job *r, ppt_err *err);
/* Core count c (job_fit.c): the check of the largest trace from the others, and the
 * prediction at the target with its band. */
int ext_check(ext_job *r, size_t c, ppt_err *err);
int ext_predict(ext_job *r, size_t c, ppt_err *err);
/* Per block at the target, with model m of core count c (job_blocks.c): the point's
 * sets, and px's bunched_lost, gain_prefetched, blk_traced and blk_target. */
int ext_block_rates(const ext_job *r, const ppt_extrap_model *m, size_t c, ppt_extrap_job_point *pt,
                    ext_point *px, ppt_err *err);
/* The runtime (job_runtime.c): the block weights at the target, then per core count. */
int ext_block_weights(ext_job *r, ppt_err *err);
int ext_runtime(ext_job *r, size_t c, ppt_err *err);

#endif
