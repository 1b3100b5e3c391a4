/* matmul.c — the ijk matrix multiply of AMM §4 as a PPT proxy model, and the ijk
 * kernel it shares with 2mm.
 *
 * AMM (WSC 2017) §4 predicts "matrix-matrix multiplication ... follows ijk approach (3
 * nested loops)" on a Haswell Xeon E5-2650 from reuse profiles measured on a trace.
 * Here the profile is derived from the loop nest instead:
 *
 *   #pragma omp parallel for schedule(static)
 *   for (i = 0; i < n; i++)
 *     for (j = 0; j < n; j++) {
 *       C[i][j] = 0;
 *       for (k = 0; k < n; k++) C[i][j] += A[i][k] * B[k][j];
 *     }
 *
 * Each thread owns a chunk of m consecutive rows of C (and reads the same rows of A);
 * all threads read all of B. Row-major doubles, w = line / 8 doubles per line, rows
 * starting on a line boundary; rk = ⌈nk/w⌉ and rj = ⌈nj/w⌉ lines per row of A and C.
 * One k iteration touches, in order, A[i][k], B[k][j], C[i][j] (load), C[i][j] (store).
 *
 * Reuse distance D of each reference = distinct lines since the previous use of its
 * line (docs/design.md), written S (lines of B: shared by all threads) + P (lines of the
 * thread's own A and C rows); model.h turns that into the PRD (S + P) of private levels
 * and the CRD (S + q·P) of levels shared by q threads.
 *
 *   reference                      count                D = S + P
 *   A[i][k], k mod w ≠ 0           m·nj·(nk − rk)       1 + 1      (B[k−1][j], C[i][j])
 *   A[i][k], k mod w = 0, j > 0    m·(nj − 1)·rk        (nk − w) + rk
 *       — the line was last used by the same k block for j − 1; since then: the rest of
 *         A's row (rk − 1 lines), B's column j−1 below the block and column j above it
 *         (nk − w distinct rows), C[i][j−1..j] (1)
 *   A[i][k], k mod w = 0, j = 0    m·rk                 ∞ (a_first for 2mm's tmp)
 *   B[k][j], j mod w ≠ 0           m·nk·(nj − rj)       (nk − 1) + (rk + 1)
 *       — same line as B[k][j−1] one j earlier: the other nk − 1 rows of B's columns
 *         j−1, j, all of A's row, C's line
 *   B[k][j], j mod w = 0, i > first  (m − 1)·nk·rj      (nk·rj − 1) + (2rk + rj)
 *       — last used for row i − 1 (last column of the block): all of B between (the
 *         "B column at ~n²/w lines" of the ijk loop), A rows i−1 and i, one row of C
 *   B[k][j], j mod w = 0, first row  nk·rj              ∞, shared (lockstep, skew 2)
 *   C[i][j] load in the k loop     m·nj·nk              1 + 1      (A and B lines)
 *   C[i][j] store                  m·nj·nk              0          (just loaded)
 *   C[i][j] = 0, j mod w ≠ 0       m·(nj − rj)          0          (C[i][j−1] stored)
 *   C[i][j] = 0, j mod w = 0       m·rj                 ∞          (write-allocate)
 *
 * With m = n rows this is 4n³ + n² references at the three reuse scales of the ijk loop:
 * a few lines (words of a line just used), about n (A's row, B's column), about n²/w
 * (all of B, between rows).
 * Approximations: rows of A and C are taken as separate from B's lines (no conflicts
 * beyond what the SDCM charges), and the few lines touched twice inside an interval are
 * counted once or twice where it changes D by ±1.
 *
 * Sizes and contiguity (AMM Eq. 4): references to a new line (the k mod w = 0 and j mod
 * w = 0 cases, B's column, first touches) move a whole line from wherever they hit, so
 * they are items of `line` bytes; the others are 8-byte words of a line just used. A's
 * row walk and C's row are contiguous runs (block = a row: the first access waits the
 * latency, the others stream), B's column is not (block = one line: every access waits
 * the serving level's latency), and the C[i][j] element refs come in blocks of a line.
 *
 * Ops (PPT's iALU/fALU classes, per k iteration unless said): fmul and fadd as given
 * (matmul: 1 + 1 = one FMA = 2 flops, so 2n³ in all); 2 integer ops and 1 branch for
 * the k loop, 4 integer ops (loop, row addresses) and 1 branch per j, 2 and 1 per i. The
 * FMA is counted as a multiply and an add, as PPT counts flops; the loop is not
 * vectorised (B's column walk). */
