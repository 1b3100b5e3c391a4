/* engine/progview.c — the engine's flat view of a program (engine_internal.h).
 *
 * The program itself belongs to the program model (ppt/program.h), which keeps its
 * layout private; the engine reads it once per run, through the public accessors, into
 * one array of (region, thread) slots, which is how it numbers its per-thread demands
 * and results. */
#include <stdlib.h>

#include "engine_internal.h"

int eng_program_read(const ppt_program *prog, eng_program *out, ppt_err *err) {
  *out = (eng_program){0};
  size_t nregions = ppt_program_nregions(prog), nslots = 0;
  ppt_region reg;
  for (size_t r = 0; r < nregions; r++) {
    if (ppt_program_region(prog, r, &reg))
      return ppt_err_set(err, PPT_ERUN, "engine: cannot read region %zu", r);
    nslots += reg.nthreads;
  }
  out->regions = malloc((nregions ? nregions : 1) * sizeof *out->regions);
  out->tls = malloc((nslots ? nslots : 1) * sizeof *out->tls);
  if (!out->regions || !out->tls) {
    eng_program_free(out);
    return ppt_err_set(err, PPT_ERUN, "engine: out of memory");
  }
  for (size_t r = 0; r < nregions; r++) {
    ppt_program_region(prog, r, &reg);
    out->regions[r] = (eng_region){.kind = reg.kind, .nthreads = reg.nthreads, .first = out->nslots};
    for (uint32_t t = 0; t < reg.nthreads; t++) out->tls[out->nslots++] = reg.tls[t];
  }
  out->nregions = nregions;
  return 0;
}

void eng_program_free(eng_program *p) {
  free(p->regions);
  free(p->tls);
  *p = (eng_program){0};
}
