/* hwspec_check.c — semantic checks of a hwspec, and small queries on one.
 *
 * The cache models index sets with `line & (sets - 1)` and count reuse distances in
 * lines of one size, so a level must be a whole number of power-of-two sets of `assoc`
 * lines of one power-of-two size shared by all levels. Levels are ordered from the core
 * outwards and each must contain the one above it in capacity and sharing: that is what
 * the inclusion assumption of the SDCM hierarchy (models/cache/sdcm_hier.c) and the
 * instance mapping of the simulator (models/cache/cachesim.c) rely on. */
#include "ppt/hwspec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hwspec_limits.h"

static int is_pow2(uint64_t x) {
  return x && !(x & (x - 1));
}

static int bad(ppt_err *err, const char *name, const char *path, const char *what) {
  return ppt_err_set(err, PPT_EINPUT, "%s: %s: %s", name, path, what);
}

/* A figure outside its physical range (hwspec_limits.h, docs/hwspec.md "Ranges"):
 * "NAME: key: VALUE is out of range [LO, HI] UNIT". With zero_absent, 0 is an absent
 * optional figure and passes. NaN fails (no comparison holds). The bounds get a relative
 * slack of 1e-12 so that a boundary typed in GHz or GB/s survives the conversion to Hz
 * or bytes/s and back. */
static int range(ppt_err *err, const char *name, const char *key, double v, double lo, double hi,
                 const char *unit, int zero_absent) {
  if (zero_absent && v == 0) return 0;
  if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) return 0;
  return ppt_err_set(err, PPT_EINPUT, "%s: %s: %g is out of range [%g, %g] %s", name, key, v, lo, hi, unit);
}

