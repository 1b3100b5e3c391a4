/* rt.h — internals of the runtime linked into ppt-cc-built programs. */
#ifndef PPT_RT_H
#define PPT_RT_H

#include <stdint.h>

/* Builds the raw block table for block ids 1..nguards from the ppt_bbtab section that
 * ppt-cc embedded (rt_table.c). Returns 0 or -1. */
int ppt_rt_build_bbtab(uint32_t nguards, unsigned char **raw, uint32_t *size);

/* Records an OpenMP event (ppt_event_type) in the calling thread's stream. */
void ppt_rt_event(unsigned type, const int64_t *v, unsigned n);

#endif
