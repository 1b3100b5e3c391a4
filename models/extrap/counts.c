/* models/extrap/counts.c — per-block counts at a size that was not traced (ppt/extrap.h):
 * how often each block runs, and how many references it makes, as functions of the size,
 * for the program model's op mix at the target (AMM §3: block counts are polynomials in
 * the input size; `ppt extrapolate`'s runtime). */
#include <math.h>

#include "ppt/extrap.h"

int ppt_extrap_counts_at(const double *sizes, const double *const *counts, size_t n, uint32_t nblocks,
                         double size, double *out, ppt_err *err) {
  if (n < 2 || n > PPT_EXTRAP_MAX_SIZES)
    return ppt_err_set(err, PPT_EINPUT, "extrapolation needs 2 to %d sizes, not %zu", PPT_EXTRAP_MAX_SIZES,
                       n);
  double y[PPT_EXTRAP_MAX_SIZES];
  for (uint32_t b = 0; b < nblocks; b++) {
    int any = 0;
    for (size_t i = 0; i < n; i++) any |= (y[i] = counts[i][b]) != 0;
    if (!any) {
      out[b] = 0;
      continue;
    }
    /* Counts are exact functions of the size (a loop nest of depth d runs ~N^d times):
     * the fit of least degree that predicts every point from the others, or the one
     * through them all (ppt_extrap_fit_poly's rule). */
    ppt_extrap_poly f;
    int rc = ppt_extrap_fit_poly(sizes, y, n, 0, &f, err);
    if (rc) return rc;
    double v = ppt_extrap_fit_eval(&f, size);
    out[b] = isfinite(v) && v > 0 ? v : 0;
  }
  return 0;
}
