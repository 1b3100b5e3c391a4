/* rd_device.c — the parts of the device analysis API (ppt/reuse_device.h) that a build
 * has with or without OpenCL: whether it was built with it, the default options. */
#include "ppt/reuse_device.h"

int ppt_reuse_dev_built(void) {
#ifdef PPT_HAVE_OPENCL
  return 1;
#else
  return 0;
#endif
}

void ppt_reuse_dev_opts_default(ppt_reuse_dev_opts *o) {
  o->index = 0;
  o->batch = (size_t)1 << 20;
}
