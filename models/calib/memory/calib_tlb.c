/* calib_tlb.c — the host's data TLB for `ppt calibrate`: its levels from CPUID, and
 * what a miss at each level costs, timed by pointer chasing (declarations and contracts:
 * calib_impl.h, "calib_tlb.c").
 *
 * Geometry. Sysfs says nothing about TLBs, CPUID does:
 *  - AMD (AMD64 Architecture Programmer's Manual Vol. 3, Pub. 24594, Appendix E,
 *    "CPUID Fn8000_0005 L1 Cache and TLB Identifiers" and "Fn8000_0006 L2 Cache and
 *    TLB Identifiers"): Fn8000_0005 EBX[31:24] L1 DTLB associativity for 4 KiB pages
 *    (the way count itself, FFh fully associative), EBX[23:16] its entries;
 *    Fn8000_0006 EBX[31:28] L2 DTLB associativity for 4 KiB pages, EBX[27:16] its
 *    entries, the associativity encoded as in the table "L2/L3 Cache and TLB
 *    Associativity Field Encoding" (calib_amd_ways, calib_cpuid.c);
 *  - Intel (Intel 64 and IA-32 Architectures SDM Vol. 2A, CPUID, "Deterministic
 *    Address Translation Parameters Leaf", EAX = 18H): sub-leaf 0 EAX is the last valid
 *    sub-leaf; each sub-leaf EBX[0] 4 KiB pages supported, EBX[31:16] ways; ECX sets;
 *    EDX[4:0] type (0 null, 1 data, 2 instruction, 3 unified, 4 load-only, 5 store-only
 *    TLB), EDX[7:5] level (from 1), EDX[8] fully associative.
 *
 * Miss cost. A pointer chase that touches one line in each of P pages waits, at every
 * load, for the translation as well as for the line; the same chase over P consecutive
 * lines of a huge-page buffer waits for the line alone. With P four times a level's
 * entries, an LRU level of that size keeps nothing of the cyclic walk (twice would do;
 * four leaves room for a replacement that is not quite LRU), so the difference is the
 * cost of missing every level up to it. Both chases visit the lines in the same random
 * order (Sattolo, seeded), so the prefetchers see no pattern in either, and the lines
 * of the sparse buffer rotate through the 64 line slots of a page so that they spread
 * over the L1 sets as the compact buffer's do. The timed kernel is calib_mem.c's.
 *
 * Walks in flight. The chase waits for each walk before it can start the next; loads of
 * the same lines in the same order whose addresses come from an array do not, so the
 * core starts as many walks as it has page walkers. The chase's extra time per access
 * over the loads' is how many overlap (calib_tlb_in_flight). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "calib/calib_impl.h"

#define PAGE 4096u
#define LINE 64u

/* Appends a level after making it one the hwspec can hold (see calib_impl.h). */
static void geo_add(calib_tlb_geo *g, uint32_t entries, uint32_t assoc) {
  if (!entries || !assoc || g->nlevels == PPT_HW_MAX_TLB) return;
  if (assoc > entries) assoc = entries;
  uint32_t sets = entries / assoc, p = 1;
  while (p <= sets / 2) p *= 2;
  entries = p * assoc;
  if (g->nlevels && entries <= g->entries[g->nlevels - 1]) return;
  g->entries[g->nlevels] = entries;
  g->assoc[g->nlevels] = assoc;
  g->nlevels++;
}

uint32_t calib_tlb_decode_amd(uint32_t ebx5, uint32_t ebx6, calib_tlb_geo *g) {
  memset(g, 0, sizeof *g);
  uint32_t e1 = (ebx5 >> 16) & 0xFF, a1 = ebx5 >> 24;
  geo_add(g, e1, a1 == 0xFF ? e1 : a1);
  uint32_t e2 = (ebx6 >> 16) & 0xFFF;
  geo_add(g, e2, calib_amd_ways(ebx6 >> 28, e2));
  snprintf(g->source, sizeof g->source, "CPUID Fn8000_0005/6 EBX (AMD)");
  return g->nlevels;
}

uint32_t calib_tlb_decode_intel(const uint32_t (*regs)[4], uint32_t n, calib_tlb_geo *g) {
  memset(g, 0, sizeof *g);
  /* Per level, the largest structure that holds 4 KiB translations of loads: data,
   * unified or load-only (store-only and instruction TLBs are not what a load waits on;
   * a level may list several, e.g. one per page size). */
  uint32_t best_e[8] = {0}, best_a[8] = {0};
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ebx = regs[i][1], ecx = regs[i][2], edx = regs[i][3];
    uint32_t type = edx & 0x1F, level = (edx >> 5) & 0x7;
    if (!(ebx & 1) || (type != 1 && type != 3 && type != 4) || level == 0) continue;
    uint64_t ways = ebx >> 16, entries = ways * ecx;
    if (!entries || entries > UINT32_MAX) continue;
    if (entries > best_e[level]) {
      best_e[level] = (uint32_t)entries;
      best_a[level] = (edx >> 8) & 1 ? (uint32_t)entries : (uint32_t)ways;
    }
  }
  for (uint32_t lv = 1; lv < 8; lv++) geo_add(g, best_e[lv], best_a[lv]);
  snprintf(g->source, sizeof g->source, "CPUID leaf 18H (Intel)");
  return g->nlevels;
}

