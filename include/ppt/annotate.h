/* ppt/annotate.h — references and misses per cache level attributed to the code that made
 * them (`ppt annotate`, cg_annotate's view of SASMM's N-core run).
 *
 * The run is the one ppt_tracesim_sasmm (ppt/tracesim.h) simulates: the mimicked cores'
 * interleaved stream through an exact simulation of a hwspec. Each reference is charged
 * to its block (the record's `bb`), with the level that served it
 * (ppt_tracesim_tally_access): a reference served at level d missed levels 0..d-1, so
 * misses are in references, Cachegrind's unit. A block's source line is the first line
 * of the block (ppt_trace_bb.line), so a block that spans several lines is charged to its
 * first one; cg_annotate, which has a line per instruction, spreads it.
 *
 * The per-block counts add up to the simulation's own totals exactly; ppt_annotate_run
 * checks that and fails (PPT_ERUN) if they did not. */
#ifndef PPT_ANNOTATE_H
#define PPT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/sasmm.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

/* Counted references of some code and, per level k, how many of them missed k (were
 * served beyond it: by a later level or memory). */
typedef struct ppt_annotate_counts {
  uint64_t refs;
  uint64_t misses[PPT_HW_MAX_LEVELS];
} ppt_annotate_counts;

typedef struct ppt_annotate_opts {
  ppt_sasmm_opts sasmm; /* the mimic: ncores, interleave, seed, schedule, quantum */
  /* NULL = count everything; else [nbbs + 1], nonzero = the block's references are counted
   * (ppt_trace_select). Every reference is simulated either way. */
  const uint8_t *counted;
  /* Called now and then with the references simulated so far; may be NULL. */
  void (*progress)(uint64_t done, void *arg);
  void *progress_arg;
} ppt_annotate_opts;

void ppt_annotate_opts_default(ppt_annotate_opts *o);

typedef struct ppt_annotate_result {
  uint32_t nlevels;
  uint32_t nbbs;
  /* [nbbs + 1]: per block id; index 0 holds references made before any block entry */
  ppt_annotate_counts *blocks;
  ppt_annotate_counts total;  /* the sum over blocks */
  ppt_tracesim_result totals; /* the simulation's own totals (what ppt_tracesim_sasmm gives) */
  ppt_sasmm_stats stats;
} ppt_annotate_result;

/* Mimics o->sasmm.ncores cores of t, simulates their interleaved stream on hw and counts
 * per block. Errors as ppt_tracesim_sasmm's. Release *out with ppt_annotate_result_free
 * (also after a failure). */
int ppt_annotate_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_annotate_opts *o,
                     ppt_annotate_result *out, ppt_err *err);
void ppt_annotate_result_free(ppt_annotate_result *r);

/* One row of a table: the blocks of one function (by function and file; line 0) or of one
 * source line (by file, line and function: an OpenMP pragma's line has blocks in the
 * caller and in the outlined body, which stay apart). Strings point into t's block table;
 * the references before any block entry are the row "(no block)", file "". */
typedef struct ppt_annotate_row {
  const char *function, *file;
  uint32_t line;
  ppt_annotate_counts c;
} ppt_annotate_row;

enum ppt_annotate_by { PPT_ANNOTATE_BY_FUNCTION = 0, PPT_ANNOTATE_BY_LINE = 1 };

/* The rows with at least one counted reference, ordered by file, line and function
 * (function, file for PPT_ANNOTATE_BY_FUNCTION). *rows is malloc'd (NULL when n is 0). */
int ppt_annotate_group(const ppt_trace *t, const ppt_annotate_result *r, enum ppt_annotate_by by,
                       ppt_annotate_row **rows, size_t *n, ppt_err *err);

/* Sorts rows by misses at level `level` (0-based; -1: by references), most first; ties by
 * references, then in the order they had. Returns 0, or -1 when out of memory (rows unchanged). */
int ppt_annotate_sort(ppt_annotate_row *rows, size_t n, int level);

#endif
