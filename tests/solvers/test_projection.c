/* The velocity projection (src/solvers/projection.c) on cases with exact answers, and its three methods
   (MPRGP, APGD, Uzawa) against each other at tight tolerance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "support.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cells.h"
#include "solvers/constraints.h"
#include "solvers/projection.h"
#include "core/rng.h"
#include "core/system.h"

static const agglo_solver_method methods[] = {AGGLO_SOLVER_MPRGP, AGGLO_SOLVER_APGD,
                                              AGGLO_SOLVER_UZAWA, AGGLO_SOLVER_ACTIVE_SET};
enum { nmethods = sizeof methods / sizeof *methods };
static const char *method_name[] = {"apgd", "uzawa", "mprgp", "active_set"};

/* A box [0, L]^dim, walls or periodic, n particles of radius r and mass 1 at rest. */
static void make_system(agglo_system *s, int dim, size_t n, double L, int periodic, double r) {
  assert_int_equal(agglo_system_alloc(s, dim, n), 0);
  cube_box(&s->box, dim, L, periodic);
  for (size_t i = 0; i < n; i++) s->r[i] = r, s->m[i] = 1, s->inv_m[i] = 1;
}

static void set_mass(agglo_system *s, size_t i, double m) {
  s->m[i] = m;
  s->inv_m[i] = 1 / m;
}

/* Contacts of every pair and wall closer than reach. */
static void contacts(const agglo_system *s, agglo_constraints *c, double reach) {
  agglo_neighbors nb = {0};
  assert_int_equal(agglo_neighbors_build(&nb, s, reach, 0), 0);
  memset(c, 0, sizeof *c);
  assert_int_equal(agglo_constraints_collect(c, s, &nb, reach), 0);
  agglo_neighbors_free(&nb);
}

static agglo_solver_settings settings(agglo_solver_method m, double tol) {
  agglo_solver_settings set = {.method = m, .tol = tol, .max_iter = 5000000, .rho_factor = 1};
  return set;
}

/* Index of the constraint (i, j), or -1. */
static long find_constraint(const agglo_constraints *c, int i, int j) {
  for (size_t k = 0; k < c->n; k++)
    if (c->i[k] == i && c->j[k] == j) return (long)k;
  return -1;
}

/* team_rows: MPRGP on components of at least this many rows by all threads together (0: none) */
static void solve_team(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                       double *v, agglo_solver_method m, double tol, agglo_solver_stats *st,
                       size_t team_rows) {
  agglo_solver_settings set = settings(m, tol);
  set.team_rows = team_rows;
  for (size_t k = 0; k < c->n; k++) c->lambda[k] = 0; /* cold start */
  assert_int_equal(agglo_project(s, c, h, vstar, v, &set, st), 0);
}

static void solve(const agglo_system *s, agglo_constraints *c, double h, const double *vstar,
                  double *v, agglo_solver_method m, double tol, agglo_solver_stats *st) {
  agglo_solver_settings set = settings(m, tol);
  for (size_t k = 0; k < c->n; k++) c->lambda[k] = 0; /* cold start */
  assert_int_equal(agglo_project(s, c, h, vstar, v, &set, st), 0);
}

/* ---------------------------------------------------------------- exact cases */

/* One particle (mass 2) flying into the wall x = 0: normal velocity cut to -D/h, tangential kept,
   impulse m (v - v*). The other walls are within reach but inactive. */
static void test_wall(void **state) {
  (void)state;
  for (int q = 0; q < 3; q++) {
    agglo_system s;
    make_system(&s, 2, 1, 1.0, AGGLO_WALL, 0.1);
    set_mass(&s, 0, 2.0);
    s.x[0] = 0.15, s.x[1] = 0.5; /* gap 0.05 to x = 0, 0.4 to y = 0 and y = 1 */
    agglo_constraints c;
    contacts(&s, &c, 0.5);
    assert_int_equal(c.n, 3);
    double h = 0.02, vstar[3] = {-5, 1, 0}, v[3];
    agglo_solver_stats st;
    solve(&s, &c, h, vstar, v, methods[q], 1e-14, &st);
    assert_true(st.converged);
    assert_true(fabs(v[0] - (-0.05 / h)) < 1e-12);
    assert_true(fabs(v[1] - 1.0) < 1e-12);
    long k = find_constraint(&c, 0, -1); /* wall 0: the low x face */
    assert_true(k >= 0);
    assert_true(fabs(c.lambda[k] - 2.0 * (-2.5 + 5.0)) < 1e-10);
    for (size_t kk = 0; kk < c.n; kk++)
      if ((long)kk != k) assert_true(c.lambda[kk] == 0);
    assert_true(fabs(agglo_constraint_gap_after(&c, (size_t)k, h, v)) < 1e-14);
    agglo_constraints_free(&c);
    agglo_system_free(&s);
  }
}

