/* tests/engine/test_engine.c — the SimGrid node against hand-worked answers.
 *
 * Fixture (tests/cpu/tc_fixture.h): 1 GHz, so 1 cycle = 1 ns; L1 (4 cycles, 64 B/c),
 * L2 (14, 32), L3 (50, 16, shared by 8), DRAM (100, 8 B/c).
 *
 * A "stream" is 1024 accesses of 64 B in one block of 64 KiB (b = 1024), all served by
 * one level: the first access waits that level's latency once (1024/1024 accesses pay
 * it), the other 1023 stream 65472 B at the level's bandwidth. From DRAM alone:
 * 100 + 65472/8 = 100 + 8184 = 8284 cycles. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/tc_fixture.h"
#include "ppt/engine.h"

#define ck_close(a, b) ck_assert_double_eq_tol((a), (double)(b), 1e-9 * (1.0 + fabs((double)(b))))
#define NS 1e-9

static const ppt_mem_access STREAM = {.accesses = 1024, .bytes_per_access = 64, .block_bytes = 65536};

/* A tasklist whose accesses are all served by memory level `level` (nlevels: DRAM),
 * plus `cycles` of compute. */
static ppt_tasklist *stream_from(uint32_t nlevels, uint32_t level, double cycles) {
  double h[PPT_HW_MAX_LEVELS] = {0};
  if (level < nlevels) h[level] = 1.0;
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &STREAM, nlevels, h, &err), 0);
  if (cycles > 0) ck_assert_int_eq(ppt_tasklist_add_cycles(tl, cycles, &err), 0);
  return tl;
}

static ppt_tasklist *compute_only(double cycles) {
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  ck_assert_int_eq(ppt_tasklist_add_cycles(tl, cycles, &err), 0);
  return tl;
}

static ppt_node *make_node(const ppt_hwspec *hw, uint32_t cores, ppt_overlap o) {
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = cores;
  /* AMM's memory model and PPT's summed op classes: what the hand computations use. */
  cfg.policy = (ppt_tc_policy){.overlap = o, .fraction = 0.5, .compute = PPT_COMPUTE_SUM, .memory = PPT_MEMORY_AMM};
  ppt_node *node;
  ppt_err err;
  ck_assert_msg(ppt_node_new(hw, &cfg, &node, &err) == 0, "%s", err.msg);
  return node;
}

/* Runs one parallel region of n threads all running tl; returns the result. */
static ppt_node_result *run_parallel(const ppt_node *node, size_t n, const ppt_tasklist *tl) {
  const ppt_tasklist *tls[64];
  for (size_t t = 0; t < n; t++) tls[t] = tl;
  ppt_program *prog = ppt_program_new();
  ppt_err err;
  ck_assert_int_eq(ppt_program_add_parallel(prog, n, tls, &err), 0);
  ppt_node_result *res;
  ck_assert_msg(ppt_node_run(node, prog, &res, &err) == 0, "%s", err.msg);
  ppt_program_free(prog);
  return res;
}

/* Runs tl on n[i] threads of node for each i < count; each run takes cycles[i]. */
static void check_runs(const ppt_node *node, const ppt_tasklist *tl, const size_t *n, const double *cycles,
                       size_t count) {
  for (size_t i = 0; i < count; i++) {
    ppt_node_result *res = run_parallel(node, n[i], tl);
    ck_close(ppt_node_result_seconds(res), cycles[i] * NS);
    ppt_node_result_free(res);
  }
}

static double thread_busy(const ppt_node_result *res, size_t region, size_t t) {
  ppt_thread_stats ts;
  ck_assert_int_eq(ppt_node_result_thread(res, region, t, &ts), 0);
  return ts.busy_s;
}

