/* models/extrap/slices.c — a block's finite reuse histogram as Q equal-probability
 * slices, and back.
 *
 * AMM §3.2.1 keeps P(D|BB) per block; to move it with the input size each block's
 * distribution is cut into Q slices of equal mass along the distance axis (slice k holds
 * the references between the k/Q and (k+1)/Q quantiles) and summarised by each slice's
 * mean distance. The means, unlike the quantiles themselves, keep the block's mean
 * distance exactly, and a block whose references share one distance (a cyclic sweep:
 * n - 1) has every slice there, so it is rebuilt exactly. */
#include <math.h>
#include <string.h>

#include "extrap/slices.h"
#include "ppt/reuse.h"

typedef struct cut {
  double *mean; /* [q]: sum of mass x distance, divided at the end */
  unsigned q;
  double width, done; /* mass of one slice, mass walked so far */
} cut;

static int walk(int64_t d, double count, void *arg) {
  cut *c = arg;
  while (count > 0) {
    unsigned k = (unsigned)(c->done / c->width);
    if (k >= c->q) k = c->q - 1; /* rounding at the very end */
    double room = (k + 1) * c->width - c->done;
    if (room <= 1e-12 * c->width && k + 1 < c->q) { /* on a boundary: the next slice */
      k++;
      room += c->width;
    }
    double take = k + 1 == c->q || count < room ? count : room;
    c->mean[k] += take * (double)d;
    c->done += take;
    count -= take;
  }
  return 0;
}

double ext_slices_of(const ppt_rdhist *h, unsigned q, double *mean) {
  memset(mean, 0, q * sizeof *mean);
  double fin = h ? ppt_rdhist_total(h) - ppt_rdhist_infinite(h) : 0;
  if (fin <= 0) return 0;
  cut c = {.mean = mean, .q = q, .width = fin / q};
  if (ppt_rdhist_foreach(h, walk, &c)) return -1;
  for (unsigned k = 0; k < q; k++) mean[k] /= c.width;
  return fin;
}

double ext_snap(double v) {
  double r = nearbyint(v);
  return fabs(v - r) <= 1e-6 * fmax(1.0, fabs(v)) ? r : v;
}

int ext_add_at(ppt_rdhist *h, double d, double count) {
  if (count <= 0) return 0;
  /* a distance between two integers is split between them, keeping its mean */
  d = fmax(0.0, ext_snap(d));
  double lo = floor(d), frac = d - lo;
  if (ppt_rdhist_add(h, (int64_t)lo, count * (1 - frac))) return -1;
  return frac > 0 && ppt_rdhist_add(h, (int64_t)lo + 1, count * frac) ? -1 : 0;
}

int ext_slices_add(ppt_rdhist *h, const double *dist, unsigned q, double finite) {
  if (finite <= 0) return 0;
  for (unsigned k = 0; k < q; k++)
    if (ext_add_at(h, dist[k], finite / q)) return -1;
  return 0;
}