/* Two particles (masses 1 and 3) head-on: momentum conserved, relative normal velocity cut to
   -D/h, tangential velocities untouched. */
static void test_head_on(void **state) {
  (void)state;
  for (int q = 0; q < 3; q++) {
    agglo_system s;
    make_system(&s, 2, 2, 2.0, AGGLO_PERIODIC, 0.1);
    set_mass(&s, 1, 3.0);
    s.x[0] = 0.3, s.x[1] = 0.5, s.x[3] = 0.6, s.x[4] = 0.5; /* gap 0.1 */
    agglo_constraints c;
    contacts(&s, &c, 0.5);
    assert_int_equal(c.n, 1);
    double h = 0.05, vstar[6] = {4, 0.5, 0, -2, -0.25, 0}, v[6];
    agglo_solver_stats st;
    solve(&s, &c, h, vstar, v, methods[q], 1e-14, &st);
    assert_true(st.converged);
    assert_true(fabs(v[0] - 1.0) < 1e-12);
    assert_true(fabs(v[3] - (-1.0)) < 1e-12);
    assert_true(fabs(v[1] - 0.5) < 1e-15 && fabs(v[4] + 0.25) < 1e-15);
    assert_true(fabs((v[0] + 3 * v[3]) - (4 - 6)) < 1e-12); /* momentum */
    assert_true(fabs(c.lambda[0] - 3.0) < 1e-10);
    agglo_constraints_free(&c);
    agglo_system_free(&s);
  }
}

/* Three touching discs pushed to their centre: they cannot move, each contact carries
   |v*| / sqrt(3). Three in a line pushed together stop, with unit impulses. */
static void test_triangle_and_chain(void **state) {
  (void)state;
  for (int q = 0; q < 3; q++) {
    agglo_system s;
    make_system(&s, 2, 3, 2.0, AGGLO_PERIODIC, 0.1);
    double R = 0.2 / sqrt(3.0), cx = 1, cy = 1, vstar[9] = {0}, v[9];
    for (int i = 0; i < 3; i++) {
      double a = 2 * M_PI * i / 3 + 0.3;
      s.x[3 * i] = cx + R * cos(a), s.x[3 * i + 1] = cy + R * sin(a);
      vstar[3 * i] = -cos(a), vstar[3 * i + 1] = -sin(a);
    }
    agglo_constraints c;
    contacts(&s, &c, 0.05);
    assert_int_equal(c.n, 3);
    agglo_solver_stats st;
    solve(&s, &c, 0.01, vstar, v, methods[q], 1e-15, &st);
    assert_true(st.converged);
    for (int k = 0; k < 9; k++) assert_true(fabs(v[k]) < 1e-10);
    for (size_t k = 0; k < 3; k++) assert_true(fabs(c.lambda[k] - 1 / sqrt(3.0)) < 1e-9);
    agglo_constraints_free(&c);
    agglo_system_free(&s);

    make_system(&s, 2, 3, 2.0, AGGLO_PERIODIC, 0.1);
    double ch[9] = {1, 0, 0, 0, 0, 0, -1, 0, 0};
    for (int i = 0; i < 3; i++) s.x[3 * i] = 0.5 + 0.2 * i, s.x[3 * i + 1] = 1;
    contacts(&s, &c, 0.05);
    assert_int_equal(c.n, 2);
    solve(&s, &c, 0.01, ch, v, methods[q], 1e-15, &st);
    assert_true(st.converged);
    for (int k = 0; k < 9; k++) assert_true(fabs(v[k]) < 1e-10);
    assert_true(fabs(c.lambda[0] - 1) < 1e-9 && fabs(c.lambda[1] - 1) < 1e-9);
    agglo_constraints_free(&c);
    agglo_system_free(&s);
  }
}

