/* models/cpu/tasklist_impl.h — the inside of a ppt_tasklist, shared by the files of the
 * core model (tasklist.c builds it, time_compute.c reads it). Not a public header. */
#ifndef PPT_CPU_TASKLIST_IMPL_H
#define PPT_CPU_TASKLIST_IMPL_H

#include "ppt/tasklist.h"

typedef enum tl_kind {
  TL_OP,       /* n ops of class `cls` */
  TL_INTVEC,   /* n integer vector ops of `width` bits */
  TL_VECTOR,   /* n FP vector ops of `width` bits */
  TL_CYCLES,   /* n plain cycles */
  TL_HITRATES, /* memory item with local hit rates */
  TL_PROFILE,  /* memory item with reuse profiles */
  TL_LEVEL,    /* n accesses served at memory level `level` */
  TL_ALLOC,
  TL_UNALLOC,
  TL_CONTENDED, /* n: the share of the work that takes turns on a contended line */
} tl_kind;

/* An owned copy of a ppt_rd_profile. */
typedef struct tl_profile {
  uint64_t *dist;
  double *count;
  size_t n;
  double inf_count;
} tl_profile;

typedef struct tl_item {
  tl_kind kind;
  double n;           /* count, cycles or bytes */
  int cls;            /* TL_OP: the op class; TL_CYCLES: what they stand for (ppt_tc_cpu) */
  uint32_t width;     /* TL_INTVEC, TL_VECTOR */
  uint32_t level;     /* TL_LEVEL */
  ppt_mem_access mem; /* TL_HITRATES, TL_PROFILE */
  size_t nrates;      /* TL_HITRATES: entries of rates; TL_PROFILE: of profiles */
  double *rates;
  tl_profile *profiles;
} tl_item;

struct ppt_tasklist {
  tl_item *items;
  size_t n, cap;
};

/* Tc of per-class cycles under a compute model (tc_policy.c). */
double tc_combine_classes(ppt_compute_model m, const double cyc[PPT_HW_NOPCLASS]);
/* The class whose figures price ops of class cls: cls itself, or FDIV for square roots
 * on a spec that has no fsqrt. And the port class whose cycles they take: cls itself,
 * or FDIV for square roots (the divider runs them). */
int tc_op_rate_class(const ppt_hwspec *hw, int cls);
int tc_op_port(int cls);

#endif