START_TEST(dram_contention) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2); /* L1, L2 private: DRAM is the only shared resource */
  ppt_tasklist *tl = stream_from(2, 2, 0);
  ppt_node *node = make_node(&hw, 8, PPT_OVERLAP_SUM);
  /* Alone: 8284 cycles. Two streaming together get half the bandwidth each:
   * 100 + 2 · 8184 = 16468. Eight: 100 + 8 · 8184 = 65572. */
  const struct {
    size_t n;
    double cycles;
  } cases[] = {{1, 8284}, {2, 16468}, {8, 65572}};
  for (size_t i = 0; i < 3; i++) {
    ppt_node_result *res = run_parallel(node, cases[i].n, tl);
    ck_close(ppt_node_result_seconds(res), cases[i].cycles * NS);
    for (size_t t = 0; t < cases[i].n; t++) {
      ppt_thread_stats ts;
      ck_assert_int_eq(ppt_node_result_thread(res, 0, t, &ts), 0);
      ck_close(ts.busy_s, cases[i].cycles * NS);
      ck_close(ts.memory_s, cases[i].cycles * NS);
      ck_close(ts.memory_alone_s, 8284 * NS);
      ck_close(ts.compute_s, 0);
      ck_close(ts.wait_s, 0);
    }
    ppt_node_result_free(res);
  }
  ppt_node_free(node);
  ppt_tasklist_free(tl);
}
END_TEST

START_TEST(shared_cache_instances) {
  /* L3 shared by 4 (16 B/c per instance): threads 0–3 share instance 0, thread 4 has
   * instance 1 to itself. Stream from L3 alone: 50 + 65472/16 = 50 + 4092 = 4142;
   * four sharing: 50 + 4 · 4092 = 16418. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.levels[2].shared_by = 4;
  ppt_tasklist *tl = stream_from(3, 2, 0);
  ppt_node *node = make_node(&hw, 8, PPT_OVERLAP_SUM);
  ppt_node_result *res = run_parallel(node, 5, tl);
  for (size_t t = 0; t < 4; t++) ck_close(thread_busy(res, 0, t), 16418 * NS);
  ck_close(thread_busy(res, 0, 4), 4142 * NS);
  ppt_thread_stats ts;
  ck_assert_int_eq(ppt_node_result_thread(res, 0, 4, &ts), 0);
  ck_close(ts.wait_s, (16418 - 4142) * NS);
  ck_close(ppt_node_result_seconds(res), 16418 * NS);
  ppt_node_result_free(res);
  ppt_node_free(node);
  /* A private L3 is never contended. */
  hw.levels[2].shared_by = 1;
  node = make_node(&hw, 8, PPT_OVERLAP_SUM);
  res = run_parallel(node, 5, tl);
  for (size_t t = 0; t < 5; t++) ck_close(thread_busy(res, 0, t), 4142 * NS);
  ppt_node_result_free(res);
  ppt_node_free(node);
  ppt_tasklist_free(tl);
}
END_TEST

START_TEST(single_core_matches_time_compute) {
  /* Alone on the node, a thread takes exactly ppt_time_compute's time, whatever the
   * policy: the engine only adds contention. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_tasklist *tl = ppt_tasklist_new();
  ppt_err err;
  const double h[] = {0.9, 0.5, 0.6};
  const ppt_mem_access m = {.accesses = 1000, .bytes_per_access = 8, .block_bytes = 64};
  ck_assert_int_eq(ppt_tasklist_add_hitrates(tl, &m, 3, h, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_falu(tl, 800, &err), 0);
  ck_assert_int_eq(ppt_tasklist_add_level_accesses(tl, 3, 3, &err), 0);
  const ppt_overlap pols[] = {PPT_OVERLAP_SUM, PPT_OVERLAP_MAX, PPT_OVERLAP_PARTIAL};
  for (size_t i = 0; i < 3; i++) {
    ppt_node *node = make_node(&hw, 4, pols[i]);
    ppt_tc_policy p = {.overlap = pols[i], .fraction = 0.5};
    ppt_tc_stats st;
    ck_assert_int_eq(ppt_time_compute(&hw, tl, &p, &st, &err), 0);
    ppt_program *prog = ppt_program_new();
    ck_assert_int_eq(ppt_program_add_serial(prog, tl, &err), 0);
    ppt_node_result *res;
    ck_assert_int_eq(ppt_node_run(node, prog, &res, &err), 0);
    ck_close(ppt_node_result_seconds(res), st.seconds);
    ppt_region_stats rs;
    ck_assert_int_eq(ppt_node_result_region(res, 0, &rs), 0);
    ck_assert_int_eq(rs.parallel, 0);
    ck_assert_int_eq(rs.nthreads, 1);
    ppt_node_result_free(res);
    ppt_program_free(prog);
    ppt_node_free(node);
  }
  ppt_tasklist_free(tl);
}
END_TEST

/* One core streams from DRAM at its own rate (dram.core_bandwidth_gbs, 3 B/cycle here)
 * however fast the socket (8 B/cycle): 100 + 1023 · 64 / 3 = 21924 cycles alone and
 * with two cores (each min(3, 8/2)); with four the socket binds: 8/4 = 2 B/cycle each,
 * 100 + 1023 · 64 / 2 = 32836. */
START_TEST(core_dram_link) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.dram_core_bw_bytes_per_s = 3e9;
  ppt_tasklist *tl = stream_from(2, 2, 0);
  ppt_node *node = make_node(&hw, 8, PPT_OVERLAP_SUM);
  check_runs(node, tl, (const size_t[]){1, 2, 4}, (const double[]){21924, 21924, 32836}, 3);
  ppt_node_free(node);
  ppt_tasklist_free(tl);
}
END_TEST

