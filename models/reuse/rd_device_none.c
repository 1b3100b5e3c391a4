/* rd_device_none.c — the device analysis API of a build without OpenCL (PPT_OPENCL off
 * or no OpenCL found): every entry point says so, so callers need no #ifdef. */
#include "ppt/reuse_device.h"

static int not_built(ppt_err *err) {
  return ppt_err_set(err, PPT_EINPUT, "ppt was not built with OpenCL (no --device opencl; see docs/reuse.md)");
}



int ppt_reuse_dev_list(FILE *f, unsigned *ndev, ppt_err *err) {
  (void)f;
  if (ndev) *ndev = 0;
  return not_built(err);
}

int ppt_reuse_dev_open(const ppt_reuse_dev_opts *o, ppt_reuse_dev **out, ppt_err *err) {
  (void)o;
  *out = NULL;
  return not_built(err);
}

void ppt_reuse_dev_free(ppt_reuse_dev *d) { (void)d; }

const char *ppt_reuse_dev_name(const ppt_reuse_dev *d) {
  (void)d;
  return "none";
}

int ppt_reuse_dev_feed_chunks(ppt_reuse_dev *d, ppt_reuse *r, const ppt_reuse_chunks *src, ppt_err *err) {
  (void)d;
  (void)r;
  (void)src;
  return not_built(err);
}

int ppt_reuse_dev_feed(ppt_reuse_dev *d, ppt_reuse *r, ppt_reuse_next_fn next, void *arg, ppt_err *err) {
  (void)d;
  (void)r;
  (void)next;
  (void)arg;
  return not_built(err);
}
