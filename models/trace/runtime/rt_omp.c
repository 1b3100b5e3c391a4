/* rt_omp.c — wrappers around libomp's entry points, linked with -Wl,--wrap=SYMBOL by
 * ppt-cc. They record where parallel regions and worksharing loops begin and end, the
 * loop's full iteration space and schedule, and the iterations this thread was given:
 * exactly what SASMM's core mimicking needs, and what compiled code no longer shows at
 * -O1 and above (clang's OpenMP block names do not survive optimisation).
 *
 * This file is a separate archive member on purpose: the linker pulls it in only when
 * the program calls libomp, so non-OpenMP programs never reference libomp. */
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ppt/trace.h"
#include "trace/ownheap.h"
#include "trace/runtime/rt.h"

/* libomp's source position of a construct (kmp.h's ident_t; the layout is its ABI):
 * psource is ";file;function;line;column;;", the function clang compiled the construct
 * in, before any inlining. */
typedef struct ident {
  int32_t reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident_t;
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);

/* libomp's schedule numbers (kmp.h, sched_type). Bit 30 is the nonmonotonic modifier, bit
 * 29 monotonic: clang 14 passes 2^30 + 35 for plain schedule(dynamic[,c]) and 2^30 + 36 for
 * guided (seen in its IR), and libomp runs nonmonotonic dynamic as static_steal, so the
 * modifier is kept (PPT_SCHED_NONMONOTONIC). */
static int64_t ppt_sched_of(int32_t s) {
  int64_t nonmono = (s & (1 << 30)) ? PPT_SCHED_NONMONOTONIC : 0;
  switch (s & ~((1 << 29) | (1 << 30))) {
    case 34:
    case 40:
    case 41:
    case 44: return PPT_SCHED_STATIC; /* static, greedy, balanced */
    case 33: return PPT_SCHED_STATIC_CHUNKED;
    case 35: return PPT_SCHED_DYNAMIC | nonmono;
    case 36:
    case 42: return PPT_SCHED_GUIDED | nonmono; /* guided: libomp's __kmp_guided, iterative */
    case 38:                                    /* auto: libomp's __kmp_auto, analytical */
    case 43: return PPT_SCHED_AUTO | nonmono;
    default: return PPT_SCHED_OTHER;
  }
}

/* ---- parallel regions ---- */
void __real___kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro fn, ...);

/* libomp's own invoker of outlined bodies (z_Linux_asm.S, exported by libomp.so): calls
 * pkfn(&gtid, &tid, argv[0], ..., argv[argc-1]) for any argc, which C cannot express. With
 * OMPT support it stores its frame address through exit_frame_ptr; without, it ignores it. */
int __kmp_invoke_microtask(kmpc_micro pkfn, int gtid, int tid, int argc, void *argv[], void **exit_frame_ptr);

/* What the team's threads need to run the program's outlined body with its arguments. */
typedef struct fork_pack {
  kmpc_micro fn;
  int32_t argc;
  void **argv;
} fork_pack;

/* The body every thread of the team runs in place of the program's: the program's body,
 * called with the captured variables the fork was given. */
static void ppt_fork_trampoline(int32_t *gtid, int32_t *btid, fork_pack *p) {
  void *exit_frame = NULL;
  __kmp_invoke_microtask(p->fn, *gtid, *btid, p->argc, p->argv, &exit_frame);
}

/* Variadic arguments cannot be forwarded in C, and a region may capture any number of
 * variables (clang passes each as one pointer-sized argument; a C++ lambda or a big
 * function body easily has dozens). So the captured values are collected into an array
 * and the fork gets one argument, the pack, which the trampoline unpacks through libomp's
 * own invoker: no limit on their number. The pack lives on this frame, which outlives the
 * region: __kmpc_fork_call returns after the join. */
void __wrap___kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro fn, ...) {
  enum { ONSTACK = 64 };
  void *local[ONSTACK];
  void **argv = local;
  if (argc < 0) {
    fprintf(stderr, "ppt runtime: parallel region with %d captured variables\n", argc);
    abort();
  }
  if (argc > ONSTACK && !(argv = ppt_own_alloc((size_t)argc * sizeof *argv))) {
    fprintf(stderr, "ppt runtime: out of memory forking a region of %d captured variables\n", argc);
    abort();
  }
  va_list ap;
  va_start(ap, fn);
  for (int32_t i = 0; i < argc; i++) argv[i] = va_arg(ap, void *);
  va_end(ap);
  fork_pack pack = {fn, argc, argv};
  /* the caller's stack pointer, as rt.c's rt_caller_sp sees it in a block callback */
  ppt_rt_roi_fork((uintptr_t)__builtin_frame_address(0) + 16, loc ? loc->psource : NULL);
  ppt_rt_event(PPT_EV_PAR_BEGIN, NULL, 0);
  __real___kmpc_fork_call(loc, 1, (kmpc_micro)ppt_fork_trampoline, &pack);
  ppt_rt_event(PPT_EV_PAR_END, NULL, 0);
  ppt_rt_roi_join();
  if (argv != local) ppt_own_free(argv);
}

