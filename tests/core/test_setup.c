/* The radii of the set-up: lognormal radii have the geometric mean and standard deviation asked
   for, are a function of (seed, particle), and the box that particles.fraction sizes holds the
   fraction asked for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "config/config.h"
#include "core/model.h"
#include "core/setup.h"

static void lognormal_radii(void **st) {
  (void)st;
  agglo_config c;
  agglo_config_defaults(&c);
  c.radius = 2;
  c.radius_distribution = RADII_LOGNORMAL;
  c.radius_sigma = 1.5;
  size_t n = 40000;
  double s1 = 0, s2 = 0;
  for (size_t i = 0; i < n; i++) {
    double l = log(agglo_particle_radius(&c, i));
    s1 += l, s2 += l * l;
  }
  double mean = s1 / n, sd = sqrt((s2 - n * mean * mean) / (n - 1));
  print_message("geometric mean %.5f (2), geometric sd %.5f (1.5)\n", exp(mean), exp(sd));
  /* ln sigma_g / sqrt(n) = 0.002: four standard errors */
  assert_true(fabs(mean - log(2)) < 0.0081);
  assert_true(fabs(sd - log(1.5)) < 0.006); /* sd of ln r: ln sigma_g / sqrt(2n) = 0.0014 */
  assert_true(agglo_particle_radius(&c, 17) == agglo_particle_radius(&c, 17));
  /* the box from particles.fraction */
  c.model = agglo_model_named("dlca");
  c.dim = 3, c.n = 3000, c.fraction = 0.01;
  agglo_system s;
  char err[256];
  assert_int_equal(agglo_setup(&s, &c, err, sizeof err), 0);
  double vol = 0;
  for (size_t i = 0; i < s.n; i++) vol += 4.0 / 3.0 * M_PI * pow(s.r[i], 3);
  assert_true(fabs(vol / (s.box.len[0] * s.box.len[1] * s.box.len[2]) - 0.01) < 1e-12);
  agglo_system_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(lognormal_radii)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
