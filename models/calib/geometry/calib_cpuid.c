/* calib_cpuid.c — the host's caches and topology as CPUID describes them, for `ppt
 * calibrate` on machines whose kernel publishes no cache folders in sysfs (virtual
 * machines whose hypervisor hides them, some containers), and as the first source
 * everywhere else (declarations and contracts: calib_impl.h, "calib_cpuid.c").
 *
 * The registers are read once (calib_cpuid_read) into a calib_cpuid_regs; everything
 * else here decodes such a record, so the tests decode recorded dumps of real CPUs the
 * same way. The leaves (Intel 64 and IA-32 Architectures SDM Vol. 2A, CPUID; AMD64
 * Architecture Programmer's Manual Vol. 3, Pub. 24594, Appendix E):
 *  - Deterministic cache parameters, Intel leaf 4 and AMD Fn8000_001D (same layout; AMD
 *    needs TopologyExtensions, Fn8000_0001 ECX[22]): one sub-leaf per cache until type
 *    0. EAX[4:0] type (1 data, 2 instruction, 3 unified), EAX[7:5] level, EAX[9] fully
 *    associative, EAX[25:14] logical processors sharing it - 1 (an ID count: a power of
 *    two at least the number present); EBX[11:0] line - 1, EBX[21:12] partitions - 1,
 *    EBX[31:22] ways - 1; ECX sets - 1. Size = ways x partitions x line x sets.
 *  - AMD's older leaves, when Fn8000_001D answers nothing: Fn8000_0005 ECX L1 data
 *    cache ([31:24] KiB, [23:16] ways (FFh fully associative), [7:0] line) and
 *    Fn8000_0006 ECX L2 ([31:16] KiB, [15:12] ways code, [7:0] line), EDX L3 ([31:18]
 *    units of 512 KiB, [15:12] ways code). They give no sharing, and the L3 figure is
 *    not one instance's (processors with several L3s, each shared by one core complex,
 *    report them together): the L3 is left to the chase sweep with that size as bound.
 *  - Topology: Intel leaf 0BH (and 1FH when present): per sub-leaf ECX[15:8] level type
 *    (1 SMT, 2 core, 3-5 module/tile/die), EBX[15:0] logical processors at that level
 *    and below; the SMT level's count is the threads per core, the last level's the
 *    package's. AMD: Fn8000_001E EBX[15:8] threads per core - 1 (with
 *    TopologyExtensions), Fn8000_0008 ECX[7:0] threads in the package - 1. */
#include <stdio.h>
#include <string.h>

#include "calib/calib_impl.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

int calib_cpuid_is_amd(const calib_cpuid_regs *r) {
  return !strcmp(r->vendor, "AuthenticAMD") || !strcmp(r->vendor, "HygonGenuine");
}

static int topoext(const calib_cpuid_regs *r) {
  return r->max_ext >= 0x80000001 && (r->x1[2] >> 22) & 1;
}

#ifdef HAVE_CPUID
/* Sub-leaves 0.. of `leaf` until end(regs) says the last one was past the end, at most
 * max; returns how many were kept. */
static uint32_t read_subleaves(uint32_t leaf, uint32_t (*out)[4], uint32_t max,
                               int (*end)(const uint32_t *)) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < max; i++) {
    unsigned a, b, c, d;
    __cpuid_count(leaf, i, a, b, c, d);
    uint32_t v[4] = {a, b, c, d};
    if (end(v)) break;
    memcpy(out[n++], v, sizeof v);
  }
  return n;
}
static int cache_end(const uint32_t *v) {
  return (v[0] & 0x1F) == 0; /* type 0: no more caches */
}
static int topo_end(const uint32_t *v) {
  return ((v[2] >> 8) & 0xFF) == 0; /* level type 0: invalid */
}
static int never_end(const uint32_t *v) {
  (void)v;
  return 0;
}
static void read_leaf(uint32_t leaf, uint32_t out[4]) {
  unsigned a, b, c, d;
  __cpuid_count(leaf, 0, a, b, c, d);
  out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}
#endif

