/* apps/models/model.h — PPT-style proxy application models (docs/models.md).
 *
 * Like PPT's Python application models (AMM, WSC 2017 §2.1: "stylised pseudo code that
 * mimics the loop structure of an application"), each model here builds, for every
 * thread of every parallel region, a tasklist analytically from the problem size: op
 * counts by class, and memory references as AMM MEM_ACCESS items whose reuse-distance
 * profiles are derived from the loop structure instead of measured from a trace. The
 * hwspec's caches turn the profiles into hit rates (SDCM), the core model into time
 * (AMM Eq. 4–5), and the SimGrid engine runs the regions fork-join on N cores with the
 * shared levels and DRAM contended.
 *
 * This header is internal to apps/models (the four ppt-model-* programs and their
 * tests); it is not installed.
 *
 * Three parts:
 *  - reference sets (model_refs.c): reuse distances written as "S shared + P private
 *    lines since the previous use of this line", turned into one PRD or CRD profile per
 *    cache level and added to a tasklist as one MEM_ACCESS item;
 *  - programs (model_prog.c): the tasklists of one prediction, the regions they form,
 *    and running them on a node with a summary (runtime, hit rates, breakdown);
 *  - the command line every model shares (model_cli.c).
 *
 * The models themselves: mdl_ijk_tasklist (matmul.c, shared with 2mm.c), and one
 * mdl_<model>_program per model. */
#ifndef PPT_APPS_MODEL_H
#define PPT_APPS_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ppt/engine.h"
#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/program.h"
#include "ppt/tasklist.h"

/* ------------------------------------------------------------ reference sets */

/* A set of memory references with the same word size and contiguity, described by the
 * distance back to the previous use of each reference's cache line. A distance is given
 * as S + P distinct lines: S lines of data that all threads of the region touch in the
 * same order (shared, e.g. matmul's B), P lines of data only this thread touches
 * (private, e.g. its rows of A and C).
 *
 * That split is what a shared cache needs. On a level private to the core the thread's
 * own stream is what the cache sees: the private reuse distance (PRD) is S + P. On a
 * level shared by q of the region's threads, the interleaved stream of those q threads
 * (round-robin, in lockstep: they run the same code on equally sized chunks) holds the
 * same S shared lines and q copies of P private ones: the concurrent reuse distance
 * (CRD) is S + q·P (Wu & Yeung, TOCS 2013: CRD dilates private reuse by the number of
 * interleaved threads; shared data is not dilated). q = min(threads, shared_by). */
typedef struct mdl_refs mdl_refs;

/* The hardware and region the references run in: line size and which levels are
 * shared come from hw; threads is the number of threads of the region. */
typedef struct mdl_ctx {
  const ppt_hwspec *hw;
  uint32_t threads;
} mdl_ctx;

mdl_refs *mdl_refs_create(void); /* NULL when out of memory */
void mdl_refs_free(mdl_refs *r);
/* count references at distance S + P. PPT_EINPUT for negative or non-finite figures,
 * PPT_ERUN when out of memory. A count of 0 is ignored. */
int mdl_refs_at(mdl_refs *r, double count, double shared, double priv, ppt_err *err);
/* count references whose distance varies linearly from (S0, P0) to (S1, P1) over the
 * references (e.g. over the position in a row), spread evenly over nbins bins. */
int mdl_refs_spread(mdl_refs *r, double count, double s0, double p0, double s1, double p1, unsigned nbins,
                    ppt_err *err);
/* count first touches (distance ∞). Private data (shared = 0) is ∞ at every level. Data
 * that all threads read (shared = 1) is ∞ only for the first of the q threads of a shared
 * instance to touch it; in lockstep the other q − 1 find it `skew` lines per thread
 * later (CRD q·skew), so a shared cache holds it for them. */
int mdl_refs_cold(mdl_refs *r, double count, int shared, double skew, ppt_err *err);
/* References in the set. */
double mdl_refs_count(const mdl_refs *r);
/* Adds the set to tl as one MEM_ACCESS item of mdl_refs_count accesses of `bytes` each,
 * in contiguous blocks of block_bytes (AMM Eq. 4's b = block_bytes / bytes, at least 1),
 * with one profile per cache level of c->hw (PRD on private levels, CRD on shared ones;
 * distances rounded to whole lines). Nothing is added for an empty set. The set is left
 * as it was. */
