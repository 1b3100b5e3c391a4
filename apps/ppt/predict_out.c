/* predict_out.c — `ppt predict`'s output (predict.h): the table, the JSON and the plots,
 * for one spec or, with --hw A.json,B.json, several side by side. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict.h"

/* part / of as a JSON number; null when of is 0. */
static json_object *share(uint64_t part, uint64_t of) {
  return of ? json_object_new_double((double)part / (double)of) : NULL;
}

static json_object *settings_json(const args *a, const spec_run *r) {
  const ppt_tc_policy *pol = &a->po.policy;
  json_object *set = json_object_new_object();
  json_object_object_add(set, "overlap", json_object_new_string(ppt_tc_overlap_name(pol->overlap)));
  json_object_object_add(set, "overlap_fraction", json_object_new_double(ppt_tc_policy_fraction(pol)));
  json_object_object_add(set, "interleave",
                         json_object_new_string(ppt_interleave_name(a->po.sasmm.interleave)));
  json_object_object_add(set, "seed", json_object_new_int64((int64_t)a->c.seed));
  json_object_object_add(set, "coherence", json_object_new_boolean(a->po.sasmm.coherence));
  json_object_object_add(set, "fork_cycles", json_object_new_double(ppt_predict_result_fork_cycles(r->res)));
  json_object_object_add(set, "compute", json_object_new_string(ppt_tc_compute_name(pol->compute)));
  json_object_object_add(set, "memory", json_object_new_string(ppt_tc_memory_name(pol->memory)));
  char lbuf[32];
  json_object_object_add(set, "loops", json_object_new_string(ppt_tc_loops_name(pol, lbuf, sizeof lbuf)));
  return set;
}

/* Of the references level k served, the share of loads that wait for loads
 * (ppt_tracesim_result.chased); null when it served none. */
static json_object *chased_share(const ppt_tracesim_result *q, uint32_t k) {
  if (!q->served[k]) return NULL;
  return json_object_new_double((double)q->chased[k] / PPT_TRACESIM_CHASE_UNIT / (double)q->served[k]);
}

/* Per level: hit rates, and of the references the level served, the shares the
 * prefetcher model covered, whose first-level miss queued on one set (ppt/missq.h),
 * that came from another core's cache, and that wait for loads (any level). */
static json_object *levels_json(const ppt_hwspec *hw, const ppt_tracesim_result *q) {
  json_object *lv = json_object_new_array();
  for (uint32_t k = 0; k < q->nlevels; k++) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
    json_object_object_add(l, "hit_rate", ppt_cli_json_rate(q->levels[k].ref_hit_rate));
    json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(q->levels[k].ref_local_hit_rate));
    json_object_object_add(l, "chased", chased_share(q, k));
    if (k > 0) {
      json_object_object_add(l, "prefetched", share(q->prefetched[k], q->served[k]));
      json_object_object_add(l, "same_set", share(q->same_set[k], q->served[k]));
      json_object_object_add(l, "transfers", share(q->transfers[k], q->served[k]));
    }
    json_object_array_add(lv, l);
  }
  return lv;
}

static json_object *dram_json(const ppt_tracesim_result *q) {
  uint32_t d = q->nlevels;
  json_object *dr = json_object_new_object();
  json_object_object_add(dr, "served", json_object_new_int64((int64_t)q->served[d]));
  json_object_object_add(dr, "prefetched", share(q->prefetched[d], q->served[d]));
  json_object_object_add(dr, "same_set", share(q->same_set[d], q->served[d]));
  json_object_object_add(dr, "transfers", share(q->transfers[d], q->served[d]));
  json_object_object_add(dr, "chased", chased_share(q, d));
  return dr;
}

/* Data TLB: the share of references missing every TLB level up to this one. */
static json_object *tlb_json(const ppt_tracesim_result *q) {
  json_object *ta = json_object_new_array();
  uint64_t miss = q->counted_refs;
  for (uint32_t j = 0; j < q->ntlb; j++) {
    json_object *l = json_object_new_object();
    miss -= q->tlb_served[j];
    json_object_object_add(l, "name", json_object_new_string(q->tlb_names[j]));
    json_object_object_add(l, "miss_rate", json_object_new_double((double)miss / (double)q->counted_refs));
    /* the last level's misses are the page walks: the share priced as cache hits */
    if (j + 1 == q->ntlb) json_object_object_add(l, "walks_near", share(q->tlb_near, q->tlb_served[q->ntlb]));
    json_object_array_add(ta, l);
  }
  return ta;
}

