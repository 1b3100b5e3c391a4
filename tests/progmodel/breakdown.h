/* breakdown.h — the 1-core compute breakdown of a `ppt predict --json` file, for the
 * program-model tests that check it against figures worked out by hand. */
#ifndef PPT_TEST_BREAKDOWN_H
#define PPT_TEST_BREAKDOWN_H

/* cores[0].breakdown.compute of the JSON file at path: ops_s and chain_s (seconds);
 * fails the running test when the file or a key is missing. */
void breakdown_compute(const char *path, double *ops_s, double *chain_s);
/* cores[0].breakdown.compute[key] of that file (seconds). */
double breakdown_compute_key(const char *path, const char *key);

#endif
