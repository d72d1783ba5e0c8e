/* Indicators on shapes with known answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "analysis/clusters.h"
#include "core/rng.h"

static void box_counting_line(void **st) {
  (void)st;
  size_t n = 1 << 16;
  double *x = calloc(3 * n, sizeof *x);
  for (size_t i = 0; i < n; i++) x[3 * i] = (double)i / (double)n, x[3 * i + 1] = 0.3;
  double d = agglo_box_counting(x, n, 2, 1.0 / 4096, NULL, NULL, NULL);
  assert_true(fabs(d - 1.0) < 0.01);
  /* the same on the paper's grid over the unit box: 2^m cells of a line, D = 1 exactly */
  const double lo[3] = {0, 0, 0}, len[3] = {1, 1, 1};
  d = agglo_box_counting_grid(x, n, 2, lo, len, 1.0 / 4096, NULL, NULL, NULL);
  assert_true(fabs(d - 1.0) < 1e-12);
  free(x);
}

static void box_counting_square(void **st) {
  (void)st;
  size_t side = 512, n = side * side;
  double *x = calloc(3 * n, sizeof *x);
  for (size_t i = 0; i < n; i++) x[3 * i] = (double)(i % side) / side, x[3 * i + 1] = (double)(i / side) / side;
  double d = agglo_box_counting(x, n, 2, 1.0 / 256, NULL, NULL, NULL);
  assert_true(fabs(d - 2.0) < 0.02);
  free(x);
}

static void box_counting_sierpinski(void **st) {
  (void)st;
  /* chaos game on the equilateral triangle: the attractor is the Sierpinski triangle */
  size_t n = 1 << 20;
  double *x = calloc(3 * n, sizeof *x), p[2] = {0.1, 0.1};
  const double v[3][2] = {{0, 0}, {1, 0}, {0.5, 0.8660254037844386}};
  for (size_t i = 0; i < n + 100; i++) {
    double u[4];
    agglo_rng_uniform4(7, 9, 0, i, u);
    int k = (int)(u[0] * 3);
    p[0] = 0.5 * (p[0] + v[k][0]);
    p[1] = 0.5 * (p[1] + v[k][1]);
    if (i >= 100) x[3 * (i - 100)] = p[0], x[3 * (i - 100) + 1] = p[1];
  }
  double eps[64], cnt[64];
  int np;
  double d = agglo_box_counting(x, n, 2, 1.0 / 512, eps, cnt, &np);
  double exact = log(3.0) / log(2.0);
  print_message("Sierpinski box counting: D = %.4f (exact %.4f), %d scales\n", d, exact, np);
  assert_true(fabs(d - exact) / exact < 0.02);
  /* the paper's grid over the unit box: the triangle's 3^m cells at eps = 2^-m */
  const double lo[3] = {0, 0, 0}, len[3] = {1, 1, 1};
  d = agglo_box_counting_grid(x, n, 2, lo, len, 1.0 / 512, eps, cnt, &np);
  print_message("Sierpinski on the box grid: D = %.4f over %d levels\n", d, np);
  assert_true(np == 9 && fabs(d - exact) / exact < 0.02);
  free(x);
}

/* a small system helper: n particles of radius r in a periodic or walled square box */
static agglo_system make_system(size_t n, double r, double L, int periodic) {
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 2, n), 0);
  for (int k = 0; k < 3; k++) {
    s.box.lo[k] = 0;
    s.box.len[k] = k < 2 ? L : 2 * r;
    s.box.hi[k] = s.box.len[k];
    s.box.periodic[k] = k < 2 && periodic;
  }
  for (size_t i = 0; i < n; i++) s.r[i] = r, s.m[i] = 1, s.inv_m[i] = 1;
  return s;
}

static void gyration_of_exact_shapes(void **st) {
  (void)st;
  /* a ring of 360 points of radius a: Rg = a, eigenvalues a^2/2, a^2/2 */
  double a = 0.3;
  agglo_system s = make_system(360, 0.001, 2, 0);
  for (size_t i = 0; i < 360; i++) {
    double t = 2 * M_PI * (double)i / 360;
    s.x[3 * i] = 1 + a * cos(t), s.x[3 * i + 1] = 1 + a * sin(t);
    s.cluster[i] = 0;
  }
  agglo_cluster_info *c;
  size_t nc;
  assert_int_equal(agglo_cluster_infos(&s, 0.001, &c, &nc), 0);
  assert_int_equal(nc, 1);
  assert_true(fabs(c[0].rg - a) < 1e-12);
  assert_true(fabs(c[0].eig[0] - a * a / 2) < 1e-12 && fabs(c[0].eig[1] - a * a / 2) < 1e-12);
  assert_true(fabs(c[0].com[0] - 1) < 1e-12 && fabs(c[0].com[1] - 1) < 1e-12);
  free(c);
  /* a 40 x 10 rectangle of grid points, tilted by 30 degrees: eigenvalues (n^2-1)/12 h^2 per
     axis, leading axis along the long side */
  agglo_system_free(&s);
  s = make_system(400, 0.001, 4, 0);
  double h = 0.01, th = M_PI / 6;
  for (size_t i = 0; i < 400; i++) {
    double u = ((double)(i % 40) - 19.5) * h, w = ((double)(i / 40) - 4.5) * h;
    s.x[3 * i] = 2 + u * cos(th) - w * sin(th);
    s.x[3 * i + 1] = 2 + u * sin(th) + w * cos(th);
    s.cluster[i] = 0;
  }
  assert_int_equal(agglo_cluster_infos(&s, 0.001, &c, &nc), 0);
  double e1 = (1600.0 - 1) / 12 * h * h, e2 = (100.0 - 1) / 12 * h * h;
  assert_true(fabs(c[0].eig[0] - e1) < 1e-12 && fabs(c[0].eig[1] - e2) < 1e-12);
  assert_true(fabs(c[0].aspect - e1 / e2) < 1e-9);
  assert_true(fabs(fabs(c[0].axis[0]) - cos(th)) < 1e-9 && fabs(fabs(c[0].axis[1]) - sin(th)) < 1e-9);
  free(c);
  agglo_system_free(&s);
}

