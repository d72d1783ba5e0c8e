/* DPD species (docs/dpd.md): per-species radius and mass, per-pair force kind, parameters and
   cut-off; a solvent bead and two colloids with known pair energies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/model.h"
#include "models/dpd_model.h"
#include "core/setup.h"
#include "models/dpd_config.h"

static void colloid_config_with(agglo_config *c, int n, const char *const *extra, size_t nextra);
static void colloid_config(agglo_config *c, int n) { colloid_config_with(c, n, NULL, 0); }

static void colloid_config_with(agglo_config *c, int n, const char *const *extra, size_t nextra) {
  char err[512];
  agglo_config_defaults(c);
  const char *over[] = {"run.model=dpd", "run.dim=3", "run.dt=0.01", "run.t_end=1",
                        "particles.radius=0.05", "particles.radius_spread=0",
                        "particles.mass_rule=uniform", "box.size=6", "box.boundary=periodic",
                        "dpd.gamma=0", "dpd.species=0.3333333333, 0.6666666667",
                        "dpd.species_radius=0.05, 0.5", "dpd.species_mass=1, 10",
                        "dpd.conservative_ij=groot_warren, groot_warren, lj",
                        "dpd.a_ij=25, 25, 0", "dpd.rc_ij=1, 1.5, 2.5",
                        "dpd.lj_epsilon_ij=0, 0, 5", "dpd.lj_sigma_ij=1, 1, 1"};
  for (size_t k = 0; k < sizeof over / sizeof *over; k++)
    if (agglo_config_read_assignment(c, over[k], err, sizeof err) != 0) fail_msg("%s: %s", over[k], err);
  for (size_t k = 0; k < nextra; k++)
    if (agglo_config_read_assignment(c, extra[k], err, sizeof err) != 0) fail_msg("%s: %s", extra[k], err);
  c->n = n;
  if (agglo_config_validate(c, err, sizeof err) != 0) fail_msg("check: %s", err);
}

/* The potential energy (stats.csv's U) of the three particles placed at pos (by id). */
static double energy_at(const agglo_config *c, agglo_system *s, double pos[3][3]) {
  char err[512];
  for (size_t i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) s->x[3 * i + k] = pos[s->id[i]][k], s->v[3 * i + k] = 0;
  void *state;
  assert_int_equal(agglo_model_dpd.init(&state, s, c, err, sizeof err), 0);
  double v[6];
  int has[6];
  agglo_model_dpd.stats_numbers(state, v, has);
  assert_false(has[1]); /* no step yet: no mean of the last half */
  char text[64]; /* as stats.csv prints it */
  snprintf(text, sizeof text, agglo_model_dpd.stats_formats[2], v[2]);
  double U = strtod(text, NULL);
  agglo_model_dpd.destroy(state);
  return U;
}

