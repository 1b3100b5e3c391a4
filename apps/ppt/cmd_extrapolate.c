/* cmd_extrapolate.c — `ppt extrapolate`: hit rates at a problem size that was not traced,
 * from traces of the same program at a few smaller sizes (issue 17; the model is
 * include/ppt/extrap.h, the page docs/extrapolate.md).
 *
 * Per traced size and core count the sequential trace is mimicked and measured as `ppt
 * sasmm --model sdcm` does, keeping per-block histograms; the model is fitted per core
 * count and rebuilds the summed PRD and the CRD at the target, whose hit rates are SDCM's
 * (ppt_sdcm_sasmm_hitrates, the same call as `ppt sasmm --model sdcm`). With three traces
 * or more the model is first fitted without the largest and must predict it: when it
 * cannot, the behaviour changes with the size and nothing is extrapolated. */
#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ppt/extrap.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/trace.h"

#define MAX_TRACES 16
#define DRAWS 200              /* bootstrap draws of the band */
#define CHECK_POINTS 2.0       /* largest allowed hit-rate error at the checked size, points */
#define CHECK_BLOCK 0.05       /* largest allowed error of a block's reference count */
#define CHECK_BLOCK_SHARE 0.01 /* ... for blocks with at least this share of the references */
#define UNMATCHED_MAX 0.01     /* largest share of a trace's references in unmatched blocks */
#define NL PPT_HW_MAX_LEVELS

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
      "refused (exit 1). With 2 traces the result is marked unchecked.\n\n"
      "  --trace P=V:FILE       a trace taken at size V of parameter P (2 to %d, same program)\n"
      "  --target P=V           the size to predict\n"
      "  --hw SPEC              hwspec JSON (cache levels)\n" PPT_CLI_SET_HELP
      "  --cores LIST           core counts, comma-separated (default 1,2,4,8,16)\n"
      "  --seed S               seed of the confidence band's draws (default 1)\n" PPT_CLI_ONLY_HELP
          PPT_CLI_NOSTACK_HELP
      "  --json                 machine-readable results on stdout\n"
      "  -o FILE                write the JSON results to FILE (atomically)\n"
      "  --plot FILE.png        per level, hit rate against P: the traced sizes and the target\n"
      "                         with its band, a line per core count (gnuplot)\n"
      "  -h, --help\n",
      100 * UNMATCHED_MAX, CHECK_POINTS, 100 * CHECK_BLOCK, MAX_TRACES);
}

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
} args;

/* One core count: measured rates per traced size, the check, the prediction and its band. */
typedef struct point {
  uint32_t n;
  ppt_sdcm_rates meas[MAX_TRACES][NL];
  double check_err[NL]; /* predicted - measured at the largest size, points (NaN: unchecked) */
  ppt_sdcm_rates pred[NL];
  double lo[NL], hi[NL], refs;
} point;

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
} results;

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
  static const struct option own[] = {
      {"trace", required_argument, 0, 'T'}, {"target", required_argument, 0, 'G'}, {0, 0, 0, 0}};
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

/* Traces of one binary have one block table: the same blocks, sources and op mixes. */
static int same_binary(const ppt_trace *a, const ppt_trace *b) {
  uint32_t n = ppt_trace_nbbs(a);
  if (n != ppt_trace_nbbs(b)) return 0;
  for (uint32_t id = 1; id <= n; id++) {
    const ppt_trace_bb *x = ppt_trace_bb_get(a, id), *y = ppt_trace_bb_get(b, id);
    if (x->flags != y->flags || x->line != y->line || strcmp(x->func, y->func) || strcmp(x->file, y->file) ||
        memcmp(x->ops, y->ops, sizeof x->ops))
      return 0;
  }
  return 1;
}