/* issue 41: a dimer or a straight chain has no second axis; its lambda2 is rounding noise and
   lambda1/lambda2 was 1e17..1e20 in stats.csv. Undefined (NaN) in every direction; a single
   particle is 1; a chain bent by 1e-3 rad is finite. */
static void aspect_ratio_of_collinear_clusters(void **st) {
  (void)st;
  double r = 0.05;
  for (int k = 0; k < 50; k++) {
    double th = 0.1 + 0.123 * k, ph = 0.7 + 0.05 * k;
    for (int dim = 2; dim <= 3; dim++) {
      size_t len = 2 + (size_t)(k % 4); /* dimers to chains of 5 */
      agglo_system s = make_system(len, r, 4, 0);
      if (dim == 3) s.dim = 3, s.box.len[2] = s.box.hi[2] = 4;
      double u[3] = {cos(th) * (dim == 3 ? sin(ph) : 1), sin(th) * (dim == 3 ? sin(ph) : 1), dim == 3 ? cos(ph) : 0};
      for (size_t i = 0; i < len; i++) {
        for (int q = 0; q < 3; q++) s.x[3 * i + q] = (q < dim ? 1.3 : 0) + 2 * r * (double)i * u[q];
        s.cluster[i] = 0;
      }
      agglo_cluster_info *c;
      size_t nc;
      assert_int_equal(agglo_cluster_infos(&s, 0.001, &c, &nc), 0);
      assert_int_equal(nc, 1);
      if (!isnan(c[0].aspect)) fail_msg("k %d dim %d len %zu: aspect %g", k, dim, len, c[0].aspect);
      free(c);
      agglo_system_free(&s);
    }
  }
  double one[3] = {0, 0, 0}, bent[3] = {1, 1e-6, 0}, line[3] = {1, 1e-21, 0};
  assert_true(agglo_aspect_ratio(one) == 1.0);
  assert_true(fabs(agglo_aspect_ratio(bent) - 1e6) < 1e-3);
  assert_true(isnan(agglo_aspect_ratio(line)));
}

static void gyration_across_periodic_faces(void **st) {
  (void)st;
  /* a chain of 10 touching discs crossing the right face of a periodic box: same Rg as inside */
  double r = 0.01, L = 1;
  agglo_system s = make_system(10, r, L, 1);
  for (size_t i = 0; i < 10; i++) {
    s.x[3 * i] = fmod(0.95 + 2 * r * (double)i, L);
    s.x[3 * i + 1] = 0.5;
  }
  agglo_cluster_stats cs;
  assert_int_equal(agglo_clusters_label(&s, NULL, 0.1 * r, &cs), 0);
  assert_int_equal(cs.n_clusters, 1);
  agglo_cluster_info *c;
  size_t nc;
  assert_int_equal(agglo_cluster_infos(&s, 0.1 * r, &c, &nc), 0);
  double exact = 2 * r * sqrt((100.0 - 1) / 12); /* points 2r apart: Rg^2 = (n^2-1)/12 (2r)^2 */
  assert_true(fabs(c[0].rg - exact) < 1e-12);
  free(c);
  agglo_system_free(&s);
}

/* Brute-force labels: repeated relaxation of min labels over all touching pairs. */
static void brute_labels(const agglo_system *s, double gap, int32_t *lab) {
  for (size_t i = 0; i < s->n; i++) lab[i] = (int32_t)i;
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < s->n; i++)
      for (size_t j = i + 1; j < s->n; j++) {
        double d[3];
        agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
        if (sqrt(d[0] * d[0] + d[1] * d[1]) - s->r[i] - s->r[j] < gap && lab[i] != lab[j]) {
          int32_t m = lab[i] < lab[j] ? lab[i] : lab[j];
          lab[i] = lab[j] = m;
          changed = 1;
        }
      }
  }
}

