/* models/cpu/tc_policy.c — the core model's policy: how compute and memory time
 * overlap, how op classes combine, which memory model prices the hit rates
 * (ppt/tasklist.h, docs/engine.md), with the names the command lines use. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/tasklist_impl.h"

void ppt_tc_policy_default(ppt_tc_policy *p) {
  /* Chosen on half A of the runtime validation (validation/run runtime, docs/validation.md
   * "Method"): ports + pipe + partial 0.25 with loops plain has the lowest MAPE on half A
   * of the 42 core models it tries (validation/results/runtime-summary.txt: 10.30 % on
   * A, 8.09 % out of sample on B, against 51.61 % on A for PPT's sum + amm + sum). Pipe
   * is also what the hardware does: a stream's reads from DRAM and its write-backs into
   * L2, L3 and DRAM move over different links at the same time, which miss adds up. */
  p->overlap = PPT_OVERLAP_PARTIAL;
  p->fraction = 0.25;
  p->compute = PPT_COMPUTE_PORTS;
  p->memory = PPT_MEMORY_PIPE;
  p->loop_hide = 0;
  p->loop_fraction = 1.0;
}

const char *ppt_tc_compute_name(ppt_compute_model m) {
  return m == PPT_COMPUTE_SUM ? "sum" : m == PPT_COMPUTE_PORTS ? "ports" : NULL;
}

const char *ppt_tc_memory_name(ppt_memory_model m) {
  return m == PPT_MEMORY_AMM ? "amm" : m == PPT_MEMORY_MISS ? "miss" : m == PPT_MEMORY_PIPE ? "pipe" : NULL;
}

const char *ppt_tc_loops_name(const ppt_tc_policy *p, char *buf, size_t n) {
  if (!p->loop_hide) return "plain";
  snprintf(buf, n, "%g", p->loop_fraction);
  return buf;
}

int ppt_tc_loops_parse(const char *s, ppt_tc_policy *p) {
  if (s && !strcmp(s, "plain")) {
    p->loop_hide = 0;
    return 0;
  }
  char *end;
  errno = 0;
  double f = s ? strtod(s, &end) : NAN;
  if (!s || errno || end == s || *end || !(f >= 0 && f <= 1)) return -1;
  p->loop_hide = 1;
  p->loop_fraction = f;
  return 0;
}

int ppt_tc_compute_parse(const char *s, ppt_compute_model *out) {
  for (int m = PPT_COMPUTE_SUM; m <= PPT_COMPUTE_PORTS; m++)
    if (s && !strcmp(s, ppt_tc_compute_name((ppt_compute_model)m))) {
      *out = (ppt_compute_model)m;
      return 0;
    }
  return -1;
}

int ppt_tc_memory_parse(const char *s, ppt_memory_model *out) {
  for (int m = PPT_MEMORY_AMM; m <= PPT_MEMORY_PIPE; m++)
    if (s && !strcmp(s, ppt_tc_memory_name((ppt_memory_model)m))) {
      *out = (ppt_memory_model)m;
      return 0;
    }
  return -1;
}

/* Tc of per-class cycles: added up (SUM) or the busiest port class (PORTS). */
double tc_combine_classes(ppt_compute_model m, const double cyc[PPT_HW_NOPCLASS]) {
  double t = 0;
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) t = m == PPT_COMPUTE_PORTS ? fmax(t, cyc[k]) : t + cyc[k];
  return t;
}

int tc_op_rate_class(const ppt_hwspec *hw, int cls) {
  return cls == PPT_HW_FSQRT && !(hw->ops[cls].per_cycle > 0) ? PPT_HW_FDIV : cls;
}

int tc_op_port(int cls) {
  return cls == PPT_HW_FSQRT ? PPT_HW_FDIV : cls;
}

double ppt_tc_ops_cycles(const ppt_hwspec *hw, const ppt_tc_policy *p, const double ops[PPT_HW_NOPCLASS]) {
  double cyc[PPT_HW_NOPCLASS] = {0};
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) {
    int rate = tc_op_rate_class(hw, k);
    if (hw->ops[rate].per_cycle > 0) cyc[tc_op_port(k)] += ops[k] / hw->ops[rate].per_cycle;
  }
  return tc_combine_classes(p ? p->compute : PPT_COMPUTE_SUM, cyc);
}

double ppt_tc_policy_fraction(const ppt_tc_policy *p) {
  switch (p->overlap) {
    case PPT_OVERLAP_SUM: return 0.0;
    case PPT_OVERLAP_MAX: return 1.0;
    case PPT_OVERLAP_PARTIAL: return p->fraction;
    case PPT_OVERLAP_STALL: return 1.0; /* for the transfers; the latency adds */
  }
  return -1.0;
}

double ppt_tc_hide_cycles(const double cpu_by[PPT_TC_NCPU]) {
  return cpu_by[PPT_CPU_LOOP_EXIT];
}

double ppt_tc_policy_cycles(const ppt_tc_policy *p, double tc, double hide, double tm, double transfers) {
  if (p->overlap == PPT_OVERLAP_SUM) return tc + tm;
  hide = fmin(fmax(hide, 0.0), tc);
  if (p->overlap == PPT_OVERLAP_STALL) return fmax(tc, transfers) + fmax(0.0, tm - transfers - hide);
  double hidden = fmin(hide, tm);
  return tc + tm - hidden - ppt_tc_policy_fraction(p) * fmin(tc - hide, tm - hidden);
}

double ppt_tc_policy_loop_cycles(const ppt_tc_policy *p, double tc, double hide, double tm, double transfers,
                                 const ppt_tc_loops *loop) {
  if (!loop || !(loop->chain + loop->memory > 0)) return ppt_tc_policy_cycles(p, tc, hide, tm, transfers);
  /* The loops' own: their chains, exits and memory, overlapped with each other only. */
  double own = loop->chain + loop->exits + loop->memory - loop->overlap;
  return own + ppt_tc_policy_cycles(p, fmax(0.0, tc - loop->chain - loop->exits),
                                    fmax(0.0, hide - loop->exits), fmax(0.0, tm - loop->memory),
                                    fmax(0.0, transfers - loop->transfers));
}

int ppt_tc_overlap_parse(const char *s, ppt_tc_policy *p) {
  if (!s) return -1;
  if (!strcmp(s, "sum")) {
    p->overlap = PPT_OVERLAP_SUM;
    p->fraction = 0;
  } else if (!strcmp(s, "max")) {
    p->overlap = PPT_OVERLAP_MAX;
    p->fraction = 1;
  } else if (!strcmp(s, "stall")) {
    p->overlap = PPT_OVERLAP_STALL;
    p->fraction = 1;
  } else if (!strncmp(s, "partial,", 8)) {
    char *end;
    errno = 0;
    double f = strtod(s + 8, &end);
    if (errno || end == s + 8 || *end || !(f >= 0 && f <= 1)) return -1;
    p->overlap = PPT_OVERLAP_PARTIAL;
    p->fraction = f;
  } else {
    return -1;
  }
  return 0;
}

const char *ppt_tc_overlap_name(ppt_overlap o) {
  switch (o) {
    case PPT_OVERLAP_SUM: return "sum";
    case PPT_OVERLAP_MAX: return "max";
    case PPT_OVERLAP_PARTIAL: return "partial";
    case PPT_OVERLAP_STALL: return "stall";
  }
  return NULL;
}
