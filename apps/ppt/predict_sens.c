/* predict_sens.c — `ppt predict --sensitivity`'s output: per core count, every timing
 * figure of the spec with the runtime at -PCT % and +PCT % of it and the changes, the
 * largest change first (ppt_predict_sensitivity); in the JSON, "sensitivity". */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>

#include "predict.h"

static json_object *num_or_null(double v) {
  return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* A runtime or a change in a table column; "refused" for a value the spec refuses. */
static void put(const char *fmt, double v, int width) {
  if (isfinite(v))
    printf(fmt, v);
  else
    printf(" %*s", width, "refused");
}

void ppt_predict_write_sens(const args *a, const results *r) {
  const ppt_predict_sens *s = r->sens;
  double pct = ppt_predict_sens_pct(s);
  for (size_t i = 0; i < a->c.ncores; i++) {
    const ppt_predict_point *pt = ppt_predict_result_point(r->runs[0].res, i);
    printf("\nsensitivity on %u cores: each figure of %s by -%g %% and +%g %%, one at a time (runtime %.4g s), "
           "largest change first\n%-36s %12s %12s %12s %9s %9s\n",
           pt->n, r->runs[0].hw.name, pct, pct, pt->runtime_s, "figure", "value", "runtime -", "runtime +",
           "change -", "change +");
    for (size_t j = 0; j < ppt_predict_sens_nrows(s); j++) {
      const ppt_predict_sens_row *w = ppt_predict_sens_get(s, i, j);
      printf("%-36s %12.6g", w->key, w->value);
      put(" %10.4g s", w->minus_s, 12);
      put(" %10.4g s", w->plus_s, 12);
      put(" %+8.2f%%", 100 * w->minus_change, 9);
      put(" %+8.2f%%", 100 * w->plus_change, 9);
      printf("%s\n", w->rebuilt ? "  *" : "");
    }
  }
  for (size_t j = 0; j < ppt_predict_sens_nrows(s); j++) {
    const ppt_predict_sens_row *w = ppt_predict_sens_get(s, 0, j);
    if (w->why[0]) printf("(%s refused: %s)\n", w->key, w->why);
  }
  printf("(change: runtime over the spec's - 1; *: a figure the cache simulation or the program model's "
         "build reads, simulated again (%zu builds); the others reuse each core count's simulation)\n",
         ppt_predict_sens_rebuilds(s));
}

void ppt_predict_write_sens_json(json_object *o, const args *a, const results *r) {
  const ppt_predict_sens *s = r->sens;
  json_object *sj = json_object_new_object(), *per = json_object_new_array();
  json_object_object_add(sj, "pct", json_object_new_double(ppt_predict_sens_pct(s)));
  json_object_object_add(sj, "rebuilds", json_object_new_int64((int64_t)ppt_predict_sens_rebuilds(s)));
  for (size_t i = 0; i < a->c.ncores; i++) {
    const ppt_predict_point *pt = ppt_predict_result_point(r->runs[0].res, i);
    json_object *e = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(e, "n", json_object_new_int((int)pt->n));
    json_object_object_add(e, "runtime_s", json_object_new_double(pt->runtime_s));
    for (size_t j = 0; j < ppt_predict_sens_nrows(s); j++) {
      const ppt_predict_sens_row *w = ppt_predict_sens_get(s, i, j);
      json_object *x = json_object_new_object();
      json_object_object_add(x, "figure", json_object_new_string(w->key));
      json_object_object_add(x, "value", json_object_new_double(w->value));
      json_object_object_add(x, "minus_s", num_or_null(w->minus_s));
      json_object_object_add(x, "plus_s", num_or_null(w->plus_s));
      json_object_object_add(x, "minus_change", num_or_null(w->minus_change));
      json_object_object_add(x, "plus_change", num_or_null(w->plus_change));
      json_object_object_add(x, "change", json_object_new_double(w->change));
      json_object_object_add(x, "rebuilt", json_object_new_boolean(w->rebuilt));
      if (w->why[0]) json_object_object_add(x, "refused", json_object_new_string(w->why));
      json_object_array_add(rows, x);
    }
    json_object_object_add(e, "figures", rows);
    json_object_array_add(per, e);
  }
  json_object_object_add(sj, "cores", per);
  json_object_object_add(o, "sensitivity", sj);
}
