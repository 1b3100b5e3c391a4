/* job_measure.c — ppt_extrap_run's first stages (extrap/job.h): every trace at every core
 * count mimicked and measured as `ppt sasmm --model sdcm` does (exact reuse, round-robin),
 * keeping per-block histograms, with its measured hit rates; then, for traces of other
 * binaries (the size compiled in), every trace's per-block histograms on the first
 * trace's ids. */
#include <stdlib.h>
#include <string.h>

#include "extrap/job.h"
#include "ppt/extrap.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"

int ext_measure(ext_job *r, ppt_err *err) {
  ppt_reuse_opts ro;
  ppt_reuse_opts_default(&ro);
  ro.line = r->hw->levels[0].line;
  size_t nc = r->o->ncores;
  static const char stage[] = "traces x core counts";
  ext_progress(r, stage, 0, r->ntr * nc);
  int rc = 0;
  for (size_t i = 0; i < r->ntr && !rc; i++)
    for (size_t c = 0; c < nc && !rc; c++) {
      ppt_sasmm_opts o;
      ppt_sasmm_opts_default(&o);
      o.ncores = r->o->cores[c];
      o.seed = r->o->seed;
      o.keep_blocks = 1;
      o.crd_group = ppt_sdcm_crd_group(r->hw);
      rc = ppt_sasmm_measure(r->t[i], &o, &ro, r->o->traces[i].counted, &r->prof[i][c], err);
      if (!rc) rc = ppt_sdcm_sasmm_hitrates(r->hw, &r->prof[i][c], r->res->points[c].measured[i], NULL, err);
      ext_progress(r, stage, i * nc + c + 1, r->ntr * nc);
    }
  return rc;
}

/* The first trace's blocks that some other trace has no match for (drop[id] = 1), and in
 * *lacks[id] the first such trace. */
static int missing_blocks(const ext_job *r, uint8_t *drop, size_t *lacks, ppt_err *err) {
  uint32_t nref = ppt_trace_nbbs(r->t[0]);
  uint8_t *seen = malloc((size_t)nref + 1);
  if (!seen) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 1; i < r->ntr; i++) {
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
static size_t heaviest_lack(const ext_job *r, const uint8_t *drop, const size_t *lacks) {
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

/* Blocks that exist at some sizes only (a loop fully unrolled at a small N) are left out
 * of the model while they hold under PPT_EXTRAP_UNMATCHED_MAX of every trace's counted
 * references; beyond that the programs differ and are refused. */
int ext_align_blocks(ext_job *r, ppt_err *err) {
  if (!r->res->matched_by_key) return 0;
  uint32_t nref = ppt_trace_nbbs(r->t[0]);
  uint8_t *drop = calloc((size_t)nref + 1, 1);
  size_t *lacks = calloc((size_t)nref + 1, sizeof *lacks);
  int rc = drop && lacks ? missing_blocks(r, drop, lacks, err) : ppt_err_set(err, PPT_ERUN, "out of memory");
  double *unmatched = r->res->unmatched;
  for (size_t i = 0; i < r->ntr && !rc; i++) {
    unmatched[i] = ppt_extrap_unmatched_share(&r->prof[i][0], r->map[i], drop, r->o->traces[i].counted);
    if (unmatched[i] < PPT_EXTRAP_UNMATCHED_MAX) continue;
    size_t other = i ? 0 : heaviest_lack(r, drop, lacks);
    rc = ppt_err_set(err, PPT_EINPUT,
                     "%s: %.1f %% of its references are in blocks that %s does not have (matched by "
                     "function, file, line): not the same program (at most %.0f %% may differ)",
                     ext_path(r, i), 100 * unmatched[i], ext_path(r, other), 100 * PPT_EXTRAP_UNMATCHED_MAX);
  }
  for (size_t i = 0; i < r->ntr && !rc; i++)
    for (size_t c = 0; c < r->o->ncores && !rc; c++)
      rc = ppt_extrap_remap_blocks(&r->prof[i][c], r->map[i], nref, drop, err);
  free(drop);
  free(lacks);
  return rc;
}
