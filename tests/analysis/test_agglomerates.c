/* The agglomerate ellipsoids (src/analysis/agglomerates.c, docs/dpd.md): the equivalent ellipsoid of the
   second moments recovers the semi-axes and axes of point clouds sampled from known ellipsoids,
   and classes chains, flat hexagons and cubes of spheres as prolate, oblate and sphere; the
   report's volume ratio is taken against the member volume. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/agglomerates.h"
#include "analysis/analysis.h"

static uint64_t rng_state = 88172645463325252ull;
static double uniform(void) { /* xorshift64*, (0, 1) */
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  return ((double)((rng_state * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

/* Rotation matrix R (row-major) from Euler angles z-y-z. */
static void rotation(double al, double be, double ga, double R[9]) {
  double ca = cos(al), sa = sin(al), cb = cos(be), sb = sin(be), cg = cos(ga), sg = sin(ga);
  double A[9] = {ca, -sa, 0, sa, ca, 0, 0, 0, 1}, B[9] = {cb, 0, sb, 0, 1, 0, -sb, 0, cb};
  double C[9] = {cg, -sg, 0, sg, cg, 0, 0, 0, 1}, T[9] = {0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) T[3 * i + j] += A[3 * i + k] * B[3 * k + j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      R[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) R[3 * i + j] += T[3 * i + k] * C[3 * k + j];
    }
}

/* Points uniform in a rotated, shifted solid ellipsoid of semi-axes (descending) sa: semi-axes
   within 2 % and the axes aligned with the rotated ones to 1e-2. Once as points (r = 0), once as
   small spheres whose own moment r^2/5 is taken off the known answer. */
static void point_clouds_of_known_ellipsoids(void **st) {
  (void)st;
  const double shapes[][3] = {{3, 2, 1}, {2.5, 1, 1}, {2, 2, 0.5}, {1.5, 1.5, 1.5}, {4, 1.2, 0.3}};
  const size_t n = 40000;
  double *x = malloc(3 * n * sizeof *x), *r = malloc(n * sizeof *r);
  assert_non_null(x);
  assert_non_null(r);
  for (int s = 0; s < 5; s++)
    for (int sph = 0; sph < 2; sph++) {
      const double *sa = shapes[s];
      double R[9];
      rotation(0.3 + s, 0.7 * s + 0.2, 1.1 * s, R);
      for (size_t i = 0; i < n; i++) {
        double p[3], p2;
        do {
          p2 = 0;
          for (int k = 0; k < 3; k++) p[k] = 2 * uniform() - 1, p2 += p[k] * p[k];
        } while (p2 > 1);
        for (int k = 0; k < 3; k++) {
          x[3 * i + k] = 10 + 3 * k;
          for (int q = 0; q < 3; q++) x[3 * i + k] += R[3 * k + q] * sa[q] * p[q];
        }
        r[i] = sph ? 0.3 : 0;
      }
      double semi[3], ax[9];
      assert_int_equal(agglo_equivalent_ellipsoid(x, r, n, semi, ax), 0);
      for (int q = 0; q < 3; q++) {
        /* spheres of radius r add r^2/5 per axis: a'^2 = a^2 + r^2 */
        double want = sqrt(sa[q] * sa[q] + (sph ? 0.09 : 0));
        printf("shape %d%s axis %d: %.4f (want %.4f)\n", s, sph ? " spheres" : "", q, semi[q], want);
        assert_true(fabs(semi[q] / want - 1) < 0.02);
        if (sa[0] == sa[1] && sa[1] == sa[2]) continue;
        if ((q < 2 && sa[q] == sa[q + 1]) || (q > 0 && sa[q] == sa[q - 1])) continue;
        double dot = 0;
        for (int k = 0; k < 3; k++) dot += ax[3 * k + q] * R[3 * k + q];
        assert_true(fabs(fabs(dot) - 1) < 1e-2);
      }
    }
  free(x);
  free(r);
}

static int classify(const double *x, size_t n, double rad, double semi[3]) {
  double r[64];
  for (size_t i = 0; i < n; i++) r[i] = rad;
  assert_int_equal(agglo_equivalent_ellipsoid(x, r, n, semi, NULL), 0);
  return agglo_ellipsoid_class_ratio(semi, 0.05);
}

/* Touching unit spheres (d = 1): one sphere is itself; a straight chain of 5 is prolate with
   a^2 = 5 (2 + 1/20); a flat hexagon (centre + 6) oblate with a^2 = b^2 = 5 (3/7 + 1/20), c = r;
   a 3x3x3 cube a sphere with a^2 = 5 (2/3 + 1/20). */
static void chains_hexagons_cubes(void **st) {
  (void)st;
  double x[3 * 27], semi[3];
  memcpy(x, (double[]){1, 2, 3}, 3 * sizeof(double));
  classify(x, 1, 0.5, semi);
  for (int q = 0; q < 3; q++) assert_true(fabs(semi[q] - 0.5) < 1e-12);
  for (int i = 0; i < 5; i++) x[3 * i] = i, x[3 * i + 1] = 0.3 * i, x[3 * i + 2] = -0.2 * i;
  double L = sqrt(1 + 0.09 + 0.04); /* along a skew line, spacing L */
  assert_int_equal(classify(x, 5, 0.5, semi), AGGLO_PROLATE);
  assert_true(fabs(semi[0] - sqrt(5 * (2 * L * L + 0.05))) < 1e-9);
  assert_true(fabs(semi[1] - 0.5) < 1e-9 && fabs(semi[2] - 0.5) < 1e-9);
  x[0] = x[1] = x[2] = 0;
  for (int k = 0; k < 6; k++) /* in the plane x + y + z = 0 */
    for (int q = 0; q < 3; q++) {
      double u[3] = {1 / sqrt(2), -1 / sqrt(2), 0}, v[3] = {1 / sqrt(6), 1 / sqrt(6), -2 / sqrt(6)};
      x[3 * (k + 1) + q] = cos(k * M_PI / 3) * u[q] + sin(k * M_PI / 3) * v[q];
    }
  assert_int_equal(classify(x, 7, 0.5, semi), AGGLO_OBLATE);
  assert_true(fabs(semi[0] - sqrt(5 * (3.0 / 7 + 0.05))) < 1e-9);
  assert_true(fabs(semi[1] - semi[0]) < 1e-9 && fabs(semi[2] - 0.5) < 1e-9);
  for (int i = 0; i < 27; i++) x[3 * i] = i % 3, x[3 * i + 1] = i / 3 % 3, x[3 * i + 2] = i / 9;
  assert_int_equal(classify(x, 27, 0.5, semi), AGGLO_SPHERE);
  for (int q = 0; q < 3; q++) assert_true(fabs(semi[q] - sqrt(5 * (2.0 / 3 + 0.05))) < 1e-9);
  /* a bent trimer is scalene; a tolerance of 1 makes everything a sphere */
  double tri[9] = {0, 0, 0, 1, 0, 0, 1.5, 0.6, 0};
  assert_int_equal(classify(tri, 3, 0.5, semi), AGGLO_SCALENE);
  assert_int_equal(agglo_ellipsoid_class_ratio(semi, 1), AGGLO_SPHERE);
  assert_int_equal(agglo_equivalent_ellipsoid(x, (double[]){0.5}, 0, semi, NULL), -1);
}

/* The report with the default definition: a touching dimer (prolate, sqrt(3/2), 1/2, 1/2, volume
   ratio 122.47 % of the two spheres) across a periodic face, and a straight trimer (prolate). */
static void report_with_moments(void **st) {
  (void)st;
  double x[][3] = {{0.3, 5, 5}, {19.3, 5, 5}, {10, 3, 3}, {11, 3, 3}, {12, 3, 3}, {15, 15, 15}};
  size_t n = sizeof x / sizeof *x;
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 3, n), 0);
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) s.x[3 * i + k] = x[i][k];
    s.r[i] = 0.5, s.m[i] = 1, s.inv_m[i] = 1;
  }
  for (int k = 0; k < 3; k++) s.box.lo[k] = 0, s.box.len[k] = s.box.hi[k] = 20, s.box.periodic[k] = 1;
  agglo_agglomerates a;
  assert_int_equal(agglo_agglomerates_measure(&s, 1e-9, 0.05, AGGLO_ELLIPSOID_MOMENTS, &a), 0);
  assert_int_equal(a.n_agglomerates, 2);
  assert_int_equal(a.n_particles, 5);
  assert_int_equal(a.by_class[AGGLO_PROLATE], 2);
  double dimer = sqrt(1.5) * 0.25 / (2 * 0.125), trimer = sqrt(5 * (2.0 / 3 + 0.05)) * 0.25 / (3 * 0.125);
  printf("volume ratios: dimer %.2f %%, trimer %.2f %%, mean %.2f %%\n", 100 * dimer,
         100 * trimer, a.ratio_true);
  assert_true(fabs(a.ratio_true - 100 * (dimer + trimer) / 2) < 1e-9);
  agglo_agglomerates_free(&a);
  agglo_system_free(&s);
}

