/* Ballistic aggregation: the exact event-driven model against hand calculations and
   conservation laws, and the time-stepping model's invariants and convergence to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/ballistic_compare.h"
#include "models/ballistic_frames.h"
#include "core/cells.h"
#include "config/config.h"
#include "core/model.h"
#include "core/setup.h"
#include "analysis/frame_summary.h"
#include "models/ballistic_config.h"

static void base_config(agglo_config *c, int method) {
  agglo_config_defaults(c);
  c->model = &agglo_ballistic_entry;
  agglo_ballistic_edit(c)->method = method;
  c->radius = 1;
  c->radius_spread = 0;
}

/* A hand-made system of n unit discs (mass 1) in a box of side L. */
static void make_system(agglo_system *s, int dim, size_t n, double L, int periodic) {
  assert_int_equal(agglo_system_alloc(s, dim, n), 0);
  for (size_t i = 0; i < n; i++) s->r[i] = 1, s->m[i] = 1, s->inv_m[i] = 1;
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = 0;
    s->box.len[k] = k < dim ? L : 2;
    if (k >= dim) s->box.lo[k] = -1;
    s->box.hi[k] = s->box.lo[k] + s->box.len[k];
    s->box.periodic[k] = k < dim ? periodic : 0;
  }
}

static void run_to_end(const agglo_model *m, agglo_system *s, const agglo_config *c) {
  void *st = NULL;
  char err[256];
  assert_int_equal(m->init(&st, s, c, err, sizeof err), 0);
  agglo_step_info info = {0};
  int steps = 0;
  while (!info.finished && steps < 100000) {
    assert_int_equal(m->step(st, s, &info, err, sizeof err), 0);
    steps++;
  }
  assert_true(info.finished);
  m->destroy(st);
}

