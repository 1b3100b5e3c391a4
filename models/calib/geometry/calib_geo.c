/* calib_geo.c — which source gives `ppt calibrate` the host's cache geometry and
 * topology, and how the sources are checked against each other (declarations and
 * contracts: calib_impl.h, "calib_geo.c").
 *
 * Caches: CPUID's deterministic leaf first (the vendor's own description, there on
 * every x86 machine, virtual or not, as long as the hypervisor passes it on), then
 * Linux sysfs (the same figures as the kernel read them, plus the CPU list of each
 * instance), then AMD's older leaves, and whatever is still unknown is measured
 * (calib_discover.c). Where CPUID and sysfs both answer they are compared level by
 * level; a disagreement is a note in the spec (CPUID's figures are kept).
 *
 * Topology: threads per core and logical CPUs per package from sysfs when the kernel
 * lists them (the CPUs the program's threads will run on), else from CPUID, else one
 * thread per core and every online CPU in one package. CPUID's counts are the
 * hypervisor's story in a virtual machine (this project's CI guest: Fn8000_0008 says
 * one thread per package while two vCPUs are online), so where both answer, sysfs wins
 * and a disagreement is noted. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "calib/calib_impl.h"

const char *calib_geo_source_name(int source) {
  switch (source) {
    case PPT_CALIB_GEO_CPUID: return "CPUID";
    case PPT_CALIB_GEO_LEGACY: return "CPUID (legacy leaves)";
    case PPT_CALIB_GEO_SYSFS: return "sysfs";
    default: return "measured";
  }
}

uint32_t calib_geo_compare(const ppt_calib_caches *a, const ppt_calib_caches *b, char *notes, size_t size) {
  uint32_t diffs = 0;
  for (uint32_t i = 0; i < a->nlevels; i++) {
    const ppt_calib_cache *x = &a->levels[i], *y = NULL;
    for (uint32_t j = 0; j < b->nlevels && !y; j++)
      if (b->levels[j].level == x->level) y = &b->levels[j];
    if (!y) {
      calib_note(notes, size, "L%u: %s lists it, %s does not.", x->level, calib_geo_source_name(x->source),
                 b->nlevels ? calib_geo_source_name(b->levels[0].source) : "the other source");
      diffs++;
      continue;
    }
    /* CPUID's sharing is a count of IDs (a power of two at least the CPUs present, all
     * of the host's in a guest): a list of no more CPUs agrees with it. */
    uint32_t sa = x->shared_cpus, sb = y->shared_cpus;
    int share_ok = x->source == PPT_CALIB_GEO_CPUID   ? sb <= sa
                   : y->source == PPT_CALIB_GEO_CPUID ? sa <= sb
                                                      : sa == sb;
    if (x->size != y->size || x->assoc != y->assoc || x->line != y->line || !share_ok) {
      calib_note(
          notes, size,
          "L%u: %s says %llu B, %u-way, %u B lines, %u CPUs sharing; %s says %llu B, %u-way, %u B, %u.",
          x->level, calib_geo_source_name(x->source), (unsigned long long)x->size, x->assoc, x->line,
          x->shared_cpus, calib_geo_source_name(y->source), (unsigned long long)y->size, y->assoc, y->line,
          y->shared_cpus);
      diffs++;
    }
  }
  for (uint32_t j = 0; j < b->nlevels; j++) {
    int listed = 0;
    for (uint32_t i = 0; i < a->nlevels; i++) listed |= a->levels[i].level == b->levels[j].level;
    if (!listed) {
      calib_note(notes, size, "L%u: %s lists it, %s does not.", b->levels[j].level,
                 calib_geo_source_name(b->levels[j].source),
                 a->nlevels ? calib_geo_source_name(a->levels[0].source) : "the other source");
      diffs++;
    }
  }
  return diffs;
}