/* What compute_s is made of: the ops' issue and each kind of CPU item (ppt_tc_cpu). */
static json_object *compute_json(double ops_s, const double cpu_s[PPT_TC_NCPU]) {
  static const char *const names[PPT_TC_NCPU] = {"other_s", "chain_s",     "calls_s",       "branch_miss_s",
                                                 "tlb_s",   "loop_exit_s", "block_cycles_s"};
  json_object *o = json_object_new_object();
  json_object_object_add(o, "ops_s", json_object_new_double(ops_s));
  for (int c = 0; c < PPT_TC_NCPU; c++) json_object_object_add(o, names[c], json_object_new_double(cpu_s[c]));
  return o;
}

/* The sites, largest runtime first (docs/engine.md, "Regions in the output"). */
static json_object *regions_json(const ppt_hwspec *hw, const ppt_predict_result *res, size_t p) {
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < ppt_predict_result_point(res, p)->nsites; i++) {
    const ppt_predict_site *w = ppt_predict_result_site(res, p, i);
    json_object *o = json_object_new_object(), *lv = json_object_new_array();
    char fn[sizeof w->function];
    json_object_object_add(o, "function", json_object_new_string(w->function));
    json_object_object_add(o, "function_short", json_object_new_string(ppt_trace_func_short(w->function, fn, sizeof fn)));
    json_object_object_add(o, "file", json_object_new_string(w->file));
    json_object_object_add(o, "line", json_object_new_int64(w->line));
    json_object_object_add(o, "kind", json_object_new_string(w->parallel ? "parallel" : "serial"));
    json_object_object_add(o, "instances", json_object_new_int64((int64_t)w->instances));
    json_object_object_add(o, "runtime_s", json_object_new_double(w->runtime_s));
    json_object_object_add(o, "compute_s", json_object_new_double(w->compute_s));
    json_object_object_add(o, "compute", compute_json(w->ops_s, w->cpu_s));
    json_object_object_add(o, "memory_s", json_object_new_double(w->memory_s));
    json_object_object_add(o, "imbalance_s", json_object_new_double(w->imbalance_s));
    json_object_object_add(o, "fork_join_s", json_object_new_double(w->fork_join_s));
    json_object_object_add(o, "contention_s", json_object_new_double(w->contention_s));
    for (uint32_t k = 0; k < w->info.nlevels; k++) {
      json_object *l = json_object_new_object();
      json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
      json_object_object_add(l, "hit_rate", ppt_cli_json_rate(w->info.hit_rate[k]));
      json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(w->info.local_hit_rate[k]));
      json_object_object_add(l, "accesses", json_object_new_int64((int64_t)w->info.accesses[k]));
      json_object_object_add(l, "misses", json_object_new_int64((int64_t)w->info.misses[k]));
      json_object_array_add(lv, l);
    }
    json_object_object_add(o, "levels", lv);
    json_object_array_add(arr, o);
  }
  return arr;
}

static json_object *point_json(const ppt_hwspec *hw, const ppt_predict_result *res, size_t p) {
  const ppt_predict_point *pt = ppt_predict_result_point(res, p), *first = ppt_predict_result_point(res, 0);
  json_object *e = json_object_new_object(), *bd = json_object_new_object();
  const ppt_tracesim_result *q = &pt->rates;
  json_object_object_add(e, "n", json_object_new_int((int)pt->n));
  json_object_object_add(e, "runtime_s", json_object_new_double(pt->runtime_s));
  json_object_object_add(e, "speedup", json_object_new_double(first->runtime_s / pt->runtime_s));
  json_object_object_add(e, "nregions", json_object_new_int64((int64_t)pt->nregions));
  json_object_object_add(e, "divided_phases", json_object_new_int64((int64_t)pt->divided_phases));
  json_object_object_add(e, "levels", levels_json(hw, q));
  json_object_object_add(e, "dram", dram_json(q));
  if (q->ntlb && q->counted_refs) json_object_object_add(e, "tlb", tlb_json(q));
  json_object_object_add(bd, "compute_s", json_object_new_double(pt->compute_s));
  json_object_object_add(bd, "compute", compute_json(pt->ops_s, pt->cpu_s));
  json_object_object_add(bd, "memory_s", json_object_new_double(pt->memory_s));
  json_object_object_add(bd, "imbalance_wait_s", json_object_new_double(pt->imbalance_wait_s));
  json_object_object_add(bd, "contention_s", json_object_new_double(pt->contention_s));
  json_object_object_add(e, "breakdown", bd);
  json_object_object_add(e, "regions", regions_json(hw, res, p));
  return e;
}

