/* calib_median.c — one hwspec from several `ppt calibrate` runs: each figure the median
 * of the runs' figures.
 *
 * Why: on a shared host the figures of one run move with whatever else runs at the time
 * (on the validation VM, five runs gave mlp 4.8-12.1, the 2-thread region cost 3370-6020
 * cycles, the L3's streaming capacity 8-22 MiB), and a model fed one run inherits its
 * luck. Each run's figure is already the median (or best) of its trials; the median
 * across runs then drops the runs a burst of load spoiled, in either direction.
 *
 * Each figure is taken whole from one run (for an even count, the lower of the two middle
 * runs), so that its citation, which describes that run's measurement, still holds. A
 * cache level's sharing and whether it has a demand size are voted on; its geometry
 * (size, ways, replacement) is one unit: the run with the median size among those that
 * read both voted traits gives all of it, and its citations; the demand size is the
 * median of the runs that have one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/calib.h"

#define MAX_FIGS (64 + 2 * PPT_HW_MAX_SPEEDS)

/* The run-dependent numbers of a spec, with the key their citation uses. */
typedef struct figs {
  size_t n;
  double *v[MAX_FIGS];
  char key[MAX_FIGS][64];
} figs;

static void add(figs *f, double *v, const char *key) {
  if (f->n >= MAX_FIGS) return;
  f->v[f->n] = v;
  snprintf(f->key[f->n], sizeof f->key[f->n], "%s", key);
  f->n++;
}

static void list_figures(ppt_hwspec *hw, figs *f) {
  char k[64];
  f->n = 0;
  add(f, &hw->clock_hz, "clock_ghz");
  add(f, &hw->call_cycles, "call_cycles");
  add(f, &hw->fork_join_cycles, "fork_join_cycles");
  add(f, &hw->fork_join_serial_cycles, "fork_join_serial_cycles");
  add(f, &hw->branch_miss_cycles, "branch_miss_cycles");
  add(f, &hw->fp_window, "fp_window");
  add(f, &hw->fp_chains, "fp_chains");
  add(f, &hw->store_forward_cycles, "store_forward_cycles");
  add(f, &hw->store_forward_fp_cycles, "store_forward_fp_cycles");
  add(f, &hw->contention_factor, "contention_factor");
  add(f, &hw->coherence_cycles, "coherence_cycles");
  add(f, &hw->mlp, "mlp");
  add(f, &hw->mlp_same_set_load, "mlp_same_set.load");
  add(f, &hw->mlp_same_set_store, "mlp_same_set.store");
  for (uint32_t i = 0; i < hw->nlevels; i++) {
    snprintf(k, sizeof k, "levels[%u].latency_cycles", i);
    add(f, &hw->levels[i].latency_cycles, k);
    snprintf(k, sizeof k, "levels[%u].bandwidth_bytes_per_cycle", i);
    add(f, &hw->levels[i].bw_bytes_per_cycle, k);
    snprintf(k, sizeof k, "levels[%u].core_bandwidth_bytes_per_cycle", i);
    add(f, &hw->levels[i].core_bw_bytes_per_cycle, k);
  }
  for (uint32_t j = 0; j < hw->ntlb; j++) {
    snprintf(k, sizeof k, "tlb[%u].miss_cycles", j);
    add(f, &hw->tlb[j].miss_cycles, k);
    snprintf(k, sizeof k, "tlb[%u].in_flight", j);
    add(f, &hw->tlb[j].in_flight, k);
  }
  add(f, &hw->dram_latency_ns, "dram.latency_ns");
  add(f, &hw->dram_bw_bytes_per_s, "dram.bandwidth_gbs");
  add(f, &hw->dram_core_bw_bytes_per_s, "dram.core_bandwidth_gbs");
  add(f, &hw->dram_core_wb_cost, "dram.core_writeback_cost");
  add(f, &hw->dram_wb_cost, "dram.writeback_cost");
  for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
    /* the op figures share one citation ("ops") */
    add(f, &hw->ops[op].per_cycle, "ops");
    add(f, &hw->ops[op].latency, "ops");
  }
  /* Last: lists whose length may differ between runs (a run that could not pin its
   * threads has none), so that the figures above line up in every run. */
  for (uint32_t i = 0; i < hw->nspeeds && i < PPT_HW_MAX_SPEEDS; i++) {
    snprintf(k, sizeof k, "core_speed[%u]", i);
    add(f, &hw->core_speed[i], k);
  }
  for (uint32_t i = 0; i < hw->nbusy && i < PPT_HW_MAX_SPEEDS; i++) {
    snprintf(k, sizeof k, "busy_speed[%u]", i);
    add(f, &hw->busy_speed[i], k);
  }
}