static int range_u(ppt_err *err, const char *name, const char *key, uint64_t v, uint64_t lo, uint64_t hi,
                   const char *unit) {
  if (v >= lo && v <= hi) return 0;
  return ppt_err_set(err, PPT_EINPUT, "%s: %s: %llu is out of range [%llu, %llu] %s", name, key,
                     (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi, unit);
}

/* A list of relative compute speeds (core_speed, busy_speed): at most PPT_HW_MAX_SPEEDS,
 * each within the schema's range. */
static int speed_list(ppt_err *err, const char *name, const char *key, const double *v, uint32_t n) {
  if (n > PPT_HW_MAX_SPEEDS)
    return ppt_err_set(err, PPT_EINPUT, "%s: %s lists %u speeds, at most %d", name, key, n,
                       PPT_HW_MAX_SPEEDS);
  for (uint32_t i = 0; i < n; i++) {
    char p[32];
    snprintf(p, sizeof p, "%s[%u]", key, i);
    if (range(err, name, p, v[i], HW_MIN_CORE_SPEED, HW_MAX_CORE_SPEED, "x", 0)) return PPT_EINPUT;
  }
  return 0;
}

static int check_level(const ppt_hwspec *hw, uint32_t i, const char *name, ppt_err *err) {
  const ppt_hw_level *lv = &hw->levels[i];
  char p[32], m[256];
  snprintf(p, sizeof p, "levels[%u]", i);
  char pf[64];
#define FIELD(f) (snprintf(pf, sizeof pf, "%s.%s", p, f), pf)
  if (!memchr(lv->name, '\0', sizeof lv->name) || !lv->name[0])
    return bad(err, name, FIELD("name"), "must be a non-empty string");
  for (uint32_t j = 0; j < i; j++)
    if (strcmp(hw->levels[j].name, lv->name) == 0) {
      snprintf(m, sizeof m, "\"%s\" is also the name of levels[%u]", lv->name, j);
      return bad(err, name, FIELD("name"), m);
    }
  if (!is_pow2(lv->line) || lv->line < HW_MIN_LINE || lv->line > HW_MAX_LINE) {
    snprintf(m, sizeof m, "%u is not a power of two between %u and %u", lv->line, HW_MIN_LINE, HW_MAX_LINE);
    return bad(err, name, FIELD("line"), m);
  }
  if (i > 0 && lv->line != hw->levels[0].line) {
    snprintf(m, sizeof m, "%u differs from levels[0].line (%u); all levels must use one line size", lv->line,
             hw->levels[0].line);
    return bad(err, name, FIELD("line"), m);
  }
  if (range_u(err, name, FIELD("size"), lv->size, HW_MIN_LEVEL_SIZE, HW_MAX_LEVEL_SIZE, "bytes"))
    return PPT_EINPUT;
  if (lv->size % lv->line) {
    snprintf(m, sizeof m, "%llu is not a multiple of line (%u)", (unsigned long long)lv->size, lv->line);
    return bad(err, name, FIELD("size"), m);
  }
  uint64_t lines = lv->size / lv->line;
  /* The cap: the simulator scans a set's ways linearly (hwspec_limits.h). */
  if (range_u(err, name, FIELD("assoc"), lv->assoc, 1, HW_MAX_ASSOC, "ways")) return PPT_EINPUT;
  if (lv->assoc > lines) {
    snprintf(m, sizeof m, "%u exceeds the number of lines (%llu = size/line)", lv->assoc,
             (unsigned long long)lines);
    return bad(err, name, FIELD("assoc"), m);
  }
  if (lines % lv->assoc) {
    snprintf(m, sizeof m, "%llu is not a multiple of line*assoc (%llu)", (unsigned long long)lv->size,
             (unsigned long long)lv->line * lv->assoc);
    return bad(err, name, FIELD("size"), m);
  }
  uint64_t sets = lines / lv->assoc;
  if (!is_pow2(sets)) {
    snprintf(m, sizeof m, "set count %llu (size/line/assoc) is not a power of two", (unsigned long long)sets);
    return bad(err, name, FIELD("size"), m);
  }
  if (lv->shared_by == 0 || lv->shared_by > hw->cores || hw->cores % lv->shared_by) {
    snprintf(m, sizeof m, "%u must be between 1 and cores (%u) and divide cores", lv->shared_by, hw->cores);
    return bad(err, name, FIELD("shared_by"), m);
  }
  if (lv->inclusive != 0 && lv->inclusive != 1) return bad(err, name, FIELD("inclusive"), "must be 0 or 1");
  if (lv->hashed_sets != 0 && lv->hashed_sets != 1)
    return bad(err, name, FIELD("hashed_sets"), "must be 0 or 1");
  if (!ppt_hw_replacement_name(lv->replacement))
    return bad(err, name, FIELD("replacement"), "must be lru or random");
  if (lv->victim_ways && lv->replacement != PPT_HW_REPL_RANDOM)
    return bad(err, name, FIELD("victim_ways"),
               "needs \"replacement\": \"random\" (an LRU level evicts the least recent way)");
  if (lv->demand_size > lv->size) {
    snprintf(m, sizeof m, "%llu is more than the level's size (%llu)", (unsigned long long)lv->demand_size,
             (unsigned long long)lv->size);
    return bad(err, name, FIELD("demand_size"), m);
  }
  if (lv->victim_ways > lv->assoc) {
    snprintf(m, sizeof m, "%u is more than the level's %u ways", lv->victim_ways, lv->assoc);
    return bad(err, name, FIELD("victim_ways"), m);
  }
  if (i == 0 && lv->inclusive)
    return bad(err, name, FIELD("inclusive"), "the first level has no level above it to include");
  if (range(err, name, FIELD("latency_cycles"), lv->latency_cycles, HW_MIN_LATENCY_CYCLES,
            HW_MAX_LATENCY_CYCLES, "cycles", 1) ||
      range(err, name, FIELD("bandwidth_bytes_per_cycle"), lv->bw_bytes_per_cycle, HW_MIN_BW_BYTES_PER_CYCLE,
            HW_MAX_BW_BYTES_PER_CYCLE, "bytes/cycle", 1) ||
      range(err, name, FIELD("core_bandwidth_bytes_per_cycle"), lv->core_bw_bytes_per_cycle,
            HW_MIN_BW_BYTES_PER_CYCLE, HW_MAX_BW_BYTES_PER_CYCLE, "bytes/cycle", 1))
    return PPT_EINPUT;
  if (i > 0) {
    const ppt_hw_level *up = &hw->levels[i - 1];
    if (lv->shared_by < up->shared_by || lv->shared_by % up->shared_by) {
      snprintf(m, sizeof m,
               "%u must be a multiple of levels[%u].shared_by (%u): an instance "
               "serves whole instances of the level above",
               lv->shared_by, i - 1, up->shared_by);
      return bad(err, name, FIELD("shared_by"), m);
    }
    if (lv->size < up->size) {
      snprintf(m, sizeof m,
               "%llu is smaller than levels[%u].size (%llu); levels go outwards "
               "from the core",
               (unsigned long long)lv->size, i - 1, (unsigned long long)up->size);
      return bad(err, name, FIELD("size"), m);
    }
    if (lv->latency_cycles > 0 && up->latency_cycles > lv->latency_cycles) {
      snprintf(m, sizeof m, "%g is below levels[%u].latency_cycles (%g)", lv->latency_cycles, i - 1,
               up->latency_cycles);
      return bad(err, name, FIELD("latency_cycles"), m);
    }
  }
#undef FIELD
  return 0;
}

/* A TLB level is simulated as a cache of pages (models/cache/tracesim.c), so it obeys
 * the cache rules: a power-of-two set count, one page size for all levels (the
 * simulator has one line size), each level larger than the one above it. */
static int check_tlb(const ppt_hwspec *hw, uint32_t i, const char *name, ppt_err *err) {
  const ppt_hw_tlb *tl = &hw->tlb[i];
  char pf[48], m[160];
#define FIELD(f) (snprintf(pf, sizeof pf, "tlb[%u].%s", i, f), pf)
  if (!memchr(tl->name, '\0', sizeof tl->name) || !tl->name[0])
    return bad(err, name, FIELD("name"), "must be a non-empty string");
  for (uint32_t j = 0; j < i; j++)
    if (strcmp(hw->tlb[j].name, tl->name) == 0) {
      snprintf(m, sizeof m, "\"%s\" is also the name of tlb[%u]", tl->name, j);
      return bad(err, name, FIELD("name"), m);
    }
  if (range_u(err, name, FIELD("entries"), tl->entries, 1, HW_MAX_TLB_ENTRIES, "entries") ||
      range_u(err, name, FIELD("assoc"), tl->assoc, 1, HW_MAX_ASSOC, "ways"))
    return PPT_EINPUT;
  if (tl->assoc > tl->entries) {
    snprintf(m, sizeof m, "%u is not between 1 and entries (%u)", tl->assoc, tl->entries);
    return bad(err, name, FIELD("assoc"), m);
  }
  if (tl->entries % tl->assoc || !is_pow2(tl->entries / tl->assoc)) {
    snprintf(m, sizeof m, "%u entries in %u ways is not a power-of-two set count", tl->entries, tl->assoc);
    return bad(err, name, FIELD("entries"), m);
  }
  if (!is_pow2(tl->page_bytes) || tl->page_bytes < HW_MIN_PAGE || tl->page_bytes > HW_MAX_PAGE) {
    snprintf(m, sizeof m, "%u is not a power of two between %u and %u", tl->page_bytes, HW_MIN_PAGE,
             HW_MAX_PAGE);
    return bad(err, name, FIELD("page_bytes"), m);
  }
  /* 0 is a measured figure here (a miss that overlaps entirely), not an absent one. */
  if (range(err, name, FIELD("miss_cycles"), tl->miss_cycles, 0, HW_MAX_TLB_MISS_CYCLES, "cycles", 0) ||
      range(err, name, FIELD("in_flight"), tl->in_flight, HW_MIN_TLB_IN_FLIGHT, HW_MAX_TLB_IN_FLIGHT, "misses",
            1))
    return PPT_EINPUT;
  if (i > 0 && tl->page_bytes != hw->tlb[0].page_bytes) {
    snprintf(m, sizeof m, "%u differs from tlb[0].page_bytes (%u); all TLB levels must use one page size",
             tl->page_bytes, hw->tlb[0].page_bytes);
    return bad(err, name, FIELD("page_bytes"), m);
  }
  if (i > 0 && tl->entries <= hw->tlb[i - 1].entries) {
    snprintf(m, sizeof m, "%u is not above tlb[%u].entries (%u); levels go outwards from the core",
             tl->entries, i - 1, hw->tlb[i - 1].entries);
    return bad(err, name, FIELD("entries"), m);
  }
#undef FIELD
  return 0;
}

/* A closed list, like every other key's values: "x86_64" or "arm64" typed for one of
 * these would otherwise split a library listing into look-alike groups. */
int ppt_hwspec_isa_known(const char *isa) {
  static const char *const known[] = {"x86-64", "aarch64", "riscv64", "ppc64le", NULL};
  for (const char *const *k = known; *k; k++)
    if (strcmp(isa, *k) == 0) return 1;
  return 0;
}

int ppt_hwspec_validate(const ppt_hwspec *hw, const char *name, ppt_err *err) {
  if (!name) name = "<hwspec>";
  char m[160];
  if (!memchr(hw->name, '\0', sizeof hw->name) || !hw->name[0])
    return bad(err, name, "name", "must be a non-empty string");
  if (!memchr(hw->source, '\0', sizeof hw->source) || !memchr(hw->notes, '\0', sizeof hw->notes))
    return bad(err, name, "source", "not a terminated string");
  if (!memchr(hw->isa, '\0', sizeof hw->isa) || (hw->isa[0] && !ppt_hwspec_isa_known(hw->isa)))
    return bad(err, name, "isa", "must be one of x86-64, aarch64, riscv64, ppc64le");
  if (hw->year && range_u(err, name, "year", hw->year, HW_MIN_YEAR, HW_MAX_YEAR, "(year)"))
    return PPT_EINPUT;
  if (range_u(err, name, "cores", hw->cores, 1, HW_MAX_CORES, "cores") ||
      range(err, name, "clock_ghz", hw->clock_hz / 1e9, HW_MIN_CLOCK_GHZ, HW_MAX_CLOCK_GHZ, "GHz", 1) ||
      range(err, name, "mlp", hw->mlp, HW_MIN_MLP, HW_MAX_MLP, "misses in flight", 1))
    return PPT_EINPUT;
  /* Misses queued on one first-level set: like mlp, 1..1024 misses in flight; 0 is
   * absent, and the two come together (the file's "mlp_same_set" object holds both). */
  const double same[2] = {hw->mlp_same_set_load, hw->mlp_same_set_store};
  const char *const same_key[2] = {"mlp_same_set.load", "mlp_same_set.store"};
  for (int i = 0; i < 2; i++) {
    if (range(err, name, same_key[i], same[i], HW_MIN_MLP, HW_MAX_MLP, "misses in flight", 1))
      return PPT_EINPUT;
    if (same[i] == 0 && same[1 - i] != 0)
      return bad(err, name, same_key[i], "missing while the other mlp_same_set figure is given");
  }
  if (hw->vector_bits && (!is_pow2(hw->vector_bits) || hw->vector_bits < HW_MIN_VECTOR_BITS ||
                          hw->vector_bits > HW_MAX_VECTOR_BITS)) {
    snprintf(m, sizeof m, "%u is not a power of two between %u and %u", hw->vector_bits, HW_MIN_VECTOR_BITS,
             HW_MAX_VECTOR_BITS);
    return bad(err, name, "vector_bits", m);
  }
  if (range(err, name, "call_cycles", hw->call_cycles, HW_MIN_SMALL_CYCLES, HW_MAX_CALL_CYCLES, "cycles",
            1) ||
      range(err, name, "fork_join_cycles", hw->fork_join_cycles, HW_MIN_SMALL_CYCLES, HW_MAX_FORK_JOIN_CYCLES,
            "cycles", 1) ||
      range(err, name, "fork_join_serial_cycles", hw->fork_join_serial_cycles, HW_MIN_SMALL_CYCLES,
            HW_MAX_FORK_JOIN_CYCLES, "cycles", 1))
    return PPT_EINPUT;
  if (hw->nlevels == 0 || hw->nlevels > PPT_HW_MAX_LEVELS) {
    snprintf(m, sizeof m, "must list 1 to %d cache levels (got %u)", PPT_HW_MAX_LEVELS, hw->nlevels);
    return bad(err, name, "levels", m);
  }
  for (uint32_t i = 0; i < hw->nlevels; i++) {
    int rc = check_level(hw, i, name, err);
    if (rc) return rc;
  }
  if (hw->ntlb > PPT_HW_MAX_TLB) {
    snprintf(m, sizeof m, "must list 1 to %d TLB levels (got %u)", PPT_HW_MAX_TLB, hw->ntlb);
    return bad(err, name, "tlb", m);
  }
  for (uint32_t i = 0; i < hw->ntlb; i++) {
    int rc = check_tlb(hw, i, name, err);
    if (rc) return rc;
  }
  /* 0 is absent for all of these (coherence: transfers priced like a hit in the level
   * serving them). */
  if (range(err, name, "dram.latency_ns", hw->dram_latency_ns, HW_MIN_DRAM_LATENCY_NS, HW_MAX_DRAM_LATENCY_NS,
            "ns", 1) ||
      range(err, name, "dram.bandwidth_gbs", hw->dram_bw_bytes_per_s / 1e9, HW_MIN_DRAM_BW_GBS,
            HW_MAX_DRAM_BW_GBS, "GB/s", 1) ||
      range(err, name, "dram.core_bandwidth_gbs", hw->dram_core_bw_bytes_per_s / 1e9, HW_MIN_DRAM_BW_GBS,
            HW_MAX_DRAM_BW_GBS, "GB/s", 1) ||
      ((hw->dram_wb_given & 2u) && range(err, name, "dram.writeback_cost", hw->dram_wb_cost, 0.0,
                                         HW_MAX_WRITEBACK_COST, "line fills", 0)) ||
      ((hw->dram_wb_given & 1u) && range(err, name, "dram.core_writeback_cost", hw->dram_core_wb_cost, 0.0,
                                         HW_MAX_WRITEBACK_COST, "line fills", 0)) ||
      range(err, name, "branch_miss_cycles", hw->branch_miss_cycles, HW_MIN_SMALL_CYCLES,
            HW_MAX_BRANCH_MISS_CYCLES, "cycles", 1) ||
      range(err, name, "store_forward_cycles", hw->store_forward_cycles, HW_MIN_SMALL_CYCLES,
            HW_MAX_STORE_FORWARD_CYCLES, "cycles", 1) ||
      range(err, name, "store_forward_fp_cycles", hw->store_forward_fp_cycles, HW_MIN_SMALL_CYCLES,
            HW_MAX_STORE_FORWARD_CYCLES, "cycles", 1) ||
      range(err, name, "coherence_cycles", hw->coherence_cycles, HW_MIN_SMALL_CYCLES, HW_MAX_COHERENCE_CYCLES,
            "cycles", 1) ||
      range(err, name, "fp_window", hw->fp_window, HW_MIN_FP_WINDOW, HW_MAX_FP_WINDOW, "FP ops", 1) ||
      range(err, name, "fp_chains", hw->fp_chains, HW_MIN_FP_CHAINS, HW_MAX_FP_CHAINS, "chains", 1) ||
      range(err, name, "contention_factor", hw->contention_factor, HW_MIN_CONTENTION, HW_MAX_CONTENTION, "x",
            1))
    return PPT_EINPUT;
  if (speed_list(err, name, "core_speed", hw->core_speed, hw->nspeeds) ||
      speed_list(err, name, "busy_speed", hw->busy_speed, hw->nbusy))
    return PPT_EINPUT;
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) {
    char p[48];
    snprintf(p, sizeof p, "ops.%s.per_cycle", ppt_hwspec_opclass_name(k));
    if (range(err, name, p, hw->ops[k].per_cycle, HW_MIN_OPS_PER_CYCLE, HW_MAX_OPS_PER_CYCLE, "ops/cycle", 1))
      return PPT_EINPUT;
    snprintf(p, sizeof p, "ops.%s.latency", ppt_hwspec_opclass_name(k));
    if (range(err, name, p, hw->ops[k].latency, 0, HW_MAX_OP_LATENCY, "cycles", 0)) return PPT_EINPUT;
    if (hw->ops[k].latency > 0 && hw->ops[k].per_cycle == 0) {
      snprintf(p, sizeof p, "ops.%s.per_cycle", ppt_hwspec_opclass_name(k));
      return bad(err, name, p, "missing while latency is given");
    }
  }
  if (hw->nsources > PPT_HW_MAX_SOURCES) return bad(err, name, "sources", "too many citations");
  return 0;
}

