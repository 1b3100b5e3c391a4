/* widemem.h — callbacks for the memory accesses SanitizerCoverage does not trace.
 *
 * SanitizerCoverage's trace-loads/-stores (LLVM 14) call back only before plain loads and
 * stores of 1, 2, 4, 8 and 16 bytes, so code built with -mavx2 or -march=native (32- and
 * 64-byte vectors, masked loads, gathers) or with long double, struct copies (memcpy)
 * and atomics would lose references silently. This pass finds every access in an
 * instrumented function that has no callback and inserts a call to the ppt runtime
 * (models/trace/runtime/rt.h: __ppt_load32, __ppt_load_n, __ppt_memcpy, ...) right
 * before it, with its debug location. What each access records is memop.h's rule, the
 * same the op mix counts. Every instruction the pass adds carries metadata
 * PCC_WIDEMEM_MD, so the op mix skips it like SanitizerCoverage's own calls. */
#ifndef PCC_WIDEMEM_H
#define PCC_WIDEMEM_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ppt/err.h"

#define PCC_WIDEMEM_MD "ppt.cb"

/* Instruments module m in place; *ncalls = accesses given a callback. */
int pcc_widemem_instrument(LLVMModuleRef m, const char *src, size_t *ncalls, ppt_err *err);

#endif
