/* models/progmodel/bpred.h — branch mispredictions of a traced run, by simulating a
 * predictor over each thread's sequence of basic blocks. Internal to the program model
 * (progmodel.c charges each core's mispredicts to its tasklists), not installed.
 *
 * A conditional branch that the core's predictor gets wrong flushes the pipeline; for
 * code that branches on data (graph traversals, sparse frontiers, searches) that, not
 * the arithmetic, is where the time goes. The trace has no branch records, but it has
 * every block entry in order, so block b followed by block s *is* b's branch going to
 * s. The model is the classic bimodal predictor with a target: per thread and block,
 * the successor it predicts and a 2-bit confidence; a correct guess raises the
 * confidence, a wrong one lowers it and replaces the target at 0. Beside it, a loop
 * predictor (as in TAGE-SC-L): when two runs of the predicted target in a row had the
 * same length, the branch is predicted to leave the run after that many again. So a
 * loop's back edge is predicted, its exit too when its trip count repeats (missed once
 * per loop otherwise), and a data-dependent 50/50 branch is missed about half the
 * time. Only blocks that end in a branch instruction are judged (a block ending in a
 * return goes back to its caller, which the core's return stack predicts); hardware
 * predictors with global history (TAGE) do better on patterned branches, so this is an
 * upper bound for those and about right for random ones. */
#ifndef PPT_BPRED_H
#define PPT_BPRED_H

#include <stdint.h>

typedef struct progmodel_bpred progmodel_bpred;

/* A predictor for `nthreads` threads over blocks 1..nbbs; NULL when out of memory. */
progmodel_bpred *progmodel_bpred_new(uint32_t nthreads, uint32_t nbbs);
/* Thread `thread` entered block bb; `judged`: the thread's previous block ends in a
 * branch (ppt-cc's PPT_OP_BRANCH > 0). Returns PPT_BPRED_MISS if the predictor had
 * guessed another block, PPT_BPRED_LOOP_MISS when that miss was a self-looping block's
 * (the guess or the way taken went back to the block itself: a loop's exit or back edge,
 * its condition on the induction variable), else 0 (also for the thread's first block
 * and blocks out of range). */
enum { PPT_BPRED_MISS = 1, PPT_BPRED_LOOP_MISS = 2 };
int progmodel_bpred_enter(progmodel_bpred *p, uint32_t thread, uint32_t bb, int judged);
/* A branch on data resolves when the load it tests returns, so a mispredicted one
 * costs that load's latency before the flush (docs/engine.md, "Overlap"). The model
 * takes the test to be on the block's last load: progmodel_bpred_load tells which cache level
 * (0 = first, nlevels = memory) served a load of the thread's current block, and after
 * progmodel_bpred_enter, progmodel_bpred_waited gives the level of the last load of the block the
 * thread left (-1: that instance loaded nothing). */
void progmodel_bpred_load(progmodel_bpred *p, uint32_t thread, int level);
int progmodel_bpred_waited(const progmodel_bpred *p, uint32_t thread);
/* The block thread `thread` is in (0: none yet). */
uint32_t progmodel_bpred_current(const progmodel_bpred *p, uint32_t thread);
void progmodel_bpred_free(progmodel_bpred *p);

#endif
