/* The public analysis toolkit (include/agglo/analysis.h) on shapes with known answers, against
   brute force, and on every kind of bad argument. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "agglo/analysis.h"

/* ---------- helpers ---------- */

static uint64_t rng_state = 12345;
static double urand(void) { /* splitmix64, uniform in [0, 1) */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

static agglo_box make_box(int dim, double L, int periodic) {
  agglo_box b;
  memset(&b, 0, sizeof b);
  for (int k = 0; k < dim; k++) b.lo[k] = 0, b.hi[k] = L, b.len[k] = L, b.periodic[k] = periodic;
  return b;
}

static void delta(const agglo_box *b, const double *xi, const double *xj, double d[3]) {
  for (int k = 0; k < 3; k++) {
    d[k] = xj[k] - xi[k];
    if (b && b->periodic[k]) d[k] -= b->len[k] * round(d[k] / b->len[k]);
  }
}

static double dist(const agglo_box *b, const double *xi, const double *xj) {
  double d[3];
  delta(b, xi, xj, d);
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static int32_t root(int32_t *p, int32_t a) {
  while (p[a] != a) a = p[a];
  return a;
}

/* O(n^2) labels: smallest index of each component of the pairs with gap < g. */
static void brute_labels(const double *x, const double *r, size_t n, const agglo_box *b, double g,
                         int32_t *lab) {
  int32_t *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = (int32_t)i;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (dist(b, x + 3 * i, x + 3 * j) - r[i] - r[j] < g) {
        int32_t a = root(p, (int32_t)i), c = root(p, (int32_t)j);
        if (a != c) p[a > c ? a : c] = a < c ? a : c;
      }
  for (size_t i = 0; i < n; i++) lab[i] = root(p, (int32_t)i);
  free(p);
}

/* The call fails with AGGLO_ERROR_INPUT and a message naming the function and the argument. */
#define EXPECT_INPUT_ERROR(call, fn, arg)                                                  \
  do {                                                                                     \
    agglo_status st_ = (call);                                                             \
    assert_int_equal(st_, AGGLO_ERROR_INPUT);                                              \
    const char *m_ = agglo_last_error();                                                   \
    size_t l_ = strlen(fn);                                                                \
    if (strncmp(m_, fn, l_) != 0 || strncmp(m_ + l_, ": ", 2) != 0 || !strstr(m_ + l_, arg)) \
      fail_msg("message \"%s\" should start with \"%s: \" and name \"%s\"", m_, fn, arg);  \
  } while (0)

/* ---------- clusters ---------- */

static void labels_touching_and_far(void **st) {
  (void)st;
  /* two discs touching (gap 0 < 0.1), a third far away */
  double x[9] = {0, 0, 0, 2, 0, 0, 10, 0, 0}, r[3] = {1, 1, 1};
  int32_t lab[3];
  size_t nc = 99;
  assert_int_equal(agglo_analysis_cluster_labels(x, r, 3, 2, NULL, 0.1, lab, &nc), AGGLO_OK);
  assert_int_equal(nc, 2);
  assert_int_equal(lab[0], 0);
  assert_int_equal(lab[1], 0);
  assert_int_equal(lab[2], 2);
  /* the far one first: labels are the smallest index of each cluster */
  double y[9] = {10, 0, 0, 0, 0, 0, 2, 0, 0};
  assert_int_equal(agglo_analysis_cluster_labels(y, r, 3, 3, NULL, 0.1, lab, NULL), AGGLO_OK);
  assert_int_equal(lab[0], 0);
  assert_int_equal(lab[1], 1);
  assert_int_equal(lab[2], 1);
  /* contact_gap 0: exactly touching is not below the gap */
  assert_int_equal(agglo_analysis_cluster_labels(x, r, 3, 2, NULL, 0.0, lab, &nc), AGGLO_OK);
  assert_int_equal(nc, 3);
  /* no particles: no clusters */
  assert_int_equal(agglo_analysis_cluster_labels(NULL, NULL, 0, 2, NULL, 0.1, NULL, &nc), AGGLO_OK);
  assert_int_equal(nc, 0);
}

static void labels_periodic(void **st) {
  (void)st;
  agglo_box b = make_box(2, 10, AGGLO_PERIODIC);
  /* 0.9 apart across the x face (gap -0.1); the third sits two boxes away from the first's image */
  double x[9] = {0.5, 5, 0, 9.6, 5, 0, 20.5 + 0.95, 5, 0}, r[3] = {0.5, 0.5, 0.5};
  int32_t lab[3];
  size_t nc;
  assert_int_equal(agglo_analysis_cluster_labels(x, r, 2, 2, &b, 0.05, lab, &nc), AGGLO_OK);
  assert_int_equal(nc, 1);
  assert_int_equal(lab[0], 0);
  assert_int_equal(lab[1], 0);
  assert_int_equal(agglo_analysis_cluster_labels(x, r, 3, 2, &b, 0.05, lab, &nc), AGGLO_OK);
  assert_int_equal(nc, 1);
  assert_int_equal(lab[2], 0);
  /* the same in open space: three clusters */
  assert_int_equal(agglo_analysis_cluster_labels(x, r, 3, 2, NULL, 0.05, lab, &nc), AGGLO_OK);
  assert_int_equal(nc, 3);
  assert_int_equal(lab[1], 1);
}

/* Union-find over the cell list against brute force: discs in walled, periodic (3D) boxes and
   open space, dense and scattered over 10^6 diameters (the grid must not grow with the spread). */
static void labels_brute_force(void **st) {
  (void)st;
  size_t n = 700;
  double *x = calloc(3 * n, sizeof *x), *r = malloc(n * sizeof *r);
  int32_t *lab = malloc(n * sizeof *lab), *ref = malloc(n * sizeof *ref);
  for (int c = 0; c < 5; c++) {
    int dim = c == 2 || c == 4 ? 3 : 2;
    double L = c == 3 ? 1e6 : (dim == 2 ? 30 : 12);
    agglo_box b = make_box(dim, L, c == 1 || c == 2 ? AGGLO_PERIODIC : AGGLO_WALL);
    memset(x, 0, 3 * n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
      for (int k = 0; k < dim; k++) x[3 * i + k] = L * urand();
      r[i] = 0.3 + 0.4 * urand();
    }
    if (c == 3) /* a few dense clumps in a huge open space */
      for (size_t i = 0; i < n; i++) x[3 * i] = x[3 * (i % 7)] + 3 * urand(), x[3 * i + 1] = x[3 * (i % 7) + 1] + 3 * urand();
    const agglo_box *bp = c == 3 || c == 4 ? NULL : &b;
    size_t nc;
    assert_int_equal(agglo_analysis_cluster_labels(x, r, n, dim, bp, 0.1, lab, &nc), AGGLO_OK);
    brute_labels(x, r, n, bp, 0.1, ref);
    size_t roots = 0;
    for (size_t i = 0; i < n; i++) {
      assert_int_equal(lab[i], ref[i]);
      roots += ref[i] == (int32_t)i;
    }
    assert_int_equal(nc, roots);
  }
  free(x); free(r); free(lab); free(ref);
}

static void sizes_sorted(void **st) {
  (void)st;
  int32_t lab[10] = {5, 5, 1, 7, 7, 7, 1, 5, 5, -3};
  size_t sizes[10], nc;
  memset(sizes, 0xff, sizeof sizes);
  assert_int_equal(agglo_analysis_cluster_sizes(lab, 10, sizes, &nc), AGGLO_OK);
  assert_int_equal(nc, 4);
  size_t want[10] = {4, 3, 2, 1, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 10; i++) assert_int_equal(sizes[i], want[i]);
  assert_int_equal(agglo_analysis_cluster_sizes(NULL, 0, NULL, &nc), AGGLO_OK);
  assert_int_equal(nc, 0);
}

/* ---------- gyration ---------- */

static void gyration_ring(void **st) {
  (void)st;
  double R = 2.5, c[3] = {1, -2, 3}, x[12];
  for (int i = 0; i < 4; i++) {
    x[3 * i] = c[0] + R * cos(i * M_PI / 2);
    x[3 * i + 1] = c[1] + R * sin(i * M_PI / 2);
    x[3 * i + 2] = c[2];
  }
  double G[9], rg;
  assert_int_equal(agglo_analysis_gyration(x, NULL, 4, G, &rg), AGGLO_OK);
  assert_true(fabs(rg - R) < 1e-12);
  double want[9] = {R * R / 2, 0, 0, 0, R * R / 2, 0, 0, 0, 0};
  for (int k = 0; k < 9; k++) assert_true(fabs(G[k] - want[k]) < 1e-12);
  /* unit masses given explicitly: the same */
  double m[4] = {1, 1, 1, 1}, G2[9], rg2;
  assert_int_equal(agglo_analysis_gyration(x, m, 4, G2, &rg2), AGGLO_OK);
  assert_true(fabs(rg2 - R) < 1e-12);
  /* weights: masses 1 and 3 at x = 0 and 4: centre 3, G_xx = (9 + 3)/4 = 3 */
  double y[6] = {0, 0, 0, 4, 0, 0}, w[2] = {1, 3};
  assert_int_equal(agglo_analysis_gyration(y, w, 2, G, &rg), AGGLO_OK);
  assert_true(fabs(G[0] - 3) < 1e-12 && fabs(rg - sqrt(3)) < 1e-12);
}

/* ---------- fractal dimensions ---------- */

static void box_counting_square_and_line(void **st) {
  (void)st;
  size_t side = 256, n = side * side;
  double *x = calloc(3 * n, sizeof *x);
  for (size_t i = 0; i < n; i++) x[3 * i] = (double)(i % side), x[3 * i + 1] = (double)(i / side);
  double d, eps[64], cnt[64];
  int np;
  assert_int_equal(agglo_analysis_box_counting(x, n, 2, 1.0, &d, eps, cnt, &np), AGGLO_OK);
  print_message("256 x 256 grid: D = %.4f over %d scales\n", d, np);
  assert_true(fabs(d - 2) < 0.05);
  assert_true(np >= 5);
  assert_true(cnt[0] == 4 && fabs(eps[0] - 127.5) < 1e-6);
  /* a line of 256 points (2D, then 3D along a diagonal) */
  for (size_t i = 0; i < side; i++) x[3 * i] = (double)i, x[3 * i + 1] = 7;
  assert_int_equal(agglo_analysis_box_counting(x, side, 2, 1.0, &d, NULL, NULL, NULL), AGGLO_OK);
  assert_true(fabs(d - 1) < 0.05);
  for (size_t i = 0; i < side; i++) x[3 * i] = x[3 * i + 1] = x[3 * i + 2] = (double)i;
  assert_int_equal(agglo_analysis_box_counting(x, side, 3, 1.0, &d, NULL, NULL, NULL), AGGLO_OK);
  assert_true(fabs(d - 1) < 0.05);
  /* one point: no scale, NAN (not an error) */
  assert_int_equal(agglo_analysis_box_counting(x, 1, 3, 1.0, &d, NULL, NULL, &np), AGGLO_OK);
  assert_true(isnan(d) && np == 0);
  free(x);
}

static void mass_radius_power_law(void **st) {
  (void)st;
  size_t n = 40, sizes[40];
  double rg[40], d;
  for (size_t i = 0; i < n; i++) sizes[i] = 2 + 5 * i, rg[i] = pow((double)sizes[i], 1 / 1.8);
  assert_int_equal(agglo_analysis_mass_radius(sizes, rg, n, 2, &d), AGGLO_OK);
  assert_true(fabs(d - 1.8) < 1e-9);
  /* min_size drops the small ones: same slope */
  assert_int_equal(agglo_analysis_mass_radius(sizes, rg, n, 50, &d), AGGLO_OK);
  assert_true(fabs(d - 1.8) < 1e-9);
  /* too few clusters for a fit: NAN */
  assert_int_equal(agglo_analysis_mass_radius(sizes, rg, 2, 2, &d), AGGLO_OK);
  assert_true(isnan(d));
  assert_int_equal(agglo_analysis_mass_radius(NULL, NULL, 0, 2, &d), AGGLO_OK);
  assert_true(isnan(d));
}

/* ---------- pair statistics ---------- */

static void contacts_triangular_lattice(void **st) {
  (void)st;
  int nx = 12, ny = 12; /* ny even: the lattice closes on itself across the periodic faces */
  double a = 1.0, h = a * sqrt(3) / 2;
  size_t n = (size_t)(nx * ny);
  double *x = calloc(3 * n, sizeof *x);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      double *p = x + 3 * (size_t)(j * nx + i);
      p[0] = (i + 0.5 * (j % 2)) * a + 0.1;
      p[1] = j * h + 0.1;
    }
  agglo_box b = make_box(2, 0, AGGLO_PERIODIC);
  b.hi[0] = b.len[0] = nx * a;
  b.hi[1] = b.len[1] = ny * h;
  double nc;
  assert_int_equal(agglo_analysis_contacts_per_sphere(x, n, 2, &b, 1.05 * a, &nc), AGGLO_OK);
  assert_true(fabs(nc - 7.0 / 6.0) < 1e-12);
  /* open space: the edges have fewer neighbours */
  assert_int_equal(agglo_analysis_contacts_per_sphere(x, n, 2, NULL, 1.05 * a, &nc), AGGLO_OK);
  assert_true(nc < 7.0 / 6.0 && nc > 1.0);
  /* an isolated point counts 1/k */
  assert_int_equal(agglo_analysis_contacts_per_sphere(x, 1, 2, NULL, 1.05 * a, &nc), AGGLO_OK);
  assert_true(fabs(nc - 1.0 / 6.0) < 1e-15);
  free(x);
}

static void pair_distribution_two_points(void **st) {
  (void)st;
  double x[6] = {0, 0, 0, 1.5, 0, 0}, radii[4] = {1, 1.5, 2, 0}, p[4];
  assert_int_equal(agglo_analysis_pair_distribution(x, 2, 2, NULL, radii, 4, p), AGGLO_OK);
  assert_true(p[0] == 0 && p[1] == 1 && p[2] == 1 && p[3] == 0);
  /* across a periodic face: 1.5 apart through the image */
  double y[6] = {0.25, 1, 0, 8.75, 1, 0};
  agglo_box b = make_box(2, 10, AGGLO_PERIODIC);
  assert_int_equal(agglo_analysis_pair_distribution(y, 2, 2, &b, radii, 4, p), AGGLO_OK);
  assert_true(p[0] == 0 && p[1] == 1 && p[2] == 1 && p[3] == 0);
  /* coincident points at r = 0 (the only radius) */
  double z[6] = {1, 1, 1, 1, 1, 1}, r0 = 0;
  assert_int_equal(agglo_analysis_pair_distribution(z, 2, 3, NULL, &r0, 1, p), AGGLO_OK);
  assert_true(p[0] == 1);
}

/* N_c and P(r) against brute force, dense and scattered (10^6 wide open space, few points). */
static void pairs_brute_force(void **st) {
  (void)st;
  size_t n = 500;
  double *x = calloc(3 * n, sizeof *x), radii[5] = {0.5, 1, 2, 3.5, 6}, p[5];
  for (int c = 0; c < 4; c++) {
    int dim = c < 2 ? 2 : 3;
    double L = c == 3 ? 1e6 : (dim == 2 ? 25 : 9);
    agglo_box b = make_box(dim, L, AGGLO_PERIODIC);
    const agglo_box *bp = c == 0 || c == 2 ? &b : NULL;
    memset(x, 0, 3 * n * sizeof *x);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < dim; k++) x[3 * i + k] = L * urand() - (c == 1 ? 3 : 0);
    double nc, nc_ref = 0, dc = 2.1;
    double p_ref[5] = {0};
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double d = dist(bp, x + 3 * i, x + 3 * j);
        nc_ref += d <= dc;
        for (int k = 0; k < 5; k++) p_ref[k] += i != j && d <= radii[k];
      }
    nc_ref /= (dim == 2 ? 6.0 : 12.0) * (double)n;
    assert_int_equal(agglo_analysis_contacts_per_sphere(x, n, dim, bp, dc, &nc), AGGLO_OK);
    assert_true(fabs(nc - nc_ref) < 1e-12);
    assert_int_equal(agglo_analysis_pair_distribution(x, n, dim, bp, radii, 5, p), AGGLO_OK);
    for (int k = 0; k < 5; k++) assert_true(fabs(p[k] - p_ref[k] / (double)n) < 1e-12);
  }
  free(x);
}

