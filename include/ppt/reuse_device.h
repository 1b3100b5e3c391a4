/* ppt/reuse_device.h — exact reuse-distance analysis on an OpenCL device: HP-RDA's
 * chunked analysis and cross-chunk merge (docs/reuse.md, "On an OpenCL device").
 *
 * The device computes every reference's distance; the host streams the trace through it
 * in batches and bins the distances into the same ppt_reuse context the CPU engine
 * fills, so per-block histograms, regions and per-thread runs (one context per thread)
 * come out exactly as with ppt_reuse_feed, bit for bit. Exact mode only.
 *
 * Built only when CMake finds OpenCL (PPT_OPENCL); without it every function below
 * except ppt_reuse_dev_built reports "not built with OpenCL" (PPT_EINPUT). OpenCL
 * runtime failures are PPT_ERUN with a message naming the call and its error code. */
#ifndef PPT_REUSE_DEVICE_H
#define PPT_REUSE_DEVICE_H

#include <stddef.h>
#include <stdio.h>

#include "ppt/err.h"
#include "ppt/reuse.h"

/* 1 when ppt was built with OpenCL, else 0. */
int ppt_reuse_dev_built(void);

/* Writes one line per OpenCL platform and one per device ("opencl:N ..."; N numbers
 * the devices of all platforms in this order, as ppt_reuse_dev_open takes it). *ndev
 * gets the device count; no platform at all is 0 devices, not an error. */
int ppt_reuse_dev_list(FILE *f, unsigned *ndev, ppt_err *err);

typedef struct ppt_reuse_dev_opts {
  unsigned index; /* device number, as listed */
  size_t batch;   /* references per batch sent to the device; default 1 << 20, at least
                     64. Device memory is about 8 x (log2(batch) - 2) bytes per
                     reference of a batch, plus 8 bytes per distinct line seen. */
} ppt_reuse_dev_opts;

void ppt_reuse_dev_opts_default(ppt_reuse_dev_opts *o);

typedef struct ppt_reuse_dev ppt_reuse_dev;

/* Opens device o->index and builds the kernels. PPT_EINPUT: no such device or a bad
 * batch size; PPT_ERUN: an OpenCL call failed. */
int ppt_reuse_dev_open(const ppt_reuse_dev_opts *o, ppt_reuse_dev **out, ppt_err *err);
void ppt_reuse_dev_free(ppt_reuse_dev *d);
/* "PLATFORM / DEVICE" */
const char *ppt_reuse_dev_name(const ppt_reuse_dev *d);

/* Feeds the whole stream of batches from next (ppt_reuse_feed_parallel's source
 * contract) into r, a fresh EXACT context (nothing fed yet), computing the distances on
 * the device. Afterwards r is as after ppt_reuse_feed of the same records; it takes no
 * further feed (PPT_ERUN). Errors of next are returned as they are. */
int ppt_reuse_dev_feed(ppt_reuse_dev *d, ppt_reuse *r, ppt_reuse_next_fn next, void *arg, ppt_err *err);
/* The same for a chunked stream, its chunks decoded in order with slot 0. */
int ppt_reuse_dev_feed_chunks(ppt_reuse_dev *d, ppt_reuse *r, const ppt_reuse_chunks *src,
                              ppt_err *err);

#endif