/* A core's own cap bounds the lines its misses bring in, not its write-backs, which
 * leave meanwhile and count against the instance only (engine/sim.c, docs/engine.md
 * "Memory miss"). PIPE memory, 1000 DRAM accesses of 64 B lines, all prefetched (no
 * waiting), half written back: fills 64000 B, write-backs 32000 B; DRAM 8 B/cycle, one
 * core 3. One core: max(64000 / 3, 96000 / 8) = 21333.3 cycles (all 96000 B at the
 * core's 3 would be 32000); two: max(21333.3, 96000 / 4) = 24000; four: 96000 / 2 =
 * 48000. MISS memory, 1000 accesses served by L2 (private, 32 B/cycle) whose dirty lines
 * go to L3 (16 B/cycle, shared by 8, one core 4) at a quarter of the accesses: L2 2000
 * cycles + L3 16000 / 16 = 1000, not capped by the core's 4 (no fills there); eight
 * cores share L3: 2000 + 16000 / 2 = 10000. */
START_TEST(core_link_fills_only) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.dram_core_bw_bytes_per_s = 3e9;
  ppt_tasklist *tl = fx_fill_wb(2, 2, 1, 2, 0.5);
  ck_assert_ptr_nonnull(tl);
  ppt_err err;
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = 4;
  cfg.policy =
      (ppt_tc_policy){.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_PIPE};
  ppt_node *node;
  ck_assert_msg(ppt_node_new(&hw, &cfg, &node, &err) == 0, "%s", err.msg);
  check_runs(node, tl, (const size_t[]){1, 2, 4}, (const double[]){64000.0 / 3, 24000, 48000}, 3);
  ppt_node_free(node);
  ppt_tasklist_free(tl);

  fx_hwspec(&hw, 3);
  hw.levels[2].core_bw_bytes_per_cycle = 4;
  tl = fx_fill_wb(3, 1, 0, 2, 0.25);
  ck_assert_ptr_nonnull(tl);
  cfg.cores = 8;
  cfg.policy.memory = PPT_MEMORY_MISS;
  ck_assert_msg(ppt_node_new(&hw, &cfg, &node, &err) == 0, "%s", err.msg);
  /* L2's 1000 misses each wait its 14 cycles: 14000 of waiting beyond the 2000 of
   * transfer, the same at any core count. */
  check_runs(node, tl, (const size_t[]){1, 8}, (const double[]){14000 + 1000, 14000 + 8000}, 2);
  ppt_node_free(node);
  ppt_tasklist_free(tl);
}
END_TEST

/* What a DRAM write-back costs is the spec's (hwspec dram.core_writeback_cost,
 * dram.writeback_cost; models/cpu/time_compute.c, engine/sim.c). The stream of
 * core_link_fills_only, fills 64000 B and write-backs 32000 B, with a write-back costing
 * 1.5 fills of the core's 3 B/cycle and 0.25 of the socket's 8: the core counts 64000 +
 * 1.5 · 32000 = 112000 B, 37333.3 cycles; the socket 64000 + 0.25 · 32000 = 72000 B.
 * Alone and with four cores the core's own cap binds (four: 72000 / 4 = 2 B/cycle each
 * from the socket, but the core's link passes 72000 B in 37333.3 cycles, 1.93 B/cycle);
 * with eight the socket does, 72000 / 1 = 72000 cycles. With the costs left out (0 and
 * 1): four cores take 48000, as in core_link_fills_only. */
