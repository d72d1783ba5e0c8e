/* The event-driven engine (ballistic_events.h) against an independent brute force: every pair of
   particles of different clusters, in every nearby periodic image, timed after every event, all
   particles moved to the earliest event. On small dense systems (2D and 3D), without flights
   (the ballistic model) and with flights (the dlca model's kind of motion), and on dilute runs to
   one cluster, both must find the same contacts between the same clusters in the same order at
   the same times: the per-cluster builds, margins and horizons of the engine miss and reorder
   nothing. And at every contact and every step end of the engine, no two particles of different
   clusters overlap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/ballistic_events.h"
#include "core/rng.h"

enum { N = 40, MAX_CONTACTS = 4 * N };
#define FLIGHT_TIME 0.4

typedef struct {
  double t;
  int32_t a, b; /* clusters, a < b, named as the engine names them */
} contact;

typedef struct {
  int flights;           /* 1: clusters fly (a new direction every FLIGHT_TIME) */
  int count[N];          /* flights drawn per cluster */
  contact seen[MAX_CONTACTS];
  int n_seen;
  const agglo_system *s; /* the engine's system: the overlap check at each contact */
} recorder;

/* The velocity of the k-th flight of cluster c of the given size: a direction keyed by (c, k),
   speed 1/sqrt(size). A pure function, so that both methods draw the same. */
static void flight_velocity(int dim, int32_t c, int k, int size, double V[3]) {
  double u[4];
  agglo_rng_uniform4(7, 3, (uint64_t)k, (uint64_t)c, u);
  agglo_rng_direction(dim, u, 1 / sqrt(size), V);
}

static void engine_flight(void *ctx, agglo_ed *e, int32_t c, double t) {
  recorder *r = ctx;
  flight_velocity(e->dim, c, r->count[c]++, e->cluster[c].size, e->cluster[c].V);
  e->cluster[c].t_flight = t + FLIGHT_TIME;
}

/* The smallest gap between particles of different clusters of the engine at its time e->t, from
   its clusters' straight lines, in any periodic image: an overlap in an image is a distance below
   r_i + r_j <= L / 2 there (the engine refuses a box narrower than 4 max radii), every component
   below L / 2, so that image is the minimum one. The gap of particles i0 and j0 (-1: none) in *pair_gap. */
static double engine_min_gap(const agglo_ed *e, const agglo_system *s, int32_t i0, int32_t j0,
                             double *pair_gap) {
  double x[3 * N], worst = INFINITY;
  for (int i = 0; i < N; i++) {
    int32_t c = e->cl[i];
    for (int k = 0; k < 3; k++)
      x[3 * i + k] = e->p[3 * i + k] + e->cluster[c].X0[k] + e->cluster[c].V[k] * (e->t - e->cluster[c].t0);
  }
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++) {
      if (e->cl[i] == e->cl[j]) continue;
      double d2 = 0;
      for (int k = 0; k < 3; k++) {
        double d = x[3 * i + k] - x[3 * j + k];
        if (s->box.periodic[k]) d -= s->box.len[k] * round(d / s->box.len[k]);
        d2 += d * d;
      }
      double g = sqrt(d2) - s->r[i] - s->r[j];
      if ((i == i0 && j == j0) || (i == j0 && j == i0)) *pair_gap = g;
      else if (g < worst) worst = g;
    }
  return worst;
}

static int engine_sticks(void *ctx, agglo_ed *e, int32_t a, int32_t b) {
  recorder *r = ctx;
  /* the pair of the contact touches, and no other pair overlaps, in any image */
  double tol = 1e-9 * (1 + r->s->box.len[0]), touch = INFINITY;
  assert_true(engine_min_gap(e, r->s, e->cur.kind, e->cur.j, &touch) >= -tol);
  assert_true(fabs(touch) <= tol);
  assert_true(r->n_seen < MAX_CONTACTS);
  r->seen[r->n_seen++] = (contact){e->t, a < b ? a : b, a < b ? b : a};
  return 1;
}

