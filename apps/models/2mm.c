/* 2mm.c — PolyBench/C 4.2 2mm as a PPT proxy model: two chained matrix multiplies,
 * D = alpha·A·B·C + beta·D, with the kernel's two parallel loops:
 *
 *   #pragma omp parallel for                       (region 1: tmp = alpha·A·B)
 *   for i < NI: for j < NJ: { tmp[i][j] = 0;
 *                             for k < NK: tmp[i][j] += alpha * A[i][k] * B[k][j]; }
 *   #pragma omp parallel for                       (region 2: D = beta·D + tmp·C)
 *   for i < NI: for j < NL: { D[i][j] *= beta;
 *                             for k < NJ: D[i][j] += tmp[i][k] * C[k][j]; }
 *
 * A is NI×NK, B NK×NJ, tmp NI×NJ, C NJ×NL, D NI×NL doubles. Both loops are the ijk
 * kernel of matmul.c (same derivation of op counts and reuse distances): region 1 with
 * 2 fmul + 1 fadd per k iteration, region 2 with 1 + 1 and C *= beta as its
 * initialisation (one more fmul per (i, j)). Flops: 3·NI·NJ·NK + 2·NI·NL·NJ + NI·NL.
 *
 * What ties the regions: tmp. With the same static schedule in both loops a thread reads
 * in region 2 the tmp rows it wrote in region 1, so the first use of each tmp line in
 * region 2 (the j = 0 pass over a row, matmul.c's a_first) is not a first touch. For
 * the thread's m rows, row ρ, line block b of the row (w doubles per line, rk1 = ⌈NK/w⌉,
 * rj1 = ⌈NJ/w⌉, rl = ⌈NL/w⌉ lines per row of A, tmp, D), the lines touched between the
 * last write of that line in region 1 and its read in region 2 are:
 *   shared S: in region 1, all of B (NK·rj1 lines) when rows follow ρ, else only B's
 *             column blocks after b (NK·(rj1 − 1 − b)); in region 2, all of C (NJ·rl)
 *             when rows precede ρ, else C's column 0 above row b·w (b·w lines);
 *   private P: A's row ρ (rk1), A and tmp rows after ρ ((m − 1 − ρ)·(rk1 + rj1)), tmp
 *             and D rows before ρ in region 2 (ρ·(rj1 + rl)), tmp's row ρ and a D line
 *             (rj1 + 1).
 * The first row, the last row and the rows between get one spread each (linear in b
 * or in ρ). So tmp stays in a cache that holds B plus C plus the thread's rows. A, B, C,
 * D are first touched in the kernel (initialisation not modelled). */
#include <stdlib.h>

#include "model.h"

#define SPREAD_BINS 16

/* Reuse of the thread's tmp rows in region 2 (see the header). */
static int tmp_reuse(const ppt_hwspec *hw, const mdl_2mm_params *p, uint64_t rows, mdl_refs *r,
                     ppt_err *err) {
  double w = hw->levels[0].line / 8.0;
  double m = (double)rows, NK = (double)p->nk, NJ = (double)p->nj, NL = (double)p->nl;
  double rk1 = mdl_lines(NK, w), rj1 = mdl_lines(NJ, w), rl = mdl_lines(NL, w);
  double bw = (rj1 - 1) * w; /* b·w at the row's last block */
  mdl_refs_clear(r);
  if (rows == 0) return 0;
  if (rows == 1) {
    double P = rk1 + rj1 + 1;
    return mdl_refs_spread(r, rj1, NK * (rj1 - 1), P, bw, P, SPREAD_BINS, err);
  }
  double Sfull = NK * rj1 + NJ * rl;
  double P0 = rk1 + (m - 1) * (rk1 + rj1) + rj1 + 1;
  double Plast = rk1 + (m - 1) * (rj1 + rl) + rj1 + 1;
  double P1 = rk1 + (m - 2) * (rk1 + rj1) + (rj1 + rl) + rj1 + 1;
  double Pm2 = rk1 + (rk1 + rj1) + (m - 2) * (rj1 + rl) + rj1 + 1;
  int rc;
  if ((rc = mdl_refs_spread(r, rj1, NK * rj1, P0, NK * rj1 + bw, P0, SPREAD_BINS, err)) ||
      (rc = mdl_refs_spread(r, rj1, NK * (rj1 - 1) + NJ * rl, Plast, NJ * rl, Plast, SPREAD_BINS, err)) ||
      (rc = mdl_refs_spread(r, (m - 2) * rj1, Sfull, P1, Sfull, Pm2, SPREAD_BINS, err)))
    return rc;
  return 0;
}

