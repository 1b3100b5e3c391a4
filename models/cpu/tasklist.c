/* models/cpu/tasklist.c — building, copying and freeing tasklists (ppt/tasklist.h).
 *
 * Items are validated here (counts finite and non-negative, rates in [0, 1]) so that
 * ppt_time_compute only has to check what depends on the hardware. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/tasklist_impl.h"

ppt_tasklist *ppt_tasklist_new(void) {
  return calloc(1, sizeof(ppt_tasklist));
}

static void item_release(tl_item *it) {
  free(it->rates);
  if (it->profiles) {
    for (size_t i = 0; i < it->nrates; i++) {
      free(it->profiles[i].dist);
      free(it->profiles[i].count);
    }
    free(it->profiles);
  }
}

void ppt_tasklist_free(ppt_tasklist *tl) {
  if (!tl) return;
  for (size_t i = 0; i < tl->n; i++) item_release(&tl->items[i]);
  free(tl->items);
  free(tl);
}

size_t ppt_tasklist_nitems(const ppt_tasklist *tl) {
  return tl ? tl->n : 0;
}

static int copy_profile(tl_profile *dst, const uint64_t *dist, const double *count, size_t n,
                        double inf_count) {
  dst->n = n;
  dst->inf_count = inf_count;
  dst->dist = NULL;
  dst->count = NULL;
  if (n == 0) return 0;
  dst->dist = malloc(n * sizeof *dst->dist);
  dst->count = malloc(n * sizeof *dst->count);
  if (!dst->dist || !dst->count) return -1;
  memcpy(dst->dist, dist, n * sizeof *dst->dist);
  memcpy(dst->count, count, n * sizeof *dst->count);
  return 0;
}

/* Deep copy of one item's owned arrays; on failure what was copied is freed. */
static int item_copy(tl_item *dst, const tl_item *src) {
  *dst = *src;
  dst->rates = NULL;
  dst->profiles = NULL;
  if (src->rates) {
    dst->rates = malloc(src->nrates * sizeof *dst->rates);
    if (!dst->rates) return -1;
    memcpy(dst->rates, src->rates, src->nrates * sizeof *dst->rates);
  }
  if (src->profiles) {
    dst->profiles = calloc(src->nrates, sizeof *dst->profiles);
    if (!dst->profiles) return -1;
    for (size_t i = 0; i < src->nrates; i++) {
      const tl_profile *p = &src->profiles[i];
      if (copy_profile(&dst->profiles[i], p->dist, p->count, p->n, p->inf_count)) {
        item_release(dst);
        dst->profiles = NULL;
        return -1;
      }
    }
  }
  return 0;
}

ppt_tasklist *ppt_tasklist_clone(const ppt_tasklist *tl) {
  ppt_tasklist *c = ppt_tasklist_new();
  if (!c || !tl || tl->n == 0) return c;
  c->items = calloc(tl->n, sizeof *c->items);
  if (!c->items) {
    free(c);
    return NULL;
  }
  c->cap = tl->n;
  for (size_t i = 0; i < tl->n; i++) {
    if (item_copy(&c->items[i], &tl->items[i])) {
      ppt_tasklist_free(c);
      return NULL;
    }
    c->n = i + 1;
  }
  return c;
}

/* Appends a zeroed item and returns it, or NULL when out of memory. */
static tl_item *push(ppt_tasklist *tl) {
  if (tl->n == tl->cap) {
    size_t cap = tl->cap ? 2 * tl->cap : 8;
    tl_item *items = realloc(tl->items, cap * sizeof *items);
    if (!items) return NULL;
    tl->items = items;
    tl->cap = cap;
  }
  tl_item *it = &tl->items[tl->n++];
  memset(it, 0, sizeof *it);
  return it;
}

static int bad_count(double n) {
  return !isfinite(n) || n < 0;
}

static int add_simple(ppt_tasklist *tl, tl_kind kind, double n, const char *what, ppt_err *err) {
  if (!tl) return ppt_err_set(err, PPT_EINPUT, "tasklist: NULL tasklist");
  if (bad_count(n)) return ppt_err_set(err, PPT_EINPUT, "tasklist: %s count %g is not >= 0", what, n);
  tl_item *it = push(tl);
  if (!it) return ppt_err_set(err, PPT_ERUN, "tasklist: out of memory");
  it->kind = kind;
  it->n = n;
  return 0;
}

int ppt_tasklist_add_op(ppt_tasklist *tl, enum ppt_hw_opclass cls, double n, ppt_err *err) {
  if ((int)cls < 0 || cls >= PPT_HW_NOPCLASS)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: op class %d out of range", (int)cls);
  int rc = add_simple(tl, TL_OP, n, "op", err);
  if (rc == 0) tl->items[tl->n - 1].cls = (int)cls;
  return rc;
}

