/* mcacpu.c — the CPU llvm-mca models (mca.h); apart from mca.c, which its unit test
 * links without LLVM. */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "mca.h"

void pcc_mca_host_cpu(char *buf, size_t n, int tool_names_host) {
  const char *env = getenv("PPT_CC_MCA_CPU");
  if (env && *env) {
    snprintf(buf, n, "%s", env);
    return;
  }
  if (tool_names_host) {
    snprintf(buf, n, "%s", "native");
    return;
  }
  char *host = LLVMGetHostCPUName();
  snprintf(buf, n, "%s", host ? host : "generic");
  LLVMDisposeMessage(host);
  if (strcmp(buf, "generic") != 0 && strcmp(buf, "x86-64") != 0) return;
  /* A CPU newer than this LLVM: its nearest model. LLVM 14 reads family 0x1a (Zen 5) as
   * "generic", whose model is a 2011-era core. */
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return;
  int amd = b == 0x68747541u; /* "Auth" of AuthenticAMD */
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  unsigned family = (a >> 8) & 0xF, model = (a >> 4) & 0xF;
  if (family == 0xF) family += (a >> 20) & 0xFF;
  model |= ((a >> 16) & 0xF) << 4;
  if (amd)
    snprintf(buf, n, "%s", family >= 0x19 ? "znver3" : family == 0x17 ? (model >= 0x30 ? "znver2" : "znver1") : "generic");
  else
    snprintf(buf, n, "%s", "skylake");
}