/* The two tasklists of a thread holding `rows` rows. */
static int thread_tasklists(const ppt_hwspec *hw, const mdl_2mm_params *p, uint32_t threads, uint64_t rows,
                            ppt_tasklist **t1, ppt_tasklist **t2, ppt_err *err) {
  mdl_ctx c = {hw, threads};
  *t1 = *t2 = NULL;
  mdl_ijk k1 = {.rows = rows, .nj = p->nj, .nk = p->nk, .fmul = 2, .fadd = 1, .scale_c = 0, .a_first = NULL};
  int rc = mdl_ijk_tasklist(&c, &k1, t1, err);
  if (rc) return rc;
  mdl_refs *r = mdl_refs_create();
  if (!r) return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  if (!(rc = tmp_reuse(hw, p, rows, r, err))) {
    mdl_ijk k2 = {.rows = rows, .nj = p->nl, .nk = p->nj, .fmul = 1, .fadd = 1, .scale_c = 1, .a_first = r};
    rc = mdl_ijk_tasklist(&c, &k2, t2, err);
  }
  mdl_refs_free(r);
  return rc;
}

int mdl_2mm_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out,
                    ppt_err *err) {
  const mdl_2mm_params *p = params;
  *out = NULL;
  mdl_prog *prog = mdl_prog_create();
  const ppt_tasklist **r1 = calloc(threads, sizeof *r1), **r2 = calloc(threads, sizeof *r2);
  int rc = prog && r1 && r2 ? 0 : ppt_err_set(err, PPT_ERUN, "model: out of memory");
  ppt_tasklist *p1 = NULL, *p2 = NULL;
  uint64_t prev_rows = 0;
  for (uint32_t t = 0; t < threads && !rc; t++) {
    uint64_t rows = mdl_chunk(p->ni, threads, t);
    if (!p1 || rows != prev_rows) {
      ppt_tasklist *a, *b;
      if ((rc = thread_tasklists(hw, p, threads, rows, &a, &b, err))) {
        ppt_tasklist_free(a);
        break;
      }
      if ((rc = mdl_prog_keep(prog, a, err))) {
        ppt_tasklist_free(b);
        break;
      }
      if ((rc = mdl_prog_keep(prog, b, err))) break;
      p1 = a;
      p2 = b;
      prev_rows = rows;
    }
    r1[t] = p1;
    r2[t] = p2;
  }
  if (!rc && !(rc = mdl_prog_parallel(prog, threads, r1, "tmp=alpha*A*B", err)))
    rc = mdl_prog_parallel(prog, threads, r2, "D=beta*D+tmp*C", err);
  free(r1);
  free(r2);
  if (rc) {
    mdl_prog_free(prog);
    return rc;
  }
  *out = prog;
  return 0;
}

int mdl_2mm_main(int argc, char **argv) {
  /* PolyBench 4.2 LARGE_DATASET. */
  mdl_2mm_params p = {.ni = 800, .nj = 900, .nk = 1100, .nl = 1200};
  const mdl_opt opts[] = {{"ni", &p.ni, 1, 1u << 20, "rows of A, tmp, D (default 800, PolyBench LARGE)"},
                          {"nj", &p.nj, 1, 1u << 20, "columns of B and tmp, rows of C (default 900)"},
                          {"nk", &p.nk, 1, 1u << 20, "columns of A, rows of B (default 1100)"},
                          {"nl", &p.nl, 1, 1u << 20, "columns of C and D (default 1200)"},
                          {0}};
  const mdl_model m = {.name = "2mm",
                       .summary = "PolyBench 2mm: D = alpha*A*B*C + beta*D as two ijk matrix multiplies",
                       .opts = opts,
                       .build = mdl_2mm_program};
  return mdl_main(&m, &p, argc, argv);
}
