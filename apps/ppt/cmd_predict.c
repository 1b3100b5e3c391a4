/* cmd_predict.c — `ppt predict`: multicore runtime of a program from its sequential
 * trace. For each core count: SASMM mimics the cores (ppt/sasmm.h), the program model
 * turns phases into fork-join regions of tasklists (ppt/progmodel.h), and the SimGrid
 * engine simulates them on a node of the hwspec (ppt/engine.h). */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ppt/engine.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/progmodel.h"
#include "ppt/trace.h"

/* part / of as a JSON number; null when of is 0. */
static json_object *share(uint64_t part, uint64_t of) {
  return of ? json_object_new_double((double)part / (double)of) : NULL;
}

static void help(void) {
  ppt_tc_policy def;
  ppt_tc_policy_default(&def);
  char frac[32] = "";
  if (def.overlap == PPT_OVERLAP_PARTIAL) snprintf(frac, sizeof frac, ",%.2f", def.fraction);
  printf(
      "usage: ppt predict TRACE --hw SPEC [--cores 1,2,4,8,16] [options]\n\n"
      "Predicts the runtime of the traced program on N cores of the CPU in SPEC (a hwspec with\n"
      "timing data: clock, latencies, bandwidths, op throughputs), with hit rates, speedup and\n"
      "a time breakdown per core count.\n\n"
      "  --hw SPEC             hwspec JSON with timing (e.g. hwspecs/host.json)\n"
      "  --cores LIST          core counts (default 1,2,4,8,16)\n"
      "  --overlap P           compute/memory overlap: sum, max, partial,F or stall (default %s%s)\n"
      "  --compute M           op classes: sum (PPT: one after the other) or ports (the busiest\n"
      "                        class, an out-of-order core's throughput bound) (default %s)\n"
      "  --memory M            hit rates to time: amm (AMM Eq. 4-5) or miss (per line moved\n"
      "                        beyond L1, latency unless prefetched) (default %s)\n"
      "  --schedule S          override every loop's schedule (static, static,C, dynamic,C, guided)\n"
      "  --interleave rr|uniform  shared-cache interleaving (default rr)\n"
      "  --seed S              seed for uniform interleaving and random-replacement victims\n"
      "                        (default 1)\n"
      "  --coherence           write-invalidate coherence in the cache simulation: a core's\n"
      "                        store drops the line from the other cores' caches, so their\n"
      "                        next access is a cache-to-cache transfer (latency: the spec's\n"
      "                        coherence_cycles) (default off, as Cachegrind; costs one\n"
      "                        lookup per store and other instance)\n"
      "  --fork-cycles C       cost of a parallel region's fork and join, per thread\n"
      "                        (default: the spec's fork_join_cycles, else 0)\n"
      "  --only PREFIXES       model only the work of functions starting with one of the\n"
      "                        comma-separated prefixes (e.g. kernel_,.omp_outlined.)\n"
      "  --models LIST         also the runtime under each core model in LIST, comma-separated\n"
      "                        COMPUTE/MEMORY/OVERLAP items (OVERLAP: sum, max, stall or\n"
      "                        partial:F), e.g. ports/miss/partial:0.25,sum/amm/max; one\n"
      "                        cache simulation per core count serves them all\n"
      "  --plot FILE.png       runtime and speedup against cores (gnuplot)\n"
      "  --json                machine-readable results on stdout\n"
      "  -h, --help\n",
      ppt_tc_overlap_name(def.overlap), frac, ppt_tc_compute_name(def.compute),
      ppt_tc_memory_name(def.memory));
}

typedef struct point {
  uint32_t n;
  double seconds, compute_s, memory_s, wait_s;
  size_t regions;
  ppt_tracesim_result rates;
} point;

/* Critical-path breakdown: in every region, the thread that finished last. */
static void breakdown(const ppt_node_result *r, uint32_t n, point *pt) {
  for (size_t g = 0; g < ppt_node_result_nregions(r); g++) {
    ppt_region_stats rs;
    if (ppt_node_result_region(r, g, &rs)) continue;
    ppt_thread_stats best = {0}, ts;
    double busy_sum = 0;
    uint32_t nt = rs.parallel ? rs.nthreads : 1;
    for (uint32_t th = 0; th < nt && th < n; th++) {
      if (ppt_node_result_thread(r, g, th, &ts)) continue;
      busy_sum += ts.busy_s;
      if (ts.busy_s >= best.busy_s) best = ts;
    }
    pt->compute_s += best.compute_s;
    pt->memory_s += best.memory_s;
    double wait = rs.seconds - busy_sum / nt;
    pt->wait_s += wait > 0 ? wait : 0; /* rounding can leave -1e-18 */
  }
}