/* Random radii 0.8..1.2 placed without overlap in a periodic box of side L (fraction phi). */
static void make_dense(agglo_system *s, int dim, double phi, unsigned seed) {
  assert_int_equal(agglo_system_alloc(s, dim, N), 0);
  double vol = 0, u[4];
  for (int i = 0; i < N; i++) {
    agglo_rng_uniform4(seed, 1, 0, (uint64_t)i, u);
    s->r[i] = 0.8 + 0.4 * u[0];
    s->m[i] = pow(s->r[i], dim), s->inv_m[i] = 1 / s->m[i], s->id[i] = i;
    vol += dim == 2 ? M_PI * s->r[i] * s->r[i] : 4.0 / 3.0 * M_PI * pow(s->r[i], 3);
  }
  double L = pow(vol / phi, 1.0 / dim);
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = k < dim ? 0 : -1;
    s->box.len[k] = k < dim ? L : 2;
    s->box.hi[k] = s->box.lo[k] + s->box.len[k];
    s->box.periodic[k] = k < dim;
  }
  uint64_t tries = 0;
  for (int i = 0; i < N; i++) {
    for (int ok = 0; !ok;) {
      assert_true(tries < 1000000);
      agglo_rng_uniform4(seed, 2, tries++, (uint64_t)i, u);
      for (int k = 0; k < 3; k++) s->x[3 * i + k] = k < dim ? L * u[k] : 0;
      ok = 1;
      for (int j = 0; j < i && ok; j++) {
        double d[3];
        agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
        ok = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > s->r[i] + s->r[j] + 0.01;
      }
    }
    agglo_rng_uniform4(seed, 4, 0, (uint64_t)i, u);
    agglo_rng_direction(dim, u, 1, s->v + 3 * i);
  }
}

/* ---- the brute force: absolute positions, every pair in every image after every event ---- */

/* It looks at most `ahead` = a quarter of the narrowest periodic side over the fastest cluster's
   speed past its time t: no pair moves more than half a box relative to each other along any axis
   meanwhile, so a contact before t + ahead is in one of the 27 images next to the pair's minimum
   image at t; with nothing before it, everything moves there and looks again. (Without this, a
   dilute 3D run that goes 105 time units without a contact, from t = 152.67 to 257.74, missed
   its pair 13-34 touching 3 boxes further along x, and every contact after it.) */
static void brute_force(const agglo_system *s0, int flights, double t_stop, recorder *r) {
  int dim = s0->dim;
  double x[3 * N], V[3 * N], M[N], t = 0, t_flight[N];
  int32_t cl[N], size[N];
  const double *L = s0->box.len;
  for (int i = 0; i < N; i++) {
    cl[i] = i, size[i] = 1, M[i] = s0->m[i], t_flight[i] = INFINITY;
    for (int k = 0; k < 3; k++) x[3 * i + k] = s0->x[3 * i + k], V[3 * i + k] = s0->v[3 * i + k];
    if (flights) flight_velocity(dim, i, r->count[i]++, 1, V + 3 * i), t_flight[i] = FLIGHT_TIME;
  }
  double narrow = INFINITY;
  for (int k = 0; k < dim; k++)
    if (s0->box.periodic[k] && L[k] < narrow) narrow = L[k];
  for (;;) {
    double best = INFINITY, vmax = 0;
    int bi = -1, bj = -1, bc = -1;
    for (int c = 0; c < N; c++)
      if (size[c] > 0) vmax = fmax(vmax, sqrt(V[3 * c] * V[3 * c] + V[3 * c + 1] * V[3 * c + 1] +
                                              V[3 * c + 2] * V[3 * c + 2]));
    double ahead = t + 0.25 * narrow / vmax; /* INFINITY: nothing moves, or no periodic axis */
    for (int c = 0; c < N; c++)
      if (size[c] > 0 && t_flight[c] < best) best = t_flight[c], bc = c;
    for (int i = 0; i < N; i++)
      for (int j = i + 1; j < N; j++) {
        if (cl[i] == cl[j]) continue;
        double d0[3], dv[3], sum = s0->r[i] + s0->r[j];
        /* x_i - x_j, minimum image: by rounding, as the absolute positions cross the box many
           times in a long dilute run */
        for (int k = 0; k < 3; k++) {
          d0[k] = x[3 * i + k] - x[3 * j + k];
          if (s0->box.periodic[k]) d0[k] -= L[k] * round(d0[k] / L[k]);
        }
        for (int k = 0; k < 3; k++) dv[k] = V[3 * cl[i] + k] - V[3 * cl[j] + k];
        int span = dim == 3 ? 1 : 0;
        for (int ix = -1; ix <= 1; ix++)
          for (int iy = -1; iy <= 1; iy++)
            for (int iz = -span; iz <= span; iz++) {
              double d[3] = {d0[0] + ix * L[0], d0[1] + iy * L[1], d0[2] + (dim == 3 ? iz * L[2] : 0)};
              double a = 0, b = 0, c = -sum * sum;
              for (int k = 0; k < 3; k++) a += dv[k] * dv[k], b += d[k] * dv[k], c += d[k] * d[k];
              double disc = b * b - a * c;
              if (b >= 0 || disc < 0) continue;
              double dt = c <= 0 ? 0 : c / (-b + sqrt(disc));
              if (t + dt < best) best = t + dt, bi = i, bj = j, bc = -1;
            }
      }
    if (best > ahead) { /* nothing within reach: move there, look again */
      if (ahead > t_stop) return;
      for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) x[3 * i + k] += V[3 * cl[i] + k] * (ahead - t);
      t = ahead;
      continue;
    }
    if (!(best <= t_stop)) return;
    for (int i = 0; i < N; i++)
      for (int k = 0; k < 3; k++) x[3 * i + k] += V[3 * cl[i] + k] * (best - t);
    t = best;
    if (bc >= 0) { /* a flight ends */
      flight_velocity(dim, bc, r->count[bc]++, size[bc], V + 3 * bc);
      t_flight[bc] = t + FLIGHT_TIME;
      continue;
    }
    int32_t A = cl[bi], B = cl[bj];
    assert_true(r->n_seen < MAX_CONTACTS);
    r->seen[r->n_seen++] = (contact){t, A < B ? A : B, A < B ? B : A};
    if (size[B] > size[A] || (size[B] == size[A] && B < A)) { /* the engine's naming */
      int32_t q = A; A = B; B = q;
    }
    for (int k = 0; k < 3; k++) V[3 * A + k] = (M[A] * V[3 * A + k] + M[B] * V[3 * B + k]) / (M[A] + M[B]);
    M[A] += M[B];
    for (int i = 0; i < N; i++)
      if (cl[i] == B) cl[i] = A;
    size[A] += size[B], size[B] = 0, t_flight[B] = INFINITY;
    if (flights) flight_velocity(dim, A, r->count[A]++, size[A], V + 3 * A), t_flight[A] = t + FLIGHT_TIME;
  }
}

