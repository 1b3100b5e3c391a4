/* rd_opencl.c — OpenCL platforms and devices for the device analysis: listing, opening
 * a device (context, queue, the kernels built from rd_cl_source, the batch buffers) and
 * the one-line messages of OpenCL errors. */
#include <stdlib.h>
#include <string.h>

#include "rd_opencl.h"

static const char *cl_code_name(cl_int c) {
  switch (c) {
#define N(x) case x: return #x;
    N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_BUILD_PROGRAM_FAILURE) N(CL_INVALID_VALUE) N(CL_INVALID_PLATFORM) N(CL_INVALID_DEVICE)
    N(CL_INVALID_CONTEXT) N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_MEM_OBJECT)
    N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_PROGRAM) N(CL_INVALID_PROGRAM_EXECUTABLE)
    N(CL_INVALID_KERNEL_NAME) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX) N(CL_INVALID_ARG_VALUE)
    N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE) N(CL_INVALID_BUILD_OPTIONS)
#undef N
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an OpenCL error";
  }
}

int rd_cl_fail(ppt_err *err, const char *call, cl_int code) {
  return ppt_err_set(err, PPT_ERUN, "reuse: OpenCL %s failed: %s (%d)", call, cl_code_name(code), (int)code);
}



/* The platforms (malloc'ed, *np of them; none is not an error: ICD loaders report
 * CL_PLATFORM_NOT_FOUND_KHR then). */
static int platforms(cl_platform_id **out, cl_uint *np, ppt_err *err) {
  *out = NULL;
  *np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, np);
  if (rc == -1001 || (rc == CL_SUCCESS && *np == 0)) {
    *np = 0;
    return 0;
  }
  if (rc != CL_SUCCESS) return rd_cl_fail(err, "clGetPlatformIDs", rc);
  if (!(*out = malloc(*np * sizeof **out))) return ppt_err_set(err, PPT_ERUN, "out of memory");
  if ((rc = clGetPlatformIDs(*np, *out, NULL)) != CL_SUCCESS) {
    free(*out);
    *out = NULL;
    return rd_cl_fail(err, "clGetPlatformIDs", rc);
  }
  return 0;
}

/* The devices of platform p (malloc'ed; none: 0 devices). */
static int devices(cl_platform_id p, cl_device_id **out, cl_uint *nd, ppt_err *err) {
  *out = NULL;
  *nd = 0;
  cl_int rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, nd);
  if (rc == CL_DEVICE_NOT_FOUND || (rc == CL_SUCCESS && *nd == 0)) {
    *nd = 0;
    return 0;
  }
  if (rc != CL_SUCCESS) return rd_cl_fail(err, "clGetDeviceIDs", rc);
  if (!(*out = malloc(*nd * sizeof **out))) return ppt_err_set(err, PPT_ERUN, "out of memory");
  if ((rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, *nd, *out, NULL)) != CL_SUCCESS) {
    free(*out);
    *out = NULL;
    return rd_cl_fail(err, "clGetDeviceIDs", rc);
  }
  return 0;
}

static void str_info(cl_platform_id p, cl_device_id d, cl_uint what, char *buf, size_t n) {
  buf[0] = 0;
  if (p) clGetPlatformInfo(p, what, n, buf, NULL);
  else clGetDeviceInfo(d, what, n, buf, NULL);
  buf[n - 1] = 0;
}

static const char *type_name(cl_device_type t) {
  return t & CL_DEVICE_TYPE_GPU ? "GPU" : t & CL_DEVICE_TYPE_CPU ? "CPU" : t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
}

