/* mca.h — cycles per execution of each instrumented block on the build host's core,
 * from LLVM's own scheduling model (llvm-mca).
 *
 * ppt's port model prices a block by its IR op counts at each class's throughput. A
 * loop whose ops queue on fewer pipes than their class has, or whose chains the
 * scheduler cannot overlap, runs slower: falseshare's hash loop (3 imul, 4 shr, 4 xor
 * on one element) takes 4.7 cycles a trip on a Zen 5 guest where its 16
 * integer ops at the calibrated 4.29 a cycle say 3.7, and llvm-mca's znver3 model
 * says 4.68. From the same marked assembly mcrefs.c counts stack references in
 * (the uninstrumented code generation of each block), this writes every marked machine
 * block between "# LLVM-MCA-BEGIN bK" and "# LLVM-MCA-END" lines, runs llvm-mca on
 * them for the host's CPU and reads back Total Cycles / Iterations per region: the
 * block's steady-state cycles when it runs back to back (a loop body), loads hitting
 * L1. Nothing here is fatal: without llvm-mca, or when it fails, every block gets 0
 * (unknown) and the model does without. */
#ifndef PCC_MCA_H
#define PCC_MCA_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

typedef struct pcc_mca_cfg {
  pcc_runner *run;  /* runs llvm-mca */
  pcc_tmpdir *tmp;  /* its input and output files */
  const char *tool; /* llvm-mca's path; NULL or "": none */
  const char *cpu;  /* its -mcpu */
  int verbose;      /* say why the cycles are missing */
} pcc_mca_cfg;

/* The CPU name llvm-mca should model for this host: $PPT_CC_MCA_CPU, else "native"
 * when tool_names_host (the llvm-mca run is LLVM 17 or later: it names the host
 * itself), else LLVM 14's host name, else (a CPU newer than LLVM 14 knows: "generic")
 * the nearest model by CPUID (AMD family 0x19 and later: znver3; 0x17: znver2 or
 * znver1; Intel: skylake). */
void pcc_mca_host_cpu(char *buf, size_t n, int tool_names_host);

/* Fixed point of the cycles a block records: 1/16 cycle, saturated at 65535. */
#define PCC_MCA_SCALE 16

/* Cycles per execution of each of the n markers of assembly `text`, x PCC_MCA_SCALE,
 * into cyc[K] (zeroed first; 0: unknown). Returns the number of blocks that got one. */
size_t pcc_mca_cycles(const pcc_mca_cfg *cfg, const char *text, size_t len, size_t n, uint16_t *cyc);

/* The llvm-mca input for those blocks (malloc'd, *out_len bytes; NULL when out of
 * memory): each marker's first machine block, its instruction lines only. */
char *pcc_mca_input(const char *text, size_t len, size_t n, size_t *out_len);

/* Reads llvm-mca's report (regions named "bK"): cyc[K] as above; the regions read. */
size_t pcc_mca_parse(const char *report, size_t len, size_t n, uint16_t *cyc);

#endif
