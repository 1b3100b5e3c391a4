/* hwspec_json.c — ppt_hwspec → JSON, the inverse of hwspec_parse.c.
 *
 * Optional data that is 0 / empty is left out rather than written as 0, because the
 * parser reads an absent figure as 0 but rejects an explicit 0 (a 0 latency in a spec
 * sheet is a typo, not a measurement). So parse(to_json(hw)) == hw. */
#include "ppt/hwspec.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest of %.15g..%.17g that reads back to the same double: 2.1 stays "2.1", not
 * "2.1000000000000001", and the round trip stays exact. */
static json_object *num(double v) {
  char buf[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return json_object_new_double_s(v, buf);
}

/* json_object_object_add steals `val`; a NULL val (out of memory) makes the whole build fail. */
static int add(json_object *o, const char *key, json_object *val) {
  if (!val) return -1;
  if (json_object_object_add(o, key, val)) {
    json_object_put(val);
    return -1;
  }
  return 0;
}

static json_object *level_json(const ppt_hw_level *lv) {
  json_object *o = json_object_new_object();
  if (!o) return NULL;
  int rc = add(o, "name", json_object_new_string(lv->name));
  rc |= add(o, "size", json_object_new_int64((int64_t)lv->size));
  rc |= add(o, "assoc", json_object_new_int64(lv->assoc));
  rc |= add(o, "line", json_object_new_int64(lv->line));
  rc |= add(o, "shared_by", json_object_new_int64(lv->shared_by));
  rc |= add(o, "inclusive", json_object_new_boolean(lv->inclusive));
  if (lv->replacement != PPT_HW_REPL_LRU)
    rc |= add(o, "replacement", json_object_new_string(ppt_hw_replacement_name(lv->replacement)));
  if (lv->victim_ways) rc |= add(o, "victim_ways", json_object_new_int64(lv->victim_ways));
  if (lv->demand_size) rc |= add(o, "demand_size", json_object_new_int64((int64_t)lv->demand_size));
  if (lv->hashed_sets) rc |= add(o, "hashed_sets", json_object_new_boolean(1));
  if (lv->latency_cycles > 0) rc |= add(o, "latency_cycles", num(lv->latency_cycles));
  if (lv->bw_bytes_per_cycle > 0)
    rc |= add(o, "bandwidth_bytes_per_cycle", num(lv->bw_bytes_per_cycle));
  if (lv->core_bw_bytes_per_cycle > 0)
    rc |= add(o, "core_bandwidth_bytes_per_cycle", num(lv->core_bw_bytes_per_cycle));
  if (rc) {
    json_object_put(o);
    return NULL;
  }
  return o;
}

/* miss_cycles is always written: 0 is a valid figure here (a level that costs nothing). */
static json_object *tlb_json(const ppt_hw_tlb *tl) {
  json_object *o = json_object_new_object();
  if (!o) return NULL;
  int rc = add(o, "name", json_object_new_string(tl->name));
  rc |= add(o, "entries", json_object_new_int64(tl->entries));
  rc |= add(o, "assoc", json_object_new_int64(tl->assoc));
  rc |= add(o, "page_bytes", json_object_new_int64(tl->page_bytes));
  rc |= add(o, "miss_cycles", num(tl->miss_cycles));
  if (tl->in_flight > 0) rc |= add(o, "in_flight", num(tl->in_flight));
  if (rc) {
    json_object_put(o);
    return NULL;
  }
  return o;
}

static int has_ops(const ppt_hwspec *hw) {
  for (int k = 0; k < PPT_HW_NOPCLASS; k++)
    if (hw->ops[k].per_cycle > 0) return 1;
  return 0;
}

static json_object *level_item(const ppt_hwspec *hw, uint32_t i) { return level_json(&hw->levels[i]); }
static json_object *tlb_item(const ppt_hwspec *hw, uint32_t i) { return tlb_json(&hw->tlb[i]); }

/* o[key] = [v[0], ..., v[n - 1]], left out when n = 0; -1 when out of memory. */
static int add_speeds(json_object *o, const char *key, const double *v, uint32_t n) {
  if (n == 0) return 0;
  json_object *a = json_object_new_array();
  int rc = 0;
  for (uint32_t i = 0; a && i < n && i < PPT_HW_MAX_SPEEDS; i++) rc |= json_object_array_add(a, num(v[i])) != 0;
  return rc | (a ? add(o, key, a) : -1);
}

/* o[key] = [item(hw, 0), ..., item(hw, n - 1)]; -1 when out of memory. */
static int add_array(json_object *o, const char *key, const ppt_hwspec *hw, uint32_t n,
                     json_object *(*item)(const ppt_hwspec *, uint32_t)) {
  json_object *a = json_object_new_array();
  int rc = 0;
  for (uint32_t i = 0; a && i < n; i++) {
    json_object *e = item(hw, i);
    if (!e || json_object_array_add(a, e)) {
      json_object_put(e);
      rc = -1;
      break;
    }
  }
  return rc | add(o, key, a);
}

json_object *ppt_hwspec_to_json_object(const ppt_hwspec *hw) {
  json_object *o = json_object_new_object();
  if (!o) return NULL;
  int rc = add(o, "name", json_object_new_string(hw->name));
  if (hw->source[0]) rc |= add(o, "source", json_object_new_string(hw->source));
  if (hw->notes[0]) rc |= add(o, "notes", json_object_new_string(hw->notes));
  if (hw->year) rc |= add(o, "year", json_object_new_int64(hw->year));
  if (hw->isa[0]) rc |= add(o, "isa", json_object_new_string(hw->isa));
  if (hw->clock_hz > 0) rc |= add(o, "clock_ghz", num(hw->clock_hz / 1e9));
  rc |= add(o, "cores", json_object_new_int64(hw->cores));
  if (hw->vector_bits) rc |= add(o, "vector_bits", json_object_new_int64(hw->vector_bits));
  if (hw->mlp > 0) rc |= add(o, "mlp", num(hw->mlp));
  /* The file takes both or neither (ppt_hwspec_validate too): a struct with one of them
   * writes what it has, and the parser then names the missing one rather than the
   * figure being dropped quietly. */
  if (hw->mlp_same_set_load > 0 || hw->mlp_same_set_store > 0) {
    json_object *m = json_object_new_object();
    if (m) {
      if (hw->mlp_same_set_load > 0) rc |= add(m, "load", num(hw->mlp_same_set_load));
      if (hw->mlp_same_set_store > 0) rc |= add(m, "store", num(hw->mlp_same_set_store));
    }
    rc |= add(o, "mlp_same_set", m);
  }
  if (hw->call_cycles > 0) rc |= add(o, "call_cycles", num(hw->call_cycles));
  if (hw->fork_join_cycles > 0) rc |= add(o, "fork_join_cycles", num(hw->fork_join_cycles));
  if (hw->fork_join_serial_cycles > 0)
    rc |= add(o, "fork_join_serial_cycles", num(hw->fork_join_serial_cycles));
  if (hw->branch_miss_cycles > 0) rc |= add(o, "branch_miss_cycles", num(hw->branch_miss_cycles));
  if (hw->store_forward_cycles > 0) rc |= add(o, "store_forward_cycles", num(hw->store_forward_cycles));
  if (hw->store_forward_fp_cycles > 0) rc |= add(o, "store_forward_fp_cycles", num(hw->store_forward_fp_cycles));
  if (hw->coherence_cycles > 0) rc |= add(o, "coherence_cycles", num(hw->coherence_cycles));
  if (hw->fp_window > 0) rc |= add(o, "fp_window", num(hw->fp_window));
  if (hw->fp_chains > 0) rc |= add(o, "fp_chains", num(hw->fp_chains));
  if (hw->block_cycles) rc |= add(o, "block_cycles", json_object_new_boolean(1));
  if (hw->contention_factor > 0) rc |= add(o, "contention_factor", num(hw->contention_factor));
  rc |= add_speeds(o, "core_speed", hw->core_speed, hw->nspeeds);
  rc |= add_speeds(o, "busy_speed", hw->busy_speed, hw->nbusy);
  rc |= add_array(o, "levels", hw, hw->nlevels < PPT_HW_MAX_LEVELS ? hw->nlevels : PPT_HW_MAX_LEVELS, level_item);
  if (hw->ntlb) rc |= add_array(o, "tlb", hw, hw->ntlb < PPT_HW_MAX_TLB ? hw->ntlb : PPT_HW_MAX_TLB, tlb_item);
  if (hw->dram_latency_ns > 0 || hw->dram_bw_bytes_per_s > 0 || hw->dram_core_bw_bytes_per_s > 0 ||
      hw->dram_wb_given) {
    json_object *d = json_object_new_object();
    if (d) {
      if (hw->dram_latency_ns > 0) rc |= add(d, "latency_ns", num(hw->dram_latency_ns));
      if (hw->dram_bw_bytes_per_s > 0)
        rc |= add(d, "bandwidth_gbs", num(hw->dram_bw_bytes_per_s / 1e9));
      if (hw->dram_core_bw_bytes_per_s > 0)
        rc |= add(d, "core_bandwidth_gbs", num(hw->dram_core_bw_bytes_per_s / 1e9));
      if (hw->dram_wb_given & 2u) rc |= add(d, "writeback_cost", num(hw->dram_wb_cost));
      if (hw->dram_wb_given & 1u) rc |= add(d, "core_writeback_cost", num(hw->dram_core_wb_cost));
    }
    rc |= add(o, "dram", d);
  }
  if (has_ops(hw)) {
    json_object *ops = json_object_new_object();
    for (int k = 0; ops && k < PPT_HW_NOPCLASS; k++) {
      if (!(hw->ops[k].per_cycle > 0)) continue; /* class unknown */
      json_object *e = json_object_new_object();
      if (e) {
        rc |= add(e, "per_cycle", num(hw->ops[k].per_cycle));
        rc |= add(e, "latency", num(hw->ops[k].latency));
      }
      rc |= add(ops, ppt_hwspec_opclass_name(k), e);
    }
    rc |= add(o, "ops", ops);
  }
  if (hw->nsources) {
    json_object *s = json_object_new_object();
    for (uint32_t i = 0; s && i < hw->nsources && i < PPT_HW_MAX_SOURCES; i++)
      rc |= add(s, hw->sources[i].key, json_object_new_string(hw->sources[i].text));
    rc |= add(o, "sources", s);
  }
  if (rc) {
    json_object_put(o);
    return NULL;
  }
  return o;
}

char *ppt_hwspec_to_json(const ppt_hwspec *hw) {
  json_object *o = ppt_hwspec_to_json_object(hw);
  if (!o) return NULL;
  const char *s = json_object_to_json_string_ext(
      o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
  char *out = s ? strdup(s) : NULL;
  json_object_put(o);
  return out;
}
