/* elfobj.h — just enough of an ELF64 relocatable-object reader to check what ppt-cc put
 * in an object: section sizes by name, and the ppt_bbtab descriptors with their pointer
 * fields resolved through the RELA relocations (in a .o they are still zero). */
#ifndef TEST_ELFOBJ_H
#define TEST_ELFOBJ_H

#include <stddef.h>
#include <stdint.h>

typedef struct elfobj elfobj;

/* One descriptor as the object describes it. */
typedef struct elfdesc {
  uint32_t magic, line, flags, stack; /* stack: loads | stores << 16 */
  size_t guard_sec;   /* section index the guard pointer points into */
  uint64_t guard_off; /* byte offset in it */
  const char *func;   /* strings resolved in the object (NULL if unresolvable) */
  const char *file;
  uint16_t ops[16];
} elfdesc;

/* NULL if the file is missing or not an x86-64 ELF64 relocatable object. */
elfobj *elfobj_open(const char *path);
void elfobj_close(elfobj *o);
const char *elfobj_secname(const elfobj *o, size_t sec);
uint64_t elfobj_secsize(const elfobj *o, size_t sec);
/* Total bytes of all sections called `name` (objects have one per comdat group). */
uint64_t elfobj_bytes(const elfobj *o, const char *name);
/* All descriptors of all ppt_bbtab sections; *n set. malloc'd (NULL when none/bad). */
elfdesc *elfobj_descs(const elfobj *o, size_t *n);

#endif