static int open_traces(const args *a, results *r, ppt_err *err) {
  for (size_t i = 0; i < a->ntr; i++) {
    int rc = ppt_cli_open_sequential(a->tr[i].path, &r->t[i], err);
    if (!rc) rc = ppt_cli_counted(&a->c, r->t[i], &r->counted_of[i], err);
    if (rc) return rc;
    ppt_cli_stack_refs(&a->c, r->t[i]);
    if (!i || same_binary(r->t[0], r->t[i])) continue; /* the fast path: ids are the ids */
    if (!(r->map[i] = malloc(((size_t)ppt_trace_nbbs(r->t[i]) + 1) * sizeof *r->map[i])))
      return ppt_err_set(err, PPT_ERUN, "out of memory");
    if ((rc = ppt_extrap_match_blocks(r->t[0], r->t[i], r->map[i], err))) return rc;
  }
  r->counted = r->counted_of[0];
  for (size_t i = 0; i < a->ntr; i++) r->order[i] = i;
  for (size_t i = 1; i < a->ntr; i++) /* insertion sort by size */
    for (size_t j = i; j > 0 && a->tr[r->order[j]].value < a->tr[r->order[j - 1]].value; j--) {
      size_t s = r->order[j];
      r->order[j] = r->order[j - 1];
      r->order[j - 1] = s;
    }
  return 0;
}

/* 1 when some trace's block table is not the first's (its blocks were matched by key). */
static int other_binaries(const args *a, const results *r) {
  int any = 0;
  for (size_t i = 1; i < a->ntr; i++) any |= r->map[i] != NULL;
  return any;
}

/* The first trace's blocks that some other trace has no match for (drop[id] = 1), and in
 * *lacks[id] the first such trace. */
static int missing_blocks(const args *a, const results *r, uint8_t *drop, size_t *lacks, ppt_err *err) {
  uint32_t nref = ppt_trace_nbbs(r->t[0]);
  uint8_t *seen = malloc((size_t)nref + 1);
  if (!seen) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 1; i < a->ntr; i++) {
    if (!r->map[i]) continue;
    memset(seen, 0, (size_t)nref + 1);
    for (uint32_t b = 1; b <= ppt_trace_nbbs(r->t[i]); b++) seen[r->map[i][b]] = 1;
    for (uint32_t id = 1; id <= nref; id++)
      if (!seen[id] && !drop[id]) {
        drop[id] = 1;
        lacks[id] = i;
      }
  }
  free(seen);
  return 0;
}

/* The trace lacking the first trace's heaviest dropped block (for the refusal). */
static size_t heaviest_lack(const results *r, const uint8_t *drop, const size_t *lacks) {
  const ppt_sasmm_profiles *p = &r->prof[0][0];
  double most = -1;
  size_t who = 1;
  for (uint32_t b = 1; b < p->nblocks; b++)
    if (drop[b] && p->prd_bb[b] && ppt_rdhist_total(p->prd_bb[b]) > most) {
      most = ppt_rdhist_total(p->prd_bb[b]);
      who = lacks[b];
    }
  return who;
}

/* Traces of other binaries (the size compiled in): every trace's per-block histograms on
 * the first trace's ids, keeping the blocks that every trace has. Blocks that exist at
 * some sizes only (a loop fully unrolled at a small N) are left out of the model while
 * they hold under UNMATCHED_MAX of every trace's counted references; beyond that the
 * programs differ and are refused. */
static int align_blocks(const args *a, results *r, ppt_err *err) {
  if (!other_binaries(a, r)) return 0;
  uint32_t nref = ppt_trace_nbbs(r->t[0]);
  uint8_t *drop = calloc((size_t)nref + 1, 1);
  size_t *lacks = calloc((size_t)nref + 1, sizeof *lacks);
  int rc =
      drop && lacks ? missing_blocks(a, r, drop, lacks, err) : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < a->ntr && !rc; i++) {
    r->unmatched[i] = ppt_extrap_unmatched_share(&r->prof[i][0], r->map[i], drop, r->counted_of[i]);
    if (r->unmatched[i] < UNMATCHED_MAX) continue;
    size_t other = i ? 0 : heaviest_lack(r, drop, lacks);
    rc = ppt_err_set(err, PPT_EINPUT,
                     "%s: %.1f %% of its references are in blocks that %s does not have (matched by "
                     "function, file, line): not the same program (at most %.0f %% may differ)",
                     a->tr[i].path, 100 * r->unmatched[i], a->tr[other].path, 100 * UNMATCHED_MAX);
  }
  for (size_t i = 0; i < a->ntr && !rc; i++)
    for (size_t c = 0; c < a->c.ncores && !rc; c++)
      rc = ppt_extrap_remap_blocks(&r->prof[i][c], r->map[i], nref, drop, err);
  free(drop);
  free(lacks);
  return rc;
}

