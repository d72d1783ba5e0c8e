/* A capillary bridge pulled apart at a prescribed rate (issue 45): two spheres (d = 1) start at
   contact and their gap is set to H_k = k u dt before each force evaluation of the model's own
   pair loop (agglo_dpd_forces, dpd_state.h), so the pulling rate u is exact and nothing else
   moves them (no thermostat: gamma = 0, no hard core). The bridge must
   - pull with the law of docs/dpd.md at every gap while it lasts (closed forms written here:
     constant volume F = -F0 c / (s (s + H)), s = sqrt(H^2 + c), c = R^2 alpha^4; thesis volume
     F = -F0 / (1 + H / (R alpha^2)); F0 = 2 pi R gamma_s cos(theta)),
   - break at the first gap at or beyond D_rupt = (1 + theta/2) V^(1/3), V = pi R^3 alpha^4 / 2
     (Lian, Thornton, Adams 1993), whatever the rate, so that the last force it gives is the law
     at D_rupt to within one gap increment: |F_last - F(D_rupt)| <= |F'(D_rupt)| u dt,
   - and not form again when pushed back to a gap below D_rupt without touching (memory), only at
     contact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpd_support.h"
#include "models/dpd_state.h"

static const double radius = 0.5, gamma_s = 2318, alpha_deg = 10, dt = 5e-4;

typedef struct {
  int volume;   /* AGGLO_CAP_* */
  double theta; /* contact angle, degrees */
} bridge_case;

/* the law's radial force (< 0: attraction) at gap H >= 0, equal spheres of radius `radius` */
static double law(const bridge_case *b, double H) {
  const double R = radius, a = alpha_deg * M_PI / 180; /* R = 2 ri rj / (ri + rj) = radius */
  const double F0 = 2 * M_PI * R * gamma_s * cos(b->theta * M_PI / 180);
  if (b->volume == AGGLO_CAP_THESIS) return -F0 / (1 + H / (R * a * a));
  const double c = R * R * pow(a, 4), s = sqrt(H * H + c);
  return -F0 * c / (s * (s + H));
}

static double rupture_gap(const bridge_case *b) {
  const double R = radius, a = alpha_deg * M_PI / 180;
  return (1 + 0.5 * b->theta * M_PI / 180) * cbrt(0.5 * M_PI * R * R * R * pow(a, 4));
}

