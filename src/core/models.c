/* The model registry: which table of functions runs a scenario. */
#include "core/model.h"

static const struct {
  int model, ball_method; /* ball_method -1: any */
  const agglo_model *m;
} registry[] = {
    {MODEL_CONTACT, -1, &agglo_model_contact},
    {MODEL_GLUEY, -1, &agglo_model_gluey},
    {MODEL_BALLISTIC, BALL_TIME_STEPPING, &agglo_model_ballistic},
    {MODEL_BALLISTIC, BALL_EVENT_DRIVEN, &agglo_model_ballistic_ed},
    {MODEL_DPD, -1, &agglo_model_dpd},
};

const agglo_model *agglo_model_select(const agglo_config *c) {
  for (size_t k = 0; k < sizeof registry / sizeof registry[0]; k++)
    if (registry[k].model == c->model &&
        (registry[k].ball_method < 0 || registry[k].ball_method == c->ballistic.method))
      return registry[k].m;
  return NULL;
}
