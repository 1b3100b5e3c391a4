/* cli_device.h — `--device` of the commands whose reuse analysis can run on an OpenCL
 * device (ppt reuse): parsing the value, `--device list`. */
#ifndef PPT_APPS_CLI_DEVICE_H
#define PPT_APPS_CLI_DEVICE_H

#include "ppt/reuse_device.h"

/* --device VALUE: "cpu" (*use = 0), "opencl" or "opencl:N" (*use = 1, o->index = N),
 * "list" (*use = 2). 0, or 2 after a usage message of CMD. */
int ppt_cli_device_parse(const char *cmd, const char *value, int *use, ppt_reuse_dev_opts *o);
/* --device-batch VALUE into o->batch: 0, or 2 after a usage message of CMD. */
int ppt_cli_device_batch(const char *cmd, const char *value, ppt_reuse_dev_opts *o);
/* Opens the device of o, the message naming --device (for CMD's run step). */
int ppt_cli_device_open(const ppt_reuse_dev_opts *o, ppt_reuse_dev **out, ppt_err *err);
/* The help lines of --device and --device-batch. */
#define PPT_CLI_DEVICE_HELP                                                                 \
  "  --device D      where the exact distances are computed: cpu (default), opencl or\n"    \
  "                  opencl:N (device N of --device list: HP-RDA's chunked analysis and\n" \
  "                  merge in OpenCL kernels, identical results); list: one line per\n"    \
  "                  OpenCL platform and device\n"                                          \
  "  --device-batch N references per batch sent to the device (default 1048576;\n"        \
  "                  device memory ~8*(log2(N)-2) bytes a reference, plus 8 a line)\n"

/* Whether argv asks for `--device list` (the listing needs no operand). */
int ppt_cli_device_wants_list(int argc, char **argv);
/* Prints the platforms and devices on stdout; returns the exit status (0; 2 when ppt
 * was built without OpenCL; 1 when an OpenCL call failed). */
int ppt_cli_device_list(const char *cmd);

#endif
