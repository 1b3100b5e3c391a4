/* cmd_extrapolate.c — `ppt extrapolate`: hit rates and runtime at a problem size that was
 * not traced, from traces of the same program at a few smaller sizes (issue 17). This
 * file parses the options, opens the traces and calls the model, ppt_extrap_run
 * (include/ppt/extrapolate.h, models/extrap); extrapolate_out.c prints its result. The
 * page is docs/extrapolate.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "extrapolate.h"
#include "ppt/extrapolate.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"

static void help(void) {
  printf(
      "usage: ppt extrapolate --trace P=V1:A.trace --trace P=V2:B.trace [--trace ...] --target P=V\n"
      "                       --hw SPEC [options]\n\n"
      "Predicts the private (PRD) and shared (CRD) cache hit rates of every level of SPEC at a\n"
      "problem size P=V that was not traced, from sequential traces of the same program at\n"
      "smaller sizes (one binary, or builds at each size whose blocks are matched by function,\n"
      "file and line; at most %.0f %% of a trace's references may be in unmatched blocks): each block's "
      "reference count, first touches and reuse distances are\n"
      "fitted as polynomials in P (docs/extrapolate.md). With 3 traces or more the largest is\n"
      "first predicted from the others; if any level is off by more than %.0f points (or a\n"
      "block's references by more than %.0f %%) the program's behaviour changes with P and it is\n"
      "refused (exit 1), as is one whose data-dependent references range over data that\n"
      "grows with P. With 2 traces the result is marked unchecked. Per level also the rate\n"
      "with the set conflicts of the target's walks (strides per block and instruction,\n"
      "taken at P=V: w/ sets). With a SPEC that has timing, the runtime at P=V too: the\n"
      "largest trace's program model (as ppt predict) with every block weighted to its\n"
      "fitted counts and each site's misses moved as its own blocks' to those rates.\n\n"
      "  --trace P=V:FILE       a trace taken at size V of parameter P (2 to %d, same program)\n"
      "  --target P=V           the size to predict\n"
      "  --hw SPEC              hwspec JSON (cache levels)\n" PPT_CLI_SET_HELP
      "  --cores LIST           core counts, comma-separated (default 1,2,4,8,16)\n"
      "  --seed S               seed of the confidence band's draws (default 1)\n"
      "  --allow-irregular      extrapolate also when over %.0f %% of the references are\n"
      "                         data-dependent (their address steps do not repeat) and reach\n"
      "                         further as P grows: refused otherwise (exit 1)\n" PPT_CLI_ONLY_HELP
          PPT_CLI_NOSTACK_HELP
      "  --json                 machine-readable results on stdout\n"
      "  -o FILE                write the JSON results to FILE (atomically)\n"
      "  --plot FILE.png        per level, hit rate against P: the traced sizes and the target\n"
      "                         with its band, a line per core count (gnuplot)\n"
      "  -h, --help\n",
      100 * PPT_EXTRAP_UNMATCHED_MAX, PPT_EXTRAP_CHECK_POINTS, 100 * PPT_EXTRAP_CHECK_BLOCK, MAX_TRACES,
      100 * PPT_EXTRAP_IRREGULAR_MAX);
}

/* ---------------------------------------------------------------- options */

/* "P=V" (with_path 0) or "P=V:FILE" into s; 0 or -1. */
static int parse_size(const char *text, int with_path, size_arg *s) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || (size_t)(eq - text) >= sizeof s->param) return -1;
  memcpy(s->param, text, (size_t)(eq - text));
  s->param[eq - text] = 0;
  char num[64];
  const char *colon = with_path ? strchr(eq + 1, ':') : eq + 1 + strlen(eq + 1);
  if (!colon || colon == eq + 1 || (size_t)(colon - eq - 1) >= sizeof num) return -1;
  memcpy(num, eq + 1, (size_t)(colon - eq - 1));
  num[colon - eq - 1] = 0;
  if (ppt_cli_parse_double(num, &s->value) || !isfinite(s->value) || s->value <= 0) return -1;
  s->path = with_path ? colon + 1 : NULL;
  return with_path && !*s->path ? -1 : 0;
}

static int take(void *va, int val, const char *value) {
  args *a = va;
  if (val == 'I') {
    a->allow_irregular = 1;
    return 0;
  }
  if (val == 'T') {
    if (a->ntr == MAX_TRACES) return ppt_cli_usage("extrapolate", "at most %d --trace", MAX_TRACES);
    if (parse_size(value, 1, &a->tr[a->ntr]))
      return ppt_cli_usage("extrapolate", "--trace wants PARAM=VALUE:FILE with VALUE > 0, not '%s'", value);
    a->ntr++;
    return 0;
  }
  if (parse_size(value, 0, &a->target))
    return ppt_cli_usage("extrapolate", "--target wants PARAM=VALUE with VALUE > 0, not '%s'", value);
  a->has_target = 1;
  return 0;
}

