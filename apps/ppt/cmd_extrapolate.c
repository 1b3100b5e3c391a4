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
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "extrapolate.h"
#include "ppt/extrap.h"
#include "ppt/hwspec.h"
#include "ppt/predict.h"
#include "ppt/progmodel.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
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
      100 * UNMATCHED_MAX, CHECK_POINTS, 100 * CHECK_BLOCK, MAX_TRACES, 100 * IRREGULAR_MAX);
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

int ppt_extrapolate_other_binaries(const args *a, const results *r) {
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
  if (!ppt_extrapolate_other_binaries(a, r)) return 0;
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
      o.crd_group = ppt_sdcm_crd_group(&r->hw);
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
  if (!rc) rc = ppt_extrapolate_block_rates(a, r, m, c, pt, err);
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

/* ---------------------------------------------------------------- runtime */

/* What each block of the largest trace weighs at the target: its instances (references)
 * fitted across the traced sizes and taken at the target, over its count in the largest
 * trace. A block the others lack (no partner) weighs what the whole program does. */
static void weigh(const double *fit, const double *big, uint32_t nref, const uint32_t *map, uint32_t nbig,
                  double *w) {
  double sf = 0, sb = 0;
  for (uint32_t id = 0; id <= nref; id++)
    if (big[id] > 0) {
      sf += fit[id];
      sb += big[id];
    }
  double all = sb > 0 ? sf / sb : 1.0;
  for (uint32_t b = 0; b <= nbig; b++) {
    uint32_t id = map ? map[b] : b;
    w[b] = (id || !b) && big[id] > 0 ? fit[id] / big[id] : all;
  }
}

static int block_weights(const args *a, results *r, ppt_err *err) {
  uint32_t nref = ppt_trace_nbbs(r->t[0]);
  size_t n = a->ntr, big = r->order[n - 1];
  uint32_t nbig = ppt_trace_nbbs(r->t[big]);
  double sizes[MAX_TRACES];
  const double *ci[MAX_TRACES], *cr[MAX_TRACES];
  double *fi = malloc(((size_t)nref + 1) * sizeof *fi), *fr = malloc(((size_t)nref + 1) * sizeof *fr);
  r->w_inst = malloc(((size_t)nbig + 1) * sizeof *r->w_inst);
  r->w_refs = malloc(((size_t)nbig + 1) * sizeof *r->w_refs);
  int rc = fi && fr && r->w_inst && r->w_refs ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < n && !rc; i++) { /* the counts of ppt_extrapolate_walks_measure's pass */
    sizes[i] = a->tr[r->order[i]].value;
    ci[i] = r->blk_inst[r->order[i]];
    cr[i] = r->blk_refs[r->order[i]];
  }
  if (!rc) rc = ppt_extrap_counts_at(sizes, ci, n, nref + 1, a->target.value, fi, err);
  if (!rc) rc = ppt_extrap_counts_at(sizes, cr, n, nref + 1, a->target.value, fr, err);
  if (!rc) {
    weigh(fi, r->blk_inst[big], nref, r->map[big], nbig, r->w_inst);
    weigh(fr, r->blk_refs[big], nref, r->map[big], nbig, r->w_refs);
  }
  free(fi);
  free(fr);
  return rc;
}

/* The blocks' miss ratios of pt (first trace's ids) on the block ids of trace big, as
 * ppt_progmodel_shift_sites takes them: bt[k] (traced) and bx[k] (target) point into the
 * malloc'd *mt and *mx; both NULL when pt has none. */
static int block_ratios(const results *r, const point *pt, size_t big, double **mt, double **mx,
                        const double **bt, const double **bx, ppt_err *err) {
  uint32_t nl = r->hw.nlevels, nbig = ppt_trace_nbbs(r->t[big]);
  *mt = *mx = NULL;
  if (!pt->blk_traced) return 0;
  *mt = malloc((size_t)nl * (nbig + 1) * sizeof **mt);
  *mx = malloc((size_t)nl * (nbig + 1) * sizeof **mx);
  if (!*mt || !*mx) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t k = 0; k < nl; k++) {
    for (uint32_t b = 0; b <= nbig; b++) {
      uint32_t id = r->map[big] ? r->map[big][b] : b;
      int in = id && id < pt->nblocks;
      (*mt)[(size_t)k * (nbig + 1) + b] = in ? pt->blk_traced[(size_t)k * pt->nblocks + id] : NAN;
      (*mx)[(size_t)k * (nbig + 1) + b] = in ? pt->blk_target[(size_t)k * pt->nblocks + id] : NAN;
    }
    bt[k] = *mt + (size_t)k * (nbig + 1);
    bx[k] = *mx + (size_t)k * (nbig + 1);
  }
  return 0;
}

/* The runtime at the target on core count c and its band: the program model of the
 * largest trace, each block weighted to its fitted counts at the target, every site's
 * misses moved so that the run's become the predicted rates (and the band's ends), run
 * on the engine as `ppt predict` runs it. */