/* Index of the run holding the median of x[0..n) (lower middle for even n). */
static size_t median_run(const double *x, size_t n) {
  size_t best = 0;
  for (size_t i = 0; i < n; i++) {
    size_t below = 0, equal = 0;
    for (size_t j = 0; j < n; j++) {
      below += x[j] < x[i];
      equal += x[j] == x[i];
    }
    /* x[i] is a lower median when at most (n−1)/2 runs are below it and it reaches the
     * middle position with its ties */
    if (below <= (n - 1) / 2 && below + equal > (n - 1) / 2) {
      best = i;
      break;
    }
  }
  return best;
}

static const ppt_hw_source *find_source(const ppt_hwspec *hw, const char *key) {
  for (uint32_t i = 0; i < hw->nsources; i++)
    if (strcmp(hw->sources[i].key, key) == 0) return &hw->sources[i];
  return NULL;
}

/* Removes out's citation of `key`, if any (its figure is no longer in the spec). */
static void drop_source(ppt_hwspec *out, const char *key) {
  for (uint32_t i = 0; i < out->nsources; i++)
    if (strcmp(out->sources[i].key, key) == 0) {
      out->sources[i] = out->sources[--out->nsources];
      return;
    }
}

/* Sets out's citation of `key` to run's (or drops it when the run has none). */
static void take_source(ppt_hwspec *out, const ppt_hwspec *run, const char *key) {
  const ppt_hw_source *s = find_source(run, key);
  if (!s) {
    drop_source(out, key);
    return;
  }
  for (uint32_t i = 0; i < out->nsources; i++)
    if (strcmp(out->sources[i].key, key) == 0) {
      out->sources[i] = *s;
      return;
    }
  if (out->nsources < PPT_HW_MAX_SOURCES) out->sources[out->nsources++] = *s;
}

/* Whether runs a and b read level k as shared by as many cores (a private level's
 * bandwidth is one core's, a shared one's the instance's: figures of runs that disagree
 * do not mix). */
static int same_sharing(const ppt_hwspec *a, const ppt_hwspec *b, uint32_t k) {
  return a->levels[k].shared_by == b->levels[k].shared_by;
}

/* The kind of level k most runs read, each of its two traits voted on alone: the
 * sharing most runs read (ties to the first run's), and a demand size if more than half
 * of the runs have one (ties to the first run's). Why apart: sharing and a demand size
 * change predictions far more than a size does, a noisy sweep reads either wrong now and
 * then, and a vote over their combinations can fall to a minority: on the validation VM
 * (validation/results/zen5-s35e/) nine runs read four combinations 3-3-2-1, six runs
 * read the L3 shared and five had a demand size, and a vote over combinations gives the
 * tie to a 4 MiB demand size that prices spmv 72 % slow (the five demand sizes' median,
 * 5.5 MiB, 45 %). */
typedef struct level_vote {
  uint32_t shared_by;
  int demand; /* whether the level has a demand size */
} level_vote;

static level_vote vote_level(const ppt_hwspec *runs, size_t n, uint32_t k) {
  level_vote v = {runs[0].levels[k].shared_by, runs[0].levels[k].demand_size > 0};
  size_t nbest = 0, with = 0;
  for (size_t i = 0; i < n; i++) {
    size_t c = 0;
    for (size_t j = 0; j < n; j++) c += same_sharing(&runs[i], &runs[j], k);
    if (c > nbest) {
      nbest = c;
      v.shared_by = runs[i].levels[k].shared_by;
    }
    with += runs[i].levels[k].demand_size > 0;
  }
  if (2 * with != n) v.demand = 2 * with > n;
  return v;
}

static int has_vote(const ppt_hwspec *run, uint32_t k, const level_vote *v, int demand_too) {
  return run->levels[k].shared_by == v->shared_by &&
         (!demand_too || (run->levels[k].demand_size > 0) == v->demand);
}

/* The run with the median size of level k among the runs that read both voted traits,
 * or, when no run does, among those that read the voted sharing (x, idx: scratch for n
 * figures). */
static const ppt_hwspec *size_median_run(const ppt_hwspec *runs, size_t n, uint32_t k, const level_vote *v,
                                         double *x, size_t *idx) {
  size_t c = 0;
  for (int demand_too = 1; demand_too >= 0 && c == 0; demand_too--)
    for (size_t i = 0; i < n; i++)
      if (has_vote(&runs[i], k, v, demand_too)) {
        idx[c] = i;
        x[c++] = (double)runs[i].levels[k].size;
      }
  return &runs[idx[median_run(x, c)]];
}

