/* calib_cores.c — the stages that time the cores' compute, last in a calibration: each
 * core alone (core_speed, calib_speed.c), then 2, 4, ... and all of them at once
 * (busy_speed, calib_busy.c). */
#include "calib/calib_run.h"

/* Cores the speed stage times at most: the mix takes ~0.15 s a core, so 64 cores ~10 s
 * where all 256 of a large package took over a minute; the cores past the list run at
 * 1 (ppt_hwspec_core_speed), and the notes say how many were timed. */
#define SPEED_MAX_CORES 64

/* Core speeds: the op mix on each core of the package in turn (calib_speed.c), after
 * the op figures, whose core is the first. */
static void stage_core_speeds(calib_run *r) {
  ppt_calib_result *out = r->out;
  calib_watch_stage(r->watch, "core speeds");
  uint32_t n = r->cores < SPEED_MAX_CORES ? r->cores : SPEED_MAX_CORES;
  n = calib_cpus_primary(r->pkg_list, calib_sibling_dir(r), out->speed_cpus, n);
  out->speed_n = n > 1 && calib_core_speeds(out->speed_cpus, n, &r->t_ops, out->speed) == n ? n : 0;
  if (out->speed_n && r->cores > out->speed_n)
    calib_note(r->notes, sizeof r->notes,
               "core_speed: the first %u of %u cores timed; the others are taken to run at 1.", out->speed_n,
               r->cores);
}

/* Busy cores: the mix on 2, 4, ... and all of the cores whose speeds were timed at once
 * (calib_busy.c), after the core speeds it divides by. */
static void stage_busy_speeds(calib_run *r) {
  ppt_calib_result *out = r->out;
  out->busy_n = out->busy_nc = 0;
  if (out->speed_n < 2) return;
  calib_watch_stage(r->watch, "busy cores");
  uint32_t m = calib_busy_counts(out->speed_n, out->busy_counts, PPT_CALIB_BUSY_MAX);
  for (uint32_t j = 0; j < m; j++) {
    out->busy_at[j] = calib_busy_speed(out->speed_cpus, out->busy_counts[j], out->speed, &r->t_ops);
    if (!(out->busy_at[j] > 0)) {
      calib_note(r->notes, sizeof r->notes,
                 "busy_speed not measured: the op mix could not run on %u pinned threads at once.",
                 out->busy_counts[j]);
      return;
    }
  }
  out->busy_nc = m;
  /* Busy cores do not speed each other up: a figure above 1 is the host's noise (this
   * guest read 0.79-1.11 at 2 cores from run to run), and the spec takes 1 there. */
  double at[PPT_CALIB_BUSY_MAX];
  for (uint32_t j = 0; j < m; j++) at[j] = out->busy_at[j] < 1 ? out->busy_at[j] : 1;
  calib_busy_fill(out->busy_counts, at, m, out->speed_n, out->busy);
  out->busy_n = out->speed_n;
}

void calib_stage_cores(calib_run *r) {
  stage_core_speeds(r);
  stage_busy_speeds(r);
}
