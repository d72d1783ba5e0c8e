/* Shared by the cmocka tests: settings from INI text plus overrides. Include after cmocka.h. */
#ifndef AGGLO_TEST_SUPPORT_H
#define AGGLO_TEST_SUPPORT_H
#include "config/config.h"
#include "core/system.h"

/* The box [0, L]^dim (its other axes flat), periodic or walled along its dim axes. */
static inline void cube_box(agglo_box *b, int dim, double L, int periodic) {
  for (int k = 0; k < 3; k++) {
    b->lo[k] = 0;
    b->hi[k] = k < dim ? L : 0;
    b->len[k] = k < dim ? L : 0;
    b->periodic[k] = k < dim ? periodic : AGGLO_WALL;
  }
}

/* Settings from INI text plus "section.key=value" overrides (NULL-terminated); fails the test on
   any error. */
static inline agglo_config *load_config(const char *ini, const char *const *over) {
  agglo_config *c = agglo_config_new();
  char err[1024] = "";
  assert_non_null(c);
  if (ini && agglo_config_read_string(c, ini, "test.ini", err, sizeof err) != 0) fail_msg("%s", err);
  for (int i = 0; over && over[i]; i++)
    if (agglo_config_read_assignment(c, over[i], err, sizeof err) != 0) fail_msg("%s", err);
  return c;
}

/* The same, also checked across keys (agglo_config_validate). */
static inline agglo_config *make_config(const char *ini, const char *const *over) {
  agglo_config *c = load_config(ini, over);
  char err[1024] = "";
  if (agglo_config_validate(c, err, sizeof err) != 0) fail_msg("check: %s", err);
  return c;
}

/* The scenario a restart from dir reads (its scenario.ini), with one "section.key=value". */
static inline agglo_config *restart_config(const char *dir, const char *override) {
  char path[256], err[1024] = "";
  snprintf(path, sizeof path, "%s/scenario.ini", dir);
  agglo_config *c = agglo_config_new();
  if (agglo_config_read_file(c, path, err, sizeof err) != 0) fail_msg("%s", err);
  if (agglo_config_read_assignment(c, override, err, sizeof err) != 0) fail_msg("%s", err);
  return c;
}

#endif