/* Level k's demand size by the vote: none, or the median of the runs that have one,
 * whatever they read of the rest (the chase that finds it does not depend on them), at
 * most the level's size. Returns the run it came from, NULL for none. */
static const ppt_hwspec *demand_median_run(const ppt_hwspec *runs, size_t n, uint32_t k, const level_vote *v,
                                           double *x, size_t *idx) {
  if (!v->demand) return NULL;
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    if (runs[i].levels[k].demand_size > 0) {
      idx[c] = i;
      x[c++] = (double)runs[i].levels[k].demand_size;
    }
  return c ? &runs[idx[median_run(x, c)]] : NULL;
}

/* take_source of "levels[k]" + field. */
static void take_level_source(ppt_hwspec *out, const ppt_hwspec *g, uint32_t k, const char *field) {
  char key[64];
  snprintf(key, sizeof key, "levels[%u]%s", k, field);
  take_source(out, g, key);
}

static int median_of(const ppt_hwspec *runs, size_t n, ppt_hwspec *out, ppt_err *err);

static int same_shape(const ppt_hwspec *a, const ppt_hwspec *b) {
  return a->nlevels == b->nlevels && a->cores == b->cores && a->ntlb == b->ntlb;
}

int ppt_calib_median_spec(const ppt_hwspec *all, size_t nall, ppt_hwspec *out, ppt_err *err) {
  if (nall == 0) return ppt_err_set(err, PPT_EINPUT, "calibrate: no runs to take medians of");
  /* The runs of the shape most of them share (levels, TLB levels, cores): on a shared
   * host one run in nine may miss a level its chase could not tell from the next (one
   * runtime validation's nine rounds had one that found no L3); a shape no majority
   * shares is another machine. */
  size_t best = 0, nbest = 0;
  for (size_t i = 0; i < nall; i++) {
    size_t c = 0;
    for (size_t j = 0; j < nall; j++) c += same_shape(&all[i], &all[j]);
    if (c > nbest) {
      nbest = c;
      best = i;
    }
  }
  if (2 * nbest <= nall) {
    size_t other = 1;
    while (other < nall && same_shape(&all[other], &all[0])) other++;
    return ppt_err_set(err, PPT_EINPUT,
                       "calibrate: run %zu saw another machine (levels, TLB levels or cores differ)",
                       other + 1);
  }
  ppt_hwspec *runs = malloc(nbest * sizeof *runs);
  if (!runs) return ppt_err_set(err, PPT_ERUN, "calibrate: out of memory");
  char dropped[256] = "";
  size_t n = 0, len = 0;
  for (size_t i = 0; i < nall; i++) {
    if (same_shape(&all[i], &all[best]))
      runs[n++] = all[i];
    else if (len < sizeof dropped)
      len += (size_t)snprintf(dropped + len, sizeof dropped - len, "%s%zu", len ? ", " : "", i + 1);
  }
  int rc = median_of(runs, n, out, err);
  if (!rc && len) {
    char note[sizeof out->notes];
    snprintf(
        note, sizeof note,
        "Runs %s left out: they found other numbers of cache or TLB levels or cores than the other %zu. %s",
        dropped, n, out->notes);
    memcpy(out->notes, note, sizeof note);
  }
  free(runs);
  return rc;
}