static json_object *models_json(const args *a, const spec_run *r) {
  json_object *ma = json_object_new_array();
  for (size_t j = 0; j < a->nmodels; j++) {
    json_object *me = json_object_new_object(), *ca = json_object_new_array();
    json_object_object_add(me, "model", json_object_new_string(a->model_names[j]));
    for (size_t i = 0; i < a->c.ncores; i++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "n", json_object_new_int((int)ppt_predict_result_point(r->res, i)->n));
      json_object_object_add(e, "runtime_s",
                             json_object_new_double(ppt_predict_result_model_seconds(r->res, i, j)));
      json_object_array_add(ca, e);
    }
    json_object_object_add(me, "cores", ca);
    json_object_array_add(ma, me);
  }
  return ma;
}

/* One spec's predictions: per core count, and per core model of --models. */
static void add_run(json_object *o, const args *a, const spec_run *r) {
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < a->c.ncores; i++) json_object_array_add(arr, point_json(&r->hw, r->res, i));
  json_object_object_add(o, "cores", arr);
  if (a->nmodels) json_object_object_add(o, "models", models_json(a, r));
}

int ppt_predict_write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *o = ppt_cli_json_head(&a->c, settings_json(a, &r->runs[0]));
  if (r->nruns == 1) {
    add_run(o, a, &r->runs[0]);
  } else { /* several specs: each its own entry, named (settings.fork_cycles is the first's) */
    json_object *specs = json_object_new_array();
    for (size_t s = 0; s < r->nruns; s++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "hw", json_object_new_string(r->runs[s].hw.name));
      json_object_object_add(e, "hwspec", json_object_new_string(r->runs[s].file));
      json_object_object_add(e, "fork_cycles",
                             json_object_new_double(ppt_predict_result_fork_cycles(r->runs[s].res)));
      add_run(e, a, &r->runs[s]);
      json_object_array_add(specs, e);
    }
    json_object_object_add(o, "specs", specs);
    ppt_predict_write_ranking_json(o, a, r);
  }
  ppt_predict_write_notes_json(o, r);
  if (r->sens) ppt_predict_write_sens_json(o, a, r);
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static void write_models_table(const args *a, const spec_run *r) {
  printf("\n%-28s", "core model (runtime)");
  for (size_t i = 0; i < a->c.ncores; i++) {
    char h[32];
    snprintf(h, sizeof h, "%u cores", ppt_predict_result_point(r->res, i)->n);
    printf(" %11s", h);
  }
  printf("\n");
  for (size_t j = 0; j < a->nmodels; j++) {
    printf("%-28s", a->model_names[j]);
    for (size_t i = 0; i < a->c.ncores; i++)
      printf(" %9.4f s", ppt_predict_result_model_seconds(r->res, i, j));
    printf("\n");
  }
}

/* Index of the largest core count. */
static size_t largest(const ppt_predict_result *res) {
  size_t b = 0;
  for (size_t i = 1; i < ppt_predict_result_npoints(res); i++)
    if (ppt_predict_result_point(res, i)->n > ppt_predict_result_point(res, b)->n) b = i;
  return b;
}

/* The top regions (sites) at one core count, by runtime: where (its file's base name and
 * line), then the numbers, then the function's short name (ppt_trace_func_short), whole
 * whatever its length (--json has the full name). */
static void write_regions_table(const ppt_hwspec *hw, const ppt_predict_result *res, size_t p, uint64_t top) {
  const ppt_predict_point *pt = ppt_predict_result_point(res, p);
  uint32_t last = hw->nlevels ? hw->nlevels - 1 : 0;
  if (!top || !pt->nsites) return;
  printf("\ntop regions on %u cores\n%3s %-3s %-28s %12s %7s %7s %7s  %s\n", pt->n, "", "", "source", "runtime",
         "share", hw->levels[0].name, hw->levels[last].name, "function");
  for (size_t i = 0; i < pt->nsites && i < top; i++) {
    const ppt_predict_site *w = ppt_predict_result_site(res, p, i);
    char where[300], fn[sizeof w->function];
    const char *base = strrchr(w->file, '/');
    snprintf(where, sizeof where, "%s:%u", base ? base + 1 : w->file, w->line);
    printf("%2zu. %-3s %-28s %10.4g s %6.2f%% %6.2f%% %6.2f%%  %s\n", i + 1, w->parallel ? "par" : "ser", where,
           w->runtime_s, pt->runtime_s > 0 ? 100 * w->runtime_s / pt->runtime_s : 0.0, 100 * w->info.hit_rate[0],
           100 * w->info.hit_rate[last], ppt_trace_func_short(w->function, fn, sizeof fn));
  }
}

