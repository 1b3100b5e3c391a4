/* memop.h — what one IR instruction reads and writes, in trace references.
 *
 * SanitizerCoverage (LLVM 14) calls back only for plain loads and stores of 1, 2, 4, 8
 * and 16 bytes. Everything else that touches memory (32- and 64-byte vectors, odd sizes
 * such as long double, masked loads and stores, gathers and scatters, atomics' read-
 * modify-write, llvm.memcpy/memmove/memset) is traced by ppt-cc's own callbacks
 * (widemem.c). Both that pass and the op mix (opmix.c) describe an instruction through
 * pcc_memop_of, so the block table's LOAD/STORE counts are the references the trace
 * holds for it. The rules (docs/ppt-cc.md, "Memory references"):
 *   - a plain access of s bytes is one reference of s rounded up to a power of two, or,
 *     above the widest vector register of the function's target (16 bytes, 32 with AVX,
 *     64 with AVX-512 and 512-bit vectors legal), ceil(s / width) references of `width`
 *     (the backend splits it so);
 *   - masked load/store, expandload/compressstore: as a plain access of the full vector
 *     at its base address, recorded only when some lane is active;
 *   - gather/scatter: one reference per active lane, of the element size;
 *   - atomicrmw/cmpxchg: one load and one store of the value;
 *   - memcpy/memmove of n bytes: ceil(n/16) loads and ceil(n/16) stores of 16 bytes (the
 *     SSE2 loop glibc's memcpy runs), memset: ceil(n/16) stores. */
#ifndef PCC_MEMOP_H
#define PCC_MEMOP_H

#include <stdint.h>

#include <llvm-c/Core.h>

typedef enum pcc_memop_kind {
  PCC_MEM_NONE = 0, /* does not touch memory, or nothing ppt traces */
  PCC_MEM_PLAIN,    /* load or store */
  PCC_MEM_RMW,      /* atomicrmw, cmpxchg: a load and a store */
  PCC_MEM_MASKED,   /* llvm.masked.load/store/expandload/compressstore */
  PCC_MEM_GATHER,   /* llvm.masked.gather/scatter */
  PCC_MEM_COPY,     /* llvm.memcpy, llvm.memmove (and their .inline/atomic forms) */
  PCC_MEM_SET,      /* llvm.memset */
} pcc_memop_kind;

typedef struct pcc_memop {
  pcc_memop_kind kind;
  int store;         /* PLAIN, MASKED, GATHER: writes (else reads) */
  LLVMValueRef ptr;  /* address; a vector of pointers for GATHER; destination for COPY/SET */
  LLVMValueRef src;  /* COPY: source */
  LLVMValueRef len;  /* COPY/SET: length in bytes */
  LLVMValueRef mask; /* MASKED, GATHER: the <N x i1> mask */
  uint64_t bytes;    /* PLAIN, RMW, MASKED: bytes accessed; GATHER: element bytes */
  unsigned lanes;    /* GATHER: lanes */
  unsigned lg;       /* log2 of the size of each reference */
  uint64_t nrefs;    /* references per execution in each direction it goes (a COPY's
                      * loads, or its stores); 0 when only known at run time */
} pcc_memop;

/* Describes inst; returns its kind (also in m->kind). */
pcc_memop_kind pcc_memop_of(LLVMValueRef inst, pcc_memop *m);

/* 1 if the function's "target-features" attribute holds `feature` (e.g. "+fma"). */
int pcc_memop_has_feature(LLVMValueRef fn, const char *feature);

/* log2 of the widest vector register the function's target gives the backend: 4, 5 or 6. */
unsigned pcc_memop_unit_lg(LLVMValueRef fn);

#endif
