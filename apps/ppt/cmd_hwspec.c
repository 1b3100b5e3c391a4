/* cmd_hwspec.c — `ppt hwspec FILE`: validate a CPU spec sheet (docs/hwspec.md) and show
 * what the models will read from it, including the derived geometry (sets, instances);
 * `ppt hwspec --list [DIR]`: a folder of them, one row each (hwspec_list.c). */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hwspec_list.h"
#include "ppt/hwspec.h"

static void help(void) {
  printf(
      "usage: ppt hwspec FILE [--json]\n"
      "       ppt hwspec --list [DIR] [--json]\n\n"
      "Checks a hwspec (CPU spec sheet, docs/hwspec.md) strictly and prints it: the cache\n"
      "levels (size, associativity, line, sets, sharing, inclusion, latency, bandwidth), clock,\n"
      "cores, DRAM, op throughputs and the cited sources, and whether it carries the timing\n"
      "data the runtime model needs (a cache-only spec is enough for hit rates).\n\n"
      "  --list      instead, every *.json spec of DIR (default: the shipped specs, installed\n"
      "              beside ppt or in the source tree it was built from), one row each: name,\n"
      "              year, isa, cores, clock, L1/L2/L3 as SIZE/CORES (one instance's size and\n"
      "              the cores sharing it; L3 is the last level, + when levels between are not\n"
      "              shown), the socket's DRAM bandwidth; sorted by vendor (the\n"
      "              file name's first word), then year. Every spec must be valid\n"
      "  --json      machine-readable output on stdout: {\"file\", \"valid\", \"spec\" (the spec\n"
      "              as ppt reads it; parses back to the same spec), \"levels\" (derived\n"
      "              geometry), \"has_timing\", \"timing_missing\"}; with --list {\"dir\",\n"
      "              \"specs\": [{\"file\", \"name\", \"vendor\", \"year\", \"isa\", \"cores\",\n"
      "              \"clock_ghz\", \"levels\": [{\"name\", \"size\", \"shared_by\"}],\n"
      "              \"dram_bandwidth_gbs\", \"dram_latency_ns\"}]} (null: not given)\n"
      "  -h, --help\n\n"
      "Exit status: 0 valid, 2 invalid or unreadable (one line: FILE: key: problem).\n");
}

/* Bytes in the largest binary unit that divides them exactly (8 KiB, 1.5 MiB is 1536 KiB). */
static void fmt_bytes(char *buf, size_t cap, uint64_t b) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    u++;
  }
  snprintf(buf, cap, "%llu %s", (unsigned long long)b, unit[u]);
}

/* A figure that 0 marks as absent. */
static void fmt_opt(char *buf, size_t cap, double v, const char *suffix) {
  if (v > 0)
    snprintf(buf, cap, "%g%s", v, suffix);
  else
    snprintf(buf, cap, "-");
}

typedef struct args {
  ppt_cli_common c; /* --json; c.operand: the spec file, or --list's folder (NULL: default) */
  int list;         /* --list */
} args;

typedef struct results {
  hwspec_lib lib; /* --list */
  ppt_hwspec hw;
  const char *missing; /* the first timing figure the spec lacks (points into terr); NULL: none */
  ppt_err terr;
} results;

static void write_levels(const ppt_hwspec *hw) {
  printf("\n%-6s %10s %6s %5s %8s %9s %9s %9s %9s\n", "level", "size", "assoc", "line", "sets", "shared_by",
         "inclusive", "latency", "bandwidth");
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    char sz[32], lat[32], bw[32];
    fmt_bytes(sz, sizeof sz, lv->size);
    fmt_opt(lat, sizeof lat, lv->latency_cycles, " cy");
    fmt_opt(bw, sizeof bw, lv->bw_bytes_per_cycle, " B/cy");
    uint64_t sets = ppt_hwspec_sets(lv);
    char repl[80] = "";
    uint32_t victims = ppt_hwspec_victim_ways(lv);
    if (lv->replacement == PPT_HW_REPL_RANDOM)
      snprintf(repl, sizeof repl,
               victims < lv->assoc ? "  random among the %u least recent ways" : "  random", victims);
    else if (lv->hashed_sets)
      snprintf(repl, sizeof repl, "  hashed sets");
    printf("%-6s %10s %6u %5u %8llu %9u %9s %9s %9s%s%s\n", lv->name, sz, lv->assoc, lv->line,
           (unsigned long long)sets, lv->shared_by, lv->inclusive ? "yes" : "no", lat, bw,
           sets == 1 ? "  (fully associative)" : "", repl);
  }
}

