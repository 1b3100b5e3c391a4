/* models/progmodel/contend.h — which stores of a phase go to a line another core stored
 * into in the same phase (a contended line: false sharing, or a shared counter).
 * Internal to the program model, not installed.
 *
 * In the hardware a line is writable in one core's cache at a time, so cores that keep
 * storing into one line take turns holding it (docs/engine.md, "Contended lines").
 * The mimic interleaves the cores' references, so a store is contended when the line's
 * last store came from another core, in the same phase and at most `window` references
 * of the interleaved stream before: the line is still on its way, and the core must
 * wait for it. A line that other cores store into now and then (a shared array written
 * at random places) moves once per such store, a transfer that the store buffer hides
 * and the cache model prices; the cores do not take turns on it. Nor do stores of
 * earlier phases count: a line written before a barrier moves once after it.
 *
 * Direct mapped on the line number, 2^bits entries: a line whose entry another line took
 * since its last store is forgotten (its next store counts as uncontended), so on large
 * footprints the count is a lower bound; a contended line is stored into again and
 * again, so it keeps its entry. */
#ifndef PPT_PROGMODEL_CONTEND_H
#define PPT_PROGMODEL_CONTEND_H

#include <stdint.h>

typedef struct progmodel_contend progmodel_contend;

/* 2^bits entries (1 <= bits <= 30); NULL when out of memory or bits is out of range. */
progmodel_contend *progmodel_contend_new(uint32_t bits, uint64_t window);
/* A new phase begins: every line's last store is now from an earlier phase. O(1). */
void progmodel_contend_next_phase(progmodel_contend *c);
/* `core` stores into `line` at position `pos` of the interleaved stream (positions
 * count every reference and never decrease): returns 1 when the line's last store came
 * from another core in this phase at most `window` positions before, else 0; the core
 * is then the line's last writer. */
int progmodel_contend_store(progmodel_contend *c, uint64_t line, uint32_t core, uint64_t pos);
void progmodel_contend_free(progmodel_contend *c);

#endif
