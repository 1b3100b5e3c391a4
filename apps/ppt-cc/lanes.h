/* lanes.h — which vector instructions move a value between lanes at a cost, for the
 * recurrences ppt-cc records (opmix.c): an SLP-vectorised loop that carries a pair of
 * values in one register extracts, inserts and broadcasts lanes on its cycle. */
#ifndef PCC_LANES_H
#define PCC_LANES_H

#include <llvm-c/Core.h>

/* 1 for an extractelement, insertelement or shufflevector that costs an instruction on
 * x86-64 (a shuffle, unpack or blend: one cycle on the FP pipes); 0 for everything else,
 * and for the lane moves that cost nothing: reading lane 0 (the scalar register is that
 * lane) and writing lane 0 of an undefined vector. */
int pcc_lane_move(LLVMValueRef v);

#endif
