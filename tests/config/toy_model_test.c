/* A model is its own files plus one line of the registry: the toy model (toy_model.c, one line in
   toy_registry.c) gets its keys in the INI reader, -s, the scenario file and the checks, its
   settings in their own place, and runs, with no other file knowing it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agglo/agglo.h"
#include "config/config.h"
#include "core/model.h"
#include "models/dlca_config.h"

static void set(agglo_config *c, const char *assignment) {
  char err[512];
  if (agglo_config_read_assignment(c, assignment, err, sizeof err) != 0) fail_msg("%s: %s", assignment, err);
}

/* Every model's settings fit the room, in registry order, aligned and apart. */
static void settings_room(void **state) {
  (void)state;
  const agglo_model_entry *m;
  size_t end = 0, q;
  for (q = 0; (m = agglo_model_at(q)); q++) {
    size_t at = agglo_model_settings_offset(m);
    assert_true(at != SIZE_MAX);
    assert_true(at >= end && at % _Alignof(max_align_t) == 0);
    assert_true(m->settings_size > 0);
    end = at + m->settings_size;
  }
  assert_int_equal(q, 6); /* the five models and the toy */
  assert_true(end <= AGGLO_MODEL_SETTINGS_ROOM);
  assert_true(agglo_model_named("toy") == agglo_model_at(5));
}

/* Its keys: defaults, -s, the range, written in the scenario file after dlca's and before
   [output], read back; its settings apart from dlca's. */
static void keys_and_settings(void **state) {
  (void)state;
  agglo_config *c = malloc(sizeof *c), *d = malloc(sizeof *d);
  assert_non_null(c), assert_non_null(d);
  agglo_config_defaults(c);
  char err[512], buf[4096];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  assert_int_equal(agglo_config_get_value(c, "toy.speed", f, err, sizeof err), 0);
  fclose(f);
  assert_string_equal(buf, "1");
  set(c, "toy.speed=2.5");
  set(c, "dlca.probability=0.25");
  const double *speed = agglo_model_settings(c, agglo_model_named("toy"));
  assert_true(*speed == 2.5);
  assert_true(agglo_dlca_of(c)->probability == 0.25);
  assert_int_equal(agglo_config_read_assignment(c, "toy.speed=101", err, sizeof err), -1);
  assert_string_equal(err, "-s toy.speed=101: toy.speed = 101 is out of range (allowed: >= 0 and <= 100)");
  assert_true(*speed == 2.5);
  f = fmemopen(buf, sizeof buf, "w");
  assert_int_equal(agglo_config_write(c, f), 0);
  fclose(f);
  const char *toy = strstr(buf, "[toy]\nspeed = 2.5\nevery = 3\n");
  assert_non_null(toy);
  assert_true(strstr(buf, "[dlca]") < toy && toy < strstr(buf, "[output]"));
  agglo_config_defaults(d);
  assert_int_equal(agglo_config_read_string(d, buf, "scenario.ini", err, sizeof err), 0);
  assert_true(*(const double *)agglo_model_settings(d, agglo_model_named("toy")) == 2.5);
  /* the checks: a toy key with another model is refused, the toy's own check runs */
  set(c, "box.size=1");
  set(c, "particles.n=10");
  assert_int_equal(agglo_config_validate(c, err, sizeof err), -1);
  assert_string_equal(err, "dlca.probability is set but the contact model does not use it (used by: "
                           "dlca); remove it or choose another run.model");
  set(c, "dlca.probability=1");
  assert_int_equal(agglo_config_validate(c, err, sizeof err), -1);
  assert_string_equal(err, "toy.speed is set but the contact model does not use it (used by: toy); "
                           "remove it or choose another run.model");
  set(c, "run.model=toy");
  assert_int_equal(agglo_config_validate(c, err, sizeof err), 0);
  set(c, "toy.every=250");
  assert_int_equal(agglo_config_validate(c, err, sizeof err), -1);
  assert_string_equal(err, "toy.every = 250: at most 200 (run.dim * 100)");
  free(d);
  free(c);
}

/* It runs: ten steps of run.dt at toy.speed move every particle by 10 dt speed along x. */
static void runs(void **state) {
  (void)state;
  agglo_config *c = agglo_config_new();
  assert_non_null(c);
  assert_int_equal(agglo_config_set(c, "run.model", "toy"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "toy.speed", "2"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "run.dt", "0.01"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "box.size", "4"), AGGLO_OK);
  assert_int_equal(agglo_config_set(c, "particles.n", "20"), AGGLO_OK);
  agglo_sim *sim;
  assert_int_equal(agglo_sim_create(c, &sim), AGGLO_OK);
  size_t n = agglo_sim_count(sim);
  double *x0 = malloc(3 * n * sizeof *x0);
  assert_non_null(x0);
  memcpy(x0, agglo_sim_positions(sim), 3 * n * sizeof *x0);
  assert_int_equal(agglo_sim_step(sim, 10), AGGLO_OK);
  const double *x = agglo_sim_positions(sim);
  for (size_t i = 0; i < n; i++) {
    double dx = fmod(x[3 * i] - x0[3 * i] + 8, 4); /* across the periodic box */
    assert_true(fabs(dx - 0.2) < 1e-12);
    assert_true(x[3 * i + 1] == x0[3 * i + 1]);
  }
  assert_true(fabs(agglo_sim_time(sim) - 0.1) < 1e-15);
  free(x0);
  agglo_sim_destroy(sim);
  agglo_config_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(settings_room),
      cmocka_unit_test(keys_and_settings),
      cmocka_unit_test(runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
