/* fresh.c — recurrences that start afresh at each entry into their loop (see fresh.h).
 * A core whose recurrence restarts (s = 0) starts the next entry's chain while the last
 * one drains, as far as its window reaches; the program model prices that overlap
 * (models/progmodel/progmodel.c, fresh_lead). */
#include "fresh.h"

#include <stdlib.h>

/* Values a search visits at most: a def-use walk back from an entry value stays within
 * the loop nest around it, far below this in the kernels we know. */
enum { SEEN_MAX = 1024 };

/* Whether v depends on `on`, depth first, with the values seen in seen[0..*n); past
 * SEEN_MAX the answer is yes. */
static int depends_on(LLVMValueRef v, LLVMValueRef on, LLVMValueRef *seen, size_t *n) {
  if (v == on)
    return 1;
  if (!LLVMIsAInstruction(v))
    return 0;
  for (size_t i = 0; i < *n; i++)
    if (seen[i] == v)
      return 0;
  if (*n == SEEN_MAX)
    return 1;
  seen[(*n)++] = v;
  int nops = LLVMGetNumOperands(v);
  for (int i = 0; i < nops; i++)
    if (depends_on(LLVMGetOperand(v, i), on, seen, n))
      return 1;
  return 0;
}

static int in_set(const LLVMBasicBlockRef *set, size_t n, LLVMBasicBlockRef b) {
  for (size_t i = 0; i < n; i++)
    if (set[i] == b)
      return 1;
  return 0;
}

int pcc_fresh_at_entry(LLVMValueRef phi, const LLVMBasicBlockRef *loop, size_t nloop) {
  LLVMValueRef *seen = malloc(SEEN_MAX * sizeof *seen);
  if (!seen)
    return 0;
  int fresh = 1;
  unsigned k = LLVMCountIncoming(phi);
  for (unsigned i = 0; i < k && fresh; i++) {
    if (in_set(loop, nloop, LLVMGetIncomingBlock(phi, i)))
      continue;
    size_t n = 0;
    fresh = !depends_on(LLVMGetIncomingValue(phi, i), phi, seen, &n);
  }
  free(seen);
  return fresh;
}
