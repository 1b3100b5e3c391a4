/* cmd_sasmm.c — `ppt sasmm`: private and shared cache hit rates on N cores predicted
 * from one sequential trace (SASMM, see include/ppt/sasmm.h). Core counts and
 * interleavings run as independent tasks on --threads worker threads. */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

static void help(void) {
  printf(
      "usage: ppt sasmm TRACE --hw SPEC [--cores 1,2,4,8,16] [options]\n\n"
      "Predicts private (PRD) and shared (CRD) cache hit rates of every level of SPEC on N cores\n"
      "from the sequential TRACE: worksharing-loop iterations are dealt to N mimicked cores as\n"
      "the OpenMP schedule would, and the cores' streams are interleaved for shared levels.\n\n"
      "  --hw SPEC              hwspec JSON (cache levels; e.g. hwspecs/sasmm-cachegrind.json)\n"
      "  --cores LIST           core counts, comma-separated (default 1,2,4,8,16)\n"
      "  --schedule S           static | static,C | dynamic,C | guided[,C] for every loop\n"
      "                         (default: each loop's recorded schedule)\n"
      "  --split iterations|instances  deal loop iterations (default) or, as the paper,\n"
      "                         each block's instances\n"
      "  --interleave LIST      rr, uniform or rr,uniform (default rr)\n"
      "  --model sim|sdcm       hit rates by exact LRU simulation of the mimicked streams\n"
      "                         (default: sees set conflicts) or by SDCM from the PRD/CRD\n"
      "                         profiles (the paper's model: one profile, any cache)\n"
      "  --mode exact|sampled   reuse measurement for --model sdcm (default exact)\n"
      "  --sample R             sampled mode: fraction of block instances (default 0.01)\n"
      "  --quantum Q            interleave Q block instances per turn instead of one reference\n"
      "                         (e.g. 100000, like Valgrind's scheduler, to compare with Cachegrind)\n"
      "  --seed S               seed for uniform interleaving, sampling and random-replacement\n"
      "                         victims (default 1)\n"
      "  --only PREFIXES        count only references of functions starting with one of the\n"
      "                         comma-separated prefixes (e.g. kernel_,.omp_outlined.)\n"
      "  --threads T            worker threads (default 2)\n"
      "  -o, --profiles FILE    write the PRD/CRD profiles (JSON, docs/sasmm.md)\n"
      "  --json                 machine-readable results on stdout\n"
      "  -h, --help\n");
}

typedef struct task {
  uint32_t n;
  ppt_interleave il;
  int shared_only; /* the private profiles come from the rr task of the same n */
  ppt_sasmm_profiles prof;
  ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
  ppt_tracesim_result sim;
  double *per_core;
  int rc;
  ppt_err err;
} task;

typedef struct job {
  const ppt_trace *t;
  const ppt_hwspec *hw;
  ppt_sasmm_opts base;
  ppt_reuse_opts ropts;
  const uint8_t *counted;
  int model_sim;
  task *tasks;
  size_t ntasks, next, done;
  ppt_cli_progress *progress;
  pthread_mutex_t lock;
} job;

static void *worker(void *arg) {
  job *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    size_t i = j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= j->ntasks) return NULL;
    task *tk = &j->tasks[i];
    ppt_sasmm_opts o = j->base;
    o.ncores = tk->n;
    o.interleave = tk->il;
    o.shared_only = tk->shared_only;
    if (j->model_sim)
      tk->rc = ppt_sasmm_simulate(j->t, &o, j->hw, j->counted, &tk->sim, &tk->prof.stats, &tk->err);
    else
      tk->rc = ppt_sasmm_measure(j->t, &o, &j->ropts, j->counted, &tk->prof, &tk->err);
    pthread_mutex_lock(&j->lock);
    ppt_cli_progress_update(j->progress, ++j->done);
    pthread_mutex_unlock(&j->lock);
  }
}

static json_object *jrate(double v) {
  return isnan(v) ? NULL : json_object_new_double(v);
}

