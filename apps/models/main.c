/* main.c — entry point of one ppt-model-* program; CMake compiles it once per model
 * with PPT_MODEL_MAIN naming that model's main function (model.h). */
#include "model.h"

#ifndef PPT_MODEL_MAIN
#error "PPT_MODEL_MAIN must name the model's entry point"
#endif

int main(int argc, char **argv) {
  return PPT_MODEL_MAIN(argc, argv);
}
