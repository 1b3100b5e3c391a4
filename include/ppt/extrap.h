/* ppt/extrap.h — problem-size scaling (issue 17): predict the reuse profiles of a larger
 * input from traces of the same binary at a few small ones, after AMM §3 (block counts as
 * functions of the input size, and the per-block reuse profiles P(D|BB) of §3.2.1 that
 * move with it). docs/extrapolate.md describes the model, its refusal rule and its band.
 *
 * The model works per block b and per kind of profile (the cores' summed PRD, the CRD of
 * the interleaved stream), on SASMM's per-block histograms (ppt_sasmm_measure with
 * opts.keep_blocks). For each traced size s_i it takes b's reference count, its first
 * touches and the mean distance of each of Q equal-probability slices of its finite
 * histogram; each quantity is fitted across the sizes as a polynomial in s (degree 0, 1
 * or 2, chosen by ppt_extrap_fit_poly), and evaluated at the target to rebuild b's
 * histogram there. Summing the blocks gives the target's PRD and CRD, whose hit rates
 * are SDCM's (ppt_sdcm_sasmm_hitrates). */
#ifndef PPT_EXTRAP_H
#define PPT_EXTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/sasmm.h"

/* ---- one quantity across sizes ---- */

#define PPT_EXTRAP_MAX_DEGREE 2
/* The forms a quantity may take: polynomials of degree 0, 1, 2 (their degree is their
 * form) and the power form b + a x^p, p the nearest of 1, 2, 3 to the slope of log y
 * against log x. */
enum { PPT_EXTRAP_POWER = PPT_EXTRAP_MAX_DEGREE + 1, PPT_EXTRAP_NFORMS };

/* A fitted form, by least squares (gsl_multifit_linear) in t = x / xscale: coef[0] +
 * coef[1] t + coef[2] t^2, or for the power form coef[0] + coef[1] t^power. */
typedef struct ppt_extrap_poly {
  unsigned degree; /* the form: 0, 1, 2 or PPT_EXTRAP_POWER */
  unsigned power;  /* the power form's p */
  double xscale;   /* the largest x */
  double coef[PPT_EXTRAP_MAX_DEGREE + 1];
  double cov[PPT_EXTRAP_MAX_DEGREE + 1][PPT_EXTRAP_MAX_DEGREE + 1]; /* 0 without spare points */
  double loo[PPT_EXTRAP_NFORMS]; /* each form's leave-one-out RMS error; NaN: not
                                    evaluable (too few points) */
} ppt_extrap_poly;

/* Fits y(x) over n >= 1 points (distinct x > 0) and chooses the form, tried in the order
 * degree 0, degree 1, power, degree 2 (by number of coefficients: 1, 2, 2, 3):
 *  - a form with a point to spare (coefficients < n) is judged by its leave-one-out RMS
 *    error E (each point predicted from the fit of the others);
 *  - the first form with E <= rtol * mean|y| (+ a tiny absolute floor) wins;
 *  - if none is that good, the form that interpolates (as many coefficients as points;
 *    it cannot be judged): with 2 points the power form, with 3 degree 2; with more
 *    points, the form of smallest E, an earlier one winning when its E is within 10 % of
 *    the best.
 * Why the power form: a block in a loop nest of depth d runs about c N^d times; with two
 * sizes only a two-coefficient curve can be fitted, and issue 17 asks "which distances
 * grow with which power". rtol <= 0 means the default, 1e-3. PPT_EINPUT for n = 0,
 * non-finite data or an x <= 0. */
int ppt_extrap_fit_poly(const double *x, const double *y, size_t n, double rtol, ppt_extrap_poly *out,
                        ppt_err *err);
/* The same, except that with 3 points none within tolerance gives the judged form of
 * smallest E (the rule for 4 points or more) instead of the interpolating quadratic. For
 * reuse distances: unlike counts, which are exact functions of the size, they carry the
 * noise of the address layout (ASLR moves the stack and heap lines between runs), and a
 * quadratic through three noisy points, taken 4x beyond them, went 28 points off
 * (blackscholes, docs/extrapolate.md). */
int ppt_extrap_fit_poly_judged(const double *x, const double *y, size_t n, double rtol, ppt_extrap_poly *out,
                               ppt_err *err);