int calib_cpuid_read(calib_cpuid_regs *r) {
  memset(r, 0, sizeof *r);
#ifdef HAVE_CPUID
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  r->max_basic = a;
  memcpy(r->vendor, &b, 4);
  memcpy(r->vendor + 4, &d, 4);
  memcpy(r->vendor + 8, &c, 4);
  r->vendor[12] = '\0';
  if (r->max_basic >= 1) read_leaf(1, r->l1);
  if (r->max_basic >= 4) r->n4 = read_subleaves(4, r->l4, CALIB_CPUID_MAX_SUB, cache_end);
  if (r->max_basic >= 0xB) r->nb = read_subleaves(0xB, r->lb, CALIB_CPUID_MAX_SUB, topo_end);
  if (r->max_basic >= 0x1F) r->n1f = read_subleaves(0x1F, r->l1f, CALIB_CPUID_MAX_SUB, topo_end);
  if (r->max_basic >= 0x18) {
    /* Sub-leaf 0's EAX is the last valid sub-leaf (calib_tlb.c). */
    __cpuid_count(0x18, 0, a, b, c, d);
    uint32_t n = a + 1 < CALIB_CPUID_MAX_SUB ? a + 1 : CALIB_CPUID_MAX_SUB;
    r->n18 = read_subleaves(0x18, r->l18, n, never_end);
  }
  r->max_ext = __get_cpuid_max(0x80000000, NULL);
  if (r->max_ext < 0x80000000) r->max_ext = 0;
  if (r->max_ext >= 0x80000001) read_leaf(0x80000001, r->x1);
  if (r->max_ext >= 0x80000005) read_leaf(0x80000005, r->x5);
  if (r->max_ext >= 0x80000006) read_leaf(0x80000006, r->x6);
  if (r->max_ext >= 0x80000008) read_leaf(0x80000008, r->x8);
  if (r->max_ext >= 0x8000001D) r->n1d = read_subleaves(0x8000001D, r->x1d, CALIB_CPUID_MAX_SUB, cache_end);
  if (r->max_ext >= 0x8000001E) read_leaf(0x8000001E, r->x1e);
  return 1;
#else
  return 0;
#endif
}

/* Appends a level at its place by level number; a second cache of a level already
 * listed (an instruction cache was skipped before) is left out. */
static void add_level(ppt_calib_caches *out, const ppt_calib_cache *c) {
  if (c->level == 0 || out->nlevels == PPT_HW_MAX_LEVELS) return;
  uint32_t at = out->nlevels;
  for (uint32_t k = 0; k < out->nlevels; k++) {
    if (out->levels[k].level == c->level) return;
    if (out->levels[k].level > c->level && at == out->nlevels) at = k;
  }
  memmove(&out->levels[at + 1], &out->levels[at], (out->nlevels - at) * sizeof out->levels[0]);
  out->levels[at] = *c;
  out->nlevels++;
}

uint32_t calib_cpuid_decode_caches(const uint32_t (*regs)[4], uint32_t n, uint32_t leaf,
                                   ppt_calib_caches *out) {
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t eax = regs[i][0], ebx = regs[i][1], ecx = regs[i][2];
    uint32_t type = eax & 0x1F;
    if (type == 0) break;
    if (type != 1 && type != 3) continue; /* instruction caches */
    ppt_calib_cache c;
    memset(&c, 0, sizeof c);
    c.level = (eax >> 5) & 0x7;
    c.line = (ebx & 0xFFF) + 1;
    uint64_t parts = ((ebx >> 12) & 0x3FF) + 1, ways = ((ebx >> 22) & 0x3FF) + 1, sets = (uint64_t)ecx + 1;
    c.size = ways * parts * c.line * sets;
    /* Fully associative: one set of every line; the schema's reading of 0 ways. */
    c.assoc = (eax >> 9) & 1 ? 0 : (uint32_t)(ways * parts);
    c.shared_cpus = ((eax >> 14) & 0xFFF) + 1;
    c.source = PPT_CALIB_GEO_CPUID;
    snprintf(c.where, sizeof c.where, "CPUID %s sub-leaf %u", leaf == 4 ? "leaf 4" : "Fn8000_001D", i);
    add_level(out, &c);
  }
  return out->nlevels;
}