static void radius_mass_and_pair_energies(void **st) {
  (void)st;
  agglo_config c;
  colloid_config(&c, 3);
  char err[512];
  agglo_system s;
  if (agglo_setup(&s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  for (size_t i = 0; i < 3; i++) {
    int sp = agglo_dpd_species_of(&c, s.id[i], 3);
    assert_int_equal(sp, s.id[i] == 0 ? 0 : 1);
    assert_true(s.r[i] == (sp ? 0.5 : 0.05) && s.m[i] == (sp ? 10 : 1));
  }
  /* id 0 (solvent) at 0.98489 from colloid id 1 and 1.77 from id 2; the colloids at the LJ
     minimum 2^(1/6) */
  double pos[3][3] = {{2.6, 3.9, 3}, {3, 3, 3}, {3 + pow(2, 1.0 / 6), 3, 3}};
  double U = energy_at(&c, &s, pos);
  /* LJ energy-shifted (dpd.lj_shift default): -5 - U(2.5) */
  double r = sqrt(0.4 * 0.4 + 0.9 * 0.9), w = 1 - r / 1.5, Uc = 20 * (pow(2.5, -12) - pow(2.5, -6));
  double want = -5 - Uc + 0.5 * 25 * 1.5 * w * w;
  printf("U = %.12g (want %.12g: LJ -5 shifted and the solvent-colloid repulsion)\n", U, want);
  assert_true(fabs(U - want) < 1e-7); /* stats.csv prints 9 digits */
  agglo_system_free(&s);
}

/* The species reach the system (s.species, which the pictures read) from the model, and the
   registry's entry gives the same from ids alone (a trajectory drawn again); one species: NULL. */
static void species_in_the_system(void **st) {
  (void)st;
  agglo_config c;
  colloid_config(&c, 3);
  char err[512];
  agglo_system s;
  if (agglo_setup(&s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  void *state;
  assert_int_equal(agglo_model_dpd.init(&state, &s, &c, err, sizeof err), 0);
  assert_int_equal(agglo_model_fill_species(&agglo_model_dpd, state, &s), 0);
  assert_non_null(s.species);
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(s.species[i], s.id[i] == 0 ? 0 : 1); /* fractions 1/3, 2/3 of 3 ids */
    assert_int_equal(c.model->species_of(&c, s.id[i], 3), s.species[i]);
  }
  agglo_model_dpd.destroy(state);
  agglo_system_free(&s);
  assert_int_equal(agglo_config_read_assignment(&c, "dpd.species=", err, sizeof err), 0);
  assert_int_equal(agglo_config_read_assignment(&c, "dpd.species_radius=", err, sizeof err), 0);
  assert_int_equal(agglo_config_read_assignment(&c, "dpd.species_mass=", err, sizeof err), 0);
  assert_int_equal(agglo_config_read_assignment(&c, "dpd.conservative_ij=", err, sizeof err), 0);
  const char *per_pair[] = {"dpd.a_ij=", "dpd.rc_ij=", "dpd.lj_epsilon_ij=", "dpd.lj_sigma_ij="};
  for (size_t k = 0; k < 4; k++)
    assert_int_equal(agglo_config_read_assignment(&c, per_pair[k], err, sizeof err), 0);
  if (agglo_setup(&s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  assert_int_equal(agglo_model_dpd.init(&state, &s, &c, err, sizeof err), 0);
  assert_int_equal(agglo_model_fill_species(&agglo_model_dpd, state, &s), 0);
  assert_null(s.species);
  agglo_model_dpd.destroy(state);
  agglo_system_free(&s);
}

/* EDL per species pair: a solvent-colloid pair repelled with one charge product and Debye length,
   the colloid pair attracted (unlike charges) with another; U = 4 pi R_eff q lambda^2 e^{-H/lambda}. */
static void edl_per_pair(void **st) {
  (void)st;
  const char *edl[] = {"dpd.conservative_ij=none, edl, edl", "dpd.a_ij=0, 0, 0",
                       "dpd.lj_epsilon_ij=0, 0, 0", "dpd.edl_charge_product_ij=0, 0.8, -2",
                       "dpd.edl_debye_ij=1, 0.25, 0.5", "dpd.edl_permittivity=2"};
  agglo_config c;
  colloid_config_with(&c, 3, edl, sizeof edl / sizeof *edl);
  char err[512];
  agglo_system s;
  if (agglo_setup(&s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  double pos[3][3] = {{2.6, 3.9, 3}, {3, 3, 3}, {4.3, 3, 3}};
  double U = energy_at(&c, &s, pos);
  double r01 = sqrt(0.4 * 0.4 + 0.9 * 0.9), R01 = 0.05 * 0.5 / 0.55;
  double want = 4 * M_PI * R01 * 0.8 / 2 * 0.25 * 0.25 * exp(-(r01 - 0.55) / 0.25) /* solvent-colloid */
                + 4 * M_PI * 0.25 * -2 / 2 * 0.5 * 0.5 * exp(-0.3 / 0.5);       /* colloid pair */
  printf("U = %.12g (want %.12g: EDL repulsion 0-1 and attraction 1-1)\n", U, want);
  assert_true(fabs(U - want) < 1e-7);
  assert_true(U < 0); /* the attraction of unlike charges dominates */
  agglo_system_free(&s);
}

/* Lists of the wrong length are refused with the key's name. */
static void wrong_lengths(void **st) {
  (void)st;
  agglo_config c;
  colloid_config(&c, 30);
  char err[512];
  agglo_dpd_edit(&c)->rc_ij.n = 2;
  assert_int_not_equal(agglo_config_validate(&c, err, sizeof err), 0);
  assert_non_null(strstr(err, "dpd.rc_ij has 2 values"));
  colloid_config(&c, 30);
  agglo_dpd_edit(&c)->edl_debye_ij.n = 4;
  assert_int_not_equal(agglo_config_validate(&c, err, sizeof err), 0);
  assert_non_null(strstr(err, "dpd.edl_debye_ij has 4 values"));
  colloid_config(&c, 30);
  agglo_dpd_edit(&c)->species_mass.n = 3;
  assert_int_not_equal(agglo_config_validate(&c, err, sizeof err), 0);
  assert_non_null(strstr(err, "dpd.species_mass"));
  colloid_config(&c, 30);
  agglo_dpd_edit(&c)->rc_ij.v[2] = 3.5; /* box 6 < 2 * 3.5 */
  assert_int_not_equal(agglo_config_validate(&c, err, sizeof err), 0);
  assert_non_null(strstr(err, "at least 2 dpd.rc = 7"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(radius_mass_and_pair_energies),
      cmocka_unit_test(species_in_the_system),
      cmocka_unit_test(edl_per_pair),
      cmocka_unit_test(wrong_lengths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
