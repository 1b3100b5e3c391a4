/* ppt/trace.h — streaming reader for ppt memory traces (format: docs/trace-format.md).
 *
 * A trace holds, per thread of the traced run, the sequence of basic-block entries and
 * loads/stores, cut into independently compressed chunks. The reader never loads the
 * whole trace: a cursor decodes one chunk at a time into a reusable batch, and any
 * chunk can be decoded on its own (ppt_trace_chunk_decode), so passes can split the
 * chunks of a stream between threads. A ppt_trace is read-only after open and may be
 * shared by threads; each thread uses its own cursor or batch. */
#ifndef PPT_TRACE_H
#define PPT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"

/* Record kinds. */
enum { PPT_REC_BB = 0, PPT_REC_LOAD = 1, PPT_REC_STORE = 2, PPT_REC_EVENT = 3 };
/* Record flags. */
enum {
  PPT_REC_STACK = 1,  /* address lies on the executing thread's own stack */
  PPT_REC_MCSTACK = 2 /* (with PPT_REC_STACK) a machine-level stack reference the reader
                         added for its block (ppt_trace_set_stack_refs) */
};

/* One decoded record. For memory records, `bb` is the block instance it belongs to
 * (the most recent block entry of the same thread; 0 before any). For event records
 * (PPT_REC_EVENT), `size` is the event type and `addr` indexes the batch's event array
 * (ppt_trace_batch_events). */
typedef struct ppt_trace_rec {
  uint64_t addr; /* memory records: byte address; block records: 0 */
  uint32_t bb;   /* block id, 1..nbbs (0 = none yet) */
  uint8_t kind;  /* PPT_REC_* */
  uint8_t size;  /* access size in bytes (1,2,4,8,16); 0 for block records */
  uint8_t flags; /* PPT_REC_STACK */
  uint8_t pad_;
} ppt_trace_rec;

/* Op-mix classes counted per basic block by ppt-cc from the LLVM IR it compiled
 * (what PPT's tasklists call iALU, fALU, fDIV, INTVEC, VECTOR and memory ops). */
enum ppt_op {
  PPT_OP_IALU,      /* integer add/sub/mul/logic/shift/compare/select */
  PPT_OP_IDIV,      /* integer divide and remainder */
  PPT_OP_FADD,      /* FP add/sub/compare/negate */
  PPT_OP_FMUL,      /* FP multiply (fused multiply-add counts one FMUL and one FADD) */
  PPT_OP_FDIV,      /* FP divide, remainder and square root */
  PPT_OP_LOAD,      /* loads (including the read half of atomics) */
  PPT_OP_STORE,     /* stores (including the write half of atomics) */
  PPT_OP_BRANCH,    /* br/switch/indirectbr terminators */
  PPT_OP_CALL,      /* calls other than instrumentation and debug intrinsics */
  PPT_OP_VINT,      /* of the above, integer ops on vector types */
  PPT_OP_VFP,       /* of the above, FP ops on vector types */
  PPT_OP_VWIDTH,    /* widest vector used, in lanes (1 = scalar only) */
  PPT_OP_OTHER,     /* every other non-PHI, non-debug instruction (casts, GEPs, ...) */
  PPT_OP_XCALL,     /* of the calls, those to functions not defined in the module (libm, libc:
                       code that is not traced; OpenMP runtime calls excluded) */
  PPT_OP_CHAIN_FP,  /* loop-carried recurrence of a block that loops to itself: FP add/mul/fma
                       ops on the longest dependence cycle through one of its PHIs */
  PPT_OP_CHAIN_DIV, /* FP divides and square roots on that cycle (low byte), and its
                       vector lane moves (high byte): ppt_chain_div_pack */
  PPT_OP_COUNT
};

/* OpenMP runtime events, recorded by the runtime's wrappers around libomp's entry points
 * (ppt-cc links them with -Wl,--wrap). They bracket parallel regions and worksharing
 * loops, which is what mimicking N cores from one thread needs (SASMM Algorithm 1). */