int ppt_cmd_sasmm(int argc, char **argv) {
  const char *hwpath = NULL, *profiles = NULL, *only = NULL, *il_list = "rr";
  uint32_t cores[64] = {1, 2, 4, 8, 16};
  size_t ncores = 5;
  int json = 0, mode = PPT_REUSE_EXACT, model_sim = 1;
  double rate = 0.01;
  uint64_t seed = 1, threads = 2;
  ppt_sasmm_opts base;
  ppt_sasmm_opts_default(&base);
  static const struct option opts[] = {{"hw", required_argument, 0, 'w'},
                                       {"cores", required_argument, 0, 'c'},
                                       {"schedule", required_argument, 0, 's'},
                                       {"split", required_argument, 0, 'p'},
                                       {"interleave", required_argument, 0, 'i'},
                                       {"mode", required_argument, 0, 'm'},
                                       {"sample", required_argument, 0, 'r'},
                                       {"seed", required_argument, 0, 'S'},
                                       {"model", required_argument, 0, 'M'},
                                       {"quantum", required_argument, 0, 'Q'},
                                       {"only", required_argument, 0, 'O'},
                                       {"threads", required_argument, 0, 't'},
                                       {"profiles", required_argument, 0, 'o'},
                                       {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 1;
  int ch;
  opterr = 0; /* one message line, ours */
  while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (ch) {
      case 'w': hwpath = optarg; break;
      case 'c':
        if (ppt_cli_parse_cores(optarg, cores, 64, &ncores))
          return ppt_cli_usage("sasmm", "--cores wants a list like 1,2,4 (1..4095), not '%s'", optarg);
        break;
      case 's':
        if (ppt_cli_parse_schedule(optarg, &base.sched, &base.chunk))
          return ppt_cli_usage(
              "sasmm", "--schedule wants static, static,C, dynamic,C or guided[,C], not '%s'", optarg);
        break;
      case 'p':
        if (!strcmp(optarg, "iterations"))
          base.split = PPT_SPLIT_ITERATIONS;
        else if (!strcmp(optarg, "instances"))
          base.split = PPT_SPLIT_INSTANCES;
        else
          return ppt_cli_usage("sasmm", "--split wants iterations or instances, not '%s'", optarg);
        break;
      case 'i':
        if (strcmp(optarg, "rr") && strcmp(optarg, "uniform") && strcmp(optarg, "rr,uniform") &&
            strcmp(optarg, "uniform,rr"))
          return ppt_cli_usage("sasmm", "--interleave wants rr, uniform or rr,uniform, not '%s'", optarg);
        il_list = optarg;
        break;
      case 'm':
        if (!strcmp(optarg, "exact"))
          mode = PPT_REUSE_EXACT;
        else if (!strcmp(optarg, "sampled"))
          mode = PPT_REUSE_SAMPLED;
        else
          return ppt_cli_usage("sasmm", "--mode wants exact or sampled, not '%s'", optarg);
        break;
      case 'Q':
        if (ppt_cli_parse_u64(optarg, &base.quantum))
          return ppt_cli_usage("sasmm", "--quantum wants a count, not '%s'", optarg);
        break;
      case 'M':
        if (!strcmp(optarg, "sim"))
          model_sim = 1;
        else if (!strcmp(optarg, "sdcm"))
          model_sim = 0;
        else
          return ppt_cli_usage("sasmm", "--model wants sim or sdcm, not '%s'", optarg);
        break;
      case 'r':
        if (ppt_cli_parse_double(optarg, &rate) || !(rate > 0 && rate <= 1))
          return ppt_cli_usage("sasmm", "--sample wants a fraction in (0, 1], not '%s'", optarg);
        break;
      case 'S':
        if (ppt_cli_parse_u64(optarg, &seed))
          return ppt_cli_usage("sasmm", "--seed wants an integer, not '%s'", optarg);
        break;
      case 'O': only = optarg; break;
      case 't':
        if (ppt_cli_parse_u64(optarg, &threads) || threads < 1 || threads > 256)
          return ppt_cli_usage("sasmm", "--threads wants 1..256, not '%s'", optarg);
        break;
      case 'o': profiles = optarg; break;
      case 'j': json = 1; break;
      case 'h': help(); return 0;
      default: return ppt_cli_usage("sasmm", "unknown option or missing value in '%s'", argv[optind - 1]);
    }
  }
  if (optind + 1 != argc) return ppt_cli_usage("sasmm", "expected exactly one TRACE");
  if (!hwpath) return ppt_cli_usage("sasmm", "--hw SPEC is required");
  ppt_err err;
  ppt_hwspec hw;
  if (ppt_hwspec_load(hwpath, &hw, &err)) return ppt_cli_fail("sasmm", &err);
  ppt_trace *t;
  if (ppt_trace_open(argv[optind], &t, &err)) return ppt_cli_fail("sasmm", &err);
  base.seed = seed;
  job j = {.t = t, .hw = &hw, .base = base};
  pthread_mutex_init(&j.lock, NULL);
  ppt_reuse_opts_init(&j.ropts);
  j.ropts.line = hw.levels[0].line;
  j.ropts.mode = (ppt_reuse_mode)mode;
  j.ropts.rate = rate;
  j.ropts.seed = (unsigned long)seed;
  uint8_t *counted = only ? ppt_cli_counted_blocks(t, only) : NULL;
  if (only && !counted) {
    fprintf(stderr, "ppt sasmm: out of memory\n");
    ppt_trace_close(t);
    return 1;
  }
  j.counted = counted;
  j.model_sim = model_sim;
  if (model_sim && profiles) {
    ppt_trace_close(t);
    free(counted);
    return ppt_cli_usage("sasmm", "--profiles needs --model sdcm (the simulator builds no profiles)");
  }
  int want_rr = strstr(il_list, "rr") != NULL, want_uni = strstr(il_list, "uniform") != NULL;
  j.tasks = calloc(ncores * 2, sizeof *j.tasks);
  for (size_t i = 0; i < ncores; i++) {
    if (want_rr) j.tasks[j.ntasks++] = (task){.n = cores[i], .il = PPT_INTERLEAVE_RR};
    if (want_uni)
      j.tasks[j.ntasks++] =
          (task){.n = cores[i], .il = PPT_INTERLEAVE_UNIFORM, .shared_only = want_rr && !model_sim};
  }
  pthread_t th[256];
  size_t nth = threads < j.ntasks ? threads : j.ntasks;
  j.progress = ppt_cli_progress_start("core counts", j.ntasks);
  for (size_t i = 0; i < nth; i++) pthread_create(&th[i], NULL, worker, &j);
  for (size_t i = 0; i < nth; i++) pthread_join(th[i], NULL);
  ppt_cli_progress_end(j.progress);
  int rc = 0;
  for (size_t i = 0; i < j.ntasks && !rc; i++)
    if (j.tasks[i].rc) {
      rc = ppt_cli_fail("sasmm", &j.tasks[i].err);
    }
  /* Hit rates; a uniform task borrows the private profiles of the rr task of its n. */
  for (size_t i = 0; i < j.ntasks && !rc && model_sim; i++) {
    task *tk = &j.tasks[i];
    tk->per_core = calloc((size_t)tk->n * hw.nlevels, sizeof *tk->per_core);
    for (uint32_t k = 0; k < hw.nlevels; k++) {
      tk->rates[k].hit_rate = tk->sim.levels[k].ref_hit_rate;
      tk->rates[k].local_hit_rate = tk->sim.levels[k].ref_local_hit_rate;
      for (uint32_t c = 0; c < tk->n; c++) tk->per_core[(size_t)c * hw.nlevels + k] = NAN;
    }
  }
  for (size_t i = 0; i < j.ntasks && !rc && !model_sim; i++) {
    task *tk = &j.tasks[i];
    ppt_sasmm_profiles view = tk->prof;
    if (tk->shared_only) {
      const task *rr = &j.tasks[i - 1];
      view.prd = rr->prof.prd;
      view.prd_all = rr->prof.prd_all;
    }
    tk->per_core = calloc((size_t)tk->n * hw.nlevels, sizeof *tk->per_core);
    if (ppt_sasmm_hitrates(&hw, &view, tk->rates, tk->per_core, &err)) rc = ppt_cli_fail("sasmm", &err);
  }
  const char *ilname[] = {"rr", "uniform"};
  if (!rc && json) {
    json_object *o = json_object_new_object(), *arr = json_object_new_array(),
                *set = json_object_new_object();
    json_object_object_add(o, "trace", json_object_new_string(argv[optind]));
    json_object_object_add(o, "hwspec", json_object_new_string(hwpath));
    json_object_object_add(set, "schedule",
                           json_object_new_string(base.sched < 0                           ? "recorded"
                                                  : base.sched == PPT_SCHED_STATIC         ? "static"
                                                  : base.sched == PPT_SCHED_STATIC_CHUNKED ? "static,C"
                                                  : base.sched == PPT_SCHED_DYNAMIC        ? "dynamic,C"
                                                                                           : "guided,C"));
    json_object_object_add(set, "chunk", json_object_new_int64(base.chunk));
    json_object_object_add(set, "split", json_object_new_string(base.split ? "instances" : "iterations"));
    json_object_object_add(set, "interleave", json_object_new_string(il_list));
    json_object_object_add(set, "model", json_object_new_string(model_sim ? "sim" : "sdcm"));
    json_object_object_add(set, "mode", json_object_new_string(mode ? "sampled" : "exact"));
    json_object_object_add(set, "sample", json_object_new_double(rate));
    json_object_object_add(set, "seed", json_object_new_int64((int64_t)seed));
    json_object_object_add(set, "quantum", json_object_new_int64((int64_t)base.quantum));
    json_object_object_add(set, "only", only ? json_object_new_string(only) : NULL);
    json_object_object_add(set, "line", json_object_new_int((int)j.ropts.line));
    json_object_object_add(o, "settings", set);
    for (size_t i = 0; i < j.ntasks; i++) {
      task *tk = &j.tasks[i];
      json_object *e = json_object_new_object(), *lv = json_object_new_array();
      json_object_object_add(e, "n", json_object_new_int((int)tk->n));
      json_object_object_add(e, "interleave", json_object_new_string(ilname[tk->il]));
      json_object_object_add(e, "iterations", json_object_new_int64((int64_t)tk->prof.stats.iterations));
      for (uint32_t k = 0; k < hw.nlevels; k++) {
        json_object *l = json_object_new_object();
        json_object_object_add(l, "name", json_object_new_string(hw.levels[k].name));
        json_object_object_add(l, "shared", json_object_new_boolean(hw.levels[k].shared_by > 1));
        json_object_object_add(l, "hit_rate", jrate(tk->rates[k].hit_rate));
        json_object_object_add(l, "local_hit_rate", jrate(tk->rates[k].local_hit_rate));
        if (hw.levels[k].shared_by == 1 && !model_sim) {
          json_object *pc = json_object_new_array();
          for (uint32_t c = 0; c < tk->n; c++)
            json_object_array_add(pc, jrate(tk->per_core[(size_t)c * hw.nlevels + k]));
          json_object_object_add(l, "per_core", pc);
        }
        json_object_array_add(lv, l);
      }
      json_object_object_add(e, "levels", lv);
      json_object_array_add(arr, e);
    }
    json_object_object_add(o, "cores", arr);
    printf("%s\n",
           json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
  } else if (!rc) {
    printf("# %s on %s: model %s%s, split %s, interleave %s, quantum %llu, seed %llu%s%s\n", argv[optind],
           hw.name, model_sim ? "sim" : "sdcm",
           model_sim ? "" : (mode ? " (sampled reuse)" : " (exact reuse)"),
           base.split ? "instances" : "iterations", il_list, (unsigned long long)base.quantum,
           (unsigned long long)seed, only ? ", only " : "", only ? only : "");
    printf("%-6s %-8s", "cores", "il");
    for (uint32_t k = 0; k < hw.nlevels; k++)
      printf(" %8s %s", hw.levels[k].name,
             hw.levels[k].shared_by > 1 ? "(shared,global/local)" : "(private)");
    printf("\n");
    for (size_t i = 0; i < j.ntasks; i++) {
      task *tk = &j.tasks[i];
      printf("%-6u %-8s", tk->n, ilname[tk->il]);
      for (uint32_t k = 0; k < hw.nlevels; k++) {
        if (hw.levels[k].shared_by > 1)
          printf(" %7.2f%% / %6.2f%%      ", 100 * tk->rates[k].hit_rate, 100 * tk->rates[k].local_hit_rate);
        else
          printf(" %7.2f%%          ", 100 * tk->rates[k].hit_rate);
      }
      printf("\n");
    }
  }
  if (!rc && profiles) {
    json_object *o = json_object_new_object(), *arr = json_object_new_array();
    json_object_object_add(o, "schema", json_object_new_string("ppt-sasmm-profiles/1"));
    json_object_object_add(o, "trace", json_object_new_string(argv[optind]));
    json_object_object_add(o, "line", json_object_new_int((int)j.ropts.line));
    for (size_t i = 0; i < j.ntasks && !rc; i++) {
      task *tk = &j.tasks[i];
      json_object *e = json_object_new_object(), *prd = json_object_new_array(), *h;
      json_object_object_add(e, "n", json_object_new_int((int)tk->n));
      json_object_object_add(e, "interleave", json_object_new_string(ilname[tk->il]));
      for (uint32_t c = 0; tk->prof.prd && c < tk->n && !rc; c++) {
        if ((rc = ppt_rdhist_to_json(tk->prof.prd[c], &h, &err))) break;
        json_object_array_add(prd, h);
      }
      json_object_object_add(e, "prd", prd);
      if (!rc && tk->prof.crd && !(rc = ppt_rdhist_to_json(tk->prof.crd, &h, &err)))
        json_object_object_add(e, "crd", h);
      json_object_array_add(arr, e);
    }
    json_object_object_add(o, "profiles", arr);
    if (!rc)
      rc = ppt_io_write_file(profiles, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), &err);
    if (rc) rc = ppt_cli_fail("sasmm", &err);
    json_object_put(o);
  }
  for (size_t i = 0; i < j.ntasks; i++) {
    ppt_sasmm_profiles_free(&j.tasks[i].prof);
    free(j.tasks[i].per_core);
  }
  free(j.tasks);
  free(counted);
  ppt_trace_close(t);
  pthread_mutex_destroy(&j.lock);
  return rc;
}
