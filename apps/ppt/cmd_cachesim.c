/* cmd_cachesim.c — `ppt cachesim TRACE --hw SPEC`: exact LRU simulation of a trace on a
 * hwspec's cache hierarchy (ppt/tracesim.h), the ground truth for the SDCM predictions. */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

#define MAX_ONLY 64

static void help(void) {
  printf(
      "usage: ppt cachesim TRACE --hw SPEC [--interleave rr|uniform] [--seed S]\n"
      "                    [--only PREFIX[,PREFIX...]] [--json]\n\n"
      "Simulates every load and store of TRACE on the cache hierarchy of SPEC (a hwspec, see\n"
      "'ppt hwspec') with exact set-associative LRU, and prints per level the accesses, misses,\n"
      "global hit rate (1 - misses at every level up to this one / all accesses) and local hit\n"
      "rate (hits here / accesses reaching here). Thread t of the trace runs on core t: private\n"
      "levels per thread, shared levels as SPEC's shared_by says.\n\n"
      "  --hw SPEC            hwspec JSON file (required)\n"
      "  --interleave MODE    how the threads' streams meet in shared levels: 'rr' (default),\n"
      "                       one reference of each thread in turn; 'uniform', each reference\n"
      "                       from a thread drawn at random\n"
      "  --seed S             seed of the 'uniform' interleaving and of random-replacement\n"
      "                       levels' victims (default 1)\n"
      "  --only PREFIXES      count only references of functions whose name starts with one of\n"
      "                       the comma-separated prefixes (everything is still simulated), e.g.\n"
      "                       '.omp_outlined.' for the parallel loops, as Cachegrind reports them\n"
      "  --json               machine-readable output on stdout\n"
      "  -h, --help\n\n"
      "Counts are in line accesses (an access touching two cache lines counts twice, the unit\n"
      "of reuse distances); the 'refs' columns count each load/store once, as Cachegrind does.\n"
      "Exit status: 0 success, 1 failure while running, 2 bad usage or bad input.\n");
}

static void progress_cb(uint64_t done, void *arg) {
  ppt_cli_progress_update(arg, done);
}

/* Splits a comma-separated list into prefixes pointing into `s` (modified). */
static int split_only(char *s, const char **only, size_t *n) {
  for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
    if (*n == MAX_ONLY) return -1;
    only[(*n)++] = tok;
  }
  return 0;
}

static int print_json(const char *trace, const char *spec, const ppt_hwspec *hw, const ppt_tracesim_opts *o,
                      const ppt_tracesim_result *r) {
  json_object *root = ppt_tracesim_json(r);
  if (!root) {
    fprintf(stderr, "ppt cachesim: out of memory\n");
    return PPT_ERUN;
  }
  json_object_object_add(root, "trace", json_object_new_string(trace));
  json_object_object_add(root, "hwspec", json_object_new_string(spec));
  json_object_object_add(root, "hwspec_name", json_object_new_string(hw->name));
  json_object_object_add(root, "interleave",
                         json_object_new_string(ppt_interleave_name(o->interleave)));
  /* The seed only means something for the random interleaving or a random-replacement
   * level. */
  int random_repl = 0;
  for (uint32_t k = 0; k < hw->nlevels; k++) random_repl |= hw->levels[k].replacement == PPT_HW_REPL_RANDOM;
  json_object_object_add(root, "seed",
                         o->interleave == PPT_INTERLEAVE_UNIFORM || random_repl ? json_object_new_uint64(o->seed) : NULL);
  json_object *only = NULL;
  if (o->nonly) {
    only = json_object_new_array();
    for (size_t i = 0; i < o->nonly; i++) json_object_array_add(only, json_object_new_string(o->only[i]));
  }
  json_object_object_add(root, "only", only);
  json_object_object_add(root, "unit", json_object_new_string("line accesses"));
  printf("%s\n",
         json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(root);
  return 0;
}

static void print_rate(double x) {
  if (isfinite(x))
    printf(" %10.6f", x);
  else
    printf(" %10s", "-");
}

static void print_table(const char *trace, const char *spec, const ppt_hwspec *hw, const ppt_tracesim_opts *o,
                        const ppt_tracesim_result *r) {
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
    print_rate(lv->hit_rate);
    print_rate(lv->local_hit_rate);
    printf("  %14llu %14llu\n", (unsigned long long)lv->ref_accesses, (unsigned long long)lv->ref_misses);
  }
  printf(
      "\naccesses and misses in line accesses; hit rate = global, local = hits / accesses here;\n"
      "ref columns count each load/store once (Cachegrind's unit)\n");
}