/* Glued pairs (equality constraints, multipliers of either sign): a chain pulled apart keeps
   exactly zero gap velocity, with tractions (negative impulses). One more pair, an ordinary
   contact, opens freely. */
static void test_equality(void **state) {
  (void)state;
  for (int q = 0; q < nmethods; q++) {
    agglo_system s;
    make_system(&s, 2, 4, 4.0, AGGLO_PERIODIC, 0.1);
    /* chain 0-1-2 with gaps 0.02, particle 3 beside 2 with gap 0.01 */
    for (int i = 0; i < 3; i++) s.x[3 * i] = 1 + 0.22 * i, s.x[3 * i + 1] = 1;
    s.x[9] = 1.44, s.x[10] = 1.21;
    agglo_constraints c;
    contacts(&s, &c, 0.05);
    long k01 = find_constraint(&c, 0, 1), k12 = find_constraint(&c, 1, 2),
         k23 = find_constraint(&c, 2, 3);
    assert_true(k01 >= 0 && k12 >= 0 && k23 >= 0);
    assert_int_equal(c.n, 3);
    c.equality[k01] = c.equality[k12] = 1;
    double h = 0.1, vstar[12] = {-1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}, v[12];
    agglo_solver_stats st;
    agglo_solver_settings set = settings(methods[q], 1e-14);
    assert_int_equal(agglo_project(&s, &c, h, vstar, v, &set, &st), 0);
    assert_true(st.converged);
    assert_true(fabs(agglo_constraint_gap_after(&c, (size_t)k01, h, v)) < 1e-13);
    assert_true(fabs(agglo_constraint_gap_after(&c, (size_t)k12, h, v)) < 1e-13);
    assert_true(fabs(v[0] - 0.2) < 1e-11 && fabs(v[3]) < 1e-11 && fabs(v[6] + 0.2) < 1e-11);
    assert_true(c.lambda[k01] < 0 && c.lambda[k12] < 0);
    assert_true(fabs(c.lambda[k01] + 1.2) < 1e-9);
    assert_true(c.lambda[k23] == 0); /* 3 leaves upwards, the contact opens */
    assert_true(fabs(v[9]) < 1e-15 && fabs(v[10] - 1) < 1e-15);
    agglo_constraints_free(&c);
    agglo_system_free(&s);
  }
}

/* ---------------------------------------------------------------- a dense random case */

typedef struct {
  agglo_system s;
  agglo_constraints c;
  double *vstar, h;
} dense_case;

/* n discs at area fraction phi in a periodic square, random sequential placement, pushed
   towards the centre (speed push * distance) plus noise (normal, noise per component). */
static void make_dense(dense_case *d, size_t n, double phi, double noise, double push,
                       uint64_t seed) {
  double r = 0.01, area = 0;
  double *rad = malloc(n * sizeof *rad);
  for (size_t i = 0; i < n; i++) {
    double u[4];
    agglo_rng_uniform4(seed, AGGLO_STREAM_RADIUS, 0, i, u);
    rad[i] = r * (0.85 + 0.3 * u[0]);
    area += M_PI * rad[i] * rad[i];
  }
  double L = sqrt(area / phi);
  make_system(&d->s, 2, n, L, AGGLO_PERIODIC, r);
  agglo_system *s = &d->s;
  for (size_t i = 0; i < n; i++) {
    s->r[i] = rad[i];
    set_mass(s, i, pow(rad[i] / r, 3));
    for (uint64_t attempt = 0;; attempt++) {
      double u[4];
      agglo_rng_uniform4(seed, AGGLO_STREAM_PLACEMENT, attempt, i, u);
      s->x[3 * i] = L * u[0], s->x[3 * i + 1] = L * u[1];
      int ok = 1;
      for (size_t j = 0; j < i && ok; j++) {
        double dd[3];
        agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, dd);
        ok = hypot(dd[0], dd[1]) > rad[i] + rad[j];
      }
      if (ok) break;
      assert_true(attempt < 100000);
    }
  }
  free(rad);
  d->h = 0.02;
  d->vstar = calloc(3 * n, sizeof *d->vstar);
  double vmax = 0;
  for (size_t i = 0; i < n; i++) {
    double z[4];
    agglo_rng_normal4(seed, AGGLO_STREAM_BROWNIAN, 0, i, z);
    for (int k = 0; k < 2; k++) {
      double toward = 0.5 * L - s->x[3 * i + k];
      d->vstar[3 * i + k] = noise * z[k] + push * toward;
    }
    vmax = fmax(vmax, hypot(d->vstar[3 * i], d->vstar[3 * i + 1]));
  }
  contacts(s, &d->c, fmax(0.5 * r, 2.5 * d->h * vmax));
}