/* ---------- ellipsoids ---------- */

static void ellipsoid_single_sphere(void **st) {
  (void)st;
  double x[3] = {1, 2, 3}, r = 0.7, semi[3], axes[9];
  assert_int_equal(agglo_analysis_ellipsoid(x, &r, 1, semi, axes), AGGLO_OK);
  for (int k = 0; k < 3; k++) assert_true(fabs(semi[k] - r) < 1e-12);
  assert_int_equal(agglo_analysis_ellipsoid_class(semi, 0.0), AGGLO_SPHERE);
}

static void ellipsoid_solid_sample(void **st) {
  (void)st;
  size_t n = 20000;
  double A[3] = {3, 2, 1}, *x = calloc(3 * n, sizeof *x), *r = calloc(n, sizeof *r);
  /* uniform in the solid ellipsoid (rejection), axes rotated by 30 degrees about z */
  double c = cos(M_PI / 6), s = sin(M_PI / 6);
  for (size_t i = 0; i < n;) {
    double u[3], q = 0;
    for (int k = 0; k < 3; k++) u[k] = 2 * urand() - 1, q += u[k] * u[k];
    if (q > 1) continue;
    double y[3] = {A[0] * u[0], A[1] * u[1], A[2] * u[2]};
    x[3 * i] = 5 + c * y[0] - s * y[1];
    x[3 * i + 1] = -1 + s * y[0] + c * y[1];
    x[3 * i + 2] = 2 + y[2];
    i++;
  }
  double semi[3], axes[9];
  assert_int_equal(agglo_analysis_ellipsoid(x, r, n, semi, axes), AGGLO_OK);
  print_message("solid ellipsoid (3, 2, 1): semi-axes %.4f %.4f %.4f\n", semi[0], semi[1], semi[2]);
  for (int k = 0; k < 3; k++) assert_true(fabs(semi[k] / A[k] - 1) < 0.02);
  /* directions: columns, along the rotated x, y and along z (sign made positive) */
  double e[3][3] = {{c, s, 0}, {-s, c, 0}, {0, 0, 1}};
  for (int a = 0; a < 3; a++) {
    double dot = 0, norm = 0;
    for (int k = 0; k < 3; k++) dot += axes[3 * k + a] * e[a][k], norm += axes[3 * k + a] * axes[3 * k + a];
    assert_true(fabs(norm - 1) < 1e-12);
    assert_true(fabs(fabs(dot) - 1) < 1e-3);
  }
  assert_int_equal(agglo_analysis_ellipsoid_class(semi, 0.1), AGGLO_SCALENE);
  free(x); free(r);
}