static int runtime(const args *a, results *r, size_t c, ppt_err *err) {
  point *pt = &r->pt[c];
  size_t big = r->order[a->ntr - 1];
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = pt->n;
  o.seed = a->c.seed;
  ppt_progmodel_weights w = {r->w_inst, r->w_refs};
  ppt_progmodel *m = NULL;
  int rc = ppt_progmodel_build_weighted(r->t[big], &r->hw, &o, NULL, r->counted_of[big], &w, &m, err);
  double from[NL], to[3][NL];
  const ppt_tracesim_result *sim = rc ? NULL : ppt_progmodel_hitrates(m);
  for (uint32_t k = 0; k < r->hw.nlevels && sim; k++) {
    /* From the simulation's own run-wide miss ratio (not SDCM's at that size): the
     * extrapolated rates are then the run's rates at the target, as reported. */
    from[k] = 1 - sim->levels[k].ref_hit_rate;
    /* The rates with the target's set conflicts, which the simulation of a trace taken
     * there would see; the band moved with them. */
    double conflict = pt->pred[k].hit_rate - pt->sets[k];
    to[0][k] = 1 - pt->sets[k];
    to[1][k] = fmin(1, fmax(0, 1 - pt->hi[k] + conflict)); /* fewest misses: the band's fast end */
    to[2][k] = fmin(1, fmax(0, 1 - pt->lo[k] + conflict));
    for (int j = 0; j < 3; j++)
      if (!isfinite(from[k]) || !isfinite(to[j][k])) to[j][k] = from[k] = isfinite(from[k]) ? from[k] : 0;
  }
  /* The accesses a level gains through folded walks whose first-level misses queue on one
   * set: their share of all it gains (served at the target beyond the trace's). */
  double bunched[NL + 1];
  uint32_t nl = r->hw.nlevels;
  for (uint32_t j = 1; j <= nl && sim; j++) {
    double gained = (to[0][j - 1] - (j < nl ? to[0][j] : 0)) - (from[j - 1] - (j < nl ? from[j] : 0));
    bunched[j] = gained > 0 && pt->bunched_lost[j - 1] > 0 ? fmin(1, pt->bunched_lost[j - 1] / gained) : NAN;
  }
  if (!rc) rc = ppt_progmodel_shift_gains(m, pt->gain_prefetched, bunched, err);
  /* Each site as its own blocks move. */
  const double *bt[NL], *bx[NL];
  double *mt = NULL, *mx = NULL;
  if (!rc) rc = block_ratios(r, pt, big, &mt, &mx, bt, bx, err);
  double *out[3] = {&pt->runtime, &pt->rt_lo, &pt->rt_hi};
  for (int j = 0; j < 3 && !rc; j++) {
    rc = ppt_progmodel_shift_misses(m, from, to[j], err);
    if (!rc && mt) rc = ppt_progmodel_shift_sites(m, bt, bx, err);
    ppt_predict_result *res = NULL;
    if (!rc) rc = ppt_predict_run_progmodel(m, &r->hw, pt->n, NULL, &res, err);
    if (!rc) *out[j] = ppt_predict_result_point(res, 0)->runtime_s;
    ppt_predict_result_free(res);
  }
  free(mt);
  free(mx);
  ppt_progmodel_free(m);
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
    r->pt[c].runtime = r->pt[c].rt_lo = r->pt[c].rt_hi = NAN;
  }
  ppt_err quiet;
  r->timed = !rc && !ppt_hwspec_has_timing(&r->hw, a->c.hw, &quiet);
  if (!rc) rc = measure(a, r, err);
  if (!rc) rc = align_blocks(a, r, err);
  if (!rc) rc = ppt_extrapolate_walks_measure(a, r, err);
  if (!rc) rc = ppt_extrapolate_check_irregular(a, r, err);
  r->checked = a->ntr >= 3;
  for (size_t c = 0; c < a->c.ncores && !rc && r->checked; c++) rc = check(a, r, c, err);
  for (size_t c = 0; c < a->c.ncores && !rc; c++) rc = predict(a, r, c, err);
  if (!rc && r->timed) rc = block_weights(a, r, err);
  ppt_cli_progress *pg = r->timed && !rc ? ppt_cli_progress_start("runtime", a->c.ncores) : NULL;
  for (size_t c = 0; c < a->c.ncores && !rc && r->timed; c++) {
    rc = runtime(a, r, c, err);
    ppt_cli_progress_update(pg, c + 1);
  }
  ppt_cli_progress_end(pg);
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  for (size_t i = 0; i < MAX_TRACES; i++) {
    for (size_t c = 0; c < PPT_CLI_MAX_CORES; c++) ppt_sasmm_profiles_free(&r->prof[i][c]);
    ppt_trace_close(r->t[i]);
    free(r->counted_of[i]);
    free(r->map[i]);
    free(r->blk_inst[i]);
    free(r->blk_refs[i]);
  }
  free(r->w_inst);
  free(r->w_refs);
  ppt_extrapolate_walks_free(&r->walks);
  for (size_t c = 0; c < PPT_CLI_MAX_CORES; c++) {
    free(r->pt[c].blk_traced);
    free(r->pt[c].blk_target);
  }
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
