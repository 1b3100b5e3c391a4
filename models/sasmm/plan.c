/* plan.c — a trace's plan (ppt/sasmm.h): pass 1's loops and pass 2's steps, recorded
 * once for every core count, and a sampled sweep's sieve made in the same pass 2
 * (sieve.h). */
#include <stdlib.h>
#include <string.h>

#include "sasmm/passes.h"

/* ---- the plan's steps: record them ---- */

static int plan_push(ppt_sasmm_plan *p, step st, ppt_err *err) {
  if (p->nsteps == p->capsteps) {
    size_t nc = p->capsteps ? 2 * p->capsteps : 256;
    step *n = realloc(p->steps, nc * sizeof *n);
    if (!n) return ppt_err_set(err, PPT_ERUN, "out of memory");
    p->steps = n;
    p->capsteps = nc;
  }
  p->steps[p->nsteps++] = st;
  return 0;
}

static int plan_plain(void *arg, uint64_t s, uint64_t e, int parallel, ppt_err *err) {
  ppt_sasmm_plan *p = arg;
  return s >= e || p->dropped
             ? 0
             : plan_push(p, (step){.kind = STEP_PLAIN, .parallel = parallel, .s = s, .e = e}, err);
}

static void plan_fork(void *arg) {
  ppt_sasmm_plan *p = arg;
  ppt_err ignored;
  if (!p->dropped && plan_push(p, (step){.kind = STEP_FORK}, &ignored)) p->dropped = 1;
}

static int plan_loop(void *arg, size_t li, const uint64_t *b, uint64_t nb, const uint64_t *bcount,
                     ppt_err *err) {
  (void)bcount;
  ppt_sasmm_plan *p = arg;
  if (p->dropped) return 0;
  if (p->nbnd + nb > PLAN_MAX_BOUNDS) {
    p->dropped = 1; /* too many iterations to keep: every mimic walks */
    return 0;
  }
  if (p->nbnd + nb > p->capbnd) {
    uint64_t nc = p->capbnd ? 2 * p->capbnd : 4096;
    while (nc < p->nbnd + nb) nc *= 2;
    uint64_t *n = realloc(p->bnd, nc * sizeof *n);
    if (!n) return ppt_err_set(err, PPT_ERUN, "out of memory");
    p->bnd = n;
    p->capbnd = nc;
  }
  if (nb) memcpy(p->bnd + p->nbnd, b, nb * sizeof *b);
  int rc = plan_push(p, (step){.kind = STEP_LOOP, .loop = li, .b0 = p->nbnd, .nb = nb}, err);
  p->nbnd += nb;
  return rc;
}

static const step_ops plan_ops = {plan_plain, plan_fork, plan_loop};

/* Both passes into a new plan; with sv, pass 2 also feeds it (*over: it outgrew its
 * budget). */
static int plan_make(const ppt_trace *t, ppt_sieve *sv, int *over, ppt_sasmm_plan **out, ppt_err *err) {
  ppt_sasmm_plan *p = calloc(1, sizeof *p);
  if (!p) return ppt_err_set(err, PPT_ERUN, "out of memory");
  p->t = t;
  feed f = {0};
  int rc = sasmm_find_markers(t, &p->L, err);
  if (!rc && sv && sasmm_feed_init(&f, t, &p->L, sv)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  if (!rc) rc = sasmm_walk(t, &p->L, &plan_ops, p, sv ? &f : NULL, err);
  if (over) *over = f.over;
  sasmm_feed_free(&f);
  if (rc) {
    ppt_sasmm_plan_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

int ppt_sasmm_plan_new(const ppt_trace *t, ppt_sasmm_plan **out, ppt_err *err) {
  return plan_make(t, NULL, NULL, out, err);
}

int sasmm_plan_sieve(const ppt_trace *t, sasmm_sieve_drop_fn drop, const void *arg, const uint8_t *counted,
                     uint64_t max_bytes, ppt_sasmm_plan **plan, ppt_sieve **sieve, ppt_err *err) {
  *plan = NULL;
  *sieve = NULL;
  ppt_sieve *sv = sasmm_sieve_new(t, drop, arg, counted, max_bytes);
  if (!sv) return ppt_err_set(err, PPT_ERUN, "out of memory");
  int over = 0, rc = plan_make(t, sv, &over, plan, err);
  if (rc || over || !(*plan)->steps || (*plan)->dropped) { /* no use: the sweep streams */
    sasmm_sieve_free(sv);
    return rc;
  }
  *sieve = sv;
  return 0;
}

void ppt_sasmm_plan_free(ppt_sasmm_plan *p) {
  if (!p) return;
  ppt_sasmm_loops_free(&p->L);
  free(p->steps);
  free(p->bnd);
  free(p);
}