enum ppt_event_type {
  PPT_EV_PAR_BEGIN = 0,  /* __kmpc_fork_call entered (master thread) */
  PPT_EV_PAR_END = 1,    /* __kmpc_fork_call returned */
  PPT_EV_LOOP_BEGIN = 2, /* worksharing loop initialised: v = {sched, lb, ub, incr, chunk} */
  PPT_EV_LOOP_END = 3,   /* worksharing loop finished on this thread */
  PPT_EV_LOOP_CHUNK = 4, /* this thread runs iterations v = {lb, ub} (static share or dispatch) */
  /* The program asked for its own team size (omp_set_num_threads, num_threads clauses),
   * which ppt trace overrode: v = {largest request, number of requests}. At most one, at
   * the end of thread 0's stream; absent when the program asked for nothing. */
  PPT_EV_THREADS_ASKED = 5,
  /* A block the program allocated inside a parallel region (malloc, calloc, realloc,
   * aligned_alloc, posix_memalign, memalign, operator new), outside single and master
   * constructs: v = {address, size}. It belongs to the executing thread (docs/sasmm.md,
   * "Private and shared references"). */
  PPT_EV_ALLOC = 6,
  /* The thread asked, for the first time in this parallel region, for its number
   * (v = {PPT_TEAM_THREAD_NUM}, omp_get_thread_num) or for the team's size
   * (v = {PPT_TEAM_NUM_THREADS}, omp_get_num_threads). */
  PPT_EV_TEAM_QUERY = 7,
  PPT_EV_NTYPES
};
/* Schedules in PPT_EV_LOOP_BEGIN (libomp's sched_type values would leak ABI; these don't).
 * PPT_SCHED_NONMONOTONIC is a flag or'ed onto the kind: the loop carried the nonmonotonic
 * modifier (clang 14 adds it to plain dynamic and guided), which makes libomp run dynamic
 * as static_steal. Traces written before the flag existed have it clear (monotonic), and
 * schedule(auto) in them is PPT_SCHED_GUIDED. */
enum ppt_sched {
  PPT_SCHED_STATIC = 0,
  PPT_SCHED_STATIC_CHUNKED = 1,
  PPT_SCHED_DYNAMIC = 2,
  PPT_SCHED_GUIDED = 3, /* libomp's guided_iterative */
  PPT_SCHED_OTHER = 4,
  PPT_SCHED_AUTO = 5, /* libomp's guided_analytical, which it runs for schedule(auto) */
  PPT_SCHED_NONMONOTONIC = 0x100,
  PPT_SCHED_KIND_MASK = 0xff
};

/* What PPT_EV_TEAM_QUERY asked for. */
enum ppt_team_query { PPT_TEAM_THREAD_NUM = 0, PPT_TEAM_NUM_THREADS = 1 };

typedef struct ppt_trace_event {
  uint32_t type; /* ppt_event_type */
  uint32_t nvals;
  int64_t v[5];
} ppt_trace_event;

/* Static description of one instrumented basic block. */
/* PPT_BB_RETURN: the block ends in `ret` (ppt trace --roi FUNCTION ends there).
 * PPT_BB_EXT: the flags carry two more counts, which ops[] has no room for: bits 4-7
 * how many of ops[PPT_OP_FDIV] are square roots (saturated at 15; ppt_trace_bb_sqrts),
 * bits 8-15 how many of ops[PPT_OP_CHAIN_FP] are multiplies (fmul, fma), the rest
 * being adds (ppt_trace_bb_chain_muls). Blocks of objects built before ppt-cc recorded
 * them lack the bit: their roots are priced as divides and their chain at the slower
 * of the add and multiply latencies. */
enum { PPT_BB_PARALLEL = 1, PPT_BB_FUNC_ENTRY = 2, PPT_BB_RETURN = 4, PPT_BB_EXT = 8 };
/* The flags that say what a block is (where it sits in the program), as opposed to the
 * counts of its code that PPT_BB_EXT and PPT_BB_PATH add: blocks of two builds of one
 * program match on these (the counts change with the unrolling). */
#define PPT_BB_KIND_MASK ((uint32_t)(PPT_BB_PARALLEL | PPT_BB_FUNC_ENTRY | PPT_BB_RETURN))
#define PPT_BB_SQRT_SHIFT 4
#define PPT_BB_SQRT_MAX 15u
#define PPT_BB_CHAIN_MUL_SHIFT 8
#define PPT_BB_CHAIN_MUL_MASK 0xFFu
/* PPT_BB_PATH (bit 31): bits 16-21, 22-27 and 28-30 hold the adds, multiplies and
 * divides (saturated at 63, 63, 7) of the longest chain of dependent FP ops inside one
 * execution of the block; absent in older traces. Recorded by ppt-cc, read by the
 * program model (how many executions of the block a core's FP window, hwspec fp_window,
 * overlaps). */