static void write_run(const args *a, const spec_run *r) {
  const ppt_tc_policy *pol = &a->po.policy;
  char lbuf[32];
  const ppt_hwspec *hw = &r->hw;
  const ppt_predict_point *pts[PPT_CLI_MAX_CORES];
  for (size_t i = 0; i < a->c.ncores; i++) pts[i] = ppt_predict_result_point(r->res, i);
  printf(
      "%s on %s (%s overlap %.2f, compute %s, memory %s, loops %s, interleave %s, seed %llu, fork-join %.0f "
      "cycles)\n",
      a->c.operand, hw->name, ppt_tc_overlap_name(pol->overlap), ppt_tc_policy_fraction(pol),
      ppt_tc_compute_name(pol->compute), ppt_tc_memory_name(pol->memory),
      ppt_tc_loops_name(pol, lbuf, sizeof lbuf), ppt_interleave_name(a->po.sasmm.interleave),
      (unsigned long long)a->c.seed, ppt_predict_result_fork_cycles(r->res));
  printf("%6s %12s %8s", "cores", "runtime", "speedup");
  for (uint32_t k = 0; k < hw->nlevels; k++) printf(" %7s", hw->levels[k].name);
  printf(" %10s %10s %10s\n", "compute", "memory", "imbalance");
  for (size_t i = 0; i < a->c.ncores; i++) {
    printf("%6u %10.4f s %7.2fx", pts[i]->n, pts[i]->runtime_s, pts[0]->runtime_s / pts[i]->runtime_s);
    for (uint32_t k = 0; k < hw->nlevels; k++) printf(" %6.2f%%", 100 * pts[i]->rates.levels[k].ref_hit_rate);
    printf(" %8.4f s %8.4f s %8.4f s\n", pts[i]->compute_s, pts[i]->memory_s, pts[i]->imbalance_wait_s);
  }
  printf("(hit rates are global; compute/memory on the critical path; imbalance = barrier wait)\n");
  for (size_t i = 0; i < a->c.ncores; i++)
    if (pts[i]->contention_s > 0)
      printf(
          "(%u cores: %.4f s on the critical path waiting for turns on contended lines, cache lines "
          "that several cores store into)\n",
          pts[i]->n, pts[i]->contention_s);
  for (size_t i = 0; i < a->c.ncores; i++)
    if (pts[i]->divided_phases)
      printf("(%u cores: %llu phases of regions that split their work by thread number were divided "
             "among the cores in contiguous shares, docs/sasmm.md)\n",
             pts[i]->n, (unsigned long long)pts[i]->divided_phases);
  for (size_t i = 0; i < a->c.ncores; i++) write_regions_table(hw, r->res, i, a->top_regions);
  if (a->nmodels) write_models_table(a, r);
}

/* Several specs: one table with a column group per spec (runtime, speedup, and the
 * global hit rate of its last level). */
static void write_comparison(const args *a, const results *r) {
  printf("\n%-10s", "comparison");
  for (size_t s = 0; s < r->nruns; s++) printf(" | %-29.29s", r->runs[s].hw.name);
  printf("\n%10s", "cores");
  for (size_t s = 0; s < r->nruns; s++) {
    const ppt_hwspec *hw = &r->runs[s].hw;
    char llc[24];
    snprintf(llc, sizeof llc, "%.6s%%", hw->levels[hw->nlevels - 1].name);
    printf(" | %11s %8s %8s", "runtime", "speedup", llc);
  }
  printf("\n");
  for (size_t i = 0; i < a->c.ncores; i++) {
    printf("%10u", a->c.cores[i]);
    for (size_t s = 0; s < r->nruns; s++) {
      const ppt_predict_point *p = ppt_predict_result_point(r->runs[s].res, i),
                              *p0 = ppt_predict_result_point(r->runs[s].res, 0);
      uint32_t last = r->runs[s].hw.nlevels - 1;
      printf(" | %9.4g s %7.2fx %7.2f%%", p->runtime_s, p0->runtime_s / p->runtime_s,
             100 * p->rates.levels[last].ref_hit_rate);
    }
    printf("\n");
  }
  printf("(hit rates are global)\n");
}

