/* model_cli.c — the command line all ppt-model-* programs share.
 *
 *   ppt-model-NAME --hw SPEC [--cores 1,2,4] [model options] [--json] [-o FILE]
 *
 * For each core count the model builds its program (model.h), the engine runs it, and
 * one row (or JSON object) reports runtime, speedup, hit rates and the critical-path
 * split into compute and memory time. Exit codes as the ppt command: 0 ok, 1 failure
 * while running, 2 bad usage or input with one line "ppt-model-NAME: problem". */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ppt/io.h"
#include "ppt/sasmm.h"

#define MAX_CORES 64
#define MAX_OPTS 16

typedef struct cli {
  const mdl_model *m;
  const void *params;
  const char *hwpath, *outpath;
  int json;
  uint32_t cores[MAX_CORES];
  size_t ncores;
  ppt_node_config cfg;
} cli;

static int usage_error(const mdl_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(const mdl_model *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ppt-model-%s: ", m->name);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "; see 'ppt-model-%s --help'\n", m->name);
  va_end(ap);
  return PPT_EINPUT;
}

static int fail(const mdl_model *m, const ppt_err *err) {
  fprintf(stderr, "ppt-model-%s: %s\n", m->name, err->msg[0] ? err->msg : "failed");
  return err->status ? (int)err->status : PPT_ERUN;
}

static void help(const mdl_model *m) {
  ppt_tc_policy def;
  mdl_policy_default(&def);
  printf(
      "usage: ppt-model-%s --hw SPEC [options]\n\n%s.\n"
      "Predicts runtime, speedup and cache hit rates on 1..N cores of the CPU in SPEC from a\n"
      "PPT-style proxy model: per-thread tasklists built analytically from the problem size,\n"
      "run fork-join on the SimGrid node (docs/models.md).\n\n",
      m->name, m->summary);
  printf("  --hw SPEC          hwspec JSON with timing data (e.g. hwspecs/intel-xeon-e5-2650v3.json)\n");
  for (const mdl_opt *o = m->opts; o && o->name; o++) {
    char flag[64];
    snprintf(flag, sizeof flag, "--%s N", o->name);
    printf("  %-18s %s\n", flag, o->help);
  }
  printf(
      "  --cores LIST       core counts, e.g. 1,2,4 (default 1, powers of two, and all cores)\n"
      "  --overlap P        compute/memory overlap: sum, max, partial,F or stall (default partial,%.2f)\n"
      "  --compute M        op classes: sum (PPT's processor models) or ports (default sum)\n"
      "  --memory M         hit rates to time: amm (AMM Eq. 4-5, as PPT), miss or pipe (default amm)\n"
      "  --fork-cycles C    cost of a parallel region's fork, per thread (default 0)\n"
      "  --json             machine-readable results\n"
      "  -o, --output FILE  write the results to FILE (atomically) instead of stdout\n"
      "  -h, --help\n",
      def.fraction);
}

static int parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-' || *s == '+') return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* 1, 2, 4, ... below the spec's cores, then the cores themselves. */
static void default_cores(cli *c, uint32_t hwcores) {
  c->ncores = 0;
  for (uint32_t n = 1; n < hwcores && c->ncores < MAX_CORES - 1; n *= 2) c->cores[c->ncores++] = n;
  c->cores[c->ncores++] = hwcores ? hwcores : 1;
}

/* Kernel bandwidth report: the fastest instance of each labelled region, leaving out the
 * first when there are several (STREAM does not count its first iteration). */
typedef struct kernel_rate {
  const char *name;
  double bytes, best_s, avg_s;
  size_t count;
} kernel_rate;

static size_t kernel_rates(const cli *c, const mdl_prog *p, const mdl_result *r, kernel_rate *out,
                           size_t max) {
  size_t n = 0;
  for (const char *const *k = c->m->kernels; k && *k && n < max; k++) {
    kernel_rate kr = {.name = *k, .bytes = c->m->kernel_bytes(c->params, *k), .best_s = INFINITY};
    size_t seen = 0, total = 0;
    for (size_t g = 0; g < r->nregions; g++)
      if (!strcmp(mdl_prog_label(p, g), *k)) total++;
    double sum = 0;
    for (size_t g = 0; g < r->nregions; g++) {
      if (strcmp(mdl_prog_label(p, g), *k)) continue;
      if (seen++ == 0 && total > 1) continue;
      kr.count++;
      sum += r->region_s[g];
      if (r->region_s[g] < kr.best_s) kr.best_s = r->region_s[g];
    }
    if (!kr.count) continue;
    kr.avg_s = sum / (double)kr.count;
    out[n++] = kr;
  }
  return n;
}

static json_object *jnum(double x) {
  return isfinite(x) ? json_object_new_double(x) : NULL;
}

static json_object *params_json(const mdl_model *m) {
  json_object *o = json_object_new_object();
  for (const mdl_opt *op = m->opts; op && op->name; op++)
    json_object_object_add(o, op->name, json_object_new_int64((int64_t)*op->dest));
  return o;
}

static void write_json(FILE *f, const cli *c, const ppt_hwspec *hw, mdl_prog *const *progs,
                       const mdl_result *res) {
  json_object *o = json_object_new_object(), *set = json_object_new_object(), *arr = json_object_new_array();
  json_object_object_add(o, "model", json_object_new_string(c->m->name));
  json_object_object_add(o, "hwspec", json_object_new_string(hw->name));
  json_object_object_add(o, "hwspec_file", json_object_new_string(c->hwpath));
  json_object_object_add(o, "params", params_json(c->m));
  json_object_object_add(set, "overlap", json_object_new_string(ppt_tc_overlap_name(c->cfg.policy.overlap)));
  json_object_object_add(set, "overlap_fraction",
                         json_object_new_double(ppt_tc_policy_fraction(&c->cfg.policy)));
  json_object_object_add(set, "fork_cycles", json_object_new_double(c->cfg.fork_cycles));
  json_object_object_add(o, "settings", set);
  for (size_t i = 0; i < c->ncores; i++) {
    const mdl_result *r = &res[i];
    json_object *e = json_object_new_object(), *lv = json_object_new_array();
    json_object_object_add(e, "n", json_object_new_int((int)r->cores));
    json_object_object_add(e, "runtime_s", jnum(r->runtime_s));
    json_object_object_add(e, "speedup", jnum(res[0].runtime_s / r->runtime_s));
    json_object_object_add(e, "compute_s", jnum(r->compute_s));
    json_object_object_add(e, "memory_s", jnum(r->memory_s));
    json_object_object_add(e, "imbalance_wait_s", jnum(r->wait_s));
    json_object_object_add(e, "regions", json_object_new_int64((int64_t)r->nregions));
    json_object_object_add(e, "accesses", jnum(r->accesses));
    for (uint32_t k = 0; k < r->nlevels; k++) {
      json_object *l = json_object_new_object();
      json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
      json_object_object_add(l, "hit_rate", jnum(r->hit[k]));
      json_object_object_add(l, "local_hit_rate", jnum(r->local_hit[k]));
      json_object_array_add(lv, l);
    }
    json_object_object_add(e, "levels", lv);
    kernel_rate kr[16];
    size_t nk = kernel_rates(c, progs[i], r, kr, 16);
    if (nk) {
      json_object *ka = json_object_new_array();
      for (size_t j = 0; j < nk; j++) {
        json_object *k = json_object_new_object();
        json_object_object_add(k, "name", json_object_new_string(kr[j].name));
        json_object_object_add(k, "bytes", jnum(kr[j].bytes));
        json_object_object_add(k, "best_s", jnum(kr[j].best_s));
        json_object_object_add(k, "avg_s", jnum(kr[j].avg_s));
        json_object_object_add(k, "gb_s", jnum(kr[j].bytes / kr[j].best_s / 1e9));
        json_object_array_add(ka, k);
      }
      json_object_object_add(e, "kernels", ka);
    }
    json_object_array_add(arr, e);
  }
  json_object_object_add(o, "cores", arr);
  fprintf(f, "%s\n",
          json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(o);
}

static void write_text(FILE *f, const cli *c, const ppt_hwspec *hw, mdl_prog *const *progs,
                       const mdl_result *res) {
  fprintf(f, "ppt-model-%s", c->m->name);
  for (const mdl_opt *op = c->m->opts; op && op->name; op++)
    fprintf(f, " %s=%llu", op->name, (unsigned long long)*op->dest);
  fprintf(f, " on %s (%.2f GHz, %u cores), overlap %s %.2f\n", hw->name, hw->clock_hz / 1e9, hw->cores,
          ppt_tc_overlap_name(c->cfg.policy.overlap), ppt_tc_policy_fraction(&c->cfg.policy));
  fprintf(f, "%6s %13s %8s", "cores", "runtime", "speedup");
  for (uint32_t k = 0; k < hw->nlevels; k++) fprintf(f, " %7s", hw->levels[k].name);
  fprintf(f, " %12s %12s\n", "compute", "memory");
  for (size_t i = 0; i < c->ncores; i++) {
    const mdl_result *r = &res[i];
    fprintf(f, "%6u %11.5g s %7.2fx", r->cores, r->runtime_s, res[0].runtime_s / r->runtime_s);
    for (uint32_t k = 0; k < r->nlevels; k++) fprintf(f, " %6.2f%%", 100 * r->hit[k]);
    fprintf(f, " %10.4g s %10.4g s\n", r->compute_s, r->memory_s);
  }
  fprintf(f, "(hit rates: global, over all references; compute/memory: critical path, memory contended)\n");
  if (!c->m->kernels) return;
  fprintf(f, "\n%6s", "cores");
  for (const char *const *k = c->m->kernels; *k; k++) fprintf(f, " %10s", *k);
  fprintf(f, "   (best rate, GB/s)\n");
  for (size_t i = 0; i < c->ncores; i++) {
    kernel_rate kr[16];
    size_t nk = kernel_rates(c, progs[i], &res[i], kr, 16);
    fprintf(f, "%6u", res[i].cores);
    for (size_t j = 0; j < nk; j++) fprintf(f, " %10.2f", kr[j].bytes / kr[j].best_s / 1e9);
    fprintf(f, "\n");
  }
}

static int parse(cli *c, int argc, char **argv, int *done) {
  const mdl_model *m = c->m;
  struct option opts[MAX_OPTS + 10];
  size_t no = 0;
  for (const mdl_opt *o = m->opts; o && o->name && no < MAX_OPTS; o++, no++)
    opts[no] = (struct option){o->name, required_argument, 0, 1000 + (int)no};
  const struct option common[] = {
      {"hw", required_argument, 0, 'w'},      {"cores", required_argument, 0, 'c'},
      {"overlap", required_argument, 0, 'v'}, {"fork-cycles", required_argument, 0, 'f'},
      {"json", no_argument, 0, 'j'},          {"output", required_argument, 0, 'o'},
      {"help", no_argument, 0, 'h'},          {"compute", required_argument, 0, 'C'},
      {"memory", required_argument, 0, 'M'},  {0, 0, 0, 0}};
  memcpy(opts + no, common, sizeof common);
  optind = 1;
  opterr = 0;
  int ch;
  *done = 0;
  while ((ch = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
    switch (ch) {
      case 'w': c->hwpath = optarg; break;
      case 'c':
        if (ppt_sasmm_cores_parse(optarg, c->cores, MAX_CORES, &c->ncores))
          return usage_error(m, "--cores wants a list like 1,2,4 (each 1..%u, at most %d), not '%s'",
                             PPT_SASMM_MAX_CORES, MAX_CORES, optarg);
        break;
      case 'v':
        if (ppt_tc_overlap_parse(optarg, &c->cfg.policy))
          return usage_error(m, "--overlap wants sum, max, partial,F or stall with F in [0, 1], not '%s'",
                             optarg);
        break;
      case 'C':
        if (ppt_tc_compute_parse(optarg, &c->cfg.policy.compute))
          return usage_error(m, "--compute wants sum or ports, not '%s'", optarg);
        break;
      case 'M':
        if (ppt_tc_memory_parse(optarg, &c->cfg.policy.memory))
          return usage_error(m, "--memory wants amm, miss or pipe, not '%s'", optarg);
        break;
      case 'f': {
        char *end;
        errno = 0;
        double v = strtod(optarg, &end);
        if (errno || end == optarg || *end || !(v >= 0) || !isfinite(v))
          return usage_error(m, "--fork-cycles wants a number >= 0, not '%s'", optarg);
        c->cfg.fork_cycles = v;
        break;
      }
      case 'j': c->json = 1; break;
      case 'o': c->outpath = optarg; break;
      case 'h':
        help(m);
        *done = 1;
        return 0;
      case ':': return usage_error(m, "%s needs a value", argv[optind - 1]);
      case '?': return usage_error(m, "unknown option '%s'", argv[optind - 1]);
      default: {
        const mdl_opt *o = &m->opts[ch - 1000];
        uint64_t v;
        if (parse_u64(optarg, &v) || v < o->min || v > o->max)
          return usage_error(m, "--%s wants an integer in %llu..%llu, not '%s'", o->name,
                             (unsigned long long)o->min, (unsigned long long)o->max, optarg);
        *o->dest = v;
      }
    }
  }
  if (optind < argc) return usage_error(m, "unexpected argument '%s'", argv[optind]);
  if (!c->hwpath) return usage_error(m, "--hw SPEC is required");
  return 0;
}

int mdl_main(const mdl_model *m, void *params, int argc, char **argv) {
  cli c = {.m = m, .params = params};
  ppt_node_config_default(&c.cfg);
  mdl_policy_default(&c.cfg.policy);
  int done;
  int rc = parse(&c, argc, argv, &done);
  if (rc || done) return rc;
  ppt_err err;
  ppt_err_clear(&err);
  ppt_hwspec hw;
  if (ppt_hwspec_load(c.hwpath, &hw, &err) || ppt_hwspec_has_timing(&hw, c.hwpath, &err))
    return fail(m, &err);
  if (m->check && (rc = m->check(params, &hw, &err))) return fail(m, &err);
  if (!c.ncores) default_cores(&c, hw.cores);

  mdl_prog **progs = calloc(c.ncores, sizeof *progs);
  mdl_result *res = calloc(c.ncores, sizeof *res);
  if (!progs || !res) rc = ppt_err_set(&err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < c.ncores && !rc; i++) {
    if (!(rc = m->build(&hw, params, c.cores[i], &progs[i], &err)))
      rc = mdl_prog_run(progs[i], &hw, c.cores[i], &c.cfg, &res[i], &err);
  }
  if (!rc) {
    ppt_io_atomic *a = NULL;
    if (!(rc = ppt_io_atomic_open(c.outpath ? c.outpath : "-", &a, &err))) {
      FILE *f = ppt_io_atomic_stream(a);
      if (c.json)
        write_json(f, &c, &hw, progs, res);
      else
        write_text(f, &c, &hw, progs, res);
      rc = ppt_io_atomic_commit(a, &err);
    }
  }
  if (rc) rc = fail(m, &err);
  for (size_t i = 0; progs && res && i < c.ncores; i++) {
    mdl_prog_free(progs[i]);
    mdl_result_clear(&res[i]);
  }
  free(progs);
  free(res);
  return rc;
}