/* The cpu0 topology files under cpu_dir: threads per core and the package's CPU list. */
static int sysfs_topology(const char *cpu_dir, uint32_t *smt, uint32_t *pkg, char *pkg_list,
                          size_t list_size) {
  char buf[256];
  if (calib_read_line(cpu_dir, "cpu0/topology", "thread_siblings_list", buf, sizeof buf) ||
      ppt_calib_cpulist_count(buf) == 0)
    return 0;
  *smt = ppt_calib_cpulist_count(buf);
  if ((calib_read_line(cpu_dir, "cpu0/topology", "package_cpus_list", pkg_list, list_size) &&
       calib_read_line(cpu_dir, "cpu0/topology", "core_siblings_list", pkg_list, list_size)) ||
      ppt_calib_cpulist_count(pkg_list) == 0) {
    pkg_list[0] = '\0';
    return 0;
  }
  *pkg = ppt_calib_cpulist_count(pkg_list);
  return 1;
}

void calib_find_topology(const calib_cpuid_regs *regs, const char *cpu_dir, ppt_calib_result *out,
                         char *pkg_list, size_t list_size, char *notes, size_t notes_size) {
  uint32_t s_smt = 0, s_pkg = 0, c_smt = 0, c_pkg = 0;
  char csrc[64] = "";
  int have_s = cpu_dir && sysfs_topology(cpu_dir, &s_smt, &s_pkg, pkg_list, list_size);
  int have_c = regs && calib_cpuid_topology(regs, &c_smt, &c_pkg, csrc, sizeof csrc);
  if (!have_s) pkg_list[0] = '\0';
  if (have_s) {
    out->smt = s_smt;
    out->package_cpus = s_pkg;
    snprintf(out->topology_source, sizeof out->topology_source,
             "sysfs cpu0/topology: thread_siblings_list (%u), package_cpus_list %s (%u)", s_smt, pkg_list,
             s_pkg);
    if (have_c && (c_smt != s_smt || c_pkg != s_pkg))
      calib_note(notes, notes_size,
                 "Topology: %s says %u thread(s) per core and %u per package, sysfs %u and %u; sysfs is used "
                 "(the CPUs the program runs on).",
                 csrc, c_smt, c_pkg, s_smt, s_pkg);
  } else if (have_c) {
    out->smt = c_smt;
    out->package_cpus = c_pkg;
    snprintf(out->topology_source, sizeof out->topology_source, "%s: %u thread(s) per core, %u per package",
             csrc, c_smt, c_pkg);
  } else {
    out->smt = 1;
    out->package_cpus = out->online_cpus;
    snprintf(out->topology_source, sizeof out->topology_source,
             "sysconf: %u online CPUs, one thread per core assumed (neither sysfs nor CPUID has a topology)",
             out->online_cpus);
  }
  if (out->smt == 0) out->smt = 1;
  /* CPUID tells of more CPUs in the package than this OS runs (a guest told of its
   * host's package): the program can use the online ones only. (sysfs lists the CPUs
   * the OS has, and a tree given for another machine is taken as it is.) */
  if (!have_s && (out->package_cpus > out->online_cpus || out->package_cpus == 0)) {
    calib_note(notes, notes_size, "Topology: %u CPUs per package reported, %u online; %u modelled.",
               out->package_cpus, out->online_cpus, out->online_cpus);
    out->package_cpus = out->online_cpus;
  }
  if (out->smt > out->package_cpus) out->smt = 1;
  if (!pkg_list[0]) {
    /* No list of the package's CPUs: assume the first ones by number. */
    if (out->package_cpus > 1)
      snprintf(pkg_list, list_size, "0-%u", out->package_cpus - 1);
    else
      snprintf(pkg_list, list_size, "0");
  }
}

void calib_fill_cpu_lists(ppt_calib_caches *c, uint32_t package_cpus, const char *pkg_list) {
  for (uint32_t k = 0; k < c->nlevels; k++) {
    ppt_calib_cache *lv = &c->levels[k];
    if (lv->shared_cpu_list[0] || strlen(pkg_list) >= sizeof lv->shared_cpu_list) continue;
    if (lv->shared_cpus >= package_cpus)
      snprintf(lv->shared_cpu_list, sizeof lv->shared_cpu_list, "%s", pkg_list);
    else if (lv->shared_cpus == 1)
      snprintf(lv->shared_cpu_list, sizeof lv->shared_cpu_list, "0");
  }
}