/* Every trace at every core count, measured as `ppt sasmm --model sdcm` (exact reuse, rr),
 * with per-block histograms; and its measured hit rates. */
static int measure(const args *a, results *r, ppt_err *err) {
  ppt_reuse_opts ro;
  ppt_reuse_opts_default(&ro);
  ro.line = r->hw.levels[0].line;
  ppt_cli_progress *pg = ppt_cli_progress_start("traces x core counts", a->ntr * a->c.ncores);
  int rc = 0;
  for (size_t i = 0; i < a->ntr && !rc; i++)
    for (size_t c = 0; c < a->c.ncores && !rc; c++) {
      ppt_sasmm_opts o;
      ppt_sasmm_opts_default(&o);
      o.ncores = a->c.cores[c];
      o.seed = a->c.seed;
      o.keep_blocks = 1;
      rc = ppt_sasmm_measure(r->t[i], &o, &ro, r->counted_of[i], &r->prof[i][c], err);
      if (!rc) rc = ppt_sdcm_sasmm_hitrates(&r->hw, &r->prof[i][c], r->pt[c].meas[i], NULL, err);
      ppt_cli_progress_update(pg, i * a->c.ncores + c + 1);
    }
  ppt_cli_progress_end(pg);
  return rc;
}

/* Fits the model of core count c on the traces order[0..n) (by size). */
static int fit(const args *a, results *r, size_t c, size_t n, ppt_extrap_model **m, ppt_err *err) {
  double sizes[MAX_TRACES];
  const ppt_sasmm_profiles *profs[MAX_TRACES];
  for (size_t i = 0; i < n; i++) {
    sizes[i] = a->tr[r->order[i]].value;
    profs[i] = &r->prof[r->order[i]][c];
  }
  ppt_extrap_opts o;
  ppt_extrap_opts_default(&o);
  return ppt_extrap_fit(sizes, profs, n, &o, m, err);
}

/* SDCM of the model's profiles at size (draw 0: the fit; k: the k-th bootstrap draw). */
static int rates_at(const args *a, const results *r, const ppt_extrap_model *m, double size, unsigned draw,
                    ppt_sdcm_rates *rates, double *refs, ppt_err *err) {
  ppt_sasmm_profiles p;
  int rc = ppt_extrap_predict(m, size, r->counted, a->c.seed, draw, &p, err);
  if (rc) return rc;
  if (ppt_rdhist_total(p.prd_all) <= 0)
    rc = ppt_err_set(err, PPT_EINPUT, "%s=%g: no references predicted", a->target.param, size);
  if (!rc) rc = ppt_sdcm_sasmm_hitrates(&r->hw, &p, rates, NULL, err);
  if (refs) *refs = ppt_rdhist_total(p.prd_all);
  ppt_sasmm_profiles_free(&p);
  return rc;
}

/* The traces but the largest, named for the refusal's message. */
static void smaller_names(const args *a, const results *r, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (size_t i = 0; i + 1 < a->ntr && len < cap; i++) {
    const size_arg *s = &a->tr[r->order[i]];
    len += (size_t)snprintf(buf + len, cap - len, "%s%s=%g:%s", i ? ", " : "", s->param, s->value, s->path);
  }
}