START_TEST(dram_writeback_costs) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.dram_core_bw_bytes_per_s = 3e9;
  hw.dram_core_wb_cost = 1.5;
  hw.dram_wb_cost = 0.25;
  hw.dram_wb_given = 3;
  ppt_tasklist *tl = fx_fill_wb(2, 2, 1, 2, 0.5);
  ck_assert_ptr_nonnull(tl);
  ppt_err err;
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = 8;
  cfg.policy =
      (ppt_tc_policy){.overlap = PPT_OVERLAP_SUM, .compute = PPT_COMPUTE_PORTS, .memory = PPT_MEMORY_PIPE};
  ppt_tc_stats st;
  ck_assert_int_eq(ppt_time_compute(&hw, tl, &cfg.policy, &st, &err), 0);
  ck_close(st.level[2].bytes, 72000);
  ck_close(st.level[2].fill_bytes, 112000);
  ck_close(st.level[2].bw_cycles, 112000.0 / 3);
  ppt_node *node;
  ck_assert_msg(ppt_node_new(&hw, &cfg, &node, &err) == 0, "%s", err.msg);
  check_runs(node, tl, (const size_t[]){1, 4, 8}, (const double[]){112000.0 / 3, 112000.0 / 3, 72000}, 3);
  ppt_node_free(node);
  hw.dram_wb_given = 0;
  ck_assert_msg(ppt_node_new(&hw, &cfg, &node, &err) == 0, "%s", err.msg);
  check_runs(node, tl, (const size_t[]){1, 4}, (const double[]){64000.0 / 3, 48000}, 2);
  ppt_node_free(node);
  ppt_tasklist_free(tl);
}
END_TEST

/* Two DRAM streams of a region on node's cores 0 and 1: core 1's takes 16468 cycles, as
 * on equal cores (two streams share DRAM: dram_contention), whatever the core speeds. */
static void dram_stream_not_slowed(const ppt_node *node) {
  ppt_tasklist *tl = stream_from(2, 2, 0);
  const ppt_tasklist *tls[] = {tl, tl};
  ppt_program *prog = ppt_program_new();
  ppt_node_result *res;
  ppt_err err;
  ck_assert_int_eq(ppt_program_add_parallel(prog, 2, tls, &err), 0);
  ck_assert_msg(ppt_node_run(node, prog, &res, &err) == 0, "%s", err.msg);
  ck_close(thread_busy(res, 0, 1), 16468 * NS);
  ppt_node_result_free(res);
  ppt_program_free(prog);
  ppt_tasklist_free(tl);
}

/* Cores of different speed (hwspec core_speed [1, 0.8]): two threads of 1000 compute
 * cycles each take 1000 on core 0 and 1000 / 0.8 = 1250 on core 1, and the region lasts
 * as long as the slower (1250, core 0 waiting 250); a third thread, on a core past the
 * list, runs at speed 1. Memory is not slowed: a DRAM stream alone (8284 cycles) takes
 * as long on core 1. */
START_TEST(core_speeds) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.nspeeds = 2;
  hw.core_speed[0] = 1;
  hw.core_speed[1] = 0.8;
  ppt_node *node = make_node(&hw, 3, PPT_OVERLAP_SUM);
  ppt_tasklist *tl = compute_only(1000);
  ppt_node_result *res = run_parallel(node, 3, tl);
  ck_close(thread_busy(res, 0, 0), 1000 * NS);
  ck_close(thread_busy(res, 0, 1), 1250 * NS);
  ck_close(thread_busy(res, 0, 2), 1000 * NS);
  ck_close(ppt_node_result_seconds(res), 1250 * NS);
  ppt_node_result_free(res);
  ppt_tasklist_free(tl);
  dram_stream_not_slowed(node);
  ppt_node_free(node);
}
END_TEST

/* Busy cores slow each other (hwspec busy_speed [1, 0.8, 0.5] with core_speed [1, 0.8]):
 * one thread of 1000 compute cycles takes 1125 (it starts on either core: the mean of
 * 1000 and 1000 / 0.8, ppt_hwspec_thread_speed); two take 1000 / 0.8 = 1250 on core 0 and
 * 1000 / (0.8 * 0.8) = 1562.5 on core 1; four take 1000 / 0.5 = 2000 on cores 0, 2 and 3
 * (past the speed list: 1; past the busy list: its last entry) and 2500 on core 1.
 * Memory is not slowed: a DRAM stream on core 1 of two takes as long as without the
 * lists (16468 cycles, core_speeds below). */
