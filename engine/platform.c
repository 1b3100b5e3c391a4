/* engine/platform.c — the SimGrid platform of a node, generated from its hwspec.
 *
 * One zone with full routing:
 *   core hosts  c<i>        one per core; the thread's actor lives here
 *   level hosts m<k>_<j>    far end of instance j of shared level k (k = nlevels: DRAM)
 *   links       l<k>_<j>    bandwidth of that instance, latency 0
 *   routes      c<i> -> m<k>_<instance of i>, through l<k>_<instance>
 *   line host   line        where threads take turns on a contended line: their turns
 *                           are executions there, so n threads at once get 1/n each
 *                           (docs/engine.md, "Contended lines")
 * Private levels get no link: a resource only its own core uses can never be
 * contended, so its time is exact as plain cycles (engine/sim.c), and leaving it out
 * saves a SimGrid activity per thread per region. Latencies are not links either:
 * AMM charges latency per access, not per transfer, and it does not depend on load
 * in this model. Units: one SimGrid second = one cycle (engine_internal.h). */
#include "engine_internal.h"

int eng_level_shared(const ppt_node *node, uint32_t k) {
  if (k == node->hw.nlevels) return 1;
  return node->hw.levels[k].shared_by > 1;
}

uint32_t eng_level_instance(const ppt_node *node, uint32_t k, uint32_t c) {
  if (k == node->hw.nlevels) return 0;
  return c / node->hw.levels[k].shared_by;
}

static uint32_t level_instances(const ppt_node *node, uint32_t k) {
  return eng_level_instance(node, k, node->cores - 1) + 1;
}

void eng_core_name(char *buf, size_t n, uint32_t c) {
  snprintf(buf, n, "c%u", c);
}

void eng_level_host_name(char *buf, size_t n, uint32_t k, uint32_t i) {
  snprintf(buf, n, "m%u_%u", k, i);
}

/* Bandwidth of one instance of level k in bytes per cycle. */
static double level_bw(const ppt_node *node, uint32_t k) {
  return ppt_hwspec_level_bw(&node->hw, k);
}

int eng_core_link(const ppt_node *node, uint32_t k) {
  return eng_level_shared(node, k) && ppt_hwspec_core_bw(&node->hw, k) < level_bw(node, k);
}

void eng_core_link_name(char *buf, size_t n, uint32_t k, uint32_t c) {
  snprintf(buf, n, "lc%u_%u", k, c);
}

int eng_platform_write(const ppt_node *node, FILE *f) {
  const ppt_hwspec *hw = &node->hw;
  char name[32];
  fprintf(f,
          "<?xml version='1.0'?>\n"
          "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
          "<platform version=\"4.1\">\n<zone id=\"node\" routing=\"Full\">\n");
  /* Speeds are irrelevant (threads sleep for their contention-free cycles) but
   * required; 1 flop per second = 1 per cycle keeps the unit consistent. */
  for (uint32_t c = 0; c < node->cores; c++) {
    eng_core_name(name, sizeof name, c);
    fprintf(f, "<host id=\"%s\" speed=\"1f\"/>\n", name);
  }
  fprintf(f, "<host id=\"" ENG_LINE_HOST "\" speed=\"1f\"/>\n");
  for (uint32_t k = 0; k <= hw->nlevels; k++) {
    if (!eng_level_shared(node, k)) continue;
    for (uint32_t i = 0; i < level_instances(node, k); i++) {
      eng_level_host_name(name, sizeof name, k, i);
      fprintf(f, "<host id=\"%s\" speed=\"1f\"/>\n", name);
      fprintf(f, "<link id=\"l%u_%u\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n", k, i, level_bw(node, k));
    }
  }
  /* A core's own link in front of each shared level (and DRAM) whose spec caps what one
   * core alone can draw (levels[k].core_bandwidth_bytes_per_cycle,
   * dram.core_bandwidth_gbs): max-min sharing then gives each streaming core min(its own
   * rate, its share of the instance). */
  for (uint32_t k = 0; k <= hw->nlevels; k++) {
    if (!eng_core_link(node, k)) continue;
    for (uint32_t c = 0; c < node->cores; c++) {
      eng_core_link_name(name, sizeof name, k, c);
      fprintf(f, "<link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n", name,
              ppt_hwspec_core_bw(hw, k));
    }
  }
  for (uint32_t c = 0; c < node->cores; c++) {
    for (uint32_t k = 0; k <= hw->nlevels; k++) {
      if (!eng_level_shared(node, k)) continue;
      uint32_t i = eng_level_instance(node, k, c);
      eng_level_host_name(name, sizeof name, k, i);
      fprintf(f, "<route src=\"c%u\" dst=\"%s\">", c, name);
      if (eng_core_link(node, k)) {
        eng_core_link_name(name, sizeof name, k, c);
        fprintf(f, "<link_ctn id=\"%s\"/>", name);
      }
      fprintf(f, "<link_ctn id=\"l%u_%u\"/></route>\n", k, i);
    }
  }
  fprintf(f, "</zone>\n</platform>\n");
  return ferror(f) ? -1 : 0;
}
