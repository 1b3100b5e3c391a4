/* predict.h — what `ppt predict`'s run (cmd_predict.c) hands its output
 * (predict_out.c): per --hw spec, ppt/predict.h's result. Internal to apps/ppt. */
#ifndef PPT_APPS_PREDICT_H
#define PPT_APPS_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ppt/hwspec.h"
#include "ppt/predict.h"

#define PPT_PREDICT_MAX_SPECS 8   /* --hw A.json,B.json,... */
#define PPT_PREDICT_MAX_MODELS 64 /* --models */

typedef struct args {
  ppt_cli_common c;    /* --hw, --cores, --interleave, --seed, --only, --plot, --json; c.operand: the trace */
  ppt_predict_opts po; /* the mimic options, --overlap/--compute/--memory/--loops, --fork-cycles */
  char model_names[PPT_PREDICT_MAX_MODELS][64]; /* --models, each as given */
  ppt_tc_policy models[PPT_PREDICT_MAX_MODELS];
  size_t nmodels;
  uint64_t top_regions; /* --regions: rows of each core count's table of regions */
} args;

/* The predictions on one spec of --hw. */
typedef struct spec_run {
  const char *file; /* its --hw entry */
  ppt_hwspec hw;
  ppt_predict_result *res; /* one point per core count, and the --models' runtimes */
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