int ppt_cmd_cachesim(int argc, char **argv) {
  const char *spec = NULL;
  int json = 0;
  ppt_tracesim_opts o = {.interleave = PPT_INTERLEAVE_RR, .seed = 1};
  const char *only[MAX_ONLY];
  char *only_buf[MAX_ONLY]; /* strdup'd --only arguments, split in place */
  size_t nbuf = 0, nonly = 0;
  int rc = 0;
  static const struct option opts[] = {{"hw", required_argument, 0, 'w'},
                                       {"interleave", required_argument, 0, 'i'},
                                       {"seed", required_argument, 0, 's'},
                                       {"only", required_argument, 0, 'o'},
                                       {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 1;
  opterr = 0; /* one message line, ours */
  int c;
  while (!rc && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'w': spec = optarg; break;
      case 'i':
        if (ppt_interleave_parse(optarg, &o.interleave))
          rc = ppt_cli_usage("cachesim", "--interleave wants 'rr' or 'uniform', not '%s'", optarg);
        break;
      case 's':
        if (ppt_cli_parse_u64(optarg, &o.seed))
          rc = ppt_cli_usage("cachesim", "--seed wants a non-negative integer, not '%s'", optarg);
        break;
      case 'o': {
        size_t before = nonly;
        if (nbuf == MAX_ONLY || !(only_buf[nbuf] = strdup(optarg))) {
          rc = ppt_cli_usage("cachesim", "too many --only options");
          break;
        }
        if (split_only(only_buf[nbuf++], only, &nonly))
          rc = ppt_cli_usage("cachesim", "--only: at most %d prefixes", MAX_ONLY);
        else if (nonly == before)
          rc = ppt_cli_usage("cachesim", "--only wants function-name prefixes, not '%s'", optarg);
        break;
      }
      case 'j': json = 1; break;
      case 'h':
        help();
        rc = -1;
        break;
      default:
        rc = ppt_cli_usage("cachesim", "unknown option or missing value in '%s'", argv[optind - 1]);
        break;
    }
  }
  if (!rc && optind + 1 != argc) rc = ppt_cli_usage("cachesim", "expected exactly one TRACE");
  if (!rc && !spec) rc = ppt_cli_usage("cachesim", "--hw SPEC is required");
  if (rc) goto out;
  o.only = only;
  o.nonly = nonly;

  const char *path = argv[optind];
  ppt_err err;
  ppt_hwspec hw;
  ppt_trace *t;
  /* The spec first: it is small, and a typo in it should not wait for a trace to open. */
  if (ppt_hwspec_load(spec, &hw, &err) || ppt_trace_open(path, &t, &err)) {
    rc = ppt_cli_fail("cachesim", &err);
    goto out;
  }
  ppt_cli_progress *p = ppt_cli_progress_start("simulating", ppt_trace_nrefs(t, UINT32_MAX));
  o.progress = progress_cb;
  o.progress_arg = p;
  ppt_tracesim_result r;
  int src = ppt_tracesim_run(t, &hw, &o, &r, &err);
  ppt_cli_progress_end(p);
  if (src) {
    rc = ppt_cli_fail("cachesim", &err);
  } else if (json) {
    rc = print_json(path, spec, &hw, &o, &r);
  } else {
    print_table(path, spec, &hw, &o, &r);
  }
  ppt_trace_close(t);
out:
  for (size_t i = 0; i < nbuf; i++) free(only_buf[i]);
  return rc < 0 ? 0 : rc;
}