int ppt_predict_write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  /* several specs: each one's own tables only with --detail, the ranking always */
  for (size_t s = 0; s < r->nruns && (r->nruns == 1 || a->detail); s++) {
    if (s) printf("\n");
    write_run(a, &r->runs[s]);
  }
  if (r->nruns > 1) {
    ppt_predict_write_ranking(a, r);
    /* a column group per spec: readable up to 4 of them (the ranking says the rest) */
    if (r->nruns <= 4 || a->detail) write_comparison(a, r);
  }
  ppt_predict_write_notes(r);
  if (r->sens) ppt_predict_write_sens(a, r);
  return 0;
}

/* Is row w the site `of`? */
static int same_site(const ppt_predict_site *w, const ppt_predict_site *of) {
  return w->line == of->line && w->parallel == of->parallel && !strcmp(w->file, of->file) &&
         !strcmp(w->function, of->function);
}

/* FILE-regions.png's data: per core count (a gnuplot data set), one row per top site of
 * the largest core count (up to 6) and "other", segments compute memory imbalance fork-join. */
static void regions_data(FILE *d, const ppt_predict_result *res) {
  size_t np = ppt_predict_result_npoints(res), itop = largest(res);
  const ppt_predict_point *top = ppt_predict_result_point(res, itop);
  size_t ntop = top->nsites < 6 ? top->nsites : 6;
  for (size_t i = 0; i < np; i++) {
    double seg[7][4] = {{0}};
    for (size_t j = 0; j < ppt_predict_result_point(res, i)->nsites; j++) {
      const ppt_predict_site *w = ppt_predict_result_site(res, i, j);
      size_t t = 0;
      while (t < ntop && !same_site(w, ppt_predict_result_site(res, itop, t))) t++;
      double add[4] = {w->seg_compute, w->seg_memory, w->imbalance_s, w->fork_join_s};
      for (int k = 0; k < 4; k++) seg[t][k] += add[k];
    }
    for (size_t t = 0; t <= ntop; t++) {
      if (t == ntop && top->nsites <= ntop) break; /* no "other" */
      const ppt_predict_site *w = t < ntop ? ppt_predict_result_site(res, itop, t) : NULL;
      const char *base = w ? strrchr(w->file, '/') : NULL;
      char label[300];
      snprintf(label, sizeof label, "%s:%u%s", w ? (base ? base + 1 : w->file) : "other", w ? w->line : 0,
               w && !w->parallel ? " serial" : "");
      for (char *c = label; *c; c++)
        if (*c == '"' || *c == '\'') *c = '_';
      fprintf(d, "\"%s\" %.9g %.9g %.9g %.9g\n", w ? label : "other", seg[t][0], seg[t][1], seg[t][2],
              seg[t][3]);
    }
    fprintf(d, "\n\n");
  }
}

/* FILE-regions.png: stacked bars of the top regions, grouped by core count. */
static int write_regions_plot(const char *path, const char *title, const ppt_predict_result *res,
                              ppt_err *err) {
  size_t np = ppt_predict_result_npoints(res);
  char png[4096], tmp[4200];
  ppt_cli_plot_sibling(path, "regions", png, sizeof png);
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", png, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", png, strerror(errno));
  regions_data(d, res);
  if (ppt_cli_close_data(d, tmp, png, err)) return PPT_ERUN;
  size_t cap = 1024 + np * (2 * sizeof tmp + 256);
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  int n = snprintf(
      sc, cap,
      "set style data histogram\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
      "set boxwidth 0.8\nset ylabel 'seconds'\nset xtics rotate by -45\nset grid y\n"
      "set key outside right\nplot ");
  for (size_t i = 0; i < np; i++)
    n += snprintf(
        sc + n, cap - (size_t)n,
        "%snewhistogram '%u cores' lt 1, '%s' index %zu using 2:xtic(1) %s, '' index %zu using 3 %s, "
        "'' index %zu using 4 %s, '' index %zu using 5 %s",
        i ? ", " : "", ppt_predict_result_point(res, i)->n, tmp, i, i ? "notitle" : "title 'compute'", i,
        i ? "notitle" : "title 'memory'", i, i ? "notitle" : "title 'imbalance'", i,
        i ? "notitle" : "title 'fork-join'");
  snprintf(sc + n, cap - (size_t)n, "\n");
  int rc = ppt_cli_gnuplot(png, tmp, sc, "ppt predict", title, err);
  free(sc);
  return rc;
}