/* mass: of each sphere; u: their relative speed at the start (sphere 1 at +u/2 along x) */
static void start_pair_moving(sim *S, const bridge_case *b, double mass, double u, agglo_config *out) {
  agglo_config c;
  agglo_config_defaults(&c);
  c.model = &agglo_dpd_entry, c.dim = 3, c.dt = dt, c.t_end = 1e6, c.n = 2;
  c.radius = radius, c.radius_spread = 0, c.mass = mass;
  c.size.n = 1, c.size.v[0] = 6, c.boundary.n = 1, c.boundary.v[0] = 1;
  agglo_dpd_settings *d = agglo_dpd_edit(&c);
  d->conservative = AGGLO_PF_CAPILLARY, d->cap_bridge = DPD_BRIDGE_MEMORY, d->cap_volume = b->volume;
  d->surface_tension = gamma_s, d->fill_angle = alpha_deg, d->contact_angle = b->theta, d->rc = 3;
  d->min_gap = 0.02, d->core_k = 0, d->gamma = 0, d->kT = 1.0 / 3;
  char err[512];
  memset(S, 0, sizeof *S);
  if (agglo_config_validate(&c, err, sizeof err) != 0) fail_msg("check: %s", err);
  if (agglo_setup(&S->s, &c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  const double x0[6] = {3 - radius, 3, 3, 3 + radius, 3, 3}, v0[6] = {-0.5 * u, 0, 0, 0.5 * u, 0, 0};
  memcpy(S->s.x, x0, sizeof x0);
  memcpy(S->s.v, v0, sizeof v0);
  if (agglo_model_dpd.init(&S->state, &S->s, &c, err, sizeof err) != 0) fail_msg("init: %s", err);
  if (out) *out = c;
}

static void start_pair(sim *S, const bridge_case *b) { start_pair_moving(S, b, 1, 0, NULL); }

/* Puts the pair at gap H (along x, centred at 3, velocities -+u/2: the prescribed motion),
   evaluates the forces of step `step` and returns the radial force F on the pair (< 0 attracts):
   sphere 0 feels F e with e = (x_0 - x_1)/r = -x, i.e. -F along x. */
static double force_at_gap(sim *S, double H, double u, uint64_t step) {
  dpd *m = S->state;
  const double xv[12] = {3 - radius - 0.5 * H, 3, 3, -0.5 * u, 0, 0,
                         3 + radius + 0.5 * H, 3, 3, 0.5 * u, 0, 0};
  const double g[6] = {0};
  agglo_dpd_refresh(m, &S->s, xv, g);
  size_t in_range;
  double min_gap;
  if (agglo_dpd_forces(m, step, &in_range, &min_gap) != 0) fail_msg("forces: out of memory");
  for (size_t k = 0; k < m->n; k++)
    if (m->p.perm[k] == 0) return -m->f[0][k];
  fail_msg("sphere 0 not found");
  return NAN;
}

static void pulled_bridge_breaks_at_the_law(void **st) {
  (void)st;
  const bridge_case cases[] = {{AGGLO_CAP_CONSTANT_VOLUME, 0}, {AGGLO_CAP_THESIS, 0},
                               {AGGLO_CAP_CONSTANT_VOLUME, 40}, {AGGLO_CAP_THESIS, 40}};
  const double rates[] = {0.1, 1, 10}; /* relative pulling speeds: 11 to 1 135 evaluations */
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    const bridge_case *b = &cases[ci];
    const double D = rupture_gap(b), FD = law(b, D);
    const double slope = (law(b, D * (1 + 1e-6)) - law(b, D * (1 - 1e-6))) / (2e-6 * D);
    for (size_t ri = 0; ri < sizeof rates / sizeof *rates; ri++) {
      const double u = rates[ri], dH = u * dt;
      sim S;
      start_pair(&S, b);
      double H_last = NAN, F_last = NAN, worst = 0, H = 0;
      uint64_t k = 0;
      for (;; k++) {
        H = (double)k * dH;
        const double F = force_at_gap(&S, H, u, k + 1);
        if (F == 0) break;
        /* the gap the model sees: r - 1 of the positions set above */
        const double Hm = (3 + radius + 0.5 * H) - (3 - radius - 0.5 * H) - 2 * radius;
        worst = fmax(worst, fabs(F / law(b, Hm) - 1));
        H_last = H, F_last = F;
        if (k > 10 * (uint64_t)(D / dH)) fail_msg("no rupture by gap %g (D_rupt %g)", H, D);
      }
      const double tol = fabs(slope) * dH;
      printf("%s volume, theta %2.0f deg, rate %5.1f: %4llu evaluations bridged, law to %.1e; "
             "rupture between gaps %.6f and %.6f (D_rupt %.6f); last force %.4f, law at D_rupt "
             "%.4f (allowed %.4f)\n",
             b->volume == AGGLO_CAP_THESIS ? "thesis  " : "constant", b->theta, u,
             (unsigned long long)k, worst, H_last, H, D, F_last, FD, tol);
      assert_true(worst < 1e-12);                /* the law at every bridged gap */
      assert_true(H_last < D && H >= D);         /* breaks at the first gap >= D_rupt */
      assert_true(fabs(F_last - FD) <= tol);     /* ... with the law's force at D_rupt */
      /* the slowest pull resolves the rupture force to 0.2 % (constant volume; the law is
         steepest there: 17 % of F per 0.005 of gap at rate 10) */
      if (u <= 0.1) assert_true(fabs(F_last / FD - 1) < 2e-3);

      /* memory: back to half the rupture gap without contact, no force; at contact, F0 */
      assert_true(force_at_gap(&S, 0.5 * D, -u, k + 2) == 0);
      assert_true(force_at_gap(&S, 0.5 * D, -u, k + 3) == 0);
      assert_true(fabs(force_at_gap(&S, 0, 0, k + 4) / law(b, 0) - 1) < 1e-12);
      assert_true(fabs(force_at_gap(&S, 0.5 * D, u, k + 5) / law(b, 0.5 * D) - 1) < 1e-12);
      stop(&S);
    }
  }
}

/* The same through the integrator (DPD-VV, agglo_model_dpd.step): two heavy spheres (mass 10^6:
   the bridge's well, 96-153, changes their relative speed u = 1 by at most 3.10^-4, so the rate
   is prescribed to that much) leave contact with opposite velocities, no thermostat. The step
   whose second half kick has no force is the rupture: the gap there is the first >= D_rupt, the
   gap before it below, and its first half kick, dt F_last / (2 m) = 6.10^-8 against a speed of
   0.5, gives the last force of the bridge, which must be the law at the gap before (to 10^-6,
   round-off of the speed: 10^-9) and the law at D_rupt within |F'| u dt. */
static void integrated_pull_breaks_at_the_law(void **st) {
  (void)st;
  const bridge_case cases[] = {{AGGLO_CAP_CONSTANT_VOLUME, 0}, {AGGLO_CAP_THESIS, 40}};
  const double mass = 1e6, u = 1;
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    const bridge_case *b = &cases[ci];
    const double D = rupture_gap(b), FD = law(b, D);
    const double slope = (law(b, D * (1 + 1e-6)) - law(b, D * (1 - 1e-6))) / (2e-6 * D);
    sim S;
    start_pair_moving(&S, b, mass, u, NULL);
    double gap_before = 0, F_last = NAN, gap = 0;
    int steps = 0;
    for (;;) {
      const double v_before = S.s.v[3];
      advance(&S, 1), steps++;
      gap = S.s.x[3] - S.s.x[0] - 2 * radius;
      /* a bridged step kicks twice (old and new force), the rupture step once (old force) */
      const double F_new_half = S.s.v[3] - v_before;
      if (gap >= D) {
        F_last = 2 * mass * F_new_half / dt; /* sphere 1 feels F along x (e = +x) */
        break;
      }
      gap_before = gap;
      if (steps > 1000) fail_msg("no rupture by gap %g", gap);
    }
    const double v_after = S.s.v[3];
    advance(&S, 10);
    printf("integrated, %s volume, theta %2.0f deg: rupture between gaps %.6f and %.6f "
           "(D_rupt %.6f) at step %d; last force %.4f, law there %.4f, at D_rupt %.4f\n",
           b->volume == AGGLO_CAP_THESIS ? "thesis" : "constant", b->theta, gap_before, gap, D,
           steps, F_last, law(b, gap_before), FD);
    assert_true(gap_before < D && gap >= D);
    assert_true(fabs(F_last / law(b, gap_before) - 1) < 1e-6);
    assert_true(fabs(F_last - FD) <= fabs(slope) * u * dt);
    assert_true(S.s.v[3] == v_after); /* beyond: no force at all */
    stop(&S);
  }
}