/* Touching counts: a chain of spheres (d = 1) whose centres are one diameter apart to round-off
   (the second pair 1.5e-11 beyond) is one agglomerate of 3 with gap 0; a fourth sphere 1e-6 d
   beyond touching is not a member. */
static void touching_spheres_are_one_agglomerate(void **st) {
  (void)st;
  double x[][3] = {{2.3, 5, 5}, {3.3, 5, 5}, {4.3 + 1.5e-11, 5, 5}, {5.3 + 1.5e-11 + 1e-6, 5, 5}};
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 3, 4), 0);
  for (size_t i = 0; i < 4; i++) {
    for (int k = 0; k < 3; k++) s.x[3 * i + k] = x[i][k];
    s.r[i] = 0.5, s.m[i] = 1, s.inv_m[i] = 1;
  }
  for (int k = 0; k < 3; k++) s.box.lo[k] = 0, s.box.len[k] = s.box.hi[k] = 20, s.box.periodic[k] = 1;
  agglo_agglomerates a;
  assert_int_equal(agglo_agglomerates_measure(&s, 0, 0.05, AGGLO_ELLIPSOID_MOMENTS, &a), 0);
  assert_int_equal(a.n_agglomerates, 1);
  assert_int_equal(a.n_particles, 3);
  agglo_agglomerates_free(&a);
  agglo_system_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(point_clouds_of_known_ellipsoids),
      cmocka_unit_test(chains_hexagons_cubes),
      cmocka_unit_test(report_with_moments),
      cmocka_unit_test(touching_spheres_are_one_agglomerate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
