/* calib_discover.c — cache levels that no source describes, found by measuring
 * (declarations and contracts: calib_impl.h, "calib_discover.c").
 *
 * Where neither CPUID nor sysfs says how big a level is (a hypervisor that hides both,
 * a CPU without CPUID, AMD's older leaves that give the L3 of the whole package), the
 * pointer chase of calib_mem.c is timed over working sets growing by half an octave,
 * from past the last known level to well beyond any cache. Load-to-use latency is flat
 * while the set fits a level and rises when it stops fitting: every rise ends a level,
 * until the curve reads like memory. The level's size is the largest set read at most
 * midway between the stretch before the rise and the one after (the midpoint rule of
 * calib_size.c), with a power-of-two set count and the ways assumed (the sweep cannot
 * see them). Points are smoothed by a running median of three first, so one disturbed
 * trial (other load) makes no level. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "calib/calib_impl.h"

/* A boundary between levels: a step of the smoothed curve that multiplies the latency
 * by at least RISE and more than the steps beside it (a transition spread over two
 * points counts once). Levels differ by 2x or more on every CPU we know (L1 ~1 ns, L2
 * ~3-5, L3 ~10-20, DRAM ~80-150); TLB misses and conflicts within a level add less. */
#define RISE 1.4
/* Two levels read at least this far apart (L2 to L3 is 2-5x on the CPUs we know). */
#define LEVEL_GAP 1.8
/* A stretch that reads this slow is memory, not a cache: rises beyond it (TLB misses of
 * a guest's memory in its host's page tables, remote NUMA nodes) end no level. */
#define MEMORY_NS 60.0

static double median3(double a, double b, double c) {
  if (a > b) {
    double t = a;
    a = b;
    b = t;
  }
  return c < a ? a : c > b ? b : c;
}

/* The fastest reading of points [lo, hi): a stretch's own latency (other load only ever
 * slows a trial). */
static double fastest(const double *ns, uint32_t lo, uint32_t hi) {
  double m = ns[lo];
  for (uint32_t i = lo + 1; i < hi; i++) m = ns[i] < m ? ns[i] : m;
  return m;
}

uint32_t calib_discover_levels(const uint64_t *bytes, const double *ns, uint32_t n, uint64_t *sizes,
                               double *lat_ns, uint32_t max) {
  if (n < 3 || max == 0) return 0;
  if (n > PPT_CALIB_MAX_DISCOVER) n = PPT_CALIB_MAX_DISCOVER;
  double s[PPT_CALIB_MAX_DISCOVER], r[PPT_CALIB_MAX_DISCOVER];
  for (uint32_t i = 0; i < n; i++) {
    if (!(ns[i] > 0) || !isfinite(ns[i])) return 0; /* a failed point: no reading of the curve */
    s[i] = i == 0 || i + 1 == n ? ns[i] : median3(ns[i - 1], ns[i], ns[i + 1]);
  }
  r[0] = 1;
  for (uint32_t i = 1; i < n; i++) r[i] = s[i] / s[i - 1];
  /* Stretches between boundaries: [cut[j], cut[j + 1]). */
  uint32_t cut[PPT_CALIB_MAX_DISCOVER + 1], ncut = 0;
  cut[ncut++] = 0;
  for (uint32_t i = 1; i < n; i++)
    if (r[i] >= RISE && r[i] >= r[i - 1] && (i + 1 == n || r[i] > r[i + 1])) cut[ncut++] = i;
  cut[ncut] = n;
  /* A cut whose stretches differ by less than LEVEL_GAP (fastest against fastest) is a
   * smeared slope within one level (a cache shared with other tenants reads that way),
   * not two: those stretches are merged. */
  uint32_t kept = 1;
  for (uint32_t j = 1; j < ncut; j++) {
    double before = fastest(ns, cut[kept - 1], cut[j]), after = fastest(ns, cut[j], cut[j + 1]);
    if (after >= LEVEL_GAP * before) cut[kept++] = cut[j];
  }
  ncut = kept;
  cut[ncut] = n;
  uint32_t found = 0;
  for (uint32_t j = 0; j + 1 < ncut && found < max; j++) {
    double before = fastest(ns, cut[j], cut[j + 1]), after = fastest(ns, cut[j + 1], cut[j + 2]);
    if (before >= MEMORY_NS) break;
    /* The level holds the largest set read at most midway between the two stretches. */
    double mid = 0.5 * (before + after);
    int best = -1;
    for (uint32_t i = cut[j]; i < cut[j + 2]; i++)
      if (ns[i] <= mid && (best < 0 || bytes[i] > bytes[best])) best = (int)i;
    if (best < 0) continue;
    sizes[found] = bytes[best];
    lat_ns[found] = before;
    found++;
  }
  return found;
}

uint32_t calib_discover_sweep(uint64_t from, uint64_t top, size_t stride, gsl_rng *rng, const calib_timing *t,
                              uint64_t *bytes, double *ns, uint32_t max, int *huge) {
  uint32_t m = 0;
  if (huge) *huge = 0;
  if (from < 4096) from = 4096;
  for (uint32_t i = 0; m < max; i++) {
    /* from x 2^(i/2), whole lines; the last point is top itself. */
    double x = (double)from * pow(2.0, 0.5 * i);
    uint64_t b = (uint64_t)(x / stride + 0.5) * stride;
    if (b >= top || m + 1 == max) b = top;
    if (m && b <= bytes[m - 1]) break;
    int h = 0;
    void *buf = calib_buffer((size_t)b, &h);
    if (huge) *huge |= h;
    /* A warm-up lap for sets a cache may hold; past 128 MiB a lap costs more than the
     * trials, and the trials' own growth phase warms whatever fits. */
    double v = buf ? calib_chase_ns(buf, (size_t)b, stride, b <= (UINT64_C(128) << 20), rng, t) : 0;
    calib_buffer_free(buf);
    if (!(v > 0)) break; /* out of memory: the points so far */
    bytes[m] = b;
    ns[m++] = v;
    if (b == top) break;
  }
  return m;
}

