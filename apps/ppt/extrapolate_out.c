/* extrapolate_out.c — `ppt extrapolate`'s output (extrapolate.h) from ppt_extrap_run's
 * result: the table, the JSON (docs/extrapolate.md) and --plot's panels of hit rate
 * against the size. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extrapolate.h"
#include "ppt/extrapolate.h"
#include "ppt/io.h"

static json_object *level_json(const results *r, const ppt_extrap_job_point *pt, uint32_t k) {
  json_object *l = json_object_new_object();
  double reach = k ? pt->refs * (1.0 - pt->pred[k - 1].hit_rate) : pt->refs;
  json_object_object_add(l, "name", json_object_new_string(r->hw.levels[k].name));
  json_object_object_add(l, "shared", json_object_new_boolean(r->hw.levels[k].shared_by > 1));
  json_object_object_add(l, "hit_rate", ppt_cli_json_rate(pt->pred[k].hit_rate));
  json_object_object_add(l, "hit_rate_lo", ppt_cli_json_rate(pt->lo[k]));
  json_object_object_add(l, "hit_rate_hi", ppt_cli_json_rate(pt->hi[k]));
  json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(pt->pred[k].local_hit_rate));
  json_object_object_add(l, "sets_hit_rate", ppt_cli_json_rate(pt->sets[k]));
  json_object_object_add(l, "accesses", json_object_new_double(reach));
  json_object_object_add(l, "misses", json_object_new_double(pt->refs * (1.0 - pt->pred[k].hit_rate)));
  return l;
}

static json_object *size_json(const size_arg *s) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "param", json_object_new_string(s->param));
  json_object_object_add(o, "value", json_object_new_double(s->value));
  return o;
}

/* The traces, by size, with their measured hit rates per core count. */
static json_object *traces_json(const args *a, const results *r) {
  json_object *arr = json_object_new_array();
  for (size_t j = 0; j < a->ntr; j++) {
    size_t i = r->x->order[j];
    json_object *o = size_json(&a->tr[i]), *mc = json_object_new_array();
    json_object_object_add(o, "path", json_object_new_string(a->tr[i].path));
    json_object_object_add(o, "refs", json_object_new_double(r->x->refs[i]));
    json_object_object_add(o, "unmatched_refs_share", json_object_new_double(r->x->unmatched[i]));
    for (size_t c = 0; c < a->c.ncores; c++) {
      json_object *e = json_object_new_object(), *lv = json_object_new_array();
      json_object_object_add(e, "n", json_object_new_int((int)r->x->points[c].n));
      for (uint32_t k = 0; k < r->hw.nlevels; k++) {
        json_object *l = json_object_new_object();
        json_object_object_add(l, "name", json_object_new_string(r->hw.levels[k].name));
        json_object_object_add(l, "hit_rate", ppt_cli_json_rate(r->x->points[c].measured[i][k].hit_rate));
        json_object_array_add(lv, l);
      }
      json_object_object_add(e, "levels", lv);
      json_object_array_add(mc, e);
    }
    json_object_object_add(o, "measured", mc);
    json_object_array_add(arr, o);
  }
  return arr;
}

/* The largest share of a trace's counted references that no other binary's block matched. */
static double most_unmatched(const args *a, const results *r) {
  double most = 0;
  for (size_t i = 0; i < a->ntr; i++) most = fmax(most, r->x->unmatched[i]);
  return most;
}

static json_object *model_json(const args *a, const results *r) {
  json_object *m = json_object_new_object(), *loo = json_object_new_array(), *deg = json_object_new_object();
  json_object_object_add(m, "blocks", json_object_new_int64(r->x->blocks));
  json_object_object_add(m, "matched_by_key", json_object_new_boolean(r->x->matched_by_key));
  json_object_object_add(m, "unmatched_refs_share", json_object_new_double(most_unmatched(a, r)));
  json_object_object_add(m, "checked", json_object_new_boolean(r->x->checked));
  json_object_object_add(m, "irregular_refs_share", json_object_new_double(r->x->irregular));
  json_object_object_add(m, "threshold_points", json_object_new_double(PPT_EXTRAP_CHECK_POINTS));
  for (size_t c = 0; c < a->c.ncores && r->x->checked; c++)
    for (uint32_t k = 0; k < r->hw.nlevels; k++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "n", json_object_new_int((int)r->x->points[c].n));
      json_object_object_add(e, "level", json_object_new_string(r->hw.levels[k].name));
      json_object_object_add(e, "error_points", json_object_new_double(r->x->points[c].check_err[k]));
      json_object_array_add(loo, e);
    }
  json_object_object_add(m, "loo", loo);
  for (int d = 0; d < PPT_EXTRAP_NFORMS; d++) {
    char key[8];
    snprintf(key, sizeof key, d == PPT_EXTRAP_POWER ? "power" : "%d", d);
    json_object_object_add(deg, key, json_object_new_int64((int64_t)r->x->degrees[d]));
  }
  json_object_object_add(m, "degrees", deg);
  json_object_object_add(m, "draws", json_object_new_int(PPT_EXTRAP_DRAWS));
  return m;
}

