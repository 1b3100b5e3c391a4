/* cli_device.h — `--device` of the commands whose reuse analysis can run on an OpenCL
 * device (ppt reuse): parsing the value, `--device list`. */
#ifndef PPT_APPS_CLI_DEVICE_H
#define PPT_APPS_CLI_DEVICE_H

#include "ppt/reuse_device.h"

/* --device VALUE: "cpu" (*use = 0), "opencl" or "opencl:N" (*use = 1, o->index = N),
 * "list" (*use = 2). 0, or 2 after a usage message of CMD. */
int ppt_cli_device_parse(const char *cmd, const char *value, int *use, ppt_reuse_dev_opts *o);
/* Whether argv asks for `--device list` (the listing needs no operand). */
int ppt_cli_device_wants_list(int argc, char **argv);
/* Prints the platforms and devices on stdout; returns the exit status (0; 2 when ppt
 * was built without OpenCL; 1 when an OpenCL call failed). */
int ppt_cli_device_list(const char *cmd);

#endif