static double dist(const agglo_system *s, size_t i, size_t j) {
  double d[3];
  agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* ---- event driven ---- */

static void ed_two_sphere_collision_time(void **st) {
  (void)st;
  agglo_config c;
  base_config(&c, BALL_EVENT_DRIVEN);
  agglo_system s;
  make_system(&s, 2, 2, 100, 1);
  double x0[2] = {10, 20}, x1[2] = {17, 21.3}, v0[2] = {1, 0.2}, v1[2] = {-0.5, 0.05};
  s.m[1] = 2, s.inv_m[1] = 0.5;
  for (int k = 0; k < 2; k++) s.x[k] = x0[k], s.x[3 + k] = x1[k], s.v[k] = v0[k], s.v[3 + k] = v1[k];
  /* closed form: |dX + t dV| = 2 */
  double dX[2] = {x0[0] - x1[0], x0[1] - x1[1]}, dV[2] = {v0[0] - v1[0], v0[1] - v1[1]};
  double a = dV[0] * dV[0] + dV[1] * dV[1], b = dX[0] * dV[0] + dX[1] * dV[1];
  double cc = dX[0] * dX[0] + dX[1] * dX[1] - 4;
  double t_hand = (-b - sqrt(b * b - a * cc)) / a;
  run_to_end(&agglo_model_ballistic_ed, &s, &c);
  print_message("contact at t = %.15g (closed form %.15g)\n", s.t, t_hand);
  assert_true(fabs(s.t - t_hand) < 1e-12 * t_hand);
  assert_true(fabs(dist(&s, 0, 1) - 2) < 1e-12);
  /* merged: common velocity = momentum / mass */
  for (int k = 0; k < 2; k++) {
    double V = (v0[k] + 2 * v1[k]) / 3;
    assert_true(fabs(s.v[k] - V) < 1e-15 && fabs(s.v[3 + k] - V) < 1e-15);
  }
  agglo_system_free(&s);
}

/* Three discs on a line: A (0,0) moving +1 hits B (10,0) at rest at t = 8; AB then moves at 1/2
   and meets C, coming from (24, 0.5) at -1, when 24 - t - (10 + (t - 8)/2) = sqrt(4 - 0.25). */
static void ed_three_spheres_by_hand(void **st) {
  (void)st;
  agglo_config c;
  base_config(&c, BALL_EVENT_DRIVEN);
  agglo_system s;
  make_system(&s, 2, 3, 100, 0);
  double X[3][2] = {{20, 50}, {30, 50}, {44, 50.5}}, V[3] = {1, 0, -1};
  for (int i = 0; i < 3; i++) s.x[3 * i] = X[i][0], s.x[3 * i + 1] = X[i][1], s.v[3 * i] = V[i];
  /* stop just after the first merge */
  agglo_ballistic_edit(&c)->stop = BALL_STOP_T_END;
  c.t_end = 8.5;
  agglo_system s1;
  make_system(&s1, 2, 3, 100, 0);
  memcpy(s1.x, s.x, 9 * sizeof(double));
  memcpy(s1.v, s.v, 9 * sizeof(double));
  run_to_end(&agglo_model_ballistic_ed, &s1, &c);
  assert_true(fabs(s1.t - 8.5) < 1e-12);
  assert_true(fabs(s1.x[0] - (28 + 0.25)) < 1e-12 && fabs(s1.x[3] - (30 + 0.25)) < 1e-12);
  assert_true(fabs(s1.v[0] - 0.5) < 1e-15 && fabs(s1.v[3] - 0.5) < 1e-15 && s1.v[6] == -1);
  agglo_system_free(&s1);
  agglo_ballistic_edit(&c)->stop = BALL_STOP_ONE_CLUSTER;
  run_to_end(&agglo_model_ballistic_ed, &s, &c);
  double t2 = (24 - 10 + 4 - sqrt(3.75)) / 1.5;
  print_message("second merge at t = %.15g (by hand %.15g)\n", s.t, t2);
  assert_true(fabs(s.t - t2) < 1e-12);
  assert_true(fabs(s.x[0] - (28 + 0.5 * (t2 - 8))) < 1e-12);
  assert_true(fabs(s.x[6] - (44 - t2)) < 1e-12);
  for (int i = 0; i < 3; i++) assert_true(fabs(s.v[3 * i]) < 1e-15); /* (1 + 0 - 1)/3 */
  agglo_system_free(&s);
}

/* Two discs, walls: one reflects off x = 0 at t = 4 and then catches the other at t = 16. */
static void ed_wall_then_merge(void **st) {
  (void)st;
  agglo_config c;
  base_config(&c, BALL_EVENT_DRIVEN);
  agglo_system s;
  make_system(&s, 2, 2, 20, 0);
  s.x[0] = 5, s.x[1] = 10, s.v[0] = -1;
  s.x[3] = 15, s.x[4] = 10;
  run_to_end(&agglo_model_ballistic_ed, &s, &c);
  assert_true(fabs(s.t - 16) < 1e-12);
  assert_true(fabs(s.v[0] - 0.5) < 1e-15 && fabs(s.v[3] - 0.5) < 1e-15);
  assert_true(fabs(s.x[0] - 13) < 1e-12 && fabs(s.x[3] - 15) < 1e-12);
  agglo_system_free(&s);
}

static void total_momentum(const agglo_system *s, double P[3], double *M) {
  P[0] = P[1] = P[2] = 0;
  *M = 0;
  for (size_t i = 0; i < s->n; i++) {
    for (int k = 0; k < 3; k++) P[k] += s->m[i] * s->v[3 * i + k];
    *M += s->m[i];
  }
}

/* Brute force: the smallest gap over all pairs, relative to the radii. */
static double min_rel_gap(const agglo_system *s) {
  double g = INFINITY;
  for (size_t i = 0; i < s->n; i++)
    for (size_t j = i + 1; j < s->n; j++) {
      double q = dist(s, i, j) / (s->r[i] + s->r[j]) - 1;
      if (q < g) g = q;
    }
  return g;
}

/* Every member of a cluster has the cluster's velocity. */
static void check_cluster_velocities(const agglo_model *m, void *state, agglo_system *s) {
  size_t nc, mx;
  assert_int_equal(m->labels(state, s, &nc, &mx), 0);
  for (size_t i = 0; i < s->n; i++)
    for (size_t j = i + 1; j < s->n; j++)
      if (s->cluster[i] == s->cluster[j])
        for (int k = 0; k < 3; k++) assert_true(s->v[3 * i + k] == s->v[3 * j + k]);
}

/* N discs, periodic (2D) or 3D: momentum to round-off at every step, no overlap ever, cluster
   velocities shared, mass conserved; also for the time stepping up to its tolerance. */
static void conservation_run(int method, int dim, int periodic, size_t n) {
  agglo_config c;
  base_config(&c, method);
  c.dim = dim;
  c.n = (int64_t)n;
  c.placement = PLACE_RANDOM;
  c.fraction = dim == 2 ? 0.15 : 0.08;
  c.size.n = 0;
  c.boundary.n = 1, c.boundary.v[0] = periodic;
  c.radius_spread = 0.15;
  c.seed = 3;
  agglo_system s;
  char err[256];
  assert_int_equal(agglo_config_validate(&c, err, sizeof err), 0);
  assert_int_equal(agglo_setup(&s, &c, err, sizeof err), 0);
  const agglo_model *m = agglo_model_select(&c);
  void *state;
  assert_int_equal(m->init(&state, &s, &c, err, sizeof err), 0);
  double P0[3], M0;
  total_momentum(&s, P0, &M0);
  double pscale = 0;
  for (size_t i = 0; i < n; i++)
    pscale += s.m[i] * sqrt(s.v[3 * i] * s.v[3 * i] + s.v[3 * i + 1] * s.v[3 * i + 1]);
  agglo_step_info info = {0};
  double worst_p = 0, worst_gap = INFINITY;
  int steps = 0;
  size_t last_nc = n;
  double *xprev = malloc(3 * n * sizeof *xprev);
  int32_t *lprev = malloc(n * sizeof *lprev);
  size_t nc, mx;
  while (!info.finished) {
    memcpy(xprev, s.x, 3 * n * sizeof *xprev);
    assert_int_equal(m->labels(state, &s, &nc, &mx), 0);
    memcpy(lprev, s.cluster, n * sizeof *lprev);
    double tprev = s.t;
    assert_int_equal(m->step(state, &s, &info, err, sizeof err), 0);
    steps++;
    double P[3], M;
    total_momentum(&s, P, &M);
    assert_true(fabs(M - M0) < 1e-12 * M0);
    if (periodic)
      for (int k = 0; k < 3; k++) worst_p = fmax(worst_p, fabs(P[k] - P0[k]) / pscale);
    if (steps % 4 == 0 || info.finished) {
      worst_gap = fmin(worst_gap, min_rel_gap(&s));
      check_cluster_velocities(m, state, &s);
    }
    assert_int_equal(m->labels(state, &s, &nc, &mx), 0);
    assert_true(nc <= last_nc);
    /* clusters that did not merge moved rigidly: v dt (time stepping: v of the end of the step
       is the pre-step velocity of an unmerged cluster) */
    if (method == BALL_TIME_STEPPING && periodic) {
      double dt = s.t - tprev;
      size_t *cnt_prev = calloc(n, sizeof *cnt_prev), *cnt_now = calloc(n, sizeof *cnt_now);
      for (size_t i = 0; i < n; i++) cnt_prev[lprev[i]]++, cnt_now[s.cluster[i]]++;
      for (size_t i = 0; i < n; i++) {
        if (cnt_prev[lprev[i]] != cnt_now[s.cluster[i]] || lprev[i] != s.cluster[i]) continue;
        double d[3];
        agglo_box_delta(&s.box, xprev + 3 * i, s.x + 3 * i, d);
        for (int k = 0; k < dim; k++) assert_true(fabs(d[k] - dt * s.v[3 * i + k]) < 1e-9);
      }
      free(cnt_prev);
      free(cnt_now);
    }
    last_nc = nc;
    if (method == BALL_TIME_STEPPING) {
      /* no residual overlap above the tolerance (phi/(ri+rj)^2 < tol: overlap < tol (ri+rj)/2) */
      assert_true(info.max_violation < agglo_ballistic_edit(&c)->tol * 2.3);
    }
  }
  print_message("%s %dD %s N = %zu: %d steps to t = %.4g, momentum drift %.2g, smallest gap "
                "%.3g (ri+rj)\n", method == BALL_EVENT_DRIVEN ? "event driven" : "time stepping",
                dim, periodic ? "periodic" : "walls", n, steps, s.t, worst_p, worst_gap);
  assert_int_equal(nc, 1);
  if (periodic) assert_true(worst_p < 1e-12);
  if (method == BALL_EVENT_DRIVEN) assert_true(worst_gap > -1e-10);
  else assert_true(worst_gap > -agglo_ballistic_edit(&c)->tol);
  free(xprev);
  free(lprev);
  m->destroy(state);
  agglo_system_free(&s);
}

static void ed_conservation_2d_periodic(void **st) {
  (void)st;
  conservation_run(BALL_EVENT_DRIVEN, 2, 1, 300);
}
static void ed_conservation_3d_walls(void **st) {
  (void)st;
  conservation_run(BALL_EVENT_DRIVEN, 3, 0, 200);
}
static void ts_invariants_2d_periodic(void **st) {
  (void)st;
  conservation_run(BALL_TIME_STEPPING, 2, 1, 300);
}
static void ts_invariants_3d_walls(void **st) {
  (void)st;
  conservation_run(BALL_TIME_STEPPING, 3, 0, 200);
}

/* Links are never lost: pairs of one cluster in contact stay in contact (time stepping). */
static void ts_links_never_lost(void **st) {
  (void)st;
  agglo_config c;
  base_config(&c, BALL_TIME_STEPPING);
  c.n = 200, c.placement = PLACE_LATTICE, c.fraction = 0.25, c.size.n = 0;
  c.boundary.n = 1, c.boundary.v[0] = 0;
  agglo_system s;
  char err[256];
  assert_int_equal(agglo_setup(&s, &c, err, sizeof err), 0);
  const agglo_model *m = &agglo_model_ballistic;
  void *state;
  assert_int_equal(m->init(&state, &s, &c, err, sizeof err), 0);
  size_t n = s.n, nc, mx;
  unsigned char *touch = calloc(n * n, 1);
  agglo_step_info info = {0};
  double lim = 3 * agglo_ballistic_edit(&c)->tol; /* touching: |gap| below 3 tol (ri+rj) */
  int checked = 0;
  while (!info.finished) {
    assert_int_equal(m->step(state, &s, &info, err, sizeof err), 0);
    assert_int_equal(m->labels(state, &s, &nc, &mx), 0);
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++) {
        double g = dist(&s, i, j) / 2 - 1;
        if (touch[i * n + j]) {
          assert_true(fabs(g) < lim);
          assert_true(s.cluster[i] == s.cluster[j]);
          checked++;
        } else if (s.cluster[i] == s.cluster[j] && fabs(g) < lim) {
          touch[i * n + j] = 1;
        }
      }
  }
  print_message("links checked %d times\n", checked);
  assert_true(checked > 1000);
  free(touch);
  m->destroy(state);
  agglo_system_free(&s);
}

