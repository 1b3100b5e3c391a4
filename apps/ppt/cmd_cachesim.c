/* cmd_cachesim.c — `ppt cachesim TRACE --hw SPEC`: exact LRU simulation of a trace on a
 * hwspec's cache hierarchy (ppt/tracesim.h), the ground truth for the SDCM predictions. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

static void help(void) {
  printf(
      "usage: ppt cachesim TRACE --hw SPEC [--interleave rr|uniform] [--seed S]\n"
      "                    [--only SEL[,SEL...]] [--coherence] [--json]\n\n"
      "Simulates every load and store of TRACE on the cache hierarchy of SPEC (a hwspec, see\n"
      "'ppt hwspec') with exact set-associative LRU, and prints per level the accesses, misses,\n"
      "global hit rate (1 - misses at every level up to this one / all accesses) and local hit\n"
      "rate (hits here / accesses reaching here). Thread t of the trace runs on core t: private\n"
      "levels per thread, shared levels as SPEC's shared_by says. A level whose SPEC says\n"
      "\"replacement\": \"random\" evicts a drawn way instead (among its victim_ways least\n"
      "recent ones when given), seeded by --seed.\n\n"
      "  --hw SPEC            hwspec JSON file (required)\n" PPT_CLI_SET_HELP
      "  --interleave MODE    how the threads' streams meet in shared levels: 'rr' (default),\n"
      "                       one reference of each thread in turn; 'uniform', each reference\n"
      "                       from a thread drawn at random\n"
      "  --seed S             seed of the 'uniform' interleaving and of random-replacement\n"
      "                       levels' victims (default 1)\n"
      "  --coherence          write-invalidate coherence: a thread's store drops the line from\n"
      "                       the other threads' caches (default off, as Cachegrind)\n" PPT_CLI_ONLY_HELP
          PPT_CLI_NOSTACK_HELP
      "  --json               machine-readable output on stdout\n"
      "  -h, --help\n\n"
      "Counts are in line accesses (an access touching two cache lines counts twice, the unit\n"
      "of reuse distances); the 'refs' columns count each load/store once, as Cachegrind does.\n"
      "Exit status: 0 success, 1 failure while running, 2 bad usage or bad input.\n");
}

typedef struct args {
  ppt_cli_common c; /* --hw, --interleave, --seed, --only, --json; c.operand: the trace */
  ppt_tracesim_opts o;
} args;

typedef struct results {
  ppt_hwspec hw;
  ppt_tracesim_result r;
} results;