#define PPT_BB_PATH 0x80000000u
#define PPT_BB_PATH_ADD_SHIFT 16
#define PPT_BB_PATH_MUL_SHIFT 22
#define PPT_BB_PATH_DIV_SHIFT 28
#define PPT_BB_PATH_ADD_MAX 63u
#define PPT_BB_PATH_MUL_MAX 63u
#define PPT_BB_PATH_DIV_MAX 7u
/* One level of a block's inlining chain (ppt_trace_bb.inl): the function whose code the
 * block is, inlined at file:line of the next outer level's function (for the outermost
 * level, of the block's own function, ppt_trace_bb.func). */
typedef struct ppt_trace_inl {
  const char *func; /* as ppt_trace_bb.func names functions: C++ demangled */
  const char *file; /* the call site's source file, "" if unknown */
  uint32_t line;    /* the call site's line, 0 if unknown */
} ppt_trace_inl;

typedef struct ppt_trace_bb {
  uint32_t id;                /* 1..nbbs */
  uint32_t flags;             /* PPT_BB_* */
  uint32_t line;              /* first source line in the block, 0 if unknown */
  const char *func;           /* function (clang's name: ".omp_outlined." for parallel bodies) */
  const char *file;           /* source file, "" if unknown */
  uint16_t ops[PPT_OP_COUNT]; /* LOAD/STORE include the stack references below while the
                                 trace counts them (ppt_trace_set_stack_refs) */
  /* References the block's machine code makes to the thread's stack beyond the IR's
   * (spills and reloads, stack arguments, push/pop, call/ret; ppt-cc measures them):
   * each block instance adds them as PPT_REC_MCSTACK records. 0 in older traces. */
  uint16_t stack_loads, stack_stores;
  /* A loop-carried recurrence through memory (ppt_trace_bb_mem_chain); 0 when none, and
   * in older traces. */
  uint32_t mem_chain;
  /* Cycles one execution of the block takes on the build host's core when it runs back
   * to back (a loop body), loads hitting L1, as llvm-mca's model of that core says
   * (ppt-cc, apps/ppt-cc/mca.h), in 1/16 cycle; 0 when unknown, and in older traces.
   * The program model takes them as a bound on compute for specs of that host
   * (hwspec block_cycles). */
  uint32_t core_cycles16;
  /* Loads that wait for loads (ppt_trace_bb_chase): of the block's loads, those whose
   * address depends on a loop-carried chain through memory, and the chains of its loop
   * (ppt-cc, apps/ppt-cc/chase.h); 0 when none, and in older traces. */
  uint32_t chase;
  /* Where the block's code was inlined from (its first located instruction's debug
   * location, ppt-cc): inl[0] is the innermost function, the one file:line name, each
   * inlined into the next, the last into func. The block belongs to every function on
   * the chain (--only, --roi). ninl 0: func's own code, and in traces without the table. */
  uint32_t ninl;
  const ppt_trace_inl *inl;
} ppt_trace_bb;

/* The function of level k of bb's chain, k = 0..bb->ninl: inl[k].func, and the block's
 * own function (func) for k = ninl. */
static inline const char *ppt_trace_bb_inl_func(const ppt_trace_bb *bb, uint32_t k) {
  return k < bb->ninl ? bb->inl[k].func : bb->func;
}
/* The source file of that level's code: the block's own file (that of its first located
 * instruction) for the innermost, else the call site recorded one level in. */
static inline const char *ppt_trace_bb_inl_file(const ppt_trace_bb *bb, uint32_t k) {
  return k == 0 ? bb->file : bb->inl[k - 1].file;
}

/* ppt_trace_bb.mem_chain: a block that loops to itself, loading what one of its stores
 * wrote the trip before (a loop-invariant pointer: `*sum += x[i]` through a pointer the
 * compiler may not keep in a register, volatile or possibly aliased; or p[j] = f(p[j-1])
 * with p's row in memory), the value stored depending on the value loaded. Each
 * iteration's load waits for the last one's store (store-to-load forwarding), so an
 * iteration takes at least the cycle's loads at the forwarding latency plus its ops at
 * theirs. Counts on that cycle: byte 0 holds the loads (low four bits, saturated at 15)
 * and the divides (high four bits, 15; 0 from a writer that does not count them), then a byte each
 * (saturated at 255) for integer ops, FP adds and FP multiplies. */
