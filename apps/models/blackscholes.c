/* blackscholes.c — PARSEC 3.0 blackscholes (OpenMP version) as a PPT proxy model, the
 * second benchmark of AMM (WSC 2017) §4.
 *
 *   for (run = 0; run < NUM_RUNS; run++) {          NUM_RUNS = 100 in PARSEC
 *     #pragma omp parallel for                      one fork-join region per run
 *     for (i = 0; i < numOptions; i++)
 *       prices[i] = BlkSchlsEqEuroNoDiv(sptprice[i], strike[i], rate[i], volatility[i],
 *                                       otime[i], otype[i], 0);
 *   }
 *
 * Seven arrays of 4-byte values (fptype is float, otype int): six read, prices written.
 * Reading the input file and writing the output are not modelled.
 *
 * Op counts per option, from BlkSchlsEqEuroNoDiv and its two CNDF calls:
 *   formula body: 8 fmul, 5 fadd (the call and put branches average 1 and 3), 2 fdiv
 *     (sptprice / strike, xD1 / xDen), one sqrt, one log, one exp;
 *   each CNDF: 14 fmul, 7.5 fadd (a compare, the polynomial's 4 adds, 1 + k·x, 1 − ...,
 *     and half the time 1 − OutputX for a negative input), 1 fdiv (1 / (1 + 0.2316419 x)),
 *     one exp, 2 branches, 1 integer op (the sign flip is a bit operation);
 *   together 36 fmul + 20 fadd = 56 FP ops and 4 divides. PPT's own blackscholes
 *   tasklists (blackscholes_sim.py) charge 57.2 fALU and 4 fDIV per option and run,
 *   measured with Byfl, which does not see inside libm: the same count.
 * libm calls, which PPT leaves out, are charged here as a fixed number of ops each,
 * estimated from glibc's table-driven exp and log (argument reduction, a table lookup,
 * a degree-5/6 polynomial; about 20–25 instructions):
 *   exp: 7 fmul + 7 fadd + 5 integer ops + 1 branch;
 *   log: 9 fmul + 9 fadd + 6 integer ops + 1 branch;
 *   sqrt: the SQRTSD instruction, 1 op of the fdiv class (it uses the divider: Agner
 *   Fog's Haswell tables give it the throughput of DIVSD).
 * Loop: 2 integer ops and a branch per option; otype == 0: 1 integer op and a branch;
 * −rate: 1 integer op (a sign flip).
 * Totals per option: fmul 36 + 3·7 + 9 = 66, fadd 20 + 21 + 9 = 50, fdiv 4 + 1 = 5,
 * integer 2 + 1 + 1 + 2·1 + 15 + 6 = 27, branch 1 + 1 + 2·2 + 3 + 1 = 10.
 *
 * Memory, per thread with a static chunk of e options, w = line / 4 values per line,
 * L = ⌈e / w⌉ lines per array chunk:
 *   - 7(e − L) accesses to a line just used: between x[i−1] and x[i] the six other
 *     arrays' current lines, D = 6 (4-byte words);
 *   - 7L accesses starting a line (whole lines): in run 0 a first touch (∞); in later
 *     runs the previous use is the same line one run earlier, with all 7L lines of the
 *     thread's chunks in between, D = 7L − 1;
 *   - all contiguous over the chunk (AMM Eq. 4's b = the chunk).
 * The data is private to each thread (S = 0): a shared cache sees q·D (model.h). So
 * with 7·4·n bytes in the last-level cache, runs after the first hit there; else each
 * run streams from DRAM, contended between the cores. */
#include <stdlib.h>

#include "model.h"

#define ARRAYS 7.0
#define VALUE_BYTES 4.0

void mdl_bs_ops_per_option(mdl_bs_ops *o) {
  const double exp_fmul = 7, exp_fadd = 7, exp_ialu = 5, exp_branch = 1;
  const double log_fmul = 9, log_fadd = 9, log_ialu = 6, log_branch = 1;
  /* Formula body and two CNDF calls, as counted in the header. */
  const double body_fmul = 8 + 2 * 14, body_fadd = 5 + 2 * 7.5, body_fdiv = 2 + 2 * 1;
  const double body_ialu = 2 + 1 + 1 + 2 * 1, body_branch = 1 + 1 + 2 * 2;
  const double n_exp = 3, n_log = 1, n_sqrt = 1;
  o->fmul = body_fmul + n_exp * exp_fmul + n_log * log_fmul;
  o->fadd = body_fadd + n_exp * exp_fadd + n_log * log_fadd;
  o->fdiv = body_fdiv + n_sqrt;
  o->ialu = body_ialu + n_exp * exp_ialu + n_log * log_ialu;
  o->branch = body_branch + n_exp * exp_branch + n_log * log_branch;
}