START_TEST(busy_speeds) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  hw.nspeeds = 2;
  hw.core_speed[0] = 1;
  hw.core_speed[1] = 0.8;
  hw.nbusy = 3;
  hw.busy_speed[0] = 1;
  hw.busy_speed[1] = 0.8;
  hw.busy_speed[2] = 0.5;
  ppt_node *node = make_node(&hw, 4, PPT_OVERLAP_SUM);
  ppt_tasklist *tl = compute_only(1000);
  ppt_node_result *res = run_parallel(node, 1, tl);
  ck_close(thread_busy(res, 0, 0), 1125 * NS);
  ppt_node_result_free(res);
  res = run_parallel(node, 2, tl);
  ck_close(thread_busy(res, 0, 0), 1250 * NS);
  ck_close(thread_busy(res, 0, 1), 1562.5 * NS);
  ck_close(ppt_node_result_seconds(res), 1562.5 * NS);
  ppt_node_result_free(res);
  res = run_parallel(node, 4, tl);
  ck_close(thread_busy(res, 0, 0), 2000 * NS);
  ck_close(thread_busy(res, 0, 1), 2500 * NS);
  ck_close(thread_busy(res, 0, 3), 2000 * NS);
  ppt_node_result_free(res);
  ppt_tasklist_free(tl);
  dram_stream_not_slowed(node);
  ppt_node_free(node);
}
END_TEST

/* A region that goes on after a barrier (a second worksharing loop of the same OpenMP
 * region) pays no fork or join: threads of 100, 300, 200 cycles with fork 5 + join 10
 * take 315 in the forking region and 300 after the barrier. */
START_TEST(barrier_regions) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.fork_cycles = 5;
  cfg.join_cycles = 10;
  ppt_node *node;
  ppt_err err;
  ck_assert_int_eq(ppt_node_new(&hw, &cfg, &node, &err), 0);
  ppt_tasklist *a = compute_only(100), *b = compute_only(300), *c = compute_only(200);
  const ppt_tasklist *tls[] = {a, b, c};
  ppt_program *prog = ppt_program_new();
  ck_assert_int_eq(ppt_program_add_parallel(prog, 3, tls, &err), 0);
  ck_assert_int_eq(ppt_program_add_after_barrier(prog, 3, tls, &err), 0);
  ppt_node_result *res;
  ck_assert_int_eq(ppt_node_run(node, prog, &res, &err), 0);
  ppt_region_stats r1;
  ck_assert_int_eq(ppt_node_result_region(res, 1, &r1), 0);
  ck_assert_int_eq(r1.parallel, 1);
  ck_close(r1.seconds, 300 * NS);
  ck_close(ppt_node_result_seconds(res), 615 * NS);
  ppt_node_result_free(res);
  ppt_program_free(prog);
  ppt_node_free(node);
  ppt_tasklist_free(a);
  ppt_tasklist_free(b);
  ppt_tasklist_free(c);
}
END_TEST