/* With 3 traces or more: the model of all but the largest must predict the largest. */
static int check(const args *a, results *r, size_t c, ppt_err *err) {
  point *pt = &r->pt[c];
  size_t last = r->order[a->ntr - 1];
  const size_arg *big = &a->tr[last];
  ppt_extrap_model *m;
  int rc = fit(a, r, c, a->ntr - 1, &m, err);
  ppt_sdcm_rates pred[NL];
  if (!rc) rc = rates_at(a, r, m, big->value, 0, pred, NULL, err);
  uint32_t bb = 0;
  double berr = 0;
  if (!rc)
    rc = ppt_extrap_block_error(m, big->value, &r->prof[last][c], r->counted, CHECK_BLOCK_SHARE, &bb, &berr,
                                err);
  ppt_extrap_model_free(m);
  if (rc) return rc;
  char names[1024];
  smaller_names(a, r, names, sizeof names);
  for (uint32_t k = 0; k < r->hw.nlevels; k++) {
    pt->check_err[k] = 100 * (pred[k].hit_rate - pt->meas[last][k].hit_rate);
    if (fabs(pt->check_err[k]) > CHECK_POINTS)
      return ppt_err_set(err, PPT_ERUN,
                         "%s predict %s=%g:%s with %s off by %.2f points at %u cores (measured %.2f %%, "
                         "threshold %.0f): the behaviour changes with %s between the traced sizes: not "
                         "extrapolated",
                         names, big->param, big->value, big->path, r->hw.levels[k].name, pt->check_err[k],
                         pt->n, 100 * pt->meas[last][k].hit_rate, CHECK_POINTS, big->param);
  }
  if (berr > CHECK_BLOCK) {
    const ppt_trace_bb *b = bb ? ppt_trace_bb_get(r->t[0], bb) : NULL;
    return ppt_err_set(
        err, PPT_ERUN,
        "%s predict %s=%g:%s with the references of block %u (%s, %s:%u) off by %.1f %% at %u "
        "cores (threshold %.0f %%): the behaviour changes with %s between the traced sizes: not "
        "extrapolated",
        names, big->param, big->value, big->path, bb, b ? b->func : "-", b ? b->file : "-", b ? b->line : 0,
        100 * berr, pt->n, 100 * CHECK_BLOCK, big->param);
  }
  return 0;
}

/* The fit of all traces at the target, and the 5th-95th percentiles of DRAWS draws. */
static int predict(const args *a, results *r, size_t c, ppt_err *err) {
  point *pt = &r->pt[c];
  ppt_extrap_model *m;
  int rc = fit(a, r, c, a->ntr, &m, err);
  if (rc) return rc;
  r->blocks = ppt_extrap_model_blocks(m);
  ppt_extrap_model_degrees(m, r->degrees);
  rc = rates_at(a, r, m, a->target.value, 0, pt->pred, &pt->refs, err);
  double *v = rc ? NULL : malloc((size_t)r->hw.nlevels * DRAWS * sizeof *v);
  if (!rc && !v) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  for (unsigned d = 1; d <= DRAWS && !rc; d++) {
    ppt_sdcm_rates dr[NL];
    if (!(rc = rates_at(a, r, m, a->target.value, d, dr, NULL, err)))
      for (uint32_t k = 0; k < r->hw.nlevels; k++) v[k * DRAWS + d - 1] = dr[k].hit_rate;
  }
  /* The draws see only the fits' scatter, none for a fit through every point; the
   * check's error (the largest size predicted from the others) is the model's error
   * one step out, grown with how much further out the target is (in log size). The
   * band is the wider of the two. */
  double f = 1;
  if (r->checked) {
    double smax = a->tr[r->order[a->ntr - 1]].value, sprev = a->tr[r->order[a->ntr - 2]].value;
    f = log(a->target.value / smax) / log(smax / sprev);
    f = f > 1 ? f : 1;
  }
  for (uint32_t k = 0; k < r->hw.nlevels && !rc; k++) {
    gsl_sort(v + k * DRAWS, 1, DRAWS);
    pt->lo[k] = gsl_stats_quantile_from_sorted_data(v + k * DRAWS, 1, DRAWS, 0.05);
    pt->hi[k] = gsl_stats_quantile_from_sorted_data(v + k * DRAWS, 1, DRAWS, 0.95);
    double w = f * fabs(pt->check_err[k]) / 100;
    if (r->checked && isfinite(w)) {
      pt->lo[k] = fmax(0, fmin(pt->lo[k], pt->pred[k].hit_rate - w));
      pt->hi[k] = fmin(1, fmax(pt->hi[k], pt->pred[k].hit_rate + w));
    }
  }
  free(v);
  ppt_extrap_model_free(m);
  return rc;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  if (!rc) rc = open_traces(a, r, err);
  if (!rc) rc = ppt_cli_check_memory(&a->c, r->t[r->order[a->ntr - 1]], &r->hw, 1, 1, err);
  for (size_t c = 0; c < a->c.ncores; c++) {
    r->pt[c].n = a->c.cores[c];
    for (uint32_t k = 0; k < NL; k++) r->pt[c].check_err[k] = NAN;
  }
  if (!rc) rc = measure(a, r, err);
  if (!rc) rc = align_blocks(a, r, err);
  r->checked = a->ntr >= 3;
  for (size_t c = 0; c < a->c.ncores && !rc && r->checked; c++) rc = check(a, r, c, err);
  for (size_t c = 0; c < a->c.ncores && !rc; c++) rc = predict(a, r, c, err);
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  for (size_t i = 0; i < MAX_TRACES; i++) {
    for (size_t c = 0; c < PPT_CLI_MAX_CORES; c++) ppt_sasmm_profiles_free(&r->prof[i][c]);
    ppt_trace_close(r->t[i]);
    free(r->counted_of[i]);
    free(r->map[i]);
  }
}

