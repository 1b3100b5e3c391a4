/* rdscale_accuracy — Wu & Yeung's profile accuracy (Eq. 1) of CRD and PRD profiles
 * predicted by ppt_rdscale_predict from two mimicked core counts, against directly
 * mimicked ones (docs/sasmm.md, "Many cores from few"). Not a test: the measurement.
 *
 *   rdscale_accuracy FEW.json MANY.json [A B]
 *
 * FEW.json and MANY.json are `ppt sasmm --model sdcm -o` profile files (rr interleaving);
 * FEW holds the A- and B-core profiles (default 2 and 4), MANY the counts to compare.
 * One line per count of MANY above B: accuracies in the paper's bins and per distance. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/rdscale.h"
#include "ppt/reuse.h"

typedef struct prof {
  uint32_t n;
  ppt_rdhist *crd, *prd; /* prd: the cores' PRDs summed */
} prof;

static int load(const char *path, prof *out, size_t max, size_t *n) {
  json_object *o = json_object_from_file(path), *arr;
  if (!o || !json_object_object_get_ex(o, "profiles", &arr)) {
    fprintf(stderr, "%s: not a profiles file\n", path);
    return -1;
  }
  ppt_err err = {0};
  *n = 0;
  for (size_t i = 0; i < json_object_array_length(arr) && *n < max; i++) {
    json_object *e = json_object_array_get_idx(arr, i), *v, *prd;
    if (!json_object_object_get_ex(e, "interleave", &v) || strcmp(json_object_get_string(v), "rr")) continue;
    prof *p = &out[(*n)++];
    json_object_object_get_ex(e, "n", &v);
    p->n = (uint32_t)json_object_get_int(v);
    json_object_object_get_ex(e, "crd", &v);
    if (ppt_rdhist_from_json(v, path, &p->crd, &err)) return -1;
    json_object_object_get_ex(e, "prd", &prd);
    p->prd = ppt_rdhist_new(ppt_rdhist_line(p->crd));
    for (size_t c = 0; c < json_object_array_length(prd); c++) {
      ppt_rdhist *h;
      if (ppt_rdhist_from_json(json_object_array_get_idx(prd, c), path, &h, &err)) return -1;
      ppt_rdhist_merge(p->prd, h, 1.0);
      ppt_rdhist_free(h);
    }
  }
  json_object_put(o);
  return 0;
}

static const prof *find(const prof *p, size_t n, uint32_t cores) {
  for (size_t i = 0; i < n; i++)
    if (p[i].n == cores) return &p[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 5) {
    fprintf(stderr, "usage: rdscale_accuracy FEW.json MANY.json [A B]\n");
    return 2;
  }
  uint32_t na = argc == 5 ? (uint32_t)atoi(argv[3]) : 2, nb = argc == 5 ? (uint32_t)atoi(argv[4]) : 4;
  prof few[64] = {0}, many[64] = {0};
  size_t nf, nm;
  if (load(argv[1], few, 64, &nf) || load(argv[2], many, 64, &nm)) return 1;
  const prof *a = find(few, nf, na), *b = find(few, nf, nb);
  if (!a || !b) {
    fprintf(stderr, "%s: no rr profiles at %u and %u cores\n", argv[1], na, nb);
    return 1;
  }
  ppt_rdscale_opts o;
  ppt_rdscale_opts_default(&o);
  printf("{\"from\": [%u, %u], \"k_crd\": %.3f, \"k_prd\": %.3f, \"targets\": [", na, nb,
         ppt_rdscale_mean_rate(a->crd, na, b->crd, nb, PPT_RDSCALE_CRD, &o),
         ppt_rdscale_mean_rate(a->prd, na, b->prd, nb, PPT_RDSCALE_PRD, &o));
  int first = 1;
  for (size_t i = 0; i < nm; i++) {
    if (many[i].n <= nb) continue;
    ppt_rdhist *pc, *pp;
    ppt_err err = {0};
    if (ppt_rdscale_predict(a->crd, na, b->crd, nb, many[i].n, PPT_RDSCALE_CRD, &o, &pc, &err) ||
        ppt_rdscale_predict(a->prd, na, b->prd, nb, many[i].n, PPT_RDSCALE_PRD, &o, &pp, &err)) {
      fprintf(stderr, "predict: %s\n", err.msg);
      return 1;
    }
    /* the baseline: the B-core profile taken as the prediction (no scaling at all) */
    printf(
        "%s\n {\"n\": %u, \"crd\": %.4f, \"crd_exact\": %.4f, \"prd\": %.4f, \"prd_exact\": %.4f, "
        "\"crd_unscaled\": %.4f, \"prd_unscaled\": %.4f}",
        first ? "" : ",", many[i].n, ppt_rdscale_accuracy(pc, many[i].crd, PPT_RDSCALE_BINS_PAPER),
        ppt_rdscale_accuracy(pc, many[i].crd, PPT_RDSCALE_BINS_EXACT),
        ppt_rdscale_accuracy(pp, many[i].prd, PPT_RDSCALE_BINS_PAPER),
        ppt_rdscale_accuracy(pp, many[i].prd, PPT_RDSCALE_BINS_EXACT),
        ppt_rdscale_accuracy(b->crd, many[i].crd, PPT_RDSCALE_BINS_PAPER),
        ppt_rdscale_accuracy(b->prd, many[i].prd, PPT_RDSCALE_BINS_PAPER));
    first = 0;
    ppt_rdhist_free(pc);
    ppt_rdhist_free(pp);
  }
  printf("]}\n");
  for (size_t i = 0; i < nf; i++) ppt_rdhist_free(few[i].crd), ppt_rdhist_free(few[i].prd);
  for (size_t i = 0; i < nm; i++) ppt_rdhist_free(many[i].crd), ppt_rdhist_free(many[i].prd);
  return 0;
}
