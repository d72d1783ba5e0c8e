/* The registry: every model once, in the order of run.model's values, with its domain
   decomposition (src/mpi/) or NULL. A model's entry (src/models/<model>_config.c) reaches its keys,
   its settings, checks, set-up and dynamics. This file is compiled into libagglo (no
   decompositions) and, with AGGLO_HAVE_MPI, into libagglo_mpi. */
#include "core/model.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef AGGLO_HAVE_MPI
#define PARALLEL(driver) driver
#else
#define PARALLEL(driver) NULL
#endif

/* One line a model: MODEL(prefix, its decomposition), its entry being agglo_<prefix>_entry
   (docs/architecture.md, "Adding a model"). AGGLO_MORE_MODELS: lines a test build adds
   (tests/config/toy_registry.c). */
#ifndef AGGLO_MORE_MODELS
#define AGGLO_MORE_MODELS(MODEL)
#endif
#define AGGLO_MODELS(MODEL)                                  \
  MODEL(contact, PARALLEL(agglo_contact_run_parallel))       \
  MODEL(ballistic, NULL)                                     \
  MODEL(dpd, PARALLEL(agglo_dpd_run_parallel))               \
  MODEL(gluey, NULL)                                         \
  MODEL(dlca, NULL)                                          \
  AGGLO_MORE_MODELS(MODEL)

/* each model's entry and (in libagglo_mpi, for those that have one) its decomposition */
#define DECLARE(prefix, parallel)                                                                 \
  extern const agglo_model_entry agglo_##prefix##_entry;                                         \
  agglo_status agglo_##prefix##_run_parallel(agglo_sim *sim, const agglo_config *c);
AGGLO_MODELS(DECLARE)

#define ROW(prefix, parallel) {&agglo_##prefix##_entry, parallel},
static const struct {
  const agglo_model_entry *model;
  agglo_parallel_driver parallel;
} registry[] = {AGGLO_MODELS(ROW)};
#define NMODELS (sizeof registry / sizeof registry[0])

const agglo_model_entry *agglo_model_at(size_t k) { return k < NMODELS ? registry[k].model : NULL; }

const agglo_model_entry *agglo_model_named(const char *name) {
  for (size_t k = 0; k < NMODELS; k++)
    if (!strcmp(registry[k].model->name, name)) return registry[k].model;
  return NULL;
}

int agglo_model_index(const agglo_model_entry *m) {
  for (size_t k = 0; k < NMODELS; k++)
    if (registry[k].model == m) return (int)k;
  return -1;
}

agglo_parallel_driver agglo_model_parallel(const agglo_model_entry *m) {
  int k = agglo_model_index(m);
  return k < 0 ? NULL : registry[k].parallel;
}

const agglo_model *agglo_model_select(const agglo_config *c) { return c->model->dynamics(c); }

const char *agglo_model_name(int k) { return k >= 0 && (size_t)k < NMODELS ? registry[k].model->name : NULL; }

const char *agglo_model_description(int k) {
  return k >= 0 && (size_t)k < NMODELS ? registry[k].model->description : NULL;
}

int agglo_model_fill_species(const agglo_model *m, const void *state, agglo_system *s) {
  free(s->species);
  s->species = NULL;
  if (!m->species) return 0;
  int32_t *out = malloc((s->n ? s->n : 1) * sizeof *out);
  if (!out) return -1;
  if (m->species(state, s, out)) s->species = out;
  else free(out);
  return 0;
}

/* Each model's settings after those before it, at multiples of max_align_t. */
size_t agglo_model_settings_offset(const agglo_model_entry *m) {
  const size_t align = _Alignof(max_align_t);
  size_t at = 0;
  for (size_t k = 0; k < NMODELS; k++) {
    if (registry[k].model == m)
      return m->settings_size <= AGGLO_MODEL_SETTINGS_ROOM - at ? at : SIZE_MAX;
    at += (registry[k].model->settings_size + align - 1) / align * align;
    if (at > AGGLO_MODEL_SETTINGS_ROOM) return SIZE_MAX;
  }
  return SIZE_MAX;
}

const void *agglo_model_settings(const agglo_config *c, const agglo_model_entry *m) {
  return c->models.bytes + agglo_model_settings_offset(m); /* fits: agglo_config_defaults */
}

void *agglo_model_settings_edit(agglo_config *c, const agglo_model_entry *m) {
  return c->models.bytes + agglo_model_settings_offset(m);
}
