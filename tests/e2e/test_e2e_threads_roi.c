/* test_e2e_threads_roi.c — programs that pick their own team size, and region-of-interest
 * markers (ppt/roi.h), built with ppt-cc and traced with ppt trace. The oracles are the
 * programs themselves: the team sizes they ask for and print outside ppt trace, and
 * reference counts known from their loops over volatile arrays. */
#include <check.h>
#include <stdlib.h>

#include "e2e.h"
#include "ppt/trace.h"
#include "ppt_test.h"

/* Asks for 4 threads with omp_set_num_threads, then 3 with a num_threads clause; each
 * region prints its team size once. */
static const char *k_team =
    "#include <omp.h>\n"
    "#include <stdio.h>\n"
    "volatile double x[64];\n"
    "int main(void) {\n"
    "  omp_set_num_threads(4);\n"
    "#pragma omp parallel\n"
    "  {\n"
    "    x[omp_get_thread_num()] += 1.0;\n"
    "#pragma omp single\n"
    "    printf(\"%d\\n\", omp_get_num_threads());\n"
    "  }\n"
    "#pragma omp parallel num_threads(3)\n"
    "  {\n"
    "    x[omp_get_thread_num()] += 1.0;\n"
    "#pragma omp single\n"
    "    printf(\"%d\\n\", omp_get_num_threads());\n"
    "  }\n"
    "  return 0;\n"
    "}\n";

/* Traced, the team is what ppt trace was told (1 by default, then 2); the trace records
 * the requests (largest 4, 2 of them) and ppt info shows them; untraced, the program gets
 * the 4 and 3 threads it asked for. */
START_TEST(team_size_forced_and_recorded) {
  const char *d = e2e_dir("e2e_team");
  e2e_write(d, "team.c", k_team);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp team.c -o team"), 0);
  ck_assert_int_eq(
      e2e_sh(d, "OMP_NUM_THREADS=7 ./team > plain.txt && printf '4\\n3\\n' | cmp -s - plain.txt"), 0);
  ck_assert_int_eq(
      e2e_sh(d,
             "$PPT trace -o t1.trace -- ./team > t1.txt 2>/dev/null && printf '1\\n1\\n' | cmp -s - t1.txt"),
      0);
  ppt_trace *t = e2e_open(d, "t1.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.threads, 1);
  ck_assert_uint_eq(s.threads_asked, 4);
  ck_assert_uint_eq(s.thread_requests, 2);
  ck_assert_uint_eq(s.parallel_regions, 2);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT info --json t1.trace > i.json && grep -q '\"threads\":1,' i.json && "
                          "grep -q '\"threads_asked\":4,' i.json && grep -q '\"thread_requests\":2,' i.json"),
                   0);
  ck_assert_int_eq(e2e_sh(d, "$PPT info t1.trace | grep -q '^threads asked  4 (largest of 2 requests'"), 0);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT trace --threads 2 -o t2.trace -- ./team > t2.txt 2>/dev/null && "
                          "printf '2\\n2\\n' | cmp -s - t2.txt"),
                   0);
  t = e2e_open(d, "t2.trace");
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.threads, 2);
  ck_assert_uint_eq(s.threads_asked, 4);
  ck_assert_uint_eq(s.thread_requests, 2);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* Set-up (N1 stores to s, a parallel loop over s), a region of interest (N2 loads and
 * N2 stores to k), a tail (N1 stores to u), then a second, nested region (N3 stores to k
 * in serial code, N4 stores to p in a parallel loop), and misplaced markers: a pair
 * inside a parallel region and an END too many. */