int calib_discover_caches(ppt_calib_result *out, uint64_t seed, const calib_timing *t, int quick, char *notes,
                          size_t notes_size) {
  ppt_calib_caches *c = &out->caches;
  uint32_t known = 0;
  while (known < c->nlevels && c->levels[known].source != PPT_CALIB_GEO_SWEEP) known++;
  if (known && known == c->nlevels) return 0; /* every level described */
  uint64_t bound = known < c->nlevels ? c->levels[known].size_bound : 0;
  uint32_t line = known ? c->levels[0].line : 64;
  if (line < 8 || line > 4096 || (line & (line - 1))) line = 64;
  /* From twice the last known level (every line of it misses there) to well past any
   * last level we know of: 256 MiB (a 96 MiB stacked L3 ends inside), 128 MiB when
   * quick; never over a quarter of memory. */
  uint64_t from = known ? 2 * c->levels[known - 1].size : 4096;
  uint64_t top = quick ? UINT64_C(128) << 20 : UINT64_C(256) << 20;
  if (bound && 4 * bound < top) top = 4 * bound;
  if (top < 8 * from) top = 8 * from;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && top > (uint64_t)pages * (uint64_t)page / 4)
    top = (uint64_t)pages * (uint64_t)page / 4;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!rng) return -1;
  gsl_rng_set(rng, (unsigned long)seed);
  int huge = 0;
  out->discover_n = calib_discover_sweep(from, top, line, rng, t, out->discover_bytes, out->discover_ns,
                                         PPT_CALIB_MAX_DISCOVER, &huge);
  gsl_rng_free(rng);
  uint64_t sizes[PPT_HW_MAX_LEVELS];
  double lat[PPT_HW_MAX_LEVELS];
  uint32_t found = calib_discover_levels(out->discover_bytes, out->discover_ns, out->discover_n, sizes, lat,
                                         PPT_HW_MAX_LEVELS - known);
  char a[32], b[32], s[32], m[32];
  const char *lo = calib_human_bytes(from, a, sizeof a);
  const char *hi =
      calib_human_bytes(out->discover_n ? out->discover_bytes[out->discover_n - 1] : from, b, sizeof b);
  if (found == 0) {
    c->nlevels = known;
    if (known) {
      calib_note(notes, notes_size,
                 "L%u: listed (%s) but not measured: no latency rise in a chase from %s to %s; left out.",
                 known + 1, c->levels[known].where, lo, hi);
      return 0;
    }
    /* Nothing known and nothing seen: one level the size of the smallest L1 we know,
     * so the spec stays usable, and said so. */
    ppt_calib_cache *lv = &c->levels[0];
    memset(lv, 0, sizeof *lv);
    lv->level = 1, lv->size = 32768, lv->assoc = 8, lv->line = line, lv->shared_cpus = out->smt;
    lv->source = PPT_CALIB_GEO_SWEEP, lv->assoc_assumed = 1;
    snprintf(lv->where, sizeof lv->where, "assumed");
    c->nlevels = 1;
    calib_note(notes, notes_size,
               "No cache geometry: neither CPUID nor sysfs describes one and a chase from %s to %s shows no "
               "level; one 32 KiB 8-way L1 is assumed.",
               lo, hi);
    return 0;
  }
  c->nlevels = known;
  for (uint32_t j = 0; j < found; j++) {
    ppt_calib_cache *lv = &c->levels[c->nlevels];
    memset(lv, 0, sizeof *lv);
    lv->level = c->nlevels + 1;
    uint64_t size = bound && sizes[j] > bound ? bound : sizes[j];
    /* The ways are invisible to a chase: 8 for the first two levels, 16 beyond, as most
     * CPUs have; the set count a power of two. */
    uint32_t ways = lv->level <= 2 ? 8 : 16;
    lv->size = calib_round_ways(size, line, &ways);
    lv->assoc = ways;
    lv->assoc_assumed = 1;
    lv->line = line;
    /* The outermost level found (past the first) is the package's, the others a core's. */
    lv->shared_cpus = j + 1 == found && lv->level >= 2 ? out->package_cpus : out->smt;
    lv->source = PPT_CALIB_GEO_SWEEP;
    snprintf(lv->where, sizeof lv->where, "chase sweep %s-%s", lo, hi);
    c->nlevels++;
    calib_note(notes, notes_size,
               "L%u measured: the chase reads %.3g ns up to %s and rises beyond (sweep %s to %s in half "
               "octaves); modelled as %s, %u ways assumed, %s.",
               lv->level, lat[j], calib_human_bytes(sizes[j], s, sizeof s), lo, hi,
               calib_human_bytes(lv->size, m, sizeof m), ways,
               lv->shared_cpus > out->smt ? "shared by the package (assumed)" : "private (assumed)");
  }
  return 0;
}
