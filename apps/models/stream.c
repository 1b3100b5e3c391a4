/* stream.c — McCalpin's STREAM (5.10) as a PPT proxy model.
 *
 * Three arrays a, b, c of n doubles; an initialisation loop (a = 1, b = 2, c = 0), then
 * ntimes iterations of four parallel loops, each its own fork-join region:
 *
 *   copy   c[j] = a[j]                 16 bytes per element (STREAM's count)
 *   scale  b[j] = s * c[j]             16
 *   add    c[j] = a[j] + b[j]          24
 *   triad  a[j] = b[j] + s * c[j]      24
 *
 * STREAM reports, per kernel, the best time over iterations 2..ntimes and bytes / time.
 * Here the bytes are STREAM's (loads plus stores, no write-allocate traffic), the time
 * is the predicted region time.
 *
 * Per thread (static schedule: the same chunk of e elements of every array in every
 * loop, all data private to the thread) with v = vector_bits / 64 doubles per access
 * (the loops are vectorised) and L = ⌈8e / line⌉ lines per array chunk:
 *   - each array a kernel touches gets ⌈e / v⌉ accesses, one per vector;
 *   - the L accesses that start a line move the line from wherever it is (items of
 *     `line` bytes); their reuse distance is the distinct lines since the previous
 *     kernel that touched the array at the same line l: the array's other L − 1 lines,
 *     plus for every other array Y: L if a kernel in between touched it or both kernels
 *     do; L − 1 − l if only the previous kernel does (its lines after l); l if only this
 *     kernel does (its lines before l). That is linear in l, so the distances spread
 *     evenly between their values at l = 0 and l = L − 1 (model.h's spread). The first
 *     touch of each line is in the initialisation (∞);
 *   - the other accesses are to the line just used, with the lines of the kernel's other
 *     k − 1 arrays in between (D = k − 1), items of v·8 bytes;
 *   - both are contiguous over the chunk (AMM Eq. 4's b = the chunk): streaming.
 * All distances are private (S = 0), so a shared cache sees them dilated by the threads
 * sharing it (CRD = q·PRD, model.h). For arrays much larger than the last-level cache
 * every line-starting access misses: DRAM moves 8 bytes per element per array, which is
 * STREAM's byte count, and with several cores the engine splits DRAM bandwidth between
 * them.
 *
 * Ops per vector iteration: the kernel's FP ops as VECTOR items of v·64 bits (scale 1
 * multiply, add 1 add, triad a multiply and an add: the FMA counted as two, as STREAM
 * counts flops), 2 integer ops and a branch for the loop. With --vector 64 the loop is
 * scalar (fmul/fadd items). The timing loop STREAM runs after initialisation is not
 * modelled. */
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define A_ (1u << 0)
#define B_ (1u << 1)
#define C_ (1u << 2)
#define SPREAD_BINS 16

typedef struct kernel_def {
  const char *name;
  unsigned arrays;
  double fmul, fadd;
  double bytes_per_elem; /* STREAM's count */
} kernel_def;

static const kernel_def KERNELS[] = {
    {"init", A_ | B_ | C_, 0, 0, 24}, {"copy", A_ | C_, 0, 0, 16},       {"scale", C_ | B_, 1, 0, 16},
    {"add", A_ | B_ | C_, 0, 1, 24},  {"triad", A_ | B_ | C_, 1, 1, 24},
};

static const char *const KERNEL_LABELS[] = {"copy", "scale", "add", "triad", NULL};

/* Kernel of region s of the program: 0 is init, then copy, scale, add, triad, ... */
static int kernel_of(uint64_t s) {
  return s == 0 ? 0 : 1 + (int)((s - 1) % 4);
}

static int popcount3(unsigned x) {
  return (int)((x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1));
}

/* Leading-line references of array x in region s: distances at l = 0 and l = L − 1, or
 * cold when nothing before touched x. */
