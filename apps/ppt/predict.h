/* predict.h — what `ppt predict`'s run (cmd_predict.c) hands its output
 * (predict_out.c; predict_rank.c: several specs ranked; predict_sens.c: --sensitivity):
 * per --hw spec, ppt/predict.h's result. Internal to apps/ppt. */
#ifndef PPT_APPS_PREDICT_H
#define PPT_APPS_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ppt/hwspec.h"
#include "ppt/predict.h"

#define PPT_PREDICT_MAX_SPECS 10  /* --hw A.json,B.json,... */
#define PPT_PREDICT_MAX_MODELS 64 /* --models */

typedef struct args {
  ppt_cli_common c;    /* --hw, --cores, --interleave, --seed, --only, --plot, --json; c.operand: the trace */
  ppt_predict_opts po; /* the mimic options, --overlap/--compute/--memory/--loops, --fork-cycles */
  char model_names[PPT_PREDICT_MAX_MODELS][64]; /* --models, each as given */
  ppt_tc_policy models[PPT_PREDICT_MAX_MODELS];
  size_t nmodels;
  uint64_t top_regions; /* --regions: rows of each core count's table of regions */
  const char *baseline; /* --baseline NAME|FILE; NULL: the first spec */
  int detail;           /* --detail: with several specs, each spec's own tables too */
  double sens_pct;      /* --sensitivity [PCT]: each timing figure by -PCT % and +PCT %; 0: off */
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
  size_t baseline;           /* the run --baseline names (0 without it) */
  ppt_predict_sens *sens;    /* --sensitivity's re-predictions on runs[0]; NULL without it */
} results;

/* The output steps of ppt_cli_steps (predict_out.c). */
int ppt_predict_write_table(void *args, void *results, ppt_err *err);
int ppt_predict_write_json(void *args, void *results, ppt_err *err);
int ppt_predict_write_plot(void *args, void *results, ppt_err *err);

/* Several specs (predict_rank.c): per core count, the specs ranked by runtime, fastest
 * first, with their speedups over their own fewest-cores run and over the baseline;
 * in the JSON, "ranking". */
void ppt_predict_write_ranking(const args *a, const results *r);
void ppt_predict_write_ranking_json(struct json_object *o, const args *a, const results *r);
/* The notes under the table (and --json's "notes"): how the op mix maps onto a spec of
 * another ISA than the trace's. */
void ppt_predict_write_notes(const results *r);
void ppt_predict_write_notes_json(struct json_object *o, const results *r);
/* --sensitivity (predict_sens.c): per core count, the figures sorted by how far their
 * -PCT % and +PCT % move the runtime; in the JSON, "sensitivity". */
void ppt_predict_write_sens(const args *a, const results *r);
void ppt_predict_write_sens_json(struct json_object *o, const args *a, const results *r);

#endif