/* ---------------------------------------------------------------- output */

static json_object *level_json(const results *r, const point *pt, uint32_t k) {
  json_object *l = json_object_new_object();
  double reach = k ? pt->refs * (1.0 - pt->pred[k - 1].hit_rate) : pt->refs;
  json_object_object_add(l, "name", json_object_new_string(r->hw.levels[k].name));
  json_object_object_add(l, "shared", json_object_new_boolean(r->hw.levels[k].shared_by > 1));
  json_object_object_add(l, "hit_rate", ppt_cli_json_rate(pt->pred[k].hit_rate));
  json_object_object_add(l, "hit_rate_lo", ppt_cli_json_rate(pt->lo[k]));
  json_object_object_add(l, "hit_rate_hi", ppt_cli_json_rate(pt->hi[k]));
  json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(pt->pred[k].local_hit_rate));
  json_object_object_add(l, "accesses", json_object_new_double(reach));
  json_object_object_add(l, "misses", json_object_new_double(pt->refs * (1.0 - pt->pred[k].hit_rate)));
  return l;
}

static json_object *size_json(const size_arg *s) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "param", json_object_new_string(s->param));
  json_object_object_add(o, "value", json_object_new_double(s->value));
  return o;
}

/* The traces, by size, with their measured hit rates per core count. */
static json_object *traces_json(const args *a, const results *r) {
  json_object *arr = json_object_new_array();
  for (size_t j = 0; j < a->ntr; j++) {
    size_t i = r->order[j];
    json_object *o = size_json(&a->tr[i]), *mc = json_object_new_array();
    json_object_object_add(o, "path", json_object_new_string(a->tr[i].path));
    json_object_object_add(o, "refs", json_object_new_double(ppt_rdhist_total(r->prof[i][0].prd_all)));
    json_object_object_add(o, "unmatched_refs_share", json_object_new_double(r->unmatched[i]));
    for (size_t c = 0; c < a->c.ncores; c++) {
      json_object *e = json_object_new_object(), *lv = json_object_new_array();
      json_object_object_add(e, "cores", json_object_new_int((int)r->pt[c].n));
      for (uint32_t k = 0; k < r->hw.nlevels; k++) {
        json_object *l = json_object_new_object();
        json_object_object_add(l, "name", json_object_new_string(r->hw.levels[k].name));
        json_object_object_add(l, "hit_rate", ppt_cli_json_rate(r->pt[c].meas[i][k].hit_rate));
        json_object_array_add(lv, l);
      }
      json_object_object_add(e, "levels", lv);
      json_object_array_add(mc, e);
    }
    json_object_object_add(o, "measured", mc);
    json_object_array_add(arr, o);
  }
  return arr;
}

/* The largest share of a trace's counted references that no other binary's block matched. */
static double most_unmatched(const args *a, const results *r) {
  double most = 0;
  for (size_t i = 0; i < a->ntr; i++) most = fmax(most, r->unmatched[i]);
  return most;
}

