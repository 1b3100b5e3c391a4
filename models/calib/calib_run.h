/* calib_run.h — what `ppt calibrate` carries from one stage to the next: calib.c
 * measures (geometry, latencies, bandwidths, ops, clock) into it, calib_spec.c turns the
 * measurements into the hwspec, its notes and a citation for every figure. */
#ifndef PPT_CALIB_RUN_H
#define PPT_CALIB_RUN_H

#include "calib/calib_impl.h"

/* DRAM working set: 8x the last level, so (with random replacement, the worst case)
 * under 1/8 of the chase can hit in it; at least 64 MiB, at most 1 GiB or a quarter of
 * physical memory. */
#define CALIB_DRAM_FACTOR 8
/* DRAM's streams (bandwidths, triads) read at least this much: a guest's caches may be
 * far smaller than the host's, whose L3 then serves part of a stream over 8x the guest's
 * last level (docs/calibrate.md, "DRAM's streams"). */
#define CALIB_DRAM_STREAM_MIN (UINT64_C(512) << 20)

typedef struct calib_run {
  /* ---- the call ---- */
  const ppt_calib_config *cfg;
  const char *name, *date; /* the spec's name; the date for citations ("" for none) */
  ppt_calib_result *out;
  ppt_hwspec *hw; /* &out->hw */
  ppt_err *err;
  double t_start;
  calib_watch *watch; /* the stage being measured (NULL: nobody is told) */
  calib_timing t_ops, t_mem, t_clock;
  calib_timing t_pair; /* the two-core probes: coherence, false sharing */
  /* ---- what the geometry step found ---- */
  calib_cpuid_regs regs; /* read once: the caches, later the TLBs */
  char cpu_dir[4096], pkg_list[256];
  char geo[1024];  /* the geometry step's notes */
  char model[128]; /* /proc/cpuinfo "model name" and "cpu MHz" (0: absent) */
  double mhz;
  uint32_t n;           /* cache levels */
  uint32_t cores;       /* cores of the package */
  uint32_t max_threads; /* bandwidth threads at most */
  /* ---- measuring ---- */
  gsl_rng *rng;
  uint64_t llc;        /* the last level's size as the geometry gave it */
  uint64_t dram_bytes; /* the DRAM working set of the chases */
  uint64_t dram_stream_bytes; /* the DRAM working set of the streams */
  double add_s;        /* seconds per add of the clock chain */
  double clock;        /* the clock the spec uses, Hz */
  int any_huge;        /* some buffer got huge pages */
  cpu_set_t home_saved; /* the CPU set before pinning to out->home_cpu */
  int home_pinned;      /* pinned to out->home_cpu now */
  char lat_notes[640], c2c_note[160], contend_note[200], pinned_note[64];
  /* ---- the spec (calib_spec.c) ---- */
  double cyc_ns; /* cycles per ns at clock */
  const char *vec_what;
  char notes[4096]; /* as ppt_hwspec.notes */
  char when[64];    /* " on DATE", or "" */
  const char *stat; /* "median" or "best" */
} calib_run;

/* Fills r->hw from the measurements in r->out and r (clock, caches, DRAM, ops, mlp,
 * scalar figures, TLBs), then its source, notes and citations (calib_spec.c). */
void calib_spec_build(calib_run *r);

/* The sysfs CPU folder to read SMT siblings from when picking CPUs (none with a fake
 * sysfs tree: its CPUs are not this machine's). */
static inline const char *calib_sibling_dir(const calib_run *r) {
  return r->cfg->sysfs_dir ? NULL : r->cpu_dir;
}

static inline uint32_t calib_min_u32(uint32_t a, uint32_t b) {
  return a < b ? a : b;
}

/* calib_bw.c: the bandwidth of level k (k == n: DRAM, with its one-core stream and its
 * triads) into r->out. */
int calib_stage_bandwidth(calib_run *r, uint32_t k);

/* calib_cores.c: core_speed (each core alone) and busy_speed (2, 4, ... and all at once),
 * after the op figures, whose core is the first. */
void calib_stage_cores(calib_run *r);

/* calib_spec.c: a figure to three significant digits; a citation of `key` in hw's
 * sources; "pinned to CPU n" or "not pinned". */
double calib_sig3(double x);
/* store_forward_cycles and store_forward_fp_cycles from the forwarding kernels' trips
 * (calib_forward.c), after the op latencies (each takes an add's off). */
void calib_spec_store_forward(calib_run *r);
void calib_cite(ppt_hwspec *hw, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *calib_pinned_to(int cpu, char *buf, size_t size);

/* calib_spec_dram.c: DRAM's figures of the spec (latency, the socket's and one core's
 * bandwidths), and their citations (after r->when and r->stat are set). */
void calib_spec_dram(calib_run *r);
void calib_cite_dram(calib_run *r);

#endif
