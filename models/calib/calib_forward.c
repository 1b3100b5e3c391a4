/* calib_forward.c — store-to-load forwarding (hwspec store_forward_cycles): how long a
 * load waits for the data of a store to the same address still on its way to the cache.
 *
 * The kernel is the recurrence through memory that the program model prices with this
 * figure (block_cycles.c progmodel_mem_chain_cycles; falseshare's `*c += f(x)` on a volatile slot):
 * each trip loads one 8-byte word, adds the trip count and stores it back, so the next
 * trip's load takes its data from this trip's store. A trip then takes the forwarding
 * latency plus one integer add; timed against the add chain (calib_measure_vs) it reads
 * in cycles, and calib_spec.c takes the spec's add latency off. The word is volatile
 * (the compiler may neither keep it in a register nor merge trips) and sits alone on its
 * line; the loop's own counter is an independent chain of one add a trip. It compiles
 * to one read-modify-write add on x86 (`add reg, (mem)`), as falseshare's loop does.
 *
 * Why it is measured and not taken as the load-to-use latency plus one: on the Zen 5
 * host of session 18 the two agreed (5.18 cycles timed, 4.31 + 1 by the rule), on the
 * Zen 3 guest of session 24 falseshare's one-thread trip took ~8.0 cycles against
 * 4.27 + 1 (the kernel 26 % too fast), and on the Intel Xeon guest of session 25 this
 * kernel reads 7.35 cycles a trip (6.35 forwarding). */
#include <stdint.h>

#include "calib/calib_impl.h"

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