static json_object *model_json(const args *a, const results *r) {
  json_object *m = json_object_new_object(), *loo = json_object_new_array(), *deg = json_object_new_object();
  json_object_object_add(m, "blocks", json_object_new_int64(r->blocks));
  json_object_object_add(m, "matched_by_key", json_object_new_boolean(other_binaries(a, r)));
  json_object_object_add(m, "unmatched_refs_share", json_object_new_double(most_unmatched(a, r)));
  json_object_object_add(m, "checked", json_object_new_boolean(r->checked));
  json_object_object_add(m, "threshold_points", json_object_new_double(CHECK_POINTS));
  for (size_t c = 0; c < a->c.ncores && r->checked; c++)
    for (uint32_t k = 0; k < r->hw.nlevels; k++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "cores", json_object_new_int((int)r->pt[c].n));
      json_object_object_add(e, "level", json_object_new_string(r->hw.levels[k].name));
      json_object_object_add(e, "error_points", json_object_new_double(r->pt[c].check_err[k]));
      json_object_array_add(loo, e);
    }
  json_object_object_add(m, "loo", loo);
  for (int d = 0; d < PPT_EXTRAP_NFORMS; d++) {
    char key[8];
    snprintf(key, sizeof key, d == PPT_EXTRAP_POWER ? "power" : "%d", d);
    json_object_object_add(deg, key, json_object_new_int64((int64_t)r->degrees[d]));
  }
  json_object_object_add(m, "degrees", deg);
  json_object_object_add(m, "draws", json_object_new_int(DRAWS));
  return m;
}

static json_object *results_json(const args *a, const results *r) {
  json_object *o = json_object_new_object(), *cores = json_object_new_array();
  json_object_object_add(o, "target", size_json(&a->target));
  json_object_object_add(o, "hwspec", json_object_new_string(a->c.hw));
  json_object_object_add(o, "seed", json_object_new_int64((int64_t)a->c.seed));
  json_object_object_add(o, "only", a->c.only_list ? json_object_new_string(a->c.only_list) : NULL);
  json_object_object_add(o, "traces", traces_json(a, r));
  for (size_t c = 0; c < a->c.ncores; c++) {
    json_object *e = json_object_new_object(), *lv = json_object_new_array();
    json_object_object_add(e, "cores", json_object_new_int((int)r->pt[c].n));
    for (uint32_t k = 0; k < r->hw.nlevels; k++) json_object_array_add(lv, level_json(r, &r->pt[c], k));
    json_object_object_add(e, "levels", lv);
    json_object_object_add(e, "refs", json_object_new_double(r->pt[c].refs));
    json_object_array_add(cores, e);
  }
  json_object_object_add(o, "cores", cores);
  json_object_object_add(o, "model", model_json(a, r));
  return o;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  return ppt_cli_put_json(results_json(va, vr), JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
                          err);
}

/* --plot's data: per core count c, block 2c the traced sizes ("size h1 h2 ..."), block
 * 2c + 1 the target ("size p1 lo1 hi1 p2 lo2 hi2 ..."), rates in percent. */
static int plot_data(const args *a, const results *r, const char *tmp, ppt_err *err) {
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", a->c.plot, strerror(errno));
  for (size_t c = 0; c < a->c.ncores; c++) {
    const point *pt = &r->pt[c];
    for (size_t j = 0; j < a->ntr; j++) {
      fprintf(d, "%.9g", a->tr[r->order[j]].value);
      for (uint32_t k = 0; k < r->hw.nlevels; k++)
        fprintf(d, " %.6f", 100 * pt->meas[r->order[j]][k].hit_rate);
      fprintf(d, "\n");
    }
    fprintf(d, "\n\n%.9g", a->target.value);
    for (uint32_t k = 0; k < r->hw.nlevels; k++)
      fprintf(d, " %.6f %.6f %.6f", 100 * pt->pred[k].hit_rate, 100 * pt->lo[k], 100 * pt->hi[k]);
    fprintf(d, "\n\n\n");
  }
  return ppt_cli_close_data(d, tmp, a->c.plot, err) ? PPT_ERUN : 0;
}

/* --plot: a panel per level, hit rate against the size (log scale), a colour per core
 * count: the measured traced sizes joined by a line, the target's prediction with its
 * band as an error bar. */