static void free_dense(dense_case *d) {
  agglo_constraints_free(&d->c);
  agglo_system_free(&d->s);
  free(d->vstar);
}

/* A triangular patch of touching equal discs (three contacts per disc on two degrees of freedom:
   redundant), squeezed and shaken: dense clumps, the hard case of the solvers. */
static void make_lattice(dense_case *d, int nx, int ny, uint64_t seed) {
  double r = 0.01, L = 4 * r * (nx > ny ? nx : ny);
  size_t n = (size_t)nx * (size_t)ny;
  make_system(&d->s, 2, n, L, AGGLO_PERIODIC, r);
  double cx = 0, cy = 0;
  for (int b = 0; b < ny; b++)
    for (int a = 0; a < nx; a++) {
      size_t i = (size_t)b * nx + a;
      d->s.x[3 * i] = L / 4 + 2 * r * (a + 0.5 * (b % 2));
      d->s.x[3 * i + 1] = L / 4 + sqrt(3.0) * r * b;
      cx += d->s.x[3 * i] / n, cy += d->s.x[3 * i + 1] / n;
    }
  d->h = 0.02;
  d->vstar = calloc(3 * n, sizeof *d->vstar);
  for (size_t i = 0; i < n; i++) {
    double z[4];
    agglo_rng_normal4(seed, AGGLO_STREAM_BROWNIAN, 0, i, z);
    d->vstar[3 * i] = 0.2 * z[0] + 2 * (cx - d->s.x[3 * i]);
    d->vstar[3 * i + 1] = 0.2 * z[1] + 2 * (cy - d->s.x[3 * i + 1]);
  }
  contacts(&d->s, &d->c, 0.5 * r);
}

/* The four methods give the same velocities (the projection is unique, the multipliers need
   not be when contacts are redundant) at a tight tolerance, and each meets it. */
static void methods_agree(dense_case *dc);
static void test_methods_agree(void **state) {
  (void)state;
  dense_case d;
  make_dense(&d, 200, 0.5, 0.3, 0.8, 3);
  methods_agree(&d);
  make_lattice(&d, 15, 14, 3);
  methods_agree(&d);
}

/* (the last variant: MPRGP with each component solved by all threads together, in blocks) */
static void methods_agree(dense_case *dc) {
  dense_case d = *dc;
  size_t n3 = 3 * d.s.n;
  double *v[nmethods + 1];
  int active = 0;
  for (int q = 0; q <= nmethods; q++) {
    v[q] = malloc(n3 * sizeof *v[q]);
    agglo_solver_stats st;
    double tol = 1e-12 * 0.01;
    solve_team(&d.s, &d.c, d.h, d.vstar, v[q], q < nmethods ? methods[q] : AGGLO_SOLVER_MPRGP,
               tol, &st, q < nmethods ? 0 : 1);
    assert_true(st.converged);
    assert_true(st.residual <= tol * 1.0001);
    assert_true(st.max_violation <= tol * 1.0001);
    assert_true(st.iterations > 0);
    if (q == 0)
      for (size_t k = 0; k < d.c.n; k++) active += d.c.lambda[k] > 0;
    print_message("%s: %d iterations (%zu constraints, %d active, %zu components)\n",
                  q < nmethods ? method_name[methods[q]] : "mprgp (team)", st.iterations, d.c.n,
                  active, st.components);
  }
  assert_true(active > 100);
  for (int q = 1; q <= nmethods; q++)
    for (size_t k = 0; k < n3; k++) {
      double dv = fabs(v[q][k] - v[0][k]);
      if (dv > 1e-8)
        fail_msg("%s and mprgp differ by %g at %zu",
                 q < nmethods ? method_name[methods[q]] : "mprgp (team)", dv, k);
    }
  for (int q = 0; q <= nmethods; q++) free(v[q]);
  free_dense(&d);
}