static void ellipsoid_shapes(void **st) {
  (void)st;
  double x[3 * 27], r[27], semi[3];
  for (int i = 0; i < 27; i++) r[i] = 1;
  /* a straight chain of 8 touching spheres: prolate */
  memset(x, 0, sizeof x);
  for (int i = 0; i < 8; i++) x[3 * i] = 2.0 * i;
  assert_int_equal(agglo_analysis_ellipsoid(x, r, 8, semi, NULL), AGGLO_OK);
  assert_true(fabs(semi[1] - 1) < 1e-12 && fabs(semi[2] - 1) < 1e-12 && semi[0] > 4);
  assert_int_equal(agglo_analysis_ellipsoid_class(semi, 0.1), AGGLO_PROLATE);
  /* a flat hexagonal patch of 19 (two rings around one, in the plane z = 0): oblate */
  int m = 0;
  for (int i = -2; i <= 2; i++)
    for (int j = -2; j <= 2; j++)
      if (abs(i + j) <= 2) {
        x[3 * m] = 2.0 * i + 1.0 * j;
        x[3 * m + 1] = sqrt(3.0) * j;
        x[3 * m + 2] = 0;
        m++;
      }
  assert_int_equal(m, 19);
  assert_int_equal(agglo_analysis_ellipsoid(x, r, 19, semi, NULL), AGGLO_OK);
  assert_true(fabs(semi[0] - semi[1]) < 1e-9 && fabs(semi[2] - 1) < 1e-12);
  assert_int_equal(agglo_analysis_ellipsoid_class(semi, 0.1), AGGLO_OBLATE);
  /* a 3 x 3 x 3 cube of touching spheres: a sphere */
  for (int i = 0; i < 27; i++) x[3 * i] = 2.0 * (i % 3), x[3 * i + 1] = 2.0 * (i / 3 % 3), x[3 * i + 2] = 2.0 * (i / 9);
  assert_int_equal(agglo_analysis_ellipsoid(x, r, 27, semi, NULL), AGGLO_OK);
  assert_true(fabs(semi[0] - semi[2]) < 1e-9);
  assert_int_equal(agglo_analysis_ellipsoid_class(semi, 0.01), AGGLO_SPHERE);
}

