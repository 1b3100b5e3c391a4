/* ppt/roi.h — region-of-interest markers for programs traced with ppt (docs/ppt-cc.md,
 * "Regions of interest").
 *
 *   set_up();
 *   PPT_ROI_BEGIN();
 *   kernel();
 *   PPT_ROI_END();
 *
 * Built by ppt-cc (which defines PPT_CC) the markers call the tracing runtime: once a
 * program holds a PPT_ROI_BEGIN, `ppt trace` writes only what runs between BEGIN and END
 * (nested pairs count; several regions add up), on every thread. Built by any other
 * compiler they expand to nothing, so the same source builds everywhere. Markers belong in
 * serial code, outside parallel regions. */
#ifndef PPT_ROI_H
#define PPT_ROI_H

#if defined(PPT_CC)
#ifdef __cplusplus
extern "C" {
#endif
void ppt_roi_begin(void);
void ppt_roi_end(void);
#ifdef __cplusplus
}
#endif
/* The byte in section ppt_roi tells the runtime before main that the program has markers,
 * so that it writes nothing until the first BEGIN runs. */
#define PPT_ROI_BEGIN()                                                            \
  do {                                                                             \
    static const char ppt_roi_mark_ __attribute__((used, section("ppt_roi"))) = 1; \
    ppt_roi_begin();                                                               \
  } while (0)
#define PPT_ROI_END() ppt_roi_end()
#else
#define PPT_ROI_BEGIN() ((void)0)
#define PPT_ROI_END() ((void)0)
#endif

#endif