#define PPT_MEMCHAIN_MAX 255u
#define PPT_MEMCHAIN_NIBBLE 15u
static inline uint32_t ppt_memchain_pack(unsigned loads, unsigned ialu, unsigned fadd, unsigned fmul,
                                         unsigned divs) {
  unsigned v[4] = {loads, ialu, fadd, fmul};
  uint32_t c = 0;
  for (int i = 0; i < 4; i++) c |= (uint32_t)(v[i] > PPT_MEMCHAIN_MAX ? PPT_MEMCHAIN_MAX : v[i]) << (8 * i);
  c = (c & ~0xFFu) | (loads > PPT_MEMCHAIN_NIBBLE ? PPT_MEMCHAIN_NIBBLE : loads) |
      (divs > PPT_MEMCHAIN_NIBBLE ? PPT_MEMCHAIN_NIBBLE : divs) << 4;
  return c;
}

/* The block's recurrence through memory: 1 with its counts, 0 (counts 0) when it has none. */
static inline int ppt_trace_bb_mem_chain(const ppt_trace_bb *bb, unsigned *loads, unsigned *ialu,
                                         unsigned *fadd, unsigned *fmul) {
  uint32_t c = bb->mem_chain;
  *loads = c & PPT_MEMCHAIN_NIBBLE;
  *ialu = (c >> 8) & 0xFFu;
  *fadd = (c >> 16) & 0xFFu;
  *fmul = (c >> 24) & 0xFFu;
  return *loads > 0;
}

/* ppt_trace_bb.chase: byte 0 the block's chased loads, byte 1 its loads (both scaled
 * down together past 255), byte 2 the independent chains of its loop (saturated at 255,
 * at least 1 where a load is chased). */
static inline uint32_t ppt_chase_pack(unsigned chased, unsigned loads, unsigned chains) {
  if (chased == 0 || loads == 0) return 0;
  if (chased > loads) chased = loads;
  if (loads > 255u) {
    chased = (unsigned)(((unsigned long long)chased * 255u + loads - 1) / loads);
    loads = 255u;
  }
  chains = chains < 1u ? 1u : chains > 255u ? 255u : chains;
  return chased | loads << 8 | chains << 16;
}

/* The share of the block's loads that are chased (0: none) and their chains (*chains, 1
 * at least). */
static inline double ppt_trace_bb_chase(const ppt_trace_bb *bb, unsigned *chains) {
  unsigned chased = bb->chase & 0xFFu, loads = (bb->chase >> 8) & 0xFFu, n = (bb->chase >> 16) & 0xFFu;
  *chains = n ? n : 1u;
  return chased && loads ? (double)chased / loads : 0.0;
}

/* Of the block's recurrence through memory, the divides and roots (0 when none). */
static inline unsigned ppt_trace_bb_mem_chain_divs(const ppt_trace_bb *bb) {
  return (bb->mem_chain >> 4) & PPT_MEMCHAIN_NIBBLE;
}

/* ops[PPT_OP_CHAIN_DIV]: the divides and roots on the block's recurrence (low byte,
 * saturated at 255), the lane moves on it (bits 8-14: extracting, inserting or
 * broadcasting a vector lane, as an SLP-vectorised loop carrying a pair of values does;
 * saturated at 127), and PPT_CHAIN_FRESH (bit 15): the recurrence starts afresh at each
 * entry into its loop (the value it starts from does not depend on the value it ended
 * with the time before: a dot product's s = 0, not a sum carried by an outer loop too).
 * A writer that records neither leaves bits 8-15 0 (the divides alone, never above 255
 * in practice), which reads as no lane moves and not fresh; lane counts stay below 128,
 * so bit 15 is the flag's alone. */
#define PPT_CHAIN_FRESH 0x8000u
static inline uint16_t ppt_chain_div_pack(unsigned divs, unsigned moves, int fresh) {
  return (uint16_t)((divs > 255u ? 255u : divs) | (moves > 127u ? 127u : moves) << 8 |
                    (fresh ? PPT_CHAIN_FRESH : 0u));
}
static inline unsigned ppt_trace_bb_chain_divs(const ppt_trace_bb *bb) {
  return bb->ops[PPT_OP_CHAIN_DIV] & 0xFFu;
}
static inline unsigned ppt_trace_bb_chain_moves(const ppt_trace_bb *bb) {
  return (bb->ops[PPT_OP_CHAIN_DIV] >> 8) & 0x7Fu;
}
static inline int ppt_trace_bb_chain_fresh(const ppt_trace_bb *bb) {
  return (bb->ops[PPT_OP_CHAIN_DIV] & PPT_CHAIN_FRESH) != 0;
}

