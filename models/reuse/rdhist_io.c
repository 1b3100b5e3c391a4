/* rdhist_io.c — reuse histograms in PPT's text format ("sd count p(sd)", -1 = first
 * touch) and as JSON through json-c. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/io.h"
#include "rdhist_impl.h"

int ppt_rdhist_write_text(const ppt_rdhist *h, FILE *f, ppt_err *err) {
  uint64_t *k;
  double *v;
  long n = rdh_bins(h, &k, &v);
  if (n < 0) return ppt_err_set(err, PPT_ERUN, "reuse histogram: out of memory");
  double t = h->total != 0 ? h->total : 1;
  /* %.17g keeps doubles exact (integers print without a fraction). */
  for (long i = 0; i < n; i++)
    fprintf(f, "%llu %.17g %.17g\n", (unsigned long long)k[i], v[i], v[i] / t);
  if (h->inf != 0) fprintf(f, "-1 %.17g %.17g\n", h->inf, h->inf / t);
  free(k);
  free(v);
  if (ferror(f)) return ppt_err_set(err, PPT_ERUN, "reuse histogram: write failed");
  return 0;
}

int ppt_rdhist_read_text(FILE *f, const char *name, unsigned line, ppt_rdhist **out,
                         ppt_err *err) {
  ppt_rdhist *h = ppt_rdhist_new(line);
  if (!h) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", name);
  char buf[256];
  unsigned long lineno = 0;
  while (fgets(buf, sizeof buf, f)) {
    lineno++;
    char *p = buf;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') continue;
    char *e;
    errno = 0;
    long long d = strtoll(p, &e, 10);
    if (e == p || errno || (d < 0 && d != -1)) goto bad;
    p = e;
    double c = strtod(p, &e);
    if (e == p || !isfinite(c) || c < 0) goto bad;
    p = e;
    (void)strtod(p, &e); /* optional p(sd), recomputed from the counts */
    p = e;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p != '\0') goto bad;
    if (ppt_rdhist_add(h, (int64_t)d, c) != 0) {
      ppt_rdhist_free(h);
      return ppt_err_set(err, PPT_ERUN, "%s: out of memory", name);
    }
  }
  if (ferror(f)) {
    ppt_rdhist_free(h);
    return ppt_err_set(err, PPT_EINPUT, "%s: read error", name);
  }
  *out = h;
  return 0;
bad:
  ppt_rdhist_free(h);
  return ppt_err_set(err, PPT_EINPUT, "%s:%lu: expected \"distance count [p]\"", name, lineno);
}

/* Integral counts are written as JSON integers so exact histograms read back exactly. */
static json_object *json_count(double c) {
  if (c == floor(c) && fabs(c) < 9007199254740992.0) return json_object_new_int64((int64_t)c);
  return json_object_new_double(c);
}

int ppt_rdhist_to_json(const ppt_rdhist *h, struct json_object **out, ppt_err *err) {
  uint64_t *k;
  double *v;
  long n = rdh_bins(h, &k, &v);
  if (n < 0) return ppt_err_set(err, PPT_ERUN, "reuse histogram: out of memory");
  json_object *o = json_object_new_object(), *arr = json_object_new_array_ext((int)n);
  int bad = !o || !arr;
  for (long i = 0; !bad && i < n; i++) {
    json_object *pair = json_object_new_array_ext(2);
    bad = !pair || json_object_array_add(pair, json_object_new_int64((int64_t)k[i])) ||
          json_object_array_add(pair, json_count(v[i])) || json_object_array_add(arr, pair);
  }
  free(k);
  free(v);
  if (!bad)
    bad = json_object_object_add(o, "line", json_object_new_int64(h->line)) ||
          json_object_object_add(o, "refs", json_count(h->total)) ||
          json_object_object_add(o, "infinite", json_count(h->inf)) ||
          json_object_object_add(o, "histogram", arr);
  if (bad) {
    json_object_put(arr);
    json_object_put(o);
    return ppt_err_set(err, PPT_ERUN, "reuse histogram: out of memory");
  }
  *out = o;
  return 0;
}

static int json_num(json_object *j, double *v) {
  if (!j || !(json_object_is_type(j, json_type_int) || json_object_is_type(j, json_type_double)))
    return -1;
  *v = json_object_get_double(j);
  return isfinite(*v) ? 0 : -1;
}

int ppt_rdhist_from_json(struct json_object *j, const char *name, ppt_rdhist **out,
                         ppt_err *err) {
  json_object *jl, *jr, *ji, *jh;
  double line, refs, inf;
  if (!json_object_is_type(j, json_type_object) || !json_object_object_get_ex(j, "line", &jl) ||
      !json_object_object_get_ex(j, "refs", &jr) ||
      !json_object_object_get_ex(j, "infinite", &ji) ||
      !json_object_object_get_ex(j, "histogram", &jh) ||
      !json_object_is_type(jh, json_type_array) || json_num(jl, &line) || json_num(jr, &refs) ||
      json_num(ji, &inf))
    return ppt_err_set(err, PPT_EINPUT,
                       "%s: expected {\"line\",\"refs\",\"infinite\",\"histogram\"}", name);
  if (line < 1 || line > (1u << 30) || line != floor(line) || inf < 0)
    return ppt_err_set(err, PPT_EINPUT, "%s: bad line size or infinite count", name);
  ppt_rdhist *h = ppt_rdhist_new((unsigned)line);
  if (!h) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", name);
  size_t n = json_object_array_length(jh);
  for (size_t i = 0; i < n; i++) {
    json_object *pair = json_object_array_get_idx(jh, i);
    double d, c;
    if (!json_object_is_type(pair, json_type_array) || json_object_array_length(pair) != 2 ||
        json_num(json_object_array_get_idx(pair, 0), &d) ||
        json_num(json_object_array_get_idx(pair, 1), &c) || d < 0 || d != floor(d) ||
        d > 9.2e18 || c < 0) {
      ppt_rdhist_free(h);
      return ppt_err_set(err, PPT_EINPUT, "%s: histogram[%zu]: expected [distance, count]",
                         name, i);
    }
    if (ppt_rdhist_add(h, (int64_t)d, c) != 0) {
      ppt_rdhist_free(h);
      return ppt_err_set(err, PPT_ERUN, "%s: out of memory", name);
    }
  }
  if (inf > 0) ppt_rdhist_add(h, PPT_RD_INF, inf);
  /* refs is redundant; a mismatch means the file was edited or truncated. */
  if (fabs(h->total - refs) > 1e-9 * (refs > 1 ? refs : 1)) {
    double t = h->total;
    ppt_rdhist_free(h);
    return ppt_err_set(err, PPT_EINPUT, "%s: refs %.17g != sum of counts %.17g", name, refs, t);
  }
  *out = h;
  return 0;
}

int ppt_rdhist_save(const ppt_rdhist *h, const char *path, int json, ppt_err *err) {
  ppt_io_atomic *a;
  int rc = ppt_io_atomic_open(path, &a, err);
  if (rc) return rc;
  FILE *f = ppt_io_atomic_stream(a);
  if (json) {
    json_object *o;
    rc = ppt_rdhist_to_json(h, &o, err);
    if (!rc) {
      fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
      fputc('\n', f);
      json_object_put(o);
    }
  } else {
    rc = ppt_rdhist_write_text(h, f, err);
  }
  if (rc) {
    ppt_io_atomic_abort(a);
    return rc;
  }
  return ppt_io_atomic_commit(a, err);
}