static int write_plot(const args *a, const results *r, ppt_err *err) {
  char tmp[4096], title[512];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", a->c.plot, (long)getpid());
  int rc = plot_data(a, r, tmp, err);
  if (rc) return rc;
  size_t cap = 2048 + (size_t)r->hw.nlevels * (512 + a->c.ncores * (2 * sizeof tmp + 256)), n = 0;
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  snprintf(title, sizeof title, "%s=%g from %zu sizes (%s); bar: band", a->target.param,
           a->target.value, a->ntr, r->hw.name);
  n += (size_t)snprintf(
      sc, cap,
      "set multiplot layout 1,%u title 'ppt extrapolate: %s'\nunset title\nset logscale x\n"
      "set xlabel '%s'\nset ylabel 'hit rate (%%)'\nset grid\nset key below horizontal font ',8'\n"
      "set offsets graph 0.08, graph 0.12, graph 0.08, graph 0.08\n",
      r->hw.nlevels, title, a->target.param);
  for (uint32_t k = 0; k < r->hw.nlevels; k++) {
    n += (size_t)snprintf(sc + n, cap - n, "set title '%s%s'\nplot ", r->hw.levels[k].name,
                          r->hw.levels[k].shared_by > 1 ? " (shared)" : "");
    for (size_t c = 0; c < a->c.ncores; c++)
      n += (size_t)snprintf(sc + n, cap - n,
                            "%s'%s' index %zu using 1:%u with linespoints pt 7 lc %zu title '%u cores', "
                            "'' index %zu using 1:%u:%u:%u with yerrorbars pt 5 ps 1.5 lc %zu notitle",
                            c ? ", " : "", tmp, 2 * c, k + 2, c + 1, r->pt[c].n, 2 * c + 1, 3 * k + 2,
                            3 * k + 3, 3 * k + 4, c + 1);
    n += (size_t)snprintf(sc + n, cap - n, "\n");
  }
  snprintf(sc + n, cap - n, "unset multiplot\n");
  rc = ppt_cli_gnuplot(a->c.plot, tmp, sc, "ppt extrapolate", title, err);
  free(sc);
  return rc;
}

static int write_files(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  int rc = 0;
  if (a->c.output) {
    json_object *o = results_json(a, vr);
    rc = ppt_io_write_file(a->c.output, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), err);
    json_object_put(o);
  }
  if (!rc && a->c.plot) rc = write_plot(a, vr, err);
  return rc;
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  printf("# %s=%g from", a->target.param, a->target.value);
  for (size_t j = 0; j < a->ntr; j++)
    printf(" %s=%g (%s)", a->tr[r->order[j]].param, a->tr[r->order[j]].value, a->tr[r->order[j]].path);
  printf(" on %s; seed %llu, %d draws%s%s\n", r->hw.name, (unsigned long long)a->c.seed, DRAWS,
         a->c.only_list ? ", only " : "", a->c.only_list ? a->c.only_list : "");
  printf("%-6s %-6s %9s %19s", "cores", "level", "predicted", "band");
  for (size_t j = 0; j < a->ntr; j++) {
    char h[80];
    snprintf(h, sizeof h, "%s=%g", a->tr[r->order[j]].param, a->tr[r->order[j]].value);
    printf(" %9s", h);
  }
  printf(r->checked ? " %9s\n" : "\n", "check");
  for (size_t c = 0; c < a->c.ncores; c++)
    for (uint32_t k = 0; k < r->hw.nlevels; k++) {
      const point *pt = &r->pt[c];
      printf("%-6u %-6s %8.2f%% [%7.2f%%, %7.2f%%]", pt->n, r->hw.levels[k].name, 100 * pt->pred[k].hit_rate,
             100 * pt->lo[k], 100 * pt->hi[k]);
      for (size_t j = 0; j < a->ntr; j++) printf(" %8.2f%%", 100 * pt->meas[r->order[j]][k].hit_rate);
      if (r->checked) printf(" %+8.2fpt", pt->check_err[k]);
      printf("\n");
    }
  if (r->checked)
    printf(
        "# checked: the largest trace predicted from the others within %.0f points at every level "
        "(column check); %u blocks, fits of degree 0/1/2/power: %llu/%llu/%llu/%llu\n",
        CHECK_POINTS, r->blocks, (unsigned long long)r->degrees[0], (unsigned long long)r->degrees[1],
        (unsigned long long)r->degrees[2], (unsigned long long)r->degrees[PPT_EXTRAP_POWER]);
  else
    printf("# NOT checked: with 2 traces no traced size is left to test the model on; trace a third size\n");
  if (other_binaries(a, r))
    printf(
        "# different binaries: blocks matched by function, file and line; at most %.3f %% of a trace's "
        "references in blocks left out (unmatched)\n",
        100 * most_unmatched(a, r));
  return 0;
}

int ppt_cmd_extrapolate(int argc, char **argv) {
  static const ppt_cli_steps steps = {"extrapolate", parse_args,  run,    write_table,
                                      write_json,    write_files, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}
