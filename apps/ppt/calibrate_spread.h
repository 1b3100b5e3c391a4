/* calibrate_spread.h — the spread over several calibrations' specs (`ppt calibrate
 * --repeat` and `--combine`) of the figures that move most on a shared host. Internal to
 * apps/ppt. */
#ifndef PPT_APPS_CALIBRATE_SPREAD_H
#define PPT_APPS_CALIBRATE_SPREAD_H

#include <stddef.h>
#include <stdio.h>

#include "ppt/hwspec.h"

/* One line per figure: the value of med (the spec the medians made) and the lowest and
 * highest of runs[0..n). */
void ppt_calibrate_print_spread(FILE *f, const ppt_hwspec *runs, size_t n, const ppt_hwspec *med);

#endif
