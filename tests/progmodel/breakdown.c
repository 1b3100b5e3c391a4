/* breakdown.c — see breakdown.h. */
#include "breakdown.h"

#include <check.h>
#include <json-c/json.h>

static double num(json_object *o, const char *key) {
  json_object *v;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
  return json_object_get_double(v);
}

void breakdown_compute(const char *path, double *ops_s, double *chain_s) {
  json_object *root = json_object_from_file(path), *cores, *bd, *cp;
  ck_assert_msg(root != NULL, "cannot read %s", path);
  ck_assert(json_object_object_get_ex(root, "cores", &cores));
  ck_assert(json_object_object_get_ex(json_object_array_get_idx(cores, 0), "breakdown", &bd));
  ck_assert(json_object_object_get_ex(bd, "compute", &cp));
  *ops_s = num(cp, "ops_s");
  *chain_s = num(cp, "chain_s");
  json_object_put(root);
}

double breakdown_compute_key(const char *path, const char *key) {
  json_object *root = json_object_from_file(path), *cores, *bd, *cp;
  ck_assert_msg(root != NULL, "cannot read %s", path);
  ck_assert(json_object_object_get_ex(root, "cores", &cores));
  ck_assert(json_object_object_get_ex(json_object_array_get_idx(cores, 0), "breakdown", &bd));
  ck_assert(json_object_object_get_ex(bd, "compute", &cp));
  double v = num(cp, key);
  json_object_put(root);
  return v;
}