/* ---- static worksharing loops ---- */
#define PPT_STATIC_INIT(suffix, T, ST)                                                                  \
  void __real___kmpc_for_static_init_##suffix(ident_t *loc, int32_t gtid, int32_t sched, int32_t *last, \
                                              T *lo, T *up, ST *stride, ST incr, ST chunk);             \
  void __wrap___kmpc_for_static_init_##suffix(ident_t *loc, int32_t gtid, int32_t sched, int32_t *last, \
                                              T *lo, T *up, ST *stride, ST incr, ST chunk) {            \
    int64_t b[5] = {ppt_sched_of(sched), (int64_t)*lo, (int64_t)*up, (int64_t)incr, (int64_t)chunk};    \
    ppt_rt_event(PPT_EV_LOOP_BEGIN, b, 5);                                                              \
    __real___kmpc_for_static_init_##suffix(loc, gtid, sched, last, lo, up, stride, incr, chunk);        \
    int64_t c[3] = {(int64_t)*lo, (int64_t)*up, (int64_t)*stride};                                      \
    ppt_rt_event(PPT_EV_LOOP_CHUNK, c, 3);                                                              \
  }
PPT_STATIC_INIT(4, int32_t, int32_t)
PPT_STATIC_INIT(4u, uint32_t, int32_t)
PPT_STATIC_INIT(8, int64_t, int64_t)
PPT_STATIC_INIT(8u, uint64_t, int64_t)

void __real___kmpc_for_static_fini(ident_t *loc, int32_t gtid);
void __wrap___kmpc_for_static_fini(ident_t *loc, int32_t gtid) {
  ppt_rt_event(PPT_EV_LOOP_END, NULL, 0);
  __real___kmpc_for_static_fini(loc, gtid);
}

/* Whether OMP_SCHEDULE asks for "nonmonotonic:KIND": omp_get_schedule cannot say (omp.h
 * has no flag for it), and libomp 14 runs OMP_SCHEDULE=dynamic,c without a modifier as
 * monotonic (the compile-time modifier of schedule(runtime) is dropped; real 4-thread
 * traces show each thread's chunks ascending), but nonmonotonic:dynamic,c as static_steal. */
static int ppt_env_nonmonotonic(void) {
  const char *e = getenv("OMP_SCHEDULE");
  if (!e) return 0;
  while (*e == ' ' || *e == '\t') e++;
  return strncasecmp(e, "nonmonotonic", 12) == 0;
}

/* schedule(runtime) (libomp's 37): the schedule this run takes from OMP_SCHEDULE or
 * omp_set_schedule, as libomp resolves it, in *sched and *chunk (what the loop's event
 * records); the other schedules are left as they are. */
static void ppt_sched_runtime(int64_t *sched, int64_t *chunk) {
  omp_sched_t kind;
  int c;
  omp_get_schedule(&kind, &c);
  int mono = ((int)kind & (int)omp_sched_monotonic) != 0;
  switch ((int)kind & ~(int)omp_sched_monotonic) {
    case omp_sched_static: *sched = c > 0 ? PPT_SCHED_STATIC_CHUNKED : PPT_SCHED_STATIC; break;
    case omp_sched_dynamic:
      *sched = PPT_SCHED_DYNAMIC | (!mono && ppt_env_nonmonotonic() ? PPT_SCHED_NONMONOTONIC : 0);
      break;
    case omp_sched_guided: *sched = PPT_SCHED_GUIDED; break;
    case omp_sched_auto: *sched = PPT_SCHED_AUTO; break;
    default: *sched = PPT_SCHED_OTHER; break;
  }
  *chunk = c > 0 ? c : 0;
}

