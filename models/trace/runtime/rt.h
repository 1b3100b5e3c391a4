/* rt.h — internals of the runtime linked into ppt-cc-built programs. */
#ifndef PPT_RT_H
#define PPT_RT_H

#include <stddef.h>
#include <stdint.h>

/* Builds the raw block table for block ids 1..nguards from the ppt_bbtab section that
 * ppt-cc embedded (rt_table.c). Returns 0 or -1. */
int ppt_rt_build_bbtab(uint32_t nguards, unsigned char **raw, uint32_t *size);

/* ppt trace --roi FUNCTION: per block id 0..nguards, PPT_RT_ROI_OWN and the
 * PPT_BB_FUNC_ENTRY and PPT_BB_RETURN flags on the blocks of FUNCTION (its name in the
 * table, or the function part of a demangled C++ name: trace/names.h), PPT_RT_ROI_INLINED on the blocks whose
 * first located instruction is code inlined from FUNCTION into another function, PPT_RT_ROI_ALSO on those
 * that hold such code further on (the start of an inlined call, after the end of other code), and
 * PPT_RT_ROI_NOLINE on every block without a source line (which neither starts nor ends an inlined region);
 * *nblocks: FUNCTION's blocks, inlined ones included (0: no such function). NULL when out of memory
 * (rt_table.c). */
enum { PPT_RT_ROI_INLINED = 0x10, PPT_RT_ROI_NOLINE = 0x20, PPT_RT_ROI_ALSO = 0x40, PPT_RT_ROI_OWN = 0x80 };
unsigned char *ppt_rt_roi_kinds(uint32_t nguards, const char *func, uint32_t *nblocks);

/* ppt trace --roi FUNCTION: a parallel region is forked by code whose stack pointer is
 * sp (a return of FUNCTION may be followed by a fork before any block) in the function
 * the source position psource names (libomp's ident_t: ";file;function;line;col;;", or
 * NULL). A region forked by other code in the block that starts an inlined call of
 * FUNCTION is left out, recording stopped until its join (rt.c). */
void ppt_rt_roi_fork(uintptr_t sp, const char *psource);
/* ppt trace --roi FUNCTION: the outermost parallel region just joined (rt.c says what a
 * region that called FUNCTION does to the region of interest). */
void ppt_rt_roi_join(void);

/* The calling thread's stack, the one holding sp: [*lo, *lo + *size), as
 * pthread_getattr_np gives it but without taking memory from the program's heap
 * (rt_stack.c). Returns 0 or -1. */
int ppt_rt_stack_bounds(uintptr_t sp, uintptr_t *lo, size_t *size);

/* Removes from the finished trace at path the chunks that begin at file offsets lo..hi-1
 * (recorded after the region's last return, rt_cut.c). Returns 0 or -1 (errno). */
int ppt_rt_trace_cut(const char *path, uint64_t lo, uint64_t hi);

/* Records an OpenMP event (ppt_event_type) in the calling thread's stream, inside a
 * region of interest only (ppt_roi_begin); tracks the parallel-region depth either way. */
void ppt_rt_event(unsigned type, const int64_t *v, unsigned n);

/* The team size to use when the program asks for n threads (omp_set_num_threads, a
 * num_threads clause): while tracing, the one ppt trace was told (PPT_TRACE_THREADS),
 * with the request noted for the trace's PPT_EV_THREADS_ASKED event; otherwise n. */
int ppt_rt_threads_request(int n);

/* A block of n bytes at p the program allocated (rt_heap.c, rt_new.c): recorded as
 * PPT_EV_ALLOC when the calling thread is inside a parallel region and not inside a
 * single or master construct (ppt_rt_solo); nothing otherwise, or when p is NULL. */
void ppt_rt_heap_block(const void *p, size_t n);
/* The calling thread enters (+1) or leaves (-1) a single or master construct. */
void ppt_rt_solo(int delta);
/* The program asked for its thread number (what = PPT_TEAM_THREAD_NUM) or the team's
 * size (PPT_TEAM_NUM_THREADS): recorded as PPT_EV_TEAM_QUERY the first time in each
 * parallel region on each thread, outside regions not at all. */
void ppt_rt_team_query(int what);

/* PPT_ROI_BEGIN / PPT_ROI_END of include/ppt/roi.h. */
void ppt_roi_begin(void);
void ppt_roi_end(void);

/* Callbacks ppt-cc inserts before the accesses SanitizerCoverage does not report
 * (apps/ppt-cc/widemem.c; what each records: apps/ppt-cc/memop.h). */
void __ppt_load32(const void *p);
void __ppt_store32(const void *p);
void __ppt_load64(const void *p);
void __ppt_store64(const void *p);
/* ceil(n / 2^lg) references of 2^lg bytes from p on. */
void __ppt_load_n(const void *p, uint64_t n, uint32_t lg);
void __ppt_store_n(const void *p, uint64_t n, uint32_t lg);
/* The same, if active is nonzero (a masked access, a gather/scatter lane). */
void __ppt_load_masked(const void *p, uint64_t n, uint32_t lg, uint64_t active);
void __ppt_store_masked(const void *p, uint64_t n, uint32_t lg, uint64_t active);
/* ceil(n/16) pairs: a 16-byte load of src + 16k, a 16-byte store to dst + 16k. */
void __ppt_memcpy(void *dst, const void *src, uint64_t n);
/* ceil(n/16) 16-byte stores from dst on. */
void __ppt_memset(void *dst, uint64_t n);

#endif
