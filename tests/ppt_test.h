/* ppt_test.h — the one way every Check program runs its suite and reports. */
#ifndef PPT_TEST_H
#define PPT_TEST_H

#include <check.h>
#include <stdlib.h>

/* Runs every test of s (Check forks each one), prints Check's summary, and returns the
 * process exit status: EXIT_FAILURE if any test failed. */
static inline int ppt_test_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
