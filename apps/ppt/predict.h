/* predict.h — what `ppt predict`'s run (cmd_predict.c) hands its output
 * (predict_out.c): per --hw spec, per core count, the runtime, its breakdown and the
 * regions' rows. Internal to apps/ppt. */
#ifndef PPT_APPS_PREDICT_H
#define PPT_APPS_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ppt/engine.h"
#include "ppt/hwspec.h"
#include "ppt/progmodel.h"
#include "ppt/tracesim.h"

#define PPT_PREDICT_MAX_SPECS 8 /* --hw A.json,B.json,... */

/* A site of the program model (ppt/progmodel.h) summed over its phases at one core
 * count: the engine's seconds and breakdown of its regions, its hit rates. */
typedef struct site_row {
  char function[128], file[256];
  uint32_t line;
  int parallel;
  uint64_t instances;
  double runtime_s, compute_s, memory_s, imbalance_s, fork_join_s;
  double contention_s;              /* turns on contended lines beyond the thread's own work */
  double ops_s, cpu_s[PPT_TC_NCPU]; /* compute_s's parts (ppt_thread_stats) */
  double seg_compute, seg_memory;   /* --plot: mean busy time less fork-join, split */
  ppt_progmodel_site_info info;     /* counts and rates (its strings are not kept) */
} site_row;

typedef struct point {
  uint32_t n;
  double seconds, compute_s, memory_s, wait_s, contention_s;
  double ops_s, cpu_s[PPT_TC_NCPU]; /* compute_s's parts */
  size_t regions;
  ppt_tracesim_result rates;
  site_row *rows; /* sorted by runtime_s, largest first */
  size_t nrows;
} point;

/* A core model of --models: its name as given and its policy. */
typedef struct model {
  char name[64];
  ppt_tc_policy pol;
} model;

typedef struct args {
  ppt_cli_common c; /* --hw, --cores, --interleave, --seed, --only, --plot, --json; c.operand: the trace */
  ppt_sasmm_opts so;
  ppt_node_config cfg;
  model models[64]; /* --models */
  size_t nmodels;
  double fork_cycles; /* --fork-cycles, when fork_set */
  int fork_set;
} args;

/* The predictions on one spec of --hw. */
typedef struct spec_run {
  const char *file; /* its --hw entry */
  ppt_hwspec hw;
  double fork_cycles; /* of a region on more than one thread: --fork-cycles, else the spec's */
  point *pts;         /* one per core count */
  size_t npts;
  double *mrt; /* --models: runtime of model j on core count i at mrt[j * ncores + i] */
} spec_run;

typedef struct results {
  char *files_text; /* --hw's copy, split at its commas */
  const char *files[PPT_PREDICT_MAX_SPECS];
  spec_run runs[PPT_PREDICT_MAX_SPECS]; /* one per --hw spec, in order */
  size_t nruns;
} results;

/* The output steps of ppt_cli_steps (predict_out.c). */
int ppt_predict_write_table(void *args, void *results, ppt_err *err);
int ppt_predict_write_json(void *args, void *results, ppt_err *err);
int ppt_predict_write_plot(void *args, void *results, ppt_err *err);

#endif