static void compare(int dim, int flights, double phi, double window, double t_stop) {
  agglo_system s;
  make_dense(&s, dim, phi, 11 + (unsigned)dim);
  recorder fast = {.flights = flights, .s = &s}, slow = {.flights = flights};
  agglo_ed_motion motion = {flights ? engine_flight : NULL, engine_sticks, &fast, NULL, NULL};
  agglo_ed *e;
  char err[256];
  assert_int_equal(agglo_ed_create(&e, &s, window, "window", 1, t_stop, &motion, err, sizeof err), 0);
  agglo_step_info info = {0};
  double tol = 1e-9 * (1 + s.box.len[0]), unused;
  for (int k = 0; k < 100000 && !info.finished; k++) {
    assert_int_equal(agglo_ed_step(e, &s, &info, err, sizeof err), 0);
    assert_true(engine_min_gap(e, &s, -1, -1, &unused) >= -tol); /* no overlap at a step's end */
  }
  assert_true(info.finished);
  agglo_system s0;
  make_dense(&s0, dim, phi, 11 + (unsigned)dim);
  /* to the engine's stop (its last contact, with the round-off of the brute force's times) */
  double last = fast.n_seen < N - 1 ? t_stop : fast.seen[N - 2].t;
  brute_force(&s0, flights, last + 1e-9 * (1 + last), &slow);
  print_message("%dD, %s: %d contacts (brute force %d), %lld rebuilds, "
                "%lld flights, last at t = %.6g\n",
                dim, flights ? "flights" : "ballistic", fast.n_seen, slow.n_seen,
                (long long)e->rebuilds, (long long)e->flights,
                fast.seen[fast.n_seen - 1].t);
  assert_int_equal(fast.n_seen, slow.n_seen);
  assert_true(fast.n_seen >= N / 2);
  for (int q = 0; q < fast.n_seen; q++) {
    assert_int_equal(fast.seen[q].a, slow.seen[q].a);
    assert_int_equal(fast.seen[q].b, slow.seen[q].b);
    assert_true(fabs(fast.seen[q].t - slow.seen[q].t) <= 1e-9 * (1 + slow.seen[q].t));
  }
  agglo_ed_destroy(e);
  agglo_system_free(&s);
  agglo_system_free(&s0);
}

static void same_contacts_as_brute_force(void **st) {
  (void)st;
  compare(2, 0, 0.3, 1, INFINITY);
  compare(3, 0, 0.2, 0.5, INFINITY);
  compare(2, 1, 0.3, 1, 40);
  compare(3, 1, 0.2, 0.5, 40);
  /* dilute and long: clusters that have not merged for long cross the periodic box many times
     between their reference time and now (the contact in the image nearest now) */
  compare(2, 0, 0.02, 1, 1000);
  /* dilute 3D to one cluster: 39 contacts, the last at t = 3288 after 2919 without any; the
     clusters grow wider than half the box (the last one 14 x 13 x 19, box 25.5) */
  compare(3, 0, 0.01, 1, INFINITY);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(same_contacts_as_brute_force)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