/* Glued networks (gluey model): every contact of a squeezed triangular patch an equality, as
   in a glued heap. The rows are redundant (three per disc on two degrees of freedom) but
   consistent; MPRGP and the active set give the same velocities, and the active set needs a
   handful of factorisations where MPRGP needs hundreds of products. */
static void test_glued_patch(void **state) {
  (void)state;
  dense_case d;
  make_lattice(&d, 15, 14, 5);
  for (size_t k = 0; k < d.c.n; k++) d.c.equality[k] = 1;
  size_t n3 = 3 * d.s.n;
  double *v0 = malloc(n3 * sizeof *v0), *v1 = malloc(n3 * sizeof *v1), tol = 1e-14;
  agglo_solver_stats a, b;
  solve(&d.s, &d.c, d.h, d.vstar, v0, AGGLO_SOLVER_MPRGP, tol, &a);
  solve(&d.s, &d.c, d.h, d.vstar, v1, AGGLO_SOLVER_ACTIVE_SET, tol, &b);
  print_message("glued patch, %zu rows: mprgp %d products, active set %d steps\n", d.c.n,
                a.iterations, b.iterations);
  assert_true(a.converged && b.converged);
  assert_true(b.iterations <= 3);
  assert_true(b.max_violation <= tol * 1.0001);
  for (size_t k = 0; k < n3; k++) assert_true(fabs(v0[k] - v1[k]) < 1e-9);
  free(v0), free(v1);
  free_dense(&d);
}

/* Compliance c: a closed row gives way by c times the displacement its impulse causes,
   D + h G.v = -c h lambda (1/m_i + 1/m_j), exactly; MPRGP and the active set agree. */
static void test_compliance(void **state) {
  (void)state;
  dense_case d;
  make_dense(&d, 200, 0.5, 0.3, 0.8, 3);
  size_t n3 = 3 * d.s.n;
  double *v[2], c = 1e-3, tol = 1e-14;
  agglo_solver_method ms[2] = {AGGLO_SOLVER_MPRGP, AGGLO_SOLVER_ACTIVE_SET};
  int pushing = 0;
  for (int q = 0; q < 2; q++) {
    v[q] = malloc(n3 * sizeof *v[q]);
    agglo_solver_settings set = settings(ms[q], tol);
    set.compliance = c;
    agglo_solver_stats st;
    for (size_t k = 0; k < d.c.n; k++) d.c.lambda[k] = 0;
    assert_int_equal(agglo_project(&d.s, &d.c, d.h, d.vstar, v[q], &set, &st), 0);
    assert_true(st.converged);
    for (size_t k = 0; k < d.c.n; k++) {
      if (!(d.c.lambda[k] > 0)) continue;
      pushing++;
      double w = d.s.inv_m[d.c.i[k]] + (d.c.j[k] >= 0 ? d.s.inv_m[d.c.j[k]] : 0);
      double give = c * d.h * d.c.lambda[k] * w;
      assert_true(fabs(agglo_constraint_gap_after(&d.c, k, d.h, v[q]) + give) < 2 * tol);
    }
  }
  assert_true(pushing > 200);
  for (size_t k = 0; k < n3; k++) assert_true(fabs(v[0][k] - v[1][k]) < 1e-9);
  free(v[0]), free(v[1]);
  free_dense(&d);
}