int calib_tlb_geometry(const calib_cpuid_regs *r, calib_tlb_geo *g) {
  memset(g, 0, sizeof *g);
  if (calib_cpuid_is_amd(r)) {
    if (r->max_ext >= 0x80000006) calib_tlb_decode_amd(r->x5[1], r->x6[1], g);
  } else if (!strcmp(r->vendor, "GenuineIntel") && r->n18) {
    calib_tlb_decode_intel((const uint32_t(*)[4])r->l18, r->n18, g);
  }
  return (int)g->nlevels;
}

/* The two buffers of a probe over `pages` pages, linked in one random cycle: sparse (one
 * line per small page) and dense (as many consecutive lines, huge pages requested). */
typedef struct tlb_probe {
  char *sparse, *dense;
  size_t pages, len;
  size_t *perm; /* the visiting order: line i links to line perm[i] */
} tlb_probe;

static void probe_free(tlb_probe *p) {
  free(p->perm);
  calib_buffer_free(p->dense);
  if (p->sparse) munmap(p->sparse, p->len);
}

static char *sparse_line(const tlb_probe *p, size_t i) {
  return p->sparse + i * PAGE + (i % (PAGE / LINE)) * LINE;
}

static int probe_make(tlb_probe *p, size_t pages, int *huge, gsl_rng *rng) {
  memset(p, 0, sizeof *p);
  p->pages = pages;
  p->len = pages * PAGE;
  p->sparse = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p->sparse == MAP_FAILED) {
    p->sparse = NULL;
    return -1;
  }
#ifdef MADV_NOHUGEPAGE
  /* Small pages whatever the THP setting: every page must need its own translation. */
  (void)madvise(p->sparse, p->len, MADV_NOHUGEPAGE);
#endif
  memset(p->sparse, 1, p->len); /* fault every page in now, not while timing */
  p->dense = calib_buffer(pages * LINE, huge);
  p->perm = calib_cyclic_perm(pages, rng);
  if (!p->dense || !p->perm) {
    probe_free(p);
    return -1;
  }
  for (size_t i = 0; i < pages; i++) {
    *(void **)sparse_line(p, i) = sparse_line(p, p->perm[i]);
    *(void **)(p->dense + i * LINE) = p->dense + p->perm[i] * LINE;
  }
  return 0;
}

double calib_tlb_miss_ns(size_t pages, int *huge, gsl_rng *rng, const calib_timing *t) {
  if (huge) *huge = 0;
  if (pages < 2) return NAN;
  tlb_probe p;
  if (probe_make(&p, pages, huge, rng)) return NAN;
  /* Interleaved rounds: a slow spell of the host (other tenants) hits both chases. */
  double ts = INFINITY, td = INFINITY;
  for (int round = 0; round < 2; round++) {
    double x = calib_chase_cycle_ns(p.sparse, pages, 1, t), y = calib_chase_cycle_ns(p.dense, pages, 1, t);
    ts = x < ts ? x : ts;
    td = y < td ? y : td;
  }
  probe_free(&p);
  return ts - td;
}

/* ---- walks in flight ---- */

typedef struct indep {
  char *const *addr; /* the lines, in the chase's order */
  size_t n, at;
  uint64_t sink;
} indep;

/* Loads whose addresses come from an array, not from the loads before them: nothing
 * stops the core from issuing the next ones while a walk is pending. */
CALIB_KERNEL static void k_indep(void *arg, uint64_t n) {
  indep *a = arg;
  uint64_t s = a->sink;
  size_t at = a->at;
  for (uint64_t i = 0; i < n; i++) {
    s += *(const uint64_t *)a->addr[at];
    if (++at == a->n) at = 0;
  }
  a->at = at;
  a->sink = s;
}

static double indep_ns(char **addr, size_t n, const calib_timing *t) {
  indep a = {.addr = addr, .n = n};
  k_indep(&a, n); /* one lap brings the lines into the cache */
  return 1e9 * calib_measure(k_indep, &a, 16, t);
}

