/* rt_new.c — C++'s operator new and new[] (every form libstdc++ exports), wrapped like
 * the C allocation functions (rt_heap.c says why). A separate archive member: a C
 * program never references them, and pulling these wrappers in would need libstdc++.
 * Built with unwind tables (-fexceptions): the real operator throws through them. */
#include <stddef.h>

#include "trace/runtime/rt.h"

/* Mangled names (Itanium C++ ABI): m = size_t, St11align_val_t = std::align_val_t,
 * RKSt9nothrow_t = const std::nothrow_t &. */
#define PPT_RT_NEW(name, params, args, size) \
  void *__real_##name params;                \
  void *__wrap_##name params {               \
    void *p = __real_##name args;            \
    ppt_rt_heap_block(p, size);              \
    return p;                                \
  }

PPT_RT_NEW(_Znwm, (size_t n), (n), n)
PPT_RT_NEW(_Znam, (size_t n), (n), n)
PPT_RT_NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *nt), (n, nt), n)
PPT_RT_NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *nt), (n, nt), n)
PPT_RT_NEW(_ZnwmSt11align_val_t, (size_t n, size_t al), (n, al), n)
PPT_RT_NEW(_ZnamSt11align_val_t, (size_t n, size_t al), (n, al), n)
PPT_RT_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt), (n, al, nt), n)
PPT_RT_NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt), (n, al, nt), n)
