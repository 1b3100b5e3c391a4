/* calib_forward.c — store-to-load forwarding (hwspec store_forward_cycles and
 * store_forward_fp_cycles, the kernels and the figures): how long a load waits for the
 * data of a store to the same address still on its way to the cache.
 *
 * The kernel is the recurrence through memory that the program model prices with this
 * figure (cpu_mem_chain_cycles in models/cpu/block_cycles.c; falseshare's `*c += f(x)` on
 * a volatile slot):
 * each trip loads one 8-byte word, adds the trip count and stores it back, so the next
 * trip's load takes its data from this trip's store. A trip then takes the forwarding
 * latency plus one integer add; timed against the add chain (calib_measure_vs) it reads
 * in cycles, and calib_spec.c takes the spec's add latency off. The word is volatile
 * (the compiler may neither keep it in a register nor merge trips) and sits alone on its
 * line; the loop's own counter is an independent chain of one add a trip. It compiles
 * to one read-modify-write add on x86 (`add reg, (mem)`), as falseshare's loop does.
 *
 * Why it is measured and not taken as the load-to-use latency plus one: on one Zen 5
 * host the two agree (5.18 cycles timed, 4.31 + 1 by the rule), on a Zen 3 guest
 * falseshare's one-thread trip takes ~8.0 cycles against 4.27 + 1 (the kernel 26 % too
 * fast), and on an Intel Xeon guest this kernel reads 7.35 cycles a trip (6.35
 * forwarding). */
#include <stdint.h>

#include "calib/calib_impl.h"
#include "calib/calib_run.h"
#include "hwspec/hwspec_limits.h"

typedef struct fwd_arg {
  _Alignas(64) volatile uint64_t word;
  uint64_t pad[7];
} fwd_arg;

CALIB_KERNEL static void k_forward(void *arg, uint64_t n) {
  fwd_arg *a = arg;
  /* One trip per iteration: unrolled, clang folds neighbouring trips' adds into one
   * load-add-add-store and the trips stop being alike. */
#pragma clang loop unroll(disable)
  for (uint64_t i = 0; i < n; i++) a->word += i;
}

double calib_store_forward_adds(const calib_timing *t) {
  fwd_arg a = {.word = 0};
  return calib_measure_vs(k_forward, &a, 64, calib_k_add_chain, NULL, 8, t);
}

/* The same through an FP register: `*p += 1.0` on a volatile double (a load into an XMM
 * register, an add, a store from it). Zen 5 renames the integer word's memory (about the
 * add alone, 0.01-0.7 cycles beyond it) but not this one: 9.7-10 cycles beyond the FP
 * add a trip, the same whether the address is fixed or moves a word a trip
 * (`a[j] = a[j-1] + 1.0`, a recurrence ppt-cc records, apps/ppt-cc/recaddr.c). */
typedef struct fwd_fp_arg {
  _Alignas(64) volatile double word;
  double pad[7];
} fwd_fp_arg;

CALIB_KERNEL static void k_forward_fp(void *arg, uint64_t n) {
  fwd_fp_arg *a = arg;
#pragma clang loop unroll(disable)
  for (uint64_t i = 0; i < n; i++) a->word += 1.0;
}

double calib_store_forward_fp_adds(const calib_timing *t) {
  fwd_fp_arg a = {.word = 0};
  return calib_measure_vs(k_forward_fp, &a, 64, calib_k_add_chain, NULL, 8, t);
}

/* store_forward_cycles: a trip of the forwarding kernel (calib_forward.c) less the
 * spec's integer add latency, to 3 digits; 0 (the load latency stands in) with a note
 * when above the schema's range. Forwarding through the store queue takes 3 cycles or
 * more; a trip within CALIB_RENAMED_CYCLES of the add is a core that renames memory (the
 * load takes the store's register: a Zen 5 guest runs a trip in 0.293 ns
 * against 0.294 ns an add, and `ppt calibrate` reads 0.02-0.68 cycles beyond it): what
 * was read, at least the schema's floor, with a note, so that the program model charges
 * about the add alone, not the load latency. */
#define CALIB_RENAMED_CYCLES 2.0
static void spec_int(calib_run *r) {
  double trip = r->out->forward_ns * r->cyc_ns, f = trip - r->hw->ops[PPT_HW_IALU].latency;
  if (!(r->out->forward_ns > 0)) return;
  r->hw->store_forward_cycles = f < HW_MIN_SMALL_CYCLES            ? HW_MIN_SMALL_CYCLES
                                : f <= HW_MAX_STORE_FORWARD_CYCLES ? calib_sig3(f)
                                                                   : 0;
  if (f < CALIB_RENAMED_CYCLES)
    calib_note(r->notes, sizeof r->notes,
               "store_forward_cycles %.3g: a trip of *p += i took %.3g cycles, within %g of the add "
               "(memory renaming).",
               r->hw->store_forward_cycles, trip, CALIB_RENAMED_CYCLES);
  else if (r->hw->store_forward_cycles == 0)
    calib_note(r->notes, sizeof r->notes,
               "store_forward_cycles not measured: a trip of *p += i took %.3g cycles, %.3g beyond the add, "
               "above %g.",
               trip, f, HW_MAX_STORE_FORWARD_CYCLES);
}

/* store_forward_fp_cycles: a trip of `*p += 1.0` (calib_forward.c) less the spec's FP add
 * latency, to 3 digits, at least the schema's floor; 0 (store_forward_cycles stands in)
 * with a note when above the schema's range. */
static void spec_fp(calib_run *r) {
  double trip = r->out->forward_fp_ns * r->cyc_ns, f = trip - r->hw->ops[PPT_HW_FADD].latency;
  if (!(r->out->forward_fp_ns > 0)) return;
  r->hw->store_forward_fp_cycles = f < HW_MIN_SMALL_CYCLES            ? HW_MIN_SMALL_CYCLES
                                   : f <= HW_MAX_STORE_FORWARD_CYCLES ? calib_sig3(f)
                                                                      : 0;
  if (r->hw->store_forward_fp_cycles == 0)
    calib_note(
        r->notes, sizeof r->notes,
        "store_forward_fp_cycles not measured: a trip of *p += 1.0 took %.3g cycles, %.3g beyond the FP "
        "add, above %g.",
        trip, f, HW_MAX_STORE_FORWARD_CYCLES);
}

void calib_spec_store_forward(calib_run *r) {
  spec_int(r);
  spec_fp(r);
}