/* The per-figure medians of n runs of one shape. */
static int median_of(const ppt_hwspec *runs, size_t n, ppt_hwspec *out, ppt_err *err) {
  ppt_hwspec *copy = malloc(n * sizeof *copy);
  double *x = malloc(n * sizeof *x);
  figs *f = malloc((n + 1) * sizeof *f);
  size_t *who = malloc(n * sizeof *who);
  if (!copy || !x || !f || !who) {
    free(copy);
    free(x);
    free(f);
    free(who);
    return ppt_err_set(err, PPT_ERUN, "calibrate: out of memory");
  }
  memcpy(copy, runs, n * sizeof *copy);
  for (size_t i = 0; i < n; i++) list_figures(&copy[i], &f[i]);

  /* Geometry first: each level whole from its voted run (the latency and bandwidths are
   * replaced by their medians below); the last level's run gives the rest and the notes
   * too (they describe its sweeps). */
  uint32_t L = runs[0].nlevels;
  const ppt_hwspec *geo[PPT_HW_MAX_LEVELS];
  level_vote vote[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < L; k++) {
    vote[k] = vote_level(runs, n, k);
    geo[k] = size_median_run(runs, n, k, &vote[k], x, who);
  }
  *out = *geo[L - 1];
  for (uint32_t k = 0; k < L; k++) {
    out->levels[k] = geo[k]->levels[k];
    take_level_source(out, geo[k], k, "");
    take_level_source(out, geo[k], k, ".size");
    const ppt_hwspec *d = demand_median_run(runs, n, k, &vote[k], x, who);
    uint64_t demand = d ? d->levels[k].demand_size : 0;
    out->levels[k].demand_size = demand < out->levels[k].size ? demand : out->levels[k].size;
    if (d) take_level_source(out, d, k, ".demand_size");
  }
  /* The speed lists at their longest: each entry is then the median of the runs that
   * have it (a run that could not pin its threads has none). */
  for (size_t i = 0; i < n; i++) {
    if (runs[i].nspeeds > out->nspeeds) {
      out->nspeeds = runs[i].nspeeds;
      memcpy(out->core_speed, runs[i].core_speed, sizeof out->core_speed);
      take_source(out, &runs[i], "core_speed");
    }
    if (runs[i].nbusy > out->nbusy) {
      out->nbusy = runs[i].nbusy;
      memcpy(out->busy_speed, runs[i].busy_speed, sizeof out->busy_speed);
      take_source(out, &runs[i], "busy_speed");
    }
  }
  list_figures(out, &f[n]);
  for (size_t j = 0; j < f[n].n; j++) {
    /* The runs that have this figure (the speed lists may be shorter in some); a level's
     * own figures from the runs that read its kind as its geometry's run did (a private
     * level's bandwidth is one core's, a shared one's the instance's). */
    unsigned k = 0;
    int per_level = sscanf(f[n].key[j], "levels[%u].", &k) == 1 && k < L;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
      if (j < f[i].n && strcmp(f[i].key[j], f[n].key[j]) == 0 &&
          (!per_level || same_sharing(&runs[i], geo[k], k))) {
        who[c] = i;
        x[c++] = *f[i].v[j];
      }
    if (!c) continue;
    size_t m = median_run(x, c);
    *f[n].v[j] = x[m];
    /* ops share one citation, which the clock's run keeps */
    if (strcmp(f[n].key[j], "ops") != 0) take_source(out, &runs[who[m]], f[n].key[j]);
  }
  /* Medians from different runs can invert two close latencies; the schema wants them
   * to grow outwards, as one run's figures are made to (calib.c). */
  for (uint32_t k = 1; k < L; k++)
    if (out->levels[k].latency_cycles < out->levels[k - 1].latency_cycles)
      out->levels[k].latency_cycles = out->levels[k - 1].latency_cycles;
  /* The same for mlp_same_set against mlp (calib.c caps it there: a walk queued on one
   * set overlaps no more misses than random ones do). When a figure is known in some
   * runs only, the median may be one run's 0 and the other's not: both or neither. */
  double *same[2] = {&out->mlp_same_set_load, &out->mlp_same_set_store};
  for (int i = 0; i < 2; i++)
    if (out->mlp > 0 && *same[i] > out->mlp) *same[i] = out->mlp;
  if (!(*same[0] > 0 && *same[1] > 0)) {
    *same[0] = *same[1] = 0;
    drop_source(out, "mlp_same_set.load");
    drop_source(out, "mlp_same_set.store");
  }
  /* Say which levels some runs read otherwise: a split vote is a reason to look at
   * those runs (or to calibrate again). */
  char votes[512] = "";
  size_t vl = 0;
  for (uint32_t k = 0; k < L && vl < sizeof votes; k++) {
    size_t shared = 0, demand = 0;
    for (size_t i = 0; i < n; i++) {
      shared += !same_sharing(&runs[i], geo[k], k);
      demand += (runs[i].levels[k].demand_size > 0) != vote[k].demand;
    }
    if (shared || demand)
      vl += (size_t)snprintf(votes + vl, sizeof votes - vl,
                             "%s: outvoted, %zu of %zu runs read it not shared by %u, %zu %s a demand size; "
                             "its figures are the others' medians. ",
                             out->levels[k].name, shared, n, out->levels[k].shared_by, demand,
                             vote[k].demand ? "without" : "with");
  }
  char note[sizeof out->notes];
  snprintf(note, sizeof note,
           "Each figure is the median of %zu ppt calibrate runs, taken whole from the run that gave it "
           "(its citation is that run's); notes below are the run with the median %s size. %s%s",
           n, out->levels[L - 1].name, votes, out->notes);
  memcpy(out->notes, note, sizeof note);
  free(copy);
  free(x);
  free(f);
  free(who);
  return ppt_hwspec_validate(out, out->name, err);
}
