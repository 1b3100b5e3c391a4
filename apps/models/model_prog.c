/* model_prog.c — the tasklists of one model prediction, run on the SimGrid node.
 *
 * A model builds its regions here (fork-join, one tasklist per thread) and gets back what
 * the reports need: the runtime from the engine, the critical-path breakdown, and hit
 * rates over all references, which the core model gives per tasklist
 * (ppt_time_compute's per-level served accesses) and which are summed here over every
 * thread of every region. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef struct region {
  size_t nthreads;
  const ppt_tasklist **tls;
  char *label;
} region;

struct mdl_prog {
  ppt_tasklist **owned;
  size_t nowned, capowned;
  region *regions;
  size_t nregions, capregions;
  ppt_program *prog;
};

mdl_prog *mdl_prog_create(void) {
  mdl_prog *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->prog = ppt_program_new();
  if (!p->prog) {
    free(p);
    return NULL;
  }
  return p;
}

void mdl_prog_free(mdl_prog *p) {
  if (!p) return;
  ppt_program_free(p->prog);
  for (size_t i = 0; i < p->nowned; i++) ppt_tasklist_free(p->owned[i]);
  for (size_t i = 0; i < p->nregions; i++) {
    free(p->regions[i].tls);
    free(p->regions[i].label);
  }
  free(p->owned);
  free(p->regions);
  free(p);
}

int mdl_prog_keep(mdl_prog *p, ppt_tasklist *tl, ppt_err *err) {
  if (!tl) return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  if (p->nowned == p->capowned) {
    size_t cap = p->capowned ? 2 * p->capowned : 16;
    ppt_tasklist **n = realloc(p->owned, cap * sizeof *n);
    if (!n) {
      ppt_tasklist_free(tl);
      return ppt_err_set(err, PPT_ERUN, "model: out of memory");
    }
    p->owned = n;
    p->capowned = cap;
  }
  p->owned[p->nowned++] = tl;
  return 0;
}

int mdl_prog_parallel(mdl_prog *p, size_t nthreads, const ppt_tasklist *const *tls, const char *label,
                      ppt_err *err) {
  if (p->nregions == p->capregions) {
    size_t cap = p->capregions ? 2 * p->capregions : 16;
    region *n = realloc(p->regions, cap * sizeof *n);
    if (!n) return ppt_err_set(err, PPT_ERUN, "model: out of memory");
    p->regions = n;
    p->capregions = cap;
  }
  region *r = &p->regions[p->nregions];
  r->nthreads = nthreads;
  r->tls = malloc((nthreads ? nthreads : 1) * sizeof *r->tls);
  r->label = strdup(label ? label : "");
  if (!r->tls || !r->label) {
    free(r->tls);
    free(r->label);
    return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  }
  memcpy(r->tls, tls, nthreads * sizeof *tls);
  int rc = ppt_program_add_parallel(p->prog, nthreads, tls, err);
  if (rc) {
    free(r->tls);
    free(r->label);
    return rc;
  }
  p->nregions++;
  return 0;
}

size_t mdl_prog_nregions(const mdl_prog *p) {
  return p->nregions;
}

const char *mdl_prog_label(const mdl_prog *p, size_t region) {
  return region < p->nregions ? p->regions[region].label : NULL;
}

const ppt_tasklist *mdl_prog_tasklist(const mdl_prog *p, size_t region, size_t thread) {
  if (region >= p->nregions || thread >= p->regions[region].nthreads) return NULL;
  return p->regions[region].tls[thread];
}

const ppt_program *mdl_prog_program(const mdl_prog *p) {
  return p->prog;
}

uint64_t mdl_chunk(uint64_t n, uint32_t threads, uint32_t t) {
  if (threads == 0) return n;
  return n / threads + (t < n % threads ? 1 : 0);
}

void mdl_result_clear(mdl_result *r) {
  free(r->region_s);
  memset(r, 0, sizeof *r);
}

/* Hit rates summed over every thread of every region. The same tasklist usually serves
 * many threads and regions, so each distinct one is evaluated once. */