/* ---- dynamic / guided worksharing loops ---- */
#define PPT_DISPATCH(suffix, T, ST)                                                                          \
  void __real___kmpc_dispatch_init_##suffix(ident_t *loc, int32_t gtid, int32_t sched, T lb, T ub, ST st,    \
                                            ST chunk);                                                       \
  void __wrap___kmpc_dispatch_init_##suffix(ident_t *loc, int32_t gtid, int32_t sched, T lb, T ub, ST st,    \
                                            ST chunk) {                                                      \
    int64_t b[5] = {ppt_sched_of(sched), (int64_t)lb, (int64_t)ub, (int64_t)st, (int64_t)chunk};             \
    if ((sched & ~((1 << 29) | (1 << 30))) == 37) ppt_sched_runtime(&b[0], &b[4]);                           \
    ppt_rt_event(PPT_EV_LOOP_BEGIN, b, 5);                                                                   \
    __real___kmpc_dispatch_init_##suffix(loc, gtid, sched, lb, ub, st, chunk);                               \
  }                                                                                                          \
  int __real___kmpc_dispatch_next_##suffix(ident_t *loc, int32_t gtid, int32_t *last, T *lb, T *ub, ST *st); \
  int __wrap___kmpc_dispatch_next_##suffix(ident_t *loc, int32_t gtid, int32_t *last, T *lb, T *ub,          \
                                           ST *st) {                                                         \
    int more = __real___kmpc_dispatch_next_##suffix(loc, gtid, last, lb, ub, st);                            \
    if (more) {                                                                                              \
      int64_t c[3] = {(int64_t)*lb, (int64_t)*ub, (int64_t)*st};                                             \
      ppt_rt_event(PPT_EV_LOOP_CHUNK, c, 3);                                                                 \
    } else {                                                                                                 \
      ppt_rt_event(PPT_EV_LOOP_END, NULL, 0);                                                                \
    }                                                                                                        \
    return more;                                                                                             \
  }
PPT_DISPATCH(4, int32_t, int32_t)
PPT_DISPATCH(4u, uint32_t, int32_t)
PPT_DISPATCH(8, int64_t, int64_t)
PPT_DISPATCH(8u, uint64_t, int64_t)

/* ---- team sizes the program picks itself ----
 * A program that sets its own team size would override ppt trace --threads (a
 * "sequential" trace of 40 threads); the runtime substitutes the traced size and notes
 * the request (ppt_rt_threads_request). omp_set_dynamic and the like cannot add threads
 * and are left alone. */
void __real_omp_set_num_threads(int n);
void __wrap_omp_set_num_threads(int n) {
  __real_omp_set_num_threads(ppt_rt_threads_request(n));
}

/* What clang emits for a num_threads(n) clause, just before __kmpc_fork_call. */
void __real___kmpc_push_num_threads(ident_t *loc, int32_t gtid, int32_t n);
void __wrap___kmpc_push_num_threads(ident_t *loc, int32_t gtid, int32_t n) {
  __real___kmpc_push_num_threads(loc, gtid, ppt_rt_threads_request(n));
}

/* ---- what the program asks of its team ----
 * A region that divides its work by hand (chunk = n / omp_get_num_threads(), from
 * omp_get_thread_num() * chunk on) runs all of it on the one thread of a sequential
 * trace; the event lets the mimic divide it again (docs/sasmm.md, "Hand-split regions"). */
int __real_omp_get_thread_num(void);
int __wrap_omp_get_thread_num(void) {
  ppt_rt_team_query(PPT_TEAM_THREAD_NUM);
  return __real_omp_get_thread_num();
}

int __real_omp_get_num_threads(void);
int __wrap_omp_get_num_threads(void) {
  ppt_rt_team_query(PPT_TEAM_NUM_THREADS);
  return __real_omp_get_num_threads();
}

/* single and master: one thread runs the construct for the team, so what it allocates
 * there is shared, not that thread's own (ppt_rt_heap_block). */
#define PPT_SOLO(kind)                                        \
  int32_t __real___kmpc_##kind(ident_t *loc, int32_t gtid);   \
  int32_t __wrap___kmpc_##kind(ident_t *loc, int32_t gtid) {  \
    int32_t r = __real___kmpc_##kind(loc, gtid);              \
    if (r) ppt_rt_solo(1);                                    \
    return r;                                                 \
  }                                                           \
  void __real___kmpc_end_##kind(ident_t *loc, int32_t gtid);  \
  void __wrap___kmpc_end_##kind(ident_t *loc, int32_t gtid) { \
    ppt_rt_solo(-1);                                          \
    __real___kmpc_end_##kind(loc, gtid);                      \
  }
PPT_SOLO(single)
PPT_SOLO(master)