int mdl_refs_emit(const mdl_refs *r, ppt_tasklist *tl, const mdl_ctx *c, double bytes, double block_bytes,
                  ppt_err *err);
/* Empties the set for reuse. */
void mdl_refs_clear(mdl_refs *r);

/* ceil(x / y) for the line counts of rows and chunks. */
double mdl_lines(double elems, double per_line);

/* ------------------------------------------------------------ programs */

/* The tasklists of one prediction and the regions they form. It owns the tasklists. */
typedef struct mdl_prog mdl_prog;

mdl_prog *mdl_prog_create(void); /* NULL when out of memory */
void mdl_prog_free(mdl_prog *p);
/* Hands tl to the program (freed with it; also freed here when this fails). */
int mdl_prog_keep(mdl_prog *p, ppt_tasklist *tl, ppt_err *err);
/* A parallel region (fork-join): thread t runs tls[t], a tasklist kept by the program.
 * label names the region in reports ("copy", "run 3"); it is copied. */
int mdl_prog_parallel(mdl_prog *p, size_t nthreads, const ppt_tasklist *const *tls, const char *label,
                      ppt_err *err);
size_t mdl_prog_nregions(const mdl_prog *p);
const char *mdl_prog_label(const mdl_prog *p, size_t region);
/* Tasklist of thread t in a region; NULL when out of range. */
const ppt_tasklist *mdl_prog_tasklist(const mdl_prog *p, size_t region, size_t thread);
const ppt_program *mdl_prog_program(const mdl_prog *p);

/* What a run predicts. */
typedef struct mdl_result {
  uint32_t cores;
  double runtime_s;
  /* Critical path: in each region the thread that finished last, summed over regions. */
  double compute_s, memory_s;
  double wait_s; /* mean barrier wait per region, summed: load imbalance */
  /* Hit rates over every reference of every thread: global (1 − misses at every level
   * ≤ k / all references) and local (hits at k / references reaching k), docs/design.md. */
  uint32_t nlevels;
  double hit[PPT_HW_MAX_LEVELS], local_hit[PPT_HW_MAX_LEVELS];
  double accesses; /* memory references, all threads */
  size_t nregions;
  double *region_s; /* seconds of each region (malloc'd) */
} mdl_result;

/* Runs the program on a node of `cores` cores of hw (cfg: policy and overheads; NULL =
 * defaults) and summarises it. Errors from the core model and the engine. */
/* The proxy models are PPT's: op classes add up and hit rates become time through AMM
 * Eq. 4-5, as in PPT's processor models (their hand-written tasklists carry no prefetch
 * figures for the miss model); the overlap is ppt's default. Used when no config is given. */
void mdl_policy_default(ppt_tc_policy *p);
int mdl_prog_run(const mdl_prog *p, const ppt_hwspec *hw, uint32_t cores, const ppt_node_config *cfg,
                 mdl_result *out, ppt_err *err);
void mdl_result_clear(mdl_result *r);

/* Static OpenMP schedule: the first (n mod threads) threads get one item more. */
uint64_t mdl_chunk(uint64_t n, uint32_t threads, uint32_t t);

/* ------------------------------------------------------------ the models */

/* The ijk triple loop of matmul and 2mm, for one thread holding `rows` consecutive rows
 * of the output (a static chunk of the parallelised i loop):
 *
 *   for i in rows:  for j < nj:  C[i][j] = 0            (scale_c: C[i][j] *= beta)
 *                                for k < nk:  C[i][j] += A[i][k] * B[k][j]
 *
 * over row-major doubles; fmul and fadd are the FP ops of one k iteration. a_first
 * describes the first use in this region of each line of the thread's A rows (the j = 0
 * pass: rows · ceil(nk / w) references, w doubles per line); NULL means a first touch,
 * otherwise its count must be exactly that (2mm: tmp written by the previous region).
 * B is read by all threads and first touched here; C's rows are first touched here.
 * Derivation: matmul.c. */
typedef struct mdl_ijk {
  uint64_t rows, nj, nk;
  double fmul, fadd;
  int scale_c;
  const mdl_refs *a_first;
} mdl_ijk;
int mdl_ijk_tasklist(const mdl_ctx *c, const mdl_ijk *k, ppt_tasklist **out, ppt_err *err);

