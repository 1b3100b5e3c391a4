/* strv.h — a growable, NULL-terminated argument vector for building child command lines.
 *
 * Allocation failure is sticky rather than reported per push: building a command is a
 * long run of pushes, and checking once (pcc_strv_ok) before the command is used keeps
 * that code readable without losing the error. */
#ifndef PCC_STRV_H
#define PCC_STRV_H

#include <stddef.h>

typedef struct pcc_strv {
  char **v;   /* v[n] == NULL whenever v != NULL */
  size_t n;
  size_t cap;
  int oom;    /* set once any push failed; the vector is then unusable */
} pcc_strv;

/* Appends a copy of s. */
void pcc_strv_push(pcc_strv *s, const char *x);
/* Appends a copy of every string of src. */
void pcc_strv_append(pcc_strv *s, const pcc_strv *src);
/* Appends the concatenation a + b (a helper for "dir/file" and "-x" "lang" style args). */
void pcc_strv_push2(pcc_strv *s, const char *a, const char *b);
/* 1 if no push has failed (and the vector holds a valid argv), else 0. */
int pcc_strv_ok(const pcc_strv *s);
/* Frees every string and the array; leaves an empty vector. */
void pcc_strv_free(pcc_strv *s);
/* malloc'd concatenation a + b (b may be NULL); NULL when out of memory. */
char *pcc_strdup2(const char *a, const char *b);

#endif
