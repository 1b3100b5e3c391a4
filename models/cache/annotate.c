/* models/cache/annotate.c — misses per block, line and function of SASMM's N-core run
 * (ppt/annotate.h). The stream is the one ppt_tracesim_sasmm (sasmm_rates.c) simulates,
 * driven the same way, so that the per-block counts and that function's totals are the
 * same run; the tally reports which level served each reference and we charge its block. */
#include "ppt/annotate.h"

#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY (1u << 20)

void ppt_annotate_opts_default(ppt_annotate_opts *o) {
  memset(o, 0, sizeof *o);
  ppt_sasmm_opts_default(&o->sasmm);
}

typedef struct counter {
  ppt_tracesim_tally *tally;
  ppt_annotate_counts *blocks;
  const uint8_t *counted;
  uint32_t nbbs;
  uint64_t done;
  void (*progress)(uint64_t done, void *arg);
  void *progress_arg;
} counter;

/* The shared-stream sink: every record goes to the tally (block entries feed its
 * prefetcher model), and each counted reference is charged to its block with the level
 * that served it. "Counted" is the tally's own test, so the sums match its totals. */
static void on_shared(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  counter *c = arg;
  for (size_t i = 0; i < n; i++) {
    int d = ppt_tracesim_tally_access(c->tally, cores[i], &r[i]);
    if (d < 0) continue;
    uint32_t bb = r[i].bb;
    if (c->counted && !(bb <= c->nbbs && c->counted[bb])) continue;
    ppt_annotate_counts *b = &c->blocks[bb <= c->nbbs ? bb : 0];
    b->refs++;
    for (int k = 0; k < d; k++) b->misses[k]++;
    if (c->progress && ++c->done % PROGRESS_EVERY == 0) c->progress(c->done, c->progress_arg);
  }
}

/* The blocks' sums, which must be the tally's totals: both count the same references. */
static int check_totals(ppt_annotate_result *r, ppt_err *err) {
  ppt_annotate_counts *s = &r->total;
  memset(s, 0, sizeof *s);
  for (uint32_t b = 0; b <= r->nbbs; b++) {
    s->refs += r->blocks[b].refs;
    for (uint32_t k = 0; k < r->nlevels; k++) s->misses[k] += r->blocks[b].misses[k];
  }
  int bad = s->refs != r->totals.counted_refs;
  for (uint32_t k = 0; k < r->nlevels; k++) bad |= s->misses[k] != r->totals.levels[k].ref_misses;
  if (bad)
    return ppt_err_set(err, PPT_ERUN,
                       "annotate: the per-block counts (%llu references) do not add up to the "
                       "simulation's totals (%llu): internal error",
                       (unsigned long long)s->refs, (unsigned long long)r->totals.counted_refs);
  return 0;
}

int ppt_annotate_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_annotate_opts *o,
                     ppt_annotate_result *out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  out->nbbs = ppt_trace_nbbs(t);
  if (!(out->blocks = calloc((size_t)out->nbbs + 1, sizeof *out->blocks)))
    return ppt_err_set(err, PPT_ERUN, "annotate: out of memory");
  counter c = {.blocks = out->blocks,
               .counted = o->counted,
               .nbbs = out->nbbs,
               .progress = o->progress,
               .progress_arg = o->progress_arg};
  int rc = ppt_tracesim_tally_new(hw, o->sasmm.ncores, o->counted, out->nbbs, o->sasmm.seed, &c.tally, err);
  if (rc) return rc;
  /* As ppt_tracesim_sasmm: the simulation needs the shared stream, and only that. */
  ppt_sasmm_opts so = o->sasmm;
  so.private_only = so.shared_only = 0;
  ppt_sasmm_sink sink = {.shared = on_shared, .arg = &c};
  if (!(rc = ppt_sasmm_mimic(t, &so, &sink, &out->stats, err))) {
    ppt_tracesim_tally_result(c.tally, o->sasmm.ncores, &out->totals);
    out->nlevels = out->totals.nlevels;
    rc = check_totals(out, err);
  }
  if (c.progress) c.progress(c.done, c.progress_arg);
  ppt_tracesim_tally_free(c.tally);
  return rc;
}