int mdl_bs_tasklist(const ppt_hwspec *hw, uint32_t threads, uint64_t options, uint64_t run,
                    ppt_tasklist **out, ppt_err *err) {
  *out = NULL;
  if (!hw->nlevels || hw->levels[0].line < VALUE_BYTES)
    return ppt_err_set(err, PPT_EINPUT, "%s: model needs a cache with lines of at least 4 bytes", hw->name);
  mdl_ctx c = {hw, threads};
  double e = (double)options, line = hw->levels[0].line;
  double L = mdl_lines(e * VALUE_BYTES, line), chunk = e * VALUE_BYTES;
  mdl_bs_ops o;
  mdl_bs_ops_per_option(&o);
  ppt_tasklist *tl = ppt_tasklist_new();
  mdl_refs *r = mdl_refs_create();
  int rc = tl && r ? 0 : ppt_err_set(err, PPT_ERUN, "model: out of memory");
  if (!rc && options > 0 && !(rc = ppt_tasklist_add_op(tl, PPT_HW_FMUL, e * o.fmul, err)) &&
      !(rc = ppt_tasklist_add_op(tl, PPT_HW_FADD, e * o.fadd, err)) &&
      !(rc = ppt_tasklist_add_op(tl, PPT_HW_FDIV, e * o.fdiv, err)) &&
      !(rc = ppt_tasklist_add_op(tl, PPT_HW_IALU, e * o.ialu, err)) &&
      !(rc = ppt_tasklist_add_op(tl, PPT_HW_BRANCH, e * o.branch, err)) &&
      !(rc = mdl_refs_at(r, ARRAYS * (e - L > 0 ? e - L : 0), 0, ARRAYS - 1, err)) &&
      !(rc = mdl_refs_emit(r, tl, &c, VALUE_BYTES, chunk, err))) {
    mdl_refs_clear(r);
    rc = run == 0 ? mdl_refs_cold(r, ARRAYS * L, 0, 0, err)
                  : mdl_refs_at(r, ARRAYS * L, 0, ARRAYS * L - 1, err);
    if (!rc) rc = mdl_refs_emit(r, tl, &c, line, chunk, err);
  }
  mdl_refs_free(r);
  if (rc) {
    ppt_tasklist_free(tl);
    return rc;
  }
  *out = tl;
  return 0;
}

/* Threads with equal chunks share tasklists: one set for the cold first run, one for the
 * others. */
int mdl_bs_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out, ppt_err *err) {
  const mdl_bs_params *bp = params;
  *out = NULL;
  mdl_prog *p = mdl_prog_create();
  const ppt_tasklist **cold = calloc(threads, sizeof *cold), **warm = calloc(threads, sizeof *warm);
  int rc = p && cold && warm ? 0 : ppt_err_set(err, PPT_ERUN, "model: out of memory");
  ppt_tasklist *pc = NULL, *pw = NULL;
  uint64_t prev = 0;
  for (uint32_t t = 0; t < threads && !rc; t++) {
    uint64_t e = mdl_chunk(bp->n, threads, t);
    if (!pc || e != prev) {
      ppt_tasklist *a = NULL, *b = NULL;
      if ((rc = mdl_bs_tasklist(hw, threads, e, 0, &a, err)) || (rc = mdl_prog_keep(p, a, err))) break;
      if ((rc = mdl_bs_tasklist(hw, threads, e, 1, &b, err)) || (rc = mdl_prog_keep(p, b, err))) break;
      pc = a;
      pw = b;
      prev = e;
    }
    cold[t] = pc;
    warm[t] = pw;
  }
  for (uint64_t run = 0; run < bp->runs && !rc; run++)
    rc = mdl_prog_parallel(p, threads, run ? warm : cold, "run", err);
  free(cold);
  free(warm);
  if (rc) {
    mdl_prog_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

int mdl_bs_main(int argc, char **argv) {
  mdl_bs_params bp = {.n = 65536, .runs = 100};
  const mdl_opt opts[] = {
      {"n", &bp.n, 1, UINT64_C(1) << 36, "options (default 65536, PARSEC simlarge)"},
      {"runs", &bp.runs, 1, 100000, "times the options are priced (default 100, PARSEC's NUM_RUNS)"},
      {0}};
  const mdl_model m = {.name = "blackscholes",
                       .summary = "PARSEC blackscholes: price n European options, runs times (AMM §4)",
                       .opts = opts,
                       .build = mdl_bs_program};
  return mdl_main(&m, &bp, argc, argv);
}
