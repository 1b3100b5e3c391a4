/* calib_window.c — how many FP ops one core holds dispatched but not yet issued (hwspec
 * fp_window: its FP schedulers and the queue before them).
 *
 * Each element of an L1-resident array starts a chain of D dependent (fmul, fadd)
 * pairs, a = a * x[i] + c with the two ops kept apart, and stores its end. Elements are
 * independent, so an out-of-order core would overlap as many chains as it can see; with
 * F = 2D ops per element and P = D x (fmul + fadd latency) cycles along its chain, it
 * cannot look further than the ops waiting in its FP scheduler. S waiting ops hold
 * S / F whole chains besides the one being drained, so an element takes
 *   T = P x F / (S + F) cycles,  S = P x F / T - F
 * (calib_spec.c computes S from T and the spec's latencies, which is the model's
 * formula read backwards). Short chains are bound by the FP ports instead (on the Zen 5
 * VM, D <= 8 ran at 2-3 FP ops per cycle, S read low), so the depths timed are 16, 24
 * and 32, where the window binds.
 *
 * The chain is unrolled in the source (macros), not a loop: a loop of D trips has a
 * branch per element whose exit a predictor may miss, and a mispredict throws away the
 * younger elements the core had started, which is not the window. The empty asm barrier
 * after every op keeps each a separate scalar instruction (no FMA contraction, no
 * vectorising across elements, no reassociation). Values: x in [0.5, 0.53), c = 0.25,
 * so a settles near c / (1 - x) ~ 0.5: no overflow and no denormals. */
#include <stdint.h>

#include "calib/calib_impl.h"

#define WIN_ELEMS 256 /* 4 KiB of x and of y: both stay in L1 */

typedef struct win_arg {
  double x[WIN_ELEMS], y[WIN_ELEMS];
  double c;
} win_arg;

/* The chain of D pairs; no trailing semicolon, the user writes it (WIN_16;). */
#define WIN_PAIR    \
  a = a * v;        \
  CALIB_KEEP_FP(a); \
  a = a + c;        \
  CALIB_KEEP_FP(a)
#define WIN_8 \
  WIN_PAIR;   \
  WIN_PAIR;   \
  WIN_PAIR;   \
  WIN_PAIR;   \
  WIN_PAIR;   \
  WIN_PAIR;   \
  WIN_PAIR;   \
  WIN_PAIR
#define WIN_16 \
  WIN_8;       \
  WIN_8
#define WIN_24 \
  WIN_16;      \
  WIN_8
#define WIN_32 \
  WIN_16;      \
  WIN_16

/* n elements (a multiple of WIN_ELEMS), each a chain of D pairs. */
#define WIN_KERNEL(D)                                        \
  CALIB_KERNEL static void k_win##D(void *arg, uint64_t n) { \
    win_arg *w = arg;                                        \
    double c = w->c;                                         \
    for (uint64_t r = 0; r < n; r += WIN_ELEMS)              \
      for (int i = 0; i < WIN_ELEMS; i++) {                  \
        double v = w->x[i], a = c;                           \
        WIN_##D;                                             \
        w->y[i] = a;                                         \
      }                                                      \
  }
WIN_KERNEL(8)
WIN_KERNEL(16)
WIN_KERNEL(24)
WIN_KERNEL(32)

/* The kernels' data: x in [0.5, 0.53), c read at run time, so the chains cannot be folded. */
static void win_setup(win_arg *w) {
  volatile double c = 0.25;
  w->c = c;
  for (int i = 0; i < WIN_ELEMS; i++) w->x[i] = 0.5 + 1e-4 * i;
}

/* One kernel's add-chain adds per element. */
static double win_adds(calib_kernel k, win_arg *w, const calib_timing *t) {
  return calib_measure_vs(k, w, WIN_ELEMS, calib_k_add_chain, NULL, 8, t);
}

void calib_fp_window_adds(const calib_timing *t, uint32_t depth[PPT_CALIB_FPWIN_N],
                          double adds[PPT_CALIB_FPWIN_N]) {
  static const uint32_t depths[PPT_CALIB_FPWIN_N] = {16, 24, 32};
  static const calib_kernel kernels[PPT_CALIB_FPWIN_N] = {k_win16, k_win24, k_win32};
  win_arg w;
  win_setup(&w);
  for (int j = 0; j < PPT_CALIB_FPWIN_N; j++) {
    depth[j] = depths[j];
    adds[j] = win_adds(kernels[j], &w, t);
  }
}

/* The chains in flight (hwspec fp_chains): the same elements with 8 pairs each. A
 * window of S ops would hold 1 + S / 16 of them, but a core may overlap fewer: on a
 * Zen 3 guest chains of 4, 8, 12 and 16 pairs took 4.8, 9.8, 16.5 and 25.1
 * cycles (1 + S/F = 13.9, 7.4, 5.3 and 4.2 chains by the window of ~104 ops that depths
 * 16-32 read; 4.9, 4.8, 4.4 and 4.0 in fact), and vecpoly's degree-8 Horner chains ran
 * 24 % slower than the window alone predicted. Timed like the window's depths, against
 * the add chain. */
double calib_fp_chains_adds(const calib_timing *t, uint32_t *depth) {
  win_arg w;
  win_setup(&w);
  *depth = 8;
  return win_adds(k_win8, &w, t);
}