int calib_find_caches(const ppt_calib_config *cfg, const calib_cpuid_regs *regs, const char *cache_dir,
                      const char *pkg_list, ppt_calib_result *out, char *notes, size_t notes_size,
                      ppt_err *err) {
  ppt_calib_caches cp, sy;
  memset(&cp, 0, sizeof cp);
  memset(&sy, 0, sizeof sy);
  int choice = cfg->geometry;
  /* A tree given in the config (a fake one, in tests) is the whole story. */
  if (cfg->sysfs_dir) choice = PPT_CALIB_GEO_ONLY_SYSFS;
  if ((choice == PPT_CALIB_GEO_AUTO || choice == PPT_CALIB_GEO_ONLY_CPUID) && regs)
    calib_cpuid_caches(regs, &cp);
  if (choice == PPT_CALIB_GEO_AUTO || choice == PPT_CALIB_GEO_ONLY_SYSFS) {
    ppt_err e;
    if (ppt_calib_read_sysfs(cache_dir, &sy, &e)) {
      if (cfg->sysfs_dir) {
        if (err) *err = e;
        return e.status;
      }
      memset(&sy, 0, sizeof sy);
      if (choice == PPT_CALIB_GEO_ONLY_SYSFS)
        calib_note(notes, notes_size, "Cache geometry: sysfs has none (%s); measured instead.", e.msg);
    }
  }
  int deterministic = cp.nlevels && cp.levels[0].source == PPT_CALIB_GEO_CPUID;
  if (deterministic) {
    out->caches = cp;
    if (sy.nlevels) {
      calib_geo_compare(&cp, &sy, notes, notes_size);
      /* sysfs knows which CPUs share each instance; CPUID only how many IDs may. */
      for (uint32_t k = 0; k < cp.nlevels; k++)
        for (uint32_t j = 0; j < sy.nlevels; j++)
          if (sy.levels[j].level == cp.levels[k].level) {
            out->caches.levels[k].shared_cpus = sy.levels[j].shared_cpus;
            memcpy(out->caches.levels[k].shared_cpu_list, sy.levels[j].shared_cpu_list,
                   sizeof sy.levels[j].shared_cpu_list);
          }
    }
  } else if (sy.nlevels) {
    out->caches = sy;
  } else {
    out->caches = cp; /* the legacy leaves, or nothing: the sweep does the rest */
    if (choice == PPT_CALIB_GEO_ONLY_CPUID && !cp.nlevels)
      calib_note(notes, notes_size, "Cache geometry: CPUID describes no cache here; measured instead.");
  }
  calib_fill_cpu_lists(&out->caches, out->package_cpus, pkg_list);
  return 0;
}

int calib_find_geometry(const ppt_calib_config *cfg, calib_cpuid_regs *regs, const calib_timing *t,
                        ppt_calib_result *out, char *cpu_dir, size_t cpu_dir_size, char *pkg_list,
                        size_t list_size, char *notes, size_t notes_size, ppt_err *err) {
  const char *cache_dir = cfg->sysfs_dir ? cfg->sysfs_dir : "/sys/devices/system/cpu/cpu0/cache";
  if (cfg->sysfs_dir)
    snprintf(cpu_dir, cpu_dir_size, "%s/../..", cache_dir);
  else
    snprintf(cpu_dir, cpu_dir_size, "/sys/devices/system/cpu");
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  out->online_cpus = online > 0 ? (uint32_t)online : 1;
  int have_cpuid = calib_cpuid_read(regs);
  /* A fake sysfs tree (tests) describes another machine: this CPU's CPUID is not it. */
  const calib_cpuid_regs *geo_regs = have_cpuid && !cfg->sysfs_dir ? regs : NULL;
  calib_find_topology(geo_regs, cpu_dir, out, pkg_list, list_size, notes, notes_size);
  int rc = calib_find_caches(cfg, geo_regs, cache_dir, pkg_list, out, notes, notes_size, err);
  if (rc) return rc;
  if (calib_discover_caches(out, cfg->seed + 1, t, cfg->quick, notes, notes_size))
    return ppt_err_set(err, PPT_ERUN, "calibrate: out of memory (cache sweep)");
  calib_fill_cpu_lists(&out->caches, out->package_cpus, pkg_list); /* levels the sweep found */
  return 0;
}
