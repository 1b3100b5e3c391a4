/* cache_json.c — hit-rate results as JSON, one shape for simulated counters and modelled
 * rates: {"levels": [{"name", ["accesses", "misses",] "hit_rate", "local_hit_rate"}, ...]}.
 * Rates are fractions; hit_rate is global (docs/design.md, "Global and local hit rates"). */
#include <json-c/json.h>
#include <math.h>

#include "ppt/cachesim.h"
#include "ppt/sdcm.h"

/* A rate, or null when undefined (JSON has no NaN). */
static json_object *rate(double x) {
  return isfinite(x) ? json_object_new_double(x) : NULL;
}

/* Adds key → val; returns -1 if val was wanted but could not be made. A NULL val from
 * rate() is a real null and is added as such. */
static int add(json_object *o, const char *key, json_object *val, int may_be_null) {
  if (!val && !may_be_null) return -1;
  if (json_object_object_add(o, key, val)) {
    json_object_put(val);
    return -1;
  }
  return 0;
}

static json_object *wrap(json_object *arr) {
  json_object *root = json_object_new_object();
  if (!root || add(root, "levels", arr, 0)) {
    json_object_put(root);
    return NULL;
  }
  return root;
}

static json_object *level_obj(const ppt_cache_level_counts *lv, uint64_t refs) {
  json_object *o = json_object_new_object();
  if (!o) return NULL;
  double g = refs ? 1.0 - (double)lv->misses / (double)refs : NAN;
  double l = lv->accesses ? 1.0 - (double)lv->misses / (double)lv->accesses : NAN;
  int rc = add(o, "name", json_object_new_string(lv->name ? lv->name : ""), 0);
  rc |= add(o, "accesses", json_object_new_uint64(lv->accesses), 0);
  rc |= add(o, "misses", json_object_new_uint64(lv->misses), 0);
  rc |= add(o, "hit_rate", rate(g), 1);
  rc |= add(o, "local_hit_rate", rate(l), 1);
  if (rc) {
    json_object_put(o);
    return NULL;
  }
  return o;
}

json_object *ppt_cache_levels_json(const ppt_cache_level_counts *lv, size_t n) {
  json_object *arr = json_object_new_array();
  uint64_t refs = n ? lv[0].accesses : 0; /* every line reference starts at the first level */
  for (size_t k = 0; arr && k < n; k++) {
    json_object *o = level_obj(&lv[k], refs);
    if (!o || json_object_array_add(arr, o)) {
      json_object_put(o);
      json_object_put(arr);
      return NULL;
    }
  }
  return arr ? wrap(arr) : NULL;
}

json_object *ppt_cachesim_json(const ppt_cachesim *sim) {
  uint32_t n = ppt_cachesim_nlevels(sim);
  ppt_cache_level_counts lv[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < n; k++) {
    ppt_cachesim_counts c;
    ppt_cachesim_level_counts(sim, k, &c, NULL);
    lv[k] = (ppt_cache_level_counts){ppt_cachesim_level_name(sim, k), c.accesses, c.misses};
  }
  json_object *root = ppt_cache_levels_json(lv, n);
  json_object *arr;
  if (!root || !json_object_object_get_ex(root, "levels", &arr)) return root;
  for (uint32_t k = 0; k < n; k++) {
    json_object *insts = json_object_new_array();
    for (uint32_t i = 0; insts && i < ppt_cachesim_instances(sim, k); i++) {
      ppt_cachesim_counts c;
      ppt_cachesim_instance_counts(sim, k, i, &c, NULL);
      json_object *o = json_object_new_object();
      int rc = !o || add(o, "accesses", json_object_new_uint64(c.accesses), 0) ||
               add(o, "misses", json_object_new_uint64(c.misses), 0) || json_object_array_add(insts, o);
      if (rc) {
        json_object_put(o);
        json_object_put(insts);
        insts = NULL;
      }
    }
    if (add(json_object_array_get_idx(arr, k), "instances", insts, 0)) {
      json_object_put(root);
      return NULL;
    }
  }
  return root;
}

json_object *ppt_sdcm_rates_json(const char *const *names, const ppt_sdcm_rates *r, size_t n) {
  json_object *arr = json_object_new_array();
  for (size_t k = 0; arr && k < n; k++) {
    json_object *o = json_object_new_object();
    int rc = !o || add(o, "name", json_object_new_string(names && names[k] ? names[k] : ""), 0);
    if (!rc) {
      rc |= add(o, "hit_rate", rate(r[k].hit_rate), 1);
      rc |= add(o, "local_hit_rate", rate(r[k].local_hit_rate), 1);
      if (r[k].clamped) {
        rc |= add(o, "raw_hit_rate", rate(r[k].raw_hit_rate), 1);
        rc |= add(o, "clamped", json_object_new_boolean(1), 0);
      }
    }
    if (rc || json_object_array_add(arr, o)) {
      json_object_put(o);
      json_object_put(arr);
      return NULL;
    }
  }
  return arr ? wrap(arr) : NULL;
}