double calib_tlb_in_flight(size_t pages, gsl_rng *rng, const calib_timing *t, double *chase_ns,
                           double *load_ns) {
  *chase_ns = *load_ns = NAN;
  if (pages < 2) return NAN;
  tlb_probe p;
  if (probe_make(&p, pages, NULL, rng)) return NAN;
  char **sa = malloc(2 * pages * sizeof *sa), **da = sa ? sa + pages : NULL;
  if (!sa) {
    probe_free(&p);
    return NAN;
  }
  /* The chase's order for the loads too: the same lines, the same pages, in the same
   * sequence, so what differs is only whether a load waits for the one before it. */
  for (size_t i = 0, at = 0; i < pages; i++, at = p.perm[at]) {
    sa[i] = sparse_line(&p, at);
    da[i] = p.dense + at * LINE;
  }
  double cs = INFINITY, cd = INFINITY, ls = INFINITY, ld = INFINITY;
  for (int round = 0; round < 2; round++) {
    cs = fmin(cs, calib_chase_cycle_ns(p.sparse, pages, 1, t));
    cd = fmin(cd, calib_chase_cycle_ns(p.dense, pages, 1, t));
    ls = fmin(ls, indep_ns(sa, pages, t));
    ld = fmin(ld, indep_ns(da, pages, t));
  }
  free(sa);
  probe_free(&p);
  *chase_ns = cs - cd;
  *load_ns = ls - ld;
  return calib_tlb_overlap(*chase_ns, *load_ns);
}

double calib_tlb_overlap(double chase_ns, double load_ns) {
  if (!(chase_ns > 0) || isnan(load_ns)) return NAN;
  double k = load_ns > 0 ? chase_ns / load_ns : HUGE_VAL;
  return fmin(fmax(k, 1.0), CALIB_TLB_MAX_IN_FLIGHT);
}

uint32_t calib_tlb_held(const double *extra_ns, uint32_t n) {
  /* The full walk is the sweep's largest extra; a reach the level holds costs little
   * of it. As for the cache levels (calib_size.c), the cut is midway: a set-associative
   * TLB starts to miss some pages of a random reach well before the reach is its size
   * (the VM's L2 DTLB cost 0.7 ns of a 12 ns walk at 2048 pages), so the level holds the
   * largest reach whose extra is at most half the walk. */
  double top = 0;
  for (uint32_t i = 0; i < n; i++)
    if (extra_ns[i] > top) top = extra_ns[i];
  uint32_t held = n;
  for (uint32_t i = 0; i < n; i++)
    if (extra_ns[i] <= 0.5 * top) held = i;
  return held;
}

/* Level j's chase at `pages`, less what the levels above explain. */
static double beyond(uint64_t pages, double below, gsl_rng *rng, const calib_timing *t) {
  double d = calib_tlb_miss_ns((size_t)pages, NULL, rng, t);
  return isnan(d) ? d : d - below;
}

int calib_tlb_measure(calib_tlb_geo *g, uint64_t cache_bytes, gsl_rng *rng, const calib_timing *t,
                      double miss_ns[], uint64_t pages_used[]) {
  double below = 0; /* what the levels above explain of each access's extra time */
  for (uint32_t j = 0; j < g->nlevels; j++) {
    uint64_t pages = 4ull * g->entries[j];
    if (cache_bytes && pages * LINE > cache_bytes / 2) pages = cache_bytes / 2 / LINE;
    if (pages < 2ull * g->entries[j]) pages = 2ull * g->entries[j];
    double d = beyond(pages, below, rng, t);
    if (isnan(d)) return -1;
    double cut = fmax(0.25, 0.25 * below);
    if (j > 0 && d <= cut) {
      /* Nothing beyond the level above at twice to four times the entries CPUID gives: the
       * level is larger than it says (a hypervisor's synthesised leaf: this validation
       * VM reports a 128-entry L2 DTLB on a Zen 5, whose L2 DTLB holds 4096). Double the
       * reach until the walks show; the level holds the last reach that showed none. */
      uint64_t ps[CALIB_TLB_MAX_SWEEP + 1] = {pages};
      double xs[CALIB_TLB_MAX_SWEEP + 1] = {d};
      uint32_t m = 1;
      /* Within half the cache_bytes of lines, as above: beyond, the sparse chase's
       * lines and page tables miss the caches too (on the VM a reach of 16384 pages
       * read 257 ns more than the dense one), which is not the TLB's cost. */
      for (; m <= CALIB_TLB_MAX_SWEEP && (!cache_bytes || 2 * ps[m - 1] * LINE <= cache_bytes / 2); m++) {
        ps[m] = 2 * ps[m - 1];
        if (isnan(xs[m] = beyond(ps[m], below, rng, t))) return -1;
      }
      uint32_t i = calib_tlb_held(xs, m);
      /* A walk must show at the sweep's end (its largest extra above the noise floor),
       * and the level hold more than CPUID said. */
      if (i < m && xs[m - 1] > cut && ps[i] > g->entries[j] && ps[i] <= UINT32_MAX) {
        /* Its ways are unknown: kept, with the power-of-two set count the models need. */
        uint32_t held = (uint32_t)ps[i];
        uint32_t a = g->assoc[j] == g->entries[j] ? held : g->assoc[j];
        g->entries[j] = held;
        g->assoc[j] = a;
        g->grown[j] = 1;
        /* The cost at 4 x the entries, as for a level CPUID sized right. */
        pages = 4ull * held;
        if (isnan(d = beyond(pages, below, rng, t))) return -1;
      }
    }
    miss_ns[j] = d > 0 ? d : 0;
    below += miss_ns[j];
    if (pages_used) pages_used[j] = pages;
  }
  return 0;
}
