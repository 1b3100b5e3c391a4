/* extrapolate.h — what `ppt extrapolate`'s run (cmd_extrapolate.c) hands its output
 * (extrapolate_out.c): per core count the hit rates measured at each traced size, the
 * check, the prediction at the target with its band, and the runtime. Internal to
 * apps/ppt. */
#ifndef PPT_APPS_EXTRAPOLATE_H
#define PPT_APPS_EXTRAPOLATE_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ppt/extrap.h"
#include "ppt/hwspec.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/trace.h"

#define MAX_TRACES 16
#define DRAWS 200              /* bootstrap draws of the band */
#define CHECK_POINTS 2.0       /* largest allowed hit-rate error at the checked size, points */
#define CHECK_BLOCK 0.05       /* largest allowed error of a block's reference count */
#define CHECK_BLOCK_SHARE 0.01 /* ... for blocks with at least this share of the references */
#define UNMATCHED_MAX 0.01     /* largest share of a trace's references in unmatched blocks */
#define IRREGULAR_MAX 0.05     /* largest share of data-dependent references whose reach grows */
#define NL PPT_HW_MAX_LEVELS

typedef struct size_arg {
  char param[64];
  double value;
  const char *path;
} size_arg;

typedef struct args {
  ppt_cli_common c;
  size_arg tr[MAX_TRACES];
  size_t ntr;
  size_arg target;
  int has_target;
  int allow_irregular; /* --allow-irregular */
} args;

/* One core count: measured rates per traced size, the check, the prediction and its band. */
typedef struct point {
  uint32_t n;
  ppt_sdcm_rates meas[MAX_TRACES][NL];
  double check_err[NL]; /* predicted - measured at the largest size, points (NaN: unchecked) */
  ppt_sdcm_rates pred[NL];
  double lo[NL], hi[NL], refs;
  double runtime, rt_lo, rt_hi;   /* seconds at the target and its band (NaN: the spec has no timing) */
  double sets[NL];                /* pred's global hit rates with the set conflicts of the target's strides */
  double gain_prefetched[NL + 1]; /* [k], k = 1..nlevels: prefetch coverage of the accesses the
                                     level serving k gains at the target (NaN: the trace's) */
  double bunched_lost[NL];        /* of the hits sets lost at a level, per reference, those of walks
                                   whose first-level misses queue on one set */
  /* [k * nblocks + b]: block b's global miss ratio of level k in the largest trace and at
   * the target (NaN: not known), for ppt_progmodel_shift_sites; malloc'd */
  double *blk_traced, *blk_target;
  uint32_t nblocks;
} point;

/* The walks of the first trace's blocks at the target (extrapolate_walks.c). */
typedef struct ppt_extrapolate_walks {
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
} ppt_extrapolate_walks;

typedef struct results {
  ppt_hwspec hw;
  ppt_trace *t[MAX_TRACES];
  size_t order[MAX_TRACES];        /* the traces by increasing size */
  uint8_t *counted;                /* the --only selection of the first trace's blocks (NULL: all) */
  uint8_t *counted_of[MAX_TRACES]; /* of each trace's own blocks ([0] is counted) */
  /* Traces of another binary than the first's: their block b is the first's map[i][b]
   * (ppt_extrap_match_blocks); NULL for the same table (the identity). */
  uint32_t *map[MAX_TRACES];
  double unmatched[MAX_TRACES]; /* share of each trace's counted references left unmatched */
  ppt_sasmm_profiles prof[MAX_TRACES][PPT_CLI_MAX_CORES];
  point pt[PPT_CLI_MAX_CORES];
  uint64_t degrees[PPT_EXTRAP_NFORMS];
  uint32_t blocks;
  int checked;
  int timed;               /* the spec has timing: runtimes are predicted */
  double *w_inst, *w_refs; /* per block of the largest trace: its weight at the target */
  ppt_extrapolate_walks walks;
  /* Per trace, per block of the first trace's table: its instances and references
   * (ppt_extrapolate_walks_measure's pass; the runtime's block weights). */
  double *blk_inst[MAX_TRACES], *blk_refs[MAX_TRACES];
} results;

/* r->walks, r->blk_inst and r->blk_refs from one pass over each trace
 * (ppt_extrap_strides_measure). */
int ppt_extrapolate_walks_measure(const args *a, results *r, ppt_err *err);
void ppt_extrapolate_walks_free(ppt_extrapolate_walks *w);
/* Per block at the target, with model m of core count c (extrapolate_blocks.c):
 * pt->sets, bunched_lost, gain_prefetched, blk_traced and blk_target. */
int ppt_extrapolate_block_rates(const args *a, const results *r, const ppt_extrap_model *m, size_t c,
                                point *pt, ppt_err *err);
/* PPT_ERUN, naming the block, when more than IRREGULAR_MAX of the counted references are
 * in data-dependent slots (r->walks.irr) whose addresses range over data that grows with
 * the size: irregular access (a graph's gathers, a sparse matrix's columns), which the
 * fits cannot follow (docs/extrapolate.md, "Refusal"); a histogram's updates, data-
 * dependent over bins that do not grow, pass. Nothing with --allow-irregular. */
int ppt_extrapolate_check_irregular(const args *a, const results *r, ppt_err *err);
/* 1 when some trace's block table is not the first's (its blocks were matched by key). */
int ppt_extrapolate_other_binaries(const args *a, const results *r);

/* The output steps of ppt_cli_steps (extrapolate_out.c). */
int ppt_extrapolate_write_table(void *args, void *results, ppt_err *err);
int ppt_extrapolate_write_json(void *args, void *results, ppt_err *err);
int ppt_extrapolate_write_files(void *args, void *results, ppt_err *err);

#endif