int ppt_tasklist_add_ialu(ppt_tasklist *tl, double n, ppt_err *err) {
  return ppt_tasklist_add_op(tl, PPT_HW_IALU, n, err);
}

int ppt_tasklist_add_falu(ppt_tasklist *tl, double n, ppt_err *err) {
  return ppt_tasklist_add_op(tl, PPT_HW_FADD, n, err);
}

int ppt_tasklist_add_fdiv(ppt_tasklist *tl, double n, ppt_err *err) {
  return ppt_tasklist_add_op(tl, PPT_HW_FDIV, n, err);
}

int ppt_tasklist_add_intvec(ppt_tasklist *tl, double n, uint32_t width_bits, ppt_err *err) {
  int rc = add_simple(tl, TL_INTVEC, n, "INTVEC", err);
  if (rc == 0) tl->items[tl->n - 1].width = width_bits;
  return rc;
}

int ppt_tasklist_add_vector(ppt_tasklist *tl, double n, uint32_t width_bits, ppt_err *err) {
  int rc = add_simple(tl, TL_VECTOR, n, "VECTOR", err);
  if (rc == 0) tl->items[tl->n - 1].width = width_bits;
  return rc;
}

int ppt_tasklist_add_cycles(ppt_tasklist *tl, double n, ppt_err *err) {
  return ppt_tasklist_add_cycles_as(tl, n, PPT_CPU_PLAIN, err);
}

int ppt_tasklist_add_cycles_as(ppt_tasklist *tl, double n, ppt_tc_cpu what, ppt_err *err) {
  if ((unsigned)what >= PPT_TC_NCPU)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: CPU item of unknown kind %d", what);
  int rc = add_simple(tl, TL_CYCLES, n, "CPU", err);
  if (rc == 0) tl->items[tl->n - 1].cls = (int)what;
  return rc;
}

int ppt_tasklist_add_contended(ppt_tasklist *tl, double share, ppt_err *err) {
  if (!(share >= 0 && share <= 1))
    return ppt_err_set(err, PPT_EINPUT, "tasklist: contended share %g is not in [0, 1]", share);
  return add_simple(tl, TL_CONTENDED, share, "contended share", err);
}

int ppt_tasklist_add_level_accesses(ppt_tasklist *tl, uint32_t level, double n, ppt_err *err) {
  if (level > PPT_HW_MAX_LEVELS)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: memory level %u out of range", level);
  int rc = add_simple(tl, TL_LEVEL, n, "level access", err);
  if (rc == 0) tl->items[tl->n - 1].level = level;
  return rc;
}

int ppt_tasklist_add_alloc(ppt_tasklist *tl, double bytes, ppt_err *err) {
  return add_simple(tl, TL_ALLOC, bytes, "alloc", err);
}

int ppt_tasklist_add_unalloc(ppt_tasklist *tl, double bytes, ppt_err *err) {
  return add_simple(tl, TL_UNALLOC, bytes, "unalloc", err);
}

static int check_mem(const ppt_tasklist *tl, const ppt_mem_access *m, ppt_err *err) {
  if (!tl || !m) return ppt_err_set(err, PPT_EINPUT, "tasklist: NULL tasklist or memory item");
  if (bad_count(m->accesses))
    return ppt_err_set(err, PPT_EINPUT, "tasklist: memory accesses %g is not >= 0", m->accesses);
  if (!isfinite(m->bytes_per_access) || m->bytes_per_access <= 0)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: bytes_per_access %g is not > 0", m->bytes_per_access);
  /* b >= 1: a block holds at least the one access that pays the latency (Eq. 4). */
  if (!isfinite(m->block_bytes) || m->block_bytes < m->bytes_per_access)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: block_bytes %g is smaller than one access (%g)",
                       m->block_bytes, m->bytes_per_access);
  if (bad_count(m->under_cycles) || bad_count(m->under_exit_cycles))
    return ppt_err_set(err, PPT_EINPUT, "tasklist: chain cycles %g and exit cycles %g of a loop are not >= 0",
                       m->under_cycles, m->under_exit_cycles);
  for (int k = 0; k <= PPT_HW_MAX_LEVELS; k++) {
    if (!(m->prefetched[k] >= 0 && m->prefetched[k] <= 1))
      return ppt_err_set(err, PPT_EINPUT, "tasklist: prefetched fraction %g of level %d is not in [0, 1]",
                         m->prefetched[k], k);
    if (!(m->writeback[k] >= 0 && m->writeback[k] <= 1))
      return ppt_err_set(err, PPT_EINPUT, "tasklist: write-back fraction %g of level %d is not in [0, 1]",
                         m->writeback[k], k);
    if (!(m->transfers[k] >= 0 && m->transfers[k] <= 1))
      return ppt_err_set(err, PPT_EINPUT, "tasklist: transfer fraction %g of level %d is not in [0, 1]",
                         m->transfers[k], k);
    if (!(m->chased[k] >= 0 && m->chased[k] <= 1 && m->chased_wait[k] >= 0 &&
          m->chased_wait[k] <= m->chased[k] + 1e-12))
      return ppt_err_set(err, PPT_EINPUT,
                         "tasklist: chased fraction %g (waiting %g) of level %d is not in [0, 1] (waiting <= it)",
                         m->chased[k], m->chased_wait[k], k);
    double bl = m->same_set_loads[k], bs = m->same_set_stores[k];
    if (!(bl >= 0 && bs >= 0 && bl + bs <= 1 + 1e-12))
      return ppt_err_set(err, PPT_EINPUT,
                         "tasklist: bunched fractions %g (loads) + %g (stores) of level %d are not in [0, 1]",
                         bl, bs, k);
  }
  return 0;
}

