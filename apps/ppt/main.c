/* main.c — `ppt SUBCOMMAND ...`: dispatch to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const ppt_cli_cmd commands[] = {
    {"trace", ppt_cmd_trace, "run a ppt-cc-built program and record its memory trace"},
    {"info", ppt_cmd_info, "summarise a trace: totals, biggest blocks and functions"},
    {"reuse", ppt_cmd_reuse, "reuse-distance histograms of a trace: exact, sampled or approximate"},
    {"hitrate", ppt_cmd_hitrate,
     "hit rates per cache level from a trace or reuse profile (SDCM, one thread)"},
    {"predict", ppt_cmd_predict, "predict multicore runtime on a CPU spec (SASMM + SimGrid engine)"},
    {"sasmm", ppt_cmd_sasmm, "predict private and shared cache hit rates on N cores (SASMM)"},
    {"sweep", ppt_cmd_sweep,
     "hit rates at every point of a design space: specs x --set values x core counts"},
    {"extrapolate", ppt_cmd_extrapolate,
     "hit rates at a larger problem size from traces at a few small ones (per-block fits)"},
    {"annotate", ppt_cmd_annotate,
     "misses per cache level per function and source line on N cores (cg_annotate-style)"},
    {"cachesim", ppt_cmd_cachesim, "simulate a trace exactly on a hwspec's caches: hit rates per level"},
    {"hwspec", ppt_cmd_hwspec, "validate and show a CPU spec sheet (hwspec JSON)"},
    {"calibrate", ppt_cmd_calibrate, "measure this machine and write it as a hwspec"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: ppt SUBCOMMAND [OPTIONS]\n\nSubcommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\n'ppt SUBCOMMAND --help' describes each one.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("ppt 0.1.0\n");
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "ppt: unknown subcommand '%s'; see 'ppt --help'\n", argv[1]);
  return 2;
}
