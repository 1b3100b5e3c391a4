/* models/cpu/fp_window.c — what hwspec.fp_window means: the time per execution of a block whose
 * executions each run a chain of dependent FP ops (docs/engine.md, "Chains inside a
 * block"). One definition for the two sides that must agree: `ppt calibrate` reads S
 * back from the chains it times (ppt_hwspec_window_size), the program model prices a
 * block's chain with it (ppt_hwspec_window_cycles).
 *
 * A core holds S FP ops dispatched but not yet issued. A block of F FP ops whose longest
 * chain takes P cycles keeps S / F whole executions in the window besides the one it
 * drains, each advancing one op per P / F cycles: an execution takes P·F / (S + F).
 * Near the ports' own bound an op that is ready waits for its pipe: ops are bound to a
 * pipe as they enter the scheduler and a pipe issues one a cycle (a divider one every
 * 1 / per_cycle), so for a pipe busy a share ρ of the time the wait is, with random
 * arrivals, ρ·s / (2 (1 − ρ)) (M/D/1, Pollaczek–Khinchine; s the pipe's service time).
 * (Divides and roots share one divider: an M/G/1 queue, chain_waits.)
 * Each op of the chain waits so: P grows by the waits of its ops, and ρ depends on the
 * time sought, T = (P + W(T))·F / (S + F), solved by bisection (the right side falls as
 * T grows). On the Zen 5 validation host this gives 6.8 cycles for a chain of 8 (fmul,
 * fadd) pairs per element, timed 6.6 (the window alone: 5.9), and 7.4 for vecpoly's
 * degree-8 Horner polynomial, timed 7.4 (5.9 alone): where the ports and the window
 * each bind in part, the waits are what the plain bound misses. */
#include <math.h>

#include "ppt/cpu.h"

/* The FP classes that sit in the FP scheduler and may lie on a chain. */
static const int fp_class[] = {PPT_HW_FADD, PPT_HW_FMUL, PPT_HW_FDIV, PPT_HW_FSQRT};
#define NFP (sizeof fp_class / sizeof fp_class[0])

/* A class's own pipe figures: a root without its own (per_cycle unknown) is a divide,
 * as the ports model takes it (models/cpu/tc_policy.c). */
static const ppt_hw_op *class_op(const ppt_hwspec *hw, int c) {
  if (c == PPT_HW_FSQRT && !(hw->ops[c].per_cycle > 0)) return &hw->ops[PPT_HW_FDIV];
  return &hw->ops[c];
}

/* The chain's latency P (cycles) and its ops' waits at T cycles per execution. */
static double chain_latency(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS]) {
  double p = 0;
  for (size_t i = 0; i < NFP; i++) p += path[fp_class[i]] * class_op(hw, fp_class[i])->latency;
  return p;
}

/* Divides and roots queue for one divider (the ports model's one port for both: on
 * a Zen 3 guest `a / (c * sqrt(b))` alone runs at 12.8 cycles, the sum
 * of a divide's and a root's issue intervals, 4.5 + 9): an M/G/1 queue whose ops take
 * s_c = 1 / per_cycle cycles each, so an op waits sum_c λ_c s_c² / (2 (1 − ρ)) with
 * λ_c = ops_c / T and ρ = sum_c λ_c s_c (Pollaczek–Khinchine). Adds and multiplies
 * each have per_cycle pipes of their own (M/D/1 as above, each pipe taking
 * λ / per_cycle). Pipe g's classes: g itself, and the roots with the divides. */
static int same_pipe(int c, int g) {
  return c == g || (g == PPT_HW_FDIV && c == PPT_HW_FSQRT);
}
static const int pipes[] = {PPT_HW_FADD, PPT_HW_FMUL, PPT_HW_FDIV};
#define NPIPES (sizeof pipes / sizeof pipes[0])

/* Pipe group g per execution of the block: the chain's ops on it, the cycles its ops
 * keep one pipe busy (busy / T is ρ at T cycles an execution; busy itself is the ports'
 * bound there) and Σ_c ops_c s_c² per pipe (over T, the Pollaczek–Khinchine numerator). */
typedef struct pipe_load {
  double on_path, busy, s2;
} pipe_load;
static pipe_load load_of(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                         const double ops[PPT_HW_NOPCLASS], size_t g) {
  pipe_load l = {0, 0, 0};
  for (size_t i = 0; i < NFP; i++) {
    int c = fp_class[i];
    const ppt_hw_op *o = class_op(hw, c);
    if (!same_pipe(c, pipes[g]) || !(o->per_cycle > 0)) continue;
    /* per_cycle pipes of one cycle each, or one that takes 1 / per_cycle cycles */
    double s = o->per_cycle >= 1 ? 1.0 : 1.0 / o->per_cycle, per_pipe = ops[c] / fmax(o->per_cycle, 1.0);
    l.on_path += path[c];
    l.busy += per_pipe * s;
    l.s2 += per_pipe * s * s;
  }
  return l;
}

static double chain_waits(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                          const double ops[PPT_HW_NOPCLASS], double t) {
  double w = 0;
  for (size_t g = 0; g < NPIPES; g++) {
    pipe_load l = load_of(hw, path, ops, g);
    if (l.on_path <= 0) continue;
    double rho = l.busy / t;
    if (rho >= 1) return INFINITY;
    w += l.on_path * (l.s2 / t) / (2 * (1 - rho));
  }
  return w;
}
static double fp_ops(const double ops[PPT_HW_NOPCLASS]) {
  double f = 0;
  for (size_t i = 0; i < NFP; i++) f += ops[fp_class[i]];
  return f;
}

double ppt_hwspec_window_cycles(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                                const double ops[PPT_HW_NOPCLASS]) {
  double p = chain_latency(hw, path), f = fp_ops(ops), s = hw->fp_window;
  if (!(s > 0) || !(p > 0) || !(f > 0)) return 0;
  /* The ports' bound: at or below it some pipe is busy all the time (ρ >= 1). */
  double lo = 0;
  for (size_t g = 0; g < NPIPES; g++) {
    pipe_load l = load_of(hw, path, ops, g);
    if (l.on_path > 0) lo = fmax(lo, l.busy);
  }
  /* f(T) = T − (P + W(T))·F / (S + F) rises with T: negative just above lo (W infinite
   * at ρ = 1), positive once T passes the window's bound with the waits at T. */
  /* The window holds (S + F) / F executions, and the core works on at most fp_chains
   * of them whatever it holds: T = (P + W) / E with E the smaller. */
  double k = f / (s + f);
  if (hw->fp_chains > 0) k = fmax(k, 1 / hw->fp_chains);
  double hi = fmax(2 * lo, p * k);
  while (hi - (p + chain_waits(hw, path, ops, hi)) * k < 0) hi *= 2;
  for (int it = 0; it < 100 && hi - lo > 1e-9 * hi; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid - (p + chain_waits(hw, path, ops, mid)) * k < 0)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

double ppt_hwspec_window_chains(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                                const double ops[PPT_HW_NOPCLASS], double t) {
  double p = chain_latency(hw, path);
  if (!(t > 0) || !(p > 0) || !(fp_ops(ops) > 0)) return 0;
  double w = chain_waits(hw, path, ops, t);
  return isfinite(w) ? (p + w) / t : 0;
}

/* S = (P + W)·F / T − F: the window holds E = S / F + 1 executions. */
double ppt_hwspec_window_size(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                              const double ops[PPT_HW_NOPCLASS], double t) {
  double e = ppt_hwspec_window_chains(hw, path, ops, t);
  return e > 0 ? (e - 1) * fp_ops(ops) : 0;
}