/* Of a block's divides (ops[PPT_OP_FDIV]), the square roots; 0 when the trace does not
 * say. */
static inline unsigned ppt_trace_bb_sqrts(const ppt_trace_bb *bb) {
  unsigned s = bb->flags & PPT_BB_EXT ? (bb->flags >> PPT_BB_SQRT_SHIFT) & PPT_BB_SQRT_MAX : 0;
  return s < bb->ops[PPT_OP_FDIV] ? s : bb->ops[PPT_OP_FDIV];
}

/* Of a block's loop-carried FP ops (ops[PPT_OP_CHAIN_FP]), the multiplies; -1 when the
 * trace does not say (built before ppt-cc recorded it). */
static inline int ppt_trace_bb_chain_muls(const ppt_trace_bb *bb) {
  if (!(bb->flags & PPT_BB_EXT)) return -1;
  return (int)((bb->flags >> PPT_BB_CHAIN_MUL_SHIFT) & PPT_BB_CHAIN_MUL_MASK);
}

/* The longest chain of dependent FP ops inside one execution of the block (PPT_BB_PATH):
 * its adds, multiplies and divides; 0 when the trace does not say (older traces). */
static inline int ppt_trace_bb_path(const ppt_trace_bb *bb, unsigned *adds, unsigned *muls, unsigned *divs) {
  if (!(bb->flags & PPT_BB_PATH)) {
    *adds = *muls = *divs = 0;
    return 0;
  }
  *adds = (bb->flags >> PPT_BB_PATH_ADD_SHIFT) & PPT_BB_PATH_ADD_MAX;
  *muls = (bb->flags >> PPT_BB_PATH_MUL_SHIFT) & PPT_BB_PATH_MUL_MAX;
  *divs = (bb->flags >> PPT_BB_PATH_DIV_SHIFT) & PPT_BB_PATH_DIV_MAX;
  return 1;
}

typedef struct ppt_trace_chunk_info {
  uint64_t offset;    /* file offset of the compressed chunk */
  uint32_t comp_size; /* compressed bytes */
  uint32_t raw_size;  /* encoded bytes before compression */
  uint32_t thread;    /* 0-based thread index in order of first record */
  uint32_t seq;       /* position of the chunk in its thread's stream */
  uint64_t nrecs;     /* records of all kinds */
  uint64_t nrefs;     /* loads + stores */
  uint32_t start_bb;  /* block instance open when the chunk starts (0 = none) */
  uint32_t start_k;   /* index of the next reference within that instance */
} ppt_trace_chunk_info;

typedef struct ppt_trace ppt_trace;

/* Opens and checks a trace (header, footer, chunk table, block table). Errors:
 * PPT_EINPUT with "PATH: problem" for a missing, truncated, corrupt or wrong-version file. */
int ppt_trace_open(const char *path, ppt_trace **out, ppt_err *err);
void ppt_trace_close(ppt_trace *t);

const char *ppt_trace_path(const ppt_trace *t);
uint32_t ppt_trace_version(const ppt_trace *t);
uint32_t ppt_trace_nthreads(const ppt_trace *t);
uint64_t ppt_trace_file_bytes(const ppt_trace *t);
/* 1 when the run recorded OpenMP parallel regions (PPT_EV_PAR_* events in thread 0). */
int ppt_trace_has_forkjoin(const ppt_trace *t);
/* Total records / memory references of one thread, or of all threads (thread = UINT32_MAX). */
uint64_t ppt_trace_nrefs(const ppt_trace *t, uint32_t thread);
uint64_t ppt_trace_nrecs(const ppt_trace *t, uint32_t thread);

size_t ppt_trace_nchunks(const ppt_trace *t);
const ppt_trace_chunk_info *ppt_trace_chunk(const ppt_trace *t, size_t i);
/* Chunks of one thread in stream order: ppt_trace_thread_chunk(t, th, k) is the index of
 * the k-th chunk of thread th (k < ppt_trace_thread_nchunks(t, th)). */