/* matmul: C = A·B, n×n doubles, ijk, the i loop split statically over `threads`. */
typedef struct mdl_matmul_params {
  uint64_t n;
} mdl_matmul_params;
int mdl_matmul_tasklist(const ppt_hwspec *hw, uint64_t n, uint64_t rows, uint32_t threads, ppt_tasklist **out,
                        ppt_err *err);
int mdl_matmul_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out,
                       ppt_err *err);

/* 2mm (PolyBench): tmp = alpha·A·B, D = beta·D + tmp·C; A ni×nk, B nk×nj, C nj×nl. */
typedef struct mdl_2mm_params {
  uint64_t ni, nj, nk, nl;
} mdl_2mm_params;
int mdl_2mm_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out, ppt_err *err);

/* STREAM (McCalpin): ntimes × {copy, scale, add, triad} over 3 arrays of n doubles,
 * after an initialisation region; vector_bits: SIMD width of the compiled loops (64 =
 * scalar). */
typedef struct mdl_stream_params {
  uint64_t n, ntimes, vector_bits;
} mdl_stream_params;
/* Tasklist of one thread of kernel `kernel` (0 init, 1 copy, 2 scale, 3 add, 4 triad) in
 * iteration `iter` (0-based; ignored for init), holding `elems` elements of each array. */
int mdl_stream_tasklist(const ppt_hwspec *hw, const mdl_stream_params *sp, uint32_t threads, uint64_t elems,
                        int kernel, uint64_t iter, ppt_tasklist **out, ppt_err *err);
int mdl_stream_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out,
                       ppt_err *err);
/* Bytes STREAM counts for a kernel: 2·8·n (copy, scale) or 3·8·n (add, triad). */
double mdl_stream_kernel_bytes(const void *params, const char *label);

/* Blackscholes (PARSEC): runs × price n options (7 arrays of 4-byte values). */
typedef struct mdl_bs_params {
  uint64_t n, runs;
} mdl_bs_params;
/* Per-option op counts (blackscholes.c states and derives them). */
typedef struct mdl_bs_ops {
  double fadd, fmul, fdiv, ialu, branch;
} mdl_bs_ops;
void mdl_bs_ops_per_option(mdl_bs_ops *o);
/* Tasklist of one thread pricing `options` options in run `run` (0: cold caches). */
int mdl_bs_tasklist(const ppt_hwspec *hw, uint32_t threads, uint64_t options, uint64_t run,
                    ppt_tasklist **out, ppt_err *err);
int mdl_bs_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out, ppt_err *err);

/* ------------------------------------------------------------ command line */

/* An integer option of a model: --name VALUE into *dest, in [min, max]. */
typedef struct mdl_opt {
  const char *name;
  uint64_t *dest;
  uint64_t min, max;
  const char *help;
} mdl_opt;

typedef struct mdl_model {
  const char *name;    /* "matmul": the program is ppt-model-matmul */
  const char *summary; /* one line for --help */
  const mdl_opt *opts; /* terminated by name == NULL; dest points into mdl_main's params */
  /* Called after parsing and loading the hwspec: checks and completes params (defaults
   * that depend on other options or on the CPU); NULL = none. */
  int (*check)(void *params, const ppt_hwspec *hw, ppt_err *err);
  int (*build)(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out, ppt_err *err);
  /* Regions reported as kernels with a bandwidth (STREAM): NULL-terminated labels, and
   * the bytes each moves. NULL = none. */
  const char *const *kernels;
  double (*kernel_bytes)(const void *params, const char *label);
} mdl_model;

/* The whole program: parses argv (--hw, --cores, --overlap, --fork-cycles, --json,
 * -o, --help and the model's options), predicts for every core count and prints a table
 * or JSON. Returns the exit code: 0, 1 (failure while running), 2 (bad usage or input,
 * "ppt-model-NAME: problem" on stderr). params must point to writable storage. */
int mdl_main(const mdl_model *m, void *params, int argc, char **argv);

/* The four models' entry points (main.c calls one). */
int mdl_matmul_main(int argc, char **argv);
int mdl_2mm_main(int argc, char **argv);
int mdl_stream_main(int argc, char **argv);
int mdl_bs_main(int argc, char **argv);

#endif