/* The fitted value at x, and its standard error from the coefficients' covariance. */
double ppt_extrap_fit_eval(const ppt_extrap_poly *f, double x);
double ppt_extrap_fit_sd(const ppt_extrap_poly *f, double x);

/* ---- the model ---- */

#define PPT_EXTRAP_MAX_SIZES 64 /* traced sizes a model may be fitted on */

typedef struct ppt_extrap_opts {
  /* Q equal-probability slices per block histogram; default 512. A slice that straddles
   * two modes (the 3 in-line reuses and the 1 cross-sweep reuse of a stream) is rebuilt
   * at its mean, between them, and so misplaces up to 1/Q of the block's references:
   * with 32 a stream's L1 rate came out 2.3 points low at 2 cores. */
  unsigned quantiles;
  double rtol; /* ppt_extrap_fit_poly's tolerance; default 1e-3 */
  /* Slice distances: 0 (default) by ppt_extrap_fit_poly_judged, 1 by ppt_extrap_fit_poly
   * (counts always by ppt_extrap_fit_poly: they are exact). */
  int interpolate_distances;
} ppt_extrap_opts;
void ppt_extrap_opts_default(ppt_extrap_opts *o);

/* The fitted model of one core count. */
typedef struct ppt_extrap_model ppt_extrap_model;

/* Fits the model on n >= 2 measured sizes: sizes[i] (distinct) and profs[i], measured
 * with opts.keep_blocks at the same core count on traces with the same block table. */
int ppt_extrap_fit(const double *sizes, const ppt_sasmm_profiles *const *profs, size_t n,
                   const ppt_extrap_opts *o, ppt_extrap_model **out, ppt_err *err);
void ppt_extrap_model_free(ppt_extrap_model *m);

/* Blocks with a reference at some traced size. */
uint32_t ppt_extrap_model_blocks(const ppt_extrap_model *m);
/* How many of the model's fits chose each form, degree 0, 1, 2, power (adds to counts[]). */
void ppt_extrap_model_degrees(const ppt_extrap_model *m, uint64_t counts[PPT_EXTRAP_NFORMS]);

/* The profiles at `size`: prd_all and crd (prd stays NULL), summed over the blocks b with
 * counted[b] != 0 (counted NULL: all). draw = 0: the fitted values; draw = k > 0: the k-th
 * parametric bootstrap draw, every fitted quantity drawn from its gaussian (value, standard
 * error at size), gsl_rng mt19937 seeded from (seed, k) so that each draw is reproducible. */
int ppt_extrap_predict(const ppt_extrap_model *m, double size, const uint8_t *counted, uint64_t seed,
                       unsigned draw, ppt_sasmm_profiles *out, ppt_err *err);

/* The same, split: of each counted block b, the share tail[b] (clamped to [0, 1]) of its
 * references with the longest distances (its first touches, then its slices from the
 * longest down) goes to *tail_out, the rest to *out; tail NULL or tail_out NULL: all to
 * *out (tail_out then untouched, or empty). Why: a block's walks with a stride that
 * folds onto few sets are its long reuses (a column walk's line comes back only with the
 * next column), and those are the ones set conflicts take (docs/extrapolate.md). */
int ppt_extrap_predict_split(const ppt_extrap_model *m, double size, const uint8_t *counted, uint64_t seed,
                             unsigned draw, const double *tail, ppt_sasmm_profiles *out,
                             ppt_sasmm_profiles *tail_out, ppt_err *err);

/* The block whose predicted reference count at `size` is furthest, relatively, from the
 * measured one in meas (per-block, opts.keep_blocks), among counted blocks holding at least
 * min_share of the counted references of either: *worst_bb and *worst_err (a fraction). */
int ppt_extrap_block_error(const ppt_extrap_model *m, double size, const ppt_sasmm_profiles *meas,
                           const uint8_t *counted, double min_share, uint32_t *worst_bb, double *worst_err,
                           ppt_err *err);

/* Per block b < nblocks, counts[i][b] at sizes[i] (2 <= n <= PPT_EXTRAP_MAX_SIZES,
 * distinct, > 0) fitted as ppt_extrap_fit_poly fits (counts are exact functions of the
 * size) and evaluated at `size` into out[b] (>= 0; 0 for a block counted at no size):
 * what the program model weighs each block with at the target (block instances, their
 * references; ppt_progmodel_build_weighted). */
