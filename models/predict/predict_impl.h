/* models/predict/predict_impl.h — the result of a prediction (ppt/predict.h) as
 * predict.c fills it and result.c reads it. Internal to models/predict. */
#ifndef PPT_PREDICT_IMPL_H
#define PPT_PREDICT_IMPL_H

#include "ppt/engine.h"
#include "ppt/predict.h"

typedef struct pred_point {
  ppt_predict_point pub;
  ppt_predict_site *sites; /* pub.nsites, sorted by runtime_s, largest first */
} pred_point;

struct ppt_predict_result {
  double fork_cycles; /* of a region on more than one thread */
  pred_point *pts;
  size_t npts, nmodels;
  double *mrt; /* runtime of model j at core count i at mrt[j * npts + i] */
};

/* pt's breakdown from the engine's run r of m's program on n cores: the critical path
 * of every region and, when `sites` (m's phases are the program's regions one for one),
 * the same per site. fj_s: the fork-join cost the engine charges in a region that forks
 * (engine/sim.c). */
int pred_breakdown(const ppt_node_result *r, const ppt_progmodel *m, uint32_t n, double fj_s, int sites,
                   pred_point *pt, ppt_err *err);

/* ppt_predict_run, calling each(m, so, i, arg, err) on core count i's program model m
 * (built with the sasmm options so, its tasklists on o->policy) after its point is
 * predicted and before m is freed: what more predictions on one simulation start from
 * (sens.c). A non-zero return stops the run with that error. */
typedef int (*pred_each)(ppt_progmodel *m, const ppt_sasmm_opts *so, size_t i, void *arg, ppt_err *err);
int pred_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_predict_opts *o, pred_each each, void *arg,
             ppt_predict_result **res, ppt_err *err);

#endif