#include <stdlib.h>

#include "model.h"

/* Lines per thread by which lockstep threads are apart when they first read B. */
#define B_SKEW 2.0

static int add_ops(ppt_tasklist *tl, const mdl_ijk *k, ppt_err *err) {
  double m = (double)k->rows, nj = (double)k->nj, nk = (double)k->nk;
  double inner = m * nj * nk;
  int rc;
  if ((rc = ppt_tasklist_add_op(tl, PPT_HW_FMUL, k->fmul * inner + (k->scale_c ? m * nj : 0), err)) ||
      (rc = ppt_tasklist_add_op(tl, PPT_HW_FADD, k->fadd * inner, err)) ||
      (rc = ppt_tasklist_add_op(tl, PPT_HW_IALU, 2 * inner + 4 * m * nj + 2 * m, err)) ||
      (rc = ppt_tasklist_add_op(tl, PPT_HW_BRANCH, inner + m * nj + m, err)))
    return rc;
  return 0;
}

static int add_refs(ppt_tasklist *tl, const mdl_ctx *c, const mdl_ijk *k, mdl_refs *r, ppt_err *err) {
  double line = c->hw->levels[0].line, w = line / 8.0;
  double m = (double)k->rows, nj = (double)k->nj, nk = (double)k->nk;
  double rk = mdl_lines(nk, w), rj = mdl_lines(nj, w);
  double inner = m * nj * nk;
  double arow = nk * 8.0, crow = nj * 8.0;
  int rc;

  /* A's row walk, words of a line just used. */
  mdl_refs_clear(r);
  if ((rc = mdl_refs_at(r, m * nj * (nk - rk), 1, 1, err)) || (rc = mdl_refs_emit(r, tl, c, 8, arow, err)))
    return rc;

  /* A's row walk, the first word of each line (j > 0: reused from the previous j). */
  mdl_refs_clear(r);
  double sa = nk > w ? nk - w : 0;
  if ((rc = mdl_refs_at(r, m * (nj - 1) * rk, sa, rk, err)) ||
      (rc = mdl_refs_emit(r, tl, c, line, arow, err)))
    return rc;

  /* A's row, j = 0: the row's first use in this region. */
  if (k->a_first) {
    if ((rc = mdl_refs_emit(k->a_first, tl, c, line, arow, err))) return rc;
  } else {
    mdl_refs_clear(r);
    if ((rc = mdl_refs_cold(r, m * rk, 0, 0, err)) || (rc = mdl_refs_emit(r, tl, c, line, arow, err)))
      return rc;
  }

  /* B's column walk: every reference is to another line. */
  mdl_refs_clear(r);
  if ((rc = mdl_refs_at(r, m * nk * (nj - rj), nk - 1, rk + 1, err)) ||
      (rc = mdl_refs_at(r, (m > 1 ? m - 1 : 0) * nk * rj, nk * rj - 1, 2 * rk + rj, err)) ||
      (rc = mdl_refs_cold(r, m > 0 ? nk * rj : 0, 1, B_SKEW, err)) ||
      (rc = mdl_refs_emit(r, tl, c, line, line, err)))
    return rc;

  /* C[i][j]: the accumulation in the k loop and the initialisation's words. */
  mdl_refs_clear(r);
  if ((rc = mdl_refs_at(r, inner, 1, 1, err)) || (rc = mdl_refs_at(r, inner, 0, 0, err)) ||
      (rc = mdl_refs_at(r, m * (nj - rj), 0, 0, err)) ||
      (rc = mdl_refs_at(r, k->scale_c ? m * nj : 0, 0, 0, err)) ||
      (rc = mdl_refs_emit(r, tl, c, 8, line, err)))
    return rc;

  /* C's rows: first touch of each line (a load for C *= beta, a write-allocated store
   * for C = 0). */
  mdl_refs_clear(r);
  if ((rc = mdl_refs_cold(r, m * rj, 0, 0, err)) || (rc = mdl_refs_emit(r, tl, c, line, crow, err)))
    return rc;
  return 0;
}