static int leading(uint64_t s, unsigned x, double L, double *d0, double *d1) {
  unsigned cur = KERNELS[kernel_of(s)].arrays, between = 0;
  for (uint64_t t = s; t-- > 0;) {
    unsigned prev = KERNELS[kernel_of(t)].arrays;
    if (prev & x) {
      double c = L - 1, slope = 0;
      for (unsigned y = A_; y <= C_; y <<= 1) {
        if (y == x) continue;
        int in_prev = (prev & y) != 0, in_cur = (cur & y) != 0;
        if ((between & y) || (in_prev && in_cur))
          c += L;
        else if (in_prev)
          c += L - 1, slope -= 1; /* its lines after l in the previous kernel */
        else if (in_cur)
          slope += 1; /* its lines before l in this kernel */
      }
      *d0 = c;
      *d1 = c + slope * (L - 1);
      return 1;
    }
    between |= prev;
  }
  return 0;
}

static int add_ops(ppt_tasklist *tl, const kernel_def *k, double iters, uint64_t vbits, ppt_err *err) {
  int rc;
  if (vbits > 64) {
    if ((rc = ppt_tasklist_add_vector(tl, iters * (k->fmul + k->fadd), (uint32_t)vbits, err))) return rc;
  } else if ((rc = ppt_tasklist_add_op(tl, PPT_HW_FMUL, iters * k->fmul, err)) ||
             (rc = ppt_tasklist_add_op(tl, PPT_HW_FADD, iters * k->fadd, err))) {
    return rc;
  }
  if ((rc = ppt_tasklist_add_op(tl, PPT_HW_IALU, 2 * iters, err)) ||
      (rc = ppt_tasklist_add_op(tl, PPT_HW_BRANCH, iters, err)))
    return rc;
  return 0;
}

static int add_refs(ppt_tasklist *tl, const mdl_ctx *c, const mdl_stream_params *sp, const kernel_def *k,
                    uint64_t s, double e, mdl_refs *r, ppt_err *err) {
  double line = c->hw->levels[0].line;
  double v = (double)sp->vector_bits / 64.0;
  if (v * 8 > line) v = line / 8; /* a vector wider than a line: count line-sized accesses */
  double L = mdl_lines(8 * e, line), acc = mdl_lines(e, v), chunk = 8 * e;
  int karr = popcount3(k->arrays), rc;
  /* Words of the line just used. */
  mdl_refs_clear(r);
  if ((rc = mdl_refs_at(r, karr * (acc > L ? acc - L : 0), 0, karr - 1, err)) ||
      (rc = mdl_refs_emit(r, tl, c, 8 * v, chunk, err)))
    return rc;
  /* The first access of each line, one spread per array. */
  mdl_refs_clear(r);
  for (unsigned x = A_; x <= C_; x <<= 1) {
    if (!(k->arrays & x)) continue;
    double d0, d1;
    if (leading(s, x, L, &d0, &d1)) {
      unsigned bins = L < SPREAD_BINS ? (unsigned)L : SPREAD_BINS;
      rc = mdl_refs_spread(r, L, 0, d0, 0, d1, bins, err);
    } else {
      rc = mdl_refs_cold(r, L, 0, 0, err);
    }
    if (rc) return rc;
  }
  return mdl_refs_emit(r, tl, c, line, chunk, err);
}

int mdl_stream_tasklist(const ppt_hwspec *hw, const mdl_stream_params *sp, uint32_t threads, uint64_t elems,
                        int kernel, uint64_t iter, ppt_tasklist **out, ppt_err *err) {
  *out = NULL;
  if (kernel < 0 || kernel > 4) return ppt_err_set(err, PPT_EINPUT, "stream: no kernel %d", kernel);
  if (!hw->nlevels || hw->levels[0].line < 8)
    return ppt_err_set(err, PPT_EINPUT, "%s: model needs a cache with lines of at least 8 bytes", hw->name);
  if (sp->vector_bits < 64)
    return ppt_err_set(err, PPT_EINPUT, "stream: vector width %llu bits, at least 64",
                       (unsigned long long)sp->vector_bits);
  uint64_t s = kernel == 0 ? 0 : 1 + 4 * iter + (uint64_t)(kernel - 1);
  const kernel_def *k = &KERNELS[kernel];
  mdl_ctx c = {hw, threads};
  double e = (double)elems;
  double v = (double)sp->vector_bits / 64.0;
  ppt_tasklist *tl = ppt_tasklist_new();
  mdl_refs *r = mdl_refs_create();
  int rc = tl && r ? 0 : ppt_err_set(err, PPT_ERUN, "model: out of memory");
  if (!rc && elems > 0) {
    if (!(rc = add_ops(tl, k, mdl_lines(e, v), sp->vector_bits, err)))
      rc = add_refs(tl, &c, sp, k, s, e, r, err);
  }
  mdl_refs_free(r);
  if (rc) {
    ppt_tasklist_free(tl);
    return rc;
  }
  *out = tl;
  return 0;
}

