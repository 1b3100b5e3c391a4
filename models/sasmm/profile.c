/* models/sasmm/profile.c — reuse profiles of the mimicked streams.
 *
 * Private levels see each core's own stream: its reuse histogram is the PRD (SASMM
 * §3.3). The shared level sees the interleaved stream: the CRD. Their hit rates are the
 * cache module's (SDCM, §3.6: ppt_sdcm_sasmm_hitrates in models/cache/sasmm_rates.c),
 * so that this module needs no cache model. */
#include <stdlib.h>
#include <string.h>

#include "ppt/reuse.h"
#include "ppt/sasmm.h"

typedef struct feed {
  ppt_reuse **prd;
  ppt_reuse **crd; /* [ngroups]: one per instance of the shared level */
  uint32_t ngroups, group;
  ppt_trace_rec *gbuf; /* a batch's records grouped by core group, each group in order */
  size_t gcap;
  size_t *gend; /* [ngroups + 1]: where each group's records end in gbuf */
  ppt_err err;
  int failed;
} feed;

static void on_priv(void *arg, uint32_t core, const ppt_trace_rec *r, size_t n) {
  feed *f = arg;
  if (!f->failed && ppt_reuse_feed(f->prd[core], r, n, &f->err)) f->failed = 1;
}

/* A core group's instance of the shared level sees its cores' records only, in the
 * interleaved order. */
static void on_shared(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  feed *f = arg;
  if (f->failed) return;
  if (f->ngroups == 1) {
    if (ppt_reuse_feed(f->crd[0], r, n, &f->err)) f->failed = 1;
    return;
  }
  if (n > f->gcap) {
    ppt_trace_rec *nb = realloc(f->gbuf, n * sizeof *nb);
    if (!nb) {
      ppt_err_set(&f->err, PPT_ERUN, "out of memory");
      f->failed = 1;
      return;
    }
    f->gbuf = nb;
    f->gcap = n;
  }
  /* one pass: a counting sort by group, stable, so each group keeps the interleaved order */
  size_t *end = f->gend;
  memset(end, 0, ((size_t)f->ngroups + 1) * sizeof *end);
  for (size_t i = 0; i < n; i++) end[cores[i] / f->group + 1]++;
  for (uint32_t g = 0; g < f->ngroups; g++) end[g + 1] += end[g];
  for (size_t i = 0; i < n; i++) f->gbuf[end[cores[i] / f->group]++] = r[i];
  /* end[g] now holds group g's end, group g starts where g - 1 ends */
  for (uint32_t g = 0; g < f->ngroups && !f->failed; g++) {
    size_t s0 = g ? end[g - 1] : 0;
    if (end[g] > s0 && ppt_reuse_feed(f->crd[g], f->gbuf + s0, end[g] - s0, &f->err)) f->failed = 1;
  }
}

/* The histogram of the counted blocks only (or a copy of the whole). */
static int counted_hist(const ppt_reuse *r, const uint8_t *counted, uint32_t nbbs, ppt_rdhist **out,
                        ppt_err *err) {
  if (!counted) {
    *out = ppt_rdhist_clone(ppt_reuse_hist(r));
    return *out ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  uint32_t *group = malloc(((size_t)nbbs + 1) * sizeof *group);
  if (!group) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t b = 0; b <= nbbs; b++) group[b] = counted[b] ? 0 : 1;
  int rc = ppt_reuse_group_hists(r, group, (size_t)nbbs + 1, 1, out, err);
  free(group);
  return rc;
}

/* opts.keep_blocks: dst[b] += each block b's histogram of r (a copy, owned by dst). */
static int keep_blocks(const ppt_reuse *r, ppt_rdhist **dst, uint32_t nblocks, ppt_err *err) {
  uint32_t max = ppt_reuse_max_bb(r);
  for (uint32_t b = 0; b <= max && b < nblocks; b++) {
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, b);
    if (!h) continue;
    if (!dst[b] && !(dst[b] = ppt_rdhist_new(ppt_rdhist_line(h))))
      return ppt_err_set(err, PPT_ERUN, "out of memory");
    if (ppt_rdhist_merge(dst[b], h, 1.0)) return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  return 0;
}