static json_object *results_json(const args *a, const results *r) {
  json_object *o = json_object_new_object(), *cores = json_object_new_array();
  json_object_object_add(o, "target", size_json(&a->target));
  json_object_object_add(o, "hwspec", json_object_new_string(a->c.hw));
  json_object_object_add(o, "seed", json_object_new_int64((int64_t)a->c.seed));
  json_object_object_add(o, "only", a->c.only_list ? json_object_new_string(a->c.only_list) : NULL);
  json_object_object_add(o, "traces", traces_json(a, r));
  for (size_t c = 0; c < a->c.ncores; c++) {
    const ppt_extrap_job_point *pt = &r->x->points[c];
    json_object *e = json_object_new_object(), *lv = json_object_new_array();
    json_object_object_add(e, "n", json_object_new_int((int)pt->n));
    for (uint32_t k = 0; k < r->hw.nlevels; k++) json_object_array_add(lv, level_json(r, pt, k));
    json_object_object_add(e, "levels", lv);
    json_object_object_add(e, "refs", json_object_new_double(pt->refs));
    json_object_object_add(e, "runtime_s", ppt_cli_json_rate(pt->runtime_s));
    json_object_object_add(e, "runtime_s_lo", ppt_cli_json_rate(pt->runtime_s_lo));
    json_object_object_add(e, "runtime_s_hi", ppt_cli_json_rate(pt->runtime_s_hi));
    json_object_array_add(cores, e);
  }
  json_object_object_add(o, "cores", cores);
  json_object_object_add(o, "model", model_json(a, r));
  return o;
}

int ppt_extrapolate_write_json(void *va, void *vr, ppt_err *err) {
  return ppt_cli_put_json(results_json(va, vr), JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
                          err);
}

/* --plot's data: per core count c, block 2c the traced sizes ("size h1 h2 ..."), block
 * 2c + 1 the target ("size p1 lo1 hi1 p2 lo2 hi2 ..."), rates in percent. */
static int plot_data(const args *a, const results *r, const char *tmp, ppt_err *err) {
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", a->c.plot, strerror(errno));
  for (size_t c = 0; c < a->c.ncores; c++) {
    const ppt_extrap_job_point *pt = &r->x->points[c];
    for (size_t j = 0; j < a->ntr; j++) {
      fprintf(d, "%.9g", a->tr[r->x->order[j]].value);
      for (uint32_t k = 0; k < r->hw.nlevels; k++)
        fprintf(d, " %.6f", 100 * pt->measured[r->x->order[j]][k].hit_rate);
      fprintf(d, "\n");
    }
    fprintf(d, "\n\n%.9g", a->target.value);
    for (uint32_t k = 0; k < r->hw.nlevels; k++)
      fprintf(d, " %.6f %.6f %.6f", 100 * pt->pred[k].hit_rate, 100 * pt->lo[k], 100 * pt->hi[k]);
    fprintf(d, "\n\n\n");
  }
  return ppt_cli_close_data(d, tmp, a->c.plot, err) ? PPT_ERUN : 0;
}

/* --plot: a panel per level, hit rate against the size (log scale), a colour per core
 * count: the measured traced sizes joined by a line, the target's prediction with its
 * band as an error bar. */