static void write_ops(const ppt_hwspec *hw) {
  int any_op = 0;
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) any_op |= hw->ops[k].per_cycle > 0;
  if (any_op) {
    printf("ops         %-8s %10s %8s\n", "class", "per cycle", "latency");
    for (int k = 0; k < PPT_HW_NOPCLASS; k++)
      if (hw->ops[k].per_cycle > 0)
        printf("            %-8s %10g %8g\n", ppt_hwspec_opclass_name(k), hw->ops[k].per_cycle,
               hw->ops[k].latency);
  } else {
    printf("ops         -\n");
  }
}

static int write_table(void *va, void *vr, ppt_err *err) {
  if (((const args *)va)->list) {
    ppt_hwspec_write_list_table(&((const results *)vr)->lib);
    return 0;
  }
  const char *path = ((const args *)va)->c.operand, *timing_missing = ((const results *)vr)->missing;
  const ppt_hwspec *hw = &((const results *)vr)->hw;
  (void)err;
  char a[64], b[64];
  printf("hwspec      %s (%s): valid\n", hw->name, path);
  if (hw->source[0]) printf("source      %s\n", hw->source);
  printf("cores       %u\n", hw->cores);
  fmt_opt(a, sizeof a, hw->clock_hz / 1e9, " GHz");
  printf("clock       %s\n", a);
  if (hw->vector_bits) printf("vector      %u bits\n", hw->vector_bits);
  write_levels(hw);
  fmt_opt(a, sizeof a, hw->dram_latency_ns, " ns");
  fmt_opt(b, sizeof b, hw->dram_bw_bytes_per_s / 1e9, " GB/s");
  printf("\nDRAM        latency %s, bandwidth %s", a, b);
  if (hw->dram_core_bw_bytes_per_s > 0) printf(" (one core %g GB/s)", hw->dram_core_bw_bytes_per_s / 1e9);
  /* The write-back costs, given or not: the defaults are a choice too. */
  printf("\nwrite-back  %g line fills of the socket's bandwidth%s, %g of one core's%s\n",
         ppt_hwspec_dram_wb_cost(hw, 0), hw->dram_wb_given & 2u ? "" : " (default)",
         ppt_hwspec_dram_wb_cost(hw, 1), hw->dram_wb_given & 1u ? "" : " (default)");
  /* Misses in flight (random lines; queued on one L1 set) and the per-event costs. */
  if (hw->mlp > 0) {
    printf("mlp         %g misses in flight", hw->mlp);
    if (hw->mlp_same_set_load > 0)
      printf("; on one L1 set: %g loads, %g stores", hw->mlp_same_set_load, hw->mlp_same_set_store);
    printf("\n");
  }
  if (hw->coherence_cycles > 0)
    printf("coherence   %g cycles per cache-to-cache transfer\n", hw->coherence_cycles);
  if (hw->fork_join_cycles > 0 || hw->fork_join_serial_cycles > 0)
    printf("regions     fork-join %g cycles (serialised %g)\n", hw->fork_join_cycles,
           hw->fork_join_serial_cycles);
  if (hw->branch_miss_cycles > 0 || hw->call_cycles > 0)
    printf("events      branch mispredict %g cycles, libm call %g cycles\n", hw->branch_miss_cycles,
           hw->call_cycles);
  if (hw->store_forward_cycles > 0)
    printf("forwarding  %g cycles from a store to a load of its address\n", hw->store_forward_cycles);
  if (hw->store_forward_fp_cycles > 0)
    printf("forwarding  %g cycles through an FP register\n", hw->store_forward_fp_cycles);
  if (hw->fp_window > 0) printf("FP window   %g ops waiting to issue per core\n", hw->fp_window);
  if (hw->fp_chains > 0) printf("FP chains   %g in flight per core at most\n", hw->fp_chains);
  if (hw->block_cycles)
    printf("block cycles: the traced blocks' llvm-mca cycles bound compute (this host)\n");
  if (hw->contention_factor > 0)
    printf("contention  %gx one core's time for iterations whose stores share a line\n",
           hw->contention_factor);
  if (hw->nspeeds) {
    printf("core speed ");
    for (uint32_t i = 0; i < hw->nspeeds && i < PPT_HW_MAX_SPEEDS; i++) printf(" %g", hw->core_speed[i]);
    printf("  (compute speed of cores 0, 1, ... against the op figures' core)\n");
  }
  if (hw->nbusy) {
    printf("busy speed ");
    for (uint32_t i = 0; i < hw->nbusy && i < PPT_HW_MAX_SPEEDS; i++) printf(" %g", hw->busy_speed[i]);
    printf("  (each core's compute speed with 1, 2, ... cores computing at once)\n");
  }
  for (uint32_t j = 0; j < hw->ntlb; j++) {
    printf("%s %-6s %u entries, %u ways, %u-byte pages, miss %g cycles", j ? "           " : "TLB        ",
           hw->tlb[j].name, hw->tlb[j].entries, hw->tlb[j].assoc, hw->tlb[j].page_bytes,
           hw->tlb[j].miss_cycles);
    if (hw->tlb[j].in_flight > 0) printf(", %g in flight", hw->tlb[j].in_flight);
    printf("\n");
  }
  write_ops(hw);
  if (timing_missing)
    printf("timing      incomplete: %s is missing (fine for hit rates, not for runtime)\n", timing_missing);
  else
    printf("timing      complete (runtime model can use this spec)\n");
  if (hw->nsources) {
    printf("\nsources\n");
    for (uint32_t i = 0; i < hw->nsources; i++)
      printf("  %-28s %s\n", hw->sources[i].key, hw->sources[i].text);
  }
  if (hw->notes[0]) printf("\nnotes       %s\n", hw->notes);
  return 0;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  if (((const args *)va)->list) return ppt_hwspec_write_list_json(&((const results *)vr)->lib, err);
  const char *path = ((const args *)va)->c.operand, *timing_missing = ((const results *)vr)->missing;
  const ppt_hwspec *hw = &((const results *)vr)->hw;
  json_object *root = json_object_new_object(), *spec = ppt_hwspec_to_json_object(hw);
  json_object *levels = json_object_new_array();
  if (!root || !spec || !levels) {
    json_object_put(root);
    json_object_put(spec);
    json_object_put(levels);
    return ppt_cli_put_json(NULL, 0, err);
  }
  json_object_object_add(root, "file", json_object_new_string(path));
  json_object_object_add(root, "valid", json_object_new_boolean(1));
  json_object_object_add(root, "name", json_object_new_string(hw->name));
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(lv->name));
    json_object_object_add(o, "sets", json_object_new_uint64(ppt_hwspec_sets(lv)));
    json_object_object_add(o, "lines", json_object_new_uint64(lv->size / lv->line));
    json_object_object_add(o, "fully_associative", json_object_new_boolean(ppt_hwspec_sets(lv) == 1));
    /* instances on the whole socket, one thread per core */
    json_object_object_add(o, "instances", json_object_new_uint64(ppt_hwspec_instances(lv, hw->cores)));
    json_object_array_add(levels, o);
  }
  json_object_object_add(root, "levels", levels);
  json_object_object_add(root, "has_timing", json_object_new_boolean(!timing_missing));
  json_object_object_add(root, "timing_missing",
                         timing_missing ? json_object_new_string(timing_missing) : NULL);
  json_object_object_add(root, "spec", spec);
  return ppt_cli_put_json(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static int take(void *va, int val, const char *value) {
  (void)value;
  if (val == 'L') ((args *)va)->list = 1;
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  args *a = va;
  static const struct option own[] = {{"list", no_argument, 0, 'L'}, {0, 0, 0, 0}};
  /* The operand is optional for --list only (its folder has a default). */
  static const ppt_cli_spec spec = {.cmd = "hwspec",
                                    .shared = PPT_OPT_JSON,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "FILE",
                                    .operand_optional = 1};
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (!rc && !a->list && !a->c.operand) {
    ppt_cli_common_free(&a->c);
    rc = ppt_cli_usage("hwspec", "expected exactly one FILE");
  }
  return rc;
}

static void release(void *vr) {
  ppt_cli_hwspecs_free(&((results *)vr)->lib);
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  if (a->list) return ppt_cli_hwspecs_load(a->c.operand, &r->lib, err);
  int rc = ppt_hwspec_load(a->c.operand, &r->hw, err);
  if (rc) return rc;
  /* has_timing names the first missing figure in its message, after "no timing data: " */
  r->missing = NULL;
  if (ppt_hwspec_has_timing(&r->hw, r->hw.name, &r->terr)) {
    const char *m = strstr(r->terr.msg, "no timing data: ");
    r->missing = m ? m + strlen("no timing data: ") : r->terr.msg;
    char *cut = strstr(r->terr.msg, " is missing");
    if (cut) *cut = '\0';
  }
  return 0;
}

int ppt_cmd_hwspec(int argc, char **argv) {
  static const ppt_cli_steps steps = {"hwspec", parse_args, run, write_table, write_json, NULL, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}