/* Iterations and convergence are reported: a cap too small is reported as not converged. */
static void test_reports(void **state) {
  (void)state;
  dense_case d;
  make_dense(&d, 200, 0.5, 0.3, 0.8, 4);
  double *v = malloc(3 * d.s.n * sizeof *v);
  for (int q = 0; q < 3; q++) {
    agglo_solver_settings set = settings(methods[q], 1e-10);
    set.max_iter = 3;
    agglo_solver_stats st;
    for (size_t k = 0; k < d.c.n; k++) d.c.lambda[k] = 0;
    assert_int_equal(agglo_project(&d.s, &d.c, d.h, d.vstar, v, &set, &st), 0);
    assert_false(st.converged);
    assert_true(st.iterations <= 3 && st.iterations > 0);
    assert_true(st.residual > 1e-10);
    set.max_iter = 1000000;
    assert_int_equal(agglo_project(&d.s, &d.c, d.h, d.vstar, v, &set, &st), 0);
    assert_true(st.converged);
    assert_true(st.components >= 1 && st.largest_component >= 1);
    assert_true(st.mean_iterations <= st.iterations);
  }
  free(v);
  free_dense(&d);
}

/* The same problem solved with 1 and 2 threads gives the same bits. */
static void test_threads(void **state) {
  (void)state;
  dense_case d;
  make_dense(&d, 400, 0.45, 0.1, 0.5, 5);
  size_t n3 = 3 * d.s.n;
  double *v1 = malloc(n3 * sizeof *v1), *v2 = malloc(n3 * sizeof *v2);
  double *l1 = malloc(d.c.n * sizeof *l1);
  for (int q = 0; q < 3; q++) {
    agglo_solver_stats st;
    omp_set_num_threads(1);
    solve(&d.s, &d.c, d.h, d.vstar, v1, methods[q], 1e-6 * 0.01, &st);
    memcpy(l1, d.c.lambda, d.c.n * sizeof *l1);
    omp_set_num_threads(2);
    solve(&d.s, &d.c, d.h, d.vstar, v2, methods[q], 1e-6 * 0.01, &st);
    assert_memory_equal(v1, v2, n3 * sizeof *v1);
    assert_memory_equal(l1, d.c.lambda, d.c.n * sizeof *l1);
  }
  free(v1), free(v2), free(l1);
  free_dense(&d);
}

/* One component of several blocks of rows solved by a team of 1, 2 and 3 threads (uneven
   shares): the same bits, converged at a tight tolerance, and the same velocities as one
   thread alone on the component to the tolerance. */
static void test_team_threads(void **state) {
  (void)state;
  dense_case d;
  make_lattice(&d, 70, 60, 7);
  size_t n3 = 3 * d.s.n;
  assert_true(d.c.n > 3 * 4096);
  double *v0 = malloc(n3 * sizeof *v0), *v1 = malloc(n3 * sizeof *v1),
         *v2 = malloc(n3 * sizeof *v2), *l1 = malloc(d.c.n * sizeof *l1);
  agglo_solver_stats st;
  double tol = 1e-8 * 0.01;
  solve_team(&d.s, &d.c, d.h, d.vstar, v0, AGGLO_SOLVER_MPRGP, tol, &st, 0);
  assert_true(st.converged);
  for (int threads = 1; threads <= 3; threads++) {
    omp_set_num_threads(threads);
    solve_team(&d.s, &d.c, d.h, d.vstar, threads == 1 ? v1 : v2, AGGLO_SOLVER_MPRGP, tol, &st,
               1000);
    assert_true(st.converged);
    assert_true(st.components == 1 && st.largest_component == d.c.n);
    assert_true(st.residual <= tol * 1.0001 && st.max_violation <= tol * 1.0001);
    if (threads == 1) {
      memcpy(l1, d.c.lambda, d.c.n * sizeof *l1);
      print_message("team: %d iterations, %zu constraints\n", st.iterations, d.c.n);
      continue;
    }
    assert_memory_equal(v1, v2, n3 * sizeof *v1);
    assert_memory_equal(l1, d.c.lambda, d.c.n * sizeof *l1);
  }
  for (size_t k = 0; k < n3; k++)
    if (fabs(v1[k] - v0[k]) > 1e-6) fail_msg("team and one thread differ by %g", fabs(v1[k] - v0[k]));
  omp_set_num_threads(2);
  free(v0), free(v1), free(v2), free(l1);
  free_dense(&d);
}

/* Solving only some components leaves the others as they were, and the warm start from the
   answer needs at most one product by A per component to confirm it. */