static int write_plot(const args *a, const results *r, ppt_err *err) {
  char tmp[4096], title[512];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", a->c.plot, (long)getpid());
  int rc = plot_data(a, r, tmp, err);
  if (rc) return rc;
  size_t cap = 2048 + (size_t)r->hw.nlevels * (512 + a->c.ncores * (2 * sizeof tmp + 256)), n = 0;
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  snprintf(title, sizeof title, "%s=%g from %zu sizes (%s); bar: band", a->target.param, a->target.value,
           a->ntr, r->hw.name);
  n += (size_t)snprintf(
      sc, cap,
      "set multiplot layout 1,%u title 'ppt extrapolate: %s'\nunset title\nset logscale x\n"
      "set xlabel '%s'\nset ylabel 'hit rate (%%)'\nset grid\nset key below horizontal font ',8'\n"
      "set offsets graph 0.08, graph 0.12, graph 0.08, graph 0.08\n",
      r->hw.nlevels, title, a->target.param);
  for (uint32_t k = 0; k < r->hw.nlevels; k++) {
    n += (size_t)snprintf(sc + n, cap - n, "set title '%s%s'\nplot ", r->hw.levels[k].name,
                          r->hw.levels[k].shared_by > 1 ? " (shared)" : "");
    for (size_t c = 0; c < a->c.ncores; c++)
      n += (size_t)snprintf(sc + n, cap - n,
                            "%s'%s' index %zu using 1:%u with linespoints pt 7 lc %zu title '%u cores', "
                            "'' index %zu using 1:%u:%u:%u with yerrorbars pt 5 ps 1.5 lc %zu notitle",
                            c ? ", " : "", tmp, 2 * c, k + 2, c + 1, r->x->points[c].n, 2 * c + 1, 3 * k + 2,
                            3 * k + 3, 3 * k + 4, c + 1);
    n += (size_t)snprintf(sc + n, cap - n, "\n");
  }
  snprintf(sc + n, cap - n, "unset multiplot\n");
  rc = ppt_cli_gnuplot(a->c.plot, tmp, sc, "ppt extrapolate", title, err);
  free(sc);
  return rc;
}

int ppt_extrapolate_write_files(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  int rc = 0;
  if (a->c.output) {
    json_object *o = results_json(a, vr);
    rc = ppt_io_write_file(a->c.output, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), err);
    json_object_put(o);
  }
  if (!rc && a->c.plot) rc = write_plot(a, vr, err);
  return rc;
}

int ppt_extrapolate_write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  printf("# %s=%g from", a->target.param, a->target.value);
  for (size_t j = 0; j < a->ntr; j++)
    printf(" %s=%g (%s)", a->tr[r->x->order[j]].param, a->tr[r->x->order[j]].value,
           a->tr[r->x->order[j]].path);
  printf(" on %s; seed %llu, %d draws%s%s\n", r->hw.name, (unsigned long long)a->c.seed, PPT_EXTRAP_DRAWS,
         a->c.only_list ? ", only " : "", a->c.only_list ? a->c.only_list : "");
  printf("%-6s %-6s %9s %19s %9s", "cores", "level", "predicted", "band", "w/ sets");
  for (size_t j = 0; j < a->ntr; j++) {
    char h[80];
    snprintf(h, sizeof h, "%s=%g", a->tr[r->x->order[j]].param, a->tr[r->x->order[j]].value);
    printf(" %9s", h);
  }
  printf(r->x->checked ? " %9s\n" : "\n", "check");
  for (size_t c = 0; c < a->c.ncores; c++)
    for (uint32_t k = 0; k < r->hw.nlevels; k++) {
      const ppt_extrap_job_point *pt = &r->x->points[c];
      printf("%-6u %-6s %8.2f%% [%7.2f%%, %7.2f%%] %8.2f%%", pt->n, r->hw.levels[k].name,
             100 * pt->pred[k].hit_rate, 100 * pt->lo[k], 100 * pt->hi[k], 100 * pt->sets[k]);
      for (size_t j = 0; j < a->ntr; j++) printf(" %8.2f%%", 100 * pt->measured[r->x->order[j]][k].hit_rate);
      if (r->x->checked) printf(" %+8.2fpt", pt->check_err[k]);
      printf("\n");
    }
  for (size_t c = 0; c < a->c.ncores && r->x->timed; c++)
    printf("%-6u %-6s %8.4gs [%7.4gs, %7.4gs]\n", r->x->points[c].n, "time", r->x->points[c].runtime_s,
           r->x->points[c].runtime_s_lo, r->x->points[c].runtime_s_hi);
  if (r->x->checked)
    printf(
        "# checked: the largest trace predicted from the others within %.0f points at every level "
        "(column check); %u blocks, fits of degree 0/1/2/power: %llu/%llu/%llu/%llu\n",
        PPT_EXTRAP_CHECK_POINTS, r->x->blocks, (unsigned long long)r->x->degrees[0],
        (unsigned long long)r->x->degrees[1], (unsigned long long)r->x->degrees[2],
        (unsigned long long)r->x->degrees[PPT_EXTRAP_POWER]);
  else
    printf("# NOT checked: with 2 traces no traced size is left to test the model on; trace a third size\n");
  if (r->x->matched_by_key)
    printf(
        "# different binaries: blocks matched by function, file and line; at most %.3f %% of a trace's "
        "references in blocks left out (unmatched)\n",
        100 * most_unmatched(a, r));
  return 0;
}