size_t ppt_trace_thread_nchunks(const ppt_trace *t, uint32_t thread);
size_t ppt_trace_thread_chunk(const ppt_trace *t, uint32_t thread, size_t k);

/* Block table: ids run 1..nbbs; ppt_trace_bb_get(t, id) for id in that range. */
uint32_t ppt_trace_nbbs(const ppt_trace *t);
const ppt_trace_bb *ppt_trace_bb_get(const ppt_trace *t, uint32_t id);

/* A reusable decode buffer (one per reading thread). */
typedef struct ppt_trace_batch ppt_trace_batch;
ppt_trace_batch *ppt_trace_batch_new(void);
/* Bytes a batch holds at most while it decodes t's chunks (the largest chunk compressed,
 * raw and decoded: 16 B a record): what each reader of t costs (docs/sasmm.md, "Memory"). */
uint64_t ppt_trace_batch_bytes(const ppt_trace *t);
void ppt_trace_batch_free(ppt_trace_batch *b);
/* Decodes chunk i into b; on success recs and n point into b (valid until b is reused). */
int ppt_trace_chunk_decode(const ppt_trace *t, size_t i, ppt_trace_batch *b, const ppt_trace_rec **recs,
                           size_t *n, ppt_err *err);

/* Machine-level stack references (issue 13; docs/trace-format.md, "Stack references").
 * The block table says how many stack loads and stores each block's machine code makes
 * beyond its IR's (register spills, stack arguments, push/pop, call/ret). While on (the
 * default, for a trace that has any), decoding a chunk adds them after each block entry
 * as 8-byte loads and stores flagged PPT_REC_STACK | PPT_REC_MCSTACK, at a window of 4
 * lines private to the thread (ppt_trace_mcstack_addr), and the op mix's LOAD/STORE
 * count them; chunks then decode to more records than ppt_trace_chunk_info says.
 * Set before t is shared by threads (`--no-stack-refs` turns it off). */
void ppt_trace_set_stack_refs(ppt_trace *t, int on);
/* 1 when decoding adds stack references (on, and some block has them). */
int ppt_trace_stack_refs(const ppt_trace *t);
/* Address of the k-th stack reference of a block instance run by thread `thread`. */
uint64_t ppt_trace_mcstack_addr(uint32_t thread, uint32_t k);
/* Writes bb's stack stores, then its loads (bb->stack_stores + bb->stack_loads records)
 * for a block instance run by `thread`. */
void ppt_trace_mcstack_recs(const ppt_trace_bb *bb, uint32_t thread, ppt_trace_rec *out);
/* A batch (cursor) with raw set decodes exactly the file's records, none added: for
 * passes that address records by their position in the stream (chunk_info.nrecs). */
void ppt_trace_batch_set_raw(ppt_trace_batch *b, int raw);

/* Events of the batch last decoded into b: record r with kind PPT_REC_EVENT refers to
 * ppt_trace_batch_events(b)[r.addr]. */
const ppt_trace_event *ppt_trace_batch_events(const ppt_trace_batch *b);

/* Sequential cursor over one thread's stream, a chunk at a time. */
typedef struct ppt_trace_cursor ppt_trace_cursor;
int ppt_trace_cursor_open(const ppt_trace *t, uint32_t thread, ppt_trace_cursor **out, ppt_err *err);
/* Returns 0 with *n > 0 for a batch, 0 with *n == 0 at the end, nonzero on error. */
int ppt_trace_cursor_next(ppt_trace_cursor *c, const ppt_trace_rec **recs, size_t *n, ppt_err *err);
void ppt_trace_cursor_close(ppt_trace_cursor *c);
/* Events of the cursor's current batch. */
const ppt_trace_event *ppt_trace_cursor_events(const ppt_trace_cursor *c);
/* ppt_trace_batch_set_raw for the cursor's batch. */
void ppt_trace_cursor_set_raw(ppt_trace_cursor *c, int raw);
/* on != 0: decode the next chunk on a second thread while the caller reads this one
 * (passes that do little per record go about twice as fast on two CPUs). The records a
 * call hands out stay valid until the next call, as without. -1 when out of memory. */
int ppt_trace_cursor_set_ahead(ppt_trace_cursor *c, int on);