static void union_find_matches_brute_force(void **st) {
  (void)st;
  for (int periodic = 0; periodic <= 1; periodic++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      size_t n = 600;
      agglo_system s = make_system(n, 0.01, 1, periodic);
      for (size_t i = 0; i < n; i++) {
        double u[4];
        agglo_rng_uniform4(seed, 1, 0, i, u);
        s.x[3 * i] = u[0], s.x[3 * i + 1] = u[1];
        s.r[i] = 0.008 + 0.006 * u[2]; /* overlaps allowed: labelling only */
      }
      int32_t *lab = malloc(n * sizeof *lab);
      brute_labels(&s, 0.005, lab);
      agglo_cluster_stats cs;
      assert_int_equal(agglo_clusters_label(&s, NULL, 0.005, &cs), 0);
      size_t clusters = 0;
      for (size_t i = 0; i < n; i++) {
        clusters += lab[i] == (int32_t)i;
        /* same partition: ids equal indices here, and both label by the smallest member */
        assert_int_equal(s.cluster[i], lab[i]);
      }
      assert_int_equal(cs.n_clusters, clusters);
      free(lab);
      agglo_system_free(&s);
    }
}

static void contacts_of_hexagonal_packing(void **st) {
  (void)st;
  /* touching discs on a triangular lattice in a periodic box: 6 neighbours at 2R, so
     N_c = (N + 6N) / (6N) = 7/6 */
  size_t nx = 20, ny = 20, n = nx * ny;
  double R = 0.5, a = 2 * R, Lx = nx * a, Ly = ny * a * sqrt(3) / 2;
  agglo_system s = make_system(n, R, Lx, 1);
  s.box.len[1] = Ly, s.box.hi[1] = Ly;
  for (size_t i = 0; i < n; i++) {
    size_t ix = i % nx, iy = i / nx;
    s.x[3 * i] = (double)ix * a + (iy % 2) * a / 2;
    s.x[3 * i + 1] = (double)iy * a * sqrt(3) / 2;
  }
  assert_true(fabs(agglo_contacts_per_sphere(&s, 2.1 * R) - 7.0 / 6.0) < 1e-12);
  /* P(r) just above the first shell: 6 neighbours each */
  double r[2] = {1.01 * a, 1.5 * a}, p[2];
  assert_int_equal(agglo_pair_distribution(&s, r, 2, 0, p), 0);
  assert_true(fabs(p[0] - 6) < 1e-12 && fabs(p[1] - 6) < 1e-12);
  agglo_system_free(&s);
}

static void mass_radius_dimension_of_exact_clusters(void **st) {
  (void)st;
  /* filled squares of side k: Rg ~ s^(1/2), D = 2 */
  agglo_cluster_info c[6];
  memset(c, 0, sizeof c);
  for (int k = 0; k < 6; k++) {
    size_t side = (size_t)8 << k;
    c[k].size = side * side;
    c[k].rg = sqrt((double)(side * side - 1) / 6.0);
  }
  double kf, d = agglo_mass_radius_dimension(c, 6, 2, 1, &kf);
  assert_true(fabs(d - 2) < 0.05);
  /* exact power law R_g = a (s/k_f)^(1/D): D and k_f recovered; min_size drops the small ones */
  for (int k = 0; k < 6; k++) c[k].size = (size_t)3 << (2 * k), c[k].rg = 0.5 * pow(c[k].size / 1.3, 1 / 1.7);
  d = agglo_mass_radius_dimension(c, 6, 3, 0.5, &kf);
  assert_true(fabs(d - 1.7) < 1e-12 && fabs(kf - 1.3) < 1e-12);
  c[0].rg = 100; /* an outlier of size 3, left out by min_size 4 */
  d = agglo_mass_radius_dimension(c, 6, 4, 0.5, &kf);
  assert_true(fabs(d - 1.7) < 1e-12 && fabs(kf - 1.3) < 1e-12);
}

static void ellipsoid_classes(void **st) {
  (void)st;
  double sphere[3] = {2, 2, 2}, prolate[3] = {4, 2, 2}, oblate[3] = {4, 4, 2}, scalene[3] = {5, 3, 1};
  assert_int_equal(agglo_ellipsoid_class(sphere, 0.1), AGGLO_SPHERE);
  assert_int_equal(agglo_ellipsoid_class(prolate, 0.1), AGGLO_PROLATE);
  assert_int_equal(agglo_ellipsoid_class(oblate, 0.1), AGGLO_OBLATE);
  assert_int_equal(agglo_ellipsoid_class(scalene, 0.1), AGGLO_SCALENE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(box_counting_line),
      cmocka_unit_test(box_counting_square),
      cmocka_unit_test(box_counting_sierpinski),
      cmocka_unit_test(gyration_of_exact_shapes),
      cmocka_unit_test(gyration_across_periodic_faces),
      cmocka_unit_test(aspect_ratio_of_collinear_clusters),
      cmocka_unit_test(union_find_matches_brute_force),
      cmocka_unit_test(contacts_of_hexagonal_packing),
      cmocka_unit_test(mass_radius_dimension_of_exact_clusters),
      cmocka_unit_test(ellipsoid_classes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
