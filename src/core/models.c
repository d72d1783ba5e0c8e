/* The registry: every model once, in the order of run.model's values, with its domain
   decomposition (src/mpi/) or NULL. A model's entry (src/models/<model>_config.c) reaches its keys,
   checks, set-up and dynamics. This file is compiled into libagglo (no decompositions) and, with
   AGGLO_HAVE_MPI, into libagglo_mpi. */
#include "core/model.h"
#include <stdlib.h>
#include <string.h>

#ifdef AGGLO_HAVE_MPI
#define PARALLEL(driver) driver
#else
#define PARALLEL(driver) NULL
#endif

static const struct {
  const agglo_model_entry *model;
  agglo_parallel_driver parallel;
} registry[] = {
    {&agglo_contact_entry, PARALLEL(agglo_contact_run_parallel)},
    {&agglo_ballistic_entry, NULL},
    {&agglo_dpd_entry, PARALLEL(agglo_dpd_run_parallel)},
    {&agglo_gluey_entry, NULL},
    {&agglo_dlca_entry, NULL},
};
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
