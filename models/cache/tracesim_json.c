/* tracesim_json.c — a tracesim result as JSON (ppt_tracesim_json, ppt/tracesim.h): the
 * counts of ppt_tracesim_result under the names `ppt cachesim --json` prints. */
#include <json-c/json.h>

#include "ppt/cachesim.h"
#include "ppt/tracesim.h"

static int add_u64(json_object *o, const char *key, uint64_t v) {
  json_object *x = json_object_new_uint64(v);
  if (!x || json_object_object_add(o, key, x)) {
    json_object_put(x);
    return -1;
  }
  return 0;
}

/* {"into": level, "lines": n}, or NULL when out of memory. */
static json_object *writeback_obj(const char *into, uint64_t lines) {
  json_object *e = json_object_new_object(), *name = json_object_new_string(into);
  if (!e || !name || json_object_object_add(e, "into", name)) {
    json_object_put(name);
    json_object_put(e);
    return NULL;
  }
  if (add_u64(e, "lines", lines)) {
    json_object_put(e);
    return NULL;
  }
  return e;
}

json_object *ppt_tracesim_json(const ppt_tracesim_result *r) {
  ppt_cache_level_counts lines[PPT_HW_MAX_LEVELS], refs[PPT_HW_MAX_LEVELS];
  for (uint32_t k = 0; k < r->nlevels; k++) {
    const ppt_tracesim_level *lv = &r->levels[k];
    lines[k] = (ppt_cache_level_counts){lv->name, lv->accesses, lv->misses};
    refs[k] = (ppt_cache_level_counts){lv->name, lv->ref_accesses, lv->ref_misses};
  }
  json_object *root = ppt_cache_levels_json(lines, r->nlevels);
  json_object *rl = ppt_cache_levels_json(refs, r->nlevels), *rla = NULL;
  /* take the array out of the second {"levels": [...]} wrapper */
  int bad = !root || !rl || !json_object_object_get_ex(rl, "levels", &rla) ||
            json_object_object_add(root, "ref_levels", json_object_get(rla));
  json_object_put(rl);
  if (!bad && r->ntlb) {
    /* Lookups reaching TLB level j: those not held above it; misses: not held up to j. */
    ppt_cache_level_counts tl[PPT_HW_MAX_TLB];
    uint64_t reach = 0;
    for (uint32_t j = 0; j <= r->ntlb; j++) reach += r->tlb_served[j];
    for (uint32_t j = 0; j < r->ntlb; j++) {
      tl[j] = (ppt_cache_level_counts){r->tlb_names[j], reach, reach - r->tlb_served[j]};
      reach -= r->tlb_served[j];
    }
    json_object *tj = ppt_cache_levels_json(tl, r->ntlb), *tja = NULL;
    bad = !tj || !json_object_object_get_ex(tj, "levels", &tja) ||
          json_object_object_add(root, "tlb_levels", json_object_get(tja)) ||
          add_u64(root, "page_walks", r->tlb_served[r->ntlb]) ||
          add_u64(root, "page_walks_near", r->tlb_near);
    json_object_put(tj);
  }
  /* Dirty lines written back into each level below the first, and into DRAM. */
  json_object *wb = bad ? NULL : json_object_new_array();
  if (!bad && (!wb || json_object_object_add(root, "writebacks", wb))) {
    json_object_put(wb);
    bad = 1;
  }
  for (uint32_t k = 1; k <= r->nlevels && !bad; k++) {
    json_object *e = writeback_obj(k < r->nlevels ? r->levels[k].name : "DRAM", r->writebacks[k]);
    if (!e || json_object_array_add(wb, e)) {
      json_object_put(e);
      bad = 1;
    }
  }
  bad = bad || add_u64(root, "threads", r->threads) || add_u64(root, "refs", r->refs) ||
        add_u64(root, "line_refs", r->line_refs) || add_u64(root, "counted_refs", r->counted_refs) ||
        add_u64(root, "counted_loads", r->counted_loads) ||
        add_u64(root, "counted_stores", r->counted_stores);
  if (bad) {
    json_object_put(root);
    return NULL;
  }
  return root;
}