/* Block selectors (--only; docs/sasmm.md "Selecting blocks"), each one of
 *   FUNC            functions whose name starts with FUNC, or matches it as a glob
 *                   (fnmatch) when it has * ? or [ (e.g. kernel_, '*_kernel', main)
 *   FILE:FUNC       the same, in source files matching FILE: the path itself, a
 *                   trailing part after a '/', or a glob on the path or its base name
 *   FILE:N, FILE:N-M  blocks of FILE whose (first) source line is in N..M
 * A block belongs to every function on its inlining chain (ppt_trace_bb.inl), each in
 * the file of that function's code (ppt_trace_bb_inl_file). A list is a union.
 * ppt_trace_select: *out = a malloc'd table over block ids 0..nbbs, 1 for the blocks
 * any selector matches; missed (NULL, or n entries) gets 1 for each selector that
 * matches no block; PPT_EINPUT naming the trace and the list when no selector matches
 * any block; PPT_ERUN when out of memory. */
int ppt_trace_select(const ppt_trace *t, const char *const *sels, size_t n, uint8_t **out, uint8_t *missed,
                     ppt_err *err);
/* The short form of a function name as the block table shows it, into out (n bytes):
 * a demangled C++ name without its return type and argument list (`axpy<double>` for
 * `void axpy<double>(std::vector<double>&, double)`, `ns::S::operator()` for
 * `ns::S::operator()(int) const`); any other name as it is. Returns out. */
char *ppt_trace_func_short(const char *name, char *out, size_t n);

/* The same table, without the check that every selector matches (empty or malformed
 * selectors match nothing); NULL when out of memory. */
uint8_t *ppt_trace_blocks_of_functions(const ppt_trace *t, const char *const *sels, size_t n);

/* Whole-trace totals in one streaming pass (what `ppt info` prints). */
typedef struct ppt_trace_summary {
  uint64_t refs, loads, stores, stack_refs, bb_instances;
  uint64_t mcstack_refs;            /* of the stack_refs, those the reader added (PPT_REC_MCSTACK) */
  uint64_t parallel_refs;           /* references made inside parallel regions (any function) */
  uint64_t parallel_called_refs;    /* ... of them, in blocks of other functions than the
                                       outlined bodies (PPT_BB_PARALLEL): those the regions call */
  uint64_t lines64;                 /* distinct 64-byte lines touched */
  uint64_t parallel_regions, loops; /* PPT_EV_PAR_BEGIN and PPT_EV_LOOP_BEGIN events */
  uint64_t threads_asked;           /* largest team size the program asked for (0: none) */
  uint64_t thread_requests;         /* how many times it asked */
  uint32_t threads, bbs, parallel_bbs;
  uint64_t *bb_count; /* [nbbs + 1]: instances per block id */
  uint64_t *bb_refs;  /* [nbbs + 1]: references per block id */
  uint8_t *bb_widest; /* [nbbs + 1]: widest reference of each block, bytes (0: none) */
} ppt_trace_summary;

/* progress(done_refs, arg) is called after each chunk when non-NULL. */
int ppt_trace_summarize(const ppt_trace *t, ppt_trace_summary *s, void (*progress)(uint64_t done, void *arg),
                        void *arg, ppt_err *err);
void ppt_trace_summary_free(ppt_trace_summary *s);

/* How the threads' streams merge into the one stream a shared cache sees: round-robin
 * by reference, or a uniformly random thread per reference, seeded (SASMM paper,
 * Algorithm 2; `ppt cachesim` does the same with real threads' streams). */
typedef enum ppt_interleave {
  PPT_INTERLEAVE_RR = 0,
  PPT_INTERLEAVE_UNIFORM = 1,
} ppt_interleave;

/* "rr" or "uniform"; NULL for a value out of range. */
const char *ppt_interleave_name(ppt_interleave il);
/* "rr" (or "round-robin"), "uniform" (or "random"): 0; else -1, *out untouched. */
int ppt_interleave_parse(const char *s, ppt_interleave *out);

/* What a stretch of the program between OpenMP events is: serial code (one thread), the
 * first part of a parallel region (the threads fork), or a later part of the same
 * region, after a worksharing loop's barrier (the threads already run: no fork or join). */
typedef enum ppt_region_kind {
  PPT_REGION_SERIAL = 0,
  PPT_REGION_FORK = 1,
  PPT_REGION_BARRIER = 2,
} ppt_region_kind;

#endif