double mdl_stream_kernel_bytes(const void *params, const char *label) {
  const mdl_stream_params *sp = params;
  for (size_t i = 0; i < sizeof KERNELS / sizeof *KERNELS; i++)
    if (!strcmp(KERNELS[i].name, label)) return KERNELS[i].bytes_per_elem * (double)sp->n;
  return 0;
}

/* Adds region s with the threads' tasklists (one per distinct chunk size). */
static int add_region(mdl_prog *p, const ppt_hwspec *hw, const mdl_stream_params *sp, uint32_t threads,
                      uint64_t s, const ppt_tasklist **tls, ppt_err *err) {
  int kernel = kernel_of(s);
  uint64_t iter = s ? (s - 1) / 4 : 0;
  ppt_tasklist *prev = NULL;
  uint64_t prev_e = 0;
  int rc = 0;
  for (uint32_t t = 0; t < threads && !rc; t++) {
    uint64_t e = mdl_chunk(sp->n, threads, t);
    if (!prev || e != prev_e) {
      ppt_tasklist *tl;
      if ((rc = mdl_stream_tasklist(hw, sp, threads, e, kernel, iter, &tl, err)) ||
          (rc = mdl_prog_keep(p, tl, err)))
        break;
      prev = tl;
      prev_e = e;
    }
    tls[t] = prev;
  }
  if (!rc) rc = mdl_prog_parallel(p, threads, tls, KERNELS[kernel].name, err);
  return rc;
}

int mdl_stream_program(const ppt_hwspec *hw, const void *params, uint32_t threads, mdl_prog **out,
                       ppt_err *err) {
  const mdl_stream_params *sp = params;
  *out = NULL;
  mdl_prog *p = mdl_prog_create();
  const ppt_tasklist **tls = calloc(threads, sizeof *tls);
  int rc = p && tls ? 0 : ppt_err_set(err, PPT_ERUN, "model: out of memory");
  /* Iterations after the second are the same as the second (each kernel's previous
   * kernels are the same), but each is its own region, as in STREAM. */
  for (uint64_t s = 0; s <= 4 * sp->ntimes && !rc; s++) rc = add_region(p, hw, sp, threads, s, tls, err);
  free(tls);
  if (rc) {
    mdl_prog_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

static int check(void *params, const ppt_hwspec *hw, ppt_err *err) {
  mdl_stream_params *sp = params;
  if (sp->vector_bits == 0) sp->vector_bits = hw->vector_bits >= 64 ? hw->vector_bits : 64;
  if (sp->vector_bits & (sp->vector_bits - 1))
    return ppt_err_set(err, PPT_EINPUT, "--vector %llu: not a power of two",
                       (unsigned long long)sp->vector_bits);
  return 0;
}

int mdl_stream_main(int argc, char **argv) {
  mdl_stream_params sp = {.n = 10000000, .ntimes = 10, .vector_bits = 0};
  const mdl_opt opts[] = {
      {"n", &sp.n, 1, UINT64_C(1) << 40, "doubles per array (default 10000000, STREAM's)"},
      {"ntimes", &sp.ntimes, 2, 1000, "iterations of the four kernels (default 10)"},
      {"vector", &sp.vector_bits, 64, 4096,
       "SIMD width of the loops in bits, 64 = scalar (default: the spec's vector_bits)"},
      {0}};
  const mdl_model m = {.name = "stream",
                       .summary = "McCalpin's STREAM: copy, scale, add, triad over 3 arrays of n doubles",
                       .opts = opts,
                       .check = check,
                       .build = mdl_stream_program,
                       .kernels = KERNEL_LABELS,
                       .kernel_bytes = mdl_stream_kernel_bytes};
  return mdl_main(&m, &sp, argc, argv);
}
