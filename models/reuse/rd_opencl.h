/* rd_opencl.h — internals of the OpenCL device analysis shared by rd_opencl.c (platforms,
 * devices, program, error text), rd_opencl_feed.c (the stream driver) and
 * rd_opencl_kernels.c (the kernels' source). */
#ifndef PPT_REUSE_RD_OPENCL_H
#define PPT_REUSE_RD_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "ppt/reuse_device.h"

/* References per leaf chunk of the kernels (rd_leaf's work-item). */
#define RD_CL_LEAF 32u
/* Outputs of one rd_merge work-item: divides every merged node (2 leaves and up). */
#define RD_CL_RUN 64u
/* Distances the kernels return: infinite (first touch). */
#define RD_CL_INF 0xFFFFFFFFu

extern const char rd_cl_source[];

struct ppt_reuse_dev {
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel leaf, merge, cross;
  size_t batch; /* references per batch: a multiple of RD_CL_LEAF, a power of two */
  unsigned levels;  /* merge-tree levels of a full batch, leaves included */
  /* buffers of a full batch, made at open; ct grows with the distinct lines */
  cl_mem pv, dist, lv, ct;
  size_t ctcap;
  char name[512];
};

/* "clCall failed: CL_NAME (code)" as a PPT_ERUN error; returns PPT_ERUN. */
int rd_cl_fail(ppt_err *err, const char *call, cl_int code);

#endif