/* The stats columns bridges_formed and bridges_broken (dpd.bridge_counts, auto: on with bridges
   with memory) on the integrated pull above: a row every 7 steps (the model's numbers, then its
   .stats_taken, as stats.csv takes them); the row of step 0 has the one bridge formed at contact,
   the row after the rupture step (the first gap >= D_rupt, with the law's force at D_rupt to
   |F'| u dt) the one broken, every other row 0 and 0: one formed and one broken in all. A restart
   at step 24, between two rows (the model's save and load, as a restart point), counts on to the
   same rows. */
static void row_counts(const agglo_model *t, sim *S, double out[2]) {
  double v[32];
  int has[32];
  t->stats_numbers(S->state, v, has);
  out[0] = v[t->stats_count - 2], out[1] = v[t->stats_count - 1];
  assert_true(has[t->stats_count - 2] && has[t->stats_count - 1]);
  t->stats_taken(S->state);
}

static void bridges_counted(void **st) {
  (void)st;
  const bridge_case b = {AGGLO_CAP_CONSTANT_VOLUME, 0};
  const double mass = 1e6, u = 1, D = rupture_gap(&b), FD = law(&b, D);
  const double slope = (law(&b, D * (1 + 1e-6)) - law(&b, D * (1 - 1e-6))) / (2e-6 * D);
  agglo_config c;
  sim S, R;
  start_pair_moving(&S, &b, mass, u, &c);
  const agglo_model *t = agglo_dpd_dynamics(&c);
  const char *cols = t->stats_columns, *tail = ",bridges_formed,bridges_broken";
  assert_true(agglo_dpd_bridge_counts(&c) && strlen(cols) > strlen(tail) &&
              strcmp(cols + strlen(cols) - strlen(tail), tail) == 0);
  double row[2], again[2], total[2] = {0, 0}, gap_before = 0, gap = 0, F_last = NAN;
  row_counts(t, &S, row);
  printf("row at step 0: formed %g, broken %g\n", row[0], row[1]);
  assert_true(row[0] == 1 && row[1] == 0);
  total[0] += row[0], total[1] += row[1];
  int rupture = 0, restarted = 0, rows = 1;
  for (int step = 1; step <= 200; step++) {
    const double v_before = S.s.v[3];
    advance(&S, 1);
    if (restarted) advance(&R, 1);
    const double g = S.s.x[3] - S.s.x[0] - 2 * radius;
    if (!rupture && g >= D) rupture = step, gap = g, F_last = 2 * mass * (S.s.v[3] - v_before) / dt;
    if (!rupture) gap_before = g;
    if (step == 24) { /* a restart point between rows: the model's record, read by a new model */
      char *buf = NULL, err[512];
      size_t len = 0;
      FILE *f = open_memstream(&buf, &len);
      assert_int_equal(agglo_model_dpd.save(S.state, f), 0);
      fclose(f);
      start_pair_moving(&R, &b, mass, u, NULL);
      agglo_model_dpd.destroy(R.state);
      memcpy(R.s.x, S.s.x, 6 * sizeof(double)), memcpy(R.s.v, S.s.v, 6 * sizeof(double));
      R.s.step = S.s.step, R.s.t = S.s.t;
      assert_int_equal(t->init(&R.state, &R.s, &c, err, sizeof err), 0);
      f = fmemopen(buf, len, "r");
      if (t->load(R.state, &R.s, f, err, sizeof err) != 0) fail_msg("load: %s", err);
      fclose(f), free(buf);
      restarted = 1;
    }
    if (step % 7) continue;
    row_counts(t, &S, row), rows++;
    if (restarted) {
      row_counts(t, &R, again);
      assert_true(again[0] == row[0] && again[1] == row[1]);
    }
    const int holds_rupture = rupture && step - rupture < 7;
    if (row[0] || row[1])
      printf("row at step %d: formed %g, broken %g (rupture at step %d)\n", step, row[0], row[1], rupture);
    assert_true(row[0] == 0 && row[1] == (holds_rupture ? 1 : 0));
    total[0] += row[0], total[1] += row[1];
  }
  printf("%d rows: formed %g, broken %g in all; rupture between gaps %.6f and %.6f (D_rupt %.6f), "
         "last force %.4f, law at D_rupt %.4f\n", rows, total[0], total[1], gap_before, gap, D, F_last, FD);
  assert_true(total[0] == 1 && total[1] == 1 && rupture > 0);
  assert_true(gap_before < D && gap >= D);
  assert_true(fabs(F_last - FD) <= fabs(slope) * u * dt);
  stop(&S), stop(&R);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pulled_bridge_breaks_at_the_law),
      cmocka_unit_test(integrated_pull_breaks_at_the_law),
      cmocka_unit_test(bridges_counted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
