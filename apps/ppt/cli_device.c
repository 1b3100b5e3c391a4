/* cli_device.c — the `--device` option: which engine computes the reuse distances (the
 * CPU one, or the OpenCL analysis of ppt/reuse_device.h), and `--device list`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_device.h"

int ppt_cli_device_parse(const char *cmd, const char *value, int *use, ppt_reuse_dev_opts *o) {
  uint64_t n = 0;
  if (!strcmp(value, "cpu")) {
    *use = 0;
    return 0;
  }
  if (!strcmp(value, "list")) {
    *use = 2;
    return 0;
  }
  if (!strcmp(value, "opencl") || (!strncmp(value, "opencl:", 7) && !ppt_cli_parse_u64(value + 7, &n) && n < 4096)) {
    *use = 1;
    o->index = (unsigned)n;
    return 0;
  }
  return ppt_cli_usage(cmd, "--device wants cpu, opencl, opencl:N or list, not '%s'", value);
}

int ppt_cli_device_batch(const char *cmd, const char *value, ppt_reuse_dev_opts *o) {
  uint64_t v;
  if (ppt_cli_parse_u64(value, &v) || v < 64 || v > ((uint64_t)1 << 28))
    return ppt_cli_usage(cmd, "--device-batch wants 64..268435456 references, not '%s'", value);
  o->batch = (size_t)v;
  return 0;
}

int ppt_cli_device_open(const ppt_reuse_dev_opts *o, ppt_reuse_dev **out, ppt_err *err) {
  int rc = ppt_reuse_dev_open(o, out, err);
  if (rc) {
    ppt_err e = *err;
    const char *m = strncmp(e.msg, "reuse: ", 7) ? e.msg : e.msg + 7;
    ppt_err_set(err, e.status, "--device: %s", m);
  }
  return rc;
}

int ppt_cli_device_wants_list(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) break;
    if (!strcmp(argv[i], "--device=list") || (!strcmp(argv[i], "--device") && i + 1 < argc && !strcmp(argv[i + 1], "list")))
      return 1;
  }
  return 0;
}

int ppt_cli_device_list(const char *cmd) {
  ppt_err err = {0};
  unsigned n = 0;
  if (ppt_reuse_dev_list(stdout, &n, &err)) return ppt_cli_fail(cmd, &err);
  if (n == 0) printf("no OpenCL device found\n");
  return 0;
}