START_TEST(fork_join) {
  /* Parallel region: threads of 100, 300, 200 cycles, fork 5 + join 10 each →
   * region = 15 + 300 = 315; waits 200, 0, 100. Then a serial region of 50 cycles
   * on core 0 (no fork/join) from 315 to 365. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.fork_cycles = 5;
  cfg.join_cycles = 10;
  ppt_node *node;
  ppt_err err;
  ck_assert_int_eq(ppt_node_new(&hw, &cfg, &node, &err), 0);
  ck_assert_uint_eq(ppt_node_cores(node), 8);
  ppt_tasklist *a = compute_only(100), *b = compute_only(300), *c = compute_only(200), *s = compute_only(50);
  const ppt_tasklist *tls[] = {a, b, c};
  ppt_program *prog = ppt_program_new();
  ck_assert_int_eq(ppt_program_add_parallel(prog, 3, tls, &err), 0);
  ck_assert_int_eq(ppt_program_add_serial(prog, s, &err), 0);
  ck_assert_uint_eq(ppt_program_nregions(prog), 2);
  ppt_node_result *res;
  ck_assert_int_eq(ppt_node_run(node, prog, &res, &err), 0);
  ck_assert_uint_eq(ppt_node_result_nregions(res), 2);
  ppt_region_stats r0, r1;
  ck_assert_int_eq(ppt_node_result_region(res, 0, &r0), 0);
  ck_assert_int_eq(ppt_node_result_region(res, 1, &r1), 0);
  ck_assert_int_eq(r0.parallel, 1);
  ck_assert_uint_eq(r0.nthreads, 3);
  ck_close(r0.start_s, 0);
  ck_close(r0.seconds, 315 * NS);
  ck_close(r1.start_s, 315 * NS);
  ck_close(r1.seconds, 50 * NS);
  ck_close(ppt_node_result_seconds(res), 365 * NS);
  const double busy[] = {115, 315, 215}, wait[] = {200, 0, 100};
  for (size_t t = 0; t < 3; t++) {
    ppt_thread_stats ts;
    ck_assert_int_eq(ppt_node_result_thread(res, 0, t, &ts), 0);
    ck_close(ts.busy_s, busy[t] * NS);
    ck_close(ts.wait_s, wait[t] * NS);
  }
  ppt_thread_stats ts;
  ck_assert_int_eq(ppt_node_result_thread(res, 0, 3, &ts), PPT_EINPUT);
  ck_assert_int_eq(ppt_node_result_region(res, 2, &r0), PPT_EINPUT);
  ppt_node_result_free(res);
  ppt_program_free(prog);
  ppt_node_free(node);
  ppt_tasklist_free(a);
  ppt_tasklist_free(b);
  ppt_tasklist_free(c);
  ppt_tasklist_free(s);
}
END_TEST

START_TEST(overlap_hides_contention) {
  /* 20000 compute cycles + a DRAM stream; two threads: streaming 16468 (contended).
   * MAX: max(20000, 16468) = 20000. SUM: 36468. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 2);
  ppt_tasklist *tl = stream_from(2, 2, 20000);
  ppt_node *node = make_node(&hw, 2, PPT_OVERLAP_MAX);
  ppt_node_result *res = run_parallel(node, 2, tl);
  ck_close(ppt_node_result_seconds(res), 20000 * NS);
  ppt_thread_stats ts;
  ck_assert_int_eq(ppt_node_result_thread(res, 0, 1, &ts), 0);
  ck_close(ts.memory_s, 16468 * NS);
  ck_close(ts.compute_s, 20000 * NS);
  ppt_node_result_free(res);
  ppt_node_free(node);
  /* PARTIAL 0.5 overlaps the compute with the stream's time alone (8284, one thread's),
   * and the contended time bounds it from below (what the other core's stream adds,
   * the core waits out computing: engine/sim.c): max(16468, 20000 + 8284 − 0.5 · 8284)
   * = 24142, where the policy over the contended time gave 20000 + 16468 − 0.5 · 16468
   * = 28234. With 5000 compute cycles the contended stream is the bound: 16468 (18968). */
  node = make_node(&hw, 2, PPT_OVERLAP_PARTIAL);
  res = run_parallel(node, 2, tl);
  ck_close(ppt_node_result_seconds(res), 24142 * NS);
  ppt_node_result_free(res);
  ppt_tasklist *light = stream_from(2, 2, 5000);
  res = run_parallel(node, 2, light);
  ck_close(ppt_node_result_seconds(res), 16468 * NS);
  ppt_node_result_free(res);
  ppt_tasklist_free(light);
  ppt_node_free(node);
  node = make_node(&hw, 2, PPT_OVERLAP_SUM);
  res = run_parallel(node, 2, tl);
  ck_close(ppt_node_result_seconds(res), 36468 * NS);
  ppt_node_result_free(res);
  ppt_node_free(node);
  ppt_tasklist_free(tl);
}
END_TEST

static ppt_node_result *mixed_run(const ppt_node *node, ppt_tasklist **tls) {
  ppt_program *prog = ppt_program_new();
  ppt_err err;
  for (int r = 0; r < 20; r++) {
    if (r % 5 == 4)
      ck_assert_int_eq(ppt_program_add_serial(prog, tls[r % 3], &err), 0);
    else
      ck_assert_int_eq(ppt_program_add_parallel(prog, 8, (const ppt_tasklist *const *)tls, &err), 0);
  }
  ppt_node_result *res;
  ck_assert_msg(ppt_node_run(node, prog, &res, &err) == 0, "%s", err.msg);
  ppt_program_free(prog);
  return res;
}

