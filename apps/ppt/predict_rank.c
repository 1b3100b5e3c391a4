/* predict_rank.c — `ppt predict --hw A.json,B.json,...`'s ranking: per core count the
 * specs sorted by predicted runtime, fastest first, with what the sheets say of each
 * (year, cores, clock, ISA), the speedup over the spec's own run on the fewest cores and
 * over the baseline spec (--baseline); and the notes under the table on specs of
 * another ISA than the trace's. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

/* The ISA of the traced binary. The trace header records no build host, and ppt-cc
 * builds for the machine it runs on, which is where ppt runs too in practice: this
 * build's own ISA, said to be assumed in the note. */
#if defined(__x86_64__)
#define TRACE_ISA "x86-64"
#elif defined(__aarch64__)
#define TRACE_ISA "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define TRACE_ISA "riscv64"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define TRACE_ISA "ppc64le"
#else
#define TRACE_ISA ""
#endif

/* The core count with the fewest cores: what "speedup" is over. */
static size_t fewest(const ppt_predict_result *res) {
  size_t b = 0;
  for (size_t i = 1; i < ppt_predict_result_npoints(res); i++)
    if (ppt_predict_result_point(res, i)->n < ppt_predict_result_point(res, b)->n) b = i;
  return b;
}

static double seconds(const results *r, size_t s, size_t i) {
  return ppt_predict_result_point(r->runs[s].res, i)->runtime_s;
}

/* The runs at core count i, fastest first (ties in --hw order). */
static void rank(const results *r, size_t i, size_t *order) {
  for (size_t s = 0; s < r->nruns; s++) {
    size_t k = s;
    while (k > 0 && seconds(r, order[k - 1], i) > seconds(r, s, i)) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = s;
  }
}

void ppt_predict_write_ranking(const args *a, const results *r) {
  const ppt_hwspec *bl = &r->runs[r->baseline].hw;
  for (size_t i = 0; i < a->c.ncores; i++) {
    size_t order[PPT_PREDICT_MAX_SPECS];
    rank(r, i, order);
    uint32_t n0 = ppt_predict_result_point(r->runs[0].res, fewest(r->runs[0].res))->n;
    char own[32];
    snprintf(own, sizeof own, "vs %u core%s", n0, n0 == 1 ? "" : "s");
    printf("\nranking on %u cores, fastest first (baseline %s)\n%3s %-28s %4s %-7s %5s %5s %12s %10s %11s\n",
           a->c.cores[i], bl->name, "", "spec", "year", "isa", "cores", "GHz", "runtime", own, "vs baseline");
    for (size_t k = 0; k < r->nruns; k++) {
      const spec_run *run = &r->runs[order[k]];
      const ppt_hwspec *hw = &run->hw;
      char year[8] = "-";
      if (hw->year) snprintf(year, sizeof year, "%u", hw->year);
      double sec = seconds(r, order[k], i), first = seconds(r, order[k], fewest(run->res));
      printf("%2zu. %-28s %4s %-7s %5u %5.3g %10.4g s %9.2fx %10.2fx\n", k + 1, hw->name, year,
             hw->isa[0] ? hw->isa : "-", hw->cores, hw->clock_hz / 1e9, sec, first / sec,
             seconds(r, r->baseline, i) / sec);
    }
  }
  printf("(speedups: runtime of the spec on the fewest cores, or of the baseline, over this one; > 1 is "
         "faster)\n");
}

void ppt_predict_write_ranking_json(json_object *o, const args *a, const results *r) {
  json_object *rk = json_object_new_object(), *per = json_object_new_array();
  json_object_object_add(rk, "baseline", json_object_new_string(r->runs[r->baseline].hw.name));
  for (size_t i = 0; i < a->c.ncores; i++) {
    size_t order[PPT_PREDICT_MAX_SPECS];
    rank(r, i, order);
    json_object *e = json_object_new_object(), *specs = json_object_new_array();
    json_object_object_add(e, "n", json_object_new_int((int)a->c.cores[i]));
    for (size_t k = 0; k < r->nruns; k++) {
      const spec_run *run = &r->runs[order[k]];
      double sec = seconds(r, order[k], i);
      json_object *x = json_object_new_object();
      json_object_object_add(x, "hw", json_object_new_string(run->hw.name));
      json_object_object_add(x, "hwspec", json_object_new_string(run->file));
      json_object_object_add(x, "runtime_s", json_object_new_double(sec));
      json_object_object_add(x, "speedup", json_object_new_double(seconds(r, order[k], fewest(run->res)) / sec));
      json_object_object_add(x, "vs_baseline", json_object_new_double(seconds(r, r->baseline, i) / sec));
      json_object_array_add(specs, x);
    }
    json_object_object_add(e, "specs", specs);
    json_object_array_add(per, e);
  }
  json_object_object_add(rk, "cores", per);
  json_object_object_add(o, "ranking", rk);
}

/* The note on the specs of ISA `isa` when that is not the trace's, or 0: one per ISA,
 * naming its specs. first: whether ISA `isa` first appears at run s. */
static int isa_note(const results *r, size_t s, char *buf, size_t cap) {
  const char *isa = r->runs[s].hw.isa;
  if (!isa[0] || !strcmp(isa, TRACE_ISA)) return 0;
  for (size_t k = 0; k < s; k++)
    if (!strcmp(r->runs[k].hw.isa, isa)) return 0; /* named with the first of its ISA */
  size_t n = 0, count = 0;
  for (size_t k = s; k < r->nruns && n < cap; k++)
    if (!strcmp(r->runs[k].hw.isa, isa))
      n += (size_t)snprintf(buf + n, cap - n, "%s%s", count++ ? ", " : "", r->runs[k].hw.name);
  if (n < cap)
    snprintf(buf + n, cap - n,
             " %s %s, the trace %s (its header records no ISA: taken as this host's): its op mix is mapped "
             "class for class (loads/stores, integer ALU and divide, FP add, multiply, divide and square root, "
             "branches), each at the spec's throughput and latency, a vector op one op of its class as the "
             "trace's IR has it (vector_bits is not applied to traced ops); differences in vector width and "
             "instruction count between the ISAs are not modelled, and these predictions carry their error",
             count > 1 ? "are" : "is", isa, TRACE_ISA[0] ? TRACE_ISA : "of an unknown ISA");
  return 1;
}

void ppt_predict_write_notes(const results *r) {
  char note[2048];
  for (size_t s = 0; s < r->nruns; s++)
    if (isa_note(r, s, note, sizeof note)) printf("note: %s\n", note);
}

void ppt_predict_write_notes_json(json_object *o, const results *r) {
  json_object *notes = json_object_new_array();
  char note[2048];
  for (size_t s = 0; s < r->nruns; s++)
    if (isa_note(r, s, note, sizeof note)) json_object_array_add(notes, json_object_new_string(note));
  json_object_object_add(o, "notes", notes);
}
