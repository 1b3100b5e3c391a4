/* ppt/u64set.h — a set of 64-bit keys (open addressing, linear probing). Used to count
 * distinct cache lines; grows by doubling so memory is O(distinct keys). */
#ifndef PPT_U64SET_H
#define PPT_U64SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ppt_u64set ppt_u64set;

ppt_u64set *ppt_u64set_new(void);
void ppt_u64set_free(ppt_u64set *s);
/* Returns 1 if key was added, 0 if present, -1 on out of memory. */
int ppt_u64set_add(ppt_u64set *s, uint64_t key);
size_t ppt_u64set_size(const ppt_u64set *s);

#endif