/* Finds device number `index` (f != NULL: lists every platform and device instead). */
static int walk(FILE *f, unsigned index, cl_device_id *found, char *name, size_t nname, unsigned *ndev,
                ppt_err *err) {
  cl_platform_id *ps;
  cl_uint np;
  int rc = platforms(&ps, &np, err);
  unsigned k = 0;
  for (cl_uint i = 0; !rc && i < np; i++) {
    char pname[256], ver[128], dname[256];
    str_info(ps[i], NULL, CL_PLATFORM_NAME, pname, sizeof pname);
    str_info(ps[i], NULL, CL_PLATFORM_VERSION, ver, sizeof ver);
    if (f) fprintf(f, "platform %u: %s (%s)\n", i, pname, ver);
    cl_device_id *ds;
    cl_uint nd;
    if ((rc = devices(ps[i], &ds, &nd, err))) break;
    for (cl_uint j = 0; j < nd; j++, k++) {
      str_info(NULL, ds[j], CL_DEVICE_NAME, dname, sizeof dname);
      if (f) {
        cl_device_type t = 0;
        cl_uint cu = 0;
        cl_ulong mem = 0;
        clGetDeviceInfo(ds[j], CL_DEVICE_TYPE, sizeof t, &t, NULL);
        clGetDeviceInfo(ds[j], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
        clGetDeviceInfo(ds[j], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
        fprintf(f, "opencl:%u  %s (%s, %u compute units, %llu MiB)\n", k, dname, type_name(t), cu,
                (unsigned long long)(mem >> 20));
      } else if (k == index) {
        *found = ds[j];
        snprintf(name, nname, "%s / %s", pname, dname);
      }
    }
    free(ds);
  }
  free(ps);
  if (ndev) *ndev = k;
  return rc;
}

int ppt_reuse_dev_list(FILE *f, unsigned *ndev, ppt_err *err) {
  return walk(f, 0, NULL, NULL, 0, ndev, err);
}

void ppt_reuse_dev_free(ppt_reuse_dev *d) {
  if (!d) return;
  cl_mem m[] = {d->pv, d->dist, d->lv, d->ct};
  for (size_t i = 0; i < sizeof m / sizeof *m; i++)
    if (m[i]) clReleaseMemObject(m[i]);
  cl_kernel k[] = {d->leaf, d->merge, d->cross};
  for (size_t i = 0; i < sizeof k / sizeof *k; i++)
    if (k[i]) clReleaseKernel(k[i]);
  if (d->prog) clReleaseProgram(d->prog);
  if (d->q) clReleaseCommandQueue(d->q);
  if (d->ctx) clReleaseContext(d->ctx);
  free(d);
}

const char *ppt_reuse_dev_name(const ppt_reuse_dev *d) { return d->name; }

/* Builds the kernels; a compiler failure quotes the first line of the build log. */
static int build(ppt_reuse_dev *d, cl_device_id dev, ppt_err *err) {
  const char *src = rd_cl_source;
  cl_int rc;
  d->prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &rc);
  if (rc != CL_SUCCESS) return rd_cl_fail(err, "clCreateProgramWithSource", rc);
  char opts[64];
  snprintf(opts, sizeof opts, "-DLEAF=%uu -DRUN=%uu", RD_CL_LEAF, RD_CL_RUN);
  rc = clBuildProgram(d->prog, 1, &dev, opts, NULL, NULL);
  if (rc == CL_BUILD_PROGRAM_FAILURE) {
    char log[512] = "";
    clGetProgramBuildInfo(d->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    log[sizeof log - 1] = 0;
    log[strcspn(log, "\n")] = 0;
    return ppt_err_set(err, PPT_ERUN, "reuse: OpenCL clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (%d): %s",
                       (int)rc, log);
  }
  if (rc != CL_SUCCESS) return rd_cl_fail(err, "clBuildProgram", rc);
  struct { cl_kernel *k; const char *name; } ks[] = {{&d->leaf, "rd_leaf"}, {&d->merge, "rd_merge"}, {&d->cross, "rd_cross"}};
  for (size_t i = 0; i < 3; i++) {
    *ks[i].k = clCreateKernel(d->prog, ks[i].name, &rc);
    if (rc != CL_SUCCESS) return rd_cl_fail(err, "clCreateKernel", rc);
  }
  return 0;
}

static int buffers(ppt_reuse_dev *d, ppt_err *err) {
  cl_int rc;
  struct { cl_mem *m; size_t bytes; } bs[] = {
      {&d->pv, d->batch * sizeof(cl_ulong)},
      {&d->dist, d->batch * sizeof(cl_uint)},
      {&d->lv, (size_t)d->levels * d->batch * sizeof(cl_ulong)},
      {&d->ct, d->ctcap * sizeof(cl_ulong)}};
  for (size_t i = 0; i < 4; i++) {
    *bs[i].m = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bs[i].bytes, NULL, &rc);
    if (rc != CL_SUCCESS) return rd_cl_fail(err, "clCreateBuffer", rc);
  }
  return 0;
}

int ppt_reuse_dev_open(const ppt_reuse_dev_opts *o, ppt_reuse_dev **out, ppt_err *err) {
  ppt_reuse_dev_opts def;
  if (!o) {
    ppt_reuse_dev_opts_default(&def);
    o = &def;
  }
  if (o->batch < 2 * RD_CL_LEAF || o->batch > ((size_t)1 << 28))
    return ppt_err_set(err, PPT_EINPUT, "reuse: device batch %zu is not in %u..2^28 references", o->batch,
                       2 * RD_CL_LEAF);
  ppt_reuse_dev *d = calloc(1, sizeof *d);
  if (!d) return ppt_err_set(err, PPT_ERUN, "out of memory");
  /* A power of two: every level of the merge tree then pairs its nodes up. */
  d->batch = 2 * RD_CL_LEAF;
  while (d->batch < o->batch) d->batch *= 2;
  d->levels = 1;
  for (size_t w = RD_CL_LEAF; w < d->batch; w *= 2) d->levels++;
  d->ctcap = (size_t)1 << 16;
  cl_device_id dev = NULL;
  unsigned n = 0;
  int rc = walk(NULL, o->index, &dev, d->name, sizeof d->name, &n, err);
  if (!rc && !dev)
    rc = n ? ppt_err_set(err, PPT_EINPUT, "opencl:%u: no such OpenCL device (found %u: opencl:0..%u)", o->index, n,
                         n - 1)
           : ppt_err_set(err, PPT_EINPUT, "opencl:%u: no such OpenCL device (no OpenCL platform found)", o->index);
  cl_int cr = CL_SUCCESS;
  if (!rc) {
    d->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &cr);
    if (cr != CL_SUCCESS) rc = rd_cl_fail(err, "clCreateContext", cr);
  }
  if (!rc) {
    d->q = clCreateCommandQueue(d->ctx, dev, 0, &cr);
    if (cr != CL_SUCCESS) rc = rd_cl_fail(err, "clCreateCommandQueue", cr);
  }
  if (!rc) rc = build(d, dev, err);
  if (!rc) rc = buffers(d, err);
  if (rc) {
    ppt_reuse_dev_free(d);
    return rc;
  }
  *out = d;
  return 0;
}
