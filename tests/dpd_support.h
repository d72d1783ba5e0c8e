/* Shared by the DPD cmocka tests: a DPD model driven directly over its system (no writers).
   Include after cmocka.h. */
#ifndef AGGLO_TEST_DPD_SUPPORT_H
#define AGGLO_TEST_DPD_SUPPORT_H
#include "config/config.h"
#include "core/model.h"
#include "core/setup.h"
#include "models/dpd_config.h"
#include <string.h>

typedef struct {
  agglo_system s;
  void *state;
} sim;

static inline void start(sim *S, const agglo_config *c) {
  char err[512];
  memset(S, 0, sizeof *S);
  if (agglo_config_validate(c, err, sizeof err) != 0) fail_msg("check: %s", err);
  if (agglo_setup(&S->s, c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  if (agglo_model_dpd.init(&S->state, &S->s, c, err, sizeof err) != 0) fail_msg("init: %s", err);
}

/* steps steps; each must leave every value finite */
static inline void advance(sim *S, int steps) {
  char err[512];
  agglo_step_info info;
  for (int k = 0; k < steps; k++) {
    if (agglo_model_dpd.step(S->state, &S->s, &info, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(info.bad_particle == SIZE_MAX);
  }
}

static inline void stop(sim *S) {
  agglo_model_dpd.destroy(S->state);
  agglo_system_free(&S->s);
}

#endif
