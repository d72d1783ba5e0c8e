/* The damped Arrow-Hurwicz minimiser (src/models/ballistic_dah.c): pair, chain, triangle, tetrahedron, local
   activation, and plain Arrow-Hurwicz oscillating on the same pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/ballistic_dah.h"

static agglo_box open_box(void) {
  agglo_box b;
  memset(&b, 0, sizeof b);
  for (int k = 0; k < 3; k++) b.lo[k] = -100, b.hi[k] = 100, b.len[k] = 200;
  return b;
}

static double dist(const double *x, int i, int j) {
  double d2 = 0;
  for (int q = 0; q < 3; q++) d2 += (x[3 * i + q] - x[3 * j + q]) * (x[3 * i + q] - x[3 * j + q]);
  return sqrt(d2);
}

/* Sign changes of the gap d - 2 and the largest |gap| over iterations [from, to). */
static void trace_stats(const double *tr, int from, int to, int *changes, double *amp) {
  *changes = 0;
  *amp = 0;
  double prev = 0;
  for (int k = from; k < to; k++) {
    double g = tr[2 * k] - 2.0;
    if (fabs(g) > *amp) *amp = fabs(g);
    if (fabs(g) > 1e-6) {
      if (prev != 0 && (g > 0) != (prev > 0)) (*changes)++;
      prev = g;
    }
  }
}

static void two_spheres_dah_converges_plain_ah_oscillates(void **st) {
  (void)st;
  agglo_box box = open_box();
  double r[2] = {1, 1};
  int32_t seeds[2] = {0, 1};
  enum { T = 4000 };
  double *tr = calloc(2 * T, sizeof *tr);
  /* damped */
  double x[6] = {0, 0, 0, 1.5, 0, 0}; /* overlap 0.5 R */
  agglo_links L;
  assert_int_equal(agglo_links_init(&L, 2), 0);
  assert_int_equal(agglo_links_add(&L, 0, 1, 0.5), 0);
  agglo_dah_settings set;
  agglo_dah_defaults(&set);
  set.tol = 1e-6;
  agglo_dah_work *w = agglo_dah_work_new(2);
  agglo_dah_stats ds;
  assert_int_equal(agglo_dah_solve(&L, x, r, &box, seeds, 2, &set, w, &ds, tr, T), 0);
  assert_true(ds.converged);
  assert_int_equal(ds.restarts, 0);
  assert_true(ds.iterations < 1500);
  assert_true(fabs(dist(x, 0, 1) - 2.0) < 1e-5);
  assert_true(fabs(L.link[0].lambda - 0.5) < 1e-5);
  assert_true(ds.max_overlap < 1e-5);
  int ch;
  double amp;
  trace_stats(tr, 0, ds.iterations, &ch, &amp);
  /* the heavy ball may pass the contact a few times, each time much closer */
  double over = 0;
  for (int k = 0; k < ds.iterations; k++) over = fmax(over, tr[2 * k] - 2.0);
  print_message("DAH: %d iterations, %d sign changes of the gap, largest overshoot %.3g R\n",
                ds.iterations, ch, over);
  /* damped: a few passes through contact, each much closer than the last (the envelope of the
     gap shrinks by orders of magnitude), no sustained oscillation */
  int ch1, ch2;
  double amp1, amp2;
  int q = ds.iterations / 4;
  trace_stats(tr, 0, q, &ch1, &amp1);
  trace_stats(tr, 3 * q, ds.iterations, &ch2, &amp2);
  print_message("DAH: gap amplitude %.3g in the first quarter, %.3g in the last\n", amp1, amp2);
  assert_true(amp2 < 1e-2 * amp1);
  assert_true(ch <= 20);
  assert_true(over < 0.3);
  /* the centre of mass does not move */
  assert_true(fabs(x[0] + x[3] - 1.5) < 1e-9);
  /* plain Arrow-Hurwicz (c = 1, gamma = 0): X <- X - alpha grad L ; lambda <- max(0, lambda +
     beta phi), same alpha and beta: it keeps oscillating */
  double y[6] = {0, 0, 0, 1.5, 0, 0};
  L.link[0].lambda = 0.5;
  agglo_dah_settings plain = set;
  plain.c = 1, plain.gamma = 0, plain.adapt = 0, plain.max_iter = T, plain.max_restarts = 0;
  memset(tr, 0, 2 * T * sizeof *tr);
  assert_int_equal(agglo_dah_solve(&L, y, r, &box, seeds, 2, &plain, w, &ds, tr, T), 0);
  assert_false(ds.converged);
  int ch_late;
  double amp_late;
  trace_stats(tr, T - 1000, T, &ch_late, &amp_late);
  print_message("plain AH: after %d iterations, last 1000: %d sign changes, amplitude %.3g R\n",
                T, ch_late, amp_late);
  assert_true(ch_late >= 10);
  assert_true(amp_late > 0.05);
  free(tr);
  agglo_dah_work_free(w);
  agglo_links_free(&L);
}

/* Relax linked particles from x; check every link at contact within tol, no pair overlapping
   beyond tol. */