static int write_json(void *va, void *vr, ppt_err *err) {
  const char *trace = ((const args *)va)->c.operand, *spec = ((const args *)va)->c.hw;
  const ppt_tracesim_opts *o = &((const args *)va)->o;
  const ppt_hwspec *hw = &((const results *)vr)->hw;
  const ppt_tracesim_result *r = &((const results *)vr)->r;
  json_object *root = ppt_tracesim_json(r);
  if (!root) return ppt_cli_put_json(NULL, 0, err);
  json_object_object_add(root, "trace", json_object_new_string(trace));
  json_object_object_add(root, "hwspec", json_object_new_string(spec));
  json_object_object_add(root, "hwspec_name", json_object_new_string(hw->name));
  json_object_object_add(root, "interleave", json_object_new_string(ppt_interleave_name(o->interleave)));
  /* The seed only means something for the random interleaving or a random-replacement
   * level. */
  int random_repl = 0;
  for (uint32_t k = 0; k < hw->nlevels; k++) random_repl |= hw->levels[k].replacement == PPT_HW_REPL_RANDOM;
  json_object_object_add(
      root, "seed",
      o->interleave == PPT_INTERLEAVE_UNIFORM || random_repl ? json_object_new_uint64(o->seed) : NULL);
  json_object *only = NULL;
  if (o->nonly) {
    only = json_object_new_array();
    for (size_t i = 0; i < o->nonly; i++) json_object_array_add(only, json_object_new_string(o->only[i]));
  }
  json_object_object_add(root, "only", only);
  json_object_object_add(root, "unit", json_object_new_string("line accesses"));
  return ppt_cli_put_json(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const char *trace = ((const args *)va)->c.operand, *spec = ((const args *)va)->c.hw;
  const ppt_tracesim_opts *o = &((const args *)va)->o;
  const ppt_hwspec *hw = &((const results *)vr)->hw;
  const ppt_tracesim_result *r = &((const results *)vr)->r;
  (void)err;
  printf("trace       %s (%u thread%s, %llu references)\n", trace, r->threads, r->threads == 1 ? "" : "s",
         (unsigned long long)r->refs);
  printf("hwspec      %s (%s)\n", hw->name, spec);
  if (o->interleave == PPT_INTERLEAVE_UNIFORM)
    printf("interleave  uniform random, seed %llu\n", (unsigned long long)o->seed);
  else
    printf("interleave  round-robin by reference\n");
  for (uint32_t k = 0; k < hw->nlevels; k++)
    if (hw->levels[k].replacement == PPT_HW_REPL_RANDOM)
      printf("replacement %s random (seed %llu)\n", hw->levels[k].name, (unsigned long long)o->seed);
  if (o->nonly) {
    printf("counted     %llu references (%llu loads, %llu stores) in functions starting with ",
           (unsigned long long)r->counted_refs, (unsigned long long)r->counted_loads,
           (unsigned long long)r->counted_stores);
    for (size_t i = 0; i < o->nonly; i++) printf("%s'%s'", i ? ", " : "", o->only[i]);
    printf("\n");
  } else {
    printf("counted     all %llu references (%llu loads, %llu stores)\n", (unsigned long long)r->counted_refs,
           (unsigned long long)r->counted_loads, (unsigned long long)r->counted_stores);
  }
  printf("\n%-6s %14s %14s %10s %10s  %14s %14s\n", "level", "accesses", "misses", "hit rate", "local",
         "ref accesses", "ref misses");
  for (uint32_t k = 0; k < r->nlevels; k++) {
    const ppt_tracesim_level *lv = &r->levels[k];
    printf("%-6s %14llu %14llu", lv->name, (unsigned long long)lv->accesses, (unsigned long long)lv->misses);
    ppt_cli_put_rate(lv->hit_rate);
    ppt_cli_put_rate(lv->local_hit_rate);
    printf("  %14llu %14llu\n", (unsigned long long)lv->ref_accesses, (unsigned long long)lv->ref_misses);
  }
  printf("\nwrite-backs (dirty lines evicted, into):");
  for (uint32_t k = 1; k <= r->nlevels; k++)
    printf(" %s %llu", k < r->nlevels ? r->levels[k].name : "DRAM", (unsigned long long)r->writebacks[k]);
  printf(
      "\n\naccesses and misses in line accesses; hit rate = global, local = hits / accesses here;\n"
      "ref columns count each load/store once (Cachegrind's unit)\n");
  return 0;
}

static int take(void *arg, int val, const char *value) {
  (void)val;
  (void)value;
  ((args *)arg)->o.coherence = 1; /* --coherence, the only option of its own */
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"coherence", no_argument, 0, 'K'}, {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "cachesim",
                                    .own = own,
                                    .take = take,
                                    .shared = PPT_OPT_HW | PPT_OPT_SET | PPT_OPT_INTERLEAVE | PPT_OPT_SEED |
                                              PPT_OPT_ONLY | PPT_OPT_JSON | PPT_OPT_NOSTACK,
                                    .help = help,
                                    .operand = "TRACE"};
  args *a = va;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (rc) return rc;
  a->o = (ppt_tracesim_opts){.interleave = a->c.interleave[0],
                             .seed = a->c.seed,
                             .only = a->c.only,
                             .nonly = a->c.nonly,
                             .coherence = a->o.coherence};
  return 0;
}

static int run(void *va, void *vr, ppt_err *err) {
  args *a = va;
  results *r = vr;
  ppt_trace *t;
  /* The spec first: it is small, and a typo in it should not wait for a trace to open. */
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  if (!rc) rc = ppt_trace_open(a->c.operand, &t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, t);
  if (rc) return rc;
  uint8_t *counted = NULL; /* only to check the selection: tracesim makes its own */
  rc = ppt_cli_counted(&a->c, t, &counted, err);
  free(counted);
  if (rc) {
    ppt_trace_close(t);
    return rc;
  }
  ppt_cli_progress *p = ppt_cli_progress_start("simulating", ppt_trace_nrefs(t, UINT32_MAX));
  a->o.progress = ppt_cli_progress_cb;
  a->o.progress_arg = p;
  rc = ppt_tracesim_run(t, &r->hw, &a->o, &r->r, err);
  ppt_cli_progress_end(p);
  ppt_trace_close(t);
  return rc;
}

int ppt_cmd_cachesim(int argc, char **argv) {
  static const ppt_cli_steps steps = {"cachesim", parse_args, run, write_table, write_json, NULL, NULL};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}