int ppt_tasklist_add_hitrates(ppt_tasklist *tl, const ppt_mem_access *m, size_t nrates,
                              const double *local_hit, ppt_err *err) {
  int rc = check_mem(tl, m, err);
  if (rc) return rc;
  if (nrates == 0 || nrates > PPT_HW_MAX_LEVELS || !local_hit)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: HITRATES needs 1..%d rates, got %zu", PPT_HW_MAX_LEVELS,
                       nrates);
  for (size_t k = 0; k < nrates; k++)
    if (!(local_hit[k] >= 0 && local_hit[k] <= 1))
      return ppt_err_set(err, PPT_EINPUT, "tasklist: hit rate of level %zu is %g, not in [0, 1]", k,
                         local_hit[k]);
  double *rates = malloc(nrates * sizeof *rates);
  tl_item *it = rates ? push(tl) : NULL;
  if (!it) {
    free(rates);
    return ppt_err_set(err, PPT_ERUN, "tasklist: out of memory");
  }
  memcpy(rates, local_hit, nrates * sizeof *rates);
  it->kind = TL_HITRATES;
  it->mem = *m;
  it->nrates = nrates;
  it->rates = rates;
  return 0;
}

int ppt_tasklist_add_mem_access(ppt_tasklist *tl, const ppt_mem_access *m, size_t nprofiles,
                                const ppt_rd_profile *profiles, ppt_err *err) {
  int rc = check_mem(tl, m, err);
  if (rc) return rc;
  if (nprofiles == 0 || nprofiles > PPT_HW_MAX_LEVELS || !profiles)
    return ppt_err_set(err, PPT_EINPUT, "tasklist: MEM_ACCESS needs 1..%d profiles, got %zu",
                       PPT_HW_MAX_LEVELS, nprofiles);
  for (size_t k = 0; k < nprofiles; k++) {
    const ppt_rd_profile *p = &profiles[k];
    if (p->n && (!p->dist || !p->count))
      return ppt_err_set(err, PPT_EINPUT, "tasklist: profile %zu has NULL arrays", k);
    if (bad_count(p->inf_count))
      return ppt_err_set(err, PPT_EINPUT, "tasklist: profile %zu: infinite count %g", k, p->inf_count);
    double total = p->inf_count;
    for (size_t i = 0; i < p->n; i++) {
      if (bad_count(p->count[i]))
        return ppt_err_set(err, PPT_EINPUT, "tasklist: profile %zu: count[%zu] = %g", k, i, p->count[i]);
      total += p->count[i];
    }
    if (!(total > 0)) return ppt_err_set(err, PPT_EINPUT, "tasklist: profile %zu is empty", k);
  }
  tl_item tmp = {.kind = TL_PROFILE, .mem = *m, .nrates = nprofiles};
  tmp.profiles = calloc(nprofiles, sizeof *tmp.profiles);
  if (!tmp.profiles) return ppt_err_set(err, PPT_ERUN, "tasklist: out of memory");
  for (size_t k = 0; k < nprofiles; k++) {
    const ppt_rd_profile *p = &profiles[k];
    if (copy_profile(&tmp.profiles[k], p->dist, p->count, p->n, p->inf_count)) {
      item_release(&tmp);
      return ppt_err_set(err, PPT_ERUN, "tasklist: out of memory");
    }
  }
  tl_item *it = push(tl);
  if (!it) {
    item_release(&tmp);
    return ppt_err_set(err, PPT_ERUN, "tasklist: out of memory");
  }
  *it = tmp;
  return 0;
}