static void ellipsoid_class_rule(void **st) {
  (void)st;
  const double t = 0.05;
  double s1[3] = {1.04, 1.02, 1.0}, s2[3] = {2, 1.04, 1}, s3[3] = {2, 1.96, 1}, s4[3] = {3, 2, 1},
         s5[3] = {1.09, 1.045, 1.0}, s6[3] = {1, 2, 1.03}, s7[3] = {0, 0, 0};
  assert_int_equal(agglo_analysis_ellipsoid_class(s1, t), AGGLO_SPHERE);
  assert_int_equal(agglo_analysis_ellipsoid_class(s2, t), AGGLO_PROLATE);
  assert_int_equal(agglo_analysis_ellipsoid_class(s3, t), AGGLO_OBLATE);
  assert_int_equal(agglo_analysis_ellipsoid_class(s4, t), AGGLO_SCALENE);
  /* neighbouring axes equal within tol: a sphere, although the ends are 9 % apart */
  assert_int_equal(agglo_analysis_ellipsoid_class(s5, t), AGGLO_SPHERE);
  /* any order */
  assert_int_equal(agglo_analysis_ellipsoid_class(s6, t), AGGLO_PROLATE);
  assert_int_equal(agglo_analysis_ellipsoid_class(s7, 0), AGGLO_SPHERE);
}

