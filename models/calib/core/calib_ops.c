/* calib_ops.c — op throughput and latency kernels of `ppt calibrate`, and the clock.
 *
 * Latency: one dependent chain x = x OP c, so each op waits for the one before it.
 * Throughput: NCHAIN independent chains interleaved, enough to cover latency x ports on
 * the cores we know (e.g. 4-cycle FP add on 2 ports needs 8 in flight). Constants come
 * from volatile loads so the compiler cannot fold them (x * 1.0 would vanish), and an
 * empty asm barrier after every op keeps each op a separate scalar instruction. Loop
 * overhead (counter add, compare-and-branch) shares the integer ports with ialu ops, so
 * ialu throughput reads slightly low: we report what the kernel measures. The timing
 * loop itself (calib_measure) is in calib_time.c. */
#include <stdint.h>

#include "calib/calib_impl.h"

/* Operands are read once through local volatiles, so their values are unknown at
 * compile time; results go to a volatile sink so the chains are not dead code.
 * FP constants: x + 1e-9 grows slowly (no overflow); x * (1 + 1e-12) and x / (1 + 1e-12)
 * stay near 1 (no denormals, which are slow on some cores). */
static inline uint64_t opaque_u64(uint64_t v) {
  volatile uint64_t x = v;
  return x;
}
static inline double opaque_fp(double v) {
  volatile double x = v;
  return x;
}
static inline void sink_u64(uint64_t v) {
  volatile uint64_t x = v;
  (void)x;
}
static inline void sink_fp(double v) {
  volatile double x = v;
  (void)x;
}
#define V_ONE_U64 opaque_u64(1)
#define V_ONE_U32 ((uint32_t)opaque_u64(1))
#define V_FP_ADD opaque_fp(1e-9)
#define V_FP_MUL opaque_fp(1.0 + 1e-12)
#define SINK_U64(v) sink_u64(v)
#define SINK_FP(v) sink_fp(v)

#define NCHAIN 12

int calib_optimised(void) {
#ifdef __OPTIMIZE__
  return 1;
#else
  return 0;
#endif
}

// clang-format off: one op per line would hide the chain structure of the kernels.
/* ---- kernels: n is a multiple of 8 (latency) or NCHAIN (throughput) ---- */

#define REP8(s) s s s s s s s s

/* One dependent add per cycle: the yardstick the other kernels are timed against. */
CALIB_KERNEL void calib_k_add_chain(void *arg, uint64_t n) {
  (void)arg;
  uint64_t x = V_ONE_U64, c = V_ONE_U64;
  for (uint64_t i = 0; i < n; i += 8) {
    REP8(x += c; CALIB_KEEP_INT(x);)
  }
  SINK_U64(x);
}

CALIB_KERNEL static void k_iadd_thr(void *arg, uint64_t n) {
  (void)arg;
  uint64_t c = V_ONE_U64, x[NCHAIN];
  for (int j = 0; j < NCHAIN; j++) x[j] = (uint64_t)j;
  for (uint64_t i = 0; i < n; i += NCHAIN) {
#define STEP(j) \
  x[j] += c;    \
  CALIB_KEEP_INT(x[j]);
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)
#undef STEP
  }
  uint64_t s = 0;
  for (int j = 0; j < NCHAIN; j++) s += x[j];
  SINK_U64(s);
}

/* 32-bit division (C int/unsigned): x / 1 keeps the full 32-bit quotient, so dividers
 * whose time grows with quotient bits are timed at their slow end, as for typical
 * index arithmetic on large values. */
CALIB_KERNEL static void k_idiv_lat(void *arg, uint64_t n) {
  (void)arg;
  uint32_t x = 0xdeadbeefu ^ V_ONE_U32, d = V_ONE_U32;
  for (uint64_t i = 0; i < n; i += 8) {
    REP8(x /= d; CALIB_KEEP_INT(x);)
  }
  SINK_U64(x);
}