uint32_t calib_amd_ways(uint32_t code, uint32_t entries) {
  /* AMD's 4-bit associativity code of the L2/L3 caches and TLBs (APM Vol. 3, Appendix E):
   * 1, 2, 3, 4, 6, 8, 16, 32, 48, 64, 96, 128 ways, Fh fully associative (`entries`).
   * Later revisions give some codes as ranges ("8 to 15 ways"); their lower bound is the
   * count here. 0 (disabled), 9 ("see Fn8000_001D") and the reserved codes give 0. */
  static const uint32_t ways[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
  return code == 0xF ? entries : ways[code & 0xF];
}

uint32_t calib_cpuid_decode_amd_legacy(uint32_t ecx5, uint32_t ecx6, uint32_t edx6, ppt_calib_caches *out) {
  memset(out, 0, sizeof *out);
  ppt_calib_cache c;
  memset(&c, 0, sizeof c);
  c.source = PPT_CALIB_GEO_LEGACY;
  c.shared_cpus = 1; /* per core: the threads of the core share it (folded as SMT) */
  /* L1 data */
  c.level = 1;
  c.size = (uint64_t)(ecx5 >> 24) << 10;
  c.line = ecx5 & 0xFF;
  uint32_t a1 = (ecx5 >> 16) & 0xFF;
  c.assoc = a1 == 0xFF ? 0 : a1;
  snprintf(c.where, sizeof c.where, "CPUID Fn8000_0005 ECX");
  if (c.size && c.line && a1) add_level(out, &c);
  /* L2 */
  c.level = 2;
  c.size = (uint64_t)(ecx6 >> 16) << 10;
  c.line = ecx6 & 0xFF;
  uint32_t code2 = (ecx6 >> 12) & 0xF;
  c.assoc = code2 == 0xF ? 0 : calib_amd_ways(code2, 0);
  snprintf(c.where, sizeof c.where, "CPUID Fn8000_0006 ECX");
  if (c.size && c.line && (c.assoc || code2 == 0xF)) add_level(out, &c);
  /* L3: exists, at most this big; one instance's size is for the sweep to find. */
  uint64_t l3 = (uint64_t)(edx6 >> 18) * (512u << 10);
  if (l3 && out->nlevels == 2) {
    c.level = 3;
    c.size = 0;
    c.size_bound = l3;
    c.line = edx6 & 0xFF;
    c.assoc = 0;
    c.shared_cpus = 0;
    c.source = PPT_CALIB_GEO_SWEEP;
    snprintf(c.where, sizeof c.where, "CPUID Fn8000_0006 EDX (bound)");
    add_level(out, &c);
  }
  return out->nlevels;
}

uint32_t calib_cpuid_caches(const calib_cpuid_regs *r, ppt_calib_caches *out) {
  memset(out, 0, sizeof *out);
  if (!r->vendor[0]) return 0;
  if (calib_cpuid_is_amd(r)) {
    if (topoext(r) && r->n1d &&
        calib_cpuid_decode_caches((const uint32_t(*)[4])r->x1d, r->n1d, 0x8000001D, out))
      return out->nlevels;
    if (r->max_ext >= 0x80000006) return calib_cpuid_decode_amd_legacy(r->x5[2], r->x6[2], r->x6[3], out);
    return 0;
  }
  /* Intel, and the others that follow Intel's leaf 4 (Zhaoxin, VIA). */
  return r->n4 ? calib_cpuid_decode_caches((const uint32_t(*)[4])r->l4, r->n4, 4, out) : 0;
}

/* Threads per core and per package from an Intel topology leaf (0BH or 1FH). */
static int topo_leaf(const uint32_t (*regs)[4], uint32_t n, uint32_t *smt, uint32_t *pkg) {
  uint32_t s = 0, p = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t type = (regs[i][2] >> 8) & 0xFF, count = regs[i][1] & 0xFFFF;
    if (type == 0 || count == 0) break;
    if (type == 1) s = count;
    p = count; /* the outermost level listed counts the package */
  }
  if (!p) return 0;
  *smt = s ? s : 1;
  *pkg = p;
  return 1;
}

int calib_cpuid_topology(const calib_cpuid_regs *r, uint32_t *smt, uint32_t *pkg, char *src,
                         size_t src_size) {
  if (!r->vendor[0]) return 0;
  if (r->n1f && topo_leaf((const uint32_t(*)[4])r->l1f, r->n1f, smt, pkg)) {
    snprintf(src, src_size, "CPUID leaf 1FH");
    return 1;
  }
  if (r->nb && topo_leaf((const uint32_t(*)[4])r->lb, r->nb, smt, pkg)) {
    snprintf(src, src_size, "CPUID leaf 0BH");
    return 1;
  }
  if (calib_cpuid_is_amd(r) && r->max_ext >= 0x80000008) {
    *pkg = (r->x8[2] & 0xFF) + 1;
    *smt = topoext(r) && r->max_ext >= 0x8000001E ? ((r->x1e[1] >> 8) & 0xFF) + 1 : 1;
    if (*smt > *pkg) *smt = 1;
    snprintf(src, src_size, "CPUID Fn8000_0008 ECX, Fn8000_001E EBX");
    return 1;
  }
  return 0;
}
