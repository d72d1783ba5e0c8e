/* The library's registry with one line more: the toy model of toy_model.c, as a new model is
   added (docs/architecture.md, "Adding a model"). */
#define AGGLO_MORE_MODELS(MODEL) MODEL(toy, NULL)
#include "core/models.c"
