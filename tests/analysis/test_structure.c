/* g(r) and the mean-square displacement of `agglo analyze` (src/analysis/structure.c): an ideal gas has
   g = 1, a simple cubic lattice 6 neighbours at r = 1, particles in uniform motion across
   periodic faces (stored in shuffled order, matched by id) MSD = v^2 tau^2, and a random walk
   of known D gives D back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/structure.h"

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static double uniform(void) {
  rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
  return ((double)((rs * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) { return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform()); }

static void box_of(agglo_system *s, double L, int dim) {
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = 0, s->box.len[k] = s->box.hi[k] = k < dim ? L : 1;
    s->box.periodic[k] = k < dim;
  }
}

static void ideal_gas_and_lattice(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++) {
    agglo_system s;
    size_t n = 2000;
    assert_int_equal(agglo_system_alloc(&s, dim, n), 0);
    box_of(&s, 10, dim);
    agglo_rdf g;
    assert_int_equal(agglo_rdf_init(&g, 0, 20), 0);
    for (int f = 0; f < 20; f++) {
      for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) s.x[3 * i + k] = k < dim ? 10 * uniform() : 0;
      assert_int_equal(agglo_rdf_add(&g, &s), 0);
    }
    double worst = 0;
    for (int b = 4; b < 20; b++) worst = fmax(worst, fabs(agglo_rdf_value(&g, b) - 1));
    printf("ideal gas %dD: rmax %g, largest |g - 1| for r > 1: %.4f\n", dim, g.rmax, worst);
    assert_true(g.rmax == 5);
    assert_true(worst < 0.05);
    agglo_rdf_free(&g);
    agglo_system_free(&s);
  }
  /* simple cubic, spacing 1, L = 6: the bin holding r = 1 has exactly 6 neighbours */
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 3, 216), 0);
  box_of(&s, 6, 3);
  for (int i = 0; i < 216; i++) s.x[3 * i] = i % 6 + 0.5, s.x[3 * i + 1] = i / 6 % 6 + 0.5, s.x[3 * i + 2] = i / 36 + 0.5;
  agglo_rdf g;
  assert_int_equal(agglo_rdf_init(&g, 2.5, 50), 0); /* bins of 0.05: r = 1 in bin 20 */
  assert_int_equal(agglo_rdf_add(&g, &s), 0);
  double r1 = 1.0, r2 = 1.05, shell = 4.0 / 3 * M_PI * (r2 * r2 * r2 - r1 * r1 * r1);
  double z = agglo_rdf_value(&g, 20) * shell * 215 / 216.0;
  double z2 = agglo_rdf_value(&g, 28) * 4.0 / 3 * M_PI * (pow(1.45, 3) - pow(1.4, 3)) * 215 / 216.0;
  printf("simple cubic: %.12g neighbours at r = 1, %.12g at sqrt 2\n", z, z2);
  assert_true(fabs(z - 6) < 1e-9 && fabs(z2 - 12) < 1e-9);
  for (int b = 0; b < 20; b++) assert_true(agglo_rdf_value(&g, b) == 0);
  agglo_rdf_free(&g);
  agglo_system_free(&s);
}

static void uniform_motion_across_faces(void **st) {
  (void)st;
  size_t n = 50;
  double v[50][3], x0[50][3], dt = 0.5, L = 4;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) v[i][k] = 2 * uniform() - 1, x0[i][k] = L * uniform();
  agglo_msd m = {0};
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 3, n), 0);
  box_of(&s, L, 3);
  char err[256];
  for (int f = 0; f < 30; f++) {
    size_t shift = (size_t)f * 7 % n; /* a different storage order in every frame */
    for (size_t a = 0; a < n; a++) {
      size_t i = (a + shift) % n;
      s.id[a] = (int64_t)i + 100;
      for (int k = 0; k < 3; k++) {
        double y = x0[i][k] + v[i][k] * dt * f;
        s.x[3 * a + k] = y - L * floor(y / L);
      }
    }
    s.t = dt * f;
    assert_int_equal(agglo_msd_add(&m, &s, err, sizeof err), 0);
  }
  double v2 = 0;
  for (size_t i = 0; i < n; i++) v2 += (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]) / n;
  for (size_t k = 1; k < 30; k++) {
    double tau, y = agglo_msd_value(&m, k, &tau);
    assert_true(fabs(tau - k * dt) < 1e-12);
    assert_true(fabs(y - v2 * tau * tau) < 1e-9 * (1 + y));
  }
  agglo_msd_free(&m);
  agglo_system_free(&s);
}

static void random_walk_diffusion(void **st) {
  (void)st;
  size_t n = 1000;
  double D = 0.5, dt = 0.1, L = 8;
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 3, n), 0);
  box_of(&s, L, 3);
  for (size_t i = 0; i < 3 * n; i++) s.x[i] = L * uniform();
  agglo_msd m = {0};
  char err[256];
  for (int f = 0; f < 200; f++) {
    if (f)
      for (size_t i = 0; i < 3 * n; i++) {
        double y = s.x[i] + sqrt(2 * D * dt) * normal();
        s.x[i] = y - L * floor(y / L);
      }
    s.t = f * dt;
    assert_int_equal(agglo_msd_add(&m, &s, err, sizeof err), 0);
  }
  double Dm = agglo_msd_diffusion(&m);
  printf("random walk: D = %.4f (true %.1f)\n", Dm, D);
  assert_true(fabs(Dm / D - 1) < 0.03);
  /* a frame with another particle count is refused */
  s.n = n - 1;
  assert_int_equal(agglo_msd_add(&m, &s, err, sizeof err), -1);
  assert_non_null(strstr(err, "particles"));
  s.n = n;
  agglo_msd_free(&m);
  agglo_system_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ideal_gas_and_lattice),
      cmocka_unit_test(uniform_motion_across_faces),
      cmocka_unit_test(random_walk_diffusion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
