/* calib_bw.c — `ppt calibrate`'s bandwidth stage: each level and DRAM streamed by a
 * thread per core that shares it, then by one core alone (where the instance is
 * shared), and DRAM's triads, whose write-back costs calibrate reports. */
#include <stdio.h>

#include "calib/calib_run.h"
#include "hwspec/hwspec_limits.h"
#include "ppt/calib.h"

/* DRAM's triads (calib_triad_bw) over the read streams' `all` bytes, one thread alone
 * (on `one`, the first core of the package, as the one-core read stream) and one per
 * core (nt threads, on cpus when pinned): with the read streams of the same threads they
 * say what a written-back line costs (ppt_calib_writeback_cost; reported, not written
 * into the spec: docs/hwspec.md says why). The same working set and 1 MiB chunks (of
 * each array) as the read streams. A failed triad leaves its figure 0 (no cost
 * measured), not the run. */
static void dram_triads(calib_run *r, size_t all, uint32_t nt, const int *cpus, int pinned, int one) {
  ppt_calib_result *out = r->out;
  int huge = 0;
  size_t each = all / nt / 64 * 64;
  out->dram_core_triad_bytes_per_s =
      calib_triad_bw(all, (size_t)1 << 20, 1, one >= 0 ? &one : NULL, &r->t_mem, &huge);
  r->any_huge |= huge;
  out->dram_triad_bytes_per_s =
      nt == 1 ? out->dram_core_triad_bytes_per_s
              : calib_triad_bw(each, (size_t)1 << 20, nt, pinned ? cpus : NULL, &r->t_mem, &huge);
  r->any_huge |= huge;
}

/* DRAM again, one core alone: its misses in flight bound what it streams, often far
 * below the socket's figure (this VM: ~20-25 of ~45-49 GB/s), and without this the
 * models would let one core take the whole socket. The same buffer (all of it, one
 * thread) read in the same 1 MiB chunks, on the first core of the package. With one
 * thread above (nt, on cpus when pinned, at bw), that figure already is this one. */
static int dram_one_core(calib_run *r, uint32_t nt, const int *cpus, int pinned, double bw) {
  ppt_calib_result *out = r->out;
  int rc = 0, huge = 0, one = -1;
  if (calib_cpus_primary(r->pkg_list, calib_sibling_dir(r), &one, 1) != 1) one = -1;
  size_t all = (size_t)r->dram_stream_bytes / 64 * 64;
  size_t chunk1 = all > ((size_t)1 << 20) ? (size_t)1 << 20 : all;
  double core = nt == 1 ? bw : calib_stream_bw(all, chunk1, 1, one >= 0 ? &one : NULL, &r->t_mem, &huge);
  r->any_huge |= huge;
  if (core > 0)
    dram_triads(r, all, nt, cpus, pinned, one);
  else
    rc = ppt_err_set(r->err, PPT_ERUN,
                     "calibrate: cannot measure the one-core DRAM bandwidth (out of "
                     "memory)");
  out->dram_core_bytes = nt == 1 ? out->bw_bytes[r->n] : all;
  out->dram_core_cpu = nt == 1 ? (pinned ? cpus[0] : -1) : one;
  out->dram_core_bytes_per_s = core;
  return rc;
}

/* ---- bandwidth: per level (k < n) and DRAM (k == n) ---- */
int calib_stage_bandwidth(calib_run *r, uint32_t k) {
  ppt_calib_result *out = r->out;
  const ppt_hwspec *hw = r->hw;
  uint32_t n = r->n;
  int cpus[1024];
  int rc = 0, huge = 0;
  /* One thread per core that shares the instance (every core, for DRAM), capped by
   * what is online and by the config, pinned to those cores when the list names them. */
  uint32_t nt = calib_min_u32(k < n ? hw->levels[k].shared_by : r->cores, r->max_threads);
  nt = calib_min_u32(nt, (uint32_t)(sizeof cpus / sizeof cpus[0]));
  const char *list = k < n ? out->caches.levels[k].shared_cpu_list : r->pkg_list;
  int pinned = calib_cpus_primary(list, calib_sibling_dir(r), cpus, nt) == nt;
  if (!pinned && nt > 1) snprintf(r->pinned_note, sizeof r->pinned_note, " (threads not pinned)");
  /* Half a cache level (its effective capacity when swept); the near set when a level
   * that behaves smaller could not be sized. */
  uint64_t total = k == n                               ? r->dram_stream_bytes
                   : out->near[k] && !out->eff_bytes[k] ? out->lat_near_bytes[k]
                                                        : hw->levels[k].size / 2;
  size_t each = (size_t)(total / nt) / 64 * 64;
  /* DRAM is read 1 MiB at a time round the buffer so trials stay short. */
  size_t chunk = k == n && each > ((size_t)1 << 20) ? (size_t)1 << 20 : each;
  double bw = calib_stream_bw(each, chunk, nt, pinned ? cpus : NULL, &r->t_mem, &huge);
  r->any_huge |= huge;
  if (!(bw > 0))
    rc = ppt_err_set(r->err, PPT_ERUN,
                     "calibrate: cannot measure the %s bandwidth (out of "
                     "memory or threads)",
                     k < n ? hw->levels[k].name : "DRAM");
  out->bw_bytes[k] = (uint64_t)each * nt;
  out->bw_chunk[k] = chunk;
  out->bw_threads[k] = nt;
  out->bw_bytes_per_s[k] = bw;
  if (k < n && nt > 1 && !rc) {
    /* A shared level read by one core alone: like DRAM below, one core's misses in
     * flight cap what it draws (this VM's L3: ~75 of ~155 GB/s), and the models would
     * otherwise give one core the whole instance. The same buffer, one thread. */
    double one_bw = calib_stream_bw(each * nt, 0, 1, pinned ? cpus : NULL, &r->t_mem, &huge);
    r->any_huge |= huge;
    out->core_bw_bytes_per_s[k] = one_bw > 0 ? one_bw : 0;
  }
  if (k < n || rc) return rc;
  return dram_one_core(r, nt, cpus, pinned, bw);
}

/* Each byte of a brings three in (b, c and a's read for ownership, as the models count
 * store misses) and sends one back, so read / triad - 3 fills' worth of time went to
 * each write-back; below 0 (clamped) when the write-backs overlap the reads or some
 * read-for-ownership is skipped (whole-line writes). */
double ppt_calib_writeback_cost(double read, double triad) {
  if (!(read > 0) || !(triad > 0)) return -1;
  double c = read / triad - 3.0;
  return c < 0 ? 0.0 : c > HW_MAX_WRITEBACK_COST ? HW_MAX_WRITEBACK_COST : c;
}
