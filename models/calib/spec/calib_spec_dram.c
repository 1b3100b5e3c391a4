/* calib_spec_dram.c — DRAM's figures of the spec `ppt calibrate` writes: the chase's
 * latency, the socket's bandwidth and one core's, each with its citation. */
#include <stdio.h>

#include "calib/calib_run.h"

/* The socket's figure (dram.bandwidth_gbs) caps the fills and write-backs of all cores
 * together (docs/engine.md). The all-core read stream measures it where the socket is
 * the bound; where each core's misses in flight are (this guest's two cores read
 * 50-66 GB/s together, 24-35 each alone), the triad's reads and write-backs move more
 * (~87 GB/s), and a socket figure from the reads alone priced the triad kernel at two
 * threads 32 % too slow. So the larger of the two (docs/calibrate.md, "DRAM's streams").
 * Four bytes cross per byte of a (b, c and a's read for ownership come in, a goes back),
 * as the models count a store miss (a fill) and its write-back. */
double ppt_calib_socket_bw(const ppt_calib_result *r, int *from_triad) {
  double read = r->bw_bytes_per_s[r->hw.nlevels], mixed = 4.0 * r->dram_triad_bytes_per_s;
  if (from_triad) *from_triad = mixed > read;
  return mixed > read ? mixed : read;
}

void calib_spec_dram(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  hw->dram_latency_ns = calib_sig3(out->lat_ns[r->n]);
  hw->dram_bw_bytes_per_s = calib_sig3(ppt_calib_socket_bw(out, NULL) / 1e9) * 1e9;
  hw->dram_core_bw_bytes_per_s = calib_sig3(out->dram_core_bytes_per_s / 1e9) * 1e9;
}

void calib_cite_dram(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  const char *when = r->when, *stat = r->stat;
  uint32_t n = r->n, th = out->bw_threads[n] ? out->bw_threads[n] : 1;
  int trials = r->t_mem.trials;
  char sz[32], sz2[32];
  calib_cite(hw, "dram.latency_ns",
             "ppt calibrate%s: pointer chase over %s (%dx %s), random order, "
             "%u B stride, %s pages, %s of %d",
             when, calib_human_bytes(out->lat_bytes[n], sz, sizeof sz), CALIB_DRAM_FACTOR,
             calib_human_bytes(r->llc, sz2, sizeof sz2), 2 * hw->levels[0].line,
             r->any_huge ? "huge" : "4 KiB", stat, trials);
  int from_triad;
  double read = out->bw_bytes_per_s[n], sock = ppt_calib_socket_bw(out, &from_triad);
  if (from_triad)
    calib_cite(hw, "dram.bandwidth_gbs",
               "ppt calibrate%s: triad a = b + 3c, %u thread(s) x %s (of the three arrays)%s, %s of %d: %.4g "
               "GB/s of a, 4 bytes crossing per byte of a (b, c, a's read for ownership in, a back): %.4g "
               "GB/s, more than a streaming 64-bit sum of the same threads reads: %.4g GB/s",
               when, th, calib_human_bytes(out->bw_bytes[n] / th, sz, sizeof sz), r->pinned_note, stat,
               trials, out->dram_triad_bytes_per_s / 1e9, sock / 1e9, read / 1e9);
  else
    calib_cite(hw, "dram.bandwidth_gbs",
               "ppt calibrate%s: streaming 64-bit sum, %u thread(s) x %s read "
               "1 MiB at a time%s, %s of %d",
               when, th, calib_human_bytes(out->bw_bytes[n] / th, sz, sizeof sz), r->pinned_note, stat,
               trials);
  char pin1[32];
  calib_pinned_to(out->dram_core_cpu, pin1, sizeof pin1);
  calib_cite(hw, "dram.core_bandwidth_gbs",
             "ppt calibrate%s: streaming 64-bit sum, 1 thread (%s) x %s read 1 MiB at a time, "
             "%s of %d: %.4g GB/s (all %u threads: %.4g GB/s)",
             when, pin1, calib_human_bytes(out->dram_core_bytes, sz, sizeof sz), stat, trials,
             out->dram_core_bytes_per_s / 1e9, th, read / 1e9);
}
