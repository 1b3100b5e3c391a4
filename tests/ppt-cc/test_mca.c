/* test_mca.c — the llvm-mca input and report handling behind the block cycles
 * (apps/ppt-cc/mca.c), on fixed text whose answer is known, and one real llvm-mca run.
 *
 *  - input_regions: each marker's first machine block becomes one region with exactly
 *    its instruction lines (the code before the marker included; labels, directives,
 *    comments and the #APP marker lines left out); a tail-duplicated copy and a block
 *    without instructions give no region.
 *  - report_parsed: Total Cycles / Iterations per named region, in 1/16 cycle, from a
 *    report in llvm-mca 14's layout (falseshare's hash loop: 935 cycles over 200
 *    iterations on znver3 is 4.675 cycles, 74.8 sixteenths -> 75).
 *  - real_tool: LLVM's llvm-mca on a block of 4 dependent integer multiplies (latency 3
 *    on znver3, one after the other: 12 cycles an execution by hand) gives 12 +- 0.5. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../apps/ppt-cc/mca.h"
#include "ppt_test.h"

static const char k_asm[] =
    "f:                                      # @f\n"
    "\t.cfi_startproc\n"
    "# %bb.0:\n"
    "\tpushq\t%rbx\n"
    "\t#APP\n"
    "\t# ppt-bb 0\n"
    "\t#NO_APP\n"
    "\tmovl\t$1, %eax\n"
    ".LBB0_1:                                # =>This Inner Loop Header: Depth=1\n"
    "\t.p2align\t4, 0x90\n"
    "\timull\t$3, %eax, %eax      # a comment\n"
    "\t#APP\n"
    "\t# ppt-bb 1\n"
    "\t#NO_APP\n"
    "\tdecl\t%edi\n"
    "\tjne\t.LBB0_1\n"
    "# %bb.2:\n"
    "\t#APP\n"
    "\t# ppt-bb 2\n"
    "\t#NO_APP\n"
    ".LBB0_3:\n"
    "\t#APP\n"
    "\t# ppt-bb 1\n"
    "\t#NO_APP\n"
    "\taddl\t%edi, %eax\n"
    "\tpopq\t%rbx\n"
    "\tretq\n"
    ".Lfunc_end0:\n";

START_TEST(input_regions) {
  size_t len = 0;
  char *in = pcc_mca_input(k_asm, sizeof k_asm - 1, 3, &len);
  ck_assert_ptr_nonnull(in);
  ck_assert_uint_eq(len, strlen(in));
  const char *want =
      "# LLVM-MCA-BEGIN b0\n\tpushq\t%rbx\n\tmovl\t$1, %eax\n# LLVM-MCA-END\n"
      "# LLVM-MCA-BEGIN b1\n\timull\t$3, %eax, %eax\n\tdecl\t%edi\n\tjne\t.LBB0_1\n# LLVM-MCA-END\n";
  ck_assert_str_eq(in, want);
  free(in);
}
END_TEST

START_TEST(report_parsed) {
  static const char rep[] =
      "[0] Code Region - b4\n\nIterations:        200\nInstructions:      4800\n"
      "Total Cycles:      935\nTotal uOps:        4800\n\n"
      "[1] Code Region - b9\n\nIterations:        200\nInstructions:      200\nTotal Cycles:      203\n"
      "[2] Code Region - b77\n\nIterations:        200\nTotal Cycles:      400\n";
  uint16_t cyc[10];
  ck_assert_uint_eq(pcc_mca_parse(rep, sizeof rep - 1, 10, cyc), 2); /* b77 is out of range */
  ck_assert_uint_eq(cyc[4], 75);
  ck_assert_uint_eq(cyc[9], 16); /* 1.015 cycles */
  ck_assert_uint_eq(cyc[0] + cyc[1] + cyc[2] + cyc[3] + cyc[5] + cyc[8], 0);
}
END_TEST

START_TEST(real_tool) {
  const char *tool = PPT_TEST_LLVM_MCA;
  if (!*tool || access(tool, X_OK) != 0) return; /* no llvm-mca: ppt-cc records no cycles */
  static const char text[] =
      "\t#APP\n\t# ppt-bb 0\n\t#NO_APP\n"
      "\timull\t$3, %eax, %eax\n\timull\t$5, %eax, %eax\n\timull\t$7, %eax, %eax\n\timull\t$9, %eax, %eax\n";
  pcc_runner run;
  pcc_run_init(&run, 0);
  pcc_tmpdir tmp;
  ppt_err err;
  ck_assert_int_eq(pcc_tmpdir_make(&tmp, &err), 0);
  pcc_mca_cfg cfg = {.run = &run, .tmp = &tmp, .tool = tool, .cpu = "znver3"};
  uint16_t cyc[1];
  size_t got = pcc_mca_cycles(&cfg, text, sizeof text - 1, 1, cyc);
  pcc_tmpdir_remove(&tmp, 0);
  ck_assert_uint_eq(got, 1);
  ck_assert_msg(cyc[0] >= 12 * PCC_MCA_SCALE - 8 && cyc[0] <= 12 * PCC_MCA_SCALE + 8, "%g cycles, by hand 12",
                cyc[0] / (double)PCC_MCA_SCALE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mca");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, input_regions);
  tcase_add_test(tc, report_parsed);
  tcase_add_test(tc, real_tool);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