int ppt_extrap_counts_at(const double *sizes, const double *const *counts, size_t n, uint32_t nblocks,
                         double size, double *out, ppt_err *err);

/* ---- traces of different binaries (a size compiled in: -DN=...) ---- */

/* Matches t's blocks onto ref's, by what survives recompilation: (function, file, line,
 * flags) and the ordinal among the blocks of that key in id order. map holds
 * ppt_trace_nbbs(t) + 1 entries: map[b] is ref's id of t's block b, 0 when b has no match
 * (map[0] = 0: references before the first block). One to one by construction. */
int ppt_extrap_match_blocks(const ppt_trace *ref, const ppt_trace *t, uint32_t *map, ppt_err *err);
/* Moves p's per-block histograms (opts.keep_blocks) onto the reference table of nref
 * blocks: block b goes to map[b] (map NULL: the identity), unmatched blocks (map[b] = 0,
 * b > 0) and those with drop[map[b]] != 0 (drop NULL: none) are freed. p->nblocks becomes
 * nref + 1. */
int ppt_extrap_remap_blocks(ppt_sasmm_profiles *p, const uint32_t *map, uint32_t nref, const uint8_t *drop,
                            ppt_err *err);
/* The share of p's counted references (counted NULL: all; p before the remap) in blocks
 * that ppt_extrap_remap_blocks(p, map, ..., drop) would free; 0 when p has none. */
double ppt_extrap_unmatched_share(const ppt_sasmm_profiles *p, const uint32_t *map, const uint8_t *drop,
                                  const uint8_t *counted);

/* ---- strides: how a block's references walk memory (models/extrap/strides.c) ---- */

#define PPT_EXTRAP_SLOTS 8 /* references of a block instance followed, by position */

/* One position ("slot") of a block's references: the k-th reference of every instance.
 * Steps are the address differences from one instance's k-th reference to the next
 * instance's, on the same thread. */
typedef struct ppt_extrap_slot {
  uint64_t refs;    /* references in this slot */
  uint64_t steps;   /* steps taken (refs less one per thread that ran the block) */
  uint64_t repeats; /* steps equal to the step before them */
  int64_t stride;   /* the steps' majority candidate, bytes (has_stride) */
  int has_stride;
  /* Where the slot lies from each slot i before it in the same instance: the last
   * instance's offset[i] (bytes), and how many instances had the offset of the instance
   * before them. A constant offset is the same array (an unrolled row, the same element
   * loaded and stored) or arrays that move together; one that changes from walk to walk,
   * two walks that drift apart. */
  int64_t offset[PPT_EXTRAP_SLOTS];
  uint64_t same_offset[PPT_EXTRAP_SLOTS];
  uint64_t lo, hi; /* lowest and highest address the slot touched */
} ppt_extrap_slot;

typedef struct ppt_extrap_strides {
  uint32_t nblocks;      /* ppt_trace_nbbs + 1 */
  ppt_extrap_slot *slot; /* [nblocks x PPT_EXTRAP_SLOTS] */
  uint64_t *refs;        /* [nblocks]: each block's references, every slot */
  /* [nblocks]: each block's instances and all its references, machine-level stack ones
   * included (what ppt_trace_summarize counts: the runtime's block weights) */
  uint64_t *instances, *all_refs;
} ppt_extrap_strides;

/* One pass over t (machine-level stack references left out of the slots: they are not
 * the program's data walks). PPT_ERUN when out of memory, the trace's errors when it cannot be read. */
int ppt_extrap_strides_measure(const ppt_trace *t, ppt_extrap_strides *out, ppt_err *err);
/* Block bb's PPT_EXTRAP_SLOTS slots; NULL beyond the table. */
const ppt_extrap_slot *ppt_extrap_strides_of(const ppt_extrap_strides *s, uint32_t bb);
void ppt_extrap_strides_free(ppt_extrap_strides *s);
/* How many times fewer sets than `sets` a walk with this stride (bytes) uses in a cache
 * of `sets` sets of `line`-byte lines: gcd(stride, sets x line) / line when that gcd is
 * a multiple of the line, else 1 (every set); `sets` for a stride that is a multiple of
 * sets x line (one set); 1 for stride 0. */
uint64_t ppt_extrap_set_fold(int64_t stride, uint64_t sets, uint64_t line);

#endif
