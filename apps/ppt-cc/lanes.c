/* lanes.c — lane moves on recurrences (see lanes.h). */
#include "lanes.h"

#include <stddef.h>

static int lane_zero(LLVMValueRef idx) {
  return LLVMIsAConstantInt(idx) && LLVMConstIntGetZExtValue(idx) == 0;
}

int pcc_lane_move(LLVMValueRef v) {
  if (LLVMIsAExtractElementInst(v))
    return !lane_zero(LLVMGetOperand(v, 1));
  if (LLVMIsAInsertElementInst(v)) {
    LLVMValueRef into = LLVMGetOperand(v, 0);
    return !(lane_zero(LLVMGetOperand(v, 2)) && (LLVMIsUndef(into) || LLVMIsPoison(into)));
  }
  return LLVMIsAShuffleVectorInst(v) != NULL;
}