static const char *k_roi =
    "#include <stdio.h>\n"
    "#include <ppt/roi.h>\n"
    "enum { N1 = 3000, N2 = 500, N3 = 100, N4 = 400 };\n"
    "volatile double s[N1], k[N2], u[N1], p[N4];\n"
    "int main(void) {\n"
    "  for (int i = 0; i < N1; i++) s[i] = i;\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < N1; i++) s[i] = 2.0;\n"
    "  PPT_ROI_BEGIN();\n"
    "  for (int i = 0; i < N2; i++) k[i] = k[i] + 1.0;\n"
    "  PPT_ROI_END();\n"
    "  for (int i = 0; i < N1; i++) u[i] = 3.0;\n"
    "  PPT_ROI_BEGIN();\n"
    "  PPT_ROI_BEGIN();\n"
    "  for (int i = 0; i < N3; i++) k[i] = 0.5;\n"
    "  PPT_ROI_END();\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < N4; i++) p[i] = 4.0;\n"
    "  PPT_ROI_END();\n"
    "#pragma omp parallel\n"
    "  {\n"
    "    PPT_ROI_BEGIN();\n"
    "    PPT_ROI_END();\n"
    "  }\n"
    "  PPT_ROI_END();\n"
    "  printf(\"%g\\n\", k[1] + s[2] + u[3] + p[4]);\n"
    "  return 0;\n"
    "}\n";

/* Only the regions of interest are written, on every thread: N2 loads, N2 + N3 + N4
 * stores away from the stacks, one parallel region (the set-up's is dropped with its
 * references). The misplaced markers are said once on stderr. The same source built by
 * plain clang, without ppt-cc, has empty markers and runs. */
START_TEST(roi_keeps_only_the_kernel) {
  const char *d = e2e_dir("e2e_roi");
  e2e_write(d, "roi.c", k_roi);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp -I\"$PPT_SOURCE_DIR/include\" roi.c -o roi"), 0);
  for (int threads = 1; threads <= 2; threads++) {
    ck_assert_int_eq(
        e2e_sh(d,
               "$PPT trace --threads %d -o r.trace -- ./roi > out.txt 2> err.txt && "
               "grep -q '^9.5$' out.txt && test $(grep -c 'ppt runtime: PPT_ROI' err.txt) -eq 1 && "
               "grep -q 'PPT_ROI_BEGIN inside a parallel region ignored' err.txt",
               threads),
        0);
    ppt_trace *t = e2e_open(d, "r.trace");
    ppt_trace_summary s;
    e2e_summarize(t, &s);
    ck_assert_uint_eq(s.threads, (unsigned)threads);
    ck_assert_uint_eq(s.parallel_regions, 1);
    ck_assert_uint_eq(s.thread_requests, 0);
    uint64_t loads, stores;
    e2e_count_heap(t, &loads, &stores);
    ck_assert_uint_eq(loads, 500);
    ck_assert_uint_eq(stores, 500 + 100 + 400);
    ppt_trace_summary_free(&s);
    ppt_trace_close(t);
  }
  ck_assert_int_eq(
      e2e_sh(d,
             "clang -O1 -fopenmp -Wall -Werror -I\"$PPT_SOURCE_DIR/include\" roi.c -o plain && "
             "./plain > plain.txt 2> plain.err && grep -q '^9.5$' plain.txt && ! test -s plain.err"),
      0);
}
END_TEST

/* Without markers nothing changes: the whole run is written. */
START_TEST(no_markers_traces_everything) {
  const char *d = e2e_dir("e2e_noroi");
  e2e_write(d, "all.c",
            "volatile double a[300];\n"
            "int main(void) {\n"
            "  for (int i = 0; i < 300; i++) a[i] = a[i] + 1.0;\n"
            "  return 0;\n"
            "}\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 all.c -o all && $PPT trace -o a.trace -- ./all 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "a.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.loads, 300);
  ck_assert_uint_eq(s.stores, 300);
  ck_assert_uint_eq(s.thread_requests, 0);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_threads_roi");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, team_size_forced_and_recorded);
  tcase_add_test(tc, roi_keeps_only_the_kernel);
  tcase_add_test(tc, no_markers_traces_everything);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