/* The traces name one parameter, each size once, and the target the same parameter. */
static int check_sizes(const args *a) {
  if (a->ntr < 2) return ppt_cli_usage("extrapolate", "needs at least 2 --trace (3 to check the model)");
  if (!a->has_target) return ppt_cli_usage("extrapolate", "--target PARAM=VALUE is required");
  for (size_t i = 0; i < a->ntr; i++) {
    if (strcmp(a->tr[i].param, a->tr[0].param))
      return ppt_cli_usage("extrapolate", "--trace %s=...: every trace must vary %s", a->tr[i].param,
                           a->tr[0].param);
    for (size_t j = 0; j < i; j++)
      if (a->tr[j].value == a->tr[i].value)
        return ppt_cli_usage("extrapolate", "--trace %s: size %s=%g is given twice", a->tr[i].path,
                             a->tr[i].param, a->tr[i].value);
  }
  if (strcmp(a->target.param, a->tr[0].param))
    return ppt_cli_usage("extrapolate", "--target %s: the traces vary %s", a->target.param, a->tr[0].param);
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"trace", required_argument, 0, 'T'},
                                      {"target", required_argument, 0, 'G'},
                                      {"allow-irregular", no_argument, 0, 'I'},
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "extrapolate",
                                    .shared = PPT_OPT_HW | PPT_OPT_SET | PPT_OPT_CORES | PPT_OPT_SEED |
                                              PPT_OPT_ONLY | PPT_OPT_OUTPUT | PPT_OPT_JSON | PPT_OPT_NOSTACK |
                                              PPT_OPT_PLOT,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = NULL};
  args *a = va;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (rc) return rc;
  if (a->c.nrest) rc = ppt_cli_usage("extrapolate", "unexpected argument '%s'", a->c.rest[0]);
  if (!rc) rc = check_sizes(a);
  if (rc) ppt_cli_common_free(&a->c);
  return rc;
}

/* ---------------------------------------------------------------- run */

/* ppt_extrap_run's stages as progress bars, one after the other, each cleared as its
 * last step ends (the stages between them draw none). */
typedef struct bars {
  ppt_cli_progress *bar;
} bars;

static void on_progress(const char *stage, uint64_t done, uint64_t total, void *arg) {
  bars *b = arg;
  if (!done) {
    ppt_cli_progress_end(b->bar);
    b->bar = ppt_cli_progress_start(stage, total);
    return;
  }
  ppt_cli_progress_update(b->bar, done);
  if (done >= total) {
    ppt_cli_progress_end(b->bar);
    b->bar = NULL;
  }
}

/* Every trace opened (sequential, its --only selection, --no-stack-refs), the memory
 * checked on the largest, and the job run on them. */
static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  ppt_extrap_job_trace tr[MAX_TRACES];
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  size_t big = 0;
  for (size_t i = 0; i < a->ntr && !rc; i++) {
    rc = ppt_cli_open_sequential(a->tr[i].path, &r->t[i], err);
    if (!rc) rc = ppt_cli_counted(&a->c, r->t[i], &r->counted_of[i], err);
    ppt_cli_stack_refs(&a->c, r->t[i]);
    tr[i] = (ppt_extrap_job_trace){r->t[i], a->tr[i].value, a->tr[i].path, r->counted_of[i]};
    if (a->tr[i].value > a->tr[big].value) big = i;
  }
  if (!rc) rc = ppt_cli_check_memory(&a->c, r->t[big], &r->hw, 1, 1, err);
  if (rc) return rc;
  ppt_extrap_job_opts o;
  ppt_extrap_job_opts_default(&o);
  bars b = {NULL};
  o.traces = tr;
  o.ntraces = a->ntr;
  o.param = a->target.param;
  o.target = a->target.value;
  o.hw = &r->hw;
  o.cores = a->c.cores;
  o.ncores = a->c.ncores;
  o.seed = a->c.seed;
  o.allow_irregular = a->allow_irregular;
  o.progress = on_progress;
  o.progress_arg = &b;
  rc = ppt_extrap_run(&o, &r->x, err);
  ppt_cli_progress_end(b.bar);
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  for (size_t i = 0; i < MAX_TRACES; i++) {
    ppt_trace_close(r->t[i]);
    free(r->counted_of[i]);
  }
  ppt_extrap_job_result_free(r->x);
}

int ppt_cmd_extrapolate(int argc, char **argv) {
  static const ppt_cli_steps steps = {"extrapolate",
                                      parse_args,
                                      run,
                                      ppt_extrapolate_write_table,
                                      ppt_extrapolate_write_json,
                                      ppt_extrapolate_write_files,
                                      release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}
