/* recaddr.c — loop-carried addresses (see recaddr.h). */
#include "recaddr.h"

#include <stdint.h>

static int invariant(LLVMValueRef v, LLVMBasicBlockRef bb) {
  return !LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != bb;
}

/* v as phi + off, phi a PHI of bb: through sign/zero extensions and additions or
 * subtractions of constants (the index arithmetic clang emits for j - 1, j + 1). */
static int affine(LLVMValueRef v, LLVMBasicBlockRef bb, LLVMValueRef *phi, int64_t *off) {
  *off = 0;
  for (int depth = 0; depth < 8; depth++) {
    if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != bb) return 0;
    if (LLVMIsAPHINode(v)) {
      *phi = v;
      return 1;
    }
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    if (op == LLVMSExt || op == LLVMZExt) {
      v = LLVMGetOperand(v, 0);
      continue;
    }
    if (op != LLVMAdd && op != LLVMSub) return 0;
    LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
    if (op == LLVMAdd && LLVMIsAConstantInt(a)) {
      LLVMValueRef t = a;
      a = b;
      b = t;
    }
    if (!LLVMIsAConstantInt(b)) return 0;
    int64_t c = LLVMConstIntGetSExtValue(b);
    *off += op == LLVMAdd ? c : -c;
    v = a;
  }
  return 0;
}

/* How far phi moves each trip round bb (its incoming value from bb as phi + step); 0
 * when that is not a constant step. */
static int64_t step_of(LLVMValueRef phi, LLVMBasicBlockRef bb) {
  unsigned n = LLVMCountIncoming(phi);
  for (unsigned i = 0; i < n; i++) {
    if (LLVMGetIncomingBlock(phi, i) != bb) continue;
    LLVMValueRef p;
    int64_t off;
    if (affine(LLVMGetIncomingValue(phi, i), bb, &p, &off) && p == phi) return off;
  }
  return 0;
}

int pcc_recaddr_carried(LLVMValueRef lp, LLVMValueRef sp, LLVMBasicBlockRef bb) {
  if (lp == sp) return invariant(sp, bb);
  if (!LLVMIsAGetElementPtrInst(lp) || !LLVMIsAGetElementPtrInst(sp)) return 0;
  int n = LLVMGetNumOperands(sp);
  if (LLVMGetNumOperands(lp) != n || LLVMGetOperand(lp, 0) != LLVMGetOperand(sp, 0) ||
      !invariant(LLVMGetOperand(sp, 0), bb) || LLVMGetGEPSourceElementType(lp) != LLVMGetGEPSourceElementType(sp))
    return 0;
  /* Every index but one the same loop-invariant value, so that the two addresses move
   * only with that one; there the store's is the load's one step on (the load of trip
   * t + 1 then reads what trip t stored, whatever that index's stride). */
  int moved = 0;
  for (int k = 1; k < n; k++) {
    LLVMValueRef li = LLVMGetOperand(lp, k), si = LLVMGetOperand(sp, k);
    if (li == si && invariant(si, bb)) continue;
    LLVMValueRef lphi, sphi;
    int64_t loff, soff;
    if (!affine(li, bb, &lphi, &loff) || !affine(si, bb, &sphi, &soff) || lphi != sphi) return 0;
    int64_t step = step_of(sphi, bb);
    if (step == 0 || soff - loff != step || moved++) return 0;
  }
  return moved == 1;
}
