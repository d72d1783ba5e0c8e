/* The registry: every model once, in the order of run.model's values. A model's entry
   (src/models/<model>_config.c) reaches its keys, checks, set-up and dynamics. */
#include "core/model.h"
#include <string.h>

static const agglo_model_entry *const registry[] = {
    &agglo_contact_entry,
    &agglo_ballistic_entry,
    &agglo_dpd_entry,
    &agglo_gluey_entry,
};

const agglo_model_entry *agglo_model_at(size_t k) {
  return k < sizeof registry / sizeof registry[0] ? registry[k] : NULL;
}

const agglo_model_entry *agglo_model_named(const char *name) {
  for (size_t k = 0; k < sizeof registry / sizeof registry[0]; k++)
    if (!strcmp(registry[k]->name, name)) return registry[k];
  return NULL;
}

const agglo_model *agglo_model_select(const agglo_config *c) { return c->model->dynamics(c); }
