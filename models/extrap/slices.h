/* extrap/slices.h — internal: a block's histogram as Q equal-probability slices
 * (models/extrap/slices.c). */
#ifndef PPT_EXTRAP_SLICES_H
#define PPT_EXTRAP_SLICES_H

#include "ppt/reuse.h"

/* The mean distance of each of the q equal-mass slices of h's finite references into
 * mean[q]; returns the finite reference count (0: none, mean[] all 0; -1: out of memory).
 * h may be NULL (no references). */
double ext_slices_of(const ppt_rdhist *h, unsigned q, double *mean);
/* Adds `finite` references to h, finite / q at each slice's distance dist[k] (clamped at
 * 0; a fractional distance split between its two integers). 0 or -1 (out of memory). */
int ext_slices_add(ppt_rdhist *h, const double *dist, unsigned q, double finite);
/* Adds `count` references at the distance d (clamped at 0; a fractional one split
 * between its two integers, keeping the mean). 0 or -1 (out of memory). */
int ext_add_at(ppt_rdhist *h, double d, double count);
/* v rounded to the nearest integer when within 1e-6 (relative) of it: fitted counts and
 * distances of integer data come back as integers despite rounding in the fit. */
double ext_snap(double v);

#endif