static void relax_and_check(int n, double *x, const int (*links)[2], int nl, int expect_links_contact) {
  agglo_box box = open_box();
  double *r = malloc(n * sizeof *r);
  int32_t *seeds = malloc(n * sizeof *seeds);
  for (int i = 0; i < n; i++) r[i] = 1, seeds[i] = i;
  agglo_links L;
  assert_int_equal(agglo_links_init(&L, n), 0);
  for (int l = 0; l < nl; l++) assert_int_equal(agglo_links_add(&L, links[l][0], links[l][1], 0.5), 0);
  agglo_dah_settings set;
  agglo_dah_defaults(&set);
  set.tol = 1e-5;
  agglo_dah_work *w = agglo_dah_work_new(n);
  agglo_dah_stats ds;
  assert_int_equal(agglo_dah_solve(&L, x, r, &box, seeds, n, &set, w, &ds, NULL, 0), 0);
  print_message("n = %d, %d links: %d iterations, %d restarts, overlap %.2g, stretch %.2g\n", n,
                nl, ds.iterations, ds.restarts, ds.max_overlap, ds.max_stretch);
  assert_true(ds.converged);
  for (int l = 0; l < nl; l++) {
    double d = dist(x, links[l][0], links[l][1]);
    assert_true(d > 2 - 2e-5);
    if (expect_links_contact) assert_true(d < 2 + 2e-4);
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) assert_true(dist(x, i, j) > 2 - 1e-3);
  free(r);
  free(seeds);
  agglo_dah_work_free(w);
  agglo_links_free(&L);
}

static void chain_relaxes_to_contacts(void **st) {
  (void)st;
  /* a zigzag chain of 6 discs pushed together (spacing 1.4 < 2) */
  double x[18];
  int links[5][2];
  for (int i = 0; i < 6; i++) {
    x[3 * i] = 1.2 * i, x[3 * i + 1] = (i % 2) * 0.7, x[3 * i + 2] = 0;
    if (i) links[i - 1][0] = i - 1, links[i - 1][1] = i;
  }
  relax_and_check(6, x, (const int(*)[2])links, 5, 1);
}

static void triangle_relaxes_to_contacts(void **st) {
  (void)st;
  double x[9] = {0, 0, 0, 1.5, 0, 0, 0.75, 1.2, 0};
  int links[3][2] = {{0, 1}, {1, 2}, {0, 2}};
  relax_and_check(3, x, (const int(*)[2])links, 3, 1);
  /* equilateral of side 2 */
  assert_true(fabs(dist(x, 0, 1) - 2) < 2e-4 && fabs(dist(x, 1, 2) - 2) < 2e-4);
}

static void tetrahedron_3d(void **st) {
  (void)st;
  double x[12] = {0, 0, 0, 1.6, 0, 0, 0.8, 1.3, 0, 0.8, 0.45, 1.3};
  int links[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  relax_and_check(4, x, (const int(*)[2])links, 6, 1);
}

/* A long chain at rest, one new overlapping link at its end: only a few particles move. */
static void solve_is_local(void **st) {
  (void)st;
  int n = 2001;
  double *x = calloc(3 * (size_t)n, sizeof *x), *r = malloc(n * sizeof *r);
  agglo_links L;
  assert_int_equal(agglo_links_init(&L, n), 0);
  for (int i = 0; i < n - 1; i++) {
    x[3 * i] = 2.0 * i, r[i] = 1;
    if (i) assert_int_equal(agglo_links_add(&L, i - 1, i, 0.5), 0);
  }
  /* particle n-1 comes in at an angle, overlapping the last chain particle by 0.3 R */
  r[n - 1] = 1;
  x[3 * (n - 1)] = 2.0 * (n - 2) + 1.7 * cos(1.0);
  x[3 * (n - 1) + 1] = 1.7 * sin(1.0);
  assert_int_equal(agglo_links_add(&L, n - 2, n - 1, 0.5), 0);
  agglo_box box = open_box();
  for (int k = 0; k < 3; k++) box.lo[k] = -10, box.hi[k] = 5000, box.len[k] = 5010;
  agglo_dah_settings set;
  agglo_dah_defaults(&set);
  agglo_dah_work *w = agglo_dah_work_new(n);
  agglo_dah_stats ds;
  int32_t seeds[2] = {n - 2, n - 1};
  assert_int_equal(agglo_dah_solve(&L, x, r, &box, seeds, 2, &set, w, &ds, NULL, 0), 0);
  print_message("local solve: %zu of %d particles moved, %d iterations\n", ds.active, n,
                ds.iterations);
  assert_true(ds.converged);
  assert_true(ds.active < 200);
  assert_true(fabs(dist(x, n - 2, n - 1) - 2) < 5e-3);
  assert_true(ds.max_overlap < 2e-3);
  free(x);
  free(r);
  agglo_dah_work_free(w);
  agglo_links_free(&L);
}

/* Coincident centres (a full head-on overlap): separated along a fixed axis to contact. */
static void coincident_centres(void **st) {
  (void)st;
  double x[6] = {3, 4, 0, 3, 4, 0};
  int links[1][2] = {{0, 1}};
  relax_and_check(2, x, (const int(*)[2])links, 1, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_spheres_dah_converges_plain_ah_oscillates),
      cmocka_unit_test(chain_relaxes_to_contacts),
      cmocka_unit_test(triangle_relaxes_to_contacts),
      cmocka_unit_test(tetrahedron_3d),
      cmocka_unit_test(solve_is_local),
      cmocka_unit_test(coincident_centres),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