void ppt_annotate_result_free(ppt_annotate_result *r) {
  if (!r) return;
  free(r->blocks);
  r->blocks = NULL;
}

/* ---------------------------------------------------------------- grouping */

typedef struct keyed {
  const char *a, *b; /* the row's key: file, function (by line) or function, file */
  uint32_t line;
  uint32_t bb;
} keyed;

static int cmp_keyed(const void *x, const void *y) {
  const keyed *p = x, *q = y;
  int c = strcmp(p->a, q->a);
  if (c) return c;
  if (p->line != q->line) return p->line < q->line ? -1 : 1;
  if ((c = strcmp(p->b, q->b))) return c;
  return p->bb < q->bb ? -1 : p->bb > q->bb;
}

static void add_counts(ppt_annotate_counts *to, const ppt_annotate_counts *c, uint32_t nlevels) {
  to->refs += c->refs;
  for (uint32_t k = 0; k < nlevels; k++) to->misses[k] += c->misses[k];
}

int ppt_annotate_group(const ppt_trace *t, const ppt_annotate_result *r, enum ppt_annotate_by by,
                       ppt_annotate_row **rows, size_t *n, ppt_err *err) {
  *rows = NULL;
  *n = 0;
  keyed *k = malloc(((size_t)r->nbbs + 1) * sizeof *k);
  if (!k) return ppt_err_set(err, PPT_ERUN, "annotate: out of memory");
  size_t nk = 0;
  for (uint32_t b = 0; b <= r->nbbs; b++) {
    if (!r->blocks[b].refs) continue;
    const ppt_trace_bb *bb = b ? ppt_trace_bb_get(t, b) : NULL;
    const char *func = bb ? bb->func : "(no block)", *file = bb ? bb->file : "";
    if (by == PPT_ANNOTATE_BY_LINE)
      k[nk++] = (keyed){.a = file, .b = func, .line = bb ? bb->line : 0, .bb = b};
    else
      k[nk++] = (keyed){.a = func, .b = file, .bb = b};
  }
  qsort(k, nk, sizeof *k, cmp_keyed);
  ppt_annotate_row *out = nk ? calloc(nk, sizeof *out) : NULL;
  if (nk && !out) {
    free(k);
    return ppt_err_set(err, PPT_ERUN, "annotate: out of memory");
  }
  size_t m = 0;
  for (size_t i = 0; i < nk; i++) {
    int same = m && !strcmp(k[i].a, k[i - 1].a) && k[i].line == k[i - 1].line && !strcmp(k[i].b, k[i - 1].b);
    if (!same) {
      int line = by == PPT_ANNOTATE_BY_LINE;
      out[m++] = (ppt_annotate_row){
          .function = line ? k[i].b : k[i].a, .file = line ? k[i].a : k[i].b, .line = k[i].line};
    }
    add_counts(&out[m - 1].c, &r->blocks[k[i].bb], r->nlevels);
  }
  free(k);
  *rows = out;
  *n = m;
  return 0;
}

/* ---------------------------------------------------------------- sorting */

typedef struct order {
  uint64_t key, refs;
  size_t i;
} order;

static int cmp_order(const void *x, const void *y) {
  const order *p = x, *q = y;
  if (p->key != q->key) return p->key > q->key ? -1 : 1;
  if (p->refs != q->refs) return p->refs > q->refs ? -1 : 1;
  return p->i < q->i ? -1 : p->i > q->i;
}

int ppt_annotate_sort(ppt_annotate_row *rows, size_t n, int level) {
  if (n < 2) return 0;
  order *o = malloc(n * sizeof *o);
  ppt_annotate_row *copy = malloc(n * sizeof *copy);
  if (!o || !copy) {
    free(o);
    free(copy);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    o[i] =
        (order){.key = level < 0 ? rows[i].c.refs : rows[i].c.misses[level], .refs = rows[i].c.refs, .i = i};
  qsort(o, n, sizeof *o, cmp_order);
  memcpy(copy, rows, n * sizeof *copy);
  for (size_t i = 0; i < n; i++) rows[i] = copy[o[i].i];
  free(o);
  free(copy);
  return 0;
}
