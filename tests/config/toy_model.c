/* A toy model in its own file, registered by one line (toy_registry.c): particles drift along x
   at toy.speed. Its settings, keys, checks and dynamics are reached from its entry only. */
#include "config/keys.h"
#include "core/error.h"
#include "core/model.h"
#include <stdlib.h>

extern const agglo_model_entry agglo_toy_entry;

typedef struct {
  double speed;
  int64_t every;
} toy_settings;

#define OWN(member) SETTING(toy_settings, member)
static const agglo_key keys[] = {
  {"toy", "speed", T_DOUBLE, OWN(speed), "1", 0, 100, 0, 0, "drift speed along x"},
  {"toy", "every", T_INT, OWN(every), "3", 1, 1000, 0, 0, "a check across keys: at most run.dim * 100"},
};

static int validate(const agglo_config *c, double rmax, char *err, size_t errlen) {
  (void)rmax;
  const toy_settings *t = agglo_model_settings(c, &agglo_toy_entry);
  if (t->every > 100 * c->dim)
    return agglo_fail(err, errlen, "toy.every = %lld: at most %d (run.dim * 100)",
                      (long long)t->every, 100 * c->dim);
  return 0;
}

typedef struct { double speed, dt; } toy;

static int toy_init(void **state, const agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  (void)s;
  toy *t = malloc(sizeof *t);
  if (!t) return agglo_fail(err, errlen, "out of memory");
  t->speed = ((const toy_settings *)agglo_model_settings(c, &agglo_toy_entry))->speed, t->dt = c->dt;
  *state = t;
  return 0;
}

static int toy_step(void *state, agglo_system *s, agglo_step_info *info, char *err, size_t errlen) {
  (void)err, (void)errlen;
  const toy *t = state;
  for (size_t i = 0; i < s->n; i++) {
    s->v[3 * i] = t->speed;
    s->x[3 * i] += t->speed * t->dt;
    agglo_box_wrap(&s->box, s->x + 3 * i);
  }
  s->step++;
  s->t = (double)s->step * t->dt;
  info->converged = 1, info->min_gap = 0, info->bad_particle = SIZE_MAX;
  return 0;
}

static double toy_contact_gap(const void *state) { (void)state; return 0; }
static void toy_destroy(void *state) { free(state); }

static const agglo_model toy_dynamics = {
    .name = "toy", .init = toy_init, .step = toy_step, .contact_gap = toy_contact_gap,
    .destroy = toy_destroy};

static const agglo_model *dynamics(const agglo_config *c) { (void)c; return &toy_dynamics; }

const agglo_model_entry agglo_toy_entry = {
    .name = "toy",
    .help = "a toy drift (tests/config/toy_model.c)",
    .description = "a toy drift along x",
    .keys = keys,
    .n_keys = sizeof keys / sizeof keys[0],
    .settings_size = sizeof(toy_settings),
    .validate = validate,
    .dynamics = dynamics,
};