int ppt_hwspec_has_timing(const ppt_hwspec *hw, const char *name, ppt_err *err) {
  if (!name) name = "<hwspec>";
  const char *miss = NULL;
  char p[64];
  if (!(hw->clock_hz > 0)) miss = "clock_ghz";
  for (uint32_t i = 0; !miss && i < hw->nlevels; i++) {
    if (!(hw->levels[i].latency_cycles > 0)) {
      snprintf(p, sizeof p, "levels[%u].latency_cycles", i);
      miss = p;
    } else if (!(hw->levels[i].bw_bytes_per_cycle > 0)) {
      snprintf(p, sizeof p, "levels[%u].bandwidth_bytes_per_cycle", i);
      miss = p;
    }
  }
  if (!miss && !(hw->dram_latency_ns > 0)) miss = "dram.latency_ns";
  if (!miss && !(hw->dram_bw_bytes_per_s > 0)) miss = "dram.bandwidth_gbs";
  for (int k = 0; !miss && k < PPT_HW_NOPCLASS; k++)
    if (k != PPT_HW_FSQRT && !(hw->ops[k].per_cycle > 0)) { /* roots fall back to fdiv */
      snprintf(p, sizeof p, "ops.%s.per_cycle", ppt_hwspec_opclass_name(k));
      miss = p;
    }
  if (miss)
    return ppt_err_set(err, PPT_EINPUT,
                       "%s: no timing data: %s is missing (the runtime model "
                       "needs it)",
                       name, miss);
  return 0;
}

