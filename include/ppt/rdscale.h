/* ppt/rdscale.h — many cores from few: CRD and PRD profiles at P cores predicted from
 * profiles measured at two smaller core counts (Wu & Yeung, ACM TOCS 2013, §4), the
 * paper's profile accuracy (Eq. 1) and its two cache-design parameters C_core and
 * C_share (§5.1, §5.2). docs/sasmm.md, "Many cores from few".
 *
 * Coherent shift by reference groups (§4.1.1, after Zhong et al. 2003): the finite
 * references of each measured profile are cut into G groups of equal counts along the
 * distance axis; the i-th group of the na-core profile is aligned with the i-th group of
 * the nb-core one. Each pair's shift (the ratio of the groups' mean distances) is
 * compared with the allowed shift rates 2^k per doubling of the core count, k = 0,
 * 1/steps, ..., 1: CRD profiles dilate (a group moves right, rate 2^k), PRD profiles
 * contract (rate 2^-k). The closest rate (in log scale) is assigned to the group, and
 * the prediction moves every reference of the nb-core group by rate^log2(P/nb). A
 * distance that lands between two integers is split between them, so that the mean is
 * kept; a pure coherent shift by an integer factor is recovered exactly.
 *
 * First touches (D = infinity) follow §4.1.3: the nb-core count plus the increase from na
 * to nb cores times log2(P/nb) (clamped to [0, total]); the finite references fill the rest
 * of the nb-core profile's total (references do not change with the core count).
 *
 * The functions are deterministic; histograms are ppt/reuse.h's. */
#ifndef PPT_RDSCALE_H
#define PPT_RDSCALE_H

#include <stdint.h>

#include "ppt/err.h"
#include "ppt/reuse.h"

/* Which way a profile moves with the core count (§4.1.1). */
typedef enum ppt_rdscale_kind {
  PPT_RDSCALE_CRD = 0, /* concurrent reuse distance of the shared stream: dilates, 2^k */
  PPT_RDSCALE_PRD = 1, /* private reuse distance of the cores' own streams: contracts, 2^-k */
} ppt_rdscale_kind;

typedef struct ppt_rdscale_opts {
  /* Reference groups; the paper's 200,000 by default. Fewer are used when a profile has
   * fewer finite references (a group holds at least one reference). */
  uint64_t groups;
  /* Allowed shift rates per doubling: 2^(j/steps), j = 0..steps; the paper's 100. */
  unsigned steps;
} ppt_rdscale_opts;

void ppt_rdscale_opts_default(ppt_rdscale_opts *o);

/* Predicts the profile at p cores from `a` measured at na cores and `b` at nb > na cores
 * (the paper: 2 and 4). Both must have the same line size. *out: a new histogram.
 * PPT_EINPUT on bad arguments, PPT_ERUN when out of memory. */
int ppt_rdscale_predict(const ppt_rdhist *a, uint32_t na, const ppt_rdhist *b, uint32_t nb, uint32_t p,
                        ppt_rdscale_kind kind, const ppt_rdscale_opts *o, ppt_rdhist **out, ppt_err *err);

/* The shift rate exponent k (per doubling, in [0, 1]) assigned to each group by the last
 * call is not kept; this returns the reference-weighted mean k of a prediction from a to
 * b (a summary for reports), or NAN when there are no finite references. */
double ppt_rdscale_mean_rate(const ppt_rdhist *a, uint32_t na, const ppt_rdhist *b, uint32_t nb,
                             ppt_rdscale_kind kind, const ppt_rdscale_opts *o);

/* Bins of the profile accuracy. */
typedef enum ppt_rdscale_bins {
  /* The paper's (§3.2, Fig. 4; used by Eq. 1): bins growing as powers of two up to 128 KiB
   * of capacity ({0}, {1}, [2,4), ... in lines), then 128 KiB wide. */
  PPT_RDSCALE_BINS_PAPER = 0,
  PPT_RDSCALE_BINS_EXACT = 1, /* every distance its own bin (stricter) */
} ppt_rdscale_bins;

/* Profile accuracy, Eq. 1 (§4.2): 1 - 1/2 sum_k |pred[k] - meas[k]| / sum_k meas[k] over
 * the finite bins (infinity is not compared, as in the paper). In [0, 1] when both have
 * the same total of finite references; 1 for two empty profiles. */
double ppt_rdscale_accuracy(const ppt_rdhist *pred, const ppt_rdhist *meas, ppt_rdscale_bins bins);

/* C_core (§5.1) of a p-core CRD profile against the 1-core one, in lines: with
 * dM(c) = CMC_p(c) / CMC_1(c), CMC(c) the references with D >= c (first touches included:
 * the misses of a fully associative LRU cache of c lines), and Cmax the p-core profile's
 * largest finite distance, dM_merged = dM(Cmax/2) and C_core is the largest c <= Cmax/2
 * where dM(c) >= 1.5 dM_merged (the tail of the shift). 0 when there is none. Returns 0,
 * or -1 when a profile is empty or out of memory. */
int ppt_rdscale_c_core(const ppt_rdhist *crd_p, const ppt_rdhist *crd_1, double *c_core);

/* C_share (§5.2) of p cores, in lines of CRD: the smallest c where the CRD-based CMC is at
 * most 0.9 of the sPRD-based one (sPRD = p x PRD, the cores' summed PRD profile `prd`).
 * INFINITY when the two never part by 10 % (no capacity where sharing pays). Returns 0 or
 * -1 (empty profile, out of memory). */
int ppt_rdscale_c_share(const ppt_rdhist *crd, const ppt_rdhist *prd, uint32_t p, double *c_share);

#endif