int mdl_ijk_tasklist(const mdl_ctx *c, const mdl_ijk *k, ppt_tasklist **out, ppt_err *err) {
  *out = NULL;
  if (!c->hw->nlevels || c->hw->levels[0].line < 8)
    return ppt_err_set(err, PPT_EINPUT, "%s: model needs a cache with lines of at least 8 bytes",
                       c->hw->name);
  if (k->a_first) {
    double want = (double)k->rows * mdl_lines((double)k->nk, c->hw->levels[0].line / 8.0);
    if (mdl_refs_count(k->a_first) != want)
      return ppt_err_set(err, PPT_EINPUT, "ijk: a_first has %g references, the rows have %g lines",
                         mdl_refs_count(k->a_first), want);
  }
  ppt_tasklist *tl = ppt_tasklist_new();
  mdl_refs *r = mdl_refs_create();
  if (!tl || !r) {
    ppt_tasklist_free(tl);
    mdl_refs_free(r);
    return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  }
  int rc = add_ops(tl, k, err);
  if (!rc) rc = add_refs(tl, c, k, r, err);
  mdl_refs_free(r);
  if (rc) {
    ppt_tasklist_free(tl);
    return rc;
  }
  *out = tl;
  return 0;
}

int mdl_matmul_tasklist(const ppt_hwspec *hw, uint64_t n, uint64_t rows, uint32_t threads, ppt_tasklist **out,
                        ppt_err *err) {
  mdl_ctx c = {hw, threads};
  mdl_ijk k = {.rows = rows, .nj = n, .nk = n, .fmul = 1, .fadd = 1, .scale_c = 0, .a_first = NULL};
  return mdl_ijk_tasklist(&c, &k, out, err);
}

/* One parallel region; threads with equal chunks share a tasklist (at most two sizes). */
int mdl_matmul_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out,
                       ppt_err *err) {
  const mdl_matmul_params *mp = params;
  *out = NULL;
  mdl_prog *p = mdl_prog_create();
  const ppt_tasklist **tls = calloc(threads, sizeof *tls);
  if (!p || !tls) {
    mdl_prog_free(p);
    free(tls);
    return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  }
  int rc = 0;
  ppt_tasklist *prev = NULL;
  uint64_t prev_rows = 0;
  for (uint32_t t = 0; t < threads && !rc; t++) {
    uint64_t rows = mdl_chunk(mp->n, threads, t);
    if (!prev || rows != prev_rows) {
      ppt_tasklist *tl;
      if ((rc = mdl_matmul_tasklist(hw, mp->n, rows, threads, &tl, err)) || (rc = mdl_prog_keep(p, tl, err)))
        break;
      prev = tl;
      prev_rows = rows;
    }
    tls[t] = prev;
  }
  if (!rc) rc = mdl_prog_parallel(p, threads, tls, "matmul", err);
  free(tls);
  if (rc) {
    mdl_prog_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

int mdl_matmul_main(int argc, char **argv) {
  mdl_matmul_params mp = {.n = 512};
  const mdl_opt opts[] = {{"n", &mp.n, 1, 1u << 20, "N×N matrices (default 512)"}, {0}};
  const mdl_model m = {.name = "matmul",
                       .summary = "C = A·B, ijk loop order, rows split statically over the cores (AMM §4)",
                       .opts = opts,
                       .build = mdl_matmul_program};
  return mdl_main(&m, &mp, argc, argv);
}
