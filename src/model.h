/* A model is a small table of functions over the shared system; the driver does not know which
   model it runs. */
#ifndef AGGLO_MODEL_H
#define AGGLO_MODEL_H
#include "config.h"
#include "system.h"
#include <stdio.h>

/* What one step reports (the solver's statistics and the state's health). */
typedef struct {
  int iterations;       /* solver iterations of this step */
  int converged;        /* 0 if the solver hit its cap */
  double max_violation; /* largest overlap the solver left (length) */
  double min_gap;       /* smallest gap between particles (and walls) after the step */
  size_t n_contacts;    /* constraints in the step */
  size_t bad_particle;  /* first particle with a non-finite value, or SIZE_MAX */
} agglo_step_info;

typedef struct {
  const char *name;
  int (*init)(void **state, const agglo_system *s, const agglo_config *c, char *err, size_t errlen);
  int (*step)(void *state, agglo_system *s, agglo_step_info *info, char *err, size_t errlen);
  /* the contact notion used for clusters (gap below which two particles touch) */
  double (*contact_gap)(const void *state);
  /* neighbour list of the last step, reusable by cluster labelling (may be NULL) */
  const void *(*neighbors)(const void *state);
  /* model state needed for an exact restart (e.g. multipliers for the warm start) */
  int (*save)(const void *state, FILE *f);
  int (*load)(void *state, FILE *f, char *err, size_t errlen);
  void (*destroy)(void *state);
} agglo_model;

extern const agglo_model agglo_model_contact;
const agglo_model *agglo_model_for(int model_id);

#endif