/* A core model of --models: its name as given and its policy. */
typedef struct model {
  char name[64];
  ppt_tc_policy pol;
} model;

/* One COMPUTE/MEMORY/OVERLAP item (OVERLAP partial:F is --overlap's partial,F, since
 * commas separate the items); 0 on success. */
static int parse_model(const char *item, model *out) {
  char buf[64], *mem, *ov, *colon;
  if (snprintf(buf, sizeof buf, "%s", item) >= (int)sizeof buf) return -1;
  snprintf(out->name, sizeof out->name, "%s", item);
  if (!(mem = strchr(buf, '/')) || !(ov = strchr(mem + 1, '/'))) return -1;
  *mem++ = 0;
  *ov++ = 0;
  if ((colon = strchr(ov, ':'))) *colon = ',';
  ppt_tc_policy_default(&out->pol);
  if (ppt_tc_compute_parse(buf, &out->pol.compute) || ppt_tc_memory_parse(mem, &out->pol.memory) ||
      ppt_tc_overlap_parse(ov, &out->pol))
    return -1;
  return 0;
}

/* Splits LIST at commas into models[0..*n); on a bad item, returns -1 with it in bad. */
static int parse_models(const char *list, model *models, size_t max, size_t *n, char *bad, size_t badsz) {
  *n = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    char item[64];
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), p);
    if (len >= sizeof item || *n == max || parse_model(item, &models[*n])) {
      snprintf(bad, badsz, "%.*s", (int)len, p);
      return -1;
    }
    (*n)++;
    p += len;
    if (!*p) return 0;
  }
}

static int plot(const char *path, const point *pts, size_t np, const char *title, ppt_err *err) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", path, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data", path);
  for (size_t i = 0; i < np; i++)
    fprintf(d, "%u %.9g %.6g\n", pts[i].n, pts[i].seconds, pts[0].seconds / pts[i].seconds);
  fclose(d);
  char out[4096];
  snprintf(out, sizeof out, "%s.tmp%ld", path, (long)getpid());
  FILE *g = popen("gnuplot 2>/dev/null", "w");
  if (!g) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot run gnuplot", path);
  }
  fprintf(g,
          "set terminal pngcairo size 900,560 noenhanced\nset output '%s'\n"
          "set title 'ppt predict: %s'\nset xlabel 'cores'\nset logscale x 2\n"
          "set ylabel 'runtime (s)'\nset y2label 'speedup'\nset y2tics\nset ytics nomirror\nset grid\n"
          "set key top center\n"
          "plot '%s' using 1:2 with linespoints lw 2 title 'runtime', '' using 1:3 axes x1y2 with "
          "linespoints lw 2 "
          "title 'speedup', '' using 1:1 axes x1y2 with lines dt 2 title 'ideal speedup'\n",
          out, title, tmp);
  int rc = pclose(g);
  remove(tmp);
  if (rc != 0 || rename(out, path) != 0) {
    remove(out);
    return ppt_err_set(err, PPT_ERUN, "%s: gnuplot failed (is gnuplot installed?)", path);
  }
  return 0;
}