/* Degond et al. 2024, eq. 4.15, written out: on the Cartesian grid of side eps_m = L/2^m over
   the box, N(eps_m) = the cells holding at least one centre; D_f = the least-squares slope of
   log N against log(1/eps) over 3R <= eps <= L/2. */
static int cmp_cell(const void *a, const void *b) {
  const long *x = a, *y = b;
  for (int k = 0; k < 3; k++)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

static double paper_box_dimension(const agglo_system *s, int32_t label, double R) {
  double L = s->box.len[0], sx = 0, sy = 0, sxx = 0, sxy = 0;
  long *cell = malloc(3 * s->n * sizeof *cell);
  int levels = 0;
  for (int m = 1; L / pow(2, m) >= 3 * R; m++) {
    double eps = L / pow(2, m);
    size_t q = 0;
    for (size_t i = 0; i < s->n; i++)
      if (s->cluster[i] == label) {
        for (int k = 0; k < 3; k++) {
          long c = k < s->dim ? (long)floor((s->x[3 * i + k] - s->box.lo[k]) / eps) : 0;
          cell[3 * q + k] = c < 0 ? 0 : (c >= (1L << m) ? (1L << m) - 1 : c);
        }
        q++;
      }
    qsort(cell, q, 3 * sizeof *cell, cmp_cell);
    size_t occupied = q > 0;
    for (size_t a = 1; a < q; a++) occupied += cmp_cell(cell + 3 * a, cell + 3 * (a - 1)) != 0;
    double x = log(1 / eps), y = log((double)occupied);
    sx += x, sy += y, sxx += x * x, sxy += x * y, levels++;
  }
  free(cell);
  assert_true(levels >= 2);
  return (levels * sxy - sx * sy) / (levels * sxx - sx * sx);
}

/* The final cluster's D_f (stats, agglo compare) is the paper's box count: 2D walls and 3D
   periodic, both methods, to 1e-12. */
static void box_dimension_is_the_papers(void **st) {
  (void)st;
  struct { int dim, periodic, method; size_t n; double fraction; } cases[] = {
      {2, 0, BALL_EVENT_DRIVEN, 100, 0.2}, {2, 1, BALL_TIME_STEPPING, 150, 0.1},
      {3, 1, BALL_EVENT_DRIVEN, 125, 0.1}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    agglo_config c;
    base_config(&c, cases[t].method);
    c.dim = cases[t].dim, c.n = (int64_t)cases[t].n, c.placement = PLACE_LATTICE;
    c.fraction = cases[t].fraction, c.size.n = 0;
    c.boundary.n = 1, c.boundary.v[0] = cases[t].periodic;
    agglo_system s;
    char err[256];
    assert_int_equal(agglo_setup(&s, &c, err, sizeof err), 0);
    run_to_end(&agglo_model_ballistic, &s, &c);
    agglo_frame_summary a;
    agglo_cluster_info *info;
    size_t nc;
    agglo_indicator_settings how = AGGLO_INDICATORS_DEFAULT;
    assert_int_equal(agglo_frame_summarize(&s, 0.01, &how, &a, &info, &nc), 0);
    double paper = paper_box_dimension(&s, (int32_t)info[0].label, 1);
    print_message("%dD %s, N = %zu: D_f = %.15f (the paper's count %.15f), %d levels\n", c.dim,
                  cases[t].periodic ? "periodic" : "walls", cases[t].n, a.fractal_dimension_box, paper,
                  a.box_levels);
    assert_true(info[0].size == cases[t].n);
    assert_true(fabs(a.fractal_dimension_box - paper) < 1e-12);
    assert_true(a.box_levels >= 2 && fabs(a.box_eps_max - s.box.len[0] / 2) < 1e-12);
    free(info);
    agglo_system_free(&s);
  }
}

/* With a smaller time-step factor the time stepping's statistics approach the exact ones. */
static void ts_converges_to_ed(void **st) {
  (void)st;
  agglo_config c;
  base_config(&c, BALL_EVENT_DRIVEN);
  c.n = 100, c.placement = PLACE_LATTICE, c.fraction = 0.2, c.size.n = 0;
  c.boundary.n = 1, c.boundary.v[0] = 0;
  enum { S = 12 };
  double nc_ed = 0, nc_ts[2] = {0, 0}, p_ed = 0, p_ts[2] = {0, 0};
  double factors[2] = {1, 0.1};
  char err[256];
  for (int seed = 1; seed <= S; seed++) {
    c.seed = seed;
    agglo_ball_result r;
    agglo_ballistic_edit(&c)->method = BALL_EVENT_DRIVEN;
    assert_int_equal(agglo_ballistic_simulate(&c, &r, err, sizeof err), 0);
    nc_ed += r.nc / S, p_ed += r.pr[1] / S;
    for (int f = 0; f < 2; f++) {
      agglo_ballistic_edit(&c)->method = BALL_TIME_STEPPING;
      agglo_ballistic_edit(&c)->dt_factor = factors[f];
      assert_int_equal(agglo_ballistic_simulate(&c, &r, err, sizeof err), 0);
      nc_ts[f] += r.nc / S, p_ts[f] += r.pr[1] / S;
    }
  }
  print_message("N_c: event driven %.4f, time stepping %.4f (dt_factor 1), %.4f (0.1)\n", nc_ed,
                nc_ts[0], nc_ts[1]);
  print_message("P(4r): event driven %.3f, time stepping %.3f (1), %.3f (0.1)\n", p_ed, p_ts[0],
                p_ts[1]);
  assert_true(fabs(nc_ts[1] - nc_ed) < 0.5 * fabs(nc_ts[0] - nc_ed));
  assert_true(fabs(nc_ts[1] - nc_ed) < 0.03 * nc_ed);
  assert_true(fabs(p_ts[1] - p_ed) < fabs(p_ts[0] - p_ed));
}

/* Frames (from frame_min particles, slack in units of r_max) change where pairs are looked for,
   not which are found nor their order: the run is the same bit for bit. */
static double *frames_run(const agglo_config *c, size_t frame_min, double slack, size_t *n,
                          double *t) {
  agglo_system s;
  char err[256];
  assert_int_equal(agglo_setup(&s, c, err, sizeof err), 0);
  assert_int_equal(agglo_sort_spatially(&s, 4 * agglo_max_radius(&s)), 0);
  const agglo_model *m = &agglo_model_ballistic;
  void *state;
  assert_int_equal(m->init(&state, &s, c, err, sizeof err), 0);
  assert_int_equal(agglo_ballistic_set_frames(state, &s, frame_min, slack), 0);
  agglo_step_info info = {0};
  while (!info.finished) assert_int_equal(m->step(state, &s, &info, err, sizeof err), 0);
  double *x = malloc(6 * s.n * sizeof *x);
  memcpy(x, s.x, 3 * s.n * sizeof *x);
  memcpy(x + 3 * s.n, s.v, 3 * s.n * sizeof *x);
  *n = s.n, *t = s.t;
  m->destroy(state);
  agglo_system_free(&s);
  return x;
}

static void ts_frames_identical(void **st) {
  (void)st;
  agglo_config c;
  for (int variant = 0; variant < 2; variant++) {
    base_config(&c, BALL_TIME_STEPPING);
    c.n = 600, c.placement = PLACE_LATTICE, c.fraction = 0.2, c.size.n = 0, c.seed = 4;
    c.boundary.n = 1, c.boundary.v[0] = 0; /* walls */
    if (variant) { /* 3D periodic, polydisperse */
      c.dim = 3, c.n = 500, c.fraction = 0.1, c.radius_spread = 0.2, c.placement = PLACE_RANDOM;
      c.boundary.v[0] = 1;
    }
    size_t n0, n1, n2;
    double t0, t1, t2;
    /* no frames; frames from 30 particles (default slack); frames from 3 particles with a
       small slack (frames reset often, many framed-framed candidates) */
    double *a = frames_run(&c, SIZE_MAX, 2, &n0, &t0), *b = frames_run(&c, 30, 2, &n1, &t1);
    double *e = frames_run(&c, 3, 0.2, &n2, &t2);
    assert_int_equal(n0, n1);
    assert_int_equal(n0, n2);
    assert_true(t0 == t1 && t0 == t2);
    assert_memory_equal(a, b, 6 * n0 * sizeof *a);
    assert_memory_equal(a, e, 6 * n0 * sizeof *a);
    free(e);
    print_message("%s: one cluster at t = %.6g, positions and velocities identical\n",
                  variant ? "3D periodic" : "2D walls", t0);
    free(a), free(b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ed_two_sphere_collision_time),
      cmocka_unit_test(ed_three_spheres_by_hand),
      cmocka_unit_test(ed_wall_then_merge),
      cmocka_unit_test(ed_conservation_2d_periodic),
      cmocka_unit_test(ed_conservation_3d_walls),
      cmocka_unit_test(ts_invariants_2d_periodic),
      cmocka_unit_test(ts_invariants_3d_walls),
      cmocka_unit_test(ts_links_never_lost),
      cmocka_unit_test(box_dimension_is_the_papers),
      cmocka_unit_test(ts_converges_to_ed),
      cmocka_unit_test(ts_frames_identical),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