CALIB_KERNEL static void k_idiv_thr(void *arg, uint64_t n) {
  (void)arg;
  uint32_t d = V_ONE_U32, x[NCHAIN];
  for (int j = 0; j < NCHAIN; j++) x[j] = 0xdeadbeefu - (uint32_t)j;
  for (uint64_t i = 0; i < n; i += NCHAIN) {
#define STEP(j) \
  x[j] /= d;    \
  CALIB_KEEP_INT(x[j]);
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)
#undef STEP
  }
  uint64_t s = 0;
  for (int j = 0; j < NCHAIN; j++) s += x[j];
  SINK_U64(s);
}

#define FP_KERNELS(NAME, OPEQ, CONST)                              \
  CALIB_KERNEL static void k_##NAME##_lat(void *arg, uint64_t n) { \
    (void)arg;                                                     \
    double x = 1.0, c = CONST;                                     \
    for (uint64_t i = 0; i < n; i += 8) {                          \
      REP8(x OPEQ c; CALIB_KEEP_FP(x);)                            \
    }                                                              \
    SINK_FP(x);                                                    \
  }                                                                \
  CALIB_KERNEL static void k_##NAME##_thr(void *arg, uint64_t n) { \
    (void)arg;                                                     \
    double c = CONST, x[NCHAIN];                                   \
    for (int j = 0; j < NCHAIN; j++) x[j] = 1.0 + 0.125 * j;       \
    for (uint64_t i = 0; i < n; i += NCHAIN) {                     \
      x[0] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[0]);                                         \
      x[1] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[1]);                                         \
      x[2] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[2]);                                         \
      x[3] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[3]);                                         \
      x[4] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[4]);                                         \
      x[5] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[5]);                                         \
      x[6] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[6]);                                         \
      x[7] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[7]);                                         \
      x[8] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[8]);                                         \
      x[9] OPEQ c;                                                 \
      CALIB_KEEP_FP(x[9]);                                         \
      x[10] OPEQ c;                                                \
      CALIB_KEEP_FP(x[10]);                                        \
      x[11] OPEQ c;                                                \
      CALIB_KEEP_FP(x[11]);                                        \
    }                                                              \
    double s = 0;                                                  \
    for (int j = 0; j < NCHAIN; j++) s += x[j];                    \
    SINK_FP(s);                                                    \
  }

FP_KERNELS(fadd, +=, V_FP_ADD)
FP_KERNELS(fmul, *=, V_FP_MUL)
FP_KERNELS(fdiv, /=, V_FP_MUL)
/* Square roots: x = sqrt(x) + c (x settles near 2.2: no early-out on 0 or 1), so the
 * latency kernel's chain holds one add per root too; the throughput kernel's NCHAIN
 * chains hide it. */
#define SQRT_STEP(v)         \
  v = __builtin_sqrt(v) + c; \
  CALIB_KEEP_FP(v);
CALIB_KERNEL static void k_fsqrt_lat(void *arg, uint64_t n) {
  (void)arg;
  double x = 1.0, c = opaque_fp(0.75);
  for (uint64_t i = 0; i < n; i += 8) {
    REP8(SQRT_STEP(x))
  }
  SINK_FP(x);
}
CALIB_KERNEL static void k_fsqrt_thr(void *arg, uint64_t n) {
  (void)arg;
  double c = opaque_fp(0.75), x[NCHAIN];
  for (int j = 0; j < NCHAIN; j++) x[j] = 1.0 + 0.125 * j;
  for (uint64_t i = 0; i < n; i += NCHAIN) {
    SQRT_STEP(x[0]) SQRT_STEP(x[1]) SQRT_STEP(x[2]) SQRT_STEP(x[3]) SQRT_STEP(x[4]) SQRT_STEP(x[5])
    SQRT_STEP(x[6]) SQRT_STEP(x[7]) SQRT_STEP(x[8]) SQRT_STEP(x[9]) SQRT_STEP(x[10]) SQRT_STEP(x[11])
  }
  double s = 0;
  for (int j = 0; j < NCHAIN; j++) s += x[j];
  SINK_FP(s);
}
#undef SQRT_STEP