int ppt_sasmm_measure(const ppt_trace *t, const ppt_sasmm_opts *o, const ppt_reuse_opts *ropts,
                      const uint8_t *counted, ppt_sasmm_profiles *out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  uint32_t n = o->ncores, nbbs = ppt_trace_nbbs(t);
  feed f = {0};
  int rc = 0;
  out->ncores = n;
  f.group = o->crd_group && o->crd_group < n ? o->crd_group : n;
  f.ngroups = (n + f.group - 1) / f.group;
  f.crd = calloc(f.ngroups, sizeof *f.crd);
  f.gend = calloc((size_t)f.ngroups + 1, sizeof *f.gend);
  f.prd = calloc(n, sizeof *f.prd);
  out->prd = calloc(n, sizeof *out->prd);
  if (o->keep_blocks) {
    out->nblocks = nbbs + 1;
    out->prd_bb = calloc(out->nblocks, sizeof *out->prd_bb);
    out->crd_bb = calloc(out->nblocks, sizeof *out->crd_bb);
  }
  if (!f.prd || !f.crd || !f.gend || !out->prd || (o->keep_blocks && (!out->prd_bb || !out->crd_bb))) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint32_t c = 0; c < n && !rc && !o->shared_only; c++) rc = ppt_reuse_new(ropts, &f.prd[c], err);
  for (uint32_t g = 0; g < f.ngroups && !rc && !o->private_only; g++)
    rc = ppt_reuse_new(ropts, &f.crd[g], err);
  if (rc) goto out;
  ppt_sasmm_sink sink = {
      .priv = o->shared_only ? NULL : on_priv, .shared = o->private_only ? NULL : on_shared, .arg = &f};
  if ((rc = ppt_sasmm_mimic(t, o, &sink, &out->stats, err))) goto out;
  if (f.failed) {
    *err = f.err;
    rc = err->status ? (int)err->status : PPT_ERUN;
    goto out;
  }
  out->prd_all = ppt_rdhist_new(ropts->line);
  if (!out->prd_all) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint32_t c = 0; c < n && !rc && !o->shared_only; c++) {
    if ((rc = ppt_reuse_finish(f.prd[c], err))) break;
    if ((rc = counted_hist(f.prd[c], counted, nbbs, &out->prd[c], err))) break;
    if (o->keep_blocks && (rc = keep_blocks(f.prd[c], out->prd_bb, out->nblocks, err))) break;
    if (ppt_rdhist_merge(out->prd_all, out->prd[c], 1.0)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  /* The groups' CRDs summed: SDCM of the sum on one instance weighs each instance's rate
   * by the references it served. */
  for (uint32_t g = 0; g < f.ngroups && !rc && f.crd[g]; g++) {
    ppt_rdhist *h = NULL;
    if ((rc = ppt_reuse_finish(f.crd[g], err)) || (rc = counted_hist(f.crd[g], counted, nbbs, &h, err)))
      break;
    if (!out->crd)
      out->crd = h;
    else {
      if (ppt_rdhist_merge(out->crd, h, 1.0)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
      ppt_rdhist_free(h);
    }
    if (!rc && o->keep_blocks) rc = keep_blocks(f.crd[g], out->crd_bb, out->nblocks, err);
  }
out:
  if (f.prd)
    for (uint32_t c = 0; c < n; c++) ppt_reuse_free(f.prd[c]);
  free(f.prd);
  for (uint32_t g = 0; f.crd && g < f.ngroups; g++) ppt_reuse_free(f.crd[g]);
  free(f.crd);
  free(f.gbuf);
  free(f.gend);
  if (rc) ppt_sasmm_profiles_free(out);
  return rc;
}

void ppt_sasmm_profiles_free(ppt_sasmm_profiles *p) {
  if (p->prd)
    for (uint32_t c = 0; c < p->ncores; c++) ppt_rdhist_free(p->prd[c]);
  free(p->prd);
  ppt_rdhist_free(p->prd_all);
  ppt_rdhist_free(p->crd);
  for (uint32_t b = 0; b < p->nblocks; b++) {
    if (p->prd_bb) ppt_rdhist_free(p->prd_bb[b]);
    if (p->crd_bb) ppt_rdhist_free(p->crd_bb[b]);
  }
  free(p->prd_bb);
  free(p->crd_bb);
  memset(p, 0, sizeof *p);
}
