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

#define MAX_CORES 65536u
#define MIN_LINE 8u
#define MAX_LINE 4096u
#define MIN_PAGE 4096u
#define MAX_PAGE (1u << 30)         /* 1 GiB pages */
#define MAX_TLB_ENTRIES (1u << 20)  /* far above any real TLB; bounds the simulator's memory */
/* A cache-to-cache transfer costs tens to a few hundred cycles (across sockets, under a
 * thousand): the bound catches a figure in the wrong unit, not a slow machine. */
#define MAX_COHERENCE_CYCLES 100000.0

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static int bad(ppt_err *err, const char *name, const char *path, const char *what) {
  return ppt_err_set(err, PPT_EINPUT, "%s: %s: %s", name, path, what);
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
  if (!is_pow2(lv->line) || lv->line < MIN_LINE || lv->line > MAX_LINE) {
    snprintf(m, sizeof m, "%u is not a power of two between %u and %u", lv->line, MIN_LINE,
             MAX_LINE);
    return bad(err, name, FIELD("line"), m);
  }
  if (i > 0 && lv->line != hw->levels[0].line) {
    snprintf(m, sizeof m, "%u differs from levels[0].line (%u); all levels must use one line size",
             lv->line, hw->levels[0].line);
    return bad(err, name, FIELD("line"), m);
  }
  if (lv->size == 0) return bad(err, name, FIELD("size"), "must be positive");
  if (lv->size % lv->line) {
    snprintf(m, sizeof m, "%llu is not a multiple of line (%u)", (unsigned long long)lv->size,
             lv->line);
    return bad(err, name, FIELD("size"), m);
  }
  uint64_t lines = lv->size / lv->line;
  if (lv->assoc == 0) return bad(err, name, FIELD("assoc"), "must be positive");
  if (lv->assoc > lines) {
    snprintf(m, sizeof m, "%u exceeds the number of lines (%llu = size/line)", lv->assoc,
             (unsigned long long)lines);
    return bad(err, name, FIELD("assoc"), m);
  }
  if (lines % lv->assoc) {
    snprintf(m, sizeof m, "%llu is not a multiple of line*assoc (%llu)",
             (unsigned long long)lv->size, (unsigned long long)lv->line * lv->assoc);
    return bad(err, name, FIELD("size"), m);
  }
  uint64_t sets = lines / lv->assoc;
  if (!is_pow2(sets)) {
    snprintf(m, sizeof m, "set count %llu (size/line/assoc) is not a power of two",
             (unsigned long long)sets);
    return bad(err, name, FIELD("size"), m);
  }
  if (lv->shared_by == 0 || lv->shared_by > hw->cores || hw->cores % lv->shared_by) {
    snprintf(m, sizeof m, "%u must be between 1 and cores (%u) and divide cores", lv->shared_by,
             hw->cores);
    return bad(err, name, FIELD("shared_by"), m);
  }
  if (lv->inclusive != 0 && lv->inclusive != 1)
    return bad(err, name, FIELD("inclusive"), "must be 0 or 1");
  if (!ppt_hw_replacement_name(lv->replacement))
    return bad(err, name, FIELD("replacement"), "must be lru or random");
  if (i == 0 && lv->inclusive)
    return bad(err, name, FIELD("inclusive"), "the first level has no level above it to include");
  if (!isfinite(lv->latency_cycles) || lv->latency_cycles < 0)
    return bad(err, name, FIELD("latency_cycles"), "must be a number >= 0");
  if (!isfinite(lv->bw_bytes_per_cycle) || lv->bw_bytes_per_cycle < 0)
    return bad(err, name, FIELD("bandwidth_bytes_per_cycle"), "must be a number >= 0");
  if (!isfinite(lv->core_bw_bytes_per_cycle) || lv->core_bw_bytes_per_cycle < 0)
    return bad(err, name, FIELD("core_bandwidth_bytes_per_cycle"), "must be a number >= 0");
  if (i > 0) {
    const ppt_hw_level *up = &hw->levels[i - 1];
    if (lv->shared_by < up->shared_by || lv->shared_by % up->shared_by) {
      snprintf(m, sizeof m, "%u must be a multiple of levels[%u].shared_by (%u): an instance "
               "serves whole instances of the level above", lv->shared_by, i - 1, up->shared_by);
      return bad(err, name, FIELD("shared_by"), m);
    }
    if (lv->size < up->size) {
      snprintf(m, sizeof m, "%llu is smaller than levels[%u].size (%llu); levels go outwards "
               "from the core", (unsigned long long)lv->size, i - 1,
               (unsigned long long)up->size);
      return bad(err, name, FIELD("size"), m);
    }
    if (lv->latency_cycles > 0 && up->latency_cycles > lv->latency_cycles) {
      snprintf(m, sizeof m, "%g is below levels[%u].latency_cycles (%g)", lv->latency_cycles,
               i - 1, up->latency_cycles);
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
  if (tl->entries == 0 || tl->entries > MAX_TLB_ENTRIES) {
    snprintf(m, sizeof m, "%u is not between 1 and %u", tl->entries, MAX_TLB_ENTRIES);
    return bad(err, name, FIELD("entries"), m);
  }
  if (tl->assoc == 0 || tl->assoc > tl->entries) {
    snprintf(m, sizeof m, "%u is not between 1 and entries (%u)", tl->assoc, tl->entries);
    return bad(err, name, FIELD("assoc"), m);
  }
  if (tl->entries % tl->assoc || !is_pow2(tl->entries / tl->assoc)) {
    snprintf(m, sizeof m, "%u entries in %u ways is not a power-of-two set count", tl->entries, tl->assoc);
    return bad(err, name, FIELD("entries"), m);
  }
  if (!is_pow2(tl->page_bytes) || tl->page_bytes < MIN_PAGE || tl->page_bytes > MAX_PAGE) {
    snprintf(m, sizeof m, "%u is not a power of two between %u and %u", tl->page_bytes, MIN_PAGE, MAX_PAGE);
    return bad(err, name, FIELD("page_bytes"), m);
  }
  if (!isfinite(tl->miss_cycles) || tl->miss_cycles < 0)
    return bad(err, name, FIELD("miss_cycles"), "must be a number >= 0");
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

int ppt_hwspec_validate(const ppt_hwspec *hw, const char *name, ppt_err *err) {
  if (!name) name = "<hwspec>";
  char m[160];
  if (!memchr(hw->name, '\0', sizeof hw->name) || !hw->name[0])
    return bad(err, name, "name", "must be a non-empty string");
  if (!memchr(hw->source, '\0', sizeof hw->source) || !memchr(hw->notes, '\0', sizeof hw->notes))
    return bad(err, name, "source", "not a terminated string");
  if (hw->cores == 0 || hw->cores > MAX_CORES) {
    snprintf(m, sizeof m, "%u is not between 1 and %u", hw->cores, MAX_CORES);
    return bad(err, name, "cores", m);
  }
  if (!isfinite(hw->clock_hz) || hw->clock_hz < 0)
    return bad(err, name, "clock_ghz", "must be a positive number");
  if (hw->mlp != 0 && !(hw->mlp >= 1 && hw->mlp <= 1024)) {
    snprintf(m, sizeof m, "%g misses in flight is outside 1..1024", hw->mlp);
    return bad(err, name, "mlp", m);
  }
  /* Misses queued on one first-level set: like mlp, 1..1024 misses in flight; 0 is
   * absent, and the two come together (the file's "mlp_same_set" object holds both). */
  const double same[2] = {hw->mlp_same_set_load, hw->mlp_same_set_store};
  const char *const same_key[2] = {"mlp_same_set.load", "mlp_same_set.store"};
  for (int i = 0; i < 2; i++) {
    if (same[i] != 0 && !(same[i] >= 1 && same[i] <= 1024)) {
      snprintf(m, sizeof m, "%g misses in flight is outside 1..1024", same[i]);
      return bad(err, name, same_key[i], m);
    }
    if (same[i] == 0 && same[1 - i] != 0)
      return bad(err, name, same_key[i], "missing while the other mlp_same_set figure is given");
  }
  if (hw->vector_bits && (!is_pow2(hw->vector_bits) || hw->vector_bits < 32 ||
                          hw->vector_bits > 4096)) {
    snprintf(m, sizeof m, "%u is not a power of two between 32 and 4096", hw->vector_bits);
    return bad(err, name, "vector_bits", m);
  }
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
  if (!isfinite(hw->dram_latency_ns) || hw->dram_latency_ns < 0)
    return bad(err, name, "dram.latency_ns", "must be a number >= 0");
  if (!isfinite(hw->dram_bw_bytes_per_s) || hw->dram_bw_bytes_per_s < 0)
    return bad(err, name, "dram.bandwidth_gbs", "must be a number >= 0");
  if (!isfinite(hw->dram_core_bw_bytes_per_s) || hw->dram_core_bw_bytes_per_s < 0)
    return bad(err, name, "dram.core_bandwidth_gbs", "must be a number >= 0");
  if (!isfinite(hw->branch_miss_cycles) || hw->branch_miss_cycles < 0)
    return bad(err, name, "branch_miss_cycles", "must be a number >= 0");
  /* 0 is absent (transfers priced like a hit in the level serving them). */
  if (!isfinite(hw->coherence_cycles) || hw->coherence_cycles < 0 ||
      hw->coherence_cycles > MAX_COHERENCE_CYCLES) {
    snprintf(m, sizeof m, "%g cycles per transfer is outside 0..%g (0: unknown)", hw->coherence_cycles,
             MAX_COHERENCE_CYCLES);
    return bad(err, name, "coherence_cycles", m);
  }
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) {
    char p[48];
    if (!isfinite(hw->ops[k].per_cycle) || hw->ops[k].per_cycle < 0) {
      snprintf(p, sizeof p, "ops.%s.per_cycle", ppt_hwspec_opclass_name(k));
      return bad(err, name, p, "must be a number >= 0");
    }
    if (!isfinite(hw->ops[k].latency) || hw->ops[k].latency < 0) {
      snprintf(p, sizeof p, "ops.%s.latency", ppt_hwspec_opclass_name(k));
      return bad(err, name, p, "must be a number >= 0");
    }
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
    if (!(hw->ops[k].per_cycle > 0)) {
      snprintf(p, sizeof p, "ops.%s.per_cycle", ppt_hwspec_opclass_name(k));
      miss = p;
    }
  if (miss)
    return ppt_err_set(err, PPT_EINPUT, "%s: no timing data: %s is missing (the runtime model "
                       "needs it)", name, miss);
  return 0;
}

uint64_t ppt_hwspec_sets(const ppt_hw_level *lv) {
  if (!lv->line || !lv->assoc) return 0;
  return lv->size / lv->line / lv->assoc;
}

uint32_t ppt_hwspec_instances(const ppt_hw_level *lv, uint32_t nthreads) {
  uint32_t s = lv->shared_by ? lv->shared_by : 1;
  return (uint32_t)(((uint64_t)nthreads + s - 1) / s);
}

const char *ppt_hwspec_opclass_name(int opclass) {
  static const char *const names[PPT_HW_NOPCLASS] = {"ialu", "idiv",   "fadd",  "fmul",
                                                     "fdiv", "branch", "loadst"};
  return opclass >= 0 && opclass < PPT_HW_NOPCLASS ? names[opclass] : NULL;
}

const char *ppt_hw_replacement_name(int replacement) {
  switch (replacement) {
  case PPT_HW_REPL_LRU: return "lru";
  case PPT_HW_REPL_RANDOM: return "random";
  default: return NULL;
  }
}