static void test_partial_and_warm(void **state) {
  (void)state;
  dense_case d;
  make_dense(&d, 300, 0.25, 0.02, 0.1, 6);
  size_t n = d.s.n;
  double *v = malloc(3 * n * sizeof *v), *w = malloc(3 * n * sizeof *w);
  agglo_solver_settings set = settings(AGGLO_SOLVER_MPRGP, 1e-8);
  agglo_solver_stats st;
  for (size_t k = 0; k < d.c.n; k++) d.c.lambda[k] = 0;
  assert_int_equal(agglo_project(&d.s, &d.c, d.h, d.vstar, v, &set, &st), 0);
  size_t comps = st.components;
  assert_true(comps > 1);
  memcpy(w, v, 3 * n * sizeof *w);
  assert_int_equal(agglo_project(&d.s, &d.c, d.h, d.vstar, w, &set, &st), 0);
  assert_true(st.iterations <= 1);
  for (size_t p = 0; p < 3 * n; p++) assert_true(fabs(v[p] - w[p]) <= 1e-14);
  uint8_t *only = calloc(n + 1, 1);
  assert_non_null(only);
  only[d.c.i[0]] = 1;
  for (size_t p = 0; p < 3 * n; p++) w[p] = 12345; /* untouched outside the chosen component */
  assert_int_equal(agglo_project_some(&d.s, &d.c, d.h, d.vstar, w, &set, &st, only), 0);
  assert_int_equal(st.components, 1);
  size_t touched = 0;
  for (size_t p = 0; p < n; p++) touched += w[3 * p] != 12345;
  assert_true(touched >= 2 && touched < n);
  assert_true(fabs(w[3 * (size_t)d.c.i[0]] - v[3 * (size_t)d.c.i[0]]) <= 1e-14);
  free(only);
  free(v), free(w);
  free_dense(&d);
}

/* The contact model's selection: a pair left out (gap above the margin, not closing at its a
   priori velocities) that the answer makes overlap is found, added and solved; the result is
   the projection with every pair as a constraint. A pushes B into C. */
static void test_missed_pair(void **state) {
  (void)state;
  agglo_system s;
  make_system(&s, 2, 3, 1.0, AGGLO_PERIODIC, 0.01);
  s.x[0] = 0.2, s.x[3] = 0.221, s.x[6] = 0.249; /* gaps A-B 0.1 r, B-C 0.8 r */
  s.x[1] = s.x[4] = s.x[7] = 0.5;
  double h = 0.02, vstar[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0}, v[9], w[9];
  agglo_neighbors nb = {0};
  assert_int_equal(agglo_neighbors_build(&nb, &s, 0.05, 0), 0);
  agglo_constraints c = {0};
  agglo_solver_settings set = settings(AGGLO_SOLVER_MPRGP, 1e-14);
  agglo_solver_stats st;
  assert_int_equal(
      agglo_constraints_collect_moving(&c, &s, &nb, 0.005, h, 1.0, 0.05, vstar, NULL), 0);
  assert_int_equal(c.n, 1); /* A-B only */
  assert_int_equal(agglo_project(&s, &c, h, vstar, v, &set, &st), 0);
  uint8_t mark[3] = {0, 0, 0};
  assert_int_equal(agglo_constraints_count_missed(&c, &s, &nb, h, v, mark), 1);
  assert_true(!mark[0] && mark[1] && mark[2]);
  assert_int_equal(agglo_constraints_add_missed(&c, &s, &nb), 0);
  assert_int_equal(c.n, 2);
  assert_true(find_constraint(&c, 1, 2) >= 0);
  assert_int_equal(agglo_project_some(&s, &c, h, vstar, v, &set, &st, mark), 0);
  assert_true(st.converged);
  assert_int_equal(agglo_constraints_count_missed(&c, &s, &nb, h, v, NULL), 0);
  /* the same as with every pair within reach */
  agglo_constraints all;
  contacts(&s, &all, 0.05);
  assert_int_equal(all.n, 3);
  solve(&s, &all, h, vstar, w, AGGLO_SOLVER_MPRGP, 1e-14, &st);
  for (int k = 0; k < 9; k++) assert_true(fabs(v[k] - w[k]) < 1e-12);
  assert_true(fabs(v[0] + v[3] + v[6] - 1) < 1e-12); /* momentum */
  agglo_constraints_free(&all);
  agglo_constraints_free(&c);
  agglo_neighbors_free(&nb);
  agglo_system_free(&s);
}