/* Taken branches: the loop back-edge is the only branch, and the barrier on the counter
 * keeps the loop from being removed or unrolled into fewer branches. */
CALIB_KERNEL static void k_branch_thr(void *arg, uint64_t n) {
  (void)arg;
  uint64_t i = 0;
  while (i < n) {
    i++;
    CALIB_KEEP_INT(i);
  }
  SINK_U64(i);
}

/* Loads from an L1-resident array into independent accumulators (add r, [mem]); the
 * memory clobber after each pass stops the loads being hoisted out of the outer loop. */
#define LOAD_WORDS 512

CALIB_KERNEL static void k_load_thr(void *arg, uint64_t n) {
  uint64_t s[8] = {0};
  const uint64_t *a = arg;
  for (uint64_t i = 0; i < n; i += LOAD_WORDS) {
    for (int w = 0; w < LOAD_WORDS; w += 8) {
#define STEP(j)     \
  s[j] += a[w + j]; \
  CALIB_KEEP_INT(s[j]);
      STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
    }
    CALIB_CLOBBER_MEMORY();
  }
  SINK_U64(s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]);
}

// clang-format on

void calib_ops_mix_s(const calib_timing *t, double s[CALIB_MIX_N]) {
  uint64_t words[LOAD_WORDS];
  for (int i = 0; i < LOAD_WORDS; i++) words[i] = (uint64_t)i;
  const struct {
    calib_kernel k;
    void *arg;
    uint64_t unit;
  } mix[CALIB_MIX_N] = {{calib_k_add_chain, NULL, 8}, {k_iadd_thr, NULL, NCHAIN},
                        {k_fadd_thr, NULL, NCHAIN},   {k_fmul_thr, NULL, NCHAIN},
                        {k_fadd_lat, NULL, 8},        {k_fmul_lat, NULL, 8},
                        {k_fdiv_thr, NULL, NCHAIN},   {k_load_thr, words, LOAD_WORDS}};
  for (int j = 0; j < CALIB_MIX_N; j++) s[j] = calib_measure(mix[j].k, mix[j].arg, mix[j].unit, t);
}

double calib_add_chain_s(const calib_timing *t) {
  return calib_measure(calib_k_add_chain, NULL, 8, t);
}

void calib_op_adds(int op, const calib_timing *t, double *thr_adds, double *lat_adds) {
  calib_kernel thr = NULL, lat = NULL;
  uint64_t unit = NCHAIN, words[LOAD_WORDS];
  void *arg = NULL;
  switch (op) {
    case PPT_HW_IALU:
      thr = k_iadd_thr;
      lat = calib_k_add_chain;
      break;
    case PPT_HW_IDIV:
      thr = k_idiv_thr;
      lat = k_idiv_lat;
      break;
    case PPT_HW_FADD:
      thr = k_fadd_thr;
      lat = k_fadd_lat;
      break;
    case PPT_HW_FMUL:
      thr = k_fmul_thr;
      lat = k_fmul_lat;
      break;
    case PPT_HW_FDIV:
      thr = k_fdiv_thr;
      lat = k_fdiv_lat;
      break;
    case PPT_HW_FSQRT:
      thr = k_fsqrt_thr;
      lat = k_fsqrt_lat;
      break;
    case PPT_HW_BRANCH:
      thr = k_branch_thr;
      unit = 8;
      break;
    case PPT_HW_LOADST:
      for (int i = 0; i < LOAD_WORDS; i++) words[i] = (uint64_t)i;
      thr = k_load_thr;
      arg = words;
      unit = LOAD_WORDS;
      break;
    default: break;
  }
  *thr_adds = thr ? calib_measure_vs(thr, arg, unit, calib_k_add_chain, NULL, 8, t) : 0;
  *lat_adds = lat ? calib_measure_vs(lat, NULL, 8, calib_k_add_chain, NULL, 8, t) : 0;
}