int ppt_cmd_predict(int argc, char **argv) {
  const char *hwpath = NULL, *plotpath = NULL, *only = NULL;
  uint32_t cores[64] = {1, 2, 4, 8, 16};
  size_t ncores = 5;
  int json = 0, fork_set = 0;
  model models[64];
  size_t nmodels = 0;
  char bad[256];
  uint64_t seed = 1;
  double fork_cycles = 0;
  ppt_sasmm_opts so;
  ppt_sasmm_opts_default(&so);
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  static const struct option opts[] = {{"hw", required_argument, 0, 'w'},
                                       {"cores", required_argument, 0, 'c'},
                                       {"overlap", required_argument, 0, 'v'},
                                       {"schedule", required_argument, 0, 's'},
                                       {"interleave", required_argument, 0, 'i'},
                                       {"seed", required_argument, 0, 'S'},
                                       {"fork-cycles", required_argument, 0, 'f'},
                                       {"plot", required_argument, 0, 'p'},
                                       {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {"only", required_argument, 0, 'O'},
                                       {"compute", required_argument, 0, 'C'},
                                       {"memory", required_argument, 0, 'M'},
                                       {"models", required_argument, 0, 'm'},
                                       {"coherence", no_argument, 0, 'K'},
                                       {0, 0, 0, 0}};
  optind = 1;
  int ch;
  opterr = 0; /* one message line, ours */
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
      case 'w': hwpath = optarg; break;
      case 'c':
        if (ppt_cli_parse_cores(optarg, cores, 64, &ncores))
          return ppt_cli_usage("predict", "--cores wants a list like 1,2,4, not '%s'", optarg);
        break;
      case 'v':
        if (ppt_tc_overlap_parse(optarg, &cfg.policy))
          return ppt_cli_usage("predict", "--overlap wants sum, max, partial,F or stall, not '%s'", optarg);
        break;
      case 'C':
        if (ppt_tc_compute_parse(optarg, &cfg.policy.compute))
          return ppt_cli_usage("predict", "--compute wants sum or ports, not '%s'", optarg);
        break;
      case 'M':
        if (ppt_tc_memory_parse(optarg, &cfg.policy.memory))
          return ppt_cli_usage("predict", "--memory wants amm or miss, not '%s'", optarg);
        break;
      case 's':
        if (ppt_cli_parse_schedule(optarg, &so.sched, &so.chunk))
          return ppt_cli_usage(
              "predict", "--schedule wants static, static,C, dynamic,C or guided[,C], not '%s'", optarg);
        break;
      case 'i':
        if (ppt_interleave_parse(optarg, &so.interleave))
          return ppt_cli_usage("predict", "--interleave wants rr or uniform, not '%s'", optarg);
        break;
      case 'S':
        if (ppt_cli_parse_u64(optarg, &seed))
          return ppt_cli_usage("predict", "--seed wants an integer, not '%s'", optarg);
        break;
      case 'f':
        if (ppt_cli_parse_double(optarg, &fork_cycles) || fork_cycles < 0)
          return ppt_cli_usage("predict", "--fork-cycles wants a number >= 0, not '%s'", optarg);
        fork_set = 1;
        break;
      case 'm':
        if (parse_models(optarg, models, sizeof models / sizeof *models, &nmodels, bad, sizeof bad))
          return ppt_cli_usage("predict", "--models: bad item '%s' (want COMPUTE/MEMORY/OVERLAP, e.g. %s)",
                               bad, "ports/miss/partial:0.25");
        break;
      case 'K': so.coherence = 1; break;
      case 'p': plotpath = optarg; break;
      case 'O': only = optarg; break;
      case 'j': json = 1; break;
      case 'h': help(); return 0;
      default: return ppt_cli_usage("predict", "unknown option or missing value in '%s'", argv[optind - 1]);
    }
  }
  if (optind + 1 != argc) return ppt_cli_usage("predict", "expected exactly one TRACE");
  if (!hwpath) return ppt_cli_usage("predict", "--hw SPEC is required");
  so.seed = seed;
  ppt_err err;
  ppt_hwspec hw;
  if (ppt_hwspec_load(hwpath, &hw, &err)) return ppt_cli_fail("predict", &err);
  if (ppt_hwspec_has_timing(&hw, hwpath, &err)) return ppt_cli_fail("predict", &err);
  /* The fork-join cost of a region: --fork-cycles, else the spec's measured figure. */
  double fork_cycles_n = fork_set ? fork_cycles : hw.fork_join_cycles;
  ppt_trace *t;
  if (ppt_trace_open(argv[optind], &t, &err)) return ppt_cli_fail("predict", &err);
  uint8_t *counted = only ? ppt_cli_counted_blocks(t, only) : NULL;
  if (only && !counted) {
    fprintf(stderr, "ppt predict: out of memory\n");
    ppt_trace_close(t);
    return 1;
  }
  point *pts = calloc(ncores, sizeof *pts);
  /* --models: runtime of model j on core count i at mrt[j * ncores + i]. */
  double *mrt = calloc(nmodels * ncores + 1, sizeof *mrt);
  int rc = pts && mrt ? 0 : 1;
  ppt_cli_progress *prog = ppt_cli_progress_start("predicting", ncores);
  for (size_t i = 0; i < ncores && !rc; i++) {
    so.ncores = cores[i];
    cfg.cores = cores[i];
    /* One thread runs a parallel region serialised: no threads to wake or join, but
     * libomp still enters and leaves the region and sets up its loops (measured by
     * ppt calibrate: fork_join_serial_cycles; 540 ns against ~1060 ns on 2 threads on
     * the validation host). --fork-cycles sets the multi-thread figure only. */
    cfg.fork_cycles = cores[i] > 1 ? fork_cycles_n : hw.fork_join_serial_cycles;
    ppt_progmodel *m = NULL;
    ppt_node *node = NULL;
    ppt_node_result *res = NULL;
    if (!(rc = ppt_progmodel_build(t, &hw, &so, &cfg.policy, counted, &m, &err)) &&
        !(rc = ppt_node_create(&hw, &cfg, &node, &err)) &&
        !(rc = ppt_node_run(node, ppt_progmodel_program(m), &res, &err))) {
      pts[i].n = cores[i];
      pts[i].seconds = ppt_node_result_seconds(res);
      pts[i].regions = ppt_progmodel_nregions(m);
      pts[i].rates = *ppt_progmodel_hitrates(m);
      breakdown(res, cores[i], &pts[i]);
    }
    /* The other core models from the same simulation: only the tasklists change. */
    for (size_t j = 0; j < nmodels && !rc; j++) {
      ppt_node_result_free(res);
      ppt_node_free(node);
      res = NULL;
      node = NULL;
      ppt_node_config mc = cfg;
      mc.policy = models[j].pol;
      if (!(rc = ppt_progmodel_set_policy(m, &mc.policy, &err)) &&
          !(rc = ppt_node_create(&hw, &mc, &node, &err)) &&
          !(rc = ppt_node_run(node, ppt_progmodel_program(m), &res, &err)))
        mrt[j * ncores + i] = ppt_node_result_seconds(res);
    }
    ppt_node_result_free(res);
    ppt_node_free(node);
    ppt_progmodel_free(m);
    ppt_cli_progress_update(prog, i + 1);
  }
  ppt_cli_progress_end(prog);
  if (rc) {
    rc = ppt_cli_fail("predict", &err);
    goto out;
  }
  const char *pol = ppt_tc_overlap_name(cfg.policy.overlap);
  if (json) {
    json_object *o = json_object_new_object(), *arr = json_object_new_array(),
                *set = json_object_new_object();
    json_object_object_add(o, "trace", json_object_new_string(argv[optind]));
    json_object_object_add(o, "hwspec", json_object_new_string(hwpath));
    json_object_object_add(set, "overlap", json_object_new_string(pol));
    json_object_object_add(set, "overlap_fraction",
                           json_object_new_double(ppt_tc_policy_fraction(&cfg.policy)));
    json_object_object_add(set, "interleave", json_object_new_string(so.interleave ? "uniform" : "rr"));
    json_object_object_add(set, "seed", json_object_new_int64((int64_t)seed));
    json_object_object_add(set, "coherence", json_object_new_boolean(so.coherence));
    json_object_object_add(set, "fork_cycles", json_object_new_double(fork_cycles_n));
    json_object_object_add(set, "compute", json_object_new_string(ppt_tc_compute_name(cfg.policy.compute)));
    json_object_object_add(set, "memory", json_object_new_string(ppt_tc_memory_name(cfg.policy.memory)));
    json_object_object_add(o, "settings", set);
    for (size_t i = 0; i < ncores; i++) {
      json_object *e = json_object_new_object(), *lv = json_object_new_array(),
                  *bd = json_object_new_object();
      json_object_object_add(e, "n", json_object_new_int((int)pts[i].n));
      json_object_object_add(e, "runtime_s", json_object_new_double(pts[i].seconds));
      json_object_object_add(e, "speedup", json_object_new_double(pts[0].seconds / pts[i].seconds));
      json_object_object_add(e, "regions", json_object_new_int64((int64_t)pts[i].regions));
      const ppt_tracesim_result *q = &pts[i].rates;
      for (uint32_t k = 0; k < q->nlevels; k++) {
        json_object *l = json_object_new_object();
        double h = pts[i].rates.levels[k].ref_hit_rate, lh = pts[i].rates.levels[k].ref_local_hit_rate;
        json_object_object_add(l, "name", json_object_new_string(hw.levels[k].name));
        json_object_object_add(l, "hit_rate", isnan(h) ? NULL : json_object_new_double(h));
        json_object_object_add(l, "local_hit_rate", isnan(lh) ? NULL : json_object_new_double(lh));
        /* Of the references this level served, the shares the prefetcher model covered
         * and whose first-level miss queued on one set (ppt/missq.h). */
        if (k > 0) {
          json_object_object_add(l, "prefetched", share(q->streamed[k], q->served[k]));
          json_object_object_add(l, "same_set", share(q->bunched[k], q->served[k]));
          json_object_object_add(l, "transfers", share(q->transfers[k], q->served[k]));
        }
        json_object_array_add(lv, l);
      }
      json_object_object_add(e, "levels", lv);
      json_object *dr = json_object_new_object();
      json_object_object_add(dr, "served", json_object_new_int64((int64_t)q->served[q->nlevels]));
      json_object_object_add(dr, "prefetched", share(q->streamed[q->nlevels], q->served[q->nlevels]));
      json_object_object_add(dr, "same_set", share(q->bunched[q->nlevels], q->served[q->nlevels]));
      json_object_object_add(dr, "transfers", share(q->transfers[q->nlevels], q->served[q->nlevels]));
      json_object_object_add(e, "dram", dr);
      if (q->ntlb && q->counted_refs) {
        /* Data TLB: the share of references missing every TLB level up to this one. */
        json_object *ta = json_object_new_array();
        uint64_t miss = q->counted_refs;
        for (uint32_t j = 0; j < q->ntlb; j++) {
          json_object *l = json_object_new_object();
          miss -= q->tlb_served[j];
          json_object_object_add(l, "name", json_object_new_string(q->tlb_names[j]));
          json_object_object_add(l, "miss_rate",
                                 json_object_new_double((double)miss / (double)q->counted_refs));
          json_object_array_add(ta, l);
        }
        json_object_object_add(e, "tlb", ta);
      }
      json_object_object_add(bd, "compute_s", json_object_new_double(pts[i].compute_s));
      json_object_object_add(bd, "memory_s", json_object_new_double(pts[i].memory_s));
      json_object_object_add(bd, "imbalance_wait_s", json_object_new_double(pts[i].wait_s));
      json_object_object_add(e, "breakdown", bd);
      json_object_array_add(arr, e);
    }
    json_object_object_add(o, "cores", arr);
    if (nmodels) {
      json_object *ma = json_object_new_array();
      for (size_t j = 0; j < nmodels; j++) {
        json_object *me = json_object_new_object(), *ca = json_object_new_array();
        json_object_object_add(me, "model", json_object_new_string(models[j].name));
        for (size_t i = 0; i < ncores; i++) {
          json_object *e = json_object_new_object();
          json_object_object_add(e, "n", json_object_new_int((int)pts[i].n));
          json_object_object_add(e, "runtime_s", json_object_new_double(mrt[j * ncores + i]));
          json_object_array_add(ca, e);
        }
        json_object_object_add(me, "cores", ca);
        json_object_array_add(ma, me);
      }
      json_object_object_add(o, "models", ma);
    }
    printf("%s\n",
           json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
  } else {
    printf(
        "%s on %s (%s overlap %.2f, compute %s, memory %s, interleave %s, seed %llu, fork-join %.0f "
        "cycles)\n",
        argv[optind], hw.name, pol, ppt_tc_policy_fraction(&cfg.policy),
        ppt_tc_compute_name(cfg.policy.compute), ppt_tc_memory_name(cfg.policy.memory),
        so.interleave ? "uniform" : "rr", (unsigned long long)seed, fork_cycles_n);
    printf("%6s %12s %8s", "cores", "runtime", "speedup");
    for (uint32_t k = 0; k < hw.nlevels; k++) printf(" %7s", hw.levels[k].name);
    printf(" %10s %10s %10s\n", "compute", "memory", "imbalance");
    for (size_t i = 0; i < ncores; i++) {
      printf("%6u %10.4f s %7.2fx", pts[i].n, pts[i].seconds, pts[0].seconds / pts[i].seconds);
      for (uint32_t k = 0; k < hw.nlevels; k++) printf(" %6.2f%%", 100 * pts[i].rates.levels[k].ref_hit_rate);
      printf(" %8.4f s %8.4f s %8.4f s\n", pts[i].compute_s, pts[i].memory_s, pts[i].wait_s);
    }
    printf("(hit rates are global; compute/memory on the critical path; imbalance = barrier wait)\n");
    if (nmodels) {
      printf("\n%-28s", "core model (runtime)");
      for (size_t i = 0; i < ncores; i++) {
        char h[32];
        snprintf(h, sizeof h, "%u cores", pts[i].n);
        printf(" %11s", h);
      }
      printf("\n");
      for (size_t j = 0; j < nmodels; j++) {
        printf("%-28s", models[j].name);
        for (size_t i = 0; i < ncores; i++) printf(" %9.4f s", mrt[j * ncores + i]);
        printf("\n");
      }
    }
  }
  if (plotpath && (rc = plot(plotpath, pts, ncores, argv[optind], &err))) rc = ppt_cli_fail("predict", &err);
out:
  free(pts);
  free(mrt);
  free(counted);
  ppt_trace_close(t);
  return rc;
}