/* MPRGP's two expansion steps (solver.expansion) on a random dense case and a squeezed lattice,
   by one thread and by a team: each meets a tight tolerance (KKT residual and overlap, from the
   multipliers and velocities it returns), both give the same velocities and multipliers (the
   lattice's redundant contacts aside: their multipliers need not be unique), and at the run's
   tolerance (1e-3 r) the projected conjugate gradient step needs fewer products. A team updates
   that step's gradient sparsely (A of the clipped rows' change) instead of a product: it meets
   the same tolerances, agrees as closely, and needs fewer products than one thread alone. */
static void expansions_agree(dense_case *d, int unique) {
  size_t n3 = 3 * d->s.n, m = d->c.n;
  double *v[2], *lam[2];
  int its[2], alone[2] = {0, 0};
  for (int team = 0; team < 2; team++)
    for (int rough = 0; rough < 2; rough++) {
      double tol = rough ? 1e-3 * 0.01 : 1e-12 * 0.01;
      for (int q = 0; q < 2; q++) {
        agglo_solver_settings set = settings(AGGLO_SOLVER_MPRGP, tol);
        set.expansion = q ? AGGLO_EXPANSION_GRADIENT : AGGLO_EXPANSION_PROJECTED_CG;
        set.team_rows = team ? 1000 : 0;
        v[q] = malloc(n3 * sizeof *v[q]);
        lam[q] = malloc(m * sizeof *lam[q]);
        agglo_solver_stats st;
        for (size_t k = 0; k < m; k++) d->c.lambda[k] = 0;
        assert_int_equal(agglo_project(&d->s, &d->c, d->h, d->vstar, v[q], &set, &st), 0);
        assert_true(st.converged);
        assert_true(st.residual <= tol * 1.0001 && st.max_violation <= tol * 1.0001);
        memcpy(lam[q], d->c.lambda, m * sizeof *lam[q]);
        its[q] = st.iterations;
      }
      print_message("%s, tol %g: %d products (projected cg), %d (gradient), %zu rows\n",
                    team ? "team" : "alone", tol, its[0], its[1], m);
      if (!team) alone[rough] = its[0];
      else assert_true(its[0] < alone[rough]);
      if (rough) assert_true(its[0] < its[1]);
      else {
        for (size_t k = 0; k < n3; k++)
          if (fabs(v[0][k] - v[1][k]) > 1e-8) fail_msg("velocities differ by %g", fabs(v[0][k] - v[1][k]));
        for (size_t k = 0; k < m && unique; k++) { /* impulse times h (1/m_i + 1/m_j): a length */
          double w = d->s.inv_m[d->c.i[k]] + (d->c.j[k] >= 0 ? d->s.inv_m[d->c.j[k]] : 0);
          if (d->h * w * fabs(lam[0][k] - lam[1][k]) > 1e-8) fail_msg("multipliers differ at %zu", k);
        }
      }
      for (int q = 0; q < 2; q++) free(v[q]), free(lam[q]);
    }
  free_dense(d);
}
static void test_expansions_agree(void **state) {
  (void)state;
  dense_case d;
  make_dense(&d, 500, 0.5, 0.3, 0.8, 8);
  expansions_agree(&d, 1);
  make_lattice(&d, 40, 40, 8);
  expansions_agree(&d, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wall),
      cmocka_unit_test(test_head_on),
      cmocka_unit_test(test_triangle_and_chain),
      cmocka_unit_test(test_equality),
      cmocka_unit_test(test_methods_agree),
      cmocka_unit_test(test_glued_patch),
      cmocka_unit_test(test_compliance),
      cmocka_unit_test(test_reports),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_team_threads),
      cmocka_unit_test(test_expansions_agree),
      cmocka_unit_test(test_partial_and_warm),
      cmocka_unit_test(test_missed_pair),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