static int hit_rates(const mdl_prog *p, const ppt_hwspec *hw, const ppt_tc_policy *pol, mdl_result *out,
                     ppt_err *err) {
  const ppt_tasklist **seen = calloc(p->nowned ? p->nowned : 1, sizeof *seen);
  ppt_tc_stats *st = malloc((p->nowned ? p->nowned : 1) * sizeof *st);
  if (!seen || !st) {
    free(seen);
    free(st);
    return ppt_err_set(err, PPT_ERUN, "model: out of memory");
  }
  size_t nseen = 0;
  double served[PPT_TC_MAX_MEM] = {0}, total = 0;
  int rc = 0;
  for (size_t g = 0; g < p->nregions && !rc; g++) {
    for (size_t t = 0; t < p->regions[g].nthreads && !rc; t++) {
      const ppt_tasklist *tl = p->regions[g].tls[t];
      size_t i = 0;
      while (i < nseen && seen[i] != tl) i++;
      if (i == nseen) {
        if (nseen == p->nowned) {
          rc = ppt_err_set(err, PPT_ERUN, "model: region %zu runs a tasklist the program does not keep", g);
          break;
        }
        if ((rc = ppt_time_compute(hw, tl, pol, &st[i], err))) break;
        seen[nseen++] = tl;
      }
      for (uint32_t k = 0; k <= hw->nlevels; k++) served[k] += st[i].level[k].accesses;
      total += st[i].mem_accesses;
    }
  }
  free(seen);
  free(st);
  if (rc) return rc;
  out->nlevels = hw->nlevels;
  out->accesses = total;
  double cum = 0;
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    double before = cum;
    cum += served[k];
    out->hit[k] = total > 0 ? cum / total : NAN;
    out->local_hit[k] = total - before > 0 ? served[k] / (total - before) : NAN;
  }
  return 0;
}

void mdl_policy_default(ppt_tc_policy *p) {
  ppt_tc_policy_default(p);
  p->compute = PPT_COMPUTE_SUM;
  p->memory = PPT_MEMORY_AMM;
}

int mdl_prog_run(const mdl_prog *p, const ppt_hwspec *hw, uint32_t cores, const ppt_node_config *cfg,
                 mdl_result *out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  ppt_node_config c;
  if (cfg) {
    c = *cfg;
  } else {
    ppt_node_config_default(&c);
    mdl_policy_default(&c.policy);
  }
  c.cores = cores;
  out->cores = cores;
  int rc = hit_rates(p, hw, &c.policy, out, err);
  if (rc) return rc;
  ppt_node *node = NULL;
  ppt_node_result *res = NULL;
  if ((rc = ppt_node_new(hw, &c, &node, err)) || (rc = ppt_node_run(node, p->prog, &res, err))) {
    ppt_node_free(node);
    return rc;
  }
  out->runtime_s = ppt_node_result_seconds(res);
  out->nregions = ppt_node_result_nregions(res);
  out->region_s = calloc(out->nregions ? out->nregions : 1, sizeof *out->region_s);
  if (!out->region_s) rc = ppt_err_set(err, PPT_ERUN, "model: out of memory");
  for (size_t g = 0; g < out->nregions && !rc; g++) {
    ppt_region_stats rs;
    if (ppt_node_result_region(res, g, &rs)) {
      rc = ppt_err_set(err, PPT_ERUN, "model: engine result has no region %zu", g);
      break;
    }
    out->region_s[g] = rs.seconds;
    /* The thread that ends last sets the region's time: its split is the critical path. */
    ppt_thread_stats last = {0}, ts;
    double busy = 0;
    uint32_t nt = rs.parallel ? rs.nthreads : 1;
    for (uint32_t t = 0; t < nt; t++) {
      if (ppt_node_result_thread(res, g, t, &ts)) {
        rc = ppt_err_set(err, PPT_ERUN, "model: engine result has no thread %u in region %zu", t, g);
        break;
      }
      busy += ts.busy_s;
      if (ts.busy_s >= last.busy_s) last = ts;
    }
    out->compute_s += last.compute_s;
    out->memory_s += last.memory_s;
    out->wait_s += rs.seconds - busy / nt;
  }
  ppt_node_result_free(res);
  ppt_node_free(node);
  if (rc) mdl_result_clear(out);
  return rc;
}