/* --plot with several specs: runtime (and speedup, right axis) against cores, a line
 * per spec; the regions' breakdown is drawn for one spec only. */
static int write_comparison_plot(const args *a, const results *r, ppt_err *err) {
  const char *path = a->c.plot;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", path, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", path, strerror(errno));
  for (size_t s = 0; s < r->nruns; s++) {
    const ppt_predict_result *res = r->runs[s].res;
    for (size_t i = 0; i < a->c.ncores; i++) {
      const ppt_predict_point *p = ppt_predict_result_point(res, i), *p0 = ppt_predict_result_point(res, 0);
      fprintf(d, "%u %.9g %.6g\n", p->n, p->runtime_s, p0->runtime_s / p->runtime_s);
    }
    fprintf(d, "\n\n");
  }
  if (ppt_cli_close_data(d, tmp, path, err)) return PPT_ERUN;
  /* runtimes more than 10x apart on a linear axis flatten all but the slowest line */
  double lo = INFINITY, hi = 0;
  for (size_t s = 0; s < r->nruns; s++)
    for (size_t i = 0; i < a->c.ncores; i++) {
      double t = ppt_predict_result_point(r->runs[s].res, i)->runtime_s;
      lo = t < lo ? t : lo;
      hi = t > hi ? t : hi;
    }
  size_t cap = 1024 + r->nruns * (2 * sizeof tmp + 512), n = 0;
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  n +=
      (size_t)snprintf(sc, cap,
                       "set xlabel 'cores'\nset logscale x 2\nset ylabel 'runtime (s)'\nset y2label 'speedup "
                       "(dashed)'\nset y2tics\nset ytics nomirror\nset grid\n%s%s\nplot ",
                       lo > 0 && hi > 10 * lo ? "set logscale y\nset ylabel 'runtime (s, log scale)'\n" : "",
                       r->nruns > 3 ? "set key outside below" : "set key top center");
  for (size_t s = 0; s < r->nruns; s++) {
    char name[200];
    snprintf(name, sizeof name, "%s", r->runs[s].hw.name);
    for (char *q = name; *q; q++)
      if (*q == '\'') *q = '"';
    n += (size_t)snprintf(
        sc + n, cap - n,
        "%s'%s' index %zu using 1:2 with linespoints lw 2 lc %zu title '%s', '' index %zu using "
        "1:3 axes x1y2 with lines dt 2 lc %zu notitle",
        s ? ", " : "", tmp, s, s + 1, name, s, s + 1);
  }
  snprintf(sc + n, cap - n, "\n");
  int rc = ppt_cli_gnuplot(path, tmp, sc, "ppt predict", a->c.operand, err);
  free(sc);
  return rc;
}

/* --plot: runtime and speedup against cores, and the regions' breakdown, by gnuplot;
 * written atomically. */
int ppt_predict_write_plot(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  const char *path = a->c.plot, *title = a->c.operand;
  const ppt_predict_result *res = r->runs[0].res;
  size_t np = a->c.ncores;
  if (!path) return 0;
  if (r->nruns > 1) return write_comparison_plot(a, r, err);
  char tmp[4096], script[9000];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", path, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", path, strerror(errno));
  for (size_t i = 0; i < np; i++) {
    const ppt_predict_point *p = ppt_predict_result_point(res, i), *p0 = ppt_predict_result_point(res, 0);
    fprintf(d, "%u %.9g %.6g\n", p->n, p->runtime_s, p0->runtime_s / p->runtime_s);
  }
  if (ppt_cli_close_data(d, tmp, path, err)) return PPT_ERUN;
  snprintf(script, sizeof script,
           "set xlabel 'cores'\nset logscale x 2\n"
           "set ylabel 'runtime (s)'\nset y2label 'speedup'\nset y2tics\nset ytics nomirror\nset grid\n"
           "set key top center\n"
           "plot '%s' using 1:2 with linespoints lw 2 title 'runtime', '' using 1:3 axes x1y2 with "
           "linespoints lw 2 "
           "title 'speedup', '' using 1:1 axes x1y2 with lines dt 2 title 'ideal speedup'\n",
           tmp);
  int rc = ppt_cli_gnuplot(path, tmp, script, "ppt predict", title, err);
  return rc ? rc : write_regions_plot(path, title, res, err);
}
