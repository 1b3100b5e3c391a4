/* test_mcasm.c — the assembly parser that counts machine-level stack references per
 * block (apps/ppt-cc/mcasm.c), on fixed x86-64 AT&T text with known counts. */
#include <check.h>
#include <string.h>

#include "../apps/ppt-cc/mcasm.h"
#include "ppt_test.h"

static void insn(const char *s, int fp, unsigned ld, unsigned st) {
  uint32_t l = 0, w = 0;
  pcc_mcasm_insn(s, strlen(s), &fp, &l, &w);
  ck_assert_msg(l == ld && w == st, "'%s': %u loads %u stores, want %u %u", s, l, w, ld, st);
}

/* One instruction at a time: operand position and mnemonic decide load or store. */
START_TEST(instruction_forms) {
  insn("movq %rax, 8(%rsp)", 0, 0, 1);   /* spill */
  insn("movq -16(%rsp), %rcx", 0, 1, 0); /* reload */
  insn("movsd %xmm0, (%rsp)", 0, 0, 1);
  insn("vaddsd 8(%rsp), %xmm1, %xmm0", 0, 1, 0); /* folded reload */
  insn("addq $1, 16(%rsp)", 0, 1, 1);            /* read-modify-write */
  insn("cmpq $0, 16(%rsp)", 0, 1, 0);
  insn("incq 8(%rsp)", 0, 1, 1);
  insn("sete 8(%rsp)", 0, 0, 1);
  insn("pushq %rbx", 0, 0, 1);
  insn("popq %rbx", 0, 1, 0);
  insn("pushq 8(%rsp)", 0, 1, 1);
  insn("callq foo", 0, 0, 1); /* return address */
  insn("callq *8(%rsp)", 0, 1, 1);
  insn("retq", 0, 1, 0);
  insn("leaq 8(%rsp), %rdi", 0, 0, 0);       /* address only */
  insn("movq (%rsp,%rax,8), %rdx", 0, 0, 0); /* indexed: an array, traced by the IR */
  insn("movq (%rdi), %rax", 0, 0, 0);
  insn("movq %fs:(%rsp), %rax", 0, 0, 0); /* segment override: not the stack */
  insn("movl -4(%rbp), %eax", 0, 0, 0);   /* %rbp without a frame pointer: any register */
  insn("movl -4(%rbp), %eax", 1, 1, 0);
  insn("leave", 1, 1, 0);
  insn("popcntq %rax, %rbx", 0, 0, 0);
  insn("lock xaddl %eax, 8(%rsp)", 0, 1, 1);
  insn("movsd .LCPI0_0(%rip), %xmm1", 0, 1, 0); /* constant pool: a load the IR lacks */
  insn("vmulpd .LCPI2_1(%rip), %ymm0, %ymm0", 0, 1, 0);
  insn("movq global(%rip), %rax", 0, 0, 0); /* the program's data: traced by the IR */
}
END_TEST

static const char k_text[] =
    "\t.text\n"
    "\t.type\tf,@function\n"
    "f:                                      # @f\n"
    "\t.cfi_startproc\n"
    "# %bb.0:\n"
    "\tpushq\t%rbx\n" /* prologue, before the entry marker: block 0 */
    "\tsubq\t$16, %rsp\n"
    "\t#APP\n"
    "\t# ppt-bb 0\n"
    "\t#NO_APP\n"
    "\tmovq\t%rdi, 8(%rsp)                   # 8-byte Spill\n"
    "\ttestq\t%rdi, %rdi\n"
    "\tjle\t.LBB0_3\n"
    "# %bb.1:                                # preheader codegen made, no marker\n"
    "\tmovq\t%rsi, (%rsp)                    # 8-byte Spill\n"
    "\t.p2align\t4, 0x90\n"
    ".LBB0_2:                                # =>This Inner Loop Header: Depth=1\n"
    "\tmovq\t(%rsp), %rax                    # 8-byte Reload\n"
    "\t#APP\n"
    "\t# ppt-bb 1\n"
    "\t#NO_APP\n"
    "\taddq\t8(%rsp), %rax\n"
    "\tcallq\tg\n"
    "\tjne\t.LBB0_2\n"
    ".LBB0_3:\n"
    "\t#APP\n"
    "\t# ppt-bb 2\n"
    "\t#NO_APP\n"
    "\taddq\t$16, %rsp\n"
    "\tpopq\t%rbx\n"
    "\tretq\n"
    ".LBB0_4:                                # tail-duplicated copy of block 2\n"
    "\t#APP\n"
    "\t# ppt-bb 2\n"
    "\t#NO_APP\n"
    "\tpopq\t%rbx\n"
    "\tretq\n"
    ".Lfunc_end0:\n"
    "\t.size\tf, .Lfunc_end0-f\n"
    "\t.cfi_endproc\n"
    "\t.type\th,@function\n"
    "h:\n"
    "\t.cfi_startproc\n"
    "\tpushq\t%rbp\n"
    "\tmovq\t%rsp, %rbp\n"
    "\t#APP\n"
    "\t# ppt-bb 3\n"
    "\t#NO_APP\n"
    "\tmovl\t-4(%rbp), %eax\n"
    "\tpopq\t%rbp\n"
    "\tretq\n"
    "\t.cfi_endproc\n";

/* A whole function: prologue to the entry, the preheader (depth 0, no marker) to the
 * last marked block at its depth, the loop's spill code before its marker to the loop,
 * duplicated markers counted per copy, %rbp as frame pointer after "movq %rsp, %rbp". */
START_TEST(blocks_and_functions) {
  pcc_mcstack out[5];
  memset(out, 0, sizeof out);
  pcc_mcasm_count(k_text, sizeof k_text - 1, out, 4);
  /* block 0: push (store), spill (store); preheader's spill (store) joins it */
  ck_assert_uint_eq(out[0].loads, 0);
  ck_assert_uint_eq(out[0].stores, 3);
  ck_assert_uint_eq(out[0].copies, 1);
  /* block 1: reload before the marker, addq from the stack, call */
  ck_assert_uint_eq(out[1].loads, 2);
  ck_assert_uint_eq(out[1].stores, 1);
  /* block 2, two copies: pop + ret each */
  ck_assert_uint_eq(out[2].copies, 2);
  ck_assert_uint_eq(out[2].loads, 4);
  ck_assert_uint_eq(out[2].stores, 0);
  /* h: push (prologue), -4(%rbp) load with a frame pointer, pop, ret */
  ck_assert_uint_eq(out[3].loads, 3);
  ck_assert_uint_eq(out[3].stores, 1);
  ck_assert_uint_eq(out[4].copies, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mcasm");
  TCase *tc = tcase_create("mcasm");
  tcase_add_test(tc, instruction_forms);
  tcase_add_test(tc, blocks_and_functions);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}