/* ---------- bad arguments ---------- */

static void bad_inputs(void **st) {
  (void)st;
  double x[9] = {0, 0, 0, 2, 0, 0, 10, 0, 0}, r[3] = {1, 1, 1}, nanx[9], zx[9], negr[3] = {1, -1, 1};
  memcpy(nanx, x, sizeof x);
  nanx[4] = NAN;
  memcpy(zx, x, sizeof x);
  zx[5] = 0.5;
  int32_t lab[3];
  size_t nc, sizes[3];
  agglo_box b = make_box(2, 10, AGGLO_PERIODIC), bl = b, bp = b, bz = b;
  bl.len[0] = 5;
  bp.periodic[1] = 2;
  bz.periodic[2] = 1;
  agglo_box bi = b;
  bi.hi[0] = -1;

  const char *f = "agglo_analysis_cluster_labels";
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(NULL, r, 3, 2, NULL, 0.1, lab, &nc), f, "x is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, NULL, 3, 2, NULL, 0.1, lab, &nc), f, "r is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, NULL, 0.1, NULL, &nc), f, "labels is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 4, NULL, 0.1, lab, &nc), f, "dim = ");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, NULL, -0.1, lab, &nc), f, "contact_gap = ");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, NULL, INFINITY, lab, &nc), f, "contact_gap = ");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(nanx, r, 3, 2, NULL, 0.1, lab, &nc), f, "x[4]");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(zx, r, 3, 2, NULL, 0.1, lab, &nc), f, "x[5]");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, negr, 3, 2, NULL, 0.1, lab, &nc), f, "r[1]");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, &bl, 0.1, lab, &nc), f, "len = ");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, &bp, 0.1, lab, &nc), f, "box->periodic[1]");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, &bz, 0.1, lab, &nc), f, "box->periodic[2]");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_labels(x, r, 3, 2, &bi, 0.1, lab, &nc), f, "box axis x");

  f = "agglo_analysis_cluster_sizes";
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_sizes(NULL, 3, sizes, &nc), f, "labels is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_sizes(lab, 3, NULL, &nc), f, "sizes is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_cluster_sizes(lab, 3, sizes, NULL), f, "n_clusters is NULL");

  f = "agglo_analysis_gyration";
  double G[9], rg, negm[3] = {1, -2, 1}, zm[3] = {0, 0, 0};
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(x, NULL, 0, G, &rg), f, "n = 0");
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(NULL, NULL, 3, G, &rg), f, "x is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(nanx, NULL, 3, G, &rg), f, "x[4]");
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(x, negm, 3, G, &rg), f, "m[1]");
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(x, zm, 3, G, &rg), f, "m:");
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(x, NULL, 3, NULL, &rg), f, "tensor is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_gyration(x, NULL, 3, G, NULL), f, "rg is NULL");

  f = "agglo_analysis_box_counting";
  double d;
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(x, 0, 2, 1, &d, NULL, NULL, NULL), f, "n = 0");
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(NULL, 3, 2, 1, &d, NULL, NULL, NULL), f, "x is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(x, 3, 1, 1, &d, NULL, NULL, NULL), f, "dim = ");
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(x, 3, 2, -1, &d, NULL, NULL, NULL), f, "eps_min = ");
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(x, 3, 2, NAN, &d, NULL, NULL, NULL), f, "eps_min = ");
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(x, 3, 2, 1, NULL, NULL, NULL, NULL), f, "dimension is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_box_counting(zx, 3, 2, 1, &d, NULL, NULL, NULL), f, "x[5]");

  f = "agglo_analysis_mass_radius";
  size_t sz[3] = {2, 4, 8};
  double rgs[3] = {1, 2, NAN};
  EXPECT_INPUT_ERROR(agglo_analysis_mass_radius(NULL, r, 3, 2, &d), f, "sizes is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_mass_radius(sz, NULL, 3, 2, &d), f, "rg is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_mass_radius(sz, rgs, 3, 2, &d), f, "rg[2]");
  EXPECT_INPUT_ERROR(agglo_analysis_mass_radius(sz, r, 3, 2, NULL), f, "dimension is NULL");

  f = "agglo_analysis_contacts_per_sphere";
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(x, 0, 2, NULL, 2.1, &d), f, "n = 0");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(NULL, 3, 2, NULL, 2.1, &d), f, "x is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(x, 3, 0, NULL, 2.1, &d), f, "dim = ");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(x, 3, 2, NULL, 0, &d), f, "dist = ");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(x, 3, 2, NULL, NAN, &d), f, "dist = ");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(x, 3, 2, NULL, 2.1, NULL), f, "nc is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(x, 3, 2, &bl, 2.1, &d), f, "len = ");
  EXPECT_INPUT_ERROR(agglo_analysis_contacts_per_sphere(nanx, 3, 2, NULL, 2.1, &d), f, "x[4]");

  f = "agglo_analysis_pair_distribution";
  double radii[2] = {1, 2}, badr[2] = {1, -2}, p[2];
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(x, 0, 2, NULL, radii, 2, p), f, "n = 0");
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(NULL, 3, 2, NULL, radii, 2, p), f, "x is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(x, 3, 5, NULL, radii, 2, p), f, "dim = ");
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(x, 3, 2, NULL, NULL, 2, p), f, "radii_r is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(x, 3, 2, NULL, badr, 2, p), f, "radii_r[1]");
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(x, 3, 2, NULL, radii, 2, NULL), f, "p is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_pair_distribution(x, 3, 2, &bz, radii, 2, p), f, "box->periodic[2]");

  f = "agglo_analysis_ellipsoid";
  double semi[3];
  EXPECT_INPUT_ERROR(agglo_analysis_ellipsoid(x, r, 0, semi, NULL), f, "n = 0");
  EXPECT_INPUT_ERROR(agglo_analysis_ellipsoid(NULL, r, 3, semi, NULL), f, "x is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_ellipsoid(x, NULL, 3, semi, NULL), f, "r is NULL");
  EXPECT_INPUT_ERROR(agglo_analysis_ellipsoid(x, negr, 3, semi, NULL), f, "r[1]");
  EXPECT_INPUT_ERROR(agglo_analysis_ellipsoid(nanx, r, 3, semi, NULL), f, "x[4]");
  EXPECT_INPUT_ERROR(agglo_analysis_ellipsoid(x, r, 3, NULL, NULL), f, "semi is NULL");

  /* the class is an int: misuse gives -1 (0 is AGGLO_SPHERE) and the message */
  f = "agglo_analysis_ellipsoid_class";
  double s_ok[3] = {3, 2, 1}, s_neg[3] = {3, -2, 1}, s_nan[3] = {3, NAN, 1};
  struct { const double *s; double tol; const char *arg; } cls[] = {
      {NULL, 0.1, "semi is NULL"}, {s_ok, -0.1, "tol = "}, {s_ok, NAN, "tol = "}, {s_neg, 0.1, "semi[1]"},
      {s_nan, 0.1, "semi[1]"}};
  for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
    assert_int_equal(agglo_analysis_ellipsoid_class(cls[i].s, cls[i].tol), -1);
    const char *m = agglo_last_error();
    if (strncmp(m, f, strlen(f)) != 0 || !strstr(m, cls[i].arg)) fail_msg("class message \"%s\"", m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(labels_touching_and_far),
      cmocka_unit_test(labels_periodic),
      cmocka_unit_test(labels_brute_force),
      cmocka_unit_test(sizes_sorted),
      cmocka_unit_test(gyration_ring),
      cmocka_unit_test(box_counting_square_and_line),
      cmocka_unit_test(mass_radius_power_law),
      cmocka_unit_test(contacts_triangular_lattice),
      cmocka_unit_test(pair_distribution_two_points),
      cmocka_unit_test(pairs_brute_force),
      cmocka_unit_test(ellipsoid_single_sphere),
      cmocka_unit_test(ellipsoid_solid_sample),
      cmocka_unit_test(ellipsoid_shapes),
      cmocka_unit_test(ellipsoid_class_rule),
      cmocka_unit_test(bad_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