uint64_t ppt_hwspec_sets(const ppt_hw_level *lv) {
  if (!lv->line || !lv->assoc) return 0;
  return lv->size / lv->line / lv->assoc;
}

uint32_t ppt_hwspec_victim_ways(const ppt_hw_level *lv) {
  return lv->victim_ways && lv->victim_ways < lv->assoc ? lv->victim_ways : lv->assoc;
}

uint32_t ppt_hwspec_demand_ways(const ppt_hw_level *lv) {
  uint64_t way = lv->size / (lv->assoc ? lv->assoc : 1);
  if (!lv->demand_size || !way || lv->demand_size >= lv->size) return lv->assoc;
  uint64_t w = (lv->demand_size + way / 2) / way;
  return w < 1 ? 1 : (uint32_t)w;
}

uint32_t ppt_hwspec_instances(const ppt_hw_level *lv, uint32_t nthreads) {
  uint32_t s = lv->shared_by ? lv->shared_by : 1;
  return (uint32_t)(((uint64_t)nthreads + s - 1) / s);
}

const char *ppt_hwspec_opclass_name(int opclass) {
  static const char *const names[PPT_HW_NOPCLASS] = {"ialu", "idiv",   "fadd",   "fmul",
                                                     "fdiv", "branch", "loadst", "fsqrt"};
  return opclass >= 0 && opclass < PPT_HW_NOPCLASS ? names[opclass] : NULL;
}

const char *ppt_hw_replacement_name(int replacement) {
  switch (replacement) {
    case PPT_HW_REPL_LRU: return "lru";
    case PPT_HW_REPL_RANDOM: return "random";
    default: return NULL;
  }
}