START_TEST(determinism) {
  /* Same input twice in one process: bit-identical results. */
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.levels[2].shared_by = 4;
  ppt_tasklist *tls[8];
  for (int t = 0; t < 8; t++) tls[t] = stream_from(3, (uint32_t)(t % 4), 300.0 * t);
  ppt_node *node = make_node(&hw, 8, PPT_OVERLAP_PARTIAL);
  ppt_node_result *a = mixed_run(node, tls), *b = mixed_run(node, tls);
  ck_assert(ppt_node_result_seconds(a) == ppt_node_result_seconds(b));
  ck_assert(ppt_node_result_seconds(a) > 0);
  ck_assert_uint_eq(ppt_node_result_nregions(a), 20);
  double sum = 0;
  for (size_t r = 0; r < 20; r++) {
    ppt_region_stats ra, rb;
    ck_assert_int_eq(ppt_node_result_region(a, r, &ra), 0);
    ck_assert_int_eq(ppt_node_result_region(b, r, &rb), 0);
    ck_assert(memcmp(&ra, &rb, sizeof ra) == 0);
    sum += ra.seconds;
    for (size_t t = 0; t < ra.nthreads; t++) {
      ppt_thread_stats ta, tb;
      ck_assert_int_eq(ppt_node_result_thread(a, r, t, &ta), 0);
      ck_assert_int_eq(ppt_node_result_thread(b, r, t, &tb), 0);
      ck_assert(memcmp(&ta, &tb, sizeof ta) == 0);
    }
  }
  /* Regions follow each other without gaps. */
  ck_close(sum, ppt_node_result_seconds(a));
  ppt_node_result_free(a);
  ppt_node_result_free(b);
  ppt_node_free(node);
  for (int t = 0; t < 8; t++) ppt_tasklist_free(tls[t]);
}
END_TEST

START_TEST(errors) {
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  ppt_err err;
  ppt_node *node;
  hw.clock_hz = 0;
  ck_assert_int_eq(ppt_node_new(&hw, NULL, &node, &err), PPT_EINPUT);
  fx_hwspec(&hw, 3);
  hw.dram_bw_bytes_per_s = 0;
  ck_assert_int_eq(ppt_node_new(&hw, NULL, &node, &err), PPT_EINPUT);
  fx_hwspec(&hw, 3);
  node = make_node(&hw, 2, PPT_OVERLAP_MAX);
  ppt_tasklist *ok = compute_only(10);
  ppt_tasklist *bad = ppt_tasklist_new();
  const double h2[] = {0.5, 0.5}; /* two levels on a three-level node */
  ck_assert_int_eq(ppt_tasklist_add_hitrates(bad, &STREAM, 2, h2, &err), 0);
  const ppt_tasklist *three[] = {ok, ok, ok}, *mixed[] = {ok, bad};
  ppt_program *prog = ppt_program_new();
  ck_assert_int_eq(ppt_program_add_parallel(prog, 3, three, &err), 0);
  ppt_node_result *res = NULL;
  ck_assert_int_eq(ppt_node_run(node, prog, &res, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "3 threads"));
  ck_assert_ptr_null(res);
  ppt_program_free(prog);
  prog = ppt_program_new();
  ck_assert_int_eq(ppt_program_add_serial(prog, ok, &err), 0);
  ck_assert_int_eq(ppt_program_add_parallel(prog, 2, mixed, &err), 0);
  ck_assert_int_eq(ppt_node_run(node, prog, &res, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "region 1 thread 1"));
  ck_assert_int_eq(ppt_program_add_serial(prog, NULL, &err), PPT_EINPUT);
  ppt_program_free(prog);
  /* An empty program takes no time. */
  prog = ppt_program_new();
  ck_assert_int_eq(ppt_node_run(node, prog, &res, &err), 0);
  ck_close(ppt_node_result_seconds(res), 0);
  ppt_node_result_free(res);
  ppt_program_free(prog);
  ppt_node_free(node);
  ppt_tasklist_free(ok);
  ppt_tasklist_free(bad);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("engine");
  TCase *tc = tcase_create("node");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, dram_contention);
  tcase_add_test(tc, core_dram_link);
  tcase_add_test(tc, core_link_fills_only);
  tcase_add_test(tc, dram_writeback_costs);
  tcase_add_test(tc, core_speeds);
  tcase_add_test(tc, busy_speeds);
  tcase_add_test(tc, barrier_regions);
  tcase_add_test(tc, shared_cache_instances);
  tcase_add_test(tc, single_core_matches_time_compute);
  tcase_add_test(tc, fork_join);
  tcase_add_test(tc, overlap_hides_contention);
  tcase_add_test(tc, determinism);
  tcase_add_test(tc, errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}
