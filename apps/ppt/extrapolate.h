/* extrapolate.h — what `ppt extrapolate`'s run (cmd_extrapolate.c) hands its output
 * (extrapolate_out.c): the options, and the library's result (ppt/extrapolate.h) beside
 * the spec and traces it was computed on. Internal to apps/ppt. */
#ifndef PPT_APPS_EXTRAPOLATE_H
#define PPT_APPS_EXTRAPOLATE_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ppt/extrapolate.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"

#define MAX_TRACES PPT_EXTRAP_MAX_TRACES

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

typedef struct results {
  ppt_hwspec hw;
  ppt_trace *t[MAX_TRACES];
  uint8_t *counted_of[MAX_TRACES]; /* each trace's --only selection (NULL: all) */
  ppt_extrap_job_result *x;        /* ppt_extrap_run's */
} results;

/* The output steps of ppt_cli_steps (extrapolate_out.c). */
int ppt_extrapolate_write_table(void *args, void *results, ppt_err *err);
int ppt_extrapolate_write_json(void *args, void *results, ppt_err *err);
int ppt_extrapolate_write_files(void *args, void *results, ppt_err *err);

#endif
